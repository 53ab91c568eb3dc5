"""An experiment grid: treebanks x configurations x seeds, read from a TOML file.

A grid file (see README, "Experiments", and ``experiments/*.toml``)::

    title = "Covington: static, dynamic, non-monotonic"   # optional
    data = "../data"          # optional data root, relative to this file; --data overrides
    treebanks = ["Basque-BDT", "English-EWT"]   # folders under the data root
    seeds = [1, 2, 3]
    epochs = 15               # or "default": arcwise train's (a neural parser's by its updates)
    options = { transition_buckets = 4096 }    # optional, every configuration
    [limits]                  # optional: only the first N sentences of a split
    train = 200
    dev = 50
    test = 50

    [[configurations]]
    name = "covington-nm:upper"       # optional, default SYSTEM:ORACLE[:BOUND]
    system = "covington-nm"
    oracle = "dynamic"
    bound = "upper"                   # optional
    options = { oracle_priority = "monotonic" }   # any other arcwise.transition.train.train keyword
    # e.g. a BiLSTM with pretrained word vectors (a file relative to this one, as data):
    # options = { model = "bilstm", embeddings = "vectors/sv.vec", embeddings_extra = 50000 }

    [[contrasts]]
    a = "covington-nm:upper"          # does A beat B?
    b = "covington:dynamic"
    paper = "table-3"                 # optional: a key of [papers]

    [[choices]]                       # optional: per treebank, the best of some configurations
    name = "best-static"              # contrasts and tables name it like a configuration
    candidates = ["covington:static", "covington-nm:upper"]
    by = "dev"                        # optional: the split it is chosen on (dev or test)
    metric = "las"                    # optional: uas or las

    [[tables]]                        # optional: overview tables, one column per configuration
    title = "Covington (2017 paper, Table 3)"
    columns = [["static", "covington:static"], ["nm upper", "covington-nm:upper"]]
    paper = "table-3"
    # optional, beside each treebank's scores: statistics of its training data
    # (arcwise.analysis.treebank_stats keys) and the share of the arcs (%) an arc
    # transition builds in a configuration's static oracle derivations of it
    statistics = [["L1 %", "left_length1_pct"], ["R1 %", "right_length1_pct"]]
    arc_shares = [["LA %", "covington:static", "left-arc"]]

    [papers.table-3]
    text = '''the paper's table, Markdown'''

A treebank folder holds its three splits as ``train.conllu(.gz)`` (the
bundled data/en_ewt) or UD's ``*-ud-train.conllu(.gz)``, likewise dev and
test.  Every problem is reported as one line naming the grid file.
"""

from __future__ import annotations

import inspect
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcwise.core.errors import ArcwiseError, InputError

SPLITS = ("train", "dev", "test")
DEFAULT_EPOCHS = "default"  # epochs = "default": `arcwise.training.epochs.default_epochs` per cell
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+:._-]*$")  # also a part of a file name
# train() arguments a cell sets itself; a configuration's options may not name them
# options that name a file (a vectors file): relative to the grid file, made absolute
PATH_OPTIONS = frozenset({"embeddings"})
CELL_ARGUMENTS = frozenset({"system", "train_sentences", "dev_sentences", "oracle", "bound",
                            "epochs", "seed", "progress", "guide", "dev_guide", "table"})


@dataclass(frozen=True)
class Configuration:
    """One way of training: a transition system, its oracle and bound, more train() options."""

    name: str
    system: str
    oracle: str
    bound: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "system": self.system, "oracle": self.oracle,
                "bound": self.bound, "options": dict(sorted(self.options.items()))}

    @property
    def oracle_options(self) -> dict[str, Any]:
        """The options that are not arcwise.transition.train.train's: its system's oracle's."""
        return oracle_options(self.options)


def oracle_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options that are not arcwise.transition.train.train's keywords (they go to the oracle)."""
    from arcwise.transition.train import train

    parameters = inspect.signature(train).parameters
    return {k: v for k, v in options.items() if k not in parameters}


@dataclass(frozen=True)
class Contrast:
    """Does configuration `a` beat configuration `b`? `paper`: the paper table to quote."""

    a: str
    b: str
    paper: str | None = None


CHOICE_SPLITS = ("dev", "test")
CHOICE_METRICS = ("uas", "las")


@dataclass(frozen=True)
class Choice:
    """Per treebank, the candidate configuration with the best mean `metric` on the `by`
    split over the seeds every candidate has (e.g. the 2012 paper's better of LBA and RBA
    per language, chosen on dev); contrasts and tables name it like a configuration."""

    name: str
    candidates: tuple[str, ...]
    by: str = "dev"
    metric: str = "las"


@dataclass(frozen=True)
class Table:
    """An overview table: one (header, configuration) column pair of UAS/LAS per column;
    then per treebank, statistics of its training data ((header, `treebank_stats` key))
    and the share of arcs an arc transition builds in a configuration's static oracle
    derivations ((header, configuration, transition))."""

    title: str
    columns: tuple[tuple[str, str], ...]
    paper: str | None = None
    statistics: tuple[tuple[str, str], ...] = ()
    arc_shares: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Grid:
    """A parsed and validated grid file."""

    path: Path
    title: str
    data: Path | None
    treebanks: tuple[str, ...]
    configurations: tuple[Configuration, ...]
    seeds: tuple[int, ...]
    epochs: int | None  # None: "default", `arcwise.training.epochs.default_epochs`
    limits: dict[str, int]  # split -> first N sentences
    contrasts: tuple[Contrast, ...] = ()
    tables: tuple[Table, ...] = ()
    papers: dict[str, str] = field(default_factory=dict)  # key -> Markdown
    choices: tuple[Choice, ...] = ()

    @property
    def name(self) -> str:
        return self.path.stem

    def configuration(self, name: str) -> Configuration:
        """The configuration named `name` (KeyError if none)."""
        for c in self.configurations:
            if c.name == name:
                return c
        raise KeyError(name)


def load(path: str | Path, data: str | Path | None = None) -> Grid:
    """Read and validate the grid file at `path`; `data` overrides its data root."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise ArcwiseError(f"{path}: cannot read the grid: {reason}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\s*\(at (?:line (\d+), column \d+|end of document)\)", str(error))
        line = int(where.group(1)) if where and where.group(1) else len(text.splitlines()) or 1
        message = str(error)[:where.start()] if where else str(error)
        raise InputError(str(path), line, f"not valid TOML: {message}") from None
    return parse(raw, path, data)


def parse(raw: dict[str, Any], path: Path, data: str | Path | None = None) -> Grid:
    """Validate a grid read from TOML (`path` names it in errors and anchors its data root)."""
    check = _Checker(path)
    check.keys(raw, "the grid", required={"treebanks", "configurations", "seeds", "epochs"},
               optional={"title", "data", "options", "limits", "contrasts", "tables", "papers",
                         "choices"})
    treebanks = tuple(check.names(raw["treebanks"], "treebanks"))
    seeds = tuple(check.int_list(raw["seeds"], "seeds", minimum=0))
    epochs = (None if raw["epochs"] == DEFAULT_EPOCHS
              else check.integer(raw["epochs"], f'epochs (or "{DEFAULT_EPOCHS}")', minimum=1))
    limits = check.table(raw.get("limits", {}), "[limits]")
    check.keys(limits, "[limits]", optional=set(SPLITS))
    for split, n in limits.items():
        check.integer(n, f"limits.{split}", minimum=1)
    shared = check.table(raw.get("options", {}), "options")

    configurations = []
    for k, entry in enumerate(check.array_of_tables(raw["configurations"], "configurations"), 1):
        configurations.append(check.configuration(entry, f"[[configurations]] {k}", shared))
    names = [c.name for c in configurations]
    if duplicate := next((n for n in names if names.count(n) > 1), None):
        raise check.error(f"two configurations are named {duplicate!r}")

    choices = []
    for k, entry in enumerate(check.array_of_tables(raw.get("choices", []), "choices"), 1):
        where = f"[[choices]] {k}"
        check.keys(entry, where, required={"name", "candidates"}, optional={"by", "metric"})
        name = check.name(entry["name"], f"{where}: name")
        candidates = entry["candidates"]
        if not (isinstance(candidates, list) and len(candidates) >= 2
                and len(set(map(str, candidates))) == len(candidates)):
            raise check.error(f"{where}: candidates must be a list of two or more "
                              "configuration names")
        for candidate in candidates:  # configurations, not other choices
            check.known(candidate, [c.name for c in configurations], f"{where}: candidates")
        by, metric = entry.get("by", "dev"), entry.get("metric", "las")
        check.one_of(by, CHOICE_SPLITS, f"{where}: by")
        check.one_of(metric, CHOICE_METRICS, f"{where}: metric")
        if name in names:
            raise check.error(f"{where}: {name!r} is already the name of a configuration")
        names.append(name)  # contrasts and tables may name it
        choices.append(Choice(name, tuple(candidates), by, metric))

    papers = {}
    for key, entry in check.table(raw.get("papers", {}), "[papers]").items():
        entry = check.table(entry, f"[papers.{key}]")
        check.keys(entry, f"[papers.{key}]", required={"text"})
        papers[key] = check.string(entry["text"], f"papers.{key}.text")

    def paper(entry: dict, where: str) -> str | None:
        key = entry.get("paper")
        if key is not None and key not in papers:
            raise check.error(f"{where}: paper {key!r} is not in [papers]")
        return key

    contrasts = []
    for k, entry in enumerate(check.array_of_tables(raw.get("contrasts", []), "contrasts"), 1):
        where = f"[[contrasts]] {k}"
        check.keys(entry, where, required={"a", "b"}, optional={"paper"})
        for side in ("a", "b"):
            check.known(entry[side], names, f"{where}: {side}")
        contrasts.append(Contrast(entry["a"], entry["b"], paper(entry, where)))

    tables = []
    for k, entry in enumerate(check.array_of_tables(raw.get("tables", []), "tables"), 1):
        where = f"[[tables]] {k}"
        check.keys(entry, where, required={"title", "columns"},
                   optional={"paper", "statistics", "arc_shares"})
        if not isinstance(entry["columns"], list) or not entry["columns"]:
            raise check.error(f"{where}: columns must be a list of [header, configuration] pairs")
        columns = []
        for column in entry["columns"]:
            if not (isinstance(column, list) and len(column) == 2
                    and all(isinstance(x, str) for x in column)):
                raise check.error(f"{where}: columns must be [header, configuration] pairs")
            check.known(column[1], names, f"{where}: column")
            columns.append((column[0], column[1]))
        statistics = check.statistics(entry.get("statistics", []), f"{where}: statistics")
        arc_shares = check.arc_shares(entry.get("arc_shares", []), f"{where}: arc_shares",
                                      {c.name: c for c in configurations})
        tables.append(Table(check.string(entry["title"], f"{where}: title"), tuple(columns),
                            paper(entry, where), statistics, arc_shares))

    # every path absolute here, on the client: a cell's files travel to workers (a Dask
    # cluster's) that may run in another folder
    if data is not None:
        root = absolute(data)
    elif "data" in raw:
        root = absolute(path.parent / check.string(raw["data"], "data"))
    else:
        root = None
    return Grid(path=path, title=check.string(raw.get("title", path.stem), "title"),
                data=root, treebanks=treebanks, configurations=tuple(configurations),
                seeds=seeds, epochs=epochs, limits=dict(limits), contrasts=tuple(contrasts),
                tables=tuple(tables), papers=papers, choices=tuple(choices))


def absolute(path: str | Path) -> Path:
    """`path` made absolute against this process's working directory, ``..`` folded away
    (symbolic links kept): what a worker in another folder, or on another machine that
    mounts the data at the same place, can open."""
    return Path(os.path.abspath(path))


def on_treebanks(grid: Grid, treebanks: list[str]) -> Grid:
    """The grid run unchanged on other treebanks: folders of its data root, or ["all"] for
    every folder there that holds a train, a dev and a test file (ArcwiseError if none)."""
    import dataclasses

    check = _Checker(grid.path)
    if grid.data is None:
        raise ArcwiseError(f"{grid.path}: no data root: give --data DIR or `data` in the grid")
    if treebanks == ["all"]:
        def complete(folder: Path) -> bool:
            try:
                treebank_files(grid, folder.name)
            except ArcwiseError:
                return False
            return True

        folders = sorted(p for p in grid.data.iterdir() if p.is_dir() and NAME.match(p.name)) \
            if grid.data.is_dir() else []
        treebanks = [p.name for p in folders if complete(p)]
        if not treebanks:
            raise ArcwiseError(f"{grid.path}: no treebank folder with train, dev and test files "
                               f"in {grid.data}")
    check.names(treebanks, "--other-treebanks")
    for treebank in treebanks:
        treebank_files(grid, treebank)  # found, or one line saying what is missing
    return dataclasses.replace(grid, treebanks=tuple(treebanks))


def treebank_files(grid: Grid, treebank: str) -> dict[str, Path]:
    """split -> file of `treebank` under the grid's data root (ArcwiseError if not found)."""
    if grid.data is None:
        raise ArcwiseError(f"{grid.path}: no data root: give --data DIR or `data` in the grid")
    folder = grid.data / treebank
    if not folder.is_dir():
        raise ArcwiseError(f"{grid.path}: treebank {treebank!r}: no folder {folder}")
    files = {}
    for split in SPLITS:
        found = sorted({p for pattern in (f"{split}.conllu", f"{split}.conllu.gz",
                                          f"*-ud-{split}.conllu", f"*-ud-{split}.conllu.gz")
                        for p in folder.glob(pattern)})
        if len(found) != 1:
            what = "no" if not found else f"{len(found)}"
            raise ArcwiseError(f"{grid.path}: treebank {treebank!r}: {what} {split} files in "
                               f"{folder} (expected one {split}.conllu[.gz] or "
                               f"*-ud-{split}.conllu[.gz])")
        files[split] = found[0]
    return files


class _Checker:
    """Type and key checks that fail with one line naming the grid file."""

    def __init__(self, path: Path):
        self.path = path

    def error(self, message: str) -> ArcwiseError:
        return ArcwiseError(f"{self.path}: {message}")

    def keys(self, entry: dict, where: str, required=frozenset(), optional=frozenset()) -> None:
        if missing := sorted(set(required) - entry.keys()):
            raise self.error(f"{where}: missing {', '.join(missing)}")
        if unknown := sorted(entry.keys() - set(required) - set(optional)):
            raise self.error(f"{where}: unknown key {unknown[0]!r} "
                             f"(known: {', '.join(sorted(set(required) | set(optional)))})")

    def table(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            raise self.error(f"{where} must be a table")
        return value

    def array_of_tables(self, value: Any, where: str) -> list[dict]:
        if not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            raise self.error(f"{where} must be an array of tables ([[{where}]])")
        return value

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.error(f"{where} must be a non-empty string")
        return value

    def integer(self, value: Any, where: str, minimum: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.error(f"{where} must be an integer >= {minimum}, not {value!r}")
        return value

    def int_list(self, value: Any, where: str, minimum: int) -> list[int]:
        if not isinstance(value, list) or not value:
            raise self.error(f"{where} must be a non-empty list")
        values = [self.integer(v, where, minimum) for v in value]
        if len(set(values)) != len(values):
            raise self.error(f"{where}: repeated value")
        return values

    def names(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list) or not value:
            raise self.error(f"{where} must be a non-empty list of names")
        for v in value:
            self.name(v, where)
        if len(set(value)) != len(value):
            raise self.error(f"{where}: repeated name")
        return value

    def name(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not NAME.match(value):
            raise self.error(f"{where}: {value!r} is not a name (letters, digits, + : . _ -)")
        return value

    def known(self, value: Any, names: list[str], where: str) -> None:
        if value not in names:
            raise self.error(f"{where}: no configuration named {value!r}")

    def one_of(self, value: Any, known: tuple[str, ...], where: str) -> str:
        if value not in known:
            raise self.error(f"{where} must be one of {', '.join(known)}, not {value!r}")
        return value

    def pairs(self, value: Any, size: int, where: str, shape: str) -> list[tuple[str, ...]]:
        if not (isinstance(value, list) and all(
                isinstance(v, list) and len(v) == size and all(isinstance(x, str) and x
                                                               for x in v) for v in value)):
            raise self.error(f"{where} must be a list of {shape}")
        return [tuple(v) for v in value]

    def statistics(self, value: Any, where: str) -> tuple[tuple[str, str], ...]:
        from arcwise.analysis.treebank_stats import treebank_stats

        known = [k for k, v in treebank_stats([]).items() if not isinstance(v, bool)]
        pairs = self.pairs(value, 2, where, "[header, statistic] pairs")
        for _, key in pairs:
            if key not in known:
                raise self.error(f"{where}: unknown statistic {key!r} (known: "
                                 f"{', '.join(known)})")
        return tuple(pairs)

    def arc_shares(self, value: Any, where: str, configurations: dict[str, Configuration]
                   ) -> tuple[tuple[str, str, str], ...]:
        from arcwise import systems

        triples = self.pairs(value, 3, where, "[header, configuration, transition] triples")
        for _, name, transition in triples:
            self.known(name, list(configurations), where)
            config = configurations[name]
            kernels = systems.get(config.system, **config.oracle_options).kernels
            arcs = [kernels.actions[a] for a in kernels.enabled if kernels.labeled[a]]
            if transition not in arcs:
                raise self.error(f"{where}: {config.system} has no arc transition "
                                 f"{transition!r} (it has {', '.join(arcs)})")
        return tuple(triples)

    def configuration(self, entry: dict, where: str, shared: dict) -> Configuration:
        """The configuration of a [[configurations]] entry, its options checked as each
        cell's training run would check them (`arcwise.transition.train.check_options`),
        so that a bad value stops the grid before any cell starts."""
        from arcwise.transition.train import check_options

        self.keys(entry, where, required={"system", "oracle"},
                  optional={"name", "bound", "options"})
        system = self.string(entry["system"], f"{where}: system")
        oracle = entry["oracle"]
        bound = entry.get("bound")
        options = {**shared, **self.table(entry.get("options", {}), f"{where}: options")}
        name = self.name(entry.get("name", ":".join(filter(None, (system, oracle, bound)))),
                         f"{where}: name")
        where = f"configuration {name!r}"
        if reserved := sorted(CELL_ARGUMENTS & options.keys()):
            raise self.error(f"{where}: option {reserved[0]!r} is set by the grid, not by options")
        for option in PATH_OPTIONS.intersection(options):  # relative to the grid file, as data
            given = self.string(options[option], f"{where}: {option}")
            options[option] = str(absolute(self.path.parent / given))
        try:
            check_options(system, oracle=oracle, bound=bound, **options)
        except TypeError:
            extra = oracle_options(options)
            raise self.error(f"{where}: unknown option among {', '.join(sorted(extra))} "
                             f"(neither arcwise.transition.train.train's nor the {system} oracle's)") from None
        except (ValueError, ArcwiseError) as error:
            raise self.error(f"{where}: {error}") from None
        return Configuration(name, system, oracle, bound, options)
