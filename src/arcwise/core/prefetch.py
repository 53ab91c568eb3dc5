"""`prefetch`: ask the CPU to start loading an array entry's cache line, from compiled code.

A loop that reads rows of a big table at hashed (random) places waits on each row in
turn when it does much work per row (the labeler's sum over a row's labels,
`arcwise.learn.perceptron.sum_rows`): the processor runs only a few rows ahead.
Prefetching every row first, then summing, has their loads under way together.  A hint
only: it changes no result.  In Python and under NUMBA_DISABLE_JIT it does nothing.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from arcwise.core.jit import overload


def prefetch(table, row, column):
    """Start loading the cache line of table[row, column] (a 2-d array) for a read."""


@intrinsic
def _prefetch(typingctx, table, row, column):
    if not (isinstance(table, types.Array) and table.ndim == 2):
        return None

    def codegen(context, builder, signature, args):
        array_type, _, _ = signature.args
        array = context.make_array(array_type)(context, builder, args[0])
        at = cgutils.get_item_pointer(context, builder, array_type, array, args[1:],
                                      wraparound=False)
        i32 = ir.IntType(32)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [
                ir.IntType(8).as_pointer(), i32, i32, i32]))
        # read (0), keep in every cache level (3), data (1)
        builder.call(function, [builder.bitcast(at, ir.IntType(8).as_pointer()),
                                ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(table, types.intp, types.intp), codegen


@overload(prefetch)
def _prefetch_compiled(table, row, column):
    return lambda table, row, column: _prefetch(table, row, column)
