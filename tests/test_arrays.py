"""`arcwise.core.arrays`: numpy's empty, zeros and full, compiled into the kernels that call
them (issue #40: the cold start), or numpy's own without the JIT."""

import numpy as np
import pytest
from numba.core import config

from arcwise.core import arrays
from arcwise.core.jit import njit


@njit
def allocated(n):
    return (arrays.zeros(n, dtype=np.int64), arrays.zeros((2, n), np.uint64),
            arrays.full(n, -1, dtype=np.int8), arrays.full((n, 2), True, dtype=np.bool_),
            arrays.empty(n, dtype=np.float64), arrays.empty((n, 3), dtype=np.int32))


def test_as_numpys():
    zeros, zeros2, minus, true, empty, empty2 = allocated(4)
    assert zeros.dtype == np.int64 and zeros.tolist() == [0] * 4
    assert zeros2.dtype == np.uint64 and zeros2.shape == (2, 4) and not zeros2.any()
    assert minus.dtype == np.int8 and minus.tolist() == [-1] * 4
    assert true.dtype == np.bool_ and true.shape == (4, 2) and true.all()
    assert empty.dtype == np.float64 and empty.shape == (4,)
    assert empty2.dtype == np.int32 and empty2.shape == (4, 3)
    assert all(a.flags.c_contiguous and a.flags.writeable for a in allocated(0))


def test_from_python_they_are_numpys():
    assert arrays.zeros((2, 3), np.int32).tolist() == np.zeros((2, 3), np.int32).tolist()
    assert arrays.full(2, 7, np.uint8).tolist() == [7, 7]
    assert arrays.empty(5, dtype=np.bool_).shape == (5,)


@pytest.mark.skipif(config.DISABLE_JIT, reason="needs the JIT")
def test_a_dtype_that_is_not_one_is_a_typing_error():
    from numba.core.errors import TypingError

    @njit
    def wrong(n):
        return arrays.zeros(n, dtype="no such dtype")

    with pytest.raises(TypingError):
        wrong(3)
