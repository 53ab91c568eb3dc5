"""arcwise's `njit` (arcwise.core.jit): one compiled version per plain signature, not one per
constant argument of a call from compiled code (issue #40: the cold start)."""

import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest
from numba import literally
from numba.core import config

import arcwise
from arcwise.core.jit import LINKING, linking_supported, njit

compiled_only = pytest.mark.skipif(config.DISABLE_JIT, reason="needs the JIT")
linking_only = pytest.mark.skipif(config.DISABLE_JIT or not LINKING,
                                  reason="needs the JIT and arcwise.core.jit_linking")


def test_without_jit_the_function_itself_is_returned():
    def f(x):
        return x + 1

    assert (njit(f) is f) == bool(config.DISABLE_JIT)
    assert (njit(cache=False)(f) is f) == bool(config.DISABLE_JIT)


@linking_only
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


@linking_only
def test_a_version_compiled_for_compiled_code_has_no_python_wrapper_until_python_calls_it():
    from arcwise.core.jit_linking import has_python_wrapper

    @njit
    def twice(x):
        return 2 * x

    @njit
    def caller(x):
        return twice(x) + 1

    assert caller(4) == 9
    (unwrapped,) = twice.overloads.values()
    assert not has_python_wrapper(unwrapped)
    assert not unwrapped.library._finalized  # no machine code of its own: caller's has it
    assert twice(4) == 8  # compiled again, with the wrapper
    (wrapped,) = twice.overloads.values()
    assert has_python_wrapper(wrapped) and twice(5) == 10
    assert caller(5) == 11 and len(caller.overloads) == 1


CACHED_KERNELS = '''
from arcwise.core.jit import njit


@njit(cache=True)
def twice(x):
    return 2 * x


@njit(cache=True)
def caller(x):
    return twice(x) + 1


@njit(cache=True)
def other_caller(x):
    return twice(x) - 1
'''

FROM_PYTHON = '''
import sys
import kernels
from arcwise.core.jit_linking import has_python_wrapper

calls = sys.argv[1:]
results = [getattr(kernels, name)(4) for name in calls]
(twice,) = kernels.twice.overloads.values()
print(results, has_python_wrapper(twice), dict(kernels.twice.stats.cache_hits),
      dict(kernels.twice.stats.cache_misses))
'''


@linking_only
def test_a_version_without_python_wrapper_from_the_disk_cache_is_compiled_again(tmp_path):
    """`twice`, compiled for `caller` and cached without wrapper (as LLVM IR): a fresh
    process links it from the cache into another caller; one that calls it from Python
    loads it, finds it unwrapped and compiles it again with its wrapper, which it caches
    for the next process."""
    (tmp_path / "kernels.py").write_text(CACHED_KERNELS)
    src = Path(arcwise.__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(src)])}

    def run(*calls: str) -> str:
        return subprocess.run([sys.executable, "-c", FROM_PYTHON, *calls], env=env,
                              check=True, capture_output=True, text=True).stdout.strip()

    assert run("caller") == "[9] False {} {(int64,): 1}"
    assert run("other_caller") == "[7] False {(int64,): 1} {}"
    assert run("twice", "caller") == "[8, 9] True {(int64,): 1} {(int64,): 1}"
    assert run("twice") == "[8] True {(int64,): 1} {}"


def test_linking_is_for_the_tested_numba_only(monkeypatch):
    monkeypatch.delenv("ARCWISE_NUMBA_LINKING", raising=False)
    assert linking_supported("0.68.1") and linking_supported("0.68.0rc1")
    assert not linking_supported("0.69.0") and not linking_supported("0.61.2")
    monkeypatch.setenv("ARCWISE_NUMBA_LINKING", "0")
    assert not linking_supported("0.68.1")


PLAIN_NUMBA = '''
import numba
import numpy as np
from arcwise import systems
from arcwise.core import arrays, jit

@jit.njit(cache=True)
def made(n):
    return arrays.empty(n, np.int64).size + arrays.zeros(n, np.int64).sum() \\
        + arrays.full(n, 2, np.int64).sum()

ts = systems.get("arc-eager")
gold = [-1, 2, 0, 2, 3]  # heads of words 0..4
c, steps = ts.initial(4), 0
while not ts.is_terminal(c):
    assert min(ts.costs(c, gold).values()) == 0
    c, steps = ts.apply(c, ts.static_oracle(c, gold)), steps + 1
print(jit.LINKING, type(made).__name__, made(3), steps, ts.heads(c) == gold)
'''


@compiled_only
def test_on_another_numba_the_kernels_are_numbas_own_with_the_same_results(tmp_path):
    """ARCWISE_NUMBA_LINKING=0 stands for a numba arcwise.core.jit_linking was not written
    for: numba's own njit and overload compile the same kernels to the same results."""
    src = Path(arcwise.__file__).resolve().parents[1]
    (tmp_path / "kernels.py").write_text(PLAIN_NUMBA)  # a file: numba caches its kernels

    def run(linking: str) -> str:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / f"cache-{linking}"),
               "ARCWISE_NUMBA_LINKING": linking, "PYTHONPATH": str(src)}
        return subprocess.run([sys.executable, tmp_path / "kernels.py"], env=env, check=True,
                              capture_output=True, text=True).stdout.split()

    plain, linked = run("0"), run("1")
    assert plain[:2] == ["False", "CPUDispatcher"]
    assert plain[2:] == linked[2:] == ["9", "5", "True"]


@linking_only
def test_a_literal_parameter_called_from_python_compiles_each_literal_once(monkeypatch):
    """numba would compile for the plain type first, at every call, only to learn from
    `literally` that it must not (15 ms a parse call, issue #44's tiny files)."""
    import numba.core.compiler as compiler

    @njit(literal=("system",))
    def branch(system, x):
        literally(system)
        return x + 1 if system == 0 else x * 2

    assert branch(0, 5) == 6
    compiled = []
    real = compiler.compile_extra
    monkeypatch.setattr(compiler, "compile_extra",
                        lambda *a, **k: compiled.append(a) or real(*a, **k))
    assert [branch(0, 6), branch(1, 6), branch(1, 7), branch(0, 7)] == [7, 12, 14, 8]
    assert len(compiled) == 1  # the version for 1, once


def test_the_parse_loop_takes_its_system_as_a_literal():
    from arcwise.transition.kernels import parse_range

    assert config.DISABLE_JIT or not LINKING or "system_id" in parse_range.literal_parameters
