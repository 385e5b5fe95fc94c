"""Classic UNO under the official rules (docs/rules.md section 2) as kernels over one
game ``g``: the variant ``classic`` (``Rules.variant``), which also plays teams, match
scoring, rewards and the other flags of section 2 and 7. The entry names are those of
every variant module: ``legal_mask`` and ``apply_action``; ``random_move`` is the
random agent's shortcut, which a variant may have (``dispatch.random_action``)."""
from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.faces import face, rank_draw
from uno_env.engine.piles import discard_from_hand, draw_cards
from uno_env.engine.plays import (
    bit_hand_plays, holds_color, may_play, official_legal_mask, official_random_play,
    set_hand_plays)
from uno_env.engine.rounds import go_out
from uno_env.engine.turns import (
    NO_SHORTCUT, NOT_COMMON, begin_decision, challenge_verdict, common_move, finish_turn,
    mark_uncalled, pass_turn, seat_after,
)
from uno_env.engine.variants import ClassicSpec


@set_hand_plays.register(ClassicSpec)
def _hand_plays_by_bits(st, g, sp, seat, mask):
    # the variant's decks have at most 64 types (rules.config refuses more)
    return bit_hand_plays(st, g, sp, seat, mask)


@njit(inline="always")
def legal_mask(st, g, sp, mask):
    """The current decider's legal actions (``mask`` zeroed, the game on)."""
    return official_legal_mask(st, g, sp, mask)


@njit(inline="always")
def random_move(st, g, sp):
    """The random agent's move where it needs no mask: a play decision
    (``plays.official_random_play``); ``NO_SHORTCUT`` elsewhere, and the agent then
    picks from the legal mask (``dispatch.random_action``)."""
    if st.info[g, C.I_PHASE] == C.PHASE_PLAY:
        return official_random_play(st, g, sp)
    return NO_SHORTCUT


@njit(inline="always")
def play_card(st, g, sp, seat, t, color_slot):
    f = face(st, g, sp, t)
    rank = sp.face_rank[f]
    prev_color = st.info[g, C.I_COLOR]
    guilty = False
    if rank == C.WILD4:
        # guilt is judged on the hand as played, against the colour in force (docs/rules.md 2)
        guilty = holds_color(st, g, sp, seat, prev_color)
        st.info[g, C.I_STAT_W4_PLAYED] += 1
        if guilty:
            st.info[g, C.I_STAT_W4_BLUFFS] += 1
    discard_from_hand(st, g, sp, seat, t)
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = color_slot + 4 * st.info[g, C.I_SIDE]
    else:
        st.info[g, C.I_COLOR] = sp.face_color[f]
    num_players = sp.rules[C.R_NUM_PLAYERS]
    nxt = seat_after(st, g, sp, seat, 1)

    going_out = st.hand_size[g, seat] == 0
    # D2 and W4 make the next player draw, except a W4 that may be challenged; going
    # out ends the round at once, and a last D2/W4 still makes the next player draw,
    # without a challenge (docs/rules.md 2, "Round end" and precise points)
    challengeable = rank == C.WILD4 and sp.rules[C.R_BLUFF] != 0 and not going_out
    n = 0 if challengeable else rank_draw(rank)
    if n > 0:
        draw_cards(st, g, sp, nxt, n)
    if going_out:
        go_out(st, g, sp, seat)
        return
    mark_uncalled(st, g, sp, seat)

    # who decides next, in which phase: one tail for every rank, so that the inlined
    # turn bookkeeping is compiled once (it is the bulk of this kernel)
    target = nxt
    phase = C.PHASE_PLAY
    pending = 0
    if rank == C.SKIP:
        target = seat_after(st, g, sp, seat, 2)
    elif rank == C.REVERSE:
        st.info[g, C.I_DIRECTION] = -st.info[g, C.I_DIRECTION]
        # two players: R acts as S, the same player moves again
        target = seat if num_players == 2 else seat_after(st, g, sp, seat, 1)
    elif challengeable:
        st.info[g, C.I_W4_PLAYER] = seat
        st.info[g, C.I_W4_GUILTY] = guilty
        st.info[g, C.I_W4_PREV_COLOR] = prev_color
        phase = C.PHASE_CHALLENGE
        pending = 4
    elif n > 0:  # the next player drew and loses the turn
        target = seat_after(st, g, sp, seat, 2)
    if not finish_turn(st, g, sp, seat):
        if pending > 0:
            st.info[g, C.I_PENDING_DRAW] = pending
        begin_decision(st, g, sp, target, phase)


@njit(inline="always")
def answer_challenge(st, g, sp, seat, challenge):
    """The Wild Draw Four victim's answer (docs/rules.md section 2): accept draws the
    pending 4 and loses the turn; a challenge shows the hand: guilty, the W4 player draws
    4 and the challenger plays; innocent, the challenger draws 6 and loses the turn."""
    pending = st.info[g, C.I_PENDING_DRAW]
    st.info[g, C.I_PENDING_DRAW] = 0
    payer, extra, plays = challenge_verdict(st, g, seat, challenge)
    draw_cards(st, g, sp, payer, pending + extra)
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
    # one call site for each inlined helper (play_card, pass_turn)
    if action == lay[C.L_DRAW]:
        t = draw_cards(st, g, sp, seat, 1)
        if t >= 0 and may_play(st, g, sp, seat, t):
            # draw-then-play: only the drawn card, or pass (docs/rules.md section 2)
            st.info[g, C.I_DRAWN_TYPE] = t
            st.info[g, C.I_PHASE] = C.PHASE_DRAWN
            return
    elif action != lay[C.L_PASS]:
        if action < lay[C.L_WILD]:
            t = sp.play_slot_type[action - lay[C.L_PLAY]]
            color_slot = 0
        else:
            t = sp.wild_slot_type[(action - lay[C.L_WILD]) // 4]
            color_slot = (action - lay[C.L_WILD]) % 4
        play_card(st, g, sp, seat, t, color_slot)
        return
    pass_turn(st, g, sp, seat)


@njit(inline="always")
def observe_fields(st, g, sp, seat, out):
    """Classic UNO adds no field to the observation (``engine/observe.py``)."""
