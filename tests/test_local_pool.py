"""The local process pool: workers leave signals to the main process, which kills them when
it leaves the pool by an exception."""

import signal
import time

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
