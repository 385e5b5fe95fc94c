"""Determinization: redraw every card one seat cannot see, keeping all it observes.

Search over an imperfect-information game samples the hidden part of the state
(*determinizations*, as in determinized or information-set Monte Carlo tree search).
``determinize(st, g, sp, seat, rng, r)`` does that in place on game ``g`` of a batched
state, drawing from stream ``r`` of ``rng`` (a search stream of its own: the game's
stream ``st.rng`` is not read). The *hidden* cards are the other seats' hands and the
draw pile: they are pooled and dealt back at random, every hand keeping its size and
the draw pile its length. What ``seat`` observes is kept exactly (its observation
vector, ``engine/observe.py``, is the same before and after; ``tests/engine/test_search.py``):
its own hand, the discard pile, every public counter, and in UNO Flip (docs/rules.md
section 5) the side of each opponent's card that faces the table and the visible back
of the draw pile's top. After the redraw:

* the game's own stream ``st.rng[g]`` is replaced by a fresh one from ``rng`` (the order
  of a future reshuffle is not known either);
* a pending Wild Draw Four verdict (``I_W4_GUILTY``, also Flip's W2/WC and One Piece's
  restricted wilds) is recomputed from the redrawn hand of its player;
* a hand a challenge showed another seat (``State.shown``) is forgotten: ``seat`` did
  not see it; a hand shown to ``seat`` stays in its observation, and its cards still in
  their owner's hand (the shown count of a type, at most what the owner holds now) stay
  there: only the rest of that hand is redrawn;
* UNO Flip: the pairing of sides (``State.dark_face``) of every hidden card is redrawn
  as well: the seat knows the faces it saw, not which light face is behind which dark
  one. The seat's own cards and the discard pile keep their pairing.

Private knowledge that is kept, and what is ignored. The redraw is uniform over what the
observation vector allows, so knowledge that only the game's history gives is ignored:
a hand shown after a Wild Draw Four challenge once the engine has forgotten it (the
end of the challenger's next turn), a card given to
the seat by One Piece's Shanks (or given away by it), the hand the seat gave away in a
7-0 swap or rotation, cards seen in a Wild Shuffle, and inferences from the other
players' plays (a player who drew holds no playable card ...). One thing is kept: when
another seat decides on the card it just drew (phase ``drawn``, ``I_DRAWN_TYPE``), that
card stays in its hand (the phase needs it; a seat only determinizes for its own
decisions, where this never happens).
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.state import as_record
from uno_env.engine.plays import holds_color
from uno_env.engine.rng import next_u64, shuffle_prefix
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED
from uno_env.engine.tallies import recount


@njit(allocates=True)
def determinize(st, g, sp, seat, rng, r):
    """Redraw in place the cards of game ``g`` hidden from ``seat`` (module docstring),
    with random numbers from ``rng[r]``."""
    pin_seat, pin_type = -1, -1
    cur = st.info[g, C.I_CURRENT]
    if st.info[g, C.I_PHASE] == C.PHASE_DRAWN and cur != seat \
            and st.info[g, C.I_DRAWN_TYPE] >= 0:
        pin_seat, pin_type = cur, st.info[g, C.I_DRAWN_TYPE]
        st.hands[g, pin_seat, pin_type] -= 1
        st.hand_size[g, pin_seat] -= 1
    # a hand a challenge showed ``seat``: its cards still in that hand stay there
    shown_by = st.info[g, C.I_SHOWN_BY]
    kept = np.zeros(st.hands.shape[2], np.int64)
    if st.info[g, C.I_SHOWN_TO] == seat and shown_by >= 0 and shown_by != seat:
        for t in range(kept.shape[0]):
            kept[t] = min(st.shown[g, t], st.hands[g, shown_by, t])
            st.hands[g, shown_by, t] -= kept[t]
            st.hand_size[g, shown_by] -= kept[t]
    redraw(st, g, sp, seat, rng, r)
    if pin_seat >= 0:
        st.hands[g, pin_seat, pin_type] += 1
        st.hand_size[g, pin_seat] += 1
    if shown_by >= 0:
        for t in range(kept.shape[0]):
            st.hands[g, shown_by, t] += kept[t]
            st.hand_size[g, shown_by] += kept[t]
    recount(st, g, sp)
    x = next_u64(rng, r)
    st.rng[g] = x if x != np.uint64(0) else np.uint64(0x2545F4914F6CDD1D)
    w4 = st.info[g, C.I_W4_PLAYER]
    if w4 >= 0 and w4 != seat:
        st.info[g, C.I_W4_GUILTY] = holds_color(st, g, sp, w4, st.info[g, C.I_W4_PREV_COLOR])
    if st.info[g, C.I_SHOWN_TO] != seat:  # a hand shown to another seat: not seen
        st.info[g, C.I_SHOWN_TO] = -1


@njit(allocates=True)
def _hidden_counts(st, g, seat):
    """Copies of each card type hidden from ``seat``: the other hands and the draw pile."""
    k = st.hands.shape[2]
    counts = np.zeros(k, np.int64)
    for q in range(st.hands.shape[1]):
        if q != seat:
            for t in range(k):
                counts[t] += st.hands[g, q, t]
    for i in range(st.info[g, C.I_DRAW_LEN]):
        counts[st.draw_pile[g, i]] += 1
    return counts


@by_spec(allocates=True)
def redraw(st, g, sp, seat, rng, r):
    """Deal the hidden cards (``_hidden_counts``) back at random, keeping what ``seat``
    sees. The result depends on the counts only, never on where the cards were."""


@njit(allocates=True)
def hidden_pool(st, g, seat, rng, r):
    """The cards hidden from ``seat`` (``_hidden_counts``) as a list of types in random
    order (``pool[:n]``), shuffled from ``rng[r]``; returns ``(pool, n)``."""
    counts = _hidden_counts(st, g, seat)
    pool = np.empty(st.draw_pile.shape[1], np.int16)
    n = 0
    for t in range(counts.shape[0]):
        for _ in range(counts[t]):
            pool[n] = t
            n += 1
    shuffle_prefix(rng, r, pool, n)
    return pool, n


@redraw.register(*SINGLE_SIDED)
def _redraw_single(st, g, sp, seat, rng, r):
    pool, n = hidden_pool(st, g, seat, rng, r)
    i = 0
    for q in range(st.hands.shape[1]):
        if q == seat:
            continue
        st.hands[g, q] = 0
        for _ in range(st.hand_size[g, q]):
            st.hands[g, q, pool[i]] += 1
            i += 1
    for j in range(st.info[g, C.I_DRAW_LEN]):
        st.draw_pile[g, j] = pool[i]
        i += 1


@redraw.register(*DOUBLE_SIDED)
def _redraw_flip(st, g, sp, seat, rng, r):
    # Each type is one physical card. Opponents' cards and the draw pile's top show the
    # side not in play (``faces.other_face``): those faces stay where they are; every
    # hidden face (the side in play of those cards, both sides of the rest of the draw
    # pile) is dealt at random, then each (light, dark) pair becomes a free hidden type
    # with that light face, whose dark face is set to the pair's.
    side = st.info[g, C.I_SIDE]
    num_players = st.hands.shape[1]
    nf = sp.face_rank.shape[0]
    counts = _hidden_counts(st, g, seat)
    k = counts.shape[0]
    light_of = sp.type_face[:, 0]
    vis_pool = np.zeros(nf, np.int64)   # hidden cards' faces toward the table
    hid = np.empty(st.draw_pile.shape[1], np.int64)  # their faces in play, dealt at random
    n = 0
    for t in range(k):
        if counts[t] > 0:
            lf, df = light_of[t], st.dark_face[g, t]
            vis_pool[df if side == 0 else lf] += 1
            hid[n] = lf if side == 0 else df
            n += 1
    # hid is in type order, i.e. by light face: sort it so that the dark side's order
    # does not depend on where the hidden cards are
    hid[:n] = np.sort(hid[:n])
    shuffle_prefix(rng, r, hid, n)
    # the faces that stay visible: per opponent (by face, in face order), the draw top
    seen = np.zeros((num_players, nf), np.int64)
    for q in range(num_players):
        if q != seat:
            for t in range(k):
                c = st.hands[g, q, t]
                if c > 0:
                    f = st.dark_face[g, t] if side == 0 else light_of[t]
                    seen[q, f] += c
                    vis_pool[f] -= c
    draw_len = st.info[g, C.I_DRAW_LEN]
    top_vis = -1
    if draw_len > 0:
        t = st.draw_pile[g, draw_len - 1]
        top_vis = st.dark_face[g, t] if side == 0 else light_of[t]
        vis_pool[top_vis] -= 1
    rest = np.empty(max(draw_len - 1, 0), np.int64)  # visible faces of the deeper cards
    m = 0
    for f in range(nf):
        for _ in range(vis_pool[f]):
            rest[m] = f
            m += 1
    shuffle_prefix(rng, r, rest, m)
    # free hidden types by light face: first[lf] is the next unused one
    first = np.full(nf, -1, np.int64)
    for t in range(k - 1, -1, -1):
        if counts[t] > 0:
            first[light_of[t]] = t
    i = 0
    for q in range(num_players):
        if q == seat:
            continue
        st.hands[g, q] = 0
        for f in range(nf):
            for _ in range(seen[q, f]):
                t = _place(st, g, side, f, hid[i], light_of, counts, first)
                st.hands[g, q, t] += 1
                i += 1
    for j in range(draw_len):
        f = top_vis if j == draw_len - 1 else rest[j]
        st.draw_pile[g, j] = _place(st, g, side, f, hid[i], light_of, counts, first)
        i += 1


@njit(inline="always")
def _place(st, g, side, visible, hidden, light_of, counts, first):
    """A free hidden type for the card showing ``visible`` (the side not in play) with
    ``hidden`` in play; sets its dark face and returns it."""
    lf = hidden if side == 0 else visible
    df = visible if side == 0 else hidden
    t = first[lf]
    counts[t] = 0
    nxt = t + 1
    while nxt < light_of.shape[0] and light_of[nxt] == lf and counts[nxt] == 0:
        nxt += 1
    first[lf] = nxt if nxt < light_of.shape[0] and light_of[nxt] == lf else -1
    st.dark_face[g, t] = df
    return t


def determinize_kernel(state, g, tables, seat, rng, r):
    """The ``determinize`` entry point (``engine.entry``): one determinization of game
    ``g`` for ``seat``, in place, from stream ``rng[r]``."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    determinize(st, g, sp, seat, rng, r)
