"""Train the graph-based (MST) parser and print epoch times, test UAS/LAS and parse speed.

    python bench/mst_train.py --order 2 --decoder non-projective --epochs 10

Defaults: the bundled English-EWT (data/en_ewt), gold tags, punctuation included.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from arcwise.eval.metrics import evaluate
from arcwise.graph.mst_parser import train_graph_parser
from arcwise.io import read_treebank
from arcwise.io.conllu import with_tree


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="data/en_ewt/train.conllu.gz")
    ap.add_argument("--dev", default="data/en_ewt/dev.conllu.gz")
    ap.add_argument("--test", default="data/en_ewt/test.conllu.gz")
    ap.add_argument("--order", type=int, default=2)
    ap.add_argument("--decoder", default="non-projective")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--update", default="mira")
    ap.add_argument("--sentences", type=int, default=0, help="use only the first N training sentences")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save", help="write the model here")
    args = ap.parse_args(argv)

    train = list(read_treebank(args.train))
    if args.sentences:
        train = train[: args.sentences]
    dev = list(read_treebank(args.dev)) if args.dev else None
    test = list(read_treebank(args.test))
    started = time.perf_counter()
    parser, log = train_graph_parser(
        train, dev, order=args.order, decoder=args.decoder, epochs=args.epochs,
        update_rule=args.update, seed=args.seed,
        progress=lambda entry: print(json.dumps(entry), flush=True),
    )
    train_seconds = time.perf_counter() - started
    parser.parse(test[:5])  # compiled already; keeps the timing below about parsing only
    started = time.perf_counter()
    trees = parser.parse(test)
    parse_seconds = time.perf_counter() - started
    scores = evaluate(test, [with_tree(s, *t) for s, t in zip(test, trees)])
    words = sum(s.n for s in test)
    result = {
        "order": args.order, "decoder": args.decoder, "epochs": args.epochs,
        "train_sentences": len(train), "train_seconds": round(train_seconds, 1),
        "labeler_seconds": round(log[0]["labeler_seconds"], 1),
        "test_uas": round(scores.uas, 2), "test_las": round(scores.las, 2),
        "parse_sentences_per_second": round(len(test) / parse_seconds),
        "parse_words_per_second": round(words / parse_seconds),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    if args.save:
        parser.save(args.save)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
