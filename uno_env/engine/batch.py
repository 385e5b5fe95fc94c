"""Batch kernels: whole games inside numba (``simulate``) and the vectorised step of
``VectorEnv``. Game ``i`` of a seed always starts from ``seed_stream(seed, i)``, so the
results never depend on the batch size or on the number of threads."""
import numpy as np
from numba import prange

from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine.core import apply_action, legal_mask, reset_game, step_and_mask
from uno_env.engine.observe import observe
from uno_env.engine.policies import choose_action
from uno_env.engine.rng import seed_stream

# vector_step is the one hot caller of these three kernels: it uses inlined copies so a
# whole environment step runs in one frame (a call passes the ~20 state and table arrays
# by value), while every other caller keeps the plain, faster-to-compile kernels.
_apply_inlined = njit(inline="always")(apply_action.py_func)
_mask_inlined = njit(inline="always")(legal_mask.py_func)
_observe_inlined = njit(inline="always")(observe.py_func)

#: per-game counters reported by ``simulate_chunk`` (columns of ``out_stats``)
STAT_SLOTS = np.array([C.I_STAT_CARDS_DRAWN, C.I_STAT_W4_PLAYED, C.I_STAT_W4_BLUFFS,
                       C.I_STAT_CHALLENGES, C.I_STAT_CHALLENGES_WON, C.I_STAT_RESHUFFLES,
                       C.I_STAT_CATCHES, C.I_ROUND, C.I_STAT_STACKED,
                       C.I_STAT_JUMP_INS, C.I_STAT_MULTI, C.I_STAT_EXCHANGES,
                       # UNO One Piece (always 0 with other decks)
                       C.I_STAT_PETRIFY, C.I_STAT_BREAKS, C.I_STAT_ACE, C.I_STAT_GIVES,
                       # UNO Flip (always 0 with single-sided decks)
                       C.I_STAT_FLIPS], np.int64)
#: ``w4_played``/``w4_bluffs`` count every challengeable wild draw (UNO Flip: W2, WC)
STAT_NAMES = ("cards_drawn", "w4_played", "w4_bluffs", "challenges", "challenges_won",
              "reshuffles", "catches", "rounds", "stacked", "jump_ins", "multi_extra",
              "exchanges", "petrifications", "breaks", "ace_combos", "gives", "flips")


@njit
def play_game(st, g, sp, seat_agents, seed, index, mask, obs):
    """Deal game ``index`` of ``seed`` into slot ``g`` and play it to its end with the
    agents' kernels (``mask`` and ``obs`` are scratch: uint8[A], float32[D]). Returns
    the number of decisions taken."""
    st.rng[g] = seed_stream(seed, index)
    reset_game(st, g, sp)
    steps = 0
    while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        action = choose_action(seat_agents[st.info[g, C.I_CURRENT]], st, g, sp, mask, obs)
        apply_action(st, g, sp, action)
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


@njit(parallel=True)
def simulate_chunk(st, sp, seat_agents, seed, first_index, stat_slots, out_winner,
                   out_turns, out_steps, out_points, out_stats):
    """Play games ``first_index .. first_index + B - 1`` of ``seed`` to their end, one per
    state slot, in parallel. ``seat_agents[seat]`` is the agent code of each seat.
    Writes per game: winner (-1 if truncated), turns of the last round, decisions, round
    points (match scores when ``target_score > 0``) and ``stat_slots`` counters."""
    num_actions = sp.layout[C.L_SIZE]
    obs_size = sp.layout[C.L_OBS_SIZE]
    # The loop body only calls kernels: numba's parfors loses writes made directly to
    # arrays reached through a tuple attribute (``st.rng[g] = ...``) inside prange.
    for g in prange(st.info.shape[0]):
        mask = np.empty(num_actions, np.uint8)
        obs = np.empty(obs_size, np.float32)
        out_steps[g] = play_game(st, g, sp, seat_agents, seed, first_index + g, mask, obs)
        _record(st, g, sp, stat_slots, out_winner, out_turns, out_points, out_stats)


@njit(inline="always")
def refresh_one(st, g, sp, mask, obs):
    """Recompute game ``g``'s legal mask and its current decider's observation."""
    legal_mask(st, g, sp, mask)
    observe(st, g, sp, st.info[g, C.I_CURRENT], obs)


@njit(inline="always")
def step_one(st, g, sp, action, mask, obs):
    """One environment step of one game in a single kernel call: apply ``action``, then
    refill ``mask`` and ``obs`` for the next decider. Returns the next decider's seat OR
    the ``core.STEP_*`` bits."""
    code = step_and_mask(st, g, sp, action, mask)
    observe(st, g, sp, st.info[g, C.I_CURRENT], obs)
    return code


@njit(inline="always")
def _refresh(st, g, sp, obs, mask, player):
    player[g] = st.info[g, C.I_CURRENT]
    refresh_one(st, g, sp, mask[g], obs[g])


@njit
def vector_reset(st, sp, seed, first_index, game_index, obs, mask, player):
    """Deal games ``first_index ..`` into every slot and observe them."""
    for g in range(st.info.shape[0]):
        game_index[g] = first_index + g
        st.rng[g] = seed_stream(seed, first_index + g)
        reset_game(st, g, sp)
        _refresh(st, g, sp, obs, mask, player)


@njit
def vector_step(st, sp, actions, seed, next_index, game_index, obs, mask, player, rewards,
                terminated, truncated, auto_reset):
    """Apply ``actions[g]`` in every game; auto-reset finished games with the next game
    index. Returns -1, or the first slot whose action is illegal (nothing changed then).
    ``next_index`` is a one-element array holding the next game index to deal. Without
    ``auto_reset`` a finished game stays finished and its action is ignored."""
    num_games = st.info.shape[0]
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
        _apply_inlined(st, g, sp, actions[g])
        status = st.info[g, C.I_STATUS]
        for q in range(rewards.shape[1]):
            rewards[g, q] = st.rewards[g, q]
        terminated[g] = status == C.STATUS_OVER
        truncated[g] = status == C.STATUS_TRUNCATED
        if status != C.STATUS_PLAYING and auto_reset:
            game_index[g] = next_index[0]
            st.rng[g] = seed_stream(seed, next_index[0])
            next_index[0] += 1
            reset_game(st, g, sp)
        player[g] = st.info[g, C.I_CURRENT]
        _mask_inlined(st, g, sp, mask[g])
        _observe_inlined(st, g, sp, player[g], obs[g])
    return -1
