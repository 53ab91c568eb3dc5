"""Local worker processes that leave signals to the process that started them.

Ctrl-C reaches the terminal's whole process group.  Workers that reacted to it on their own
would race the main process: one that ended first left the main process a broken pool
(a traceback) instead of its own interrupt, and one still starting up printed a
KeyboardInterrupt traceback.  So the workers ignore SIGINT, SIGTERM and SIGHUP from the
moment they exist, the main process alone reacts (`arcwise.interrupts`), and it kills
them when it leaves the pool's block by an exception, an interrupt included.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from arcwise.interrupts import SIGNALS, ignored


@contextmanager
def local_pool(workers: int, initializer: Callable[..., Any] | None = None,
               initargs: tuple = (), **options: Any) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` spawned processes, each running initializer(*initargs) first
    (`options` as ProcessPoolExecutor's); submit with `submitted`.  Leaving the block
    normally waits for the work; leaving it by an exception kills the workers at once."""
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_started, initargs=(initializer, initargs),
                               **options)
    try:
        yield pool
    except BaseException:
        for worker in set(multiprocessing.active_children()) - before:
            worker.kill()
        raise
    finally:
        pool.shutdown(cancel_futures=True)


def submitted(pool: ProcessPoolExecutor, function: Callable[..., Any],
              calls: Iterable[tuple]) -> list[Future]:
    """`pool.submit(function, *arguments)` for each tuple of arguments in `calls`.  The
    processes this starts inherit the signals ignored (a signal in those few milliseconds
    is lost, which is better than a worker half started)."""
    with ignored():  # in the main thread; workers started elsewhere ignore them once started
        return [pool.submit(function, *arguments) for arguments in calls]


def _started(initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)
