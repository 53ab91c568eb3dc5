"""numpy's `empty`, `zeros` and `full` for the kernels of a first parse, compiled as
`arcwise.core.jit.njit` compiles: into the kernels that call them.

numba compiles np.empty for each shape and dtype as a function of its own, with its own
optimization and machine code, and np.zeros as three (np.empty, a fill and np.zeros
itself): 13 of the 80 functions a first perceptron parse compiled, 25 of a pipeline's 128
(issue #40: the cold start).  These compile once per shape and dtype, without machine
code of their own.  In Python, and under NUMBA_DISABLE_JIT, they are numpy's; on a numba
`arcwise.core.jit` does not link on (``LINKING`` False), numba's compiled numpy.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import LINKING, overload


def empty(shape, dtype):
    """np.empty(shape, dtype=dtype)."""
    return np.empty(shape, dtype=dtype)


def zeros(shape, dtype):
    """np.zeros(shape, dtype=dtype)."""
    return np.zeros(shape, dtype=dtype)


def full(shape, value, dtype):
    """np.full(shape, value, dtype=dtype)."""
    return np.full(shape, value, dtype=dtype)


if LINKING:
    from arcwise.core.jit_linking import array_type, numpy_empty_nd, zero_fill

    @overload(empty)
    def _empty(shape, dtype):
        array = array_type(shape, dtype)
        if array is None:
            return None
        return lambda shape, dtype: numpy_empty_nd(shape, dtype, array)

    @overload(zeros)
    def _zeros(shape, dtype):
        array = array_type(shape, dtype)
        if array is None:
            return None

        def compiled(shape, dtype):
            out = numpy_empty_nd(shape, dtype, array)
            zero_fill(out)  # a memset
            return out
        return compiled

    @overload(full)
    def _full(shape, value, dtype):
        array = array_type(shape, dtype)
        if array is None:
            return None

        def compiled(shape, value, dtype):
            out = numpy_empty_nd(shape, dtype, array)
            out[...] = value
            return out
        return compiled
else:
    @overload(empty)
    def _empty(shape, dtype):
        return lambda shape, dtype: np.empty(shape, dtype)

    @overload(zeros)
    def _zeros(shape, dtype):
        return lambda shape, dtype: np.zeros(shape, dtype)

    @overload(full)
    def _full(shape, value, dtype):
        return lambda shape, value, dtype: np.full(shape, value, dtype)
