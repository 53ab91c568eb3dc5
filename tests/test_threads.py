"""arcwise.core.threads.in_threads: a batch's items shared among numba's number of threads."""

import threading

import numba
import pytest

from arcwise.core.threads import in_threads


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("items", [0, 1, 2, 7])
def test_every_item_runs_once_in_contiguous_chunks(threads, items):
    chunks, callers = [], set()

    def run(first, last):
        chunks.append((first, last))
        callers.add(threading.get_ident())

    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        in_threads(run, items)
    finally:
        numba.set_num_threads(before)
    covered = [i for first, last in sorted(chunks) for i in range(first, last)]
    assert covered == list(range(items))
    # without the JIT the chunks are Python, which threads would not speed up: one
    assert len(chunks) == (1 if numba.config.DISABLE_JIT else max(min(threads, items), 1))
    assert threading.get_ident() in callers  # the caller takes a chunk itself


def test_an_exception_in_a_chunk_reaches_the_caller():
    def run(first, last):
        if last == 7:
            raise RuntimeError("the last chunk failed")

    with pytest.raises(RuntimeError, match="last chunk"):
        in_threads(run, 7)
