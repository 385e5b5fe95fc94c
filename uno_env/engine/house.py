"""House rules (docs/rules.md section 3) and the Wild Shuffle / Wild Customizable cards of
``classic112`` (section 4) as kernels over one game ``g``.

This is the variant ``house`` (``Rules.variant``: any house flag on, or a deck with
``WS``/``WX``), with the entry names of every variant module (``legal_mask``,
``apply_action``); classic games never compile it. These kernels implement the classic
rules too, with every flag checked where it matters, so the flags combine freely.

How a play flows here (comments cite docs/rules.md):

1. ``_play`` moves the card to the pile. With ``multi_play`` a coloured card opens
   ``PHASE_MULTI`` while the player holds another card of its rank; effects wait for
   the end of the sequence (``I_MULTI_COUNT`` cards).
2. ``_resolve`` applies the effect of the ``k`` cards of the top card's rank: skips,
   reverses, draws (to the pending total with ``stack``), 7 swaps (``PHASE_SWAP``, one
   choice per 7), 0 rotations, the ``WS`` shuffle; or ends the round.
3. ``_finish`` ends the turn and, with ``jump_in`` after a coloured card, asks the
   players holding an identical card in turn order (``PHASE_JUMP_IN``); the decision
   that was due is kept in ``I_RESUME_SEAT``/``I_RESUME_PHASE`` until all pass.

Readings where docs/rules.md is silent (the project's, also listed in the README):

- Jump-in: only players holding an identical card are asked (a player who cannot jump
  in has no decision to make). The window shows the held-back pending total in
  ``pending_draw``. A jumper may call ``uno`` first; a call followed by ``pass`` lapses.
  The jumper's play is an ordinary play of their turn: with ``multi_play`` it may be
  continued, and it opens a new window.
- Multi-play: the first card may be any play of the turn (from the hand, the card just
  drawn, a stacked draw card, a jump-in); continuing cards need only the same rank
  (docs/rules.md 3), never a wild. ``k`` reverses flip the direction ``k`` times; with two
  players an odd number acts as one ``R`` (the same player again), an even number
  passes the turn. ``k`` draw-twos make the next player draw ``2k`` (or add ``2k`` to
  the pending total), and ``k`` zeros rotate the hands ``k`` times.
- Stacking: ``"same"`` means the same rank (``D2`` on ``D2``, ``W4`` on ``W4``, a
  ``WX`` of ``wx_rule="draw1"`` on such a ``WX``); ``accept`` draws the total and loses
  the turn (it is not a turn: ``max_turns`` does not count it, as a classic
  ``accept``). With ``stack`` the decision after any draw card is ``PHASE_STACK``
  (``challenge`` offered there when the top card is a ``W4`` and bluffing is on);
  without ``stack`` a ``W4`` keeps the classic ``PHASE_CHALLENGE``.
- ``WS`` as the last card (``ws_last_card_wins=False``): the cards are dealt out among
  all seats, the player included; when there are fewer cards than seats the player may
  receive none, and then wins the round.
- ``no_draw_if_playable`` counts a ``W4`` as playable exactly when the mask offers it.
"""
import numpy as np

from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.faces import face, rank_draw
from uno_env.engine.piles import discard_from_hand, draw_cards
from uno_env.engine.plays import (
    holds_color, mark_catch, may_play, set_hand_plays, set_play_actions, top_rank,
)
from uno_env.engine.rng import shuffle_prefix
from uno_env.engine.rounds import go_out
from uno_env.engine.tallies import recount
from uno_env.engine.turns import (
    NOT_COMMON, begin_decision, challenge_verdict, common_move, finish_turn, mark_uncalled,
    pass_turn, seat_after, top_type,
)

# --- small queries -----------------------------------------------------------------------


@njit(inline="always")
def draw_value(sp, rank):
    """Cards a card of this rank makes the next player draw; ``WX`` counts 1 with
    ``wx_rule="draw1"`` (docs/rules.md 4)."""
    if rank == C.WILD_CUSTOM:
        return 1 if sp.rules[C.R_WX_RULE] == C.WX_DRAW1 else 0
    return rank_draw(rank)


@njit(inline="always")
def is_swap_rank(sp, rank):
    """A 7 with ``seven_zero``, or a ``WX`` with ``wx_rule="swap"`` (docs/rules.md 3, 4)."""
    if rank == 7:
        return sp.rules[C.R_SEVEN_ZERO] != 0
    return rank == C.WILD_CUSTOM and sp.rules[C.R_WX_RULE] == C.WX_SWAP


@njit(inline="always")
def _holds_rank(st, g, sp, seat, rank):
    """Does ``seat`` hold a coloured card of ``rank``? (multi-play continues)"""
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0:
            f = face(st, g, sp, t)
            if sp.face_rank[f] == rank and sp.face_color[f] != C.NO_COLOR:
                return True
    return False


@njit(inline="always")
def _stackable(st, g, sp, seat, t):
    """May card type ``t`` answer the pending draw? (docs/rules.md 3 ``stack``): "same" the
    same rank, "any" a draw value at least the top card's (not the running total);
    colour ignored; a stacked ``W4`` still obeys the colour rule without bluffing."""
    rank = sp.face_rank[face(st, g, sp, t)]
    dv = draw_value(sp, rank)
    if dv == 0:
        return False
    tr = top_rank(st, g, sp)
    if sp.rules[C.R_STACK] == C.STACK_SAME:
        if rank != tr:
            return False
    elif dv < draw_value(sp, tr):
        return False
    if rank == C.WILD4 and sp.rules[C.R_BLUFF] == 0:
        return not holds_color(st, g, sp, seat, st.info[g, C.I_COLOR])
    return True


@njit(inline="always")
def _drawn_w4_bluff(st, g, sp, seat):
    """The card just drawn is a ``W4`` its holder may play only as a bluff."""
    t = st.info[g, C.I_DRAWN_TYPE]
    return sp.face_rank[face(st, g, sp, t)] == C.WILD4 \
        and holds_color(st, g, sp, seat, st.info[g, C.I_COLOR])


@njit(inline="always")
def _next_jumper(st, g, sp, after, origin, t):
    """The first seat after ``after`` in turn order, before coming back to ``origin``,
    that holds card type ``t``; -1 if none (docs/rules.md 3 jump-in: asked in turn order)."""
    s = after
    for _ in range(sp.rules[C.R_NUM_PLAYERS]):
        s = seat_after(st, g, sp, s, 1)
        if s == origin:
            return -1
        if st.hands[g, s, t] > 0:
            return s
    return -1


# --- legal actions -----------------------------------------------------------------------


@njit
def legal_mask(st, g, sp, mask):
    """The legal actions with the house rules (``mask`` is zeroed, the game is on).
    Returns the number of legal actions (every set entry counts)."""
    lay = sp.layout
    phase = st.info[g, C.I_PHASE]
    seat = st.info[g, C.I_CURRENT]
    plays = 0
    if phase == C.PHASE_COLOR:
        for c in range(4):
            mask[lay[C.L_COLOR] + c] = 1
    elif phase == C.PHASE_CHALLENGE:
        mask[lay[C.L_CHALLENGE]] = 1
        mask[lay[C.L_ACCEPT]] = 1
    elif phase == C.PHASE_PLAY:
        plays = set_hand_plays(st, g, sp, seat, mask)
        # no_draw_if_playable: draw is masked while a card can be played (docs/rules.md 3)
        if plays == 0 or sp.rules[C.R_NO_DRAW_IF_PLAYABLE] == 0:
            mask[lay[C.L_DRAW]] = 1
    elif phase == C.PHASE_DRAWN:
        set_play_actions(st, g, sp, st.info[g, C.I_DRAWN_TYPE], mask)
        plays = 1
        # force_play: a playable drawn card must be played, unless it is a W4 bluff
        if sp.rules[C.R_FORCE_PLAY] == 0 or _drawn_w4_bluff(st, g, sp, seat):
            mask[lay[C.L_PASS]] = 1
    elif phase == C.PHASE_STACK:
        for t in range(st.hands.shape[2]):
            if st.hands[g, seat, t] > 0 and _stackable(st, g, sp, seat, t):
                set_play_actions(st, g, sp, t, mask)
                plays += 1
        mask[lay[C.L_ACCEPT]] = 1
        # only the topmost W4 can be challenged; it settles the whole total (docs/rules.md 3)
        if top_rank(st, g, sp) == C.WILD4 and sp.rules[C.R_BLUFF] != 0:
            mask[lay[C.L_CHALLENGE]] = 1
    elif phase == C.PHASE_JUMP_IN:
        mask[lay[C.L_PLAY] + sp.type_play_slot[top_type(st, g)]] = 1
        mask[lay[C.L_PASS]] = 1
        plays = 1
    elif phase == C.PHASE_MULTI:
        tr = top_rank(st, g, sp)
        for t in range(st.hands.shape[2]):
            if st.hands[g, seat, t] > 0:
                f = face(st, g, sp, t)
                if sp.face_rank[f] == tr and sp.face_color[f] != C.NO_COLOR:
                    mask[lay[C.L_PLAY] + sp.type_play_slot[t]] = 1
                    plays += 1
        mask[lay[C.L_PASS]] = 1
    elif phase == C.PHASE_SWAP:
        for k in range(lay[C.L_NUM_SWAP]):
            mask[lay[C.L_SWAP] + k] = 1
    if sp.rules[C.R_UNO_CALL] != 0 and plays > 0 and st.hand_size[g, seat] == 2 \
            and st.info[g, C.I_UNO_CALLED] != seat:
        mask[lay[C.L_UNO]] = 1
    mark_catch(st, g, sp, seat, mask)
    n = 0
    for a in range(lay[C.L_SIZE]):
        if mask[a] != 0:
            n += 1
    return n


# --- hand exchanges ----------------------------------------------------------------------


@njit
def _exchange(st, g, sp, a, b):
    """Seats ``a`` and ``b`` swap hands (7-0)."""
    for t in range(st.hands.shape[2]):
        x = st.hands[g, a, t]
        st.hands[g, a, t] = st.hands[g, b, t]
        st.hands[g, b, t] = x
    n = st.hand_size[g, a]
    st.hand_size[g, a] = st.hand_size[g, b]
    st.hand_size[g, b] = n
    recount(st, g, sp)
    st.info[g, C.I_STAT_EXCHANGES] += 1


@njit(allocates=True)
def _rotate_hands(st, g, sp):
    """A 0: every hand passes one seat in the direction of play (docs/rules.md 3)."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    hands = st.hands[g].copy()
    sizes = st.hand_size[g].copy()
    for s in range(num_players):
        d = seat_after(st, g, sp, s, 1)
        st.hands[g, d] = hands[s]
        st.hand_size[g, d] = sizes[s]
    recount(st, g, sp)
    st.info[g, C.I_STAT_EXCHANGES] += 1


@njit(allocates=True)
def _shuffle_hands(st, g, sp, seat):
    """``WS`` (docs/rules.md 4): gather all hands, shuffle, deal one at a time starting with
    seat ``seat + 1`` whatever the direction (counts may end uneven)."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    total = 0
    for s in range(num_players):
        total += st.hand_size[g, s]
    cards = np.empty(total, np.int16)
    n = 0
    for s in range(num_players):
        for t in range(st.hands.shape[2]):
            for _ in range(st.hands[g, s, t]):
                cards[n] = t
                n += 1
        st.hand_size[g, s] = 0
    st.hands[g] = 0
    shuffle_prefix(st.rng, g, cards, total)
    for i in range(total):
        s = (seat + 1 + i) % num_players
        st.hands[g, s, cards[i]] += 1
        st.hand_size[g, s] += 1
    recount(st, g, sp)
    st.info[g, C.I_STAT_EXCHANGES] += 1


# --- turn flow ---------------------------------------------------------------------------


@njit
def _finish(st, g, sp, seat, nxt, phase):
    """End ``seat``'s turn; the next decision is ``nxt`` in ``phase``, unless a jump-in
    window opens first (docs/rules.md 3 jump-in: after a coloured card and its effect,
    players holding an identical card are asked in turn order, starting after the
    player, never that player; skipped players too)."""
    if finish_turn(st, g, sp, seat):
        return
    if sp.rules[C.R_JUMP_IN] != 0:
        t = top_type(st, g)
        if sp.face_color[face(st, g, sp, t)] != C.NO_COLOR:
            j = _next_jumper(st, g, sp, seat, seat, t)
            if j >= 0:
                st.info[g, C.I_JUMP_FROM] = seat
                st.info[g, C.I_RESUME_SEAT] = nxt
                st.info[g, C.I_RESUME_PHASE] = phase
                begin_decision(st, g, sp, j, C.PHASE_JUMP_IN)
                return
    begin_decision(st, g, sp, nxt, phase)


@njit
def _go_out(st, g, sp, seat, draws):
    """``seat`` has no cards: the round ends at once; the next player draws the last
    draw card's cards plus any pending total, without a challenge (docs/rules.md 2, 3)."""
    total = st.info[g, C.I_PENDING_DRAW] + draws
    st.info[g, C.I_PENDING_DRAW] = 0
    if total > 0:
        draw_cards(st, g, sp, seat_after(st, g, sp, seat, 1), total)
    st.info[g, C.I_JUMP_FROM] = -1
    go_out(st, g, sp, seat)


@njit
def _resolve(st, g, sp, seat):
    """Apply the effect of the ``k`` cards just played by ``seat`` (all of the top
    card's rank; ``k`` = 1 without multi-play), or end the round if the hand is empty."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    r = top_rank(st, g, sp)
    k = max(st.info[g, C.I_MULTI_COUNT], 1)
    st.info[g, C.I_MULTI_COUNT] = 0
    dv = draw_value(sp, r)
    nxt = seat_after(st, g, sp, seat, 1)
    if st.hand_size[g, seat] == 0:
        # a last WS is still dealt out unless ws_last_card_wins (docs/rules.md 4); a last 7
        # or 0 has no effect (docs/rules.md 3)
        if r == C.WILD_SHUFFLE and sp.rules[C.R_WS_LAST_CARD_WINS] == 0:
            _shuffle_hands(st, g, sp, seat)
        if st.hand_size[g, seat] == 0:
            _go_out(st, g, sp, seat, k * dv)
            return
        _finish(st, g, sp, seat, nxt, C.PHASE_PLAY)
        return
    if r == C.SKIP:
        # k skips move play k+1 seats on (docs/rules.md 3 multi-play)
        _finish(st, g, sp, seat, seat_after(st, g, sp, seat, k + 1), C.PHASE_PLAY)
    elif r == C.REVERSE:
        if k % 2 == 1:
            st.info[g, C.I_DIRECTION] = -st.info[g, C.I_DIRECTION]
        # two players: R acts as S (docs/rules.md 2)
        again = seat if num_players == 2 and k % 2 == 1 else seat_after(st, g, sp, seat, 1)
        _finish(st, g, sp, seat, again, C.PHASE_PLAY)
    elif dv > 0:
        if sp.rules[C.R_STACK] != C.STACK_NONE:
            # every draw card gives the next player a decision (docs/rules.md 3 stacking)
            st.info[g, C.I_PENDING_DRAW] += k * dv
            _finish(st, g, sp, seat, nxt, C.PHASE_STACK)
        elif r == C.WILD4 and sp.rules[C.R_BLUFF] != 0:
            if not finish_turn(st, g, sp, seat):
                st.info[g, C.I_PENDING_DRAW] = 4
                begin_decision(st, g, sp, nxt, C.PHASE_CHALLENGE)
        else:
            draw_cards(st, g, sp, nxt, k * dv)
            _finish(st, g, sp, seat, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif is_swap_rank(sp, r):
        # the swap after a 7 is compulsory; k sevens give k swaps (docs/rules.md 3)
        st.info[g, C.I_SWAPS_LEFT] = k
        begin_decision(st, g, sp, seat, C.PHASE_SWAP)
    elif r == 0 and sp.rules[C.R_SEVEN_ZERO] != 0:
        for _ in range(k):
            _rotate_hands(st, g, sp)
        _finish(st, g, sp, seat, nxt, C.PHASE_PLAY)
    elif r == C.WILD_SHUFFLE:
        _shuffle_hands(st, g, sp, seat)
        _finish(st, g, sp, seat, nxt, C.PHASE_PLAY)
    else:
        _finish(st, g, sp, seat, nxt, C.PHASE_PLAY)


@njit
def _play(st, g, sp, seat, t, color_slot):
    """``seat`` plays card type ``t`` (naming ``color_slot`` for a wild)."""
    f = face(st, g, sp, t)
    rank = sp.face_rank[f]
    if rank == C.WILD4:
        # guilt is judged on the hand as played, against the colour in force (docs/rules.md 2)
        prev_color = st.info[g, C.I_COLOR]
        guilty = holds_color(st, g, sp, seat, prev_color)
        st.info[g, C.I_STAT_W4_PLAYED] += 1
        if guilty:
            st.info[g, C.I_STAT_W4_BLUFFS] += 1
        st.info[g, C.I_W4_PLAYER] = seat
        st.info[g, C.I_W4_GUILTY] = guilty
        st.info[g, C.I_W4_PREV_COLOR] = prev_color
    discard_from_hand(st, g, sp, seat, t)
    st.info[g, C.I_DRAWN_TYPE] = -1
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = color_slot + 4 * st.info[g, C.I_SIDE]
    else:
        st.info[g, C.I_COLOR] = sp.face_color[f]
    mark_uncalled(st, g, sp, seat)
    if sp.rules[C.R_MULTI_PLAY] != 0 and rank < C.FIRST_WILD_RANK:
        # multi-play: go on with the same number or symbol (docs/rules.md 3); effects wait
        st.info[g, C.I_MULTI_COUNT] += 1
        if st.hand_size[g, seat] > 0 and _holds_rank(st, g, sp, seat, rank):
            begin_decision(st, g, sp, seat, C.PHASE_MULTI)
            return
    _resolve(st, g, sp, seat)


@njit
def _draw(st, g, sp, seat):
    """``draw``: one card, or with ``draw_until_playable`` cards until a playable one
    comes or nothing can be drawn (docs/rules.md 3); a playable card opens PHASE_DRAWN."""
    t = draw_cards(st, g, sp, seat, 1)
    if sp.rules[C.R_DRAW_UNTIL_PLAYABLE] != 0:
        while t >= 0 and not may_play(st, g, sp, seat, t):
            t = draw_cards(st, g, sp, seat, 1)
    if t >= 0 and may_play(st, g, sp, seat, t):
        st.info[g, C.I_DRAWN_TYPE] = t
        st.info[g, C.I_PHASE] = C.PHASE_DRAWN
    else:
        pass_turn(st, g, sp, seat)


@njit
def _answer_draw(st, g, sp, seat, challenge):
    """Facing a pending draw: a Wild Draw Four (``PHASE_CHALLENGE``, pending 4) or a
    stacked total (``PHASE_STACK``, docs/rules.md section 3). ``accept`` draws it and
    loses the turn; a challenge of the topmost W4 settles the whole total by the shared
    verdict: guilty, the W4 player draws it and the challenger plays; innocent, the
    challenger draws it plus 2."""
    total = st.info[g, C.I_PENDING_DRAW]
    st.info[g, C.I_PENDING_DRAW] = 0
    if st.info[g, C.I_UNO_CALLED] == seat:
        st.info[g, C.I_UNO_CALLED] = -1
    payer, extra, plays = challenge_verdict(st, g, seat, challenge)
    draw_cards(st, g, sp, payer, total + extra)
    begin_decision(st, g, sp, seat if plays else seat_after(st, g, sp, seat, 1),
                   C.PHASE_PLAY)


@njit
def apply_action(st, g, sp, action):
    """Apply a legal ``action`` of the current decider, with the house rules."""
    if common_move(st, g, sp, action) != NOT_COMMON:
        return
    lay = sp.layout
    seat = st.info[g, C.I_CURRENT]
    phase = st.info[g, C.I_PHASE]
    if phase == C.PHASE_CHALLENGE:
        _answer_draw(st, g, sp, seat, action == lay[C.L_CHALLENGE])
        return
    if phase == C.PHASE_SWAP:
        # swap:+k: the player k seats ahead in the current direction (docs/rules.md 1, 3)
        _exchange(st, g, sp, seat, seat_after(st, g, sp, seat, action - lay[C.L_SWAP] + 1))
        st.info[g, C.I_SWAPS_LEFT] -= 1
        if st.info[g, C.I_SWAPS_LEFT] <= 0:
            _finish(st, g, sp, seat, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)
        return
    if phase == C.PHASE_STACK and (action == lay[C.L_ACCEPT]
                                   or action == lay[C.L_CHALLENGE]):
        _answer_draw(st, g, sp, seat, action == lay[C.L_CHALLENGE])
        return
    if action == lay[C.L_PASS]:
        if phase == C.PHASE_JUMP_IN:
            if st.info[g, C.I_UNO_CALLED] == seat:
                st.info[g, C.I_UNO_CALLED] = -1
            origin = st.info[g, C.I_JUMP_FROM]
            j = _next_jumper(st, g, sp, seat, origin, top_type(st, g))
            if j >= 0:
                begin_decision(st, g, sp, j, C.PHASE_JUMP_IN)
            else:
                st.info[g, C.I_JUMP_FROM] = -1
                begin_decision(st, g, sp, st.info[g, C.I_RESUME_SEAT],
                               st.info[g, C.I_RESUME_PHASE])
        elif phase == C.PHASE_MULTI:
            _resolve(st, g, sp, seat)
        else:  # keep the card just drawn
            pass_turn(st, g, sp, seat)
        return
    if action == lay[C.L_DRAW]:
        _draw(st, g, sp, seat)
        return
    if phase == C.PHASE_JUMP_IN:
        # the jump-in is the jumper's turn; the decision held back is dropped
        st.info[g, C.I_JUMP_FROM] = -1
        st.info[g, C.I_STAT_JUMP_INS] += 1
    elif phase == C.PHASE_STACK:
        st.info[g, C.I_STAT_STACKED] += 1
    elif phase == C.PHASE_MULTI:
        st.info[g, C.I_STAT_MULTI] += 1
    if action < lay[C.L_WILD]:
        _play(st, g, sp, seat, sp.play_slot_type[action - lay[C.L_PLAY]], 0)
    else:
        w = (action - lay[C.L_WILD]) // 4
        _play(st, g, sp, seat, sp.wild_slot_type[w], (action - lay[C.L_WILD]) % 4)


@njit
def observe_fields(st, g, sp, seat, out):
    """The house-rule fields of the observation, present with their flag only
    (``engine/observe.py``): ``jump_from``/``jump_resume`` during a jump-in window,
    ``multi_count`` during a multi-card play."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    at = sp.obs_at
    if sp.rules[C.R_JUMP_IN] != 0 and st.info[g, C.I_PHASE] == C.PHASE_JUMP_IN:
        out[at[C.O_JUMP_FROM] + (st.info[g, C.I_JUMP_FROM] - seat) % num_players] = 1.0
        out[at[C.O_JUMP_RESUME] + (st.info[g, C.I_RESUME_SEAT] - seat) % num_players] = 1.0
    if sp.rules[C.R_MULTI_PLAY] != 0:
        out[at[C.O_MULTI_COUNT]] = st.info[g, C.I_MULTI_COUNT]
