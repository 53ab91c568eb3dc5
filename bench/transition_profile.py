"""Where a greedy perceptron parser's time goes, per transition (issue #16: "a profile first").

    .venv/bin/python bench/transition_profile.py [--systems covington-nm,arc-eager]
        [--train PATH] [--test PATH] [--epochs 2] [--repeats 3] [--save-dir DIR]

Per system, a perceptron trained on --train (dynamic oracle; or loaded from
--save-dir/SYSTEM.arcwise when a former run saved it there) parses the test split
step by step with every sentence advancing together (`arcwise.transition.stepped`, the
perceptron as a Scorer), so each phase of a step runs over all configurations in
one compiled call and is timed alone, in CPU seconds of this thread (one numba
thread): which configurations still run, the legal classes, feature extraction
(`arcwise.features.extract`), scoring (the weight rows summed, the argmax, the
labeler) and apply.  Printed: transitions per sentence by action, each phase's
CPU µs per transition (the best of --repeats), and the fused compiled parse's
µs per transition and sentences/s beside them.
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

import numba
import numpy as np

from arcwise.features.batch import Batch, sub_batch
from arcwise.io import read_treebank
from arcwise.transition import stepped
from arcwise.transition.parser import Parser
from arcwise.transition.scorers.perceptron import PerceptronScorer, extract_rows, score_rows
from arcwise.transition.train import train

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"
PHASES = ("running", "legal", "features", "scoring", "apply")


def profile_once(parser: Parser, batch: Batch) -> tuple[dict[str, float], collections.Counter]:
    """CPU seconds of each phase over one stepped parse of the batch, and the actions taken."""
    scorer = PerceptronScorer.of_parser(parser)
    stepper = stepped.Stepper(parser.kernels, parser.classes, scorer, batch)
    program = parser.table.program
    seconds = dict.fromkeys(PHASES, 0.0)
    taken = np.zeros(parser.classes.n_classes, dtype=np.int64)
    clock = time.thread_time

    while True:
        t = clock()
        rows = stepper.running()
        seconds["running"] += clock() - t
        if not len(rows):
            break
        t = clock()
        legal = stepper.legal(rows)
        seconds["legal"] += clock() - t
        features = np.empty((len(rows), program.template_values.shape[0]), dtype=np.uint64)
        label_features = np.empty((len(rows), program.label_templates.shape[0]),
                                  dtype=np.uint64)
        t = clock()
        extract_rows(parser.kernels.system_id, program, stepper.states, rows, batch.words,
                     batch.offsets, features, label_features)
        seconds["features"] += clock() - t
        scores = np.empty((len(rows), parser.classes.n_classes))
        best = np.empty(len(rows), dtype=np.int64)
        t = clock()
        score_rows(parser.weights, legal, features, label_features, scores, best)
        seconds["scoring"] += clock() - t
        t = clock()
        stepper.apply(rows, best)
        seconds["apply"] += clock() - t
        np.add.at(taken, best[best >= 0], 1)
    actions = collections.Counter()
    for c in np.flatnonzero(taken):
        actions[parser.kernels.actions[parser.classes.transition[c]]] += int(taken[c])
    return seconds, actions


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", default="covington-nm,covington,arc-eager")
    ap.add_argument("--train", default=str(DATA / "train.conllu.gz"))
    ap.add_argument("--test", default=str(DATA / "test.conllu.gz"))
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--save-dir", type=Path, help="keep (and reuse) the trained models here")
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    test = list(read_treebank(args.test))
    training = None
    for system in args.systems.split(","):
        saved = args.save_dir / f"{system}.arcwise" if args.save_dir else None
        if saved is not None and saved.exists():
            parser = Parser.load(saved)
        else:
            training = training or list(read_treebank(args.train))
            parser, _ = train(system, training, oracle="dynamic", epochs=args.epochs, seed=0)
            if saved is not None:
                saved.parent.mkdir(parents=True, exist_ok=True)
                parser.save(saved)
        batch = Batch(test, parser.vocabularies)
        profile_once(parser, sub_batch(batch, range(min(len(batch), 20))))  # compile
        runs = [profile_once(parser, batch) for _ in range(args.repeats)]
        best = {phase: min(r[0][phase] for r in runs) for phase in PHASES}
        actions = runs[0][1]
        transitions = sum(actions.values())
        fused = []
        for _ in range(args.repeats):
            t = time.thread_time()
            parser.parse_encoded(batch)
            fused.append(time.thread_time() - t)
        print(f"\n{system}: {transitions / len(test):.1f} transitions per sentence ("
              + ", ".join(f"{a} {n / len(test):.1f}" for a, n in actions.most_common()) + ")")
        total = sum(best.values())
        for phase in PHASES:
            print(f"  {phase:<9} {1e6 * best[phase] / transitions:6.3f} µs/transition "
                  f"({100 * best[phase] / total:4.1f} %)")
        print(f"  stepped   {1e6 * total / transitions:6.3f} µs/transition, "
              f"{len(test) / total:,.0f} sentences/s")
        print(f"  fused     {1e6 * min(fused) / transitions:6.3f} µs/transition, "
              f"{len(test) / min(fused):,.0f} sentences/s (one thread)")


if __name__ == "__main__":
    main()
