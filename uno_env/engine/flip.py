"""UNO Flip (RULES.md section 5) as kernels over one game ``g``.

``core.legal_mask`` and ``core.apply_action`` hand over to ``flip_legal_mask`` and
``flip_apply`` when ``rules[R_FLIP]`` is set (the ``flip`` deck), so classic games never
run this code and pay one branch for it. The classic helpers of ``core`` are reused
where they do not read faces; faces are read with ``core.face_in_play``, which follows
``info[g, I_SIDE]`` and the match's pairing (``core.active_face`` stays branch-free for
the classic hot loops).

Representation. Each of the 112 physical cards is its own card type, ordered by light
face (``cards.flip_deck``), so a type's light face is static (``Spec.type_face[t, 0]``)
and copies of one light face are adjacent. The dark face of each type is this match's
own pairing, ``State.dark_face[g, t]``, drawn by ``draw_pairing`` from the game's seed
stream when a match starts (``core.reset_game``) and kept for every round of the match.
``Game.from_scenario`` may fix any part of it.

Moves name the whole card (``R5|P7``, ``W2|P1:B``): the action layout gives every type a
play action and four wild actions (``uno_env.actions``), and the mask offers a type's
actions only when its active face is coloured (resp. wild). Two identical physical cards
(same light and same dark face) are one move: the mask offers the lower type only.

Readings where RULES.md 5 is silent (the project's; also in the README):

- ``W2``/``WC`` restriction: like ``W4`` (RULES.md 2), judged on the hand as played
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
from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine.core import (
    _to_discard, begin_decision, draw_cards, end_round, face_in_play, finish_turn,
    rank_draw, seat_after, top_type,
)
from uno_env.engine.rng import shuffle_prefix


@njit
def draw_pairing(st, g, sp):
    """This match's pairing of sides: the deck's dark faces dealt to the types in an
    order drawn from the game's own stream (RULES.md 5: fixed per match, from the seed)."""
    k = st.dark_face.shape[1]
    for t in range(k):
        st.dark_face[g, t] = sp.type_face[t, 1]
    shuffle_prefix(st.rng, g, st.dark_face[g], k)


# --- small queries -----------------------------------------------------------------------


@njit(inline="always")
def holds_color(st, g, sp, seat, color):
    """Does ``seat`` hold a coloured card of ``color`` on the side in play?"""
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0 and \
                sp.face_color[face_in_play(st, g, sp, t)] == color:
            return True
    return False


@njit(inline="always")
def _set_play_actions(st, g, sp, t, mask):
    """Mark the actions that play card type ``t``; returns how many (4 for a wild)."""
    f = face_in_play(st, g, sp, t)
    if sp.face_rank[f] >= C.FIRST_WILD_RANK:
        base = sp.layout[C.L_WILD] + 4 * sp.type_wild_slot[t]
        for c in range(4):
            mask[base + c] = 1
        return 4
    mask[sp.layout[C.L_PLAY] + sp.type_play_slot[t]] = 1
    return 1


@njit(inline="always")
def is_restricted_wild(rank):
    """``W2`` and ``WC``: only without a card of the colour in force; challengeable."""
    return rank == C.WILD2 or rank == C.WILD_COLOR


@njit(inline="always")
def same_card_below(st, g, sp, seat, t):
    """Does ``seat`` hold a lower type that is the same physical card as ``t`` (same
    light and dark face)? Then ``t``'s move is that type's (legal moves are distinct)."""
    light = sp.type_face[t, 0]
    u = t - 1
    while u >= 0 and sp.type_face[u, 0] == light:
        if st.hands[g, seat, u] > 0 and st.dark_face[g, u] == st.dark_face[g, t]:
            return True
        u -= 1
    return False


@njit(inline="always")
def _may_play(st, g, sp, seat, t):
    """The card matches the pile, and a ``W2``/``WC`` obeys its restriction when
    bluffing is off (RULES.md 5)."""
    f = face_in_play(st, g, sp, t)
    rank = sp.face_rank[f]
    if rank >= C.FIRST_WILD_RANK:
        if is_restricted_wild(rank) and sp.rules[C.R_BLUFF] == 0:
            return not holds_color(st, g, sp, seat, st.info[g, C.I_COLOR])
        return True
    if sp.face_color[f] == st.info[g, C.I_COLOR]:
        return True
    return sp.face_rank[face_in_play(st, g, sp, top_type(st, g))] == rank


# --- legal actions -----------------------------------------------------------------------


@njit
def _flip_hand_plays(st, g, sp, seat, mask):
    """Mark every playable card of ``seat``'s hand; returns the actions marked."""
    color = st.info[g, C.I_COLOR]
    top_rank = sp.face_rank[face_in_play(st, g, sp, top_type(st, g))]
    checked = sp.rules[C.R_BLUFF] != 0  # with bluffing, W2/WC need no check
    allowed = True
    plays = 0
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] == 0 or same_card_below(st, g, sp, seat, t):
            continue
        f = face_in_play(st, g, sp, t)
        rank = sp.face_rank[f]
        if rank >= C.FIRST_WILD_RANK:
            if is_restricted_wild(rank):
                if not checked:
                    allowed = not holds_color(st, g, sp, seat, color)
                    checked = True
                if not allowed:
                    continue
            base = sp.layout[C.L_WILD] + 4 * sp.type_wild_slot[t]
            for c in range(4):
                mask[base + c] = 1
            plays += 4
        elif sp.face_color[f] == color or rank == top_rank:
            mask[sp.layout[C.L_PLAY] + sp.type_play_slot[t]] = 1
            plays += 1
    return plays


@njit
def flip_legal_mask(st, g, sp, mask):
    """``core.legal_mask`` for the flip deck (the caller has zeroed ``mask`` and
    handled ``PHASE_OVER``)."""
    seat = st.info[g, C.I_CURRENT]
    phase = st.info[g, C.I_PHASE]
    uno_rule = sp.rules[C.R_UNO_CALL] != 0
    n = 0
    if phase == C.PHASE_COLOR:
        # a wild turned up by a flip; the chance to catch the flipper is offered beside
        # it (RULES.md 2 precise points: with whatever else is legal there)
        for c in range(4):
            mask[sp.layout[C.L_COLOR] + c] = 1
        n = 4
    elif phase == C.PHASE_CHALLENGE:
        mask[sp.layout[C.L_CHALLENGE]] = 1
        mask[sp.layout[C.L_ACCEPT]] = 1
        n = 2
    elif phase == C.PHASE_PLAY:
        plays = _flip_hand_plays(st, g, sp, seat, mask)
        mask[sp.layout[C.L_DRAW]] = 1
        n = plays + 1
        if uno_rule and plays > 0 and st.hand_size[g, seat] == 2 \
                and st.info[g, C.I_UNO_CALLED] != seat:
            mask[sp.layout[C.L_UNO]] = 1
            n += 1
    elif phase == C.PHASE_DRAWN:
        n = _set_play_actions(st, g, sp, st.info[g, C.I_DRAWN_TYPE], mask) + 1
        mask[sp.layout[C.L_PASS]] = 1
        if uno_rule and st.hand_size[g, seat] == 2 and st.info[g, C.I_UNO_CALLED] != seat:
            mask[sp.layout[C.L_UNO]] = 1
            n += 1
    catchable = st.info[g, C.I_CATCHABLE]
    if uno_rule and catchable >= 0 and catchable != seat:
        mask[sp.layout[C.L_CATCH]] = 1
        n += 1
    return n


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
        if sp.face_color[face_in_play(st, g, sp, t)] == color:
            break
    return n


@njit
def _penalty(st, g, sp, seat, rank):
    """The draws a card of ``rank`` inflicts on ``seat`` (``WC``: until the colour in
    force, which is the colour its player named)."""
    if rank == C.WILD_COLOR:
        draw_until_color(st, g, sp, seat, st.info[g, C.I_COLOR])
    else:
        n = rank_draw(rank)
        if n > 0:
            draw_cards(st, g, sp, seat, n)


@njit
def flip_over(st, g, sp):
    """``F`` (RULES.md 5): the discard pile, the draw pile and every hand turn over. The
    whole discard pile turns, so its oldest card becomes the top (other side up); the
    draw pile's order reverses; hands keep their cards (``I_SIDE`` selects the face).
    The new top card's effect is not applied; its colour is in force (none for a wild:
    the next player names one)."""
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
    st.info[g, C.I_COLOR] = sp.face_color[face_in_play(st, g, sp, top_type(st, g))]
    st.info[g, C.I_STAT_FLIPS] += 1


@njit
def _flip_play(st, g, sp, seat, t, color_slot):
    f = face_in_play(st, g, sp, t)
    rank = sp.face_rank[f]
    prev_color = st.info[g, C.I_COLOR]
    guilty = False
    if is_restricted_wild(rank):
        # judged on the hand as played, against the colour in force (RULES.md 2, 5)
        guilty = holds_color(st, g, sp, seat, prev_color)
        st.info[g, C.I_STAT_W4_PLAYED] += 1
        if guilty:
            st.info[g, C.I_STAT_W4_BLUFFS] += 1
    st.hands[g, seat, t] -= 1
    st.hand_size[g, seat] -= 1
    _to_discard(st, g, t)
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = color_slot + 4 * st.info[g, C.I_SIDE]
    else:
        st.info[g, C.I_COLOR] = sp.face_color[f]
    nxt = seat_after(st, g, sp, seat, 1)

    if st.hand_size[g, seat] == 0:
        # going out ends the round at once: a last F turns nothing (points count on the
        # side it was played on); a last D1/D5/W2/WC still makes the next player draw,
        # without a challenge (RULES.md 5)
        _penalty(st, g, sp, nxt, rank)
        st.info[g, C.I_TURNS] += 1
        st.info[g, C.I_UNO_CALLED] = -1
        st.info[g, C.I_DRAWN_TYPE] = -1
        end_round(st, g, sp, seat)
        return
    if st.hand_size[g, seat] == 1 and sp.rules[C.R_UNO_CALL] != 0 \
            and st.info[g, C.I_UNO_CALLED] != seat:
        st.info[g, C.I_CATCH_PENDING] = seat

    if rank == C.SKIP:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif rank == C.REVERSE:
        st.info[g, C.I_DIRECTION] = -st.info[g, C.I_DIRECTION]
        if not finish_turn(st, g, sp, seat):
            # two players: R acts as S, the same player moves again
            again = seat if sp.rules[C.R_NUM_PLAYERS] == 2 else seat_after(st, g, sp, seat, 1)
            begin_decision(st, g, sp, again, C.PHASE_PLAY)
    elif rank == C.DRAW1 or rank == C.DRAW5:
        draw_cards(st, g, sp, nxt, rank_draw(rank))
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif rank == C.SKIP_EVERYONE:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat, C.PHASE_PLAY)
    elif rank == C.FLIP:
        flip_over(st, g, sp)
        if not finish_turn(st, g, sp, seat):
            wild_up = st.info[g, C.I_COLOR] == C.NO_COLOR
            begin_decision(st, g, sp, nxt, C.PHASE_COLOR if wild_up else C.PHASE_PLAY)
    elif is_restricted_wild(rank):
        if sp.rules[C.R_BLUFF] != 0:
            st.info[g, C.I_W4_PLAYER] = seat
            st.info[g, C.I_W4_GUILTY] = guilty
            st.info[g, C.I_W4_PREV_COLOR] = prev_color
            if not finish_turn(st, g, sp, seat):
                st.info[g, C.I_PENDING_DRAW] = 2 if rank == C.WILD2 else 0
                begin_decision(st, g, sp, nxt, C.PHASE_CHALLENGE)
        else:
            _penalty(st, g, sp, nxt, rank)
            if not finish_turn(st, g, sp, seat):
                begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    else:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, nxt, C.PHASE_PLAY)


@njit
def _answer_challenge(st, g, sp, seat, challenge):
    """The ``W2``/``WC`` victim's answer (RULES.md 5). Accept: the penalty, turn lost.
    Challenge, guilty: the player takes the penalty (``W2`` 2 cards; ``WC`` until the
    named colour) and the challenger takes a normal turn; innocent: the challenger draws
    4 (``W2``) or until the named colour and 2 more (``WC``), and loses the turn."""
    st.info[g, C.I_PENDING_DRAW] = 0
    rank = sp.face_rank[face_in_play(st, g, sp, top_type(st, g))]
    nxt = seat_after(st, g, sp, seat, 1)
    if not challenge:
        _penalty(st, g, sp, seat, rank)
        begin_decision(st, g, sp, nxt, C.PHASE_PLAY)
        return
    st.info[g, C.I_STAT_CHALLENGES] += 1
    if st.info[g, C.I_W4_GUILTY] != 0:
        st.info[g, C.I_STAT_CHALLENGES_WON] += 1
        _penalty(st, g, sp, st.info[g, C.I_W4_PLAYER], rank)
        begin_decision(st, g, sp, seat, C.PHASE_PLAY)
    else:
        if rank == C.WILD2:
            draw_cards(st, g, sp, seat, 4)
        else:
            draw_until_color(st, g, sp, seat, st.info[g, C.I_COLOR])
            draw_cards(st, g, sp, seat, 2)
        begin_decision(st, g, sp, nxt, C.PHASE_PLAY)


@njit
def flip_apply(st, g, sp, action):
    """``core.apply_action`` for the flip deck (assumes a legal action)."""
    seat = st.info[g, C.I_CURRENT]
    st.info[g, C.I_LAST_ROUND_OVER] = 0
    st.rewards[g] = 0.0
    if action == sp.layout[C.L_CATCH]:
        draw_cards(st, g, sp, st.info[g, C.I_CATCHABLE], 2)
        st.info[g, C.I_CATCHABLE] = -1
        st.info[g, C.I_STAT_CATCHES] += 1
        return
    st.info[g, C.I_CATCHABLE] = -1
    if action == sp.layout[C.L_UNO]:
        st.info[g, C.I_UNO_CALLED] = seat
        return
    phase = st.info[g, C.I_PHASE]
    if phase == C.PHASE_COLOR:
        st.info[g, C.I_COLOR] = action - sp.layout[C.L_COLOR] + 4 * st.info[g, C.I_SIDE]
        begin_decision(st, g, sp, seat, C.PHASE_PLAY)
        return
    if phase == C.PHASE_CHALLENGE:
        _answer_challenge(st, g, sp, seat, action == sp.layout[C.L_CHALLENGE])
        return
    if action == sp.layout[C.L_DRAW]:
        t = draw_cards(st, g, sp, seat, 1)
        if t >= 0 and _may_play(st, g, sp, seat, t):
            st.info[g, C.I_DRAWN_TYPE] = t
            st.info[g, C.I_PHASE] = C.PHASE_DRAWN
        elif not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)
        return
    if action == sp.layout[C.L_PASS]:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)
        return
    if action < sp.layout[C.L_WILD]:
        _flip_play(st, g, sp, seat, sp.play_slot_type[action - sp.layout[C.L_PLAY]], 0)
    else:
        w = (action - sp.layout[C.L_WILD]) // 4
        _flip_play(st, g, sp, seat, sp.wild_slot_type[w], (action - sp.layout[C.L_WILD]) % 4)
