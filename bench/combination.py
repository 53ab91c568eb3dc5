"""Parser combination (2011 paper, §4.4): voting and the two oracles over MST, arc-eager and covington-nm.

    .venv/bin/python bench/combination.py [--treebank data/en_ewt] [--models runs/models]
        [--samples 10000] [--report]

For each system, MODELS/<treebank>-<name>.model is used if it exists, else
the system is trained on the treebank's train split with the accuracy
bench's settings and saved there:

- mst: graph-based, order 2, non-projective decoding, 10 epochs (as
  `bench/mst_train.py --save MODELS/<treebank>-mst-o2.model`);
- arc-eager: dynamic oracle, 15 epochs, dev selection;
- covington-nm: dynamic oracle with the `upper` bound, 15 epochs, dev selection.

Each model parses dev and test (gold tokenization and tags, punctuation
included).  On test: every system alone; `vote` (Sagae & Lavie 2006: arc
weights = each system's dev UAS for the dependent's UPOS, then the maximum
spanning tree) and uniform `vote`; the oracle that picks the best whole tree
per sentence (`oracle-graph`) and the one that builds the best tree from the
arcs some system proposed (`oracle-arc`), both maximising LAS.  The vote is
compared with the best single system by a paired bootstrap over sentences
(`arcwise.eval.significance`).  --report writes the combination section of
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import report

ROOT = report.BENCH.parent
SYSTEMS = ("mst", "arc-eager", "covington-nm")
MODEL_NAMES = {"mst": "mst-o2", "arc-eager": "arc-eager-dynamic",
               "covington-nm": "covington-nm-upper"}
PAPER = ("2011 paper, §4.4 (13 CoNLL-X languages, MSTParser and MaltParser, LAS): the single "
         "systems about 81, the best-tree-per-sentence oracle 84.5, the best tree from the "
         "proposed arcs 86.9.")


def trained(system: str, treebank: Path, models: Path, log) -> object:
    """The system's model for the treebank, as loaded from MODELS (trained and saved there
    first if missing: a file's int8 weights are the trained ones rounded, so every run
    parses with the file)."""
    import arcwise
    from arcwise.graph.mst_parser import train_graph_parser
    from arcwise.io import read_treebank
    from arcwise.transition.train import train

    path = models / f"{treebank.name}-{MODEL_NAMES[system]}.model"
    if path.exists():
        log(f"{system}: {path}")
        return arcwise.load(path).parser
    train_sentences = list(read_treebank(treebank / "train.conllu.gz"))
    dev_sentences = list(read_treebank(treebank / "dev.conllu.gz"))
    started = time.perf_counter()
    log(f"{system}: training on {len(train_sentences):,} sentences ...")
    if system == "mst":
        parser, _ = train_graph_parser(train_sentences, order=2, decoder="non-projective",
                                       epochs=10, seed=1)
    elif system == "arc-eager":
        parser, _ = train("arc-eager", train_sentences, dev_sentences, oracle="dynamic",
                          epochs=15, seed=1)
    else:
        parser, _ = train("covington-nm", train_sentences, dev_sentences, oracle="dynamic",
                          bound="upper", epochs=15, seed=1)
    log(f"{system}: trained in {time.perf_counter() - started:.0f} s -> {path}")
    models.mkdir(parents=True, exist_ok=True)
    parser.save(path)
    return arcwise.load(path).parser


def parsed(parser, sentences):
    """The sentences with the parser's trees."""
    from arcwise.io.conllu import with_tree

    return [with_tree(s, *tree) for s, tree in zip(sentences, parser.parse(sentences))]


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, default=ROOT / "data" / "en_ewt",
                    help="folder with train/dev/test.conllu.gz")
    ap.add_argument("--models", type=Path, default=ROOT / "runs" / "models")
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args(argv)

    from arcwise.combination.voting import combine, estimate_upos_weights
    from arcwise.eval.metrics import evaluate
    from arcwise.eval.significance import compare
    from arcwise.io import read_treebank
    from arcwise.io.conllu import with_tree

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    dev = list(read_treebank(args.treebank / "dev.conllu.gz"))
    test = list(read_treebank(args.treebank / "test.conllu.gz"))
    parsers = {system: trained(system, args.treebank, args.models, log) for system in SYSTEMS}
    dev_outputs = [parsed(p, dev) for p in parsers.values()]
    test_outputs = [parsed(p, test) for p in parsers.values()]

    rows: dict[str, dict] = {}

    def score(name: str, output) -> None:
        s = evaluate(test, output)
        rows[name] = {"uas": round(s.uas, 2), "las": round(s.las, 2)}

    def combined(name: str, method: str, **options):
        output = [with_tree(s, *tree)
                  for s, tree in zip(test, combine(test_outputs, method, **options))]
        score(name, output)
        return output

    for system, output in zip(SYSTEMS, test_outputs):
        score(system, output)
    weights = estimate_upos_weights(dev, dev_outputs)
    voted = combined("vote (dev UAS per UPOS)", "vote", weights=weights)
    combined("vote (uniform)", "vote")
    combined("oracle-graph", "oracle-graph", gold=test)
    combined("oracle-arc", "oracle-arc", gold=test)
    best = max(SYSTEMS, key=lambda name: rows[name]["las"])
    significance = compare(test, voted, test_outputs[SYSTEMS.index(best)], metric="las",
                           samples=args.samples, seed=1)
    result = {"treebank": args.treebank.name, "rows": rows, "best_single": best,
              "vote_vs_best": significance.to_dict()}
    print(json.dumps(result, indent=1))
    if args.report:
        command = " ".join(["bench/combination.py", *(sys.argv[1:] if argv is None else argv)])
        lines = ["## Parser combination: voting and oracles (issue #5, 2011 paper §4.4)", "",
                 f"Test split of {args.treebank.name}, gold tags, punctuation included; the "
                 "three systems as described in `bench/combination.py`.", "",
                 "| system or combination | test UAS | test LAS |", "|---|--:|--:|"]
        lines += [f"| {name} | {r['uas']:.2f} | {r['las']:.2f} |" for name, r in rows.items()]
        c = significance
        lines += ["", f"Vote (dev UAS per UPOS) vs the best single system ({best}): "
                  f"{c.difference:+.2f} LAS, paired bootstrap p = {c.p_value:.4f} "
                  f"({c.samples:,} samples, {c.hypothesis}).", "", PAPER, "",
                  f"- Command: `{command}`", f"- {report.provenance()}"]
        report.write_section("combination", "\n".join(lines))
    return result


if __name__ == "__main__":
    main()
