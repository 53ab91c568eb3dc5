"""Where the cells run: a local process pool (default) or a Dask distributed cluster.

Both hand each cell to `arcwise.experiments.cells.run_cell` in another
process and call `on_result` in this process as each cell finishes, so the
caller saves it at once (a killed run keeps every finished cell).

- `run_local`: `arcwise.core.local_pool` (spawned workers that leave Ctrl-C to this
  process) with one cell per worker process (memory goes back between cells).  A worker
  that dies (killed, out of memory) breaks the pool: the cells finished are kept, the
  others are stopped, and `WorkerDied` says how the worker ended.
- `run_dask`: the cells as tasks of a Dask distributed scheduler, given by
  its address (``tcp://host:8786``) or as a `dask.distributed.Client`;
  workers need arcwise installed and the treebank files at the same paths.
  A worker process runs one cell per thread: start workers with
  ``--nthreads 1`` for one cell per process at a time.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from arcwise.core.device import current_device
from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.core.local_pool import dead_worker, how_ended, local_pool, submitted
from arcwise.experiments.cells import Cell, Revision, run_cell

OnResult = Callable[[dict[str, Any]], Any]


class CellError(NamedTuple):
    """A cell that failed: one line, and whether the user's data or options caused it."""

    message: str
    user: bool  # an ArcwiseError (a bad treebank, a bad option), not a crash

    def __str__(self) -> str:
        return self.message


class WorkerDied(ArcwiseError):
    """A local worker process died (killed, out of memory): the cells it and the other
    workers had not finished are not trained (those finished are kept)."""


def run_local(cells: Sequence[Cell], revision: Revision, on_result: OnResult,
              workers: int = 2) -> list[CellError]:
    """Run the cells on `workers` local processes; the errors, one line per failed cell.
    `WorkerDied` when a worker dies (after on_result of every cell finished)."""
    from concurrent.futures import BrokenExecutor, as_completed

    if not cells:
        return []
    # slot k: the pid of the worker that started cell k (shared memory: no lock, no message
    # that a killed worker could leave half written)
    slots = multiprocessing.get_context("spawn").RawArray("q", len(cells))
    with local_pool(min(workers, len(cells)), initializer=_keep_slots, initargs=(slots,),
                    max_tasks_per_child=1) as pool:
        futures = dict(zip(submitted(pool, _run_cell_at, [(k, cell, revision) for k, cell
                                                          in enumerate(cells)]), cells))
        try:
            return _collect(as_completed(futures), futures, on_result)
        except BrokenExecutor:  # raised in the block: the other workers are killed at once
            worker = dead_worker(pool)
            failed = [k for k, f in enumerate(futures)
                      if not f.done() or f.cancelled() or f.exception() is not None]
            training = [cells[k] for k in failed if worker is not None and slots[k] == worker.pid]
            who = (f"the worker process training {training[0].treebank} "
                   f"{training[0].config.name} seed {training[0].seed}" if training
                   else "a worker process")
            raise WorkerDied(f"{who} died{how_ended(worker)}; {len(failed)} of {len(cells)} "
                             "cells not trained") from None


_slots: Any = None  # in a worker: run_local's slots


def _keep_slots(slots: Any) -> None:
    global _slots
    _slots = slots


def _run_cell_at(k: int, cell: Cell, revision: Revision) -> dict[str, Any]:
    """In a worker: `run_cell` of cell k of `run_local`, this process's pid in its slot first."""
    _slots[k] = os.getpid()
    return run_cell(cell, revision)


def run_dask(cells: Sequence[Cell], revision: Revision, on_result: OnResult,
             scheduler: Any) -> list[CellError]:
    """Run the cells on a Dask cluster (`scheduler`: an address or a Client); the errors."""
    required("distributed", "experiments", "arcwise experiment --scheduler")
    from dask.distributed import Client, as_completed

    if not cells:
        return []
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(run_cell, cell, revision, current_device(), pure=False,
                                 key=f"arcwise-cell-{cell.key}"): cell for cell in cells}
        try:
            return _collect(as_completed(futures), futures, on_result)
        finally:
            client.cancel(list(futures))
    finally:
        if client is not scheduler:
            client.close()


def _collect(finished: Iterable, futures: dict, on_result: OnResult) -> list[CellError]:
    """The errors of the cells, on_result of each result as it comes; a broken local pool
    (`BrokenExecutor`, every cell not finished failed with it at once) raises once the
    results that came before it are kept."""
    from concurrent.futures import BrokenExecutor

    errors: list[CellError] = []
    broken = None
    for future in finished:
        cell = futures[future]
        try:
            result = future.result()
        except BrokenExecutor as error:
            broken = error
            continue
        except Exception as error:  # a failed cell must not stop the others
            user = isinstance(error, ArcwiseError)
            what = str(error) if user else f"{type(error).__name__}: {error}"
            errors.append(CellError(
                f"{cell.treebank} {cell.config.name} seed {cell.seed}: {what}", user))
            continue
        on_result(result)
    if broken is not None:
        raise broken
    return errors
