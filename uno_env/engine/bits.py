"""Bit tricks on uint64 sets of card types (bit ``t``: type ``t``): a hand's held types
for decks of at most 64 types (``held_types``), or 64 at a time (``held_range``)."""
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


@intrinsic
def load_u64(typingctx, row, i):
    """The 8 bytes ``row[i:i + 8]`` of a contiguous int8 row as one uint64 (an unaligned
    load; the caller keeps ``i + 8 <= len(row)``)."""
    if not (isinstance(row, types.Array) and row.ndim == 1 and row.layout == "C"
            and row.dtype == types.int8 and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        word = builder.bitcast(builder.gep(data, [index]), ir.IntType(64).as_pointer())
        return builder.load(word, align=1)

    return types.uint64(row, i), codegen


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
def _held_bytes(word):
    """Bit ``j`` set iff byte ``j`` of ``word`` is nonzero, for bytes of 0 .. 127: the
    byte plus 0x7f sets its high bit without a carry, and the multiply gathers the eight
    high bits in order into the top byte."""
    high = (word + np.uint64(0x7F7F7F7F7F7F7F7F)) & np.uint64(0x8080808080808080)
    return ((high >> np.uint64(7)) * np.uint64(0x0102040810204080)) >> np.uint64(56)


@njit(inline="always")
def _held_range(row, start):
    """Bit ``j`` set iff ``row[start + j] > 0``, for the up to 64 entries from ``start``
    of a contiguous int8 row of counts 0 .. 127. Eight counts a step (``_held_bytes``),
    the last word overlapping the one before: no branch on a count, no lane-by-lane
    shifts."""
    n = min(row.shape[0] - start, 64)
    bits = np.uint64(0)
    if n < 8:
        for j in range(n):
            bits |= np.uint64(row[start + j] > 0) << np.uint64(j)
        return bits
    for j in range(0, n - 7, 8):
        bits |= _held_bytes(load_u64(row, start + j)) << np.uint64(j)
    return bits | (_held_bytes(load_u64(row, start + n - 8)) << np.uint64(n - 8))


@njit(inline="always")
def _held_types(hand):
    """The types ``hand`` (a contiguous int8[K] of counts 0 .. 127, K <= 64) holds at
    least one card of, as bits."""
    return _held_range(hand, 0)


def _held_range_python(row, start):
    return np.uint64(sum(1 << j for j in range(min(len(row) - start, 64))
                         if row[start + j] > 0))


def _held_types_python(hand):
    return _held_range_python(hand, 0)


#: as ``popcount``: the Python twins in plain Python
held_range = _held_range_python if config.DISABLE_JIT else _held_range
held_types = _held_types_python if config.DISABLE_JIT else _held_types
