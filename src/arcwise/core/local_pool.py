"""Local worker processes that leave signals to the process that started them.

Ctrl-C reaches the terminal's whole process group.  Workers that reacted to it on their own
would race the main process: one that ended first left the main process a broken pool
(a traceback) instead of its own interrupt, and one still starting up printed a
KeyboardInterrupt traceback.  So the workers hold back SIGINT, SIGTERM and SIGHUP from the
moment they exist and ignore them once started, the main process alone reacts
(`arcwise.core.interrupts`), and it kills them when it leaves the pool's block by an exception,
an interrupt included.  A worker that dies (killed, out of memory) breaks the pool; `death`
says how, for the one line the user sees.

A worker killed while it sends a result leaves half a message in the result pipe, and the
pool's manager thread, reading it, would wait for the rest forever (the main process keeps
the pipe's write end open), and the pool's shutdown with it: `_kill` closes that end.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from arcwise.core.device import current_device, use_device
from arcwise.core.interrupts import SIGNALS, blocked

PR_SET_PDEATHSIG = 1  # prctl(2)


@contextmanager
def local_pool(workers: int, initializer: Callable[..., Any] | None = None,
               initargs: tuple = (), **options: Any) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` spawned processes, each on this process's device
    (`arcwise.core.device`) and running ``initializer(*initargs)`` first (`options` as
    ProcessPoolExecutor's); submit with `submitted`.  Leaving the block normally waits for
    the work; leaving it by an exception kills the workers at once."""
    before = set(multiprocessing.active_children())
    with blocked():  # a signal inside multiprocessing's set-up would leave it half done
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_started,
                                   initargs=(initializer, initargs, current_device()),
                                   **options)
    try:
        yield pool
    except BaseException:
        _kill(pool, set(multiprocessing.active_children()) - before)
        raise
    finally:
        pool.shutdown(cancel_futures=True)


def _kill(pool: ProcessPoolExecutor, workers: Iterable[multiprocessing.process.BaseProcess]
          ) -> None:
    """Kill the pool's workers, and close this process's write end of the pipe they send
    results in: once they are dead, a result read halfway ends there (`EOFError`), the
    pool is broken and its shutdown returns, as it does for workers killed between two
    results.  That end belongs to the pool (``_result_queue``); this process never writes
    to it."""
    for worker in workers:
        worker.kill()
    results = getattr(pool, "_result_queue", None)  # CPython 3.11-3.13 (read)
    if results is None:
        return
    # under the lock the manager thread holds while it replaces a worker (max_tasks_per_child),
    # and with no room left for one: a replacement spawned now would be given the closed
    # pipe (a traceback in that thread)
    with pool._shutdown_lock:  # CPython 3.9-3.13
        pool._max_workers = 0
        results._writer.close()


def submitted(pool: ProcessPoolExecutor, function: Callable[..., Any],
              calls: Iterable[tuple]) -> list[Future]:
    """`pool.submit(function, *arguments)` for each tuple of arguments in `calls`.  The
    processes this starts begin with the signals blocked, until they ignore them; here a
    signal that comes meanwhile waits for the submissions to end."""
    with blocked():
        return [pool.submit(function, *arguments) for arguments in calls]


def death(pool: ProcessPoolExecutor, wait: float = 1.0) -> str:
    """How the worker whose end broke `pool` ended, for a message: " (killed by SIGKILL:
    out of memory?)", " (exit code 1)", or "" if no worker ended so (the others end with
    code 0, or not yet).  Called where the pool is found broken, before the block is
    left (which kills the others); waits up to `wait` seconds for the exit status, which
    may come a moment after the pool saw the worker go."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # pid -> Process
    deadline = time.monotonic() + wait
    while not (codes := [p.exitcode for p in processes if p.exitcode]):
        if time.monotonic() > deadline:
            return ""
        time.sleep(0.01)
    code = codes[0]
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
