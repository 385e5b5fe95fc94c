"""UNO Flip (docs/rules.md section 5) as kernels over one game ``g``: the variant
``flip`` (the ``flip`` deck), with the entry names of every variant module.

The shared kernels serve Flip unchanged: they read faces through ``faces.face``, which
for ``FlipSpec`` follows ``info[g, I_SIDE]`` and the match's pairing. What is Flip's own
is here: the effects of its cards, the flip itself, and the penalty of ``WC``.

Representation. Each of the 112 physical cards is its own card type, ordered by light
face (``cards.flip_deck``), so a type's light face is static (``Spec.type_face[t, 0]``)
and copies of one light face are adjacent. The dark face of each type is this match's
own pairing, ``State.dark_face[g, t]``, drawn by ``faces.new_pairing`` from the game's
seed stream when a match starts and kept for every round of the match.
``Game.from_scenario`` may fix any part of it.

Moves name the whole card (``R5|P7``, ``W2|P1:B``): the action layout gives every type a
play action and four wild actions (``uno_env.rules.actions``), and the mask offers a type's
actions only when its active face is coloured (resp. wild). Two identical physical cards
(same light and same dark face) are one move: the mask offers the lower type only
(``faces.same_card_below``).

Readings where the rules are silent (the project's; also in docs/rules.md section 5):

- ``W2``/``WC`` restriction: like ``W4`` (section 2), judged on the hand as played
  against the colour in force before it; other wilds never count.
- ``WC`` draws stop at the first card whose face on the side in play has the named
  colour; when no card can be drawn any more (after one reshuffle) the draws stop.
  A ``WC`` challenge: guilty, the ``WC`` player draws until the named colour and the
  challenger takes a normal turn; innocent, the challenger draws until the named colour,
  then 2 more, and loses the turn. ``pending_draw`` shows 2 facing a ``W2`` and 0 facing
  a ``WC`` (its count is unknown in advance).
- ``SE`` ends the player's turn (``max_turns`` counts it) and the same player starts a
  new one, as ``R`` with two players.
- A ``F`` ends the turn; the next player in the direction of play then decides (after
  naming a colour with ``color:X`` when the new top card is a wild).
- A match keeps its pairing in every round; each round starts on the light side.
"""
import numpy as np

from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine import faces
from uno_env.engine.bits import held_range, trailing_zeros
from uno_env.engine.faces import face, is_restricted, other_face, rank_draw
from uno_env.engine.piles import discard_from_hand, draw_cards
from uno_env.engine.plays import holds_color, may_play, official_legal_mask, top_rank
from uno_env.engine.rounds import go_out
from uno_env.engine.turns import (
    NOT_COMMON, begin_decision, challenge_verdict, common_move, finish_turn, mark_uncalled,
    pass_turn, seat_after, top_type,
)
from uno_env.engine.variants import BY_NAME

#: this variant's Spec class (engine/variants.py)
SPEC = BY_NAME["flip"].spec_class


@njit(inline="always")
def legal_mask(st, g, sp, mask):
    """The current decider's legal actions (``mask`` zeroed, the game on)."""
    return official_legal_mask(st, g, sp, mask)


# --- effects -----------------------------------------------------------------------------


@njit
def draw_until_color(st, g, sp, seat, color):
    """``WC``: ``seat`` draws until a card whose face in play has ``color`` (a wild does
    not count) and keeps them all; stops when nothing can be drawn. Returns the count."""
    n = 0
    while True:
        t = draw_cards(st, g, sp, seat, 1)
        if t < 0:
            break
        n += 1
        if sp.face_color[face(st, g, sp, t)] == color:
            break
    return n


@njit
def penalty(st, g, sp, seat, rank, extra):
    """The draws a card of ``rank`` inflicts on ``seat``, plus ``extra`` cards (a lost
    challenge): ``WC`` draws until the colour in force (the colour its player named)."""
    if rank == C.WILD_COLOR:
        draw_until_color(st, g, sp, seat, st.info[g, C.I_COLOR])
        if extra > 0:
            draw_cards(st, g, sp, seat, extra)
    else:
        n = rank_draw(rank) + extra
        if n > 0:
            draw_cards(st, g, sp, seat, n)


@njit
def flip_over(st, g, sp):
    """``F`` (docs/rules.md section 5): the discard pile, the draw pile and every hand
    turn over. The whole discard pile turns, so its oldest card becomes the top (other
    side up); the draw pile's order reverses; hands keep their cards (``I_SIDE``
    selects the face). The new top card's effect is not applied; its colour is in force
    (none for a wild: the next player names one)."""
    st.info[g, C.I_SIDE] = 1 - st.info[g, C.I_SIDE]
    n = st.info[g, C.I_DISCARD_LEN]
    for i in range(n // 2):
        tmp = st.discard[g, i]
        st.discard[g, i] = st.discard[g, n - 1 - i]
        st.discard[g, n - 1 - i] = tmp
    m = st.info[g, C.I_DRAW_LEN]
    for i in range(m // 2):
        tmp = st.draw_pile[g, i]
        st.draw_pile[g, i] = st.draw_pile[g, m - 1 - i]
        st.draw_pile[g, m - 1 - i] = tmp
    st.info[g, C.I_COLOR] = sp.face_color[face(st, g, sp, top_type(st, g))]
    st.info[g, C.I_STAT_FLIPS] += 1


@njit
def play_card(st, g, sp, seat, t, color_slot):
    f = face(st, g, sp, t)
    rank = sp.face_rank[f]
    prev_color = st.info[g, C.I_COLOR]
    guilty = False
    if is_restricted(sp, rank):
        # judged on the hand as played, against the colour in force (sections 2, 5)
        guilty = holds_color(st, g, sp, seat, prev_color)
        st.info[g, C.I_STAT_W4_PLAYED] += 1
        if guilty:
            st.info[g, C.I_STAT_W4_BLUFFS] += 1
    discard_from_hand(st, g, sp, seat, t)
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = color_slot + 4 * st.info[g, C.I_SIDE]
    else:
        st.info[g, C.I_COLOR] = sp.face_color[f]
    nxt = seat_after(st, g, sp, seat, 1)

    if st.hand_size[g, seat] == 0:
        # going out ends the round at once: a last F turns nothing (points count on the
        # side it was played on); a last D1/D5/W2/WC still makes the next player draw,
        # without a challenge (docs/rules.md section 5)
        penalty(st, g, sp, nxt, rank, 0)
        go_out(st, g, sp, seat)
        return
    mark_uncalled(st, g, sp, seat)

    # who decides next, in which phase: the end of the turn follows once, for every rank
    target = nxt
    phase = C.PHASE_PLAY
    challenge = False
    if rank == C.SKIP:
        target = seat_after(st, g, sp, seat, 2)
    elif rank == C.REVERSE:
        st.info[g, C.I_DIRECTION] = -st.info[g, C.I_DIRECTION]
        # two players: R acts as S, the same player moves again
        target = seat if sp.rules[C.R_NUM_PLAYERS] == 2 else seat_after(st, g, sp, seat, 1)
    elif rank == C.DRAW1 or rank == C.DRAW5:
        draw_cards(st, g, sp, nxt, rank_draw(rank))
        target = seat_after(st, g, sp, seat, 2)
    elif rank == C.SKIP_EVERYONE:
        target = seat
    elif rank == C.FLIP:
        flip_over(st, g, sp)
        if st.info[g, C.I_COLOR] == C.NO_COLOR:  # a wild turned up: the next names it
            phase = C.PHASE_COLOR
    elif is_restricted(sp, rank):
        if sp.rules[C.R_BLUFF] != 0:
            st.info[g, C.I_W4_PLAYER] = seat
            st.info[g, C.I_W4_GUILTY] = guilty
            st.info[g, C.I_W4_PREV_COLOR] = prev_color
            phase = C.PHASE_CHALLENGE
            challenge = True
        else:
            penalty(st, g, sp, nxt, rank, 0)
            target = seat_after(st, g, sp, seat, 2)
    if not finish_turn(st, g, sp, seat):
        if challenge:
            st.info[g, C.I_PENDING_DRAW] = 2 if rank == C.WILD2 else 0
        begin_decision(st, g, sp, target, phase)


@njit
def answer_challenge(st, g, sp, seat, challenge):
    """The ``W2``/``WC`` victim's answer (docs/rules.md section 5), by the shared
    verdict: the payer takes the card's penalty (``W2`` 2 cards; ``WC`` until the named
    colour), plus 2 for a challenger proved wrong."""
    st.info[g, C.I_PENDING_DRAW] = 0
    rank = top_rank(st, g, sp)
    payer, extra, plays = challenge_verdict(st, g, seat, challenge)
    penalty(st, g, sp, payer, rank, extra)
    begin_decision(st, g, sp, seat if plays else seat_after(st, g, sp, seat, 1),
                   C.PHASE_PLAY)


@njit
def apply_action(st, g, sp, action):
    """Apply a legal ``action`` of the current decider."""
    if common_move(st, g, sp, action) != NOT_COMMON:
        return
    seat = st.info[g, C.I_CURRENT]
    lay = sp.layout
    if st.info[g, C.I_PHASE] == C.PHASE_CHALLENGE:
        answer_challenge(st, g, sp, seat, action == lay[C.L_CHALLENGE])
        return
    if action == lay[C.L_DRAW]:
        t = draw_cards(st, g, sp, seat, 1)
        if t >= 0 and may_play(st, g, sp, seat, t):
            st.info[g, C.I_DRAWN_TYPE] = t
            st.info[g, C.I_PHASE] = C.PHASE_DRAWN
            return
    elif action != lay[C.L_PASS]:
        if action < lay[C.L_WILD]:
            play_card(st, g, sp, seat, sp.play_slot_type[action - lay[C.L_PLAY]], 0)
        else:
            w = (action - lay[C.L_WILD]) // 4
            play_card(st, g, sp, seat, sp.wild_slot_type[w], (action - lay[C.L_WILD]) % 4)
        return
    pass_turn(st, g, sp, seat)  # one call site of the inlined turn end


@njit
def observe_fields(st, g, sp, seat, out):
    """The UNO Flip fields of the observation (``engine/observe.py``): both sides of the
    observer's cards, the other side of every opponent's cards and of the draw pile's
    top (public at the table), the other side of the discard top, the dark faces played."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    k = st.hands.shape[2]
    nf = sp.face_rank.shape[0]
    # no branch on whether a type is held (unpredictable): ``out`` is zeroed, so
    # writing or adding the zeros of the types not held leaves the same vector
    o = sp.obs_at[C.O_HAND_DARK]
    hand, dark = st.hands[g, seat], st.dark_face[g]
    out_dark = out[o:o + k]  # a view: stored as vectors (engine/observe.py)
    for t in range(k):
        out_dark[t] = (1 + dark[t]) if hand[t] > 0 else 0
    # the opponents' backs and the dark faces played: only the types present, 64 at a
    # time as bit sets (a hand holds a tenth of the 112 types; adding every type's
    # count, mostly 0, was half of a step of EverySeatBatch)
    side = st.info[g, C.I_SIDE]
    o = sp.obs_at[C.O_OPPONENT_BACKS]
    for r in range(1, num_players):
        q = (seat + r) % num_players
        cards, backs = st.hands[g, q], out[o:o + nf]
        for start in range(0, k, 64):
            held = held_range(cards, start)
            while held:
                t = start + np.int64(trailing_zeros(held))
                held &= held - np.uint64(1)
                # the side not in play (faces.other_face)
                backs[dark[t] if side == 0 else sp.type_face[t, 0]] += cards[t]
        o += nf
    n = st.info[g, C.I_DRAW_LEN]
    if n > 0:
        out[sp.obs_at[C.O_DRAW_BACK] + other_face(st, g, sp, st.draw_pile[g, n - 1])] = 1.0
    if st.info[g, C.I_DISCARD_LEN] > 0:
        out[sp.obs_at[C.O_TOP_OTHER] + other_face(st, g, sp, top_type(st, g))] = 1.0
    o = sp.obs_at[C.O_PLAYED_DARK]
    played, played_dark = st.discard_counts[g], out[o:o + nf]
    for start in range(0, k, 64):
        held = held_range(played, start)
        while held:
            t = start + np.int64(trailing_zeros(held))
            held &= held - np.uint64(1)
            played_dark[dark[t]] += played[t]


# docs/rules.md 5: Flip's restricted wilds are the W2 (light) and the WC (dark)
@faces.is_restricted.register(SPEC)
def _restricted(sp, rank):
    return rank == C.WILD2 or rank == C.WILD_COLOR
