"""Work arrays on the stack, so that kernels and strategies compile without reference counting.

Numba counts references to every array handed around, with calls to its
runtime (atomic ones when the array has an owner), even inside inlined
helpers: in whole deals those calls were the largest cost after the game
itself.  A function that allocates no array can be compiled without them
(numba's ``_nrt=False``: the deal kernel, and every strategy that allows it,
see ``strategy._lean``).  ``stack_array(n)`` is the work array such a
function may use: n int64 (n a constant) in the calling function's stack
frame, no allocation and no owner.  Its contents start undefined; it lives
until the function returns (a helper declared ``inline='always'`` puts it in
its caller's frame), so never return one from a function that is not inlined.
"""

import numpy as np
from llvmlite import ir
from numba.core import cgutils, config, types
from numba.extending import intrinsic


@intrinsic
def _on_stack(typingctx, n):
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value
    arr = types.Array(types.int64, 1, "C")

    def codegen(context, builder, sig, args):
        data = cgutils.alloca_once(builder, ir.IntType(64), size=size)  # in the entry block: one per call site
        out = context.make_array(arr)(context, builder)
        intp = context.get_value_type(types.intp)
        context.populate_array(out, data=data, shape=[ir.Constant(intp, size)], strides=[ir.Constant(intp, 8)],
                               itemsize=ir.Constant(intp, 8), meminfo=None, parent=None)
        return out._getvalue()

    return arr(n), codegen


def _new_array(n):
    """stack_array as Python (NUMBA_DISABLE_JIT)."""
    return np.empty(n, dtype=np.int64)


# The intrinsic itself, not an overload: without reference counting numba refuses a function that
# returns an array it made, and the array must land in the caller's frame anyway.
stack_array = _new_array if config.DISABLE_JIT else _on_stack
