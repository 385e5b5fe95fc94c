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
from uno_env.jax.simulate import simulate as jax_simulate


#: steps of one compiled scan of ``compare_every_seat`` (a game takes several chunks)
CHUNK = 128


@lru_cache(maxsize=32)
def batch_functions(params: core.Params):
    """``jit(vmap(...))`` of ``init`` (from game indices of a seed), ``step`` and
    ``observe`` for ``params``: built once per configuration, so each compiles once
    per process and batch size."""

    def init(seed_pair, indices):
        return jax.vmap(lambda i: core.init(params, core.seed_stream(seed_pair, i)))(indices)

    def step(state, actions):
        return jax.vmap(lambda s, a: core.step(params, s, a))(state, actions)

    def observe(state, seats):
        return jax.vmap(lambda s, q: core.observe(params, s, q))(state, seats)

    return jax.jit(init), jax.jit(step), jax.jit(observe)


@lru_cache(maxsize=32)
def _replay(params: core.Params):
    """init, and ``CHUNK`` steps of given actions in one ``lax.scan``, reporting after
    each step what ``EverySeatBatch`` reports (the observation of ``State.seat``, the
    decider, or the last one of a game that just ended)."""

    def report(s):
        return (s.current_player, s.legal_action_mask, core.observe(params, s, s.seat),
                s.rewards, s.terminated, s.truncated)

    def init(seed_pair, indices):
        def one(i):
            s = core.init(params, core.seed_stream(seed_pair, i))
            return s, report(s)
        return jax.vmap(one)(indices)

    def run(state, actions):
        def body(s, a):
            s = jax.vmap(lambda st, act: core.step(params, st, act))(s, a)
            return s, jax.vmap(report)(s)
        return jax.lax.scan(body, state, actions)

    return jax.jit(init), jax.jit(run)


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
    import uno_env
    name = f"{preset} P={num_players} seed={seed} {flags or ''}".strip()
    mine = jax_simulate(preset, num_players, num_games, seed, batch_size=batch_size,
                         **flags)
    ref = uno_env.simulate(preset=preset, num_players=num_players, agents="random",
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
    game, no auto-reset) stepped with the same uniformly random legal actions (drawn
    from ``action_seed``): the current player, legal mask, float32 observation,
    rewards, terminations and truncations must agree at every step of every game.
    Returns ``{"games", "steps"}``: games and (game, step) pairs compared."""
    from uno_env import EverySeatBatch
    name = f"{preset} P={num_players} seed={seed} {flags or ''}".strip()
    params = core.make_params(preset, num_players, **flags)
    venv = EverySeatBatch(num_games, preset=preset, num_players=num_players, seed=seed,
                          auto_reset=False, **flags)
    # the numba engine's trajectory: what it reports after the reset and each step
    obs, mask, player = venv.reset()
    rows = [(player.copy(), mask.astype(bool), obs.copy(), np.zeros((num_games, num_players), np.float32),
             np.zeros(num_games, bool), np.zeros(num_games, bool))]
    live = [np.ones(num_games, bool)]
    actions = []
    pick = np.random.default_rng(action_seed)
    while live[-1].any():
        assert len(actions) < max_steps, f"{name}: games still running after {max_steps}"
        counts = mask.sum(axis=1)
        k = np.minimum((pick.random(num_games) * counts).astype(np.int64),
                       np.maximum(counts - 1, 0))
        a = np.where(live[-1], np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1), 0)
        actions.append(a)
        obs, mask, player, rewards, terminated, truncated = venv.step(a)
        rows.append((player.copy(), mask.astype(bool), obs.copy(), rewards.copy(),
                     terminated.copy(), truncated.copy()))
        live.append(live[-1] & ~(terminated | truncated))
    steps = len(actions)
    # the JAX engine: init, then the same actions, CHUNK steps per compiled scan
    init, run = _replay(params)
    state, first = init(_seed_pair(seed), jnp.arange(num_games, dtype=jnp.int32))
    mine = [[np.asarray(x)[None] for x in first]]
    padded = -(-steps // CHUNK) * CHUNK
    acts = np.zeros((padded, num_games), np.int32)
    acts[:steps] = np.asarray(actions)
    for lo in range(0, padded, CHUNK):
        state, out = run(state, jnp.asarray(acts[lo:lo + CHUNK]))
        mine.append([np.asarray(x) for x in out])
    mine = [np.concatenate(col)[:steps + 1] for col in zip(*mine)]
    ref = [np.stack(col) for col in zip(*rows)]
    live = np.stack(live)                   # [steps + 1, games]: on before step t
    was_live = np.vstack([live[:1], live[:-1]])
    ended = was_live & ~live                # ended in step t (their final report)
    shown = live | ended
    fields = ("current player", "legal mask", "observation", "rewards", "terminated",
              "truncated")
    for field, a, b in zip(fields, mine, ref):
        if field == "current player":
            a = np.where(ended, -1, a)      # EverySeatBatch leaves the last decider there
            b = np.where(ended, -1, b)
            where = shown
        elif field in ("terminated", "truncated"):
            a = a & (was_live | (np.arange(steps + 1) == 0)[:, None])
            where = np.ones_like(live)
        elif field == "observation":
            where = shown
        else:
            where = np.ones_like(live)
        diff = (a != b).reshape(steps + 1, num_games, -1).any(axis=2) & where
        if diff.any():
            t, g = np.argwhere(diff)[0]
            raise AssertionError(_where(name, field, int(g), int(t)) +
                                 f": jax {_show(a[t, g])}, numba {_show(b[t, g])}")
    return {"games": num_games, "steps": int(was_live[1:].sum())}


def _show(x):
    x = np.asarray(x)
    if x.dtype == bool and x.ndim:
        return np.flatnonzero(x).tolist()
    if x.ndim and x.size > 12:
        return {int(i): float(x[i]) for i in np.flatnonzero(x)}
    return x.tolist()
