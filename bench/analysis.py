"""Error analysis of the papers' parsers on the shared treebanks (issue #13, item 6).

    .venv/bin/python bench/analysis.py [TREEBANK_GLOB] [--treebanks A,B] [--workers 2]
        [--models runs/analysis] [--train-only] [--samples 10000] [--report]

Trains, per treebank with a train split (one process per parser; models are
kept in `--models`/TREEBANK/PARSER.arcwise, so a rerun trains only what is
missing), the parsers the analyses compare:

- 2011 paper (§4, §6.2): MST (order 2, non-projective, 10 epochs), arc-eager
  and covington-nm (dynamic oracle, 15 epochs, dev selection), MST guided by
  arc-eager and arc-eager guided by MST (guides jackknifed with 2 folds);
- 2017 paper (§6.3): covington (dynamic) beside covington-nm (upper bound);
- 2012 paper (Tables 3 and 8): arc-eager with the static oracle, alone, with
  LBA, RBA, LBA+RBA, LNBA, RNBA, and pseudo-projective (head+path).

Then parses each test split with `--trace` and runs `arcwise analyze` over
all treebanks at once (the 2011 paper aggregates its 13 languages), writing
the `analysis` section of bench/RESULTS.md with the figures and a verdict on
each of the papers' claims.
"""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numba_cache
import report

# relative to the repository root (bench scripts run from there): the shared UD treebanks
DEFAULT_GLOB = "../shared/data/ud/*/train.conllu.gz"
NINE = ("Basque-BDT,Chinese-GSD,Czech-CLTT,Dutch-LassySmall,English-EWT,Italian-ParTUT,"
        "Japanese-GSD,Portuguese-Bosque,Swedish-LinES")

MST = dict(order=2, decoder="non-projective", epochs=10, seed=1)
DYNAMIC = dict(oracle="dynamic", epochs=15, seed=1)
STATIC = dict(oracle="static", epochs=15, seed=1)
# The buffer-transition analyses (2012 Tables 3 and 8) compare transitions under one feature
# model: arc-eager's own templates, without the buffer-word features of experiments/buffer-2012.
BUFFER = dict(STATIC, variant_features=False)

# parser name -> (system, training options, guide parser name or None)
PARSERS = {
    "mst": ("mst", MST, None),
    "arc-eager": ("arc-eager", DYNAMIC, None),
    "covington-nm": ("covington-nm", dict(DYNAMIC, bound="upper"), None),
    "covington": ("covington", DYNAMIC, None),
    "mst-guided": ("mst", MST, "arc-eager"),
    "arc-eager-guided": ("arc-eager", DYNAMIC, "mst"),
    "ae-static": ("arc-eager", STATIC, None),
    "ae+lba": ("arc-eager+lba", BUFFER, None),
    "ae+rba": ("arc-eager+rba", BUFFER, None),
    "ae+lba+rba": ("arc-eager+lba+rba", BUFFER, None),
    "ae+lnba": ("arc-eager+lnba", BUFFER, None),
    "ae+rnba": ("arc-eager+rnba", BUFFER, None),
    "ae-pproj": ("arc-eager", dict(STATIC, pseudo_projective="head+path"), None),
}


def train_one(treebank: str, train_path: str, parser_name: str, models: str) -> dict:
    """Train one parser of one treebank and save it; returns its timing record."""
    import arcwise
    from arcwise.combination.stacking import train_guided
    from arcwise.graph.mst_parser import train_graph_parser
    from arcwise.io import read_treebank
    from arcwise.transition.train import train

    folder = Path(train_path).parent
    train_sentences = list(read_treebank(train_path))
    dev = list(read_treebank(folder / "dev.conllu.gz"))
    system, options, guide_name = PARSERS[parser_name]
    started = time.perf_counter()
    if guide_name is not None:
        guide = arcwise.load(Path(models) / treebank / f"{guide_name}.arcwise").parser
        model, _ = train_guided(system, train_sentences, dev, guide, folds=2, **options)
    elif system == "mst":
        model, _ = train_graph_parser(train_sentences, dev, **options)
    else:
        model, _ = train(system, train_sentences, dev, **options)
    seconds = round(time.perf_counter() - started, 1)
    model.save(Path(models) / treebank / f"{parser_name}.arcwise")
    return {"treebank": treebank, "parser": parser_name, "seconds": seconds,
            "revision": package_revision(),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def package_revision() -> str:
    """The git revision of the arcwise source the model was trained with (changes elsewhere
    in the tree, such as results another benchmark is writing, do not make it dirty)."""
    from arcwise.experiments.cells import source_revision

    revision = source_revision()
    if revision.commit is None:
        return "unknown"
    return revision.commit[:7] + (" + uncommitted changes" if revision.dirty else "")


def train_missing(treebanks: dict[str, str], models: Path, workers: int) -> None:
    """Train every parser not yet saved, smallest treebank first (so whole treebanks are
    ready early); a guided parser is started once its guide is saved."""
    order = sorted(treebanks, key=lambda t: os.path.getsize(treebanks[t]))
    todo = [(tb, p) for tb in order for p in PARSERS
            if not (models / tb / f"{p}.arcwise").exists()]
    print(f"{len(todo)} parsers to train", file=sys.stderr, flush=True)
    timings = models / "timings.jsonl"
    for tb, _ in todo:
        (models / tb).mkdir(parents=True, exist_ok=True)

    def ready(tb: str, parser: str) -> bool:
        guide = PARSERS[parser][2]
        return guide is None or (models / tb / f"{guide}.arcwise").exists()

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             max_tasks_per_child=1) as pool:
        running = {}
        while todo or running:
            for cell in [c for c in todo if ready(*c)][: workers + 1 - len(running)]:
                todo.remove(cell)
                tb, parser = cell
                running[pool.submit(train_one, tb, treebanks[tb], parser, str(models))] = cell
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                del running[future]
                record = future.result()
                with open(timings, "a") as f:
                    f.write(json.dumps(record) + "\n")
                print(f"{record['treebank']} {record['parser']}: {record['seconds']} s",
                      file=sys.stderr, flush=True)


FIGURES_DIR = report.BENCH / "results" / "analysis"  # the figures RESULTS.md shows
FIGURES = {"graph-vs-transition": ("sentence_length", "arc_length", "root_distance", "upos_class"),
           "nonmonotonic": ("long_arcs", "projectivity")}

# The analyses: name -> (title, parsers compared)
ANALYSES = {
    "graph-vs-transition": ("2011 paper §4 and §6.2: MST, arc-eager, covington-nm and the guided "
                            "parsers", ["mst", "arc-eager", "covington-nm", "mst-guided",
                                        "arc-eager-guided"]),
    "nonmonotonic": ("2017 paper §6.3: covington (dynamic) and covington-nm (upper bound)",
                     ["covington", "covington-nm"]),
    "buffer-projective": ("2012 paper Table 3: arc-eager (static) with projective buffer "
                          "transitions", ["ae-static", "ae+lba", "ae+rba", "ae+lba+rba"]),
    "buffer-nonprojective": ("2012 paper Table 8: arc-eager (static) with non-projective buffer "
                             "transitions, and pseudo-projective",
                             ["ae-static", "ae+lnba", "ae+rnba", "ae-pproj"]),
}


def parse_tests(treebanks: dict[str, str], models: Path, outputs: Path) -> None:
    """Parse every test split with every saved parser (traced when it is transition-based)."""
    import arcwise

    for tb in treebanks:
        test = Path(treebanks[tb]).parent / "test.conllu.gz"
        (outputs / tb).mkdir(parents=True, exist_ok=True)
        for parser in PARSERS:
            out = outputs / tb / f"{parser}.conllu"
            if out.exists():
                continue
            model = arcwise.load(models / tb / f"{parser}.arcwise").parser
            traced = PARSERS[parser][0] != "mst"
            model.parse_file(test, out, **({"trace": True} if traced else {}))


def value(analysis, factor: str, bin_name: str, system: str, metric: str) -> float:
    return analysis.factor(factor).to_dict()[bin_name][system][metric]


def compare_bins(analysis, factor: str, bins, a: str, b: str, metric: str) -> tuple[str, int]:
    """'bin: a-b (p)' for each bin, and in how many bins a is ahead of b."""
    data = analysis.factor(factor).to_dict()
    parts, ahead = [], 0
    for bin_name in bins:
        if bin_name not in data:
            continue
        x, y = data[bin_name][a], data[bin_name][b]
        p = x["p_values"].get(b, {}).get(metric)
        mark = "" if p is None else "*" if p < 0.05 else ""
        ahead += x[metric] > y[metric]
        parts.append(f"{bin_name}: {x[metric] - y[metric]:+.2f}{mark}")
    return "; ".join(parts), ahead


def verdicts_2011(analysis) -> list[str]:
    """The 2011 paper's claims about MST vs the transition-based parsers, checked here."""
    from arcwise.analysis.factors import METRIC_COUNTS

    short, near, far = ["1", "2"], ["1", "2"], ["4", "5", "6", ">6"]
    lines = []
    for tb in ("arc-eager", "covington-nm"):
        s, k = compare_bins(analysis, "arc_length", short, tb, "mst", "precision")
        l_, m = compare_bins(analysis, "long_arcs", [">7"], "mst", tb, "precision")
        lines.append(f"- **{tb} more precise than MST on short arcs, MST on long arcs** "
                     f"(Figure 5): {'holds' if k == len(short) and m == 1 else 'does not hold'}."
                     f" {tb} − MST on lengths 1 and 2: {s}. MST − {tb} on all arcs longer "
                     f"than 7: {l_.split(': ')[1]}.")
        n_, k = compare_bins(analysis, "root_distance", near, "mst", tb, "precision")
        f_, m = compare_bins(analysis, "root_distance", far, tb, "mst", "precision")
        lines.append(f"- **MST more precise near the root, {tb} far from it** (Figure 6): "
                     f"{'holds' if k == len(near) and m > len(far) / 2 else 'does not hold'}. "
                     f"MST − {tb} at distance 1–2: {n_}. {tb} − MST at distance ≥ 4: {f_}.")
    for guided, base in (("mst-guided", "mst"), ("arc-eager-guided", "arc-eager")):
        better = total = worse_significant = 0
        for result in analysis.factors:
            if result.factor.name in ("upos", "deprel"):
                continue
            for bin_name, row in result.to_dict().items():
                for metric in result.metrics:
                    if not row[base][METRIC_COUNTS[metric][1]]:
                        continue  # no arc or word of this bin
                    total += 1
                    better += row[guided][metric] >= row[base][metric]
                    p = row[guided]["p_values"].get(base, {}).get(metric)
                    worse_significant += (row[guided][metric] < row[base][metric]
                                          and p is not None and p < 0.05)
        verdict = ("holds" if better == total else "holds up to noise" if not worse_significant
                   else "does not hold")
        lines.append(f"- **{guided} at least as good as {base} in every bin** (Figures 8–10): "
                     f"{verdict}: in {better} of {total} "
                     f"bins (factors other than UPOS and DEPREL, each metric); significantly "
                     f"worse in {worse_significant}.")
    for tb in ("arc-eager", "covington-nm"):
        classes = analysis.factor("upos_class").to_dict()
        transition_wins = {c for c, row in classes.items()
                           if row[tb]["accuracy"] > row["mst"]["accuracy"]}
        holds = transition_wins == {"noun", "pronoun"}
        diffs = ", ".join(f"{c} {row[tb]['accuracy'] - row['mst']['accuracy']:+.2f}"
                          for c, row in classes.items())
        lines.append(f"- **{tb} better than MST on nouns and pronouns only** (Table 4a): "
                     f"{'holds' if holds else 'does not hold'}; {tb} − MST accuracy: {diffs}.")
        groups = analysis.factor("deprel_group").to_dict()
        root_mst = groups["root"]["mst"]["precision"] > groups["root"][tb]["precision"]
        nominal = all(groups[g][tb]["precision"] > groups[g]["mst"]["precision"]
                      for g in ("subject", "object"))
        diffs = ", ".join(f"{g} {row[tb]['precision'] - row['mst']['precision']:+.2f}"
                          for g, row in groups.items())
        lines.append(f"- **MST more precise on root, {tb} on subjects and objects** (Table 4b): "
                     f"{'holds' if root_mst and nominal else 'does not hold'}; {tb} − MST "
                     f"precision: {diffs}.")
    return lines


def verdicts_2017(analysis) -> list[str]:
    nm = analysis.nonmonotonicity.get("covington-nm", {})
    lines = []
    if nm:
        lines.append(f"- covington-nm: {nm['nonmonotonic_share']:.2f} % of its "
                     f"{nm['arc_transitions']:,} arc transitions were non-monotonic; "
                     f"{nm['created_gold_share']:.2f} % of those created a gold arc and "
                     f"{nm['harmful_share']:.2f} % were harmful (replaced a gold arc by a "
                     "wrong one).")
    long_ = analysis.factor("long_arcs").to_dict()[">7"]
    proj = analysis.factor("projectivity").to_dict()
    lines.append(f"- Precision on arcs longer than 7: covington "
                 f"{long_['covington']['precision']:.2f}, covington-nm "
                 f"{long_['covington-nm']['precision']:.2f}.")
    gains = {b: proj[b]["covington-nm"]["precision"] - proj[b]["covington"]["precision"]
             for b in proj}
    lines.append("- **Non-monotonicity helps more on projective arcs** (2017 §6.3): "
                 f"{'holds' if gains.get('projective', 0) > gains.get('non-projective', 0) else 'does not hold'}"
                 ": precision gain of covington-nm over covington "
                 + ", ".join(f"{b} {g:+.2f}" for b, g in gains.items()) + ".")
    return lines


def transitions_table(analysis) -> str:
    names = [n for n in analysis.records.names if n in analysis.transitions]
    actions = sorted({a for n in names for a in analysis.transitions[n]})
    lines = ["| parser | " + " | ".join(actions) + " |", "|---|" + "--:|" * len(actions)]
    for n in names:
        row = analysis.transitions[n]
        lines.append(f"| {n} | " + " | ".join(
            f"{row[a]['precision']:.2f} ({row[a]['arcs']:,})" if a in row else ""
            for a in actions) + " |")
    return "\n".join(lines)


def projectivity_table(analysis) -> str:
    proj = analysis.factor("projectivity").to_dict()
    lines = ["| parser | projective P | projective R | non-projective P | non-projective R |",
             "|---|--:|--:|--:|--:|"]
    for n in analysis.records.names:
        p, q = proj["projective"][n], proj["non-projective"][n]
        lines.append(f"| {n} | {p['precision']:.2f} | {p['recall']:.2f} | "
                     f"{q['precision']:.2f} | {q['recall']:.2f} |")
    return "\n".join(lines)


def run_analyses(treebanks: dict[str, str], outputs: Path, reports: Path, samples: int) -> str:
    """Every analysis over all treebanks at once; the RESULTS.md section's text."""
    from arcwise.analysis.analyze import analyze
    from arcwise.analysis.report import write_report

    gold = [Path(treebanks[tb]).parent / "test.conllu.gz" for tb in treebanks]
    text = []
    for name, (title, parsers) in ANALYSES.items():
        started = time.perf_counter()
        analysis = analyze(gold, [[outputs / tb / f"{p}.conllu" for tb in treebanks]
                                  for p in parsers], parsers, samples=samples, seed=1,
                           command=f"bench/analysis.py ({name})")
        write_report(analysis, reports / name)
        figures = FIGURES.get(name, ())
        for figure in figures:
            (FIGURES_DIR / f"{name}-{figure}.svg").write_bytes(
                (reports / name / f"{figure}.svg").read_bytes())
        seconds = time.perf_counter() - started
        text += [f"### {title}", "",
                 f"{analysis.meta['words']:,} words; analysed in {seconds:.0f} s; the whole "
                 f"report (every factor, table and p-value) is written to "
                 f"`{reports.name}/{name}/index.html` under `--models`.", "",
                 *(f"![{f}](results/analysis/{name}-{f}.svg)" for f in figures), ""]
        if name == "graph-vs-transition":
            text += verdicts_2011(analysis)
        elif name == "nonmonotonic":
            text += verdicts_2017(analysis)
        elif name == "buffer-projective":
            text += ["Labeled precision (arcs) of the final arcs each transition built "
                     "(2012 Table 3):", "", transitions_table(analysis)]
        else:
            text += ["Projective and non-projective arcs (2012 Table 8):", "",
                     projectivity_table(analysis)]
        text.append("")
    return "\n".join(text)


def training_revisions(models: Path, treebanks: dict[str, str]) -> str:
    """The git revisions the analysed models were trained at, from timings.jsonl."""
    try:
        records = [json.loads(line) for line in (models / "timings.jsonl").read_text().splitlines()]
    except OSError:
        return "unknown"
    return ", ".join(sorted({r["revision"] for r in records if r["treebank"] in treebanks}))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("treebank_glob", nargs="?", default=DEFAULT_GLOB)
    ap.add_argument("--treebanks", default=NINE, help="comma-separated folder names to keep")
    ap.add_argument("--models", type=Path, default=report.BENCH.parent / "runs" / "analysis")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--train-only", action="store_true")
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--report", action="store_true",
                    help="write the analysis section of bench/RESULTS.md")
    ap.add_argument("--numba-cache-dir", type=Path,
                    default=report.BENCH.parent / "runs" / "numba-cache")
    args = ap.parse_args(argv)
    keep = set(args.treebanks.split(","))
    treebanks = {Path(p).parent.name: p for p in sorted(glob.glob(args.treebank_glob))
                 if Path(p).parent.name in keep}
    if not treebanks:
        print(f"{Path(sys.argv[0]).name}: no treebank matches {args.treebank_glob!r} "
              "(give the glob of the train files as the first argument)", file=sys.stderr)
        sys.exit(2)
    numba_cache.use_for_children(args.numba_cache_dir)
    provenance = report.provenance()  # before this run writes its figures
    train_missing(treebanks, args.models, args.workers)
    if args.train_only:
        return
    outputs = args.models / "parsed"
    parse_tests(treebanks, args.models, outputs)
    FIGURES_DIR.mkdir(parents=True, exist_ok=True)
    text = run_analyses(treebanks, outputs, args.models / "reports", args.samples)
    print(text)
    if args.report:
        command = " ".join(["bench/analysis.py", *(sys.argv[1:] if argv is None else argv)])
        report.write_section("analysis", "\n".join([
            "## Error analysis (issue #13; 2011 paper §4 and §6.2, 2012 Tables 3 and 8, 2017 §6.3)",
            "", f"Test sets of {', '.join(treebanks)}, aggregated word by word; gold tags, "
            "punctuation included, labeled. Parsers: MST order 2 non-projective (10 epochs); "
            "arc-eager, covington, covington-nm (upper): dynamic oracle, 15 epochs; guided "
            "parsers jackknifed with 2 folds; 2012 parsers: static oracle, 15 epochs; dev "
            "selection, seed 1. * = p < 0.05, stratified shuffling with the word as instance "
            f"({args.samples:,} shuffles per bin and pair).", "", text,
            f"- Command: `{command}`", f"- {provenance}",
            f"- Models trained at git {training_revisions(args.models, treebanks)} "
            "(`timings.jsonl` under `--models`)."]))


if __name__ == "__main__":
    main()
