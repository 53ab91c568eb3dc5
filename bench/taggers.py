"""The taggers side by side: the perceptron and the BiLSTM (issue #17, item 2).

    .venv/bin/python bench/taggers.py --treebank DIR [--treebank DIR ...]
        [--tagger OPTIONS ...] [--seed 0] [--report]

Each tagger is trained on DIR's train split (its dev split, when there is one, selects the
epoch) and scored on its test split from gold tokens: UPOS, XPOS, UFeats and lemma accuracy
(% of words; lemmas from the predicted UPOS), training seconds, and tagging speed (words/s,
the model in memory, one process).  --tagger: one tagger's options, comma-separated, as
`arcwise train --tagger` takes them one by one (``model=bilstm,threads=1``); default: the
perceptron (``model=perceptron``) and the BiLSTM (``model=bilstm,threads=1``).  --report
keeps each treebank's result in bench/results/taggers/ and rewrites the taggers section of
RESULTS.md from every kept one, with the git revision, machine and load it was measured at.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "taggers"
DEFAULT_TAGGERS = ("model=perceptron", "model=bilstm,threads=1")
COLUMNS = (("UPOS", "dev_upos"), ("XPOS", "dev_xpos"), ("UFeats", "dev_feats"),
           ("Lemmas", "dev_lemma"))


def measure(options: dict, train, dev, test, seed: int) -> dict:
    """One tagger trained and scored (see the module docstring)."""
    from arcwise.experiments.raw_text import without_tags
    from arcwise.models.kinds import train_tagger

    start = time.perf_counter()
    tagger = train_tagger(train, dev or None, seed=seed, **options)
    seconds = time.perf_counter() - start
    scores = tagger.accuracy(test)
    untagged = [without_tags(s) for s in test]
    tagger.tag(untagged[:20])  # warm
    start = time.perf_counter()
    tagger.tag(untagged)
    tagging = time.perf_counter() - start
    words = sum(s.n for s in test)
    return {"options": options, "train_seconds": seconds,
            "accuracy": {name: scores.get(key) for name, key in COLUMNS},
            "words_per_second": words / max(tagging, 1e-9)}


def name_of(options: dict) -> str:
    extra = {**{k: v for k, v in options.items() if k not in ("model", "neural")},
             **options.get("neural", {})}
    return options.get("model", "perceptron") + (
        " (" + ", ".join(f"{k}={v}" for k, v in extra.items()) + ")" if extra else "")


def table(result: dict) -> str:
    lines = ["| tagger | " + " | ".join(c for c, _ in COLUMNS) + " | training s | words/s |",
             "|---|" + "---:|" * (len(COLUMNS) + 2)]
    for name, row in result["taggers"].items():
        cells = " | ".join("" if row["accuracy"][c] is None else f"{row['accuracy'][c]:.2f}"
                           for c, _ in COLUMNS)
        lines.append(f"| {name} | {cells} | {row['train_seconds']:,.0f} | "
                     f"{row['words_per_second']:,.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, action="append", required=True)
    ap.add_argument("--tagger", action="append", metavar="OPTIONS",
                    help="one tagger's options, comma-separated (see above)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args(argv)
    from arcwise.cli.train import parse_tagger
    from arcwise.core.errors import ArcwiseError
    from arcwise.io import read_treebank

    sys.path.insert(0, str(BENCH))
    from pipeline import split, stamp

    try:
        taggers = [parse_tagger(spec.split(",")) for spec in args.tagger or DEFAULT_TAGGERS]
    except ArcwiseError as error:
        sys.exit(f"bench/taggers.py: {error}")
    command = ["bench/taggers.py", *(argv if argv is not None else sys.argv[1:])]
    results = {}
    for treebank in args.treebank:
        train, dev, test = (split(treebank, s) for s in ("train", "dev", "test"))
        if train is None or test is None:
            sys.exit(f"{treebank}: needs train.conllu(.gz) and test.conllu(.gz)")
        train, test = list(read_treebank(train)), list(read_treebank(test))
        dev = list(read_treebank(dev)) if dev is not None else []
        result = {"treebank": treebank.name, "taggers": {}}
        for options in taggers:
            print(f"{treebank.name}: {name_of(options)}", file=sys.stderr, flush=True)
            result["taggers"][name_of(options)] = measure(options, train, dev, test, args.seed)
        print(f"### {treebank.name}\n\n{table(result)}\n")
        results[treebank.name] = result
        if args.report:
            store({**result, **stamp(command)})
    return results


def store(result: dict) -> None:
    """Write one treebank's kept result and the taggers section from every kept one."""
    import report

    kept_results = report.keep(result, RESULTS, result["treebank"])
    lines = ["## Taggers: the perceptron and the BiLSTM", "",
             "Issue #17: each tagger trained on the treebank's train split (dev selects its "
             "epoch) and scored on its test split from gold tokens (% of words; lemmas from "
             "the predicted UPOS); tagging speed with the model in memory, one process."]
    for kept in kept_results:
        lines += ["", f"### {kept['treebank']}", "", table(kept), "",
                  f"- `{kept['command']}` — {kept['provenance']} Load average at the end "
                  f"(1, 5, 15 min): {', '.join(map(str, kept['load_average']))}."]
    report.write_section("taggers", "\n".join(lines))


if __name__ == "__main__":
    main()
