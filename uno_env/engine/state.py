"""The game state: one record of fixed-shape arrays with a leading batch axis.

A single game is simply a batch of one. Shapes use ``B`` games, ``P`` players, ``K`` card
types of the deck and ``N`` cards in the deck. Per game (classic, 4 players) this is
about 1.2 KB; see ``state_nbytes``.

=================  ================  ===================================================
field              dtype, shape      holds
=================  ================  ===================================================
``hands``          int8[B, P, K]     copies of each card type in each hand
``hand_size``      int16[B, P]       cards in each hand (the sum of ``hands``)
``draw_pile``      int8[B, N]        card types, bottom first; the top is at
                                     ``info[g, I_DRAW_LEN] - 1``
``discard``        int8[B, N]        card types, bottom first; the top is at
                                     ``info[g, I_DISCARD_LEN] - 1``
``discard_counts`` int8[B, K]       copies of each type in the discard pile (public)
``info``           int32[B, I]       per-game scalars, slots ``I_*`` of ``codes``
``scores``         int32[B, P]       match totals
``round_points``   int32[B, P]       points of the last round that ended
``rewards``        float32[B, P]     rewards produced by the last step
``rng``            uint64[B]         the game's own random stream (``rng.py``)
``dark_face``      int16[B, K]       UNO Flip: the dark face of each card type in this
                                     match (drawn from the seed; ``engine/flip.py``);
                                     ``int16[B, 0]`` for single-sided decks
``shown``          int8[B, K]        the hand a challenge last showed its challenger
                                     (docs/rules.md 2.5): seat ``info[g, I_SHOWN_BY]``'s,
                                     as shown to ``info[g, I_SHOWN_TO]``
``tallies``        int8[B, P + 1, T] the card counts kept as cards move, per hand and
                                     off the discard pile (``engine/tallies.py``);
                                     ``int8[B, P + 1, 0]`` in UNO Flip
=================  ================  ===================================================

A ``Spec`` (one class per variant) holds the read-only tables of one (deck, rules,
players) configuration.

Python holds both as namedtuples. The kernels receive them by reference: each entry
point stores its State and Spec once in its own frame (``as_record``) and passes a
pointer, a ``Record``, whose fields read as the namedtuple's (docs/performance.md).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba.core import cgutils, config, types
from numba.core.imputils import impl_ret_borrowed
from numba.core.extending import (
    intrinsic, lower_getattr_generic, models, register_model)
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.experimental import structref

from uno_env.engine import codes as C
from uno_env.engine.variants import BY_NAME, DOUBLE_SIDED, SINGLE_SIDED, SPEC_FIELDS, VARIANTS  # noqa: F401

State = namedtuple("State", ["hands", "hand_size", "draw_pile", "discard",
                             "discard_counts", "info", "scores", "round_points", "rewards",
                             "rng", "dark_face", "shown", "tallies"])

#: variant name (``uno_env.rules.Rules.variant``) -> its Spec class; the classes, the
#: tables they hold (``SPEC_FIELDS``) and the single- and double-sided groups are made by
#: the variant declaration (``engine/variants.py``)
SPEC_CLASSES = {v.name: v.spec_class for v in VARIANTS}
ClassicSpec, HouseSpec, FlipSpec, OnePieceSpec = (
    BY_NAME[name].spec_class for name in ("classic", "house", "flip", "onepiece"))


def allocate(batch: int, num_players: int, num_types: int, num_cards: int,
             double_sided: bool = False) -> State:
    """Zeroed state arrays for ``batch`` games (deal them with ``rounds.reset_game``);
    ``double_sided`` (UNO Flip) gives each game its own ``dark_face`` row, and no card
    counts (``engine/tallies.py``)."""
    if num_types > 127:
        raise ValueError(f"a deck of {num_types} card types: the piles hold types as int8")
    return State(
        hands=np.zeros((batch, num_players, num_types), np.int8),
        hand_size=np.zeros((batch, num_players), np.int16),
        # card types as int8: a pile's top is a cache miss of every step in a batch
        draw_pile=np.zeros((batch, num_cards), np.int8),
        discard=np.zeros((batch, num_cards), np.int8),
        discard_counts=np.zeros((batch, num_types), np.int8),
        info=np.zeros((batch, C.NUM_INFO), np.int32),
        scores=np.zeros((batch, num_players), np.int32),
        round_points=np.zeros((batch, num_players), np.int32),
        rewards=np.zeros((batch, num_players), np.float32),
        rng=np.zeros(batch, np.uint64),
        dark_face=np.zeros((batch, num_types if double_sided else 0), np.int16),
        shown=np.zeros((batch, num_types), np.int8),
        tallies=np.zeros((batch, num_players + 1, 0 if double_sided else C.NUM_TALLIES),
                         np.int8),
    )


def state_nbytes(state: State) -> int:
    """Bytes of state per game."""
    return sum(a[0].nbytes if a.ndim > 1 else a.itemsize for a in state)


def copy_game(src: State, g: int, dst: State, h: int) -> None:
    """Copy game ``g`` of ``src`` into slot ``h`` of ``dst`` (same shapes)."""
    for a, b in zip(src, dst):
        b[h] = a[g]


# --- the state and the tables passed by reference ---------------------------------------
#
# A namedtuple of arrays passes by value: every call of a kernel that is not inlined
# copied the 11 array descriptors of a State and the 15 of a Spec (about 430 machine
# words a decision in ``simulate``; docs/performance.md). An entry point therefore
# stores its State and Spec once in its own stack frame (``as_record``) and hands the
# kernels a pointer to each: a ``Record``, read with the same names (``st.info``,
# ``sp.rules``). It lives as long as the entry point's call, which outlives every
# kernel it calls; nothing keeps one beyond that (no kernel returns one).


class Record(types.Type):
    """numba's type of a pointer to a namedtuple of arrays (a State or a Spec) held in
    the frame of the entry point that made it (``as_record``). Its fields read as the
    namedtuple's; its kernels dispatch as the namedtuple's class does (``by_spec``)."""

    def __init__(self, tuple_type):
        self.tuple_type = tuple_type
        self.dtype = tuple_type  # for numba's PointerModel
        self.instance_class = tuple_type.instance_class
        super().__init__(name=f"Record({tuple_type.instance_class.__name__}, "
                              f"{tuple_type})")

    @property
    def key(self):
        return self.tuple_type


register_model(Record)(models.PointerModel)


@infer_getattr
class _RecordAttributes(AttributeTemplate):
    key = Record

    def generic_resolve(self, typ, attr):
        fields = typ.tuple_type.instance_class._fields
        if attr in fields:
            return typ.tuple_type.types[fields.index(attr)]


@lower_getattr_generic(Record)
def _record_getattr(context, builder, typ, value, attr):
    i = typ.tuple_type.instance_class._fields.index(attr)
    field_type = typ.tuple_type.types[i]
    data = builder.load(cgutils.gep_inbounds(builder, value, 0, i))
    # a record is written once, by ``as_record``, before any kernel reads it: marked
    # invariant, its fields stay in registers across the kernel's stores to the arrays
    # (which the compiler would otherwise assume might overwrite them and reload)
    data.set_metadata("invariant.load", builder.module.add_metadata([]))
    field = context.data_model_manager[field_type].from_data(builder, data)
    # a new reference where numba counts them (the entry points), as any getattr
    return impl_ret_borrowed(context, builder, field_type, field)


@intrinsic
def _as_record(typingctx, tup):
    """The namedtuple ``tup`` (a State or a Spec) stored in this function's frame, as a
    ``Record`` pointing there; a record passes through unchanged."""
    if isinstance(tup, Record):
        return tup(tup), lambda context, builder, sig, args: args[0]
    if not isinstance(tup, (types.NamedTuple, types.NamedUniTuple)):
        return None

    def codegen(context, builder, sig, args):
        model = context.data_model_manager[tup]
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        # the pointer handed out comes through an empty asm statement that may read
        # memory: the store above stays, and no analysis traces the record's invariant
        # loads (``_record_getattr``) back to the slot it held before the store
        ptr_type = slot.type
        return builder.asm(ir.FunctionType(ptr_type, [ptr_type]), "", "=r,0,~{memory}",
                           [slot], side_effect=True)

    return Record(tup)(tup), codegen


def _unchanged(tup):
    return tup


#: ``_as_record`` in the kernels; in plain Python (``NUMBA_DISABLE_JIT=1``) the
#: namedtuple itself, which Python passes by reference anyway
as_record = _unchanged if config.DISABLE_JIT else _as_record


# --- one game's arrays as one object, for the game entry point ----------------------------

#: the fields of a ``GameBox``: a one-game ``State``, its ``Spec``, the legal mask, the
#: current decider's observation and a buffer for another seat's
GAME_BOX_FIELDS = ("state", "spec", "mask", "obs", "other_obs")


@structref.register
class GameBoxType(types.StructRef):
    """numba's type of a :class:`GameBox` (one per variant and configuration shape)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class GameBox(structref.StructRefProxy):
    """The arrays of one ``Game`` held by one numba object (``GAME_BOX_FIELDS``).

    A kernel called from Python unboxes every array it is passed, and a ``State`` and a
    ``Spec`` are 26 arrays: about 1.35 us of each call of the game entry point went to
    that. A box passes as one pointer (0.33 us a call). It refers to the same arrays,
    so Python reads and writes them as before. Made by the ``game_box`` entry point
    (``engine.entry``), compiled and cached like the others; in plain Python
    (``NUMBA_DISABLE_JIT=1``) it is a namedtuple of the same fields."""

    def __new__(cls, *fields):
        if config.DISABLE_JIT:  # numba's own constructor would recurse without a jit
            return PlainGameBox(*fields)
        return super().__new__(cls, *fields)


#: a ``GameBox`` in plain Python
PlainGameBox = namedtuple("PlainGameBox", GAME_BOX_FIELDS)


structref.define_constructor(GameBox, GameBoxType, GAME_BOX_FIELDS)
structref.define_boxing(GameBoxType, GameBox)
