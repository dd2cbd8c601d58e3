"""Borrowed arrays: the same memory without ownership, so passing them costs nothing.

Numba counts references to an array's memory with atomic instructions: every
array argument of a call that LLVM does not inline costs an atomic
increment and decrement, and profiles of whole deals showed half the time
spent there.  An array whose ownership pointer (meminfo) is NULL, as numba
itself makes for ``carray``, skips both.  ``borrowed(a)`` is ``a`` without
its owner: valid only while ``a`` is alive, which holds for a function's
arguments during the call.  Never return a borrowed array or keep it past
the call that borrowed it.
"""

from numba.core import types
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
