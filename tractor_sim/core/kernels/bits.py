"""Bit scanning: the index of the lowest set bit, one machine instruction (tzcnt).

Lets a kernel visit only the set bits of a mask (the cards a play holds)
instead of scanning all 54 cards with a branch each.
"""

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, overload


def lowest_bit(m):
    """The index of the lowest set bit of m > 0 (as Python: NUMBA_DISABLE_JIT)."""
    m = int(m)
    return (m & -m).bit_length() - 1


@intrinsic
def _cttz(typingctx, m):
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))  # undefined for 0: callers ask m > 0

    return m(m), codegen


@overload(lowest_bit, jit_options={"cache": True})
def _lowest_bit_impl(m):
    if isinstance(m, types.Integer):
        return lambda m: _cttz(m)
    return None
