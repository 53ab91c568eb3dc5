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

A function that does need a literal (`numba.literally`) names that parameter in
``literal``: ``@njit(cache=True, literal=("system",))``.  Under NUMBA_DISABLE_JIT the
function itself is returned, as numba's `njit` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import llvmlite.binding as llvm
from numba import _dynfunc
from numba.core import config, sigutils, types
from numba.core.caching import NullCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NativeLowering
from numba.extending import overload as numba_overload


class PlainArgumentsDispatcher(CPUDispatcher):
    """A numba dispatcher that compiles, for a call from compiled code, the version for the
    arguments' plain types (all but those of the parameters in `literal_parameters`), as
    LLVM IR for its callers (`LinkingCompiler`), and for a call from Python a version with
    its CPython wrapper and machine code (`PythonCallableCompiler`)."""

    literal_parameters: frozenset[str] = frozenset()
    typing_callers = 0  # compiled callers being typed: their calls compile for them

    def get_call_template(self, args, kws):  # numba's hook for calls from compiled code
        names = list(self._compiler.pysig.parameters)
        args = tuple(a if i < len(names) and names[i] in self.literal_parameters
                     else types.unliteral(a) for i, a in enumerate(args))
        kws = {k: v if k in self.literal_parameters else types.unliteral(v)
               for k, v in kws.items()}
        self.typing_callers += 1
        try:
            return super().get_call_template(args, kws)
        finally:
            self.typing_callers -= 1

    def compile(self, sig):
        """The version for sig, compiled or loaded if missing; for a call from Python, one
        with a CPython wrapper."""
        with global_compiler_lock:
            if self.typing_callers:
                return super().compile(sig)
            args = tuple(sigutils.normalize_signature(sig)[0])
            if args in self.overloads and not has_python_wrapper(self.overloads[args]):
                del self.overloads[args]
            linking, self._compiler.pipeline_class = self._compiler.pipeline_class, \
                PythonCallableCompiler
            try:
                entry_point = super().compile(sig)
                if not has_python_wrapper(self.overloads[args]):  # from the disk cache
                    del self.overloads[args]
                    cache, self._cache = self._cache, NullCache()
                    try:
                        entry_point = super().compile(sig)
                    finally:
                        self._cache = cache
                    self._cache.save_overload(sig, self.overloads[args])
            finally:
                self._compiler.pipeline_class = linking
            return entry_point

    def add_overload(self, cres):
        """numba's, except that a version without CPython wrapper stays out of the table
        that calls from Python look in."""
        if has_python_wrapper(cres):
            super().add_overload(cres)
        else:
            self.overloads[tuple(cres.signature.args)] = cres


def has_python_wrapper(cres) -> bool:
    """Whether a compiled version (a numba compile result) can be called from Python."""
    return cres.objectmode or cres.library.get_pointer_to_function(
        cres.fndesc.llvm_cpython_wrapper_name) != 0


class LinkedLibrary(JITCodeLibrary):
    """A numba code library whose LLVM IR is optimized and compiled to machine code only
    when its own machine code is asked for: a caller that links it (a `LinkedLibrary`
    too) optimizes and compiles it with its own code."""

    def add_linking_library(self, library):
        if isinstance(library, LinkedLibrary):
            self._linking_libraries.append(library)
        else:
            super().add_linking_library(library)

    def _get_module_for_linking(self):
        if self._finalized:
            return super()._get_module_for_linking()
        if self._shared_module is None:
            module = self._final_module.clone()
            for library in dict.fromkeys(self._linking_libraries):
                self._reload_init.update(library._reload_init)
                module.link_in(library._get_module_for_linking(), preserve=True)
            for function in module.functions:
                if not function.is_declaration and function.linkage == llvm.Linkage.external:
                    function.linkage = "linkonce_odr"  # as numba's: the callers' copies merge
            self._shared_module = module
        return self._shared_module

    def get_pointer_to_function(self, name):
        if not self._finalized and not self._defines(name):
            return 0
        return super().get_pointer_to_function(name)

    def _defines(self, name):
        try:
            return not self._final_module.get_function(name).is_declaration
        except NameError:
            return False

    @property
    def has_dynamic_globals(self):
        if self._finalized:
            return super().has_dynamic_globals
        return any(variable.name.startswith("numba.dynamic.globals")
                   for variable in self._get_module_for_linking().global_variables)

    def serialize_using_object_code(self):
        if self._finalized:
            return super().serialize_using_object_code()
        return self.name, "bitcode", self._get_module_for_linking().as_bitcode()


def _lower_into_linked_library(state) -> None:
    """Set a compilation's state to lower into a new `LinkedLibrary`, without C wrapper."""
    state.library = LinkedLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
    state.library.enable_object_caching()
    state.flags.no_cfunc_wrapper = True


@register_pass(mutates_CFG=True, analysis_only=False)
class LinkedLowering(NativeLowering):
    """numba's lowering into a `LinkedLibrary`, without CPython wrapper; the version is
    registered for its callers without being compiled to machine code."""

    _name = "arcwise_linked_lowering"

    def run_pass(self, state):
        _lower_into_linked_library(state)
        state.flags.no_compile = True
        super().run_pass(state)
        fndesc, environment = state.cr.fndesc, state.cr.env
        # what numba's get_executable makes of a version without wrapper, compiled or not
        key = _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                     f"linked {fndesc.qualname}", 0, environment,
                                     (state.library,))
        state.targetctx.insert_user_function(key, fndesc, [state.library])
        state.reload_init.extend(state.library._reload_init)
        state["cr"] = state.cr._replace(cfunc=key)
        return True


@register_pass(mutates_CFG=True, analysis_only=False)
class PythonCallableLowering(NativeLowering):
    """numba's lowering (a CPython wrapper, machine code) into a `LinkedLibrary`."""

    _name = "arcwise_python_callable_lowering"

    def run_pass(self, state):
        _lower_into_linked_library(state)
        state.flags.no_cpython_wrapper = False
        return super().run_pass(state)


class LinkingCompiler(CompilerBase):
    """numba's nopython pipeline, lowering with `LinkedLowering`."""

    lowering = LinkedLowering

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.passes = [(self.lowering if kind is NativeLowering else kind, what)
                           for kind, what in pipeline.passes]
        pipeline.finalize()
        return [pipeline]


class PythonCallableCompiler(LinkingCompiler):
    """numba's nopython pipeline, lowering with `PythonCallableLowering`."""

    lowering = PythonCallableLowering


def overload(function: Callable, **options: Any) -> Any:
    """numba's `overload` (same options), its implementations compiled as `njit`'s."""
    return numba_overload(function, jit_options={"pipeline_class": LinkingCompiler},
                          **options)


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
            py_func=function, locals=local_types, pipeline_class=LinkingCompiler,
            targetoptions={"nopython": True, "no_cpython_wrapper": True, **options})
        if literal:
            dispatcher.literal_parameters = literal
        if cache:
            dispatcher.enable_caching()
        return dispatcher

    return compiled(function) if function is not None else compiled
