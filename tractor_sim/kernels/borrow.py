"""Arrays without an owner: borrowed ones and ones on the stack, so passing them costs nothing.

Numba counts references to an array's memory with atomic instructions: every
array argument of a call that LLVM does not inline costs an atomic
increment and decrement, and profiles of whole deals showed half the time
spent there.  An array whose ownership pointer (meminfo) is NULL, as numba
itself makes for ``carray``, skips both.  ``borrowed(a)`` is ``a`` without
its owner: valid only while ``a`` is alive, which holds for a function's
arguments during the call.  Never return a borrowed array or keep it past
the call that borrowed it.

``stack_array(n)`` is a work array of n int64 (n a constant) in the calling
function's stack frame: no allocation, no owner, so a function using only
these compiles without reference counting at all (see strategy.py).  Its
contents start undefined; it lives until the function returns (a helper
declared ``inline='always'`` puts it in its caller's frame), so never return
one from a function that is not inlined.
"""

import numpy as np
from llvmlite import ir
from numba.core import cgutils, config, types
from numba.extending import intrinsic, overload


def borrowed(a):
    """``a`` itself when run as Python (NUMBA_DISABLE_JIT)."""
    return a


@intrinsic
def _without_owner(typingctx, a):
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        context.populate_array(dst, data=src.data, shape=src.shape, strides=src.strides,
                               itemsize=src.itemsize, meminfo=None, parent=None)
        return dst._getvalue()

    return a(a), codegen


@overload(borrowed, jit_options={"cache": True})
def _borrowed_impl(a):
    if isinstance(a, types.Array):
        return lambda a: _without_owner(a)
    return None


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


# An intrinsic itself, not an overload: without reference counting numba refuses a function
# that returns an array it made, and the allocation must land in the caller's frame anyway.
stack_array = _new_array if config.DISABLE_JIT else _on_stack
