"""The perceptron's fused compiled loops against the same perceptron stepped as a Scorer.

    .venv/bin/python bench/stepped_perceptron.py [--system arc-eager] [--train PATH]
        [--test PATH] [--batches 1,32,256] [--repeats 3] [--buckets N] [--json]

Issue #16 asks the perceptron to be one implementation of the `Scorer`
protocol and to keep its fused epoch "as a fast path if that is measurably
faster": this measures both on one thread, in one process, after a warm-up:

- one training epoch (dynamic oracle, no exploration in the epoch timed, so that
  every path takes the same steps): fused `train_epoch`, and stepped with 1 and
  more sentences per batch (`arcwise.transition.train(..., stepped_batch=k)`);
- parsing the test split with the trained model: fused `parse_batch` and
  `arcwise.transition.stepped.parse` with the given sentences advancing together.

Times are the best of --repeats, in CPU seconds of this process (other load on a
shared machine disturbs them less than wall time) and wall seconds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numba
from timing import best_of

from arcwise.features.batch import Batch, sub_batch
from arcwise.io import read_treebank
from arcwise.transition import stepped
from arcwise.transition.scorers.perceptron import PerceptronScorer
from arcwise.transition.train import train

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", default="arc-eager")
    ap.add_argument("--train", default=str(DATA / "train.conllu.gz"))
    ap.add_argument("--test", default=str(DATA / "test.conllu.gz"))
    ap.add_argument("--batches", default="1,32,256", help="sentences per stepped batch")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--buckets", type=int, help="transition buckets (default: the system's)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    batches = [int(b) for b in args.batches.split(",")]
    numba.set_num_threads(1)
    sentences = list(read_treebank(args.train))
    test = list(read_treebank(args.test))
    options = dict(oracle="dynamic", epochs=1, explore_from=1, seed=0,
                   transition_buckets=args.buckets)
    for k in (None, 1):  # warm-up: compile both paths
        train(args.system, sentences[:20], stepped_batch=k, **options)
    rows = []

    def training(k):
        return lambda: train(args.system, sentences, stepped_batch=k, **options)

    wall, cpu = best_of(args.repeats, training(None))
    rows.append(("train epoch", "fused", cpu, wall, len(sentences)))
    for k in batches:
        wall, cpu = best_of(args.repeats, training(k))
        rows.append(("train epoch", f"stepped, {k} per batch", cpu, wall, len(sentences)))

    parser, _ = train(args.system, sentences, **options)
    batch = Batch(test, parser.vocabularies)
    scorer = PerceptronScorer.of_parser(parser)
    root = parser.classes.labels.index(parser.root_label)
    wall, cpu = best_of(args.repeats, lambda: parser.parse_encoded(batch))
    rows.append(("parse", "fused", cpu, wall, len(test)))
    for k in batches:
        parts = [sub_batch(batch, range(s, min(s + k, len(batch))))
                 for s in range(0, len(batch), k)]

        def parse_parts():
            for part in parts:
                stepped.parse(scorer, parser.kernels, parser.classes, part, root)

        wall, cpu = best_of(args.repeats, parse_parts)
        rows.append(("parse", f"stepped, {k} per batch", cpu, wall, len(test)))

    if args.json:
        print(json.dumps([dict(zip(("task", "path", "cpu_s", "wall_s", "sentences"), r))
                          for r in rows], indent=1))
        return
    print(f"{args.system}, one thread; {len(sentences):,} training, {len(test):,} test sentences")
    print(f"{'task':<12} {'path':<24} {'CPU s':>8} {'wall s':>8} {'sent/s (CPU)':>13}")
    for task, path, cpu, wall, n in rows:
        print(f"{task:<12} {path:<24} {cpu:>8.2f} {wall:>8.2f} {n / cpu:>13,.0f}")


if __name__ == "__main__":
    main()
