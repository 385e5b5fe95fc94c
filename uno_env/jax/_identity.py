"""The identity checks of docs/jax-identity.md: the JAX engine against the numba engine,
game by game and step by step. Used by ``tests/jax/test_identity.py`` (a few hundred
games a configuration) and ``benchmarks/jax_identity.py`` (thousands).

Each check raises ``AssertionError`` naming the configuration, the game, the step and
the field at the first difference, and returns what it compared.
"""
from __future__ import annotations

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

import uno_env.jax.core as core
from uno_env.jax.simulate import random_action, simulate as jax_simulate


#: (preset, players, flags) the identity is checked on: every supported preset and
#: player count, then one configuration per group of supported flags
CONFIGS = [("classic", players, {}) for players in range(2, 11)] + [("teams", 4, {})] + [
    # whole matches: rounds dealt by the last winner, match scores in the observation
    ("classic", 3, {"target_score": 200, "dealer": 2}),
    # (rounds past 300 turns cut and settled by the points held: settle_cut)
    ("classic", 4, {"scoring": "penalty", "target_score": 120, "reward": "score",
                    "max_turns": 300, "settle_cut": True}),
    ("teams", 4, {"target_score": 150, "reward": "score", "max_turns": 300,
                  "settle_cut": True}),
    # no bluff (the W4 masked while holding the colour; no shown hand), implicit UNO,
    # small hands, and rounds cut by max_turns, settled by the cards held (settle_cut)
    ("classic", 5, {"bluff": False, "uno_call": False, "hand_size": 4, "max_turns": 50,
                    "settle_cut": True}),
]


def config_name(preset: str, players: int, flags: dict) -> str:
    return f"{preset}-{players}" + "".join(f"-{k}={v}" for k, v in flags.items())


#: steps of one compiled scan of ``compare_every_seat`` (a game takes several chunks)
CHUNK = 128


def _replay(params: core.Params):
    """The compiled program of ``params``'s preset and flags (``_program``), for its
    player count: ``chunk(state, seed_pair, indices, fresh, agent, actions)`` and
    ``blank(num_games)``. Every table size of a preset and flags shares one program
    (``core.table_params``): its reports hold the largest table's arrays (observation,
    rewards), which ``_compare_steps`` cuts to ``params``'s sizes."""
    table = core.table_params(params.preset, **dict(params.flags))
    chunk, blank = _program(table)
    players = jnp.int32(params.num_players)

    def run(state, seed_pair, indices, fresh, agent, actions):
        return chunk(state, seed_pair, indices, players, fresh, agent, actions)

    return run, lambda num_games: blank(num_games, params.num_players)


@lru_cache(maxsize=32)
def _program(table: core.Params):
    """One compiled program per preset and flags, every table size (its compile is most
    of a check's time): ``chunk(state, seed_pair, indices, num_players, fresh, agent,
    actions)`` deals the games ``indices`` of ``seed_pair`` at tables of
    ``num_players`` first if ``fresh`` (else goes on from ``state``), reports them,
    then takes ``CHUNK`` steps in one ``lax.scan``: the random agent's actions drawn
    from each game's own stream while it is on (``agent``; ``simulate.random_action``),
    else ``actions``. After each step it reports what ``EverySeatBatch`` reports (the
    observation of ``State.seat``: the decider, or the last one of a game that just
    ended) and the action taken."""
    params = table

    def report(s, action):
        return (s.current_player, s.legal_action_mask, core.observe(params, s, s.seat),
                s.rewards, s.terminated, s.truncated, action)

    def one_step(s, given, agent):
        on = s.status == 0
        drawn, action = random_action(s)
        use = agent & on
        s = jax.tree.map(lambda a, b: jnp.where(use, a, b), drawn, s)
        action = jnp.where(agent, jnp.where(on, action, -1), given)
        s = core.step(params, s, action)
        return s, report(s, action)

    def chunk(state, seed_pair, indices, num_players, fresh, agent, actions):
        state = jax.lax.cond(
            fresh, lambda: jax.vmap(lambda i: core.init(
                params, core.seed_stream(seed_pair, i), num_players))(indices),
            lambda: state)
        first = jax.vmap(report)(state, jnp.full(indices.shape, -1, jnp.int32))
        state, out = jax.lax.scan(
            lambda s, a: jax.vmap(one_step, in_axes=(0, 0, None))(s, a, agent),
            state, actions)
        return state, first, out

    def blank(num_games, num_players):
        shapes = jax.eval_shape(lambda: jax.vmap(lambda i: core.init(
            params, core.seed_stream(0, i), num_players))(jnp.arange(num_games)))
        return jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)

    return jax.jit(chunk), blank


def _seed_pair(seed: int):
    return jnp.asarray([seed >> 32, seed & 0xFFFFFFFF], jnp.uint32)


def _where(config: str, what: str, game=None, step=None) -> str:
    at = f" game {game}" if game is not None else ""
    at += f" step {step}" if step is not None else ""
    return f"{config}:{at} {what} differs"


def compare_simulate(preset: str, num_players: int, num_games: int, seed: int,
                     batch_size: int = 128, **flags) -> dict:
    """``uno_env.jax.simulate`` against ``uno_env.simulate(agents="random")``: winner,
    turns, steps and points of every game. Returns ``{"games", "steps"}`` compared."""
    from uno_env.evaluation.simulation import simulate as numba_simulate
    name = f"{preset} P={num_players} seed={seed} {flags or ''}".strip()
    mine = jax_simulate(preset, num_players, num_games, seed, batch_size=batch_size,
                         **flags)
    ref = numba_simulate(preset=preset, num_players=num_players, agents="random",
                           num_games=num_games, seed=seed, **flags)
    for field in ("winner", "turns", "steps", "points"):
        a, b = mine[field], np.asarray(getattr(ref, field))
        bad = np.flatnonzero((a != b).reshape(num_games, -1).any(axis=1))
        assert bad.size == 0, (_where(name, field, int(bad[0])) +
                               f": jax {a[bad[0]]}, numba {b[bad[0]]}")
    return {"games": num_games, "steps": int(ref.steps.sum())}


def compare_every_seat(preset: str, num_players: int, num_games: int, seed: int,
                       action_seed: int = 0, max_steps: int = 100_000, **flags) -> dict:
    """A JAX batch and ``uno_env.EverySeatBatch`` (same configuration, seed and first
    game, no auto-reset) stepped with the same uniformly random legal actions, drawn
    by numpy from ``action_seed``: the current player, legal mask, float32 observation,
    rewards, terminations and truncations must agree at every step of every game.
    Returns ``{"games", "steps"}``: games and (game, step) pairs compared."""
    pick = np.random.default_rng(action_seed)

    def choose(venv, mask, live):
        counts = mask.sum(axis=1)
        k = np.minimum((pick.random(len(mask)) * counts).astype(np.int64),
                       np.maximum(counts - 1, 0))
        return np.where(live, np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1), 0)

    out = _compare_steps(preset, num_players, num_games, seed, choose, max_steps, flags)
    out.pop("final")
    return out


def compare_random_play(preset: str, num_players: int, num_games: int, seed: int,
                        max_steps: int = 100_000, **flags) -> dict:
    """The random agent in every seat, drawing from each game's own stream, on both
    engines: a JAX batch (``simulate.random_action``) and ``uno_env.EverySeatBatch``
    (``stream_random_actions``, ``simulate``'s agent) must take the same actions and
    report the same decider, mask, observation, rewards and terminations at every step;
    the games' winner, turns, steps and points must be ``uno_env.simulate``'s (games
    ``0 .. num_games - 1`` of ``seed``). Returns ``{"games", "steps"}``."""
    from uno_env.evaluation.simulation import simulate as numba_simulate

    def choose(venv, mask, live):
        actions = np.zeros(len(mask), np.int64)
        rows = np.flatnonzero(live)
        actions[rows] = venv.stream_random_actions(rows)
        return actions

    out = _compare_steps(preset, num_players, num_games, seed, choose, max_steps, flags,
                         agent=True)
    name = f"{preset} P={num_players} seed={seed} {flags or ''}".strip()
    ref = numba_simulate(preset=preset, num_players=num_players, agents="random",
                           num_games=num_games, seed=seed, threads=1, **flags)
    final = out.pop("final")
    for field in ("winner", "turns", "steps", "points"):
        a, b = np.asarray(getattr(final, field)), np.asarray(getattr(ref, field))
        if field == "points":  # the table program's seats past num_players stay empty
            assert not a[:, num_players:].any(), f"{name}: points past the table"
            a = a[:, :num_players]
        bad = np.flatnonzero((a != b).reshape(num_games, -1).any(axis=1))
        assert bad.size == 0, (_where(name, f"simulate's {field}", int(bad[0])) +
                               f": jax {a[bad[0]]}, numba {b[bad[0]]}")
    return out


def _compare_steps(preset, num_players, num_games, seed, choose, max_steps, flags,
                   agent=False) -> dict:
    """Step both engines ``CHUNK`` steps at a time (numba first: its actions feed the
    JAX batch unless ``agent``) and compare what each reports after every step."""
    from uno_env.envs.every_seat import EverySeatBatch
    name = f"{preset} P={num_players} seed={seed} {flags or ''}".strip()
    params = core.make_params(preset, num_players, **flags)
    venv = EverySeatBatch(num_games, preset=preset, num_players=num_players, seed=seed,
                          auto_reset=False, **flags)
    chunk, blank = _replay(params)
    obs, mask, player = venv.reset()
    ref = [(player.copy(), mask.astype(bool), obs.copy(),
            np.zeros((num_games, num_players), np.float32), np.zeros(num_games, bool),
            np.zeros(num_games, bool), np.full(num_games, -1))]
    indices = jnp.arange(num_games, dtype=jnp.int32)
    state, fresh = blank(num_games), True
    first_ref = [np.stack(col) for col in zip(*ref)]
    live = np.ones(num_games, bool)
    t = compared = 0
    while live.any():
        assert t < max_steps, f"{name}: games still running after {max_steps} steps"
        # the numba engine: up to CHUNK steps
        ref, lives, acts = [], [], np.zeros((CHUNK, num_games), np.int32)
        for i in range(CHUNK):
            if not live.any():
                break
            a = choose(venv, mask, live)
            acts[i] = np.where(live, a, 0)
            obs, mask, player, rewards, terminated, truncated = venv.step(a)
            ref.append((player.copy(), mask.astype(bool), obs.copy(), rewards.copy(),
                        terminated.copy(), truncated.copy(), np.where(live, a, -1)))
            lives.append(live)
            live = live & ~(terminated | truncated)
            lives[-1] = np.stack([lives[-1], live])
        n = len(ref)
        # the JAX engine: one compiled scan of CHUNK steps
        state, first, out = chunk(state, _seed_pair(seed), indices, fresh, agent,
                                  jnp.asarray(acts))
        if fresh:  # the deal, compared before the first step
            _check(name, 0, _cut(name, [np.asarray(x)[None] for x in first], params),
                   first_ref, np.ones((1, num_games), bool), np.ones((1, num_games), bool))
        fresh = False
        mine = _cut(name, [np.asarray(x)[:n] for x in out], params)
        before = np.stack([x[0] for x in lives])
        after = np.stack([x[1] for x in lives])
        _check(name, t + 1, mine, [np.stack(col) for col in zip(*ref)], before, after)
        compared += int(before.sum())
        t += n
    return {"games": num_games, "steps": compared, "final": state}


def _cut(name, report, params):
    """A report of the table program cut to ``params``'s table: the observation to its
    size and the rewards to its seats (what lies beyond must be zero)."""
    report = list(report)
    for i, size in ((2, params.observation_size), (3, params.num_players)):
        assert not report[i][..., size:].any(), \
            f"{name}: the table program wrote past the {params.num_players}-seat arrays"
        report[i] = report[i][..., :size]
    return report


def _check(name, t0, mine, ref, before, after):
    """Compare the reports of steps ``t0 ..`` (``before``/``after``: the games on
    before and after each step)."""
    ended = before & ~after                 # ended in this step: their final report
    shown = after | ended
    fields = ("current player", "legal mask", "observation", "rewards", "terminated",
              "truncated", "action")
    steps, games = before.shape
    for field, a, b in zip(fields, mine, ref):
        where = np.ones_like(before)
        if field == "current player":
            a = np.where(ended, -1, a)      # EverySeatBatch leaves the last decider there
            b = np.where(ended, -1, b)
            where = shown
        elif field in ("terminated", "truncated"):
            a = a & before
        elif field == "observation":
            where = shown
        elif field == "action":
            a = np.where(before, a, -1)
            where = before & (t0 > 0)
        diff = (a != b).reshape(steps, games, -1).any(axis=2) & where
        if diff.any():
            t, g = np.argwhere(diff)[0]
            raise AssertionError(_where(name, field, int(g), int(t0 + t)) +
                                 f": jax {_show(a[t, g])}, numba {_show(b[t, g])}")


def _show(x):
    x = np.asarray(x)
    if x.dtype == bool and x.ndim:
        return np.flatnonzero(x).tolist()
    if x.ndim and x.size > 12:
        return {int(i): float(x[i]) for i in np.flatnonzero(x)}
    return x.tolist()


# --- the baseline agents (uno_env.jax.policies) ------------------------------------------


@lru_cache(maxsize=8)
def _policy_program(preset: str, max_players: int, num_games: int):
    """``deal(seed_pair, num_players)`` and ``chunk(state, which)``: CHUNK steps of
    ``num_games`` games with policy ``which`` (its index in ``policies.POLICIES``) in
    every seat; reports each step's action (the policy's -1 once a game is over),
    whether the game was on, and the rewards. One
    program for every policy and table size up to ``max_players`` (the policy is a
    traced switch, the table ``core.table_params``)."""
    from uno_env.jax.policies import POLICIES
    params = core.table_params(preset, max_players=max_players)
    policies = list(POLICIES.values())

    def one(s, which):
        a = jax.lax.switch(which, [lambda s, f=f: f(params, s) for f in policies], s)
        on = s.status == C_PLAYING
        s = core.step(params, s, jnp.maximum(a, 0))
        return s, (a, on, s.rewards)

    @jax.jit
    def deal(seed_pair, num_players):
        return jax.vmap(lambda i: core.init(params, core.seed_stream(seed_pair, i),
                                            num_players))(jnp.arange(num_games))

    @jax.jit
    def chunk(state, which):
        return jax.lax.scan(lambda s, _: jax.vmap(one, in_axes=(0, None))(s, which),
                            state, None, length=CHUNK)

    return deal, chunk


C_PLAYING = 0  # engine/codes.py STATUS_PLAYING


def compare_policy(name: str, preset: str, num_players: int, num_games: int, seed: int,
                   max_players: int | None = None) -> dict:
    """The baseline agent ``name`` ("greedy" or "heuristic") in every seat on both
    engines: ``uno_env.EverySeatBatch`` stepped with the numba agent's kernel (what
    ``agents.GreedyAgent.act_batch`` runs) on its own observations, a JAX batch stepped with ``uno_env.jax.policies``'s policy on
    its own states (games ``0 .. num_games - 1`` of ``seed``). The actions must agree at
    every step of every game (the JAX policy answers -1 once a game is over: nothing
    is legal), and the rewards of every step. Returns ``{"games",
    "steps"}`` compared."""
    from uno_env.engine.entry import kernels
    from uno_env.engine.names import AGENT_CODES
    from uno_env.envs.every_seat import EverySeatBatch
    from uno_env.jax.policies import POLICIES
    label = f"{name} {preset} P={num_players} seed={seed}"
    deal, chunk = _policy_program(preset, max_players or num_players, num_games)
    state = deal(_seed_pair(seed), jnp.int32(num_players))
    which = jnp.int32(list(POLICIES).index(name))
    venv = EverySeatBatch(num_games, preset=preset, num_players=num_players, seed=seed,
                          auto_reset=False)
    # the numba agent (agents.GreedyAgent / HeuristicAgent.act_batch: this kernel)
    cfg = venv.config
    policy, code = kernels(cfg.variant).policy, AGENT_CODES[name]

    def numba_agent(obs, mask):
        out = np.empty(len(obs), np.int64)
        policy(code, np.ascontiguousarray(obs, np.float32),
               np.ascontiguousarray(mask, np.uint8), cfg.spec, out)
        return out

    obs, mask, _ = venv.reset()
    live = np.ones(num_games, bool)
    t = compared = 0
    while live.any():
        state, (mine, on, mine_r) = chunk(state, which)
        mine, mine_r = np.asarray(mine), np.asarray(mine_r)[..., :num_players]
        assert (np.asarray(on)[:, ~live] == 0).all()
        for i in range(CHUNK):
            ref = np.full(num_games, -1, np.int64)
            if live.any():
                ref[live] = numba_agent(obs[live], mask[live])
            bad = np.flatnonzero(mine[i] != ref)
            if bad.size:
                g = int(bad[0])
                raise AssertionError(_where(label, "action", g, t + i) +
                                     f": jax {mine[i, g]}, numba {ref[g]}")
            if not live.any():
                continue
            obs, mask, _, rewards, term, trunc = venv.step(np.maximum(ref, 0))
            rewards = np.where(live[:, None], rewards, 0.0)
            bad = np.flatnonzero((mine_r[i] != rewards).any(axis=1))
            if bad.size:
                g = int(bad[0])
                raise AssertionError(_where(label, "rewards", g, t + i) +
                                     f": jax {mine_r[i, g]}, numba {rewards[g]}")
            compared += int(live.sum())
            live = live & ~(term | trunc)
        t += CHUNK
    assert np.asarray(state.status != C_PLAYING).all(), f"{label}: JAX games still on"
    return {"games": num_games, "steps": compared}
