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
function use, which arcwise never makes): ``no_cfunc_wrapper``.  And a version compiled for
a call from compiled code has no CPython wrapper (the code that unboxes Python arguments,
calls the function and boxes its result), which only a call from Python uses: of the 92
versions a first perceptron parse compiled, 58 had one and 3 needed it, and building,
optimizing and compiling the wrappers to machine code was a fifth of the cold start
(issue #40).  A call from Python to such a version compiles it again, with its wrapper
(and so does one to such a version from numba's disk cache).

A function that does need a literal (`numba.literally`) names that parameter in
``literal``: ``@njit(cache=True, literal=("system",))``.  Under NUMBA_DISABLE_JIT the
function itself is returned, as numba's `njit` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from numba.core import config, sigutils, types
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher


class PlainArgumentsDispatcher(CPUDispatcher):
    """A numba dispatcher that compiles, for a call from compiled code, the version for the
    arguments' plain types (all but those of the parameters in `literal_parameters`)."""

    literal_parameters: frozenset[str] = frozenset()

    def get_call_template(self, args, kws):  # numba's hook for calls from compiled code
        names = list(self._compiler.pysig.parameters)
        args = tuple(a if i < len(names) and names[i] in self.literal_parameters
                     else types.unliteral(a) for i, a in enumerate(args))
        kws = {k: v if k in self.literal_parameters else types.unliteral(v)
               for k, v in kws.items()}
        chosen = self.targetoptions.get("no_cpython_wrapper")
        self.targetoptions["no_cpython_wrapper"] = True
        try:
            return super().get_call_template(args, kws)
        finally:
            if chosen is None:
                del self.targetoptions["no_cpython_wrapper"]
            else:
                self.targetoptions["no_cpython_wrapper"] = chosen

    def compile(self, sig):
        """The version for sig (compiled or loaded if missing); one that Python calls is
        compiled again if it has no CPython wrapper."""
        with global_compiler_lock:
            entry_point = super().compile(sig)
            if self.targetoptions.get("no_cpython_wrapper"):
                return entry_point
            args = tuple(sigutils.normalize_signature(sig)[0])
            if has_python_wrapper(self.overloads[args]):
                return entry_point
            del self.overloads[args]
            cache, self._cache = self._cache, NullCache()  # it holds the unwrapped one
            try:
                entry_point = super().compile(sig)
            finally:
                self._cache = cache
            self._cache.save_overload(sig, self.overloads[args])
            return entry_point

    def add_overload(self, cres):
        """numba's, except that a version without CPython wrapper stays out of the table
        that calls from Python look in (`compile` wraps it when one comes)."""
        if has_python_wrapper(cres):
            super().add_overload(cres)
        else:
            self.overloads[tuple(cres.signature.args)] = cres


def has_python_wrapper(cres) -> bool:
    """Whether a compiled version (a numba compile result) can be called from Python."""
    return cres.objectmode or cres.library.get_pointer_to_function(
        cres.fndesc.llvm_cpython_wrapper_name) != 0


def njit(function: Callable | None = None, *, cache: bool = False,
         literal: Iterable[str] = (), **options: Any) -> Any:
    """numba's `njit` (same options) compiling plain-typed versions only; `literal`: the
    parameters whose constant arguments keep their literal type."""
    literal = frozenset(literal)
    local_types = options.pop("locals", {})

    def compiled(function: Callable) -> Any:
        if config.DISABLE_JIT:
            return function
        dispatcher = PlainArgumentsDispatcher(
            py_func=function, locals=local_types,
            targetoptions={"nopython": True, "no_cfunc_wrapper": True, **options})
        if literal:
            dispatcher.literal_parameters = literal
        if cache:
            dispatcher.enable_caching()
        return dispatcher

    return compiled(function) if function is not None else compiled
