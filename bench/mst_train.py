"""Train the graph-based (MST) parser and print epoch times, test UAS/LAS and parse speed.

    python bench/mst_train.py --order 2 --decoder non-projective --epochs 10 [--report]

Defaults: the bundled English-EWT (data/en_ewt), gold tags, punctuation included.
--report keeps the result in bench/results/mst/ (one file per setting) and
rewrites the "mst" section of bench/RESULTS.md from all kept results.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import report

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
    ap.add_argument("--report", action="store_true",
                    help="keep the result and rewrite the mst section of bench/RESULTS.md")
    args = ap.parse_args(argv)

    train = list(read_treebank(args.train))
    if args.sentences:
        train = train[: args.sentences]
    dev = list(read_treebank(args.dev)) if args.dev else None
    test = list(read_treebank(args.test))
    if args.save:  # its folder made before training, so the model is not lost after it
        try:
            Path(args.save).resolve().parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"bench/mst_train.py: cannot make the folder of {args.save}: "
                  f"{error.strerror}", file=sys.stderr)
            sys.exit(2)
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
        "train_name": Path(args.train).parent.name, "update": args.update,
        "order": args.order, "decoder": args.decoder, "epochs": args.epochs,
        "train_sentences": len(train), "train_seconds": round(train_seconds, 1),
        "labeler_seconds": round(log["labeler_seconds"], 1),
        "test_uas": round(scores.uas, 2), "test_las": round(scores.las, 2),
        "parse_sentences_per_second": round(len(test) / parse_seconds),
        "parse_words_per_second": round(words / parse_seconds),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    with tempfile.TemporaryDirectory() as scratch:
        model = args.save or os.path.join(scratch, "mst.model")
        parser.save(model)
        result["model_mb"] = round(os.path.getsize(model) / 2**20, 1)
    print(json.dumps(result))
    if args.report:
        result.update(command=" ".join(["bench/mst_train.py", *(sys.argv[1:] if argv is None
                                                                  else argv)]),
                      provenance=report.provenance())
        keep(result, args)
    return result


RESULTS = report.BENCH / "results" / "mst"
REFERENCE = ("The reference Java MSTParser (order 2, non-projective) needs about 4 hours to "
             "train on English-EWT on this machine class (issue #5).")


def keep(result: dict, args: argparse.Namespace) -> None:
    """Store this setting's result and rewrite the mst section from every stored one."""
    from arcwise.io.atomic import atomic_write

    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"{Path(args.train).parent.name}_o{args.order}_{args.decoder}_e{args.epochs}_{args.update}"
    with atomic_write(RESULTS / f"{name}.json") as f:
        f.write(json.dumps(result, indent=1) + "\n")
    rows = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
    lines = ["## Graph-based (MST) parser: accuracy, training time, parse speed",
             "", "Issue #5 (2011 paper, §3.2): gold tags, punctuation included, test split; "
             "training includes the labeler (log-linear, L-BFGS); parse speed is the compiled "
             "decoder plus labeler in one process, model loaded.", "",
             "| train | order | decoder | update | epochs | test UAS | test LAS | train s "
             "(labeler s) | parse sent/s | words/s | model MB | peak RSS MB |",
             "|---|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append(
            f"| {r.get('train_name', '?')} | {r['order']} | {r['decoder']} | {r.get('update', '?')} "
            f"| {r['epochs']} | {r['test_uas']:.2f} | {r['test_las']:.2f} "
            f"| {r['train_seconds']:.0f} ({r['labeler_seconds']:.0f}) "
            f"| {r['parse_sentences_per_second']:,} | {r['parse_words_per_second']:,} "
            f"| {r.get('model_mb', '–')} | {r['peak_rss_mb']:,} |")
    lines += ["", REFERENCE, "", "Commands and provenance:", ""]
    lines += [f"- `{r['command']}` — {r['provenance']}" for r in rows]
    report.write_section("mst", "\n".join(lines))


if __name__ == "__main__":
    main()
