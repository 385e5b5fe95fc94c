"""Bit tricks on uint64 sets of card types (bit ``t``: type ``t``), for decks of at most
64 types."""
import numpy as np
from llvmlite import ir
from numba.core import config, types
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from uno_env.engine.jit import njit


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of a uint64 (one ``popcnt`` instruction)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return types.uint64(types.uint64), codegen


def _popcount_python(x):
    return np.uint64(bin(int(x)).count("1"))


def _trailing_zeros_python(x):
    return (int(x) & -int(x)).bit_length() - 1


#: the intrinsics in the kernels; their Python twins in plain Python
#: (``NUMBA_DISABLE_JIT=1``, where the kernels run as Python). ``trailing_zeros``: the
#: index of the lowest set bit.
popcount = _popcount_python if config.DISABLE_JIT else _popcount
trailing_zeros = _trailing_zeros_python if config.DISABLE_JIT else _trailing_zeros


@njit(inline="always")
def held_types(hand):
    """The types ``hand`` (int8[K], K <= 64) holds at least one card of, as bits. No
    branch: the compiler compares the counts a vector at a time."""
    bits = np.uint64(0)
    for t in range(hand.shape[0]):
        bits |= np.uint64(hand[t] > 0) << np.uint64(t)
    return bits

