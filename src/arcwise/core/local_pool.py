"""Local worker processes that leave signals to the process that started them.

Ctrl-C reaches the terminal's whole process group.  Workers that reacted to it on their own
would race the main process: one that ended first left the main process a broken pool
(a traceback) instead of its own interrupt, and one still starting up printed a
KeyboardInterrupt traceback.  So the workers hold back SIGINT, SIGTERM and SIGHUP from the
moment they exist and ignore them once started, the main process alone reacts
(`arcwise.core.interrupts`), and it kills them when it leaves the pool's block by an exception,
an interrupt included.  A worker that dies (killed, out of memory) breaks the pool; `death`
says how, for the one line the user sees.

The pool knows its workers through the multiprocessing context it starts them with (its
documented ``mp_context``: `_Recorded`), not through its private ``_processes``.

A worker killed while it sends a result leaves half a message in the result pipe, and the
pool's manager thread, reading it, would wait for the rest forever (the main process keeps
the pipe's write end open), and the pool's shutdown with it: `_kill` closes that end.  No
public interface reaches it: `_kill` uses CPython's private attributes (3.9-3.13), and on a
Python without them only kills the workers (a result half sent may then hold the shutdown).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Any

from arcwise.core.device import current_device, use_device
from arcwise.core.interrupts import SIGNALS, blocked

PR_SET_PDEATHSIG = 1  # prctl(2)


@contextmanager
def local_pool(workers: int, initializer: Callable[..., Any] | None = None,
               initargs: tuple = (), **options: Any) -> Iterator[LocalPool]:
    """A pool of `workers` spawned processes, each on this process's device
    (`arcwise.core.device`) and running ``initializer(*initargs)`` first (`options` as
    ProcessPoolExecutor's); submit with `submitted`.  Leaving the block normally waits for
    the work; leaving it by an exception kills the workers at once."""
    with blocked():  # a signal inside multiprocessing's set-up would leave it half done
        pool = LocalPool(workers, initializer=_started,
                         initargs=(initializer, initargs, current_device()), **options)
    try:
        yield pool
    except BaseException:
        _kill(pool)
        raise
    finally:
        pool.shutdown(cancel_futures=True)


class _Recorded:
    """The spawn context, keeping each process it makes (ProcessPoolExecutor makes its
    workers, replacements included, by its ``mp_context``'s ``Process``).  A worker that
    ended with exit code 0 is forgotten when the next one is made (each holds a file
    descriptor until it is)."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()  # the pool's manager thread makes replacements
        self.processes: list[multiprocessing.process.BaseProcess] = []

    def __getattr__(self, name: str) -> Any:  # SimpleQueue, Queue, Lock, get_start_method...
        return getattr(self._context, name)

    def Process(self, *args: Any, **kwargs: Any) -> multiprocessing.process.BaseProcess:
        process = self._context.Process(*args, **kwargs)
        with self._lock:
            self.processes = [p for p in self.processes if p.exitcode != 0] + [process]
        return process


class LocalPool(ProcessPoolExecutor):
    """A ProcessPoolExecutor of spawned workers that knows them (`workers_started`)."""

    def __init__(self, workers: int, **options: Any):
        self._recorded = _Recorded()
        super().__init__(workers, mp_context=self._recorded, **options)

    def workers_started(self) -> list[multiprocessing.process.BaseProcess]:
        """The workers started, but those that ended with exit code 0 before the last."""
        with self._recorded._lock:
            return list(self._recorded.processes)


def _kill(pool: LocalPool) -> None:
    """Kill the pool's workers, and close this process's write end of the pipe they send
    results in: once they are dead, a result read halfway ends there (`EOFError`), the
    pool is broken and its shutdown returns, as it does for workers killed between two
    results.  That end belongs to the pool (``_result_queue``); this process never writes
    to it."""
    try:  # CPython 3.9-3.13's private attributes (see the module docstring)
        lock, writer = pool._shutdown_lock, pool._result_queue._writer
        pool._max_workers  # noqa: B018 -- read: its absence is the guard's
    except AttributeError:
        lock = writer = None
    # under the lock the manager thread holds while it replaces a worker (max_tasks_per_child),
    # with no room left for one: a replacement spawned later would be given the closed pipe
    # (a traceback in that thread), and none is half started now
    with lock or nullcontext():
        if writer is not None:
            pool._max_workers = 0
        for worker in pool.workers_started():
            if worker.pid is not None:  # started
                worker.kill()
        if writer is not None:
            writer.close()


def submitted(pool: ProcessPoolExecutor, function: Callable[..., Any],
              calls: Iterable[tuple]) -> list[Future]:
    """`pool.submit(function, *arguments)` for each tuple of arguments in `calls`.  The
    processes this starts begin with the signals blocked, until they ignore them; here a
    signal that comes meanwhile waits for the submissions to end."""
    with blocked():
        return [pool.submit(function, *arguments) for arguments in calls]


def dead_worker(pool: ProcessPoolExecutor, wait: float = 1.0
                ) -> multiprocessing.process.BaseProcess | None:
    """The worker whose end broke `pool`: one that ended with an exit code other than 0
    (None if none did, the others ending with 0 or not yet, or if `pool` is not a
    `LocalPool`).  Called where the pool is found broken, before the block is left (which
    kills the others); waits up to `wait` seconds for the exit status, which may come a
    moment after the pool saw the worker go."""
    if not isinstance(pool, LocalPool):
        return None
    processes = pool.workers_started()
    deadline = time.monotonic() + wait
    while not (ended := [p for p in processes if p.exitcode]):
        if time.monotonic() > deadline:
            return None
        time.sleep(0.01)
    return ended[0]


def death(pool: ProcessPoolExecutor, wait: float = 1.0) -> str:
    """How the worker whose end broke `pool` ended (`dead_worker`, `how_ended`)."""
    return how_ended(dead_worker(pool, wait))


def how_ended(worker: multiprocessing.process.BaseProcess | None) -> str:
    """How `worker` ended, for a message: " (killed by SIGKILL: out of memory?)",
    " (exit code 1)", or "" if it is not known (None, or not ended)."""
    code = worker.exitcode if worker is not None else None
    if not code:
        return ""
    if code > 0:
        return f" (exit code {code})"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f" (killed by {name}{': out of memory?' if -code == signal.SIGKILL else ''})"


def _started(initializer: Callable[..., Any] | None, initargs: tuple, device: str) -> None:
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    use_device(device)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # blocked by `submitted`
    _dying_with_parent()
    if initializer is not None:
        initializer(*initargs)


def _dying_with_parent() -> None:
    """On Linux, the worker is killed when the process that started it ends, however it
    ends (even killed itself, when it cannot kill its workers)."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # it ended before prctl
        os._exit(1)
