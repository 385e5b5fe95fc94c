"""The rules of play as numba kernels over one game ``g`` of a batched ``State``.

Public kernels: ``reset_game`` (deal a fresh match), ``deal`` (one round), ``legal_mask``
(the current decider's legal actions), ``is_legal``, ``apply_action`` (assumes a legal
action) and ``try_action`` (checks first, leaves the state untouched when illegal).
Everything follows RULES.md section 2; comments cite its paragraphs.

Private helpers take ``(st, g, sp, ...)``: the state, the game index and the ``Spec``.
"""
import numpy as np

from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine.rng import below, shuffle_prefix

# --- small queries -----------------------------------------------------------------------


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
    """Ranks put back into the draw pile when turned up first (RULES.md 2, 4, 5, 6)."""
    return (rank == C.WILD4 or rank == C.WILD_SHUFFLE or rank == C.WILD_CUSTOM
            or rank == C.WILD2 or rank == C.FLIP or rank == C.BLACKBEARD
            or rank == C.ACE or rank == C.HANCOCK)


@njit(inline="always")
def active_face(st, g, sp, t):
    """Face of card type ``t`` on the side in play, for single-sided decks (and Flip's
    light side). The flip kernels use ``face_in_play``: a branch here costs the classic
    hot loops about 15% (measured)."""
    return sp.type_face[t, st.info[g, C.I_SIDE]]


@njit(inline="always")
def face_in_play(st, g, sp, t):
    """Face of card type ``t`` on the side in play for any deck: Flip's dark faces are
    the match's own pairing (``State.dark_face``; RULES.md 5)."""
    if st.info[g, C.I_SIDE] == 0:
        return sp.type_face[t, 0]
    return np.int32(st.dark_face[g, t])


@njit(inline="always")
def seat_after(st, g, sp, seat, k):
    """The seat ``k`` places after ``seat`` in the current direction."""
    return (seat + k * st.info[g, C.I_DIRECTION]) % sp.rules[C.R_NUM_PLAYERS]


@njit(inline="always")
def top_type(st, g):
    return st.discard[g, st.info[g, C.I_DISCARD_LEN] - 1]


@njit(inline="always")
def holds_color(st, g, sp, seat, color):
    """Does ``seat`` hold a coloured card of ``color``? (wilds never count; RULES.md 2)"""
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0 and sp.face_color[active_face(st, g, sp, t)] == color:
            return True
    return False


@njit(inline="always")
def matches_pile(st, g, sp, t):
    """Colour, number/symbol or wild match against the pile (RULES.md 2, "A turn")."""
    f = active_face(st, g, sp, t)
    rank = sp.face_rank[f]
    if rank >= C.FIRST_WILD_RANK:
        return True
    if sp.face_color[f] == st.info[g, C.I_COLOR]:
        return True
    top_rank = sp.face_rank[active_face(st, g, sp, top_type(st, g))]
    return top_rank == rank


@njit(inline="always")
def may_play(st, g, sp, seat, t):
    """``matches_pile`` plus the Wild Draw Four restriction when bluffing is off."""
    if not matches_pile(st, g, sp, t):
        return False
    if sp.face_rank[active_face(st, g, sp, t)] == C.WILD4 and sp.rules[C.R_BLUFF] == 0:
        return not holds_color(st, g, sp, seat, st.info[g, C.I_COLOR])
    return True


@njit
def hand_points(st, g, sp, seat):
    """Points of a hand on the active side (RULES.md 2, "Points")."""
    total = 0
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0:
            f = face_in_play(st, g, sp, t) if sp.rules[C.R_FLIP] != 0 \
                else active_face(st, g, sp, t)
            total += st.hands[g, seat, t] * sp.face_points[f]
    return total


# --- legal actions -----------------------------------------------------------------------


@njit(inline="always")
def _set_play_actions(st, g, sp, t, mask):
    """Mark the actions that play card type ``t``; returns how many (4 for a wild)."""
    f = active_face(st, g, sp, t)
    if sp.face_rank[f] >= C.FIRST_WILD_RANK:
        base = sp.layout[C.L_WILD] + 4 * sp.type_wild_slot[t]
        for c in range(4):
            mask[base + c] = 1
        return 4
    mask[sp.layout[C.L_PLAY] + sp.type_play_slot[t]] = 1
    return 1


@njit(inline="always")
def _set_hand_plays(st, g, sp, seat, mask):
    """Mark every card of ``seat``'s hand that may be played (``may_play``, with the
    per-position lookups hoisted out of the loop: this is the hottest loop of the
    engine). Returns the number of actions marked (a wild marks one per colour)."""
    side = st.info[g, C.I_SIDE]
    color = st.info[g, C.I_COLOR]
    top_rank = sp.face_rank[sp.type_face[top_type(st, g), side]]
    play_base = sp.layout[C.L_PLAY]
    wild_base = sp.layout[C.L_WILD]
    w4_checked = sp.rules[C.R_BLUFF] != 0  # with bluffing, W4 needs no check
    w4_allowed = True
    plays = 0
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] == 0:
            continue
        f = sp.type_face[t, side]
        rank = sp.face_rank[f]
        if rank >= C.FIRST_WILD_RANK:
            if rank == C.WILD4 and not w4_checked:
                w4_allowed = not holds_color(st, g, sp, seat, color)
                w4_checked = True
            if rank == C.WILD4 and not w4_allowed:
                continue
            base = wild_base + 4 * sp.type_wild_slot[t]
            for c in range(4):
                mask[base + c] = 1
            plays += 4
        elif sp.face_color[f] == color or rank == top_rank:
            mask[play_base + sp.type_play_slot[t]] = 1
            plays += 1
    return plays


@njit
def legal_mask(st, g, sp, mask):
    """Fill ``mask`` (uint8/int8[A]) with the current decider's legal actions.

    Returns the number of legal actions (0 only when the episode is over)."""
    mask[:] = 0
    phase = st.info[g, C.I_PHASE]
    if phase == C.PHASE_OVER:
        return 0
    if sp.rules[C.R_HOUSE] != 0:  # house rules (RULES.md 3, 4): engine/house.py
        if sp.rules[C.R_ONEPIECE] != 0:  # UNO One Piece (RULES.md 6): engine/onepiece.py
            return op_legal_mask(st, g, sp, mask)
        return house_legal_mask(st, g, sp, mask)
    if sp.rules[C.R_FLIP] != 0:  # UNO Flip (RULES.md 5): engine/flip.py
        return flip_legal_mask(st, g, sp, mask)
    seat = st.info[g, C.I_CURRENT]
    uno_rule = sp.rules[C.R_UNO_CALL] != 0
    n = 0
    if phase == C.PHASE_COLOR:
        for c in range(4):
            mask[sp.layout[C.L_COLOR] + c] = 1
        return 4
    if phase == C.PHASE_CHALLENGE:
        mask[sp.layout[C.L_CHALLENGE]] = 1
        mask[sp.layout[C.L_ACCEPT]] = 1
        n = 2
    elif phase == C.PHASE_PLAY:
        plays = _set_hand_plays(st, g, sp, seat, mask)
        # drawing is always allowed (RULES.md 2: seed 002, official); with both piles dry
        # it simply ends the turn, so a decision always has a legal action.
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
    # the chance to catch belongs to the next decider, beside whatever else is legal
    catchable = st.info[g, C.I_CATCHABLE]
    if uno_rule and catchable >= 0 and catchable != seat:
        mask[sp.layout[C.L_CATCH]] = 1
        n += 1
    return n


@njit
def is_legal(st, g, sp, action, scratch):
    if action < 0 or action >= sp.layout[C.L_SIZE]:
        return False
    legal_mask(st, g, sp, scratch)
    return scratch[action] != 0


# --- piles -------------------------------------------------------------------------------


@njit
def reshuffle(st, g, sp):
    """Empty draw pile: the discard pile except its top card becomes the new draw pile
    (RULES.md 2, "Empty draw pile")."""
    n = st.info[g, C.I_DISCARD_LEN] - 1
    if n <= 0:
        return
    top = st.discard[g, n]
    base = st.info[g, C.I_DRAW_LEN]
    for i in range(n):
        t = st.discard[g, i]
        st.draw_pile[g, base + i] = t
        st.discard_counts[g, t] -= 1
    # the (empty) draw pile receives the old discards, shuffled
    shuffle_prefix(st.rng, g, st.draw_pile[g], base + n)
    st.discard[g, 0] = top
    st.info[g, C.I_DISCARD_LEN] = 1
    st.info[g, C.I_DRAW_LEN] = base + n
    st.info[g, C.I_STAT_RESHUFFLES] += 1


@njit(inline="always")
def draw_cards(st, g, sp, seat, count):
    """``seat`` draws up to ``count`` cards, reshuffling at most once (RULES.md 2,
    precise points: penalty draws take what can be drawn after one reshuffle).
    Returns the type of the last card drawn, or -1 if none could be drawn."""
    last = -1
    reshuffled = False
    for _ in range(count):
        if st.info[g, C.I_DRAW_LEN] == 0:
            if reshuffled:
                break
            reshuffle(st, g, sp)
            reshuffled = True
            if st.info[g, C.I_DRAW_LEN] == 0:
                break
        st.info[g, C.I_DRAW_LEN] -= 1
        last = st.draw_pile[g, st.info[g, C.I_DRAW_LEN]]
        st.hands[g, seat, last] += 1
        st.hand_size[g, seat] += 1
        st.info[g, C.I_STAT_CARDS_DRAWN] += 1
    return last


@njit(inline="always")
def _to_discard(st, g, t):
    n = st.info[g, C.I_DISCARD_LEN]
    st.discard[g, n] = t
    st.discard_counts[g, t] += 1
    st.info[g, C.I_DISCARD_LEN] = n + 1


# --- turn bookkeeping --------------------------------------------------------------------


@njit(inline="always")
def begin_decision(st, g, sp, seat, phase):
    """Hand the next decision to ``seat``. If that is the UNO offender, the chance to
    catch them is gone (RULES.md 2, precise points)."""
    st.info[g, C.I_CURRENT] = seat
    st.info[g, C.I_PHASE] = phase
    if st.info[g, C.I_CATCHABLE] == seat:
        st.info[g, C.I_CATCHABLE] = -1


@njit(inline="always")
def finish_turn(st, g, sp, seat):
    """End ``seat``'s turn. Returns True when ``max_turns`` truncates the round."""
    st.info[g, C.I_TURNS] += 1
    if st.info[g, C.I_CATCH_PENDING] == seat and st.hand_size[g, seat] == 1:
        st.info[g, C.I_CATCHABLE] = seat
    st.info[g, C.I_CATCH_PENDING] = -1
    st.info[g, C.I_UNO_CALLED] = -1
    st.info[g, C.I_DRAWN_TYPE] = -1
    if st.info[g, C.I_TURNS] >= sp.rules[C.R_MAX_TURNS]:
        st.info[g, C.I_STATUS] = C.STATUS_TRUNCATED
        st.info[g, C.I_PHASE] = C.PHASE_OVER
        return True
    return False


@njit
def end_round(st, g, sp, winner):
    """Score the round; end the episode, or deal the next round of a match (the winner
    deals; RULES.md 2, "Round end" and "Dealer and order")."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    st.info[g, C.I_WINNER] = winner
    st.info[g, C.I_LAST_ROUND_OVER] = 1
    if sp.rules[C.R_TEAMS] != 0:
        _end_round_teams(st, g, sp, winner)
        return
    total = 0
    for q in range(num_players):
        st.round_points[g, q] = 0
        if q != winner:
            pts = hand_points(st, g, sp, q)
            total += pts
            if sp.rules[C.R_SCORING] == C.SCORING_PENALTY:
                st.round_points[g, q] = pts
            if sp.rules[C.R_REWARD] == C.REWARD_SCORE:
                st.rewards[g, q] = -pts
    if sp.rules[C.R_SCORING] == C.SCORING_WINNER:
        st.round_points[g, winner] = total
    if sp.rules[C.R_REWARD] == C.REWARD_SCORE:
        st.rewards[g, winner] = total
    target = sp.rules[C.R_TARGET_SCORE]
    match_winner = -1
    if target == 0:
        match_winner = winner
    else:
        for q in range(num_players):
            st.scores[g, q] += st.round_points[g, q]
        if sp.rules[C.R_SCORING] == C.SCORING_WINNER:
            if st.scores[g, winner] >= target:
                match_winner = winner
        else:
            reached = False
            low = 0
            for q in range(num_players):
                if st.scores[g, q] >= target:
                    reached = True
                if st.scores[g, q] < st.scores[g, low]:
                    low = q
            if reached:  # the lowest total wins (ties: the lower seat)
                match_winner = low
    if match_winner >= 0:
        st.info[g, C.I_MATCH_WINNER] = match_winner
        st.info[g, C.I_STATUS] = C.STATUS_OVER
        st.info[g, C.I_PHASE] = C.PHASE_OVER
        if sp.rules[C.R_REWARD] == C.REWARD_WIN:
            for q in range(num_players):
                st.rewards[g, q] = -1.0 / (num_players - 1)
            st.rewards[g, match_winner] = 1.0
    else:
        deal(st, g, sp, winner)


@njit
def _end_round_teams(st, g, sp, winner):
    """``teams=True`` (RULES.md 2 "Teams", 3 precise points, 7): seats 0+2 against 1+3.
    The winner's team wins the round; the winner's ``round_points`` entry holds the
    other team's points, every other entry 0. Rewards are shared by the team: "win"
    gives +1 to each winner and -1 to each loser (zero-sum); "score" gives each winner
    +points and each loser -points. A match ends when a team's total (the sum of its
    two seats' scores) reaches ``target_score``; the match winner is the seat that
    went out in that round. Scoring is always "winner" (``Rules.validate``)."""
    total = 0
    for q in range(4):
        st.round_points[g, q] = 0
        if (q - winner) % 2 != 0:
            total += hand_points(st, g, sp, q)
    st.round_points[g, winner] = total
    if sp.rules[C.R_REWARD] == C.REWARD_SCORE:
        for q in range(4):
            st.rewards[g, q] = total if (q - winner) % 2 == 0 else -total
    target = sp.rules[C.R_TARGET_SCORE]
    over = target == 0
    if not over:
        for q in range(4):
            st.scores[g, q] += st.round_points[g, q]
        over = st.scores[g, winner] + st.scores[g, (winner + 2) % 4] >= target
    if over:
        st.info[g, C.I_MATCH_WINNER] = winner
        st.info[g, C.I_STATUS] = C.STATUS_OVER
        st.info[g, C.I_PHASE] = C.PHASE_OVER
        if sp.rules[C.R_REWARD] == C.REWARD_WIN:
            for q in range(4):
                st.rewards[g, q] = 1.0 if (q - winner) % 2 == 0 else -1.0
    else:
        deal(st, g, sp, winner)


# --- dealing -----------------------------------------------------------------------------


@njit
def deal(st, g, sp, dealer):
    """Shuffle the whole deck, deal, turn up the first card and apply its effect
    (RULES.md 2, "First card turned up")."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    st.hands[g] = 0
    st.hand_size[g] = 0
    st.discard_counts[g] = 0
    n = 0
    for t in range(sp.type_count.shape[0]):
        for _ in range(sp.type_count[t]):
            st.draw_pile[g, n] = t
            n += 1
    shuffle_prefix(st.rng, g, st.draw_pile[g], n)
    st.info[g, C.I_DRAW_LEN] = n
    st.info[g, C.I_DISCARD_LEN] = 0
    st.info[g, C.I_DIRECTION] = 1
    st.info[g, C.I_SIDE] = 0
    st.info[g, C.I_DRAWN_TYPE] = -1
    st.info[g, C.I_UNO_CALLED] = -1
    st.info[g, C.I_CATCH_PENDING] = -1
    st.info[g, C.I_CATCHABLE] = -1
    st.info[g, C.I_W4_PLAYER] = -1
    st.info[g, C.I_W4_GUILTY] = 0
    st.info[g, C.I_W4_PREV_COLOR] = C.NO_COLOR
    st.info[g, C.I_PENDING_DRAW] = 0
    st.info[g, C.I_JUMP_FROM] = -1
    st.info[g, C.I_RESUME_SEAT] = -1
    st.info[g, C.I_RESUME_PHASE] = C.PHASE_PLAY
    st.info[g, C.I_MULTI_COUNT] = 0
    st.info[g, C.I_SWAPS_LEFT] = 0
    st.info[g, C.I_TURNS] = 0
    st.info[g, C.I_DEALER] = dealer
    st.info[g, C.I_ROUND] += 1
    st.info[g, C.I_STATUS] = C.STATUS_PLAYING
    # one card at a time, starting left of the dealer
    for _ in range(sp.rules[C.R_HAND_SIZE]):
        for k in range(1, num_players + 1):
            seat = (dealer + k) % num_players
            n -= 1
            t = st.draw_pile[g, n]
            st.hands[g, seat, t] += 1
            st.hand_size[g, seat] += 1
    st.info[g, C.I_DRAW_LEN] = n
    # turn up the first card; W4 (and WS, WX ...) go back at a random place
    while True:
        n = st.info[g, C.I_DRAW_LEN] - 1
        t = st.draw_pile[g, n]
        if not is_first_card_redo(sp.face_rank[sp.type_face[t, 0]]):
            st.info[g, C.I_DRAW_LEN] = n
            _to_discard(st, g, t)
            break
        pos = below(st.rng, g, n + 1)
        for i in range(n, pos, -1):
            st.draw_pile[g, i] = st.draw_pile[g, i - 1]
        st.draw_pile[g, pos] = t
    start_round(st, g, sp)


@njit
def start_round(st, g, sp):
    """Apply the first card's effect and hand the first decision out."""
    dealer = st.info[g, C.I_DEALER]
    first = (dealer + 1) % sp.rules[C.R_NUM_PLAYERS]
    f = active_face(st, g, sp, top_type(st, g))
    rank = sp.face_rank[f]
    st.info[g, C.I_COLOR] = sp.face_color[f]
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = C.NO_COLOR
        begin_decision(st, g, sp, first, C.PHASE_COLOR)
    elif rank == C.SKIP:
        begin_decision(st, g, sp, seat_after(st, g, sp, dealer, 2), C.PHASE_PLAY)
    elif rank == C.REVERSE:
        st.info[g, C.I_DIRECTION] = -1
        begin_decision(st, g, sp, dealer, C.PHASE_PLAY)
    elif rank == C.DRAW2 or rank == C.DRAW1:  # D1: UNO Flip's light side (RULES.md 5)
        draw_cards(st, g, sp, first, rank_draw(rank))
        begin_decision(st, g, sp, seat_after(st, g, sp, dealer, 2), C.PHASE_PLAY)
    else:
        begin_decision(st, g, sp, first, C.PHASE_PLAY)


@njit
def reset_game(st, g, sp):
    """A fresh match: zero scores and counters, deal the first round."""
    st.info[g] = 0
    st.scores[g] = 0
    st.round_points[g] = 0
    st.rewards[g] = 0.0
    st.info[g, C.I_WINNER] = -1
    st.info[g, C.I_MATCH_WINNER] = -1
    if st.dark_face.shape[1] > 0:  # UNO Flip: this match's pairing of sides (RULES.md 5)
        draw_pairing(st, g, sp)
    deal(st, g, sp, sp.rules[C.R_DEALER])


# --- playing -----------------------------------------------------------------------------


@njit(inline="always")
def _play_card(st, g, sp, seat, t, color_slot):
    f = active_face(st, g, sp, t)
    rank = sp.face_rank[f]
    prev_color = st.info[g, C.I_COLOR]
    guilty = False
    if rank == C.WILD4:
        # guilt is judged on the hand as played, against the colour in force (RULES.md 2)
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
    num_players = sp.rules[C.R_NUM_PLAYERS]
    nxt = seat_after(st, g, sp, seat, 1)

    if st.hand_size[g, seat] == 0:
        # going out ends the round at once; only a last D2/W4 still makes the next
        # player draw, without a challenge (RULES.md 2, "Round end" and precise points)
        n = rank_draw(rank)
        if n > 0:
            draw_cards(st, g, sp, nxt, n)
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
            again = seat if num_players == 2 else seat_after(st, g, sp, seat, 1)
            begin_decision(st, g, sp, again, C.PHASE_PLAY)
    elif rank == C.DRAW2:
        draw_cards(st, g, sp, nxt, 2)
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif rank == C.WILD4:
        if sp.rules[C.R_BLUFF] != 0:
            st.info[g, C.I_W4_PLAYER] = seat
            st.info[g, C.I_W4_GUILTY] = guilty
            st.info[g, C.I_W4_PREV_COLOR] = prev_color
            if not finish_turn(st, g, sp, seat):
                st.info[g, C.I_PENDING_DRAW] = 4
                begin_decision(st, g, sp, nxt, C.PHASE_CHALLENGE)
        else:
            draw_cards(st, g, sp, nxt, 4)
            if not finish_turn(st, g, sp, seat):
                begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    else:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, nxt, C.PHASE_PLAY)


@njit(inline="always")
def _answer_challenge(st, g, sp, seat, challenge):
    """The Wild Draw Four victim's answer (RULES.md 2): accept draws 4 and loses the turn;
    a challenge shows the hand: guilty, the W4 player draws 4 and the challenger plays;
    innocent, the challenger draws 6 and loses the turn."""
    st.info[g, C.I_PENDING_DRAW] = 0
    if not challenge:
        draw_cards(st, g, sp, seat, 4)
        begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)
        return
    st.info[g, C.I_STAT_CHALLENGES] += 1
    if st.info[g, C.I_W4_GUILTY] != 0:
        st.info[g, C.I_STAT_CHALLENGES_WON] += 1
        draw_cards(st, g, sp, st.info[g, C.I_W4_PLAYER], 4)
        begin_decision(st, g, sp, seat, C.PHASE_PLAY)
    else:
        draw_cards(st, g, sp, seat, 6)
        begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)


# The house-rule kernels use the helpers above; they are imported here, after those
# helpers exist, and only run when ``rules[R_HOUSE]`` is set (classic never enters them).
from uno_env.engine.house import house_apply, house_legal_mask  # noqa: E402
from uno_env.engine.onepiece import op_apply, op_legal_mask  # noqa: E402
# The same for UNO Flip: only with ``rules[R_FLIP]`` (the flip deck).
from uno_env.engine.flip import draw_pairing, flip_apply, flip_legal_mask  # noqa: E402


@njit
def apply_action(st, g, sp, action):
    """Apply a legal ``action`` of the current decider (check with ``is_legal`` first)."""
    if sp.rules[C.R_HOUSE] != 0:  # house rules (RULES.md 3, 4): engine/house.py
        if sp.rules[C.R_ONEPIECE] != 0:  # UNO One Piece (RULES.md 6): engine/onepiece.py
            op_apply(st, g, sp, action)
        else:
            house_apply(st, g, sp, action)
        return
    if sp.rules[C.R_FLIP] != 0:  # UNO Flip (RULES.md 5): engine/flip.py
        flip_apply(st, g, sp, action)
        return
    seat = st.info[g, C.I_CURRENT]
    st.info[g, C.I_LAST_ROUND_OVER] = 0
    st.rewards[g] = 0.0
    if action == sp.layout[C.L_CATCH]:
        # the offender draws 2; the catcher's decision stays open (RULES.md 2)
        draw_cards(st, g, sp, st.info[g, C.I_CATCHABLE], 2)
        st.info[g, C.I_CATCHABLE] = -1
        st.info[g, C.I_STAT_CATCHES] += 1
        return
    st.info[g, C.I_CATCHABLE] = -1  # any other move closes the chance to catch
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
        if t >= 0 and may_play(st, g, sp, seat, t):
            # draw-then-play: only the drawn card, or pass (RULES.md 2, "A turn")
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
        t = sp.play_slot_type[action - sp.layout[C.L_PLAY]]
        _play_card(st, g, sp, seat, t, 0)
    else:
        w = (action - sp.layout[C.L_WILD]) // 4
        _play_card(st, g, sp, seat, sp.wild_slot_type[w], (action - sp.layout[C.L_WILD]) % 4)


@njit
def try_action(st, g, sp, action, scratch):
    """Apply ``action`` if legal and return True; return False and change nothing if not."""
    if not is_legal(st, g, sp, action, scratch):
        return False
    apply_action(st, g, sp, action)
    return True


@njit
def reset_batch(st, sp):
    for g in range(st.info.shape[0]):
        reset_game(st, g, sp)


@njit
def random_legal(st, g, sp, scratch):
    """A uniformly random legal action of the current decider, drawn from the game's own
    stream (the random agent's kernel); -1 when the episode is over."""
    n = legal_mask(st, g, sp, scratch)
    if n == 0:
        return -1
    k = below(st.rng, g, n)
    for a in range(scratch.shape[0]):
        if scratch[a] != 0:
            if k == 0:
                return a
            k -= 1
    return -1


@njit
def play_random_games(st, sp, max_steps):
    """Play every game of the batch to its end with random legal actions. Returns the
    steps taken (used by tests and the quick benchmark)."""
    scratch = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    steps = 0
    for g in range(st.info.shape[0]):
        for _ in range(max_steps):
            a = random_legal(st, g, sp, scratch)
            if a < 0:
                break
            apply_action(st, g, sp, a)
            steps += 1
    return steps


#: bits of ``step_and_mask``'s result above the next decider's seat
STEP_ROUND_ENDED = 1 << 8    # a round ended in this step (rewards may have been given)
STEP_EPISODE_ENDED = 1 << 9  # the episode is over (terminated or truncated)
STEP_SEAT_MASK = 0xFF


@njit
def step_and_mask(st, g, sp, action, mask):
    """``apply_action`` then refill ``mask`` for the next decider, in one kernel call per
    environment step. Returns the next decider's seat OR the ``STEP_*`` bits."""
    apply_action(st, g, sp, action)
    legal_mask(st, g, sp, mask)
    out = st.info[g, C.I_CURRENT]
    if st.info[g, C.I_LAST_ROUND_OVER] != 0:
        out |= STEP_ROUND_ENDED
    if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
        out |= STEP_EPISODE_ENDED
    return out
