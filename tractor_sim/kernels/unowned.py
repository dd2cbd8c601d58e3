"""Arrays without an owner: work arrays on the stack, and borrowed arrays.

Numba counts references to every array handed around, with calls to its
runtime (atomic ones when the array has an owner), even inside inlined
helpers: in whole deals those calls were the largest cost after the game
itself.  A function that allocates no array can be compiled without them
(numba's ``_nrt=False``: the deal kernel and the built-in strategies, see
``strategy._lean``).

``stack_array(n)`` is the work array such a function may use: n int64 (n a
constant) in the calling function's stack frame, no allocation and no
owner.  Its contents start undefined; it lives until the function returns
(a helper declared ``inline='always'`` puts it in its caller's frame), so
never return one from a function that is not inlined.

``borrowed(a)`` is ``a`` without its owner (ownership pointer NULL, as numba
makes for ``carray``): a function compiled with reference counting then
skips the atomic part for it.  The deal kernel passes borrowed arrays to
strategies compiled that way (plug-ins that allocate).  Valid only while
``a`` is alive; never return it or keep it past the call.

Both are numba intrinsics (without reference counting numba refuses a
function that returns an array it did not get as an argument, and a stack
array must land in the caller's frame), so from Python they work only
under NUMBA_DISABLE_JIT.
"""

import numpy as np
from llvmlite import ir
from numba.core import cgutils, config, types
from numba import njit
from numba.extending import intrinsic

ITEMSIZE = np.dtype(np.int64).itemsize  # bytes of one int64 cell


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
        context.populate_array(out, data=data, shape=[ir.Constant(intp, size)], strides=[ir.Constant(intp, ITEMSIZE)],
                               itemsize=ir.Constant(intp, ITEMSIZE), meminfo=None, parent=None)
        return out._getvalue()

    return arr(n), codegen


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


def _new_array(n):
    return np.empty(n, dtype=np.int64)


def _same(a):
    return a


stack_array = _new_array if config.DISABLE_JIT else _on_stack
borrowed = _same if config.DISABLE_JIT else _without_owner


def lean_jit(*signature, **options):
    """``njit(cache=True)`` without reference counting (numba's private ``_nrt=False``), for kernels
    that allocate nothing: the deal's drivers and its once-a-deal phases.  Passing arrays between
    such functions then costs no counting calls.  The one place the option is spelled for the
    kernels (strategy.py compiles lean strategies with it too)."""
    return njit(*signature, cache=True, _nrt=False, **options)
