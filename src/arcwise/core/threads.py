"""A batch shared among threads, each running a compiled kernel that releases the GIL.

The batch kernels (parsing, tagging) once shared their sentences among numba's threads
with ``prange`` (``parallel=True``), which roughly tripled their compile time (numba's
parallel passes, and the loop body compiled and optimized a second time as a gufunc):
seconds of every cold start.  A serial ``nogil=True`` kernel over a range of sentences,
run here on contiguous chunks in Python threads, parses as many sentences at once.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numba
from numba.core import config


def in_threads(run: Callable[[int, int], object], items: int) -> None:
    """run(first, last) on contiguous chunks of range(items), one per thread.

    As many threads as numba's setting for the calling thread (`numba.set_num_threads`;
    every core by default; one without the JIT), the calling thread taking the first
    chunk; the chunks run at once only where `run` releases the GIL (a ``nogil=True``
    kernel).  An exception in a chunk is raised here, after every chunk ended.
    """
    # without the JIT, `run` is Python, which threads would not speed up (the GIL) and a
    # signal could not stop but in the calling thread
    threads = 1 if config.DISABLE_JIT else max(min(numba.get_num_threads(), items), 1)
    bounds = [items * t // threads for t in range(threads + 1)]
    if threads == 1:
        run(0, items)
        return
    with ThreadPoolExecutor(threads - 1) as pool:
        others = [pool.submit(run, a, b) for a, b in pairwise(bounds[1:])]
        run(bounds[0], bounds[1])
        for chunk in others:
            chunk.result()
