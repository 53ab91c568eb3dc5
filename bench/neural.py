"""BiLSTM transition parsers (issue #16): accuracy, training time and parse speed.

    .venv/bin/python bench/neural.py [--systems arc-eager:dynamic,two-planar:static]
        [--epochs 15] [--train PATH --dev PATH --test PATH] [--threads 2]
        [--neural KEY=VALUE ...] [--max-train N] [--seed 1] [--json]

Per configuration (SYSTEM:ORACLE[:BOUND] for a BiLSTM transition parser,
`arcwise.train.train(..., model="bilstm")`; biaffine[:projective] for the
biaffine graph-based parser, `train_biaffine`): trains on the training
split with dev selection, then parses the
test split with the best epoch's model and prints test UAS/LAS (CoNLL 2018
rules, punctuation included), the seconds to the best epoch and in all, and
parse speed (sentences/s, encoding and stepping, the network on `--threads`
threads).  Defaults: the bundled English-EWT, gold tags.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="arc-eager:dynamic")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--train", type=Path, default=DATA / "train.conllu.gz")
    parser.add_argument("--dev", type=Path, default=DATA / "dev.conllu.gz")
    parser.add_argument("--test", type=Path, default=DATA / "test.conllu.gz")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--neural", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--max-train", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", type=Path, default=None, help="folder to save the models in")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import torch

    from arcwise.cli.train import parse_neural
    from arcwise.errors import ArcwiseError
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.io import read_treebank
    from arcwise.train import score_parser, train

    try:
        neural = {"threads": args.threads, **parse_neural(args.neural, "biaffine"
                  if args.systems.startswith("biaffine") else "bilstm")}
        train_sentences = list(read_treebank(args.train))[: args.max_train]
        dev = list(read_treebank(args.dev))
        test = list(read_treebank(args.test))
    except ArcwiseError as error:
        print(f"bench/neural.py: {error}", file=sys.stderr)
        return 2
    rows = []
    for spec in args.systems.split(","):
        system, *rest = spec.split(":")
        started = time.perf_counter()
        say = lambda e: print(json.dumps(e), file=sys.stderr, flush=True)  # noqa: E731
        if system == "biaffine":
            model, log = train_biaffine(train_sentences, dev, epochs=args.epochs,
                                        decoder="projective" if rest else "non-projective",
                                        seed=args.seed, neural=neural, progress=say)
        else:
            model, log = train(system, train_sentences, dev, oracle=rest[0],
                               bound=rest[1] if len(rest) > 1 else None, epochs=args.epochs,
                               seed=args.seed, model="bilstm", neural=neural, progress=say)
        total = time.perf_counter() - started
        to_best = sum(e["seconds"] for e in log["epochs"][: log["best_epoch"]])
        torch.set_num_threads(args.threads)
        parse_started = time.perf_counter()
        scores = score_parser(model, test)
        parse_seconds = time.perf_counter() - parse_started
        if args.save:
            model.save(args.save / f"{spec.replace(':', '_')}.arcwise")
        rows.append({
            "configuration": spec, "test_uas": round(scores.uas, 2),
            "test_las": round(scores.las, 2), "best_epoch": log["best_epoch"],
            "train_seconds_to_best": round(to_best, 1), "train_seconds": round(total, 1),
            "parse_sentences_per_second": round(len(test) / parse_seconds, 1),
            "threads": args.threads, "hyperparameters": log["hyperparameters"],
        })
        print(json.dumps(rows[-1]) if args.json else
              f"{spec}: test UAS {scores.uas:.2f} LAS {scores.las:.2f}, best epoch "
              f"{log['best_epoch']} after {to_best:.0f} s of training ({total:.0f} s in all), "
              f"parse {len(test) / parse_seconds:.0f} sentences/s on {args.threads} threads",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
