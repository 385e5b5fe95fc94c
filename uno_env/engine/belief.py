"""What the public play says about the other players' hands, for the search agent.

``determinize`` (``engine/determinize.py``) redraws the hidden cards uniformly, as if
the players' past moves said nothing. They do: a player who draws instead of playing
showed that nothing in their hand could be played on that pile (no card of the colour
in force, none of the top card's number or symbol, no wild). The baselines never draw
while they hold a playable card, and a human rarely does, so the search treats it as a
fact until the player takes cards in another way (a penalty draw, a swap, the next
round's deal...), which it cannot see into.

The belief is an array ``banned[P, K]`` (uint8): ``banned[q, t] == 1`` if seat ``q``
is believed to hold no card of type ``t``. It is public knowledge, kept by whoever
watches the moves (``note_before`` before a move is applied, ``note_after`` after).
``redeal`` then deals the hidden cards of a determinization again, each player with a
belief taking only cards it allows (while there are enough of them; then any card).

Only single-sided decks are redealt: in UNO Flip a hidden card's side facing the
table is seen, so the redraw is already constrained by what shows (``redeal`` leaves
Flip's determinization as it is).
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.determinize import hidden_pool
from uno_env.engine.plays import matches_pile
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED
from uno_env.engine.tallies import recount
from uno_env.engine.dispatch import apply_action


@njit
def note_before(st, g, sp, banned, action):
    """Before ``action`` of game ``g``'s decider is applied: a draw chosen instead of a
    play bans every card type that could have been played. Returns the drawing seat,
    else -1 (for ``note_after``)."""
    p = st.info[g, C.I_CURRENT]
    if st.info[g, C.I_PHASE] == C.PHASE_PLAY and action == sp.layout[C.L_DRAW] \
            and st.info[g, C.I_PENDING_DRAW] == 0:
        for t in range(banned.shape[1]):
            if matches_pile(st, g, sp, t):
                banned[p, t] = 1
        return p
    return -1


@njit
def note_after(st, g, banned, sizes, drew, exchanges, first_round):
    """After the move: a player who took cards other than the one card of their own
    chosen draw (``drew``) holds cards we know nothing about, so their belief is
    cleared; after a hand exchange (``I_STAT_EXCHANGES`` was ``exchanges``) or a new
    deal (``I_ROUND`` was ``first_round``: a hand no larger than before is new too)
    every belief is. ``sizes`` are the hand sizes before the move."""
    if st.info[g, C.I_STAT_EXCHANGES] != exchanges or st.info[g, C.I_ROUND] != first_round:
        banned[:] = 0
        return
    for q in range(banned.shape[0]):
        grow = st.hand_size[g, q] - sizes[q]
        if grow > 0 and not (q == drew and grow == 1):
            banned[q, :] = 0


@njit
def watch(st, g, sp, banned, sizes, action):
    """Apply ``action`` to game ``g`` and update the belief (``sizes``: int64[P]
    scratch)."""
    for q in range(sizes.shape[0]):
        sizes[q] = st.hand_size[g, q]
    exchanges = st.info[g, C.I_STAT_EXCHANGES]
    first_round = st.info[g, C.I_ROUND]
    drew = note_before(st, g, sp, banned, action)
    apply_action(st, g, sp, action)
    note_after(st, g, banned, sizes, drew, exchanges, first_round)


@by_spec(allocates=True)
def redeal(st, g, sp, seat, rng, r, banned):
    """Deal the cards hidden from ``seat`` again, respecting ``banned`` (module
    docstring); random numbers from ``rng[r]``."""


@redeal.register(*DOUBLE_SIDED)
def _redeal_flip(st, g, sp, seat, rng, r, banned):
    pass


@redeal.register(*SINGLE_SIDED)
def _redeal_single(st, g, sp, seat, rng, r, banned):
    pool, n = hidden_pool(st, g, seat, rng, r)
    used = np.zeros(n, np.uint8)
    num_players = st.hands.shape[1]
    for q in range(num_players):
        if q != seat:
            st.hands[g, q] = 0
    # the players with a belief first, from the cards it allows; then the others
    for constrained_pass in (True, False):
        for q in range(num_players):
            if q == seat or (banned[q].sum() > 0) != constrained_pass:
                continue
            need = st.hand_size[g, q]
            for allowed_only in (True, False):
                for i in range(n):
                    if need == 0:
                        break
                    if used[i] == 0 and (not allowed_only or banned[q, pool[i]] == 0):
                        used[i] = 1
                        st.hands[g, q, pool[i]] += 1
                        need -= 1
    j = 0
    for i in range(n):
        if used[i] == 0:
            st.draw_pile[g, j] = pool[i]
            j += 1
    recount(st, g, sp)
