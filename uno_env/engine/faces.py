"""What a card shows and what its rank does: the questions every variant asks of a card.

``face`` is the face of a card type on the side in play. Single-sided decks show a
type's one face; UNO Flip shows the light face or the match's own dark face
(``State.dark_face``; docs/rules.md section 5). The choice is made when a kernel is
compiled (``uno_env.engine.jit.by_spec``), so the classic hot loops read one table entry.
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.rng import shuffle_prefix
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED


@by_spec
def face(st, g, sp, t):
    """Face id of card type ``t`` on the side in play."""


@face.register(*SINGLE_SIDED)
def _single_face(st, g, sp, t):
    return sp.type_face[t, 0]


@face.register(*DOUBLE_SIDED)
def _flip_face(st, g, sp, t):
    if st.info[g, C.I_SIDE] == 0:
        return sp.type_face[t, 0]
    return np.int32(st.dark_face[g, t])


@by_spec
def other_face(st, g, sp, t):
    """UNO Flip: the face of ``t`` on the side not in play (what the others see)."""


@other_face.register(*DOUBLE_SIDED)
def _flip_other_face(st, g, sp, t):
    if st.info[g, C.I_SIDE] == 0:
        return np.int32(st.dark_face[g, t])
    return sp.type_face[t, 0]


@by_spec
def is_restricted(sp, rank):
    """Wilds that may be played only without a card of the colour in force (unless
    bluffing is on) and that open a challenge: ``W4`` (docs/rules.md section 2), Flip's
    ``W2``/``WC`` (section 5), One Piece's ``W4`` and, with ``bbd_challenge``, ``BBD``
    (section 6)."""


@is_restricted.register_default
def _w4_restricted(sp, rank):
    return rank == C.WILD4


@by_spec
def same_card_below(st, g, sp, seat, t):
    """Does ``seat`` hold a lower type that is the same physical card as ``t``? Then
    ``t``'s move is that type's (legal moves are distinct). Only UNO Flip has several
    types per card face: there, the same light and the same dark face."""


@same_card_below.register(*SINGLE_SIDED)
def _no_twin(st, g, sp, seat, t):
    return False


@same_card_below.register(*DOUBLE_SIDED)
def _flip_twin_below(st, g, sp, seat, t):
    light = sp.type_face[t, 0]
    u = t - 1
    while u >= 0 and sp.type_face[u, 0] == light:
        if st.hands[g, seat, u] > 0 and st.dark_face[g, u] == st.dark_face[g, t]:
            return True
        u -= 1
    return False


@by_spec
def new_pairing(st, g, sp):
    """A new match's pairing of sides: UNO Flip deals the deck's dark faces to the
    types in an order drawn from the game's own stream (docs/rules.md section 5: fixed
    per match, from the seed). Single-sided decks have nothing to pair."""


@new_pairing.register(*SINGLE_SIDED)
def _no_pairing(st, g, sp):
    pass


@new_pairing.register(*DOUBLE_SIDED)
def _flip_pairing(st, g, sp):
    k = st.dark_face.shape[1]
    for t in range(k):
        st.dark_face[g, t] = sp.type_face[t, 1]
    shuffle_prefix(st.rng, g, st.dark_face[g], k)


@njit(inline="always")
def rank_draw(rank):
    """Cards the next player draws from a card of this rank (0 if none)."""
    if rank == C.DRAW2 or rank == C.WILD2 or rank == C.BLACKBEARD:
        return 2
    if rank == C.WILD4:
        return 4
    if rank == C.DRAW1:
        return 1
    if rank == C.DRAW5:
        return 5
    return 0


@njit(inline="always")
def is_first_card_redo(rank):
    """Ranks put back into the draw pile when turned up first (docs/rules.md sections
    2, 4, 5, 6)."""
    return (rank == C.WILD4 or rank == C.WILD_SHUFFLE or rank == C.WILD_CUSTOM
            or rank == C.WILD2 or rank == C.FLIP or rank == C.BLACKBEARD
            or rank == C.ACE or rank == C.HANCOCK)
