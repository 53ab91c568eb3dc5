"""`arcwise.core.prefetch`: a cache hint from compiled code that changes nothing."""

import numpy as np
import pytest

from arcwise.core.jit import njit
from arcwise.core.prefetch import prefetch


@njit
def prefetched_sum(table, rows):
    for r in rows:
        prefetch(table, r, 0)
        prefetch(table, r, table.shape[1] - 1)
    total = np.float64(0.0)  # not 0.0: numpy adds float32 to a float in float32
    for r in rows:
        for c in range(table.shape[1]):
            total += table[r, c]
    return total


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32, np.float64])
def test_prefetching_rows_changes_nothing(dtype):
    table = np.arange(4000 * 7).reshape(4000, 7).astype(dtype)
    before = table.copy()
    rows = np.random.default_rng(0).integers(0, 4000, size=300)
    assert prefetched_sum(table, rows) == table[rows].astype(np.float64).sum()
    assert table.tobytes() == before.tobytes()


def test_in_python_it_does_nothing():
    assert prefetch(np.zeros((2, 2)), 1, 1) is None
