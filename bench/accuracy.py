"""Accuracy of every system x oracle on treebanks with a train split; writes bench/RESULTS.md.

    .venv/bin/python bench/accuracy.py [TREEBANK_GLOB] [--epochs 15] [--seeds 1]
        [--treebanks Czech-CLTT,Swedish-LinES] [--configs 'covington:*,two-planar:dynamic']
        [--max-train-sentences N] [--workers 2 | --dask SCHEDULER_ADDRESS]
        [--results bench/results/accuracy] [--output bench/RESULTS.md] [--rerun] [--list]

TREEBANK_GLOB (default /work/shared/data/ud/*/train.conllu.gz) names train
files; dev.conllu.gz and test.conllu.gz must lie beside each, and the folder
name is the treebank's name.  Every (treebank, configuration, seed) cell is
trained in its own process (`arcwise.train.train`, dev LAS selects the
epoch) and scored on test with `arcwise.eval.metrics.evaluate`: gold
tokenization and tags from the files, punctuation included.  Each finished
cell is written as JSON under --results, so an interrupted run resumes; the
tables are rewritten after every cell from all cached cells with the same
epochs and train-sentence cap.

Configurations are SYSTEM:ORACLE (ORACLE = static, dynamic, or a bound of
covington-nm's dynamic oracle), plus arc-eager:static:pseudo-projective
when `arcwise.train.train` takes `pseudo_projective`; --list prints them.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import inspect
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numba_cache
import report

BENCH = Path(__file__).resolve().parent
DEFAULT_GLOB = "/work/shared/data/ud/*/train.conllu.gz"
PSEUDO_PROJECTIVE_ENCODING = "head+path"  # restores 95.8 % of lifted arcs on the shared files


@dataclass(frozen=True)
class Config:
    """One way of training: a system, an oracle, its bound, pseudo-projective encoding."""

    name: str
    system: str
    oracle: str
    bound: str | None = None
    pseudo_projective: str | None = None


def _configs() -> list[Config]:
    configs = [
        Config("covington:static", "covington", "static"),
        Config("covington:dynamic", "covington", "dynamic"),
        *(Config(f"covington-nm:{b}", "covington-nm", "dynamic", b)
          for b in ("lower", "pc-upper", "upper")),
        Config("two-planar:static", "two-planar", "static"),
        Config("two-planar:dynamic", "two-planar", "dynamic"),
        Config("arc-hybrid+swap:static", "arc-hybrid+swap", "static"),
        Config("arc-hybrid+swap:dynamic", "arc-hybrid+swap", "dynamic"),
    ]
    for system in ("arc-eager", "arc-eager+lba", "arc-eager+rba", "arc-eager+lnba",
                   "arc-eager+rnba", "arc-eager-nm", "arc-hybrid"):
        configs += [Config(f"{system}:static", system, "static"),
                    Config(f"{system}:dynamic", system, "dynamic")]
    configs.append(Config("arc-eager:static:pseudo-projective", "arc-eager", "static",
                          pseudo_projective=PSEUDO_PROJECTIVE_ENCODING))
    return configs


CONFIGS = {c.name: c for c in _configs()}


def pseudo_projective_available() -> bool:
    """Does arcwise.train.train take `pseudo_projective`?"""
    from arcwise.train import train

    return "pseudo_projective" in inspect.signature(train).parameters


# --- the tables, as laid out in the papers ----------------------------------


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[tuple[str, str], ...]  # (header, config name)
    published: str  # the paper's figures, markdown
    contrasts: tuple[tuple[str, str], ...] = ()  # (config A, config B): does A beat B?


PAPER_2017_TABLE_3 = """\
Fernández-González & Gómez-Rodríguez 2017 (nonmonotonic-covington-2017), Table 3: CoNLL-X/XI
treebanks (not UD), perceptron, punctuation included, mean of 5 seeds; the rows of the
languages we have, and the average over their 19 languages:

| language | static UAS | LAS | dynamic UAS | LAS | nm lower UAS | LAS | nm pc-upper UAS | LAS | nm upper UAS | LAS |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| Basque | 76.55 | 66.05 | 77.49 | 67.31 | 74.61 | 65.31 | 74.69 | 65.18 | 74.27 | 64.78 |
| Chinese | 84.93 | 80.80 | 85.82 | 82.15 | 86.55 | 82.53 | 86.29 | 82.27 | 86.60 | 82.51 |
| Czech | 78.49 | 61.77 | 80.21 | 63.52 | 81.32 | 64.89 | 81.33 | 64.81 | 81.49 | 65.18 |
| Dutch | 81.54 | 78.46 | 82.07 | 79.26 | 82.78 | 79.64 | 82.80 | 79.68 | 83.02 | 79.92 |
| English | 85.35 | 84.29 | 87.47 | 86.55 | 88.44 | 87.37 | 88.23 | 87.22 | 88.50 | 87.55 |
| Italian | 84.06 | 79.79 | 84.30 | 80.17 | 84.38 | 80.30 | 84.64 | 80.52 | 84.47 | 80.32 |
| Japanese | 93.63 | 92.20 | 93.67 | 92.33 | 94.02 | 92.68 | 94.02 | 92.68 | 93.97 | 92.66 |
| Portuguese | 86.55 | 82.61 | 87.45 | 83.62 | 87.17 | 83.47 | 87.12 | 83.45 | 87.40 | 83.71 |
| Swedish | 87.43 | 81.77 | 88.05 | 82.77 | 88.20 | 83.02 | 88.09 | 82.87 | 88.36 | 83.16 |
| average (19) | 83.48 | 76.75 | 84.46 | 77.92 | 84.67 | 78.18 | 84.63 | 78.12 | 84.74 | 78.24 |

Pattern: dynamic (monotonic) beats static in UAS on 18 of 19 languages (not Turkish); the paper
reports non-monotonic beating monotonic on 14 of 19 (upper in this table: 13 of 19, +0.28 UAS
on average), with a clear drop on Basque.
"""

PAPER_2018_TABLE_1 = """\
Fernández-González & Gómez-Rodríguez 2018 (two-planar-dynamic-oracle-2018), Table 1: 2-Planar
with a BiLSTM scorer (Kiperwasser & Goldberg 2016), CoNLL-X/XI treebanks; the rows of the
languages we have, and the average over their 20 datasets:

| language | static UAS | LAS | dynamic UAS | LAS |
|---|--:|--:|--:|--:|
| Basque | 77.61 | 69.94 | 78.11 | 70.11 |
| Chinese | 85.95 | 80.97 | 87.08 | 81.73 |
| Czech | 84.67 | 78.56 | 85.29 | 79.40 |
| Dutch | 85.51 | 81.63 | 86.50 | 82.70 |
| English | 89.57 | 88.69 | 90.87 | 90.03 |
| Italian | 86.85 | 82.36 | 87.24 | 82.38 |
| Japanese | 92.51 | 90.56 | 93.19 | 90.65 |
| Portuguese | 88.68 | 85.12 | 89.02 | 85.92 |
| Swedish | 89.92 | 85.48 | 89.83 | 85.40 |
| average (20) | 86.51 | 81.65 | 86.90 | 82.01 |

Pattern: dynamic beats static in UAS on 15 of 20. Their Table 2 compares arc-hybrid+swap
trained with the static-dynamic oracle: average UAS 86.39 against 86.90 for 2-Planar dynamic.
"""

PAPER_2012_TABLES_1_6 = """\
Fernández-González & Gómez-Rodríguez 2012 (buffer-transitions-2012), Tables 1 and 6: arc-eager (NE) with
projective (LBA, RBA) and non-projective (LNBA, RNBA) buffer transitions, SVM classifiers with
per-language features, static oracle, CoNLL-X, punctuation EXCLUDED, LAS before UAS as in the
paper. The stored text of the paper loses Arabic's NE LAS, and Table 6 after Danish:

| language | NE LAS | UAS | +LBA LAS | UAS | +RBA LAS | UAS | +LNBA LAS | UAS | +RNBA LAS | UAS |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| Arabic | ? | 77.19 | 67.78 | 78.26 | 63.87 | 74.63 | 67.13 | 77.90 | 67.21 | 77.92 |
| Chinese | 86.46 | 90.18 | 82.47 | 86.14 | 86.62 | 90.64 | 87.71 | 91.39 | 86.98 | 90.76 |
| Czech | 77.24 | 83.40 | 78.70 | 84.24 | 78.28 | 83.94 | 78.88 | 84.72 | 78.12 | 83.78 |
| Danish | 84.91 | 89.80 | 85.21 | 90.20 | 82.53 | 87.35 | 85.17 | 90.10 | 84.25 | 88.92 |
| German | 86.18 | 88.60 | 84.31 | 86.50 | 86.48 | 88.90 | ? | ? | ? | ? |
| Portuguese | 86.60 | 90.20 | 86.92 | 90.58 | 85.55 | 89.28 | ? | ? | ? | ? |
| Swedish | 83.33 | 88.83 | 82.81 | 88.03 | 81.66 | 88.03 | ? | ? | ? | ? |
| Turkish | 63.77 | 74.35 | 57.42 | 66.24 | 64.33 | 74.73 | ? | ? | ? | ? |

Pattern: one projective buffer transition helps on 7 of 8 languages, but which one depends on
the treebank (LBA and RBA rarely both help); a non-projective one helps on all 8. Adding both
of a kind was worse than the better one alone. Their Table 4 sets the best of these against
the pseudo-projective MaltParser of Nivre et al. 2006.
"""

TABLES = (
    Table("Covington: static, dynamic monotonic, non-monotonic (2017 paper, Table 3)",
          (("static", "covington:static"), ("dynamic", "covington:dynamic"),
           ("nm lower", "covington-nm:lower"), ("nm pc-upper", "covington-nm:pc-upper"),
           ("nm upper", "covington-nm:upper")),
          PAPER_2017_TABLE_3,
          (("covington:dynamic", "covington:static"),
           *((f"covington-nm:{b}", "covington:dynamic") for b in ("lower", "pc-upper", "upper")))),
    Table("2-Planar: static vs dynamic, arc-hybrid+swap beside it (2018 paper, Tables 1 and 2)",
          (("2-planar static", "two-planar:static"), ("2-planar dynamic", "two-planar:dynamic"),
           ("swap static", "arc-hybrid+swap:static"),
           ("swap static-dynamic", "arc-hybrid+swap:dynamic")),
          PAPER_2018_TABLE_1,
          (("two-planar:dynamic", "two-planar:static"),
           ("arc-hybrid+swap:dynamic", "arc-hybrid+swap:static"),
           ("two-planar:dynamic", "arc-hybrid+swap:dynamic"))),
    Table("Arc-eager with buffer transitions, static oracle (2012 paper, Tables 1 and 6)",
          (("NE", "arc-eager:static"), ("+LBA", "arc-eager+lba:static"),
           ("+RBA", "arc-eager+rba:static"), ("+LNBA", "arc-eager+lnba:static"),
           ("+RNBA", "arc-eager+rnba:static"),
           ("pseudo-proj.", "arc-eager:static:pseudo-projective")),
          PAPER_2012_TABLES_1_6,
          tuple((f"arc-eager+{t}:static", "arc-eager:static") for t in ("lba", "rba", "lnba", "rnba"))
          + (("arc-eager:static:pseudo-projective", "arc-eager:static"),)),
    Table("Arc-eager with buffer transitions, dynamic oracle",
          (("NE", "arc-eager:dynamic"), ("+LBA", "arc-eager+lba:dynamic"),
           ("+RBA", "arc-eager+rba:dynamic"), ("+LNBA", "arc-eager+lnba:dynamic"),
           ("+RNBA", "arc-eager+rnba:dynamic")),
          "",
          tuple((f"arc-eager+{t}:dynamic", "arc-eager:dynamic")
                for t in ("lba", "rba", "lnba", "rnba"))),
    Table("Other systems",
          (("arc-hybrid static", "arc-hybrid:static"), ("arc-hybrid dynamic", "arc-hybrid:dynamic"),
           ("arc-eager-nm static", "arc-eager-nm:static"),
           ("arc-eager-nm dynamic", "arc-eager-nm:dynamic")),
          "",
          (("arc-hybrid:dynamic", "arc-hybrid:static"), ("arc-eager-nm:dynamic", "arc-eager-nm:static"),
           ("arc-eager-nm:dynamic", "arc-eager:dynamic"))),
)


# --- one cell: runs in a worker process -------------------------------------


@dataclass(frozen=True)
class Cell:
    """One training run: a configuration on a treebank with a seed."""

    treebank: str
    train: str
    dev: str
    test: str
    config: Config
    seed: int
    epochs: int
    max_train_sentences: int | None

    @property
    def key(self) -> str:
        cap = self.max_train_sentences or "all"
        name = self.config.name.replace(":", "_")
        return f"{self.treebank}__{name}__e{self.epochs}__m{cap}__s{self.seed}"


def run_cell(cell: Cell) -> dict:
    """Train and score one cell (in whatever process runs it); the result as a dict."""
    import itertools

    from arcwise.eval.metrics import evaluate
    from arcwise.io import read_treebank
    from arcwise.io.conllu import with_tree
    from arcwise.train import train

    c = cell.config
    train_sentences = list(itertools.islice(read_treebank(cell.train), cell.max_train_sentences))
    dev = list(read_treebank(cell.dev))
    test = list(read_treebank(cell.test))
    options = {"pseudo_projective": c.pseudo_projective} if c.pseudo_projective else {}
    started = time.perf_counter()
    parser, log = train(c.system, train_sentences, dev, oracle=c.oracle, bound=c.bound,
                        epochs=cell.epochs, seed=cell.seed, **options)
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    trees = parser.parse(test)
    parse_seconds = time.perf_counter() - started
    scores = evaluate(test, [with_tree(s, h, d) for s, (h, d) in zip(test, trees)])
    best = log["epochs"][log["best_epoch"] - 1]
    return {
        "cell": asdict(cell),
        "key": cell.key,
        "test": {"uas": round(scores.uas, 2), "las": round(scores.las, 2),
                 "sentences": len(test), "words": int(sum(s.n for s in test))},
        "dev": {"uas": best.get("dev_uas"), "las": best.get("dev_las")},
        "best_epoch": log["best_epoch"],
        "train_sentences": log["sentences"],
        "train_words": log["words"],
        "unbuildable": log["unbuildable"],
        "skipped": log["skipped"],
        "pseudo_projective": log.get("pseudo_projective"),
        "train_seconds": round(train_seconds, 1),
        "epoch_seconds": [e["seconds"] for e in log["epochs"]],
        "parse_sentences_per_second": round(len(test) / parse_seconds, 1),
        "host": platform.node(),
        "git": report.git_revision(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }


# --- the run ----------------------------------------------------------------


def find_treebanks(pattern: str, names: list[str] | None) -> dict[str, tuple[str, str, str]]:
    """name -> (train, dev, test) for every train file matching pattern with dev/test beside."""
    found = {}
    for train_path in sorted(glob.glob(pattern)):
        folder = Path(train_path).parent
        dev, test = folder / "dev.conllu.gz", folder / "test.conllu.gz"
        if dev.exists() and test.exists() and (not names or folder.name in names):
            found[folder.name] = (train_path, str(dev), str(test))
    return found


def select_configs(patterns: list[str] | None, with_pseudo_projective: bool) -> list[Config]:
    """The configurations matching any of the fnmatch patterns (all if none)."""
    chosen = [c for c in CONFIGS.values()
              if not patterns or any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
    return [c for c in chosen if with_pseudo_projective or c.pseudo_projective is None]


def load_results(directory: Path) -> dict[str, dict]:
    """Every cached cell result in directory, by key (unreadable files are ignored)."""
    results = {}
    for path in sorted(directory.glob("*.json")):
        try:
            result = json.loads(path.read_text())
            results[result["key"]] = result
        except (OSError, ValueError, KeyError):
            continue
    return results


def save_result(directory: Path, result: dict) -> None:
    from arcwise.io.atomic import atomic_write

    with atomic_write(directory / f"{result['key']}.json") as out:
        json.dump(result, out, indent=1)


def run_cells(cells: list[Cell], args: argparse.Namespace, on_result) -> list[str]:
    """Run the cells on a local process pool or a Dask cluster; on_result(result) as each
    finishes; returns the errors (one line per failed cell)."""
    errors = []
    if args.dask:
        from dask.distributed import Client, as_completed

        client = Client(args.dask)
        if __name__ != "__main__":  # imported as a module: make it importable on the workers
            client.upload_file(__file__)
        futures = {client.submit(run_cell, cell, pure=False, key=f"arcwise-{cell.key}"): cell
                   for cell in cells}
        finished = as_completed(futures)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawned workers inherit the environment (restored in `finally`)
        saved_cache_dir = os.environ.get("NUMBA_CACHE_DIR")
        os.environ["NUMBA_CACHE_DIR"] = saved_cache_dir or str(
            numba_cache.cache_dir(args.numba_cache_dir))
        # one fresh process per cell: memory goes back between cells
        pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"),
                                   max_tasks_per_child=1)
        futures = {pool.submit(run_cell, cell): cell for cell in cells}
        finished = as_completed(futures)
    try:
        for future in finished:
            cell = futures[future]
            try:
                on_result(future.result())
            except Exception as error:  # a failed cell must not stop the others
                errors.append(f"{cell.treebank} {cell.config.name} seed {cell.seed}: "
                              f"{type(error).__name__}: {error}")
    finally:
        if args.dask:
            client.close()
        else:
            pool.shutdown(cancel_futures=True)
            if saved_cache_dir is None:
                del os.environ["NUMBA_CACHE_DIR"]
    return errors


# --- RESULTS.md ---------------------------------------------------------------


def _mean(values: list[float]) -> float | None:
    return round(statistics.mean(values), 2) if values else None


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def scores_by_cell(results: list[dict]) -> dict[tuple[str, str], dict]:
    """(treebank, config) -> mean test UAS/LAS over the seeds, with the seed count."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        grouped.setdefault((r["cell"]["treebank"], r["cell"]["config"]["name"]), []).append(r)
    return {key: {"uas": _mean([r["test"]["uas"] for r in rs]),
                  "las": _mean([r["test"]["las"] for r in rs]), "seeds": len(rs)}
            for key, rs in grouped.items()}


def table_markdown(table: Table, treebanks: list[str], scores: dict) -> str | None:
    """Our rows for one paper table (None if it has no result at all)."""
    columns = [(h, c) for h, c in table.columns if any((t, c) in scores for t in treebanks)]
    if not columns:
        return None
    lines = ["| treebank | " + " | ".join(f"{h} UAS | LAS" for h, _ in columns) + " |",
             "|---|" + "--:|--:|" * len(columns)]
    for t in treebanks:
        row = [scores.get((t, c), {}) for _, c in columns]
        if any(row):
            lines.append(f"| {t} | " + " | ".join(
                f"{_fmt(s.get('uas'))} | {_fmt(s.get('las'))}" for s in row) + " |")
    averages = []
    for _, c in columns:
        have = [scores[(t, c)] for t in treebanks if (t, c) in scores]
        note = "" if len(have) == len([t for t in treebanks if any(
            (t, cc) in scores for _, cc in columns)]) else f" ({len(have)})"
        averages.append(f"{_fmt(_mean([s['uas'] for s in have]))}{note} | "
                        f"{_fmt(_mean([s['las'] for s in have]))}{note}")
    lines.append("| **average** | " + " | ".join(averages) + " |")
    return "\n".join(lines)


def _contrast(a: str, b: str, treebanks: list[str], scores: dict) -> str:
    """On how many of the treebanks (each scored for both) config a beats config b, and
    the mean difference, UAS and LAS."""
    parts = []
    for metric in ("uas", "las"):
        deltas = [scores[(t, a)][metric] - scores[(t, b)][metric] for t in treebanks]
        parts.append(f"{metric.upper()} on {sum(d > 0 for d in deltas)} of {len(treebanks)} "
                     f"(mean {statistics.mean(deltas):+.2f})")
    return "; ".join(parts)


def contrasts_markdown(table: Table, treebanks: list[str], scores: dict,
                       every_seed: list[dict], shown_seeds: set[int]) -> str | None:
    """One line per contrast of the table: on how many treebanks A beats B, and by how much;
    where both have run with more seeds than the tables show (every_seed: the cells of
    any seed), the same over the mean of the seeds both have on every treebank."""
    def seeds(treebank: str, config: str) -> set[int]:
        return {r["cell"]["seed"] for r in every_seed
                if r["cell"]["treebank"] == treebank and r["cell"]["config"]["name"] == config}

    lines = []
    for a, b in table.contrasts:
        compared = [t for t in treebanks if (t, a) in scores and (t, b) in scores]
        if not compared:
            continue
        lines.append(f"- `{a}` beats `{b}`: {_contrast(a, b, compared, scores)}")
        common = set.intersection(*(seeds(t, a) & seeds(t, b) for t in compared))
        if len(common) > 1 and common != shown_seeds:
            line = _contrast(a, b, compared, scores_by_cell(
                [r for r in every_seed if r["cell"]["seed"] in common]))
            lines.append(f"  - over the mean of seeds {', '.join(map(str, sorted(common)))}: {line}")
    return "\n".join(["Here:", *lines]) if lines else None


def write_report(path: Path, results: list[dict], treebanks: dict[str, tuple[str, str, str]],
                 args: argparse.Namespace, command: str, with_pseudo_projective: bool,
                 every_seed: list[dict] | None = None) -> None:
    """The accuracy section of RESULTS.md: the setting, our tables beside the papers', every cell."""
    names = sorted({r["cell"]["treebank"] for r in results} | set(treebanks))
    scores = scores_by_cell(results)
    seeds = sorted({r["cell"]["seed"] for r in results})
    cap = args.max_train_sentences
    out = [
        "## Accuracy of arcwise's greedy parsers",
        "",
        "Written by `bench/accuracy.py` (issue #4, item 7); the papers' figures are quoted under "
        "each of our tables. Papers and data differ: they used CoNLL-X/XI treebanks (and SVMs in "
        "2012, a BiLSTM in 2018); we use the UD treebanks in `../shared/data/ud` and an averaged "
        "perceptron, so compare patterns (which oracle or transition helps), not numbers.",
        "",
        f"- Command of the last run: `{command}` (a run trains only the cells not yet in "
        "`bench/results/accuracy`)",
        f"- {report.provenance()}",
        f"- The {len(results)} cells finished between {min(r['finished'] for r in results)} and "
        f"{max(r['finished'] for r in results)}"
        + (f", at git {', '.join(sorted({r['git'] for r in results if 'git' in r}))} "
           f"({sum('git' not in r for r in results)} cells trained before revisions were "
           "recorded)" if any('git' in r for r in results) else "") + ".",
        f"- Training: `arcwise.train.train`, {args.epochs} epochs, the epoch with the best dev "
        f"LAS kept; dynamic oracles explore from the 2nd epoch with p = 0.9; seeds "
        f"{', '.join(map(str, seeds)) or '–'} (scores are their mean); train sentences: "
        f"{f'first {cap}' if cap else 'all'}.",
        "- Scoring: test split, gold tokenization, gold UPOS/XPOS/FEATS from the files, "
        "punctuation included, UAS and LAS (full DEPREL) by `arcwise.eval.metrics.evaluate`.",
        "- Averages are over the treebanks listed in each table; a count in parentheses means "
        "the column has fewer treebanks than the table.",
    ]
    if not with_pseudo_projective:
        out.append("- Pseudo-projective arc-eager: not run (`arcwise.train.train` has no "
                   "`pseudo_projective` argument in this version).")
    else:
        out.append(f"- Pseudo-projective arc-eager: Nivre & Nilsson 2005, "
                   f"{PSEUDO_PROJECTIVE_ENCODING} encoding, deprojectivized by the parser.")
    for table in TABLES:
        ours = table_markdown(table, names, scores)
        out += ["", f"### {table.title}", ""]
        out.append(ours if ours else "No results yet.")
        contrasts = contrasts_markdown(table, names, scores, every_seed or results,
                                       set(args.seeds))
        if contrasts:
            out += ["", contrasts]
        if table.published:
            out += ["", table.published.rstrip()]
    out += ["", "### Every cell", "",
            "| treebank | configuration | seed | test UAS | test LAS | dev LAS | best epoch "
            "| train s | unbuildable | skipped | parse sent/s |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in sorted(results, key=lambda r: (r["cell"]["treebank"],
                                            list(CONFIGS).index(r["cell"]["config"]["name"])
                                            if r["cell"]["config"]["name"] in CONFIGS else 99,
                                            r["cell"]["seed"])):
        out.append(
            f"| {r['cell']['treebank']} | {r['cell']['config']['name']} | {r['cell']['seed']} "
            f"| {r['test']['uas']:.2f} | {r['test']['las']:.2f} | {_fmt(r['dev']['las'])} "
            f"| {r['best_epoch']} | {r['train_seconds']:.0f} | {r['unbuildable']} "
            f"| {r['skipped']} | {r['parse_sentences_per_second']:,.0f} |")
    report.write_section("accuracy", "\n".join(out), path)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("treebank_glob", nargs="?", default=DEFAULT_GLOB,
                    help="train files; dev.conllu.gz and test.conllu.gz beside each")
    ap.add_argument("--treebanks", help="comma-separated folder names to keep")
    ap.add_argument("--configs", help="comma-separated configuration names or patterns "
                    "(fnmatch, e.g. 'covington*:*'); see --list")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seeds", default="1", help="comma-separated seeds (scores are averaged)")
    ap.add_argument("--max-train-sentences", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2, help="local worker processes")
    ap.add_argument("--dask", metavar="SCHEDULER_ADDRESS",
                    help="run the cells on this Dask distributed scheduler instead "
                         "(workers need the treebank paths)")
    ap.add_argument("--results", type=Path, default=BENCH / "results" / "accuracy",
                    help="directory of cached cell results (JSON)")
    ap.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    ap.add_argument("--rerun", action="store_true", help="ignore cached results of these cells")
    ap.add_argument("--numba-cache-dir", type=Path, default=BENCH.parent / "runs" / "numba-cache",
                    help="base of NUMBA_CACHE_DIR of the local workers unless already set (one "
                         "subfolder per source version: compiled once, then loaded; other "
                         "processes clearing src/ caches do not touch it)")
    ap.add_argument("--list", action="store_true", help="list configurations and treebanks")
    args = ap.parse_args(argv)
    split = lambda text: [x.strip() for x in text.split(",") if x.strip()] if text else None  # noqa: E731
    args.treebanks, args.configs = split(args.treebanks), split(args.configs)
    args.seeds = [int(s) for s in split(args.seeds)]
    if args.epochs < 1 or args.workers < 1:
        ap.error("--epochs and --workers must be at least 1")
    return args


def main(argv: list[str] | None = None) -> list[dict]:
    args = parse_args(argv)
    command = " ".join(["bench/accuracy.py", *(sys.argv[1:] if argv is None else argv)])
    with_pp = pseudo_projective_available()
    treebanks = find_treebanks(args.treebank_glob, args.treebanks)
    configs = select_configs(args.configs, with_pp)
    if args.list:
        print("configurations:", *CONFIGS, sep="\n  ")
        print("pseudo-projective training:", "available" if with_pp else "not in arcwise.train")
        print("treebanks:", *treebanks, sep="\n  ")
        return []
    if not treebanks or not configs:
        raise SystemExit(f"nothing to run: {len(treebanks)} treebanks match "
                         f"{args.treebank_glob!r}, {len(configs)} configurations")

    args.results.mkdir(parents=True, exist_ok=True)
    cached = load_results(args.results)
    cells = [Cell(name, *paths, config, seed, args.epochs, args.max_train_sentences)
             for name, paths in treebanks.items() for config in configs for seed in args.seeds]
    todo = [c for c in cells if args.rerun or c.key not in cached]

    def same_setting(r: dict) -> bool:
        return (r["cell"]["epochs"] == args.epochs
                and r["cell"]["max_train_sentences"] == args.max_train_sentences
                and r["cell"]["seed"] in args.seeds)

    def report() -> None:
        mine = [r for r in cached.values() if same_setting(r)]
        every_seed = [r for r in cached.values() if r["cell"]["epochs"] == args.epochs
                      and r["cell"]["max_train_sentences"] == args.max_train_sentences]
        write_report(args.output, mine, treebanks, args, command, with_pp, every_seed)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=False) as progress:
        task = progress.add_task(f"{len(todo)} cells to train ({len(cells) - len(todo)} cached)",
                                 total=len(todo))

        def on_result(result: dict) -> None:
            save_result(args.results, result)
            cached[result["key"]] = result
            report()
            cell = result["cell"]
            progress.console.print(
                f"{cell['treebank']} {cell['config']['name']} seed {cell['seed']}: "
                f"test UAS {result['test']['uas']:.2f} LAS {result['test']['las']:.2f} "
                f"({result['train_seconds']:.0f} s)")
            progress.advance(task)

        errors = run_cells(todo, args, on_result) if todo else []
    report()
    for error in errors:
        print("failed:", error, file=sys.stderr)
    print(f"wrote {args.output}", file=sys.stderr)
    return [cached[c.key] for c in cells if c.key in cached]


if __name__ == "__main__":
    main()
