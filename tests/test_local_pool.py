"""The local process pool: workers leave signals to the main process, which kills them when
it leaves the pool by an exception."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arcwise.core.interrupts import SIGNALS
from arcwise.core.local_pool import local_pool, submitted


def test_workers_ignore_the_signals_the_main_process_handles():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        with local_pool(2) as pool:
            handlers = [f.result() for f in submitted(pool, signal.getsignal,
                                                      [(s,) for s in SIGNALS])]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, previous)
    assert handlers == [signal.SIG_IGN] * len(SIGNALS)


def test_leaving_the_pool_by_an_exception_kills_busy_workers_at_once():
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with local_pool(2) as pool:
            futures = submitted(pool, time.sleep, [(120,), (120,)])
            while not any(f.running() for f in futures):
                time.sleep(0.05)
            raise KeyboardInterrupt
    assert time.monotonic() - start < 30
    assert all(f.done() for f in futures)


def sends_half_a_result(marker: str) -> bytes:
    """In a worker: a result whose sending stops halfway, as when the worker is killed while
    it sends (`marker` is created once the first half is out)."""
    from multiprocessing import connection

    send = connection.Connection._send

    def half(self, buf, *args):
        send(self, buf[:len(buf) // 2])
        open(marker, "w").close()
        time.sleep(3600)

    connection.Connection._send = half
    return bytes(1000)


HALF_SENT = """
import os, sys, time
from arcwise.core.local_pool import local_pool, submitted
from tests.test_local_pool import sends_half_a_result

try:
    with local_pool(1) as pool:
        submitted(pool, sends_half_a_result, [(sys.argv[1],)])
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.01)
        while sys._current_frames()[pool._executor_manager_thread.ident].f_code.co_name \\
                != "_recv":  # the pool's manager thread reads the half result
            time.sleep(0.01)
        raise KeyboardInterrupt
except KeyboardInterrupt:
    print("stopped")
"""


def test_killing_a_worker_that_sends_a_result_does_not_hang_the_pool(tmp_path):
    """The main process leaves the pool (by Ctrl-C) while the pool's manager thread reads a
    result a worker has half sent: the worker is killed and the pool's shutdown returns
    (it used to wait forever for the rest of the message: `arcwise parse --workers 2`
    hung after Ctrl-C while writing)."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "src"), str(root)]))
    done = subprocess.run([sys.executable, "-c", HALF_SENT, tmp_path / "half-sent"],
                          env=env, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"stopped\n"), done.stderr.decode()[-2000:]



def test_death_says_how_a_killed_worker_ended_without_the_pools_private_attributes():
    """`death` knows the workers from the context that started them, not from CPython's
    private ``ProcessPoolExecutor._processes``: a pool without it still says how its worker
    ended."""
    from concurrent.futures.process import BrokenProcessPool

    from arcwise.core.local_pool import death

    with local_pool(1) as pool:
        [future] = submitted(pool, time.sleep, [(120,)])
        [worker] = pool.workers_started()
        del pool._processes  # the manager thread keeps its own reference
        os.kill(worker.pid, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=60)
        assert death(pool) == " (killed by SIGKILL: out of memory?)"


@pytest.mark.parametrize("owner, name", [("", "_shutdown_lock"), ("", "_max_workers"),
                                         ("_result_queue", "_writer")])
def test_leaving_a_pool_without_its_private_attributes_still_kills_the_workers(owner, name):
    """On a Python whose ProcessPoolExecutor lacks an attribute that `_kill` reads to close
    the result pipe, leaving the pool by an exception raises that exception (not an
    AttributeError), and the workers are killed at once all the same.  (The pool's own
    shutdown, which here reads the attribute, gets it back first: such a Python's would use
    its own names.)"""
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), local_pool(2) as pool:
        futures = submitted(pool, time.sleep, [(120,), (120,)])
        workers = pool.workers_started()
        assert len(workers) == 2
        target = getattr(pool, owner) if owner else pool
        saved = vars(target).pop(name)
        shutdown = pool.shutdown

        def given_back_first(*args, **kwargs):
            setattr(target, name, saved)
            return shutdown(*args, **kwargs)

        pool.shutdown = given_back_first
        raise KeyboardInterrupt
    assert time.monotonic() - start < 60
    assert [w.exitcode for w in workers] == [-signal.SIGKILL] * 2
    assert all(f.done() for f in futures)
