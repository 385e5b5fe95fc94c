"""The loops that the Python APIs call: one game of ``Game`` (``game_kernel``), whole
games inside numba (``simulate_chunk``) and the vectorised step of ``EverySeatBatch``
(``vector_kernel``). They are plain functions here; ``engine.entry`` compiles them once
per variant. Game ``i`` of a seed always starts from ``seed_stream(seed, i)``, so the
results never depend on the batch size or on the number of threads."""
import numpy as np

from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.observe import observe
from uno_env.engine.policies import WORK_SIZE, choose_action
from uno_env.engine.rng import seed_stream
from uno_env.engine.rounds import reset_game
from uno_env.engine.state import GameBox, as_record
from uno_env.engine.dispatch import (
    STEP_EPISODE_ENDED, STEP_ROUND_ENDED, apply_action, legal_mask, random_legal,
    scratch_mask, step_and_mask)
from uno_env.engine.public_record import record_apply, record_dealt, record_observe

# --- Game: one game, one kernel call per operation ---------------------------------------

#: ``game_kernel`` operations; each returns an int as documented
OP_RESET = 0     # deal a new match (the stream is already seeded), then OP_REFRESH
OP_REFRESH = 1   # mask and the current decider's observation; returns the decider
OP_STEP = 2      # apply ``arg`` if the mask allows it (else return -1), then OP_REFRESH;
#                  returns ``step_and_mask``'s code
OP_OBSERVE = 3   # seat ``arg``'s observation into ``obs``; returns 0
OP_MASK = 4      # legal mask only; returns the number of legal actions
OP_APPLY = 5     # apply legal ``arg`` only; returns the next decider
OP_RANDOM = 6    # the random agent's action (consumes the game's stream; fills mask)


def make_game_box(st, sp, mask, obs, other_obs):
    """The ``game_box`` entry point: a ``state.GameBox`` of these arrays."""
    return GameBox(st, sp, mask, obs, other_obs)


def game_box_kernel(op, box, g, arg):
    """The ``game`` entry point: ``game_kernel`` on the arrays of ``box`` (a
    ``state.GameBox``); ``OP_OBSERVE`` writes ``box.other_obs``, the others ``box.obs``."""
    obs = box.other_obs if op == OP_OBSERVE else box.obs
    return game_kernel(op, as_record(box.state), g, as_record(box.spec), arg, box.mask, obs)


@njit
def game_kernel(op, st, g, sp, arg, mask, obs):
    """One operation ``op`` (``OP_*``) on game ``g`` of a batched state."""
    if op == OP_STEP:
        if mask[arg] == 0:  # not legal (the caller checked the range): nothing changes
            return -1
        code = step_and_mask(st, g, sp, arg, mask)
        observe(st, g, sp, st.info[g, C.I_CURRENT], obs)
        return code
    if op == OP_RESET:
        reset_game(st, g, sp)
        op = OP_REFRESH
    if op == OP_REFRESH:
        legal_mask(st, g, sp, mask)
        observe(st, g, sp, st.info[g, C.I_CURRENT], obs)
        return st.info[g, C.I_CURRENT]
    if op == OP_OBSERVE:
        # the seat as the int32 every other caller passes: one compiled observe
        observe(st, g, sp, np.int32(arg), obs)
        return 0
    if op == OP_MASK:
        return legal_mask(st, g, sp, mask)
    if op == OP_APPLY:
        apply_action(st, g, sp, arg)
        return st.info[g, C.I_CURRENT]
    return random_legal(st, g, sp, mask)


def game_record_kernel(op, box, record, g, arg):
    """The ``game_record`` entry point: ``game_kernel`` keeping ``record`` (a
    ``public_record.PublicRecord``), its observations with the record after them."""
    obs = box.other_obs if op == OP_OBSERVE else box.obs
    return record_game_op(op, as_record(box.state), g, as_record(box.spec), arg,
                          box.mask, obs, record)


@njit
def record_game_op(op, st, g, sp, arg, mask, obs, record):
    """``game_kernel``'s operations, the moves noted in ``record``."""
    if op == OP_STEP:
        if mask[arg] == 0:
            return -1
        record_apply(st, g, sp, record, arg)
        legal_mask(st, g, sp, mask)
        record_observe(st, g, sp, record, st.info[g, C.I_CURRENT], obs)
        code = st.info[g, C.I_CURRENT]  # with ``step_and_mask``'s bits
        if st.info[g, C.I_LAST_ROUND_OVER] != 0:
            code |= STEP_ROUND_ENDED
        if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
            code |= STEP_EPISODE_ENDED
        return code
    if op == OP_RESET:
        reset_game(st, g, sp)
        record_dealt(st, g, sp, record)
        op = OP_REFRESH
    if op == OP_REFRESH:
        legal_mask(st, g, sp, mask)
        record_observe(st, g, sp, record, st.info[g, C.I_CURRENT], obs)
        return st.info[g, C.I_CURRENT]
    if op == OP_OBSERVE:
        record_observe(st, g, sp, record, np.int32(arg), obs)
        return 0
    return game_kernel(op, st, g, sp, arg, mask, obs)


# --- simulate: whole games inside numba ---------------------------------------------------

#: per-game counters reported by ``simulate_chunk`` (columns of ``out_stats``)
STAT_NAMES = tuple(name for name, _ in C.COUNTERS)
STAT_SLOTS = np.array([slot for _, slot in C.COUNTERS], np.int64)


@njit(inline="always")
def deal_game(st, g, sp, seed, index):
    """Seed slot ``g`` with game ``index`` of ``seed``'s stream and deal it."""
    st.rng[g] = seed_stream(seed, index)
    reset_game(st, g, sp)


@njit(inline="always")
def decide(st, g, sp, seat_agents, mask, obs, work):
    """The action of the current decider's agent (``seat_agents[seat]``); ``mask`` holds
    the decider's legal mask afterwards (``obs``, ``work``: ``choose_action``'s scratch)."""
    return choose_action(seat_agents[st.info[g, C.I_CURRENT]], st, g, sp, mask, obs, work)


@njit
def play_game(st, g, sp, seat_agents, seed, index, mask, obs, work):
    """Deal game ``index`` of ``seed`` into slot ``g`` and play it to its end with the
    agents' kernels (``mask``, ``obs``, ``work``: ``choose_action``'s scratch). Returns
    the number of decisions taken."""
    deal_game(st, g, sp, seed, index)
    steps = 0
    while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        apply_action(st, g, sp, decide(st, g, sp, seat_agents, mask, obs, work))
        steps += 1
    return steps


@njit(inline="always")
def _record(st, g, sp, stat_slots, out_winner, out_turns, out_points, out_stats):
    out_winner[g] = st.info[g, C.I_MATCH_WINNER]
    out_turns[g] = st.info[g, C.I_TURNS]
    if sp.rules[C.R_TARGET_SCORE] > 0:
        out_points[g] = st.scores[g]
    else:
        out_points[g] = st.round_points[g]
    for k in range(stat_slots.shape[0]):
        out_stats[g, k] = st.info[g, stat_slots[k]]


def simulate_chunk(state, tables, seat_agents, seed, first_index, stat_slots, out_winner,
                   out_turns, out_steps, out_points, out_stats):
    """Play games ``first_index .. first_index + B - 1`` of ``seed`` to their end, one per
    state slot (``simulate`` runs chunks on several threads). ``seat_agents[seat]`` is
    the agent code of each seat. Writes per game: winner (-1 if truncated), turns of the
    last round, decisions, round points (match scores when ``target_score > 0``) and
    ``stat_slots`` counters."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    obs_size = sp.layout[C.L_OBS_SIZE]
    mask = scratch_mask(sp)
    obs = np.empty(obs_size, np.float32)
    work = np.empty(WORK_SIZE, np.int64)
    for g in range(st.info.shape[0]):
        out_steps[g] = play_game(st, g, sp, seat_agents, seed, first_index + g, mask, obs,
                                 work)
        _record(st, g, sp, stat_slots, out_winner, out_turns, out_points, out_stats)


# --- EverySeatBatch -----------------------------------------------------------------------------


@njit(inline="always")
def _deal_slot(st, g, sp, seed, index, game_index, record):
    game_index[g] = index
    deal_game(st, g, sp, seed, index)
    record_dealt(st, g, sp, record)


@njit(inline="always")
def _observe_slot(st, g, sp, seat, obs, obs_u8, scratch, record):
    """The observation of slot ``g`` into the buffer the caller asked for: ``obs``
    (float32[B, D]) or ``obs_u8`` (uint8[B, D], through a float32 scratch; every field is
    a small count there, checked by ``EverySeatBatch``); neither when both have 0 rows."""
    if obs.shape[0] > 0:
        record_observe(st, g, sp, record, seat, obs[g])
    elif obs_u8.shape[0] > 0:
        record_observe(st, g, sp, record, seat, scratch)
        for i in range(scratch.shape[0]):
            obs_u8[g, i] = np.uint8(scratch[i])


def vector_kernel(reset, state, tables, actions, seed, next_index, game_index, obs, obs_u8,
                  final_obs, mask, player, rewards, terminated, truncated, auto_reset):
    """The ``vector`` entry point: ``vector_step`` with a float32 scratch row.

    The loops are a kernel of their own, compiled without reference counting. Inlined
    into this reference-counted entry point, each game's call of an inlined helper
    (``_observe_slot``, ``_deal_slot``) took and released a reference to every array of
    the state and the spec: about 600 ns of a step's 850 (docs/performance.md)."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    scratch = np.empty(obs_u8.shape[1], np.float32)
    return vector_step(reset, st, sp, actions, seed, next_index, game_index, obs, obs_u8,
                       final_obs, mask, player, rewards, terminated, truncated, auto_reset,
                       scratch, None)


def vector_record_kernel(reset, state, tables, record, actions, seed, next_index,
                         game_index, obs, obs_u8, final_obs, mask, player, rewards,
                         terminated, truncated, auto_reset):
    """The ``vector_record`` entry point: ``vector_step`` keeping ``record`` (a
    ``public_record.PublicRecord``), every observation with the record after it."""
    st, sp = as_record(state), as_record(tables)
    scratch = np.empty(obs_u8.shape[1], np.float32)
    return vector_step(reset, st, sp, actions, seed, next_index, game_index, obs, obs_u8,
                       final_obs, mask, player, rewards, terminated, truncated, auto_reset,
                       scratch, record)


@njit
def vector_step(reset, st, sp, actions, seed, next_index, game_index, obs, obs_u8,
                final_obs, mask, player, rewards, terminated, truncated, auto_reset, scratch,
                record):
    """``reset``: deal games ``next_index[0] ..`` into every slot. Else apply
    ``actions[g]`` in every game and auto-reset finished games with the next game index.
    Then observe every game for its decider, into ``obs`` (float32[B, D]) or ``obs_u8``
    (uint8[B, D]), whichever has B rows (no observation if neither: ``obs_dtype=None``).
    Returns -1, or the first slot whose action is illegal (nothing changed then).
    ``next_index`` is a one-element array holding the next game index to deal. Without
    ``auto_reset`` a finished game stays finished and its action is ignored. ``scratch``:
    float32[D], for the uint8 observation. ``final_obs`` (float32[B, P, D], or 0 rows
    when nobody asked): a game that ends in this step writes every seat's observation of
    it into its row, before the next game is dealt there; other rows are left as they
    were. ``record``: ``None``, or the public record to keep (``engine.public_record``)."""
    num_games = st.info.shape[0]
    if reset:
        for g in range(num_games):
            _deal_slot(st, g, sp, seed, next_index[0] + g, game_index, record)
            player[g] = st.info[g, C.I_CURRENT]
            legal_mask(st, g, sp, mask[g])
            _observe_slot(st, g, sp, player[g], obs, obs_u8, scratch, record)
        next_index[0] += num_games
        return -1
    num_actions = mask.shape[1]
    for g in range(num_games):
        a = actions[g]
        if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
            continue
        if a < 0 or a >= num_actions or mask[g, a] == 0:
            return g
    for g in range(num_games):
        if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
            terminated[g] = False
            truncated[g] = False
            for q in range(rewards.shape[1]):
                rewards[g, q] = 0.0
            continue
        record_apply(st, g, sp, record, actions[g])
        status = st.info[g, C.I_STATUS]
        for q in range(rewards.shape[1]):
            rewards[g, q] = st.rewards[g, q]
        terminated[g] = status == C.STATUS_OVER
        truncated[g] = status == C.STATUS_TRUNCATED
        if status != C.STATUS_PLAYING:
            if final_obs.shape[0] > 0:
                for q in range(final_obs.shape[1]):
                    # the seat as an int32, as every other caller passes it: one
                    # compiled observe
                    record_observe(st, g, sp, record, np.int32(q), final_obs[g, q])
            if auto_reset:
                _deal_slot(st, g, sp, seed, next_index[0], game_index, record)
                next_index[0] += 1
        player[g] = st.info[g, C.I_CURRENT]
        legal_mask(st, g, sp, mask[g])
        _observe_slot(st, g, sp, player[g], obs, obs_u8, scratch, record)
    return -1
