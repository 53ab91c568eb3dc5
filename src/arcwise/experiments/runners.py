"""Where the cells run: a local process pool (default) or a Dask distributed cluster.

Both hand each cell to `arcwise.experiments.cells.run_cell` in another
process and call `on_result` in this process as each cell finishes, so the
caller saves it at once (a killed run keeps every finished cell).

- `run_local`: `arcwise.core.local_pool` (spawned workers that leave Ctrl-C to this
  process) with one cell per worker process (memory goes back between cells).
- `run_dask`: the cells as tasks of a Dask distributed scheduler, given by
  its address (``tcp://host:8786``) or as a `dask.distributed.Client`;
  workers need arcwise installed and the treebank files at the same paths.
  A worker process runs one cell per thread: start workers with
  ``--nthreads 1`` for one cell per process at a time.
"""

from __future__ import annotations

from arcwise.core.extras import required

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from arcwise.core.errors import ArcwiseError
from arcwise.core.local_pool import local_pool, submitted
from arcwise.experiments.cells import Cell, Revision, run_cell

OnResult = Callable[[dict[str, Any]], Any]


class CellError(NamedTuple):
    """A cell that failed: one line, and whether the user's data or options caused it."""

    message: str
    user: bool  # an ArcwiseError (a bad treebank, a bad option), not a crash

    def __str__(self) -> str:
        return self.message


def run_local(cells: Sequence[Cell], revision: Revision, on_result: OnResult,
              workers: int = 2) -> list[CellError]:
    """Run the cells on `workers` local processes; the errors, one line per failed cell."""
    from concurrent.futures import as_completed

    if not cells:
        return []
    with local_pool(min(workers, len(cells)), max_tasks_per_child=1) as pool:
        futures = dict(zip(submitted(pool, run_cell, [(cell, revision) for cell in cells]),
                           cells))
        return _collect(as_completed(futures), futures, on_result)


def run_dask(cells: Sequence[Cell], revision: Revision, on_result: OnResult,
             scheduler: Any) -> list[CellError]:
    """Run the cells on a Dask cluster (`scheduler`: an address or a Client); the errors."""
    required("distributed", "experiments", "arcwise experiment --scheduler")
    from dask.distributed import Client, as_completed

    if not cells:
        return []
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(run_cell, cell, revision, pure=False,
                                 key=f"arcwise-cell-{cell.key}"): cell for cell in cells}
        try:
            return _collect(as_completed(futures), futures, on_result)
        finally:
            client.cancel(list(futures))
    finally:
        if client is not scheduler:
            client.close()


def _collect(finished: Iterable, futures: dict, on_result: OnResult) -> list[CellError]:
    errors = []
    for future in finished:
        cell = futures[future]
        try:
            result = future.result()
        except Exception as error:  # a failed cell must not stop the others
            user = isinstance(error, ArcwiseError)
            what = str(error) if user else f"{type(error).__name__}: {error}"
            errors.append(CellError(
                f"{cell.treebank} {cell.config.name} seed {cell.seed}: {what}", user))
            continue
        on_result(result)
    return errors
