"""Smoke benchmark of training and parsing on English-EWT (arcwise.transition.train, arcwise.transition.parser).

    .venv/bin/python bench/train_smoke.py [--epochs 1] [--system covington-nm]
                                          [--oracle dynamic] [--bound upper]
                                          [--transition-buckets N] [--label-buckets N]
                                          [--templates TABLE.txt] [--save MODEL]

Trains on the full train split (default bucket sizes and feature table unless
given) with dev selection and prints seconds per epoch, dev UAS/LAS per epoch,
then parse sentences/s and words/s on the test split (model in memory, JIT
warm: the test set is parsed once before timing), test UAS/LAS/LA, the size
of the saved model file and peak RSS of the process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from arcwise.features import compile_table
from arcwise.io import conllu
from arcwise.training.data import score_parser
from arcwise.transition.train import train

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--system", default="covington-nm")
    ap.add_argument("--oracle", default="dynamic", choices=("static", "dynamic"))
    ap.add_argument("--bound", default="upper")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--transition-buckets", type=int, default=None)
    ap.add_argument("--label-buckets", type=int, default=None)
    ap.add_argument("--templates", type=Path, default=None, help="a feature table file")
    ap.add_argument("--save", type=Path, default=None, help="keep the model file here")
    args = ap.parse_args()
    table = None
    if args.templates is not None:
        table = compile_table(args.templates.read_text(encoding="utf-8"), args.system,
                              str(args.templates))
    bound = args.bound if args.oracle == "dynamic" and args.bound else None

    started = time.perf_counter()
    train_sentences = list(conllu.read(DATA / "train.conllu.gz"))
    dev_sentences = list(conllu.read(DATA / "dev.conllu.gz"))
    test_sentences = list(conllu.read(DATA / "test.conllu.gz"))
    print(f"read EWT in {time.perf_counter() - started:.1f} s: {len(train_sentences)} train, "
          f"{len(dev_sentences)} dev, {len(test_sentences)} test sentences")

    def progress(entry: dict) -> None:
        print(f"epoch {entry['epoch']}: {entry['seconds']:.1f} s "
              f"({entry['sentences_per_second']:.0f} sentences/s), "
              f"update rate {entry['error_rate']:.3f}, dev UAS {entry['dev_uas']:.2f} "
              f"LAS {entry['dev_las']:.2f}", flush=True)

    started = time.perf_counter()
    parser, log = train(args.system, train_sentences, dev_sentences, oracle=args.oracle,
                        bound=bound, epochs=args.epochs, seed=args.seed, progress=progress,
                        table=table, transition_buckets=args.transition_buckets,
                        label_buckets=args.label_buckets)
    print(f"training: {time.perf_counter() - started:.1f} s in all (includes any JIT "
          f"compilation and dev parsing); unbuildable gold trees: {log['unbuildable']}, "
          f"skipped: {log['skipped']}")

    parser.parse(test_sentences)  # warm
    started = time.perf_counter()
    parser.parse(test_sentences)
    seconds = time.perf_counter() - started
    words = sum(s.n for s in test_sentences)
    scores = score_parser(parser, test_sentences)
    print(f"parse EWT test: {len(test_sentences) / seconds:.0f} sentences/s, "
          f"{words / seconds:.0f} words/s (one process, warm; Parser.parse incl. encoding)")
    print(f"test UAS {scores.uas:.2f} LAS {scores.las:.2f} LA {scores.la:.2f} "
          f"(best epoch {log['best_epoch']})")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.save or Path(tmp) / "model.arcwise"
        started = time.perf_counter()
        parser.save(path)
        print(f"model file {path.stat().st_size / 1e6:.1f} MB "
              f"(saved in {time.perf_counter() - started:.1f} s)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS {rss / 1024:.0f} MB ({sys.platform})")


if __name__ == "__main__":
    main()
