"""One cell of a grid: a configuration trained on a treebank with a seed, parsed and scored.

`run_cell` runs in a worker process (local pool or Dask worker) and returns
the cell's result, a JSON-ready dict: the cell itself, test UAS/LAS, the
per-sentence counts the paired significance tests need (scored words, words
with the right head, with the right head and label), dev scores of the kept
epoch, timing, host, and the git revision of the package's source (with
`dirty` when it had uncommitted changes), and two descriptions of the
training data the report can show beside the scores without reading the
data again: its treebank statistics (`train_statistics`,
`arcwise.analysis.treebank_stats`: arc directions and lengths, 2012 Table 2)
and the arcs each arc transition builds in the static oracle's derivations
of its trees (`static_arcs`), and the transitions per training sentence of
the first epoch, the oracle's (`transitions_per_sentence`).  Results are kept one JSON file per
cell, ``KEY.json``, written atomically: a killed run leaves finished cells
whole and nothing else.

Result format 2; `migrate` reads format 1 (bench/accuracy.py before the
package took it over: no counts, ``git`` as "SHORT[ + uncommitted changes]",
pseudo-projective encoding as a configuration field).
"""

from __future__ import annotations

import itertools
import json
import platform
import subprocess
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arcwise.core.errors import ArcwiseError
from arcwise.experiments.grid import (
    PATH_OPTIONS,
    SPLITS,
    Configuration,
    Grid,
    absolute,
    treebank_files,
)

FORMAT = 2


@dataclass(frozen=True)
class Revision:
    """The git commit of the package's source and whether it had uncommitted changes."""

    commit: str | None  # None: not a git checkout
    dirty: bool


@dataclass(frozen=True)
class Cell:
    """One training run: a configuration on a treebank (its split files) with a seed."""

    treebank: str
    train: str
    dev: str
    test: str
    config: Configuration
    seed: int
    epochs: int | None  # None: `arcwise.training.epochs.default_epochs`
    max_train_sentences: int | None = None
    max_dev_sentences: int | None = None
    max_test_sentences: int | None = None

    @property
    def key(self) -> str:
        """The file name stem of the cell's result (the format of bench/accuracy.py's cells)."""
        limits = f"m{self.max_train_sentences or 'all'}"
        limits += f"d{self.max_dev_sentences}" if self.max_dev_sentences else ""
        limits += f"t{self.max_test_sentences}" if self.max_test_sentences else ""
        name = self.config.name.replace(":", "_")
        return f"{self.treebank}__{name}__e{self.epochs or 'default'}__{limits}__s{self.seed}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "config": self.config.to_dict()}


def cells_of(grid: Grid, resolve: bool | Collection[str] = True) -> list[Cell]:
    """Every cell of the grid, treebank by treebank; with `resolve`, the split files are
    looked up under the data root (ArcwiseError if a treebank is missing), else left empty
    (enough to name a cell and find its result); `resolve` may name the treebanks to look
    up (those with cells to train)."""
    files = {t: treebank_files(grid, t) if resolve is True or (resolve and t in resolve)
             else dict.fromkeys(SPLITS, "") for t in grid.treebanks}
    return [Cell(t, str(files[t]["train"]), str(files[t]["dev"]), str(files[t]["test"]), config,
                 seed, grid.epochs, grid.limits.get("train"), grid.limits.get("dev"),
                 grid.limits.get("test"))
            for t in grid.treebanks for config in grid.configurations for seed in grid.seeds]


def source_revision(directory: str | Path | None = None) -> Revision:
    """The git revision of `directory` (default: the arcwise package's source) and whether
    any file under it differs from that revision (changed, staged or untracked)."""
    if directory is None:
        import arcwise

        directory = Path(arcwise.__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=directory, text=True, capture_output=True,
                              check=True).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        changes = git("status", "--porcelain", "--", ".")
    except (OSError, subprocess.CalledProcessError):
        return Revision(None, False)
    return Revision(commit, bool(changes))


def run_cell(cell: Cell, revision: Revision, device: str | None = None) -> dict[str, Any]:
    """Train, parse and score one cell (in whatever process runs it; its neural networks on
    `device`, default: the process's, `arcwise.core.device`); its result."""
    from arcwise.core.device import current_device, use_device
    from arcwise.eval.metrics import evaluate, sentence_counts
    from arcwise.io import read_treebank
    from arcwise.io.conllu import with_tree
    from arcwise.transition.train import train

    def read(path: str, limit: int | None) -> list:
        return list(itertools.islice(read_treebank(path), limit))

    if device is not None:
        use_device(device)
    c = cell.config
    train_sentences = read(cell.train, cell.max_train_sentences)
    dev = read(cell.dev, cell.max_dev_sentences)
    test = read(cell.test, cell.max_test_sentences)
    started = time.perf_counter()
    parser, log = train(c.system, train_sentences, dev, oracle=c.oracle, bound=c.bound,
                        epochs=cell.epochs, seed=cell.seed, **c.options)
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    trees = parser.parse(test)
    parse_seconds = time.perf_counter() - started
    parsed = [with_tree(s, h, d) for s, (h, d) in zip(test, trees)]
    scores = evaluate(test, parsed)
    counts = sentence_counts(test, parsed)
    best = log["epochs"][log["best_epoch"] - 1]
    statistics, arcs = training_data_description(c, train_sentences)
    return {
        "format": FORMAT,
        "cell": cell.to_dict(),
        "key": cell.key,
        "test": {"uas": scores.uas, "las": scores.las, "sentences": len(test),
                 "words": int(sum(s.n for s in test))},
        "counts": {"scored": counts.scored_words.tolist(),
                   "head": counts.head_correct.tolist(),
                   "labeled": counts.labeled_correct.tolist()},
        "dev": {"uas": best.get("dev_uas"), "las": best.get("dev_las")},
        "best_epoch": log["best_epoch"],
        "train_sentences": log["sentences"],
        "train_words": log["words"],
        "unbuildable": log["unbuildable"],
        "skipped": log["skipped"],
        "pseudo_projective": log.get("pseudo_projective"),
        "train_statistics": statistics,
        "static_arcs": arcs,
        # the first epoch (exploring from the second, by default): the oracle's derivations
        "transitions_per_sentence": round(log["epochs"][0].get("configurations", 0)
                                          / max(log["sentences"] - log["skipped"], 1), 2),
        "train_seconds": round(train_seconds, 2),
        "epoch_seconds": [e["seconds"] for e in log["epochs"]],
        "parse_seconds": round(parse_seconds, 3),
        "parse_sentences_per_second": round(len(test) / max(parse_seconds, 1e-9), 1),
        "host": platform.node(),
        "device": current_device(),
        "git": revision.commit,
        "dirty": revision.dirty,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }


def training_data_description(config: Configuration, sentences: list) -> tuple[dict, dict]:
    """(treebank statistics of the training sentences, arc transition -> arcs it builds in
    the static oracle's derivations of the training trees the system can build)."""
    from arcwise import systems
    from arcwise.analysis.oracle_coverage import static_arcs
    from arcwise.analysis.treebank_stats import treebank_stats

    ts = systems.get(config.system, **config.oracle_options)
    return treebank_stats(sentences), static_arcs(ts, (s.head for s in sentences))


def migrate(result: dict[str, Any]) -> dict[str, Any]:
    """A result of any format in format 2 (format 1: bench/accuracy.py's cells, no counts)."""
    if result.get("format") == FORMAT:
        return result
    result = json.loads(json.dumps(result))  # a deep copy
    config = result["cell"]["config"]
    encoding = config.pop("pseudo_projective", None)
    config["options"] = {"pseudo_projective": encoding} if encoding else {}
    for split in ("dev", "test"):
        result["cell"].setdefault(f"max_{split}_sentences", None)
    git = result.get("git")
    result["git"] = git.split(" ")[0] if git else None
    result["dirty"] = bool(git and "uncommitted" in git)
    result["format"] = FORMAT
    return result


def load_results(directory: str | Path) -> dict[str, dict[str, Any]]:
    """Every finished cell in `directory`, by key, in format 2 (files that are not cell
    results are ignored; temporary files of a killed run are hidden, .*.tmp)."""
    results = {}
    for path in sorted(Path(directory).glob("*.json")):
        try:
            result = migrate(json.loads(path.read_text(encoding="utf-8")))
            results[result["key"]] = result
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return results


def save_result(directory: str | Path, result: dict[str, Any]) -> Path:
    """Write a cell's result to DIRECTORY/KEY.json atomically; the path."""
    from arcwise.io.atomic import atomic_write

    path = Path(directory) / f"{result['key']}.json"
    with atomic_write(path) as out:
        json.dump(result, out, indent=1)
        out.write("\n")
    return path


def check_cached(cell: Cell, result: dict[str, Any]) -> None:
    """ArcwiseError if a cached result under the cell's key was trained differently
    (the grid changed a configuration but kept its name)."""
    stored = dict(result["cell"]["config"])
    wanted = cell.config.to_dict()
    if isinstance(stored.get("options"), dict):  # a file option cached as the relative path
        stored["options"] = {  # of an older run (from the folder this one runs in)
            k: str(absolute(v)) if k in PATH_OPTIONS and isinstance(v, str) else v
            for k, v in stored["options"].items()}
    for field in ("system", "oracle", "bound", "options"):
        if stored.get(field) != wanted[field]:
            raise ArcwiseError(
                f"{result['key']}.json: cached cell has {field} {stored.get(field)!r}, the grid "
                f"says {wanted[field]!r}: rename the configuration or remove the file")


def selection(grid: Grid, treebanks: list[str] | None = None,
              configurations: list[str] | None = None, seeds: list[int] | None = None):
    """A predicate on the grid's cells: the given treebanks, configurations (names or fnmatch
    patterns) and seeds, None meaning all; ArcwiseError for a value the grid does not have."""
    import fnmatch

    names = [c.name for c in grid.configurations]
    for pattern in configurations or ():
        if not fnmatch.filter(names, pattern):
            raise ArcwiseError(f"{grid.path}: no configuration matches {pattern!r}")
    for value, known, what in ((treebanks, grid.treebanks, "treebank"),
                               (seeds, grid.seeds, "seed")):
        if unknown := [v for v in value or () if v not in known]:
            raise ArcwiseError(f"{grid.path}: no {what} {unknown[0]!r} in the grid")

    def selected(cell: Cell) -> bool:
        return ((treebanks is None or cell.treebank in treebanks)
                and (seeds is None or cell.seed in seeds)
                and (configurations is None
                     or any(fnmatch.fnmatchcase(cell.config.name, p) for p in configurations)))

    return selected
