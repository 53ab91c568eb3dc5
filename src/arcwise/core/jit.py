"""`njit` as arcwise compiles with it: numba's, except that a call from compiled code with
a constant argument does not compile a version of the callee for that constant.

Numba types a constant argument (``combine(0, 2)``, ``stack_get(state, 0)``) as a literal
(``Literal[int](2)``), and a call to a compiled function with a literal argument compiles
a separate version of that function for the literal: one per constant at every call site.
In arcwise that was a third of all the versions a first parse compiled (77 of 225 for the
English pipeline; `combine` alone 52 times), seconds of a cold start (issue #40).
arcwise's kernels never need such versions (they dispatch on values, not on types), so
this `njit` compiles its functions for the arguments' plain types (``int64``); numba's own
overloads (``np.zeros(3)``) still see literals.

Nor does it build the C-callable wrapper numba makes for every function (for first-class
function use, which arcwise never makes).

A version compiled for a call from compiled code is LLVM IR only, which its callers link
in.  numba would give it a CPython wrapper (the code that unboxes Python arguments and
boxes the result), optimize it with everything it calls and compile that to machine code,
for a call from Python that never comes, then optimize and compile it again inside each
caller: at every level of the call tree.  Of the 92 versions a first perceptron parse
compiled, one is called from Python (the parse loop); that work on the other 91 was half
of the cold start (issue #40).  Here the code is optimized and compiled to machine code
once, in the version Python calls (`PythonCallableCompiler`), which numba's disk cache
keeps as machine code, and the others as LLVM IR.  A call from Python to a version
compiled for compiled code compiles it again, as numba would have.  Both kinds compile
under the flags of numba's own overloads, so that numba compiles each version of one
(``np.empty(n, np.int64)``) once, not once per set of flags.

`overload` is numba's, its implementations compiled as `njit`'s.

That machinery (`arcwise.core.jit_linking`) subclasses numba internals, written for
numba `TESTED_NUMBA`.  On another numba, or with ``ARCWISE_NUMBA_LINKING=0`` in the
environment (for tests and diagnosis; give it a numba cache of its own,
``NUMBA_CACHE_DIR``), `njit` and `overload` are numba's own (`LINKING` is False): the same
results, a slower cold start.

A function that does need a literal (`numba.literally`) names that parameter in
``literal``: ``@njit(cache=True, literal=("system",))``.  Under NUMBA_DISABLE_JIT the
function itself is returned, as numba's `njit` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import numba
from numba.core import config
from numba.extending import overload as numba_overload

TESTED_NUMBA = (0, 68)  # the numba (major, minor) whose internals arcwise.core.jit_linking uses


def linking_supported(version: str = numba.__version__) -> bool:
    """Whether `arcwise.core.jit_linking` is used with numba `version`: the tested one, and
    not switched off by ``ARCWISE_NUMBA_LINKING=0``."""
    major_minor = tuple(int(part) for part in version.split(".")[:2] if part.isdigit())
    return major_minor == TESTED_NUMBA and os.environ.get("ARCWISE_NUMBA_LINKING") != "0"


LINKING = linking_supported()
if LINKING:
    try:
        from arcwise.core.jit_linking import linking_njit, linking_overload
    except (ImportError, AttributeError):  # a patch release that moved an internal
        LINKING = False


def overload(function: Callable, **options: Any) -> Any:
    """numba's `overload` (same options), its implementations compiled as `njit`'s."""
    if LINKING:
        return linking_overload(function, **options)
    return numba_overload(function, **options)


def njit(function: Callable | None = None, *, cache: bool = False,
         literal: Iterable[str] = (), **options: Any) -> Any:
    """numba's `njit` (same options) compiling plain-typed versions only; `literal`: the
    parameters whose constant arguments keep their literal type."""
    literal = frozenset(literal)

    def compiled(function: Callable) -> Any:
        if config.DISABLE_JIT:
            return function
        if not LINKING:
            return numba.njit(function, cache=cache, **options)
        return linking_njit(function, cache, literal, dict(options))

    return compiled(function) if function is not None else compiled


__all__ = ["LINKING", "TESTED_NUMBA", "linking_supported", "njit", "overload"]
