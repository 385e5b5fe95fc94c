"""UNO One Piece (docs/rules.md section 6) as kernels over one game ``g``: the variant
``onepiece`` (the ``onepiece110`` deck), with the entry names of every variant module.

The turn flow of the official rules is written here with the special cards woven in,
on the shared kernels (piles, turns, rounds, plays, the challenge verdict); the house
flags ``force_play``, ``no_draw_if_playable`` and ``teams`` work here too, the others
are refused by ``Rules.validate``.

Cards (single-sided; side 0 always):

- ``SHK`` Shanks: a wild; then ``PHASE_GIVE``: the same player gives one card of their
  hand to the next player (``give:X``, compulsory); then the next player moves. With
  ``shanks_give="two_players"`` (the One Piece rule sheet's text) the give exists with two players only.
- ``BBD`` Blackbeard: a wild; the next player draws 2 and is skipped. With
  ``bbd_challenge`` it is restricted and challengeable like a ``W4`` (pending 2).
- ``ACE`` Fire Fist Ace: with a playable coloured S/R/D2 (``ACE+X``): skip two players,
  draw 4, reverse twice (= no change); the pile gets ACE then X (X on top, X's colour).
  Alone (``ACE:C``) only as the last card.
- ``HAN`` Hancock: a wild; the opponents holding the Luffy card (the ``1``) of the named
  colour are asked in turn order (``PHASE_JUMP_IN``: play it, or ``pass``); a break is
  an out-of-turn play, then the player after the Hancock player takes a normal turn
  (even if that is the breaker); if nobody breaks, the Hancock player moves again. The
  Hancock player's seat is kept in ``I_JUMP_FROM`` during the window.
- Challenge (``challenge="return"``, the One Piece rule sheet): guilty, the W4 goes back to its
  player's hand, who draws 4; top card and colour revert; the challenger then takes a
  normal turn. Innocent: the challenger draws 6 and loses the turn. While the challenge
  is pending a reshuffle (only a ``catch`` can cause one) keeps the card under the W4.
- Two players: ``S``, ``R``, ``D2``, ``W4``, ``BBD``, ``ACE+S``, ``ACE+R``, ``ACE+D2``:
  the same player moves again.

Readings where docs/rules.md 6 is silent (the project's, also in the README):

- ``ACE+R`` with three or more players: the direction is unchanged and the next player
  moves (reverse twice); ``ACE+S`` with three players comes back to its player.
- A Hancock break is not a turn of the Hancock player's; it ends the breaker's own
  out-of-turn "turn" (``max_turns`` counts it, an UNO left uncalled can be caught).
- The Shanks give belongs to the Shanks turn: an ``uno`` before it covers it.
- With ``bbd_challenge``: accept draws 2, guilty the BBD player draws 2 (with
  ``challenge="return"`` after taking the BBD back), innocent the challenger draws 4.
- ``scoring="elimination"`` (the One Piece rule sheet, "challenge UNO"): a player caught without UNO
  or found guilty by a challenge adds the points of their hand (after the penalty
  draw) to their total (``scores``); rounds that end by going out score nothing. A
  total reaching ``target_score`` eliminates that player and ends the match: with two
  players the other wins (the sheet's final one-on-one); with more players the match
  winner is the lowest total (ties: the lower seat) -- a simplification, the sheet
  plays on without the eliminated player. ``max_turns`` counts the turns of the match,
  not of the round (careful players would otherwise never end it).
"""
from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine import faces, piles
from uno_env.engine.faces import is_restricted, rank_draw
from uno_env.engine.piles import discard_from_hand, draw_cards, to_discard
from uno_env.engine.plays import holds_color, mark_catch, may_play, set_play_actions
from uno_env.engine.rounds import go_out, hand_points
from uno_env.engine.tallies import count_card, off_pile_row
from uno_env.engine.turns import (
    NOT_COMMON, begin_decision, challenge_verdict, common_move, finish_turn, mark_uncalled,
    pass_turn, seat_after,
)
from uno_env.engine.variants import BY_NAME

#: this variant's Spec class (engine/variants.py)
SPEC = BY_NAME["onepiece"].spec_class

# --- small queries -----------------------------------------------------------------------


@njit(inline="always")
def _rank(sp, t):
    return sp.face_rank[sp.type_face[t, 0]]


@njit
def op_may_play(st, g, sp, seat, t):
    """May ``t`` be played alone from ``seat``'s hand now? ACE only as the last card."""
    if _rank(sp, t) == C.ACE:
        return st.hand_size[g, seat] == 1
    return may_play(st, g, sp, seat, t)


# --- scoring -----------------------------------------------------------------------------


@njit
def _penalise(st, g, sp, seat):
    """``scoring="elimination"``: add ``seat``'s hand points to its total; True when
    that ends the match (see the module docstring)."""
    if sp.rules[C.R_SCORING] != C.SCORING_ELIMINATION:
        return False
    st.scores[g, seat] += hand_points(st, g, sp, seat)
    if st.scores[g, seat] < sp.rules[C.R_TARGET_SCORE]:
        return False
    num_players = sp.rules[C.R_NUM_PLAYERS]
    low = 0
    for q in range(num_players):
        if st.scores[g, q] < st.scores[g, low]:
            low = q
    st.info[g, C.I_MATCH_WINNER] = low
    st.info[g, C.I_STATUS] = C.STATUS_OVER
    st.info[g, C.I_PHASE] = C.PHASE_OVER
    st.info[g, C.I_LAST_ROUND_OVER] = 1
    st.info[g, C.I_PENDING_DRAW] = 0
    for q in range(num_players):
        st.rewards[g, q] = -1.0 / (num_players - 1)
    st.rewards[g, low] = 1.0
    return True


@njit(inline="always")
def _go_out(st, g, sp, seat):
    """``seat`` played or gave its last card (``rounds.go_out``). With elimination
    scoring the next round keeps the match's turn count: rounds won by going out score
    nothing, so ``max_turns`` bounds the match, else players who always call UNO and
    never bluff would never end it (docs/rules.md 2.13, 6.5)."""
    turns = st.info[g, C.I_TURNS] + 1
    go_out(st, g, sp, seat)
    if sp.rules[C.R_SCORING] == C.SCORING_ELIMINATION \
            and st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        st.info[g, C.I_TURNS] = turns


# --- legal actions -----------------------------------------------------------------------


@njit
def legal_mask(st, g, sp, mask):
    """The legal actions of One Piece (``mask`` is already cleared, the game on)."""
    phase = st.info[g, C.I_PHASE]
    seat = st.info[g, C.I_CURRENT]
    uno_ok = sp.rules[C.R_UNO_CALL] != 0 and st.info[g, C.I_UNO_CALLED] != seat
    size = st.hand_size[g, seat]
    lay = sp.layout
    n = 0
    if phase == C.PHASE_COLOR:
        for c in range(4):
            mask[lay[C.L_COLOR] + c] = 1
        return 4
    if phase == C.PHASE_CHALLENGE:
        mask[lay[C.L_CHALLENGE]] = 1
        mask[lay[C.L_ACCEPT]] = 1
        n = 2
    elif phase == C.PHASE_GIVE:
        # Shanks: give any card of the hand (compulsory; docs/rules.md 6)
        for t in range(st.hands.shape[2]):
            if st.hands[g, seat, t] > 0:
                mask[lay[C.L_GIVE] + t] = 1
                n += 1
        if uno_ok and size == 2:
            mask[lay[C.L_UNO]] = 1
            n += 1
    elif phase == C.PHASE_JUMP_IN:
        # Hancock break: play the Luffy card of the named colour out of turn, or pass
        t = sp.luffy_type[st.info[g, C.I_COLOR]]
        mask[lay[C.L_PLAY] + sp.type_play_slot[t]] = 1
        mask[lay[C.L_PASS]] = 1
        n = 2
        if uno_ok and size == 2:
            mask[lay[C.L_UNO]] = 1
            n += 1
    elif phase == C.PHASE_PLAY:
        # op_may_play for the cards that can match: the row of the colour in force and
        # the pile's rank, and the wilds (as plays.set_hand_plays); an action card also
        # combines with an Ace held (ACE+X, its slot ``Spec.type_ace_slot``)
        color = st.info[g, C.I_COLOR]
        hand = st.hands[g, seat]
        has_ace = st.tallies[g, seat, C.T_RANK + C.ACE] > 0
        restricted_ok = sp.rules[C.R_BLUFF] != 0 or not holds_color(st, g, sp, seat, color)
        singles = 0
        combos = 0
        pile_rank = _rank(sp, st.discard[g, st.info[g, C.I_DISCARD_LEN] - 1])
        row = sp.match_types[color, pile_rank]
        for i in range(row.shape[0]):
            t = row[i]
            if t < 0:
                break
            if hand[t] == 0:
                continue
            mask[lay[C.L_PLAY] + sp.type_play_slot[t]] = 1
            singles += 1
            if has_ace and sp.type_ace_slot[t] >= 0:
                mask[lay[C.L_ACE] + sp.type_ace_slot[t]] = 1
                combos += 1
        for i in range(sp.wild_types.shape[0]):
            t = sp.wild_types[i]
            if t < 0:
                break
            rank = _rank(sp, t)
            if hand[t] > 0 and (rank != C.ACE or size == 1) \
                    and (restricted_ok or not is_restricted(sp, rank)):
                base = lay[C.L_WILD] + 4 * sp.type_wild_slot[t]
                for c in range(4):
                    mask[base + c] = 1
                singles += 4
        n = singles + combos
        if sp.rules[C.R_NO_DRAW_IF_PLAYABLE] == 0 or n == 0:
            mask[lay[C.L_DRAW]] = 1
            n += 1
        # uno whenever a legal move would leave exactly one card (docs/rules.md 6)
        if uno_ok and ((size == 2 and singles > 0) or (size == 3 and combos > 0)):
            mask[lay[C.L_UNO]] = 1
            n += 1
    elif phase == C.PHASE_DRAWN:
        # a card just drawn is played alone (no Ace combination; docs/rules.md 6)
        n = set_play_actions(st, g, sp, st.info[g, C.I_DRAWN_TYPE], mask)
        if sp.rules[C.R_FORCE_PLAY] == 0:
            mask[lay[C.L_PASS]] = 1
            n += 1
        if uno_ok and size == 2:
            mask[lay[C.L_UNO]] = 1
            n += 1
    return n + mark_catch(st, g, sp, seat, mask)


# --- playing -----------------------------------------------------------------------------


@njit(inline="always")
def _remove(st, g, sp, seat, t):
    st.hands[g, seat, t] -= 1
    st.hand_size[g, seat] -= 1
    count_card(st, g, sp, seat, t, -1)


@njit
def _next_breaker(st, g, sp, han, after):
    """The first opponent after relative seat ``after`` of the Hancock player ``han``
    (turn order) who holds the Luffy card of the named colour, else -1."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    t = sp.luffy_type[st.info[g, C.I_COLOR]]
    if t < 0:
        return -1
    for k in range(after + 1, num_players):
        q = seat_after(st, g, sp, han, k)
        if st.hands[g, q, t] > 0:
            return q
    return -1


@njit
def _play(st, g, sp, seat, t, color_slot, ace):
    """Play type ``t`` (with the Ace type ``ace`` in front of it, or ``ace`` = -1)."""
    rank = _rank(sp, t)
    prev_color = st.info[g, C.I_COLOR]
    guilty = False
    if is_restricted(sp, rank):
        # guilt is judged on the hand as played, against the colour in force (docs/rules.md 2)
        guilty = holds_color(st, g, sp, seat, prev_color)
        if rank == C.WILD4:
            st.info[g, C.I_STAT_W4_PLAYED] += 1
            if guilty:
                st.info[g, C.I_STAT_W4_BLUFFS] += 1
    mult = 1
    if ace >= 0:
        discard_from_hand(st, g, sp, seat, ace)
        st.info[g, C.I_STAT_ACE] += 1
        mult = 2
    discard_from_hand(st, g, sp, seat, t)
    f = sp.type_face[t, 0]
    if rank >= C.FIRST_WILD_RANK:
        st.info[g, C.I_COLOR] = color_slot
    else:
        st.info[g, C.I_COLOR] = sp.face_color[f]
    two = sp.rules[C.R_NUM_PLAYERS] == 2
    nxt = seat_after(st, g, sp, seat, 1)
    if st.hand_size[g, seat] == 0:
        # a last D2/W4/BBD/ACE+D2 still makes the next player draw (docs/rules.md 6)
        n = rank_draw(rank) * mult
        if n > 0:
            draw_cards(st, g, sp, nxt, n)
        _go_out(st, g, sp, seat)
        return
    mark_uncalled(st, g, sp, seat)
    if rank == C.SKIP:
        # ACE+S skips two players; two players: the same player moves again
        again = seat if two else seat_after(st, g, sp, seat, 1 + mult)
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, again, C.PHASE_PLAY)
    elif rank == C.REVERSE:
        if ace < 0:
            st.info[g, C.I_DIRECTION] = -st.info[g, C.I_DIRECTION]
        if not finish_turn(st, g, sp, seat):
            again = seat if two else seat_after(st, g, sp, seat, 1)
            begin_decision(st, g, sp, again, C.PHASE_PLAY)
    elif rank == C.DRAW2:
        draw_cards(st, g, sp, nxt, 2 * mult)
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif is_restricted(sp, rank) and sp.rules[C.R_BLUFF] != 0:
        st.info[g, C.I_W4_PLAYER] = seat
        st.info[g, C.I_W4_GUILTY] = guilty
        st.info[g, C.I_W4_PREV_COLOR] = prev_color
        if not finish_turn(st, g, sp, seat):
            st.info[g, C.I_PENDING_DRAW] = rank_draw(rank)
            begin_decision(st, g, sp, nxt, C.PHASE_CHALLENGE)
    elif rank == C.WILD4 or rank == C.BLACKBEARD:
        draw_cards(st, g, sp, nxt, rank_draw(rank))
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, seat_after(st, g, sp, seat, 2), C.PHASE_PLAY)
    elif rank == C.SHANKS and (two or sp.rules[C.R_OP_SHANKS_GIVE] != 0):
        # the give belongs to this turn (docs/rules.md 6): same decider, PHASE_GIVE
        st.info[g, C.I_PHASE] = C.PHASE_GIVE
    elif rank == C.HANCOCK:
        st.info[g, C.I_STAT_PETRIFY] += 1
        if not finish_turn(st, g, sp, seat):
            breaker = _next_breaker(st, g, sp, seat, 0)
            if breaker >= 0:
                st.info[g, C.I_JUMP_FROM] = seat
                begin_decision(st, g, sp, breaker, C.PHASE_JUMP_IN)
            else:
                begin_decision(st, g, sp, seat, C.PHASE_PLAY)
    else:
        if not finish_turn(st, g, sp, seat):
            begin_decision(st, g, sp, nxt, C.PHASE_PLAY)


@njit
def _give(st, g, sp, seat, t):
    """Shanks: ``seat`` gives ``t`` to the next player; a give that empties the hand
    wins (docs/rules.md 6)."""
    nxt = seat_after(st, g, sp, seat, 1)
    _remove(st, g, sp, seat, t)
    st.hands[g, nxt, t] += 1
    st.hand_size[g, nxt] += 1
    count_card(st, g, sp, nxt, t, 1)
    st.info[g, C.I_STAT_GIVES] += 1
    if st.hand_size[g, seat] == 0:
        _go_out(st, g, sp, seat)
        return
    mark_uncalled(st, g, sp, seat)
    if not finish_turn(st, g, sp, seat):
        begin_decision(st, g, sp, nxt, C.PHASE_PLAY)


@njit
def _answer_break(st, g, sp, seat, action):
    """A Hancock break (the Luffy card out of turn) or a pass (docs/rules.md 6)."""
    han = st.info[g, C.I_JUMP_FROM]
    if action == sp.layout[C.L_PASS]:
        st.info[g, C.I_UNO_CALLED] = -1  # a call followed by pass lapses
        num_players = sp.rules[C.R_NUM_PLAYERS]
        rel = ((seat - han) * st.info[g, C.I_DIRECTION]) % num_players
        breaker = _next_breaker(st, g, sp, han, rel)
        if breaker >= 0:
            begin_decision(st, g, sp, breaker, C.PHASE_JUMP_IN)
        else:  # petrified: the Hancock player moves again
            st.info[g, C.I_JUMP_FROM] = -1
            begin_decision(st, g, sp, han, C.PHASE_PLAY)
        return
    t = sp.play_slot_type[action - sp.layout[C.L_PLAY]]
    discard_from_hand(st, g, sp, seat, t)
    st.info[g, C.I_STAT_BREAKS] += 1
    st.info[g, C.I_JUMP_FROM] = -1
    if st.hand_size[g, seat] == 0:
        _go_out(st, g, sp, seat)
        return
    mark_uncalled(st, g, sp, seat)
    if not finish_turn(st, g, sp, seat):
        # the player after the Hancock player takes a normal turn, even the breaker
        begin_decision(st, g, sp, seat_after(st, g, sp, han, 1), C.PHASE_PLAY)


@njit
def _answer_challenge(st, g, sp, seat, challenge):
    """Answer a W4 (or a challengeable BBD) by the shared verdict (docs/rules.md section
    2), with the One Piece rule sheet's guilty verdict under ``challenge="return"``
    (section 6): the card goes back to its player's hand, top card and colour revert.
    The draws happen while the challenge is still pending (``piles.reshuffle_keeps``)."""
    pending = st.info[g, C.I_PENDING_DRAW]
    payer, extra, plays = challenge_verdict(st, g, seat, challenge)
    if plays and sp.rules[C.R_OP_CHALLENGE] == C.CHALLENGE_RETURN:
        n = st.info[g, C.I_DISCARD_LEN] - 1
        t = st.discard[g, n]
        st.discard_counts[g, t] -= 1
        st.info[g, C.I_DISCARD_LEN] = n
        st.hands[g, payer, t] += 1
        st.hand_size[g, payer] += 1
        count_card(st, g, sp, payer, t, 1)
        count_card(st, g, sp, off_pile_row(st), t, 1)
        st.info[g, C.I_COLOR] = st.info[g, C.I_W4_PREV_COLOR]
    st.info[g, C.I_PENDING_DRAW] = 0
    draw_cards(st, g, sp, payer, pending + extra)
    if not plays:
        begin_decision(st, g, sp, seat_after(st, g, sp, seat, 1), C.PHASE_PLAY)
    elif not _penalise(st, g, sp, payer):
        begin_decision(st, g, sp, seat, C.PHASE_PLAY)


@njit
def apply_action(st, g, sp, action):
    """Apply a legal ``action`` of the current decider."""
    caught = common_move(st, g, sp, action)
    if caught >= 0:
        _penalise(st, g, sp, caught)
    if caught != NOT_COMMON:
        return
    seat = st.info[g, C.I_CURRENT]
    lay = sp.layout
    phase = st.info[g, C.I_PHASE]
    if phase == C.PHASE_CHALLENGE:
        _answer_challenge(st, g, sp, seat, action == lay[C.L_CHALLENGE])
        return
    if phase == C.PHASE_GIVE:
        _give(st, g, sp, seat, action - lay[C.L_GIVE])
        return
    if phase == C.PHASE_JUMP_IN:
        _answer_break(st, g, sp, seat, action)
        return
    if action == lay[C.L_DRAW]:
        t = draw_cards(st, g, sp, seat, 1)
        if t >= 0 and op_may_play(st, g, sp, seat, t):
            st.info[g, C.I_DRAWN_TYPE] = t
            st.info[g, C.I_PHASE] = C.PHASE_DRAWN
        else:
            pass_turn(st, g, sp, seat)
        return
    if action == lay[C.L_PASS]:
        pass_turn(st, g, sp, seat)
        return
    if action >= lay[C.L_ACE]:
        _play(st, g, sp, seat, sp.ace_slot_type[action - lay[C.L_ACE]], 0,
              sp.rank_type[C.ACE])
    elif action < lay[C.L_WILD]:
        _play(st, g, sp, seat, sp.play_slot_type[action - lay[C.L_PLAY]], 0, -1)
    else:
        w = (action - lay[C.L_WILD]) // 4
        _play(st, g, sp, seat, sp.wild_slot_type[w], (action - lay[C.L_WILD]) % 4, -1)


@njit(inline="always")
def observe_fields(st, g, sp, seat, out):
    """``hancock``: the Hancock player whose petrification may be broken, by relative
    seat, during the window (``engine/observe.py``)."""
    if st.info[g, C.I_PHASE] == C.PHASE_JUMP_IN:
        num_players = sp.rules[C.R_NUM_PLAYERS]
        out[sp.obs_at[C.O_HANCOCK] + (st.info[g, C.I_JUMP_FROM] - seat) % num_players] = 1.0


# docs/rules.md 6: One Piece's W4 and, with bbd_challenge, Blackbeard
@faces.is_restricted.register(SPEC)
def _restricted(sp, rank):
    return rank == C.WILD4 or (rank == C.BLACKBEARD and sp.rules[C.R_OP_BBD_CHALLENGE] != 0)


# a guilty W4 may go back on top while the challenge is pending (challenge="return")
@piles.reshuffle_keeps.register(SPEC)
def _reshuffle_keeps(st, g, sp):
    if st.info[g, C.I_PHASE] == C.PHASE_CHALLENGE \
            and sp.rules[C.R_OP_CHALLENGE] == C.CHALLENGE_RETURN:
        return 2
    return 1
