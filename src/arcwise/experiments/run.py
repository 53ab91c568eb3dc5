"""Run a grid: train the cells not yet finished, keep each result as it arrives, report.

`run_grid` is what `arcwise experiment` calls: it refuses to train from a
source tree with uncommitted changes unless allowed (such cells are marked
``dirty``), skips the cells whose result is already in the results folder
(unless told to rerun), runs the others on a local process pool or a Dask
cluster, and saves each result atomically the moment it arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arcwise.core.errors import ArcwiseError
from arcwise.experiments import runners
from arcwise.experiments.cells import (
    Cell,
    Revision,
    cells_of,
    check_cached,
    load_results,
    save_result,
    source_revision,
)
from arcwise.experiments.grid import Grid, absolute
from arcwise.io.atomic import made_folder


@dataclass(frozen=True)
class Outcome:
    """The grid's finished results (cached and new), the keys trained now, failed cells."""

    results: list[dict[str, Any]]
    trained: list[str]
    errors: list[runners.CellError]  # one line each, and whether the user caused it


def plan(grid: Grid, results_dir: str | Path, rerun: bool = False,
         select: Callable[[Cell], bool] | None = None
         ) -> tuple[list[Cell], list[Cell], dict[str, dict[str, Any]]]:
    """The grid's cells, those still to train (among the `select`-ed ones; their treebank
    files looked up), and every finished result in results_dir.  A finished grid needs
    no data."""
    cached = load_results(results_dir) if Path(results_dir).is_dir() else {}
    cells = cells_of(grid, resolve=False)
    for cell in cells:
        if cell.key in cached and not rerun:
            check_cached(cell, cached[cell.key])
    missing = {c.key for c in cells if (rerun or c.key not in cached)
               and (select is None or select(c))}
    needed = {c.treebank for c in cells if c.key in missing}  # the data of these only
    todo = [c for c in cells_of(grid, resolve=needed) if c.key in missing] if missing else []
    return cells, todo, cached


def finished(grid: Grid, results_dir: str | Path) -> list[dict[str, Any]]:
    """The grid's finished results in results_dir, in the grid's order (no training)."""
    cached = load_results(results_dir) if Path(results_dir).is_dir() else {}
    cells = [c for c in cells_of(grid, resolve=False) if c.key in cached]
    for cell in cells:
        check_cached(cell, cached[cell.key])
    return [cached[c.key] for c in cells]


def run_grid(grid: Grid, results_dir: str | Path, *, workers: int = 2, dask: Any = None,
             rerun: bool = False, allow_dirty: bool = False, revision: Revision | None = None,
             select: Callable[[Cell], bool] | None = None,
             on_start: Callable[[list[Cell], int], Any] | None = None,
             on_result: Callable[[dict[str, Any]], Any] | None = None) -> Outcome:
    """Train the missing cells of `grid` (those `select` accepts, if given) into
    results_dir (local pool of `workers` processes, or the Dask scheduler `dask`: address
    or Client).  on_start(todo, finished count) before training, on_result(result) after
    each cell is saved.  The outcome's results: every finished cell of the grid."""
    results_dir = absolute(results_dir)  # a working folder changed meanwhile changes nothing
    cells, todo, cached = plan(grid, results_dir, rerun, select)
    if todo:
        revision = revision or source_revision()
        if revision.dirty and not allow_dirty:
            raise ArcwiseError(f"the arcwise source differs from git {revision.commit[:12]} "
                               "(uncommitted changes): commit them, or pass --allow-dirty to "
                               "train cells marked dirty")
        made_folder(results_dir)
    if on_start:
        on_start(todo, sum(c.key in cached for c in cells))
    trained = []

    def keep(result: dict[str, Any]) -> None:
        save_result(results_dir, result)
        cached[result["key"]] = result
        trained.append(result["key"])
        if on_result:
            on_result(result)

    errors = []
    if todo:
        if dask is not None:
            errors = runners.run_dask(todo, revision, keep, dask)
        else:
            errors = runners.run_local(todo, revision, keep, workers)
    return Outcome([cached[c.key] for c in cells if c.key in cached], trained, errors)
