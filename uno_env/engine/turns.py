"""Turn bookkeeping shared by every variant: whose decision it is, the end of a turn,
the moves every variant answers the same way (``catch``, ``uno``, naming a colour), and
the verdict of a challenge (docs/rules.md section 2)."""
from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.faces import face
from uno_env.engine.piles import draw_cards


@njit(inline="always")
def seat_after(st, g, sp, seat, k):
    """The seat ``k`` places after ``seat`` in the current direction."""
    return (seat + k * st.info[g, C.I_DIRECTION]) % sp.rules[C.R_NUM_PLAYERS]


@njit(inline="always")
def top_type(st, g):
    return st.discard[g, st.info[g, C.I_DISCARD_LEN] - 1]


@njit(inline="always")
def begin_decision(st, g, sp, seat, phase):
    """Hand the next decision to ``seat``. If that is the UNO offender, the chance to
    catch them is gone (docs/rules.md section 2, precise points)."""
    st.info[g, C.I_CURRENT] = seat
    st.info[g, C.I_PHASE] = phase
    if st.info[g, C.I_CATCHABLE] == seat:
        st.info[g, C.I_CATCHABLE] = -1


@njit(inline="always")
def finish_turn(st, g, sp, seat):
    """End ``seat``'s turn. Returns True when ``max_turns`` truncates the round."""
    st.info[g, C.I_TURNS] += 1
    if st.info[g, C.I_SHOWN_TO] == seat:  # a hand shown to it is kept for one turn
        st.info[g, C.I_SHOWN_TO] = -1
    if st.info[g, C.I_CATCH_PENDING] == seat and st.hand_size[g, seat] == 1:
        st.info[g, C.I_CATCHABLE] = seat
    st.info[g, C.I_CATCH_PENDING] = -1
    st.info[g, C.I_UNO_CALLED] = -1
    st.info[g, C.I_DRAWN_TYPE] = -1
    if st.info[g, C.I_TURNS] >= sp.rules[C.R_MAX_TURNS]:
        st.info[g, C.I_STATUS] = C.STATUS_TRUNCATED
        st.info[g, C.I_PHASE] = C.PHASE_OVER
        if sp.rules[C.R_SETTLE_CUT] != 0:
            settle_cut(st, g, sp)
        return True
    return False


@njit
def _standing(st, g, sp, seat):
    """What a seat holds at a cut: its cards (``reward="win"``), or their points on the
    side in play (``reward="score"``)."""
    if sp.rules[C.R_REWARD] != C.REWARD_SCORE:
        return st.hand_size[g, seat]
    return hand_points(st, g, sp, seat)


@njit
def hand_points(st, g, sp, seat):
    """Points of a hand on the side in play (docs/rules.md section 2, "Points")."""
    total = 0
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0:
            total += st.hands[g, seat, t] * sp.face_points[face(st, g, sp, t)]
    return total


@njit
def settle_cut(st, g, sp):
    """``settle_cut=True`` (docs/rules.md 7): a round cut by ``max_turns`` pays each seat
    by its standing, zero-sum, so that stalling to the cut does not pay. ``reward="win"``:
    the seats holding the fewest cards share the win, ``(P / k - 1) / (P - 1)`` each
    (``k`` of them; one: +1, the win reward) and every other seat gets ``-1 / (P - 1)``;
    teams: the team holding fewer cards +1 each, the other -1, a tie 0. ``"score"``: each
    pair of seats settles the difference of their hands' points, ``sum_q (pts_q -
    pts_s)`` to seat ``s``; teams: each seat gets the other team's points less its own
    team's."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    score = sp.rules[C.R_REWARD] == C.REWARD_SCORE
    if sp.rules[C.R_TEAMS] != 0:
        even = _standing(st, g, sp, 0) + _standing(st, g, sp, 2)
        odd = _standing(st, g, sp, 1) + _standing(st, g, sp, 3)
        if score:
            value = float(odd - even)
        else:
            value = 1.0 if even < odd else (-1.0 if even > odd else 0.0)
        for q in range(4):
            st.rewards[g, q] = value if q % 2 == 0 else -value
        return
    low = _standing(st, g, sp, 0)
    total = 0
    for q in range(num_players):
        own = _standing(st, g, sp, q)
        total += own
        low = min(low, own)
    if score:
        for q in range(num_players):
            st.rewards[g, q] = total - num_players * _standing(st, g, sp, q)
        return
    leaders = 0
    for q in range(num_players):
        if _standing(st, g, sp, q) == low:
            leaders += 1
    for q in range(num_players):
        if _standing(st, g, sp, q) == low:
            st.rewards[g, q] = (num_players / leaders - 1.0) / (num_players - 1)
        else:
            st.rewards[g, q] = -1.0 / (num_players - 1)


@njit(inline="always")
def pass_turn(st, g, sp, seat):
    """``seat``'s turn ends without a card played: the next player decides."""
    if not finish_turn(st, g, sp, seat):
        begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)


@njit(inline="always")
def mark_uncalled(st, g, sp, seat):
    """A play left ``seat`` one card without an UNO call: catchable after the turn."""
    if st.hand_size[g, seat] == 1 and sp.rules[C.R_UNO_CALL] != 0 \
            and st.info[g, C.I_UNO_CALLED] != seat:
        st.info[g, C.I_CATCH_PENDING] = seat


#: a variant's ``random_move`` has no shortcut for this decision (``dispatch.random_action``)
NO_SHORTCUT = -2

#: ``common_move`` results besides a caught seat
NOT_COMMON = -1   # the move is the variant's to apply
DONE = -2         # applied


@njit(inline="always")
def common_move(st, g, sp, action):
    """Start applying a move: clear the last step's rewards, then apply the moves every
    variant treats alike (docs/rules.md section 2): ``catch`` (the offender draws 2; the
    catcher's decision stays open), ``uno``, and naming the colour of a wild turned up
    by the deal or a flip. Any other move closes the chance to catch. Returns the seat
    caught, ``DONE``, or ``NOT_COMMON`` for a move the variant applies itself."""
    seat = st.info[g, C.I_CURRENT]
    st.info[g, C.I_LAST_ROUND_OVER] = 0
    st.rewards[g] = 0.0
    if action == sp.layout[C.L_CATCH]:
        offender = st.info[g, C.I_CATCHABLE]
        draw_cards(st, g, sp, offender, 2)
        st.info[g, C.I_CATCHABLE] = -1
        st.info[g, C.I_STAT_CATCHES] += 1
        return offender
    st.info[g, C.I_CATCHABLE] = -1
    if action == sp.layout[C.L_UNO]:
        st.info[g, C.I_UNO_CALLED] = seat
        return DONE
    if st.info[g, C.I_PHASE] == C.PHASE_COLOR:
        st.info[g, C.I_COLOR] = action - sp.layout[C.L_COLOR] + 4 * st.info[g, C.I_SIDE]
        begin_decision(st, g, sp, seat, C.PHASE_PLAY)
        return DONE
    return NOT_COMMON


@njit(inline="always")
def show_hand(st, g, player, challenger):
    """``player``'s hand is shown to ``challenger`` (``State.shown``), who sees it in
    its observation until the end of its next turn (``engine/observe.py``)."""
    st.info[g, C.I_SHOWN_TO] = challenger
    st.info[g, C.I_SHOWN_BY] = player
    for t in range(st.shown.shape[1]):
        st.shown[g, t] = st.hands[g, player, t]


@njit(inline="always")
def challenge_verdict(st, g, seat, challenge):
    """Who pays for a challengeable wild draw (docs/rules.md section 2). Accept: the
    victim ``seat`` pays and loses the turn. A challenge shows the player's hand: guilty,
    the player pays and the challenger takes a normal turn; innocent, the challenger
    pays two cards more and loses the turn. Returns (payer, extra cards, challenger
    plays)."""
    if not challenge:
        return seat, 0, False
    st.info[g, C.I_STAT_CHALLENGES] += 1
    show_hand(st, g, st.info[g, C.I_W4_PLAYER], seat)
    if st.info[g, C.I_W4_GUILTY] != 0:
        st.info[g, C.I_STAT_CHALLENGES_WON] += 1
        return st.info[g, C.I_W4_PLAYER], 0, True
    return seat, 2, False
