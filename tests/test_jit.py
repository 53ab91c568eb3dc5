"""arcwise's `njit` (arcwise.core.jit): one compiled version per plain signature, not one per
constant argument of a call from compiled code (issue #40: the cold start)."""

import numba
import pytest
from numba import literally
from numba.core import config

from arcwise.core.jit import njit

compiled_only = pytest.mark.skipif(config.DISABLE_JIT, reason="needs the JIT")


def test_without_jit_the_function_itself_is_returned():
    def f(x):
        return x + 1

    assert (njit(f) is f) == bool(config.DISABLE_JIT)
    assert (njit(cache=False)(f) is f) == bool(config.DISABLE_JIT)


@compiled_only
def test_constant_arguments_compile_one_version():
    @njit
    def combine(h, x):
        return h * 31 + x

    @njit
    def caller(a):
        return combine(combine(0, 2), a) + combine(combine(0, 3), a) + combine(7, a)

    assert caller(5) == (2 * 31 + 5) + (3 * 31 + 5) + (7 * 31 + 5)
    assert [str(s) for s in combine.signatures] == ["(int64, int64)"]


@compiled_only
def test_named_parameters_keep_their_literal():
    @njit(literal=("system",))
    def branch(system, x):
        literally(system)
        return x + 1 if system == 0 else x * 2

    @njit
    def caller(x):
        return branch(0, x) + branch(1, x)

    assert caller(5) == 6 + 10
    assert sorted(str(s) for s in branch.signatures) == [
        "(Literal[int](0), int64)", "(Literal[int](1), int64)"]


@compiled_only
def test_numbas_own_options_still_apply():
    @njit(nogil=True, locals={"y": numba.float64})
    def half(x):
        y = x / 2
        return y

    assert half(3) == 1.5
    assert half.targetoptions["nogil"]
