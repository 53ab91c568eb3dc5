"""Stacking on the shared treebanks (2011 paper, §5, Table 6): MST and a transition parser, each alone and guided by the other.

    .venv/bin/python bench/stacking.py [TREEBANK_GLOB] [--treebanks Czech-CLTT,Swedish-LinES]
        [--transition-system arc-eager] [--mst-order 2] [--folds 2]
        [--model perceptron|neural] [--neural KEY=VALUE ...]
        [--max-train-sentences N] [--workers 2] [--samples 10000] [--report]

Per treebank (one process each; finished treebanks are kept in
bench/results/stacking/*.json, so a rerun resumes): the base MST parser
(order 2, non-projective, 10 epochs, as `bench/mst_train.py`) and the base
transition parser (dynamic oracle, 15 epochs, dev selection, as
`bench/accuracy.py`); then MST guided by the transition parser and the
transition parser guided by MST (`arcwise.combination.stacking.train_guided`: the guide
retrained on the other folds annotates each fold of train, the guide itself
annotates dev and test).  Test LAS (gold tags, punctuation included) of the
four, the differences with a paired bootstrap test (`arcwise.eval.significance`,
* = p < 0.05, ** = p < 0.01), and the two oracle combinations of the base
parsers (best tree per sentence, best tree from their arcs), as Table 6.

--model neural reruns it with neural models (issue #16): the biaffine graph-based
parser for MST and a BiLSTM scorer for the transition parser, both with the
`--neural` options (as `arcwise train --neural`; threads=1 by default, a process
per treebank); its results are kept apart and written to the stacking-neural
section.
"""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numba_cache
import report

RESULTS = report.BENCH / "results" / "stacking"
# relative to the repository root (bench scripts run from there): the shared UD treebanks
DEFAULT_GLOB = "../shared/data/ud/*/train.conllu.gz"
PAPER = """McDonald & Nivre 2011, Table 6 (CoNLL-X, LAS): averages MST 80.83, MST guided by Malt
82.53 (+1.70), Malt 80.75, Malt guided by MST 82.01 (+1.27); oracle combinations of the base
parsers 84.5 (best graph) and 86.9 (best arcs)."""


def run_treebank(name: str, train_path: str, args: dict) -> dict:
    """Train the four parsers of one treebank and score them on its test split."""
    from arcwise.combination.stacking import parsed, train_guided
    from arcwise.combination.voting import combine
    from arcwise.eval.metrics import evaluate
    from arcwise.eval.significance import compare
    from arcwise.io import read_treebank
    from arcwise.io.conllu import with_tree
    from arcwise.models import kinds
    from arcwise.transition.train import train

    folder = Path(train_path).parent
    train_sentences = list(read_treebank(train_path))[: args["max_train_sentences"]]
    dev = list(read_treebank(folder / "dev.conllu.gz"))
    test = list(read_treebank(folder / "test.conllu.gz"))
    system = args["transition_system"]
    mst_options = dict(order=args["mst_order"], decoder="non-projective",
                       epochs=args["mst_epochs"], seed=1)
    transition_options = dict(oracle="dynamic", epochs=args["epochs"], seed=1)
    if args["model"] == "neural":
        mst_options = dict(model="biaffine", decoder="non-projective",
                           epochs=args["mst_epochs"], seed=1, neural=args["neural"]["biaffine"])
        transition_options.update(model="bilstm", neural=args["neural"]["bilstm"])
    seconds = {}

    def timed(key, function, *a, **k):
        started = time.perf_counter()
        out = function(*a, **k)
        seconds[key] = round(time.perf_counter() - started, 1)
        return out

    mst, _ = timed("mst", kinds.train_system, "mst", train_sentences, dev, **mst_options)
    transition, _ = timed("transition", train, system, train_sentences, dev, **transition_options)
    mst_guided, _ = timed("mst_guided", train_guided, "mst", train_sentences, dev, transition,
                          folds=args["folds"], **mst_options)
    transition_guided, _ = timed("transition_guided", train_guided, system, train_sentences, dev,
                                 mst, folds=args["folds"], **transition_options)
    outputs = {key: parsed(parser, test) for key, parser in [
        ("mst", mst), ("mst_guided", mst_guided), ("transition", transition),
        ("transition_guided", transition_guided)]}
    las = {key: round(evaluate(test, output).las, 2) for key, output in outputs.items()}
    pair = [outputs["mst"], outputs["transition"]]
    for method in ("oracle-graph", "oracle-arc"):
        trees = combine(pair, method, gold=test)
        las[method] = round(evaluate(test, [with_tree(s, *t) for s, t in zip(test, trees)]).las, 2)
    p_values = {base: compare(test, outputs[base + "_guided"], outputs[base], metric="las",
                              samples=args["samples"], seed=1).p_value
                for base in ("mst", "transition")}
    return {"treebank": name, "transition_system": system, "folds": args["folds"],
            "model": args["model"], "neural": args["neural"],
            "mst_order": args["mst_order"], "epochs": args["epochs"],
            "mst_epochs": args["mst_epochs"], "max_train_sentences": args["max_train_sentences"],
            "train_sentences": len(train_sentences), "las": las, "p_values": p_values,
            "seconds": seconds, "revision": report.git_revision(),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def neural_options(pairs: list[str]) -> dict[str, dict]:
    """--neural KEY=VALUE as each neural model's options (threads=1 unless given)."""
    from arcwise.cli.train import parse_neural
    from arcwise.core.errors import ArcwiseError

    try:
        return {model: {"threads": 1, **parse_neural(pairs, model)}
                for model in ("bilstm", "biaffine")}
    except ArcwiseError as error:
        sys.exit(f"bench/stacking.py: {error}")


def key(name: str, args: dict) -> str:
    cap = args["max_train_sentences"] or "all"
    neural = "" if args["model"] == "perceptron" else "__neural"
    return (f"{name}__{args['transition_system']}__o{args['mst_order']}__f{args['folds']}"
            f"__e{args['epochs']}-{args['mst_epochs']}__m{cap}{neural}")


def mark(p: float) -> str:
    return "**" if p < 0.01 else "*" if p < 0.05 else ""


def seconds(result: dict) -> str:
    """Training seconds of the four parsers (a guided one includes its jackknifed guides)."""
    s = result["seconds"]
    return ", ".join(f"{s[k]:.0f}" for k in ("mst", "mst_guided", "transition",
                                              "transition_guided"))


def row(label: str, las: dict, marks: tuple[str, str] = ("", ""), seconds: str = "") -> str:
    """One line of the table: LAS of the four parsers (guided ones with their difference
    and significance marks), of the two oracles, and the training seconds."""
    def guided(base: str, mark_: str) -> str:
        return f"{las[base + '_guided']:.2f} ({las[base + '_guided'] - las[base]:+.2f}{mark_})"

    return (f"| {label} | {las['mst']:.2f} | {guided('mst', marks[0])} "
            f"| {las['transition']:.2f} | {guided('transition', marks[1])} "
            f"| {las['oracle-graph']:.2f} | {las['oracle-arc']:.2f} |"
            + (f" {seconds} |" if seconds else " |"))


def table(results: list[dict]) -> str:
    """Table 6 of the 2011 paper: base and guided LAS, differences with significance marks."""
    system = results[0]["transition_system"] if results else "transition"
    lines = [f"| treebank | MST | MST guided by {system} | {system} | {system} guided by MST "
             f"| oracle graph | oracle arcs | train s (MST, guided MST, {system}, guided) |",
             "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for r in results:
        p = r["p_values"]
        lines.append(row(r["treebank"], r["las"], (mark(p["mst"]), mark(p["transition"])),
                         seconds(r)))
    if results:
        mean = {k: statistics.mean(r["las"][k] for r in results) for k in results[0]["las"]}
        lines.append(row("**average**", mean))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("treebank_glob", nargs="?", default=DEFAULT_GLOB)
    ap.add_argument("--treebanks", help="comma-separated folder names to keep")
    ap.add_argument("--transition-system", default="arc-eager")
    ap.add_argument("--mst-order", type=int, default=2)
    ap.add_argument("--mst-epochs", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=15, help="transition parser epochs")
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--max-train-sentences", type=int, default=None)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--model", choices=("perceptron", "neural"), default="perceptron",
                    help="neural: the biaffine parser and a BiLSTM transition parser")
    ap.add_argument("--neural", action="append", default=[], metavar="KEY=VALUE",
                    help="options of both neural models (as arcwise train --neural)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--report", action="store_true",
                    help="write the stacking section of bench/RESULTS.md")
    ap.add_argument("--numba-cache-dir", type=Path,
                    default=report.BENCH.parent / "runs" / "numba-cache")
    args = ap.parse_args(argv)
    options = {k: getattr(args, k) for k in ("transition_system", "mst_order", "mst_epochs",
                                             "epochs", "folds", "max_train_sentences",
                                             "samples", "model")}
    options["neural"] = neural_options(args.neural) if args.model == "neural" else None
    keep = set(args.treebanks.split(",")) if args.treebanks else None
    treebanks = {Path(p).parent.name: p for p in sorted(glob.glob(args.treebank_glob))
                 if keep is None or Path(p).parent.name in keep}
    if not treebanks:
        print(f"{Path(sys.argv[0]).name}: no treebank matches {args.treebank_glob!r} "
              "(give the glob of the train files as the first argument)", file=sys.stderr)
        sys.exit(2)
    args.results.mkdir(parents=True, exist_ok=True)
    done = {}
    for name in treebanks:
        path = args.results / f"{key(name, options)}.json"
        if path.exists():
            done[name] = json.loads(path.read_text())
    # largest first, so the two workers finish close together
    todo = sorted((name for name in treebanks if name not in done),
                  key=lambda name: os.path.getsize(treebanks[name]), reverse=True)
    print(f"{len(todo)} treebanks to run, {len(done)} cached", file=sys.stderr)
    if todo:
        from arcwise.io.atomic import atomic_write

        numba_cache.use_for_children(args.numba_cache_dir)
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"),
                                 max_tasks_per_child=1) as pool:
            futures = {pool.submit(run_treebank, name, treebanks[name], options): name
                       for name in todo}
            for future in as_completed(futures):
                result = future.result()
                done[result["treebank"]] = result
                with atomic_write(args.results / f"{key(result['treebank'], options)}.json") as f:
                    f.write(json.dumps(result, indent=1) + "\n")
                print(f"{result['treebank']}: {result['las']}", file=sys.stderr, flush=True)
    results = [done[name] for name in treebanks]
    text = table(results)
    print(text)
    if args.report:
        command = " ".join(["bench/stacking.py", *(sys.argv[1:] if argv is None else argv)])
        cap = args.max_train_sentences
        neural = args.model == "neural"
        models = (f"MST = the biaffine parser (`--model biaffine`), {args.transition_system} "
                  f"with a BiLSTM scorer (`--model bilstm`), options "
                  f"{options['neural']['bilstm']}; " if neural else "")
        report.write_section("stacking-neural" if neural else "stacking", "\n".join([
            "## Stacking: guided parsers (issue #5, 2011 paper §5, Table 6)" if not neural
            else "## Stacking with neural parsers (issue #16, 2011 paper §5, Table 6)", "",
            f"Test LAS, gold tags, punctuation included. {models}MST: "
            + (f"order {args.mst_order}, " if not neural else "") +
            f"non-projective, {args.mst_epochs} epochs; {args.transition_system}: dynamic oracle, "
            f"{args.epochs} epochs, dev selection; guides jackknifed with {args.folds} folds; "
            f"train sentences: {f'first {cap}' if cap else 'all'}; seed 1. Differences are "
            "guided minus base, * p < 0.05, ** p < 0.01 (paired bootstrap over sentences, "
            f"{args.samples:,} samples). Oracles combine the two base parsers. Training "
            f"seconds: {args.workers} treebank(s) at a time on the two cores; a guided "
            "parser's include training its guide on each fold.", "",
            text, "", PAPER, "", f"- Command: `{command}`", f"- {report.provenance()}",
            "- Measured at git " + ", ".join(sorted({r.get("revision", "not recorded")
                                                    for r in results}))
            + " (the treebanks' results are kept; this section is rewritten from them)."]))
    return results


if __name__ == "__main__":
    main()
