"""The draw and discard piles: discarding, drawing, and the reshuffle of an empty draw
pile (docs/rules.md section 2, "Empty draw pile"), shared by every variant."""
from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.rng import shuffle_prefix
from uno_env.engine.tallies import count_card, off_pile_row


@njit(inline="always")
def to_discard(st, g, sp, t):
    n = st.info[g, C.I_DISCARD_LEN]
    st.discard[g, n] = t
    st.discard_counts[g, t] += 1
    st.info[g, C.I_DISCARD_LEN] = n + 1
    count_card(st, g, sp, off_pile_row(st), t, -1)


@njit(inline="always")
def discard_from_hand(st, g, sp, seat, t):
    """``seat`` puts a card of type ``t`` from its hand on the discard pile."""
    st.hands[g, seat, t] -= 1
    st.hand_size[g, seat] -= 1
    count_card(st, g, sp, seat, t, -1)
    to_discard(st, g, sp, t)


@by_spec
def reshuffle_keeps(st, g, sp):
    """How many cards a reshuffle leaves on the discard pile: its top card; in UNO One
    Piece with ``challenge="return"``, while a challenge is pending, also the card under
    the Wild Draw Four, which may yet go back on top (docs/rules.md section 6)."""


@reshuffle_keeps.register_default
def _keep_top(st, g, sp):
    return 1


@njit
def reshuffle(st, g, sp, keep):
    """Empty draw pile: the discard pile except its top ``keep`` cards becomes the new
    draw pile, shuffled."""
    n = st.info[g, C.I_DISCARD_LEN] - keep
    if n <= 0:
        return
    base = st.info[g, C.I_DRAW_LEN]
    for i in range(n):
        t = st.discard[g, i]
        st.draw_pile[g, base + i] = t
        st.discard_counts[g, t] -= 1
        count_card(st, g, sp, off_pile_row(st), t, 1)
    shuffle_prefix(st.rng, g, st.draw_pile[g], base + n)
    for i in range(keep):
        st.discard[g, i] = st.discard[g, n + i]
    st.info[g, C.I_DISCARD_LEN] = keep
    st.info[g, C.I_DRAW_LEN] = base + n
    st.info[g, C.I_STAT_RESHUFFLES] += 1


@njit(inline="always")
def draw_cards(st, g, sp, seat, count):
    """``seat`` draws up to ``count`` cards, reshuffling at most once (docs/rules.md
    section 2, precise points: penalty draws take what can be drawn after one
    reshuffle). Returns the type of the last card drawn, or -1 if none could be drawn."""
    keep = reshuffle_keeps(st, g, sp)
    last = -1
    reshuffled = False
    for _ in range(count):
        if st.info[g, C.I_DRAW_LEN] == 0:
            if reshuffled:
                break
            reshuffle(st, g, sp, keep)
            reshuffled = True
            if st.info[g, C.I_DRAW_LEN] == 0:
                break
        st.info[g, C.I_DRAW_LEN] -= 1
        last = st.draw_pile[g, st.info[g, C.I_DRAW_LEN]]
        st.hands[g, seat, last] += 1
        st.hand_size[g, seat] += 1
        count_card(st, g, sp, seat, last, 1)
        st.info[g, C.I_STAT_CARDS_DRAWN] += 1
    return last
