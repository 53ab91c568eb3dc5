"""The tagger's accuracy and the parser's LAS with predicted tags, on one treebank's dev split
(issue #17: the gap between gold and predicted tags).

    .venv/bin/python bench/predicted_tags.py --treebank DIR [--tag-folds 10] [--epochs 15]
        [--tagger KEY=VALUE ...] [--tag-workers 1] [--no-gold-tag-parser]
        [--corrected F[,F...]] [--json]

Everything is trained on DIR's train split with fixed epochs and scored on its dev split,
which selects nothing (the epoch kept is the last): the tagger (UPOS, XPOS, UFeats
accuracy on dev), an arc-eager parser (dynamic oracle, as `arcwise train`) trained on
jackknifed predicted tags (`arcwise.pipeline.training.train_pipeline`, `--tag-folds` folds)
and run on dev tagged by that tagger (`--tagger`: its options, as `arcwise train --tagger`,
e.g. model=bilstm), and, unless --no-gold-tag-parser, the same parser trained and run on
gold tags.
Reported: the tag accuracies (%), LAS with predicted and with gold tags, their gap, and
where the gap comes from: the predicted-tag parser's LAS on dev with gold UPOS only, with
gold XPOS and FEATS only, and with all tags gold; and the gold-tag parser's LAS on
predicted tags (what jackknifing buys).  --corrected F[,F...]: for each fraction F, a parser
trained on the jackknifed tags with that fraction of their errors mended (each wrong tag made
gold with probability F, `with_errors_corrected`) and run on dev's tags mended alike: how
good a tagger must be for a given gap, if its remaining errors fell at random.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from arcwise.eval.metrics import evaluate
from arcwise.experiments.raw_text import parser_trainer, without_tags
from arcwise.io import read_treebank
from arcwise.pipeline.predicted_tags import tag_accuracy, with_errors_corrected, with_gold_columns
from arcwise.pipeline.training import train_pipeline

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from pipeline import split  # noqa: E402


def las(parser, sentences, gold) -> float:
    from arcwise.io.conllu import with_tree

    parsed = [with_tree(s, *tree) for s, tree in zip(sentences, parser.parse(sentences))]
    return evaluate(gold, parsed).las


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, required=True)
    ap.add_argument("--tag-folds", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=15, help="the parser's")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tagger", action="append", default=[], metavar="KEY=VALUE",
                    help="the tagger's options (as arcwise train --tagger)")
    ap.add_argument("--tag-workers", type=int, default=1,
                    help="processes that train the jackknifing folds' taggers")
    ap.add_argument("--no-gold-tag-parser", action="store_true")
    ap.add_argument("--corrected", default="", metavar="F[,F...]",
                    help="fractions of the tagging errors to mend (see above)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from arcwise.cli.train import parse_tagger
    from arcwise.core.errors import ArcwiseError

    try:
        tagger_options = parse_tagger(args.tagger)
    except ArcwiseError as error:
        sys.exit(f"bench/predicted_tags.py: {error}")
    if split(args.treebank, "train") is None or split(args.treebank, "dev") is None:
        sys.exit(f"{args.treebank}: needs train.conllu(.gz) and dev.conllu(.gz)")
    sentences = list(read_treebank(split(args.treebank, "train")))
    dev = list(read_treebank(split(args.treebank, "dev")))

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        fractions = [float(f) for f in args.corrected.split(",") if f.strip()]
    except ValueError:
        sys.exit(f"bench/predicted_tags.py: --corrected {args.corrected}: fractions, e.g. 0.5")
    train_with_dev = parser_trainer("arc-eager", args.epochs, args.seed, say)
    jackknifed = []  # the parser's training sentences, with their jackknifed tags

    def train_parser(train_sentences, _):  # no dev: the last epoch is kept
        jackknifed[:] = train_sentences
        return train_with_dev(train_sentences, None)

    start = time.perf_counter()
    nlp, log = train_pipeline(sentences, None, ("tagger", "parser"), train_parser=train_parser,
                              tag_folds=args.tag_folds, tag_workers=args.tag_workers,
                              tagger_options=tagger_options, seed=args.seed, progress=say)
    tagged, _ = nlp.tagger.tagged([without_tags(s) for s in dev])  # as the parser reads them
    result = {"treebank": args.treebank.name, "tag_folds": args.tag_folds,
              "epochs": args.epochs, "seed": args.seed, "tagger_options": tagger_options,
              "dev_tag_accuracy": tag_accuracy(tagged, dev),
              "train_jackknifed_tag_accuracy": log["parser_tags"]["train_accuracy"],
              "las_predicted_tags": las(nlp.parser, tagged, dev),
              "seconds": time.perf_counter() - start}
    for name, columns in (("gold_upos", ("upos",)), ("gold_xpos_feats", ("xpos", "feats")),
                          ("gold_tags", ("upos", "xpos", "feats"))):
        result[f"las_predicted_tag_parser_{name}"] = las(
            nlp.parser, with_gold_columns(tagged, dev, columns), dev)
    for fraction in fractions:
        mended = with_errors_corrected(tagged, dev, fraction, args.seed)
        parser, _ = train_with_dev(
            with_errors_corrected(jackknifed, sentences, fraction, args.seed), None)
        result.setdefault("corrected", {})[str(fraction)] = {
            "dev_tag_accuracy": tag_accuracy(mended, dev), "las": las(parser, mended, dev)}
    if not args.no_gold_tag_parser:
        parser, _ = train_with_dev(sentences, None)
        result["las_gold_tags"] = las(parser, dev, dev)
        result["gap"] = result["las_gold_tags"] - result["las_predicted_tags"]
        result["las_gold_tag_parser_predicted_tags"] = las(parser, tagged, dev)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        a = result["dev_tag_accuracy"]
        print(f"{result['treebank']} dev: UPOS {a['upos']:.2f} XPOS {a['xpos']:.2f} "
              f"UFeats {a['feats']:.2f}, LAS predicted tags {result['las_predicted_tags']:.2f}"
              + (f", gold tags {result['las_gold_tags']:.2f}, gap {result['gap']:.2f}"
                 if "gap" in result else ""))
        print("the predicted-tag parser with gold UPOS {:.2f}, gold XPOS and FEATS {:.2f}, "
              "all gold {:.2f}".format(*(result[f"las_predicted_tag_parser_{name}"] for name in
                                         ("gold_upos", "gold_xpos_feats", "gold_tags")))
              + (f"; the gold-tag parser on predicted tags "
                 f"{result['las_gold_tag_parser_predicted_tags']:.2f}" if "gap" in result else ""))
        for fraction, row in result.get("corrected", {}).items():
            a = row["dev_tag_accuracy"]
            print(f"{float(fraction):.0%} of the errors mended: UPOS {a['upos']:.2f} XPOS "
                  f"{a['xpos']:.2f} UFeats {a['feats']:.2f}, LAS {row['las']:.2f}"
                  + (f", gap {result['las_gold_tags'] - row['las']:.2f}"
                     if "gap" in result else ""))
    return result


if __name__ == "__main__":
    main()
