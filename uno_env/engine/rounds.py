"""Rounds and matches, shared by every variant: dealing and the first card turned up,
the points of a hand, the end of a round (scoring, teams, the next deal of a match) and
the start of a match (docs/rules.md section 2, "Round end", "Points", "Dealer and
order", "Teams")."""
import numpy as np

from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.faces import face, is_first_card_redo, new_pairing, rank_draw
from uno_env.engine.piles import draw_cards, to_discard
from uno_env.engine.rng import below, shuffle_prefix
from uno_env.engine.tallies import count_card, start_counts
from uno_env.engine.turns import begin_decision, hand_points, seat_after, top_type


@njit
def end_round(st, g, sp, winner):
    """Score the round; end the episode, or deal the next round of a match (the winner
    deals; docs/rules.md 2, "Round end" and "Dealer and order")."""
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
    """``teams=True`` (docs/rules.md 2 "Teams", 3 precise points, 7): seats 0+2 against 1+3.
    The winner's team wins the round; the winner's ``round_points`` entry holds the
    other team's points, every other entry 0. Rewards are shared by the team: "win"
    gives +1 to each winner and -1 to each loser (zero-sum); "score" gives each winner
    +points and each loser -points. A match ends when a team's total (the sum of its
    two seats' scores) reaches ``target_score``; the match winner is the seat that
    went out in that round. Scoring is always "winner" (``Rules.validate``)."""
    total = 0
    for q in range(np.int32(4)):  # int32 seats, as in end_round: one hand_points
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


@njit
def deal(st, g, sp, dealer):
    """Shuffle the whole deck, deal, turn up the first card and apply its effect
    (docs/rules.md 2, "First card turned up")."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    st.hands[g] = 0
    st.hand_size[g] = 0
    st.discard_counts[g] = 0
    start_counts(st, g, sp)
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
    st.info[g, C.I_SHOWN_TO] = -1
    st.info[g, C.I_SHOWN_BY] = -1
    st.shown[g, :] = 0  # a new round shows nothing: the state is the game's alone
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
            count_card(st, g, sp, seat, t, 1)
    st.info[g, C.I_DRAW_LEN] = n
    # turn up the first card; W4 (and WS, WX ...) go back at a random place
    while True:
        n = st.info[g, C.I_DRAW_LEN] - 1
        t = st.draw_pile[g, n]
        if not is_first_card_redo(sp.face_rank[sp.type_face[t, 0]]):
            st.info[g, C.I_DRAW_LEN] = n
            to_discard(st, g, sp, t)
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
    f = face(st, g, sp, top_type(st, g))
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
    elif rank == C.DRAW2 or rank == C.DRAW1:  # D1: UNO Flip's light side (docs/rules.md 5)
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
    new_pairing(st, g, sp)  # UNO Flip: this match's pairing of sides
    deal(st, g, sp, sp.rules[C.R_DEALER])


@njit(inline="always")
def go_out(st, g, sp, seat):
    """``seat`` played (or gave) its last card: the round ends at once, counting as
    the end of a turn (docs/rules.md section 2, "Round end")."""
    st.info[g, C.I_TURNS] += 1
    st.info[g, C.I_UNO_CALLED] = -1
    st.info[g, C.I_DRAWN_TYPE] = -1
    end_round(st, g, sp, seat)
