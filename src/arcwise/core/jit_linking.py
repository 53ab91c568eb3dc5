"""The machinery behind `arcwise.core.jit.njit` on the numba it was written for (see
that module): a dispatcher that compiles plain-typed versions, and compilers that keep a
version called only from compiled code as LLVM IR, optimized and compiled to machine code
once, in the version Python calls.  It subclasses numba internals, so `arcwise.core.jit`
imports it only on a tested numba (`TESTED_NUMBA` there).
"""

from __future__ import annotations

import llvmlite.binding as llvm
from numba import _dynfunc
from numba.core import sigutils, types
from numba.core.caching import NullCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NativeLowering
from numba.core.typing.npydecl import parse_dtype, parse_shape
from numba.extending import overload as numba_overload
from numba.np.arrayobj import _zero_fill_array_method as zero_fill
from numba.np.arrayobj import numpy_empty_nd


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

    def _compile_for_args(self, *args, **kws):
        """numba's (the version for a call from Python whose argument types no version
        matches), with the arguments of `literal_parameters` typed as literals at once:
        numba would first compile for their plain types, to learn from `literally` that it
        must not -- every call, since that version never exists (15 ms a call)."""
        names = list(self._compiler.pysig.parameters)
        args = tuple(types.literal(a) if i < len(names) and names[i] in self.literal_parameters
                     and not isinstance(a, types.Literal) else a for i, a in enumerate(args))
        return super()._compile_for_args(*args, **kws)

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


def linking_overload(function, **options):
    """numba's `overload` (same options), its implementations compiled as `linking_njit`'s."""
    return numba_overload(function, jit_options={"pipeline_class": LinkingCompiler},
                          **options)


def linking_njit(function, cache: bool, literal: frozenset[str], options: dict):
    """The `PlainArgumentsDispatcher` of `function` (numba's njit `options`)."""
    local_types = options.pop("locals", {})
    dispatcher = PlainArgumentsDispatcher(
        py_func=function, locals=local_types, pipeline_class=LinkingCompiler,
        targetoptions={"nopython": True, "no_cpython_wrapper": True, **options})
    if literal:
        dispatcher.literal_parameters = literal
    if cache:
        dispatcher.enable_caching()
    return dispatcher


def array_type(shape, dtype):
    """The numba type of an array of that shape and dtype (numba types), None if either is
    not one (for `arcwise.core.arrays`)."""
    if parse_dtype(dtype) is None or parse_shape(shape) is None:
        return None
    return types.Array(parse_dtype(dtype), parse_shape(shape), "C")


__all__ = ["LinkedLibrary", "LinkingCompiler", "PlainArgumentsDispatcher",
           "PythonCallableCompiler", "array_type", "has_python_wrapper", "linking_njit",
           "linking_overload", "numpy_empty_nd", "zero_fill"]
