"""The soak kernel: whole games played inside numba exactly as ``simulate`` plays them
(``batch.deal_game``, ``batch.decide``, ``apply_action``), with the engine's invariants
checked after the deal and after every step. ``benchmarks/soak.py`` runs it on 10^8
decisions per preset; the Python contract suite (``uno_env.testing``) checks the same
state invariants and more (hidden information, replays) at tens of thousands of
decisions a second.

Checks of a game (each broken one sets the bit ``1 << K_*`` of a break mask):

=================  ===================================================================
kind               broken when
=================  ===================================================================
``negative``       a hand holds a negative count of a type (or ``discard_counts`` does)
``piles``          a pile length is out of range, or a pile holds a non-existent type
``hand_size``      ``hand_size`` differs from the sum of the hand's counts
``discard_counts`` ``discard_counts`` differs from the discard pile's contents
``deck``           hands + draw pile + discard pile != the deck's copies of each type
``dark_faces``     UNO Flip: the match's dark faces are not the deck's dark faces
``decider``        a live game's decider is not a seat
``pending``        a pending draw is negative, or held in a phase that holds none
``mask_count``     ``legal_mask``'s count differs from the number of entries it set
``legal``          a live game has no legal action, or a finished one has some
``action``         the agent chose an action outside the legal mask
``finished``       a finished game is not in phase over, or has no winner with an empty
                   hand (the only empty one; docs/rules.md 2) and zero-sum rewards, or
                   was truncated before ``max_turns``, with a winner, or with rewards
                   (``settle_cut``: rewards that do not add up to zero)
``observation``    the decider's observation is not finite or outside
                   ``[0, high]`` (``Config.observation_space``); written every
                   ``obs_every``-th step
``stuck``          still live after ``max_steps`` decisions
``tallies``        the card counts kept as cards move differ from a count of the hands
                   and the discard pile (``engine/tallies.py``; single-sided decks), or
                   UNO Flip's ``info`` has room for them
=================  ===================================================================

The state checks come first; a game whose state is broken is not stepped further (its
arrays may not be safe to read), and is counted once under every kind it broke.
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.state import as_record
from uno_env.engine.batch import deal_game, decide
from uno_env.engine.observe import observe
from uno_env.engine.policies import AGENT_RANDOM, WORK_SIZE
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED
from uno_env.engine.tallies import type_columns
from uno_env.engine.dispatch import apply_action, legal_mask, random_pick

BREAK_NAMES = ("negative", "piles", "hand_size", "discard_counts", "deck", "dark_faces",
               "decider", "pending", "mask_count", "legal", "action", "finished",
               "observation", "stuck", "tallies")
(K_NEGATIVE, K_PILES, K_HAND_SIZE, K_DISCARD, K_DECK, K_DARK, K_DECIDER, K_PENDING,
 K_MASK, K_LEGAL, K_ACTION, K_FINISHED, K_OBS, K_STUCK, K_TALLIES) = range(len(BREAK_NAMES))
NUM_KINDS = len(BREAK_NAMES)

#: ``soak_kernel`` operations
OP_CHECK = 0  # check slot 0 as it stands (no step); returns its break mask
OP_PLAY = 1   # play and check games; returns the number of broken games

#: ``first_break`` columns: the first broken game's index, its step, its break mask
FIRST_GAME, FIRST_STEP, FIRST_MASK = 0, 1, 2


@njit
def _pending_phase(phase):
    # a total to draw is held only while it is answered, held back by a jump-in
    # window or grown by a multi-card play (docs/rules.md 3)
    return phase == C.PHASE_STACK or phase == C.PHASE_CHALLENGE or \
        phase == C.PHASE_JUMP_IN or phase == C.PHASE_MULTI


@njit
def _finished_breaks(st, g, sp):
    """The break mask of a game that has ended."""
    info, n = st.info[g], st.hand_size.shape[1]
    bad = info[C.I_PHASE] != C.PHASE_OVER
    status = info[C.I_STATUS]
    if status == C.STATUS_TRUNCATED:
        bad |= info[C.I_TURNS] < sp.rules[C.R_MAX_TURNS] or info[C.I_MATCH_WINNER] != -1
        total = 0.0
        for q in range(n):
            total += st.rewards[g, q]
            # a cut round pays nothing, or with settle_cut each seat's standing (zero-sum)
            bad |= sp.rules[C.R_SETTLE_CUT] == 0 and st.rewards[g, q] != 0.0
        bad |= abs(total) > 1e-3
    elif status == C.STATUS_OVER:
        w = info[C.I_MATCH_WINNER]
        total = 0.0
        for q in range(n):
            total += st.rewards[g, q]
        bad |= w < 0 or w >= n or abs(total) > 1e-3
        if sp.rules[C.R_SCORING] != C.SCORING_ELIMINATION:
            rw = info[C.I_WINNER]
            empty = 0
            for q in range(n):
                empty += st.hand_size[g, q] == 0
            bad |= rw < 0 or rw >= n or empty != 1
            bad |= sp.rules[C.R_TARGET_SCORE] == 0 and rw != w
            if 0 <= rw < n:
                bad |= st.hand_size[g, rw] != 0
    else:
        bad = True
    return (1 << K_FINISHED) if bad else 0


@njit
def state_breaks(st, g, sp, dark_count, count, face_count):
    """The break mask of game ``g``'s state (0: every state invariant holds).
    ``dark_count[f]``: copies of face ``f`` among the deck's dark faces (empty for a
    single-sided deck); ``count`` (int64[K]) and ``face_count`` (int64[F]) are scratch."""
    num_types, num_cards = count.shape[0], st.draw_pile.shape[1]
    draw_len, disc_len = st.info[g, C.I_DRAW_LEN], st.info[g, C.I_DISCARD_LEN]
    if draw_len < 0 or draw_len > num_cards or disc_len < 1 or disc_len > num_cards:
        return 1 << K_PILES
    bits = 0
    count[:] = 0
    for i in range(disc_len):
        t = st.discard[g, i]
        if t < 0 or t >= num_types:
            return 1 << K_PILES
        count[t] += 1
    for t in range(num_types):
        if st.discard_counts[g, t] < 0:
            bits |= 1 << K_NEGATIVE
        if count[t] != st.discard_counts[g, t]:
            bits |= 1 << K_DISCARD
    for i in range(draw_len):
        t = st.draw_pile[g, i]
        if t < 0 or t >= num_types:
            return bits | (1 << K_PILES)
        count[t] += 1
    negative = False
    for p in range(st.hands.shape[1]):
        size = 0
        for t in range(num_types):  # no branch: the loop vectorises
            h = st.hands[g, p, t]
            negative |= h < 0
            size += h
            count[t] += h
        if size != st.hand_size[g, p]:
            bits |= 1 << K_HAND_SIZE
    if negative:
        bits |= 1 << K_NEGATIVE
    for t in range(num_types):
        if count[t] != sp.type_count[t]:
            bits |= 1 << K_DECK
    if dark_count.shape[0] > 0:
        face_count[:] = 0
        for t in range(num_types):
            f = st.dark_face[g, t]
            if f < 0 or f >= face_count.shape[0]:
                bits |= 1 << K_DARK
            else:
                face_count[f] += 1
        for f in range(face_count.shape[0]):
            if face_count[f] != dark_count[f]:
                bits |= 1 << K_DARK
    if st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        cur = st.info[g, C.I_CURRENT]
        if cur < 0 or cur >= st.hands.shape[1]:
            bits |= 1 << K_DECIDER
        pend = st.info[g, C.I_PENDING_DRAW]
        if pend < 0 or (pend > 0 and not _pending_phase(st.info[g, C.I_PHASE])):
            bits |= 1 << K_PENDING
    else:
        bits |= _finished_breaks(st, g, sp)
    return bits | tally_breaks(st, g, sp, count)


@by_spec
def tally_breaks(st, g, sp, scratch):
    """``1 << K_TALLIES`` if game ``g``'s tallies are not the counts of its hands and
    of the cards off its discard pile, else 0. ``scratch``: int64, at least
    ``C.NUM_TALLIES`` long."""


@tally_breaks.register(*SINGLE_SIDED)
def _tally_breaks_single(st, g, sp, scratch):
    players = st.hands.shape[1]
    if st.tallies.shape[1] != players + 1 or st.tallies.shape[2] != C.NUM_TALLIES:
        return 1 << K_TALLIES
    for row in range(players + 1):
        scratch[:C.NUM_TALLIES] = 0
        for t in range(st.hands.shape[2]):
            n = st.hands[g, row, t] if row < players \
                else sp.type_count[t] - st.discard_counts[g, t]
            slot, rank = type_columns(sp, t)
            scratch[slot] += n
            scratch[rank] += n
        for k in range(C.NUM_TALLIES):
            if scratch[k] != st.tallies[g, row, k]:
                return 1 << K_TALLIES
    return 0


@tally_breaks.register(*DOUBLE_SIDED)
def _tally_breaks_flip(st, g, sp, scratch):
    return 0 if st.tallies.shape[2] == 0 else 1 << K_TALLIES


@njit
def decision_breaks(st, g, sp, mask, obs, high, observe_now):
    """The break mask of the decision game ``g`` is at (its state checked first) and
    the number of legal actions: ``legal_mask`` into ``mask``, and with
    ``observe_now`` the decider's observation into ``obs``, checked against ``high``
    (float32[D])."""
    n = legal_mask(st, g, sp, mask)
    entries = 0
    for a in range(mask.shape[0]):
        entries += mask[a] != 0
    bits = (1 << K_MASK) if entries != n else 0
    live = st.info[g, C.I_STATUS] == C.STATUS_PLAYING
    if (live and n == 0) or (not live and n != 0):
        bits |= 1 << K_LEGAL
    cur = st.info[g, C.I_CURRENT]
    if observe_now and 0 <= cur < st.hands.shape[1]:
        observe(st, g, sp, cur, obs)
        inside = True
        for i in range(obs.shape[0]):  # NaN fails both comparisons
            inside &= (obs[i] >= 0.0) & (obs[i] <= high[i])
        if not inside:
            bits |= 1 << K_OBS
    return bits, n


@njit
def check_game(st, g, sp, dark_count, high, count, face_count, mask, obs, observe_now):
    """Every check of game ``g`` as it stands: the state, then (if the state is sound)
    the decision. Returns the break mask and the number of legal actions in ``mask``
    (0 if the state is broken)."""
    bits = state_breaks(st, g, sp, dark_count, count, face_count)
    if bits != 0:
        return bits, 0
    return decision_breaks(st, g, sp, mask, obs, high, observe_now)


@njit
def play_checked(st, g, sp, seat_agents, seed, index, max_steps, obs_every, dark_count,
                 high, count, face_count, mask, scratch, obs, work):
    """Game ``index`` of ``seed`` in slot ``g``, played as ``batch.play_game`` plays it
    and checked after the deal and after every step. Returns (decisions, break mask);
    a broken game stops at the step that broke it."""
    deal_game(st, g, sp, seed, index)
    steps = 0
    while True:
        bits, n = check_game(st, g, sp, dark_count, high, count, face_count, mask, obs,
                             steps % obs_every == 0)
        if bits != 0 or st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
            return steps, bits
        if steps >= max_steps:
            return steps, 1 << K_STUCK
        if seat_agents[st.info[g, C.I_CURRENT]] == AGENT_RANDOM:
            # the random agent's own pick (``random_legal``) from the mask just checked
            action = random_pick(st, g, mask, n)
        else:
            action = decide(st, g, sp, seat_agents, scratch, obs, work)
        if action < 0 or action >= mask.shape[0] or mask[action] == 0:
            return steps, 1 << K_ACTION
        apply_action(st, g, sp, action)
        steps += 1


def soak_kernel(op, state, tables, seat_agents, seed, first_index, max_steps, obs_every,
                dark_count, high, out_steps, out_winner, breaks, first_break):
    """``OP_PLAY``: play games ``first_index .. first_index + len(out_steps) - 1`` of
    ``seed`` in slot 0 of ``st`` (``seat_agents[seat]``: agent codes), each checked
    after every step (``play_checked``). Writes per game the decisions and the match
    winner (-1 truncated, -2 broken); adds to ``breaks[k]`` (int64[NUM_KINDS]) the
    games broken in kind ``k``; the first broken game goes into ``first_break``
    (int64[3], ``FIRST_*``, left alone if ``first_break[0] >= 0``). Returns the number
    of broken games. ``OP_CHECK``: the checks of slot 0 as it stands, no step; returns
    its break mask."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    num_types = st.hands.shape[2]
    count = np.zeros(num_types, np.int64)
    face_count = np.zeros(sp.face_color.shape[0], np.int64)
    mask = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    scratch = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    obs = np.zeros(sp.layout[C.L_OBS_SIZE], np.float32)
    work = np.zeros(WORK_SIZE, np.int64)
    if op == OP_CHECK:
        return check_game(st, 0, sp, dark_count, high, count, face_count, mask, obs,
                          True)[0]
    broken = 0
    for i in range(out_steps.shape[0]):
        index = first_index + i
        steps, bits = play_checked(st, 0, sp, seat_agents, seed, index, max_steps,
                                   obs_every, dark_count, high, count, face_count, mask,
                                   scratch, obs, work)
        out_steps[i] = steps
        out_winner[i] = st.info[0, C.I_MATCH_WINNER] if bits == 0 else -2
        if bits != 0:
            broken += 1
            for k in range(NUM_KINDS):
                if bits & (1 << k):
                    breaks[k] += 1
            if first_break[FIRST_GAME] < 0:
                first_break[FIRST_GAME] = index
                first_break[FIRST_STEP] = steps
                first_break[FIRST_MASK] = bits
    return broken
