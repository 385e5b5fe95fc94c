"""UNO as a `pgx <https://github.com/sotetsuk/pgx>`_ environment: ``UnoPgx``, a subclass
of ``pgx.Env`` over the pure-JAX engine (``uno_env.jax.core``), with pgx's API and
conventions (checked by pgx's own ``pgx.api_test`` in ``tests/jax/test_pgx_env.py``):

    >>> env = UnoPgx(preset="classic", num_players=4)
    >>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
    >>> state = jax.jit(env.step)(state, action)          # action: int32, a legal id
    >>> state.current_player, state.legal_action_mask, state.observation
    >>> state.rewards, state.terminated, state.truncated

Everything is jit- and vmap-able (``jax.vmap(env.init)(keys)``). Where pgx and uno-env
differ, this adapter follows pgx (docs/jax.md):

- **the deal comes from the key**: ``init(key)`` deals game 0 of the 63-bit seed made of
  ``jax.random.bits(key, (2,), uint32)`` (high word first, its top bit cleared: uno-env's
  seeds are below 2**63), the game the numba engine deals as
  ``Game(...).reset(seed, index=0)``; ``deal(seed, game_index)`` deals any game of a
  seed, as ``EverySeatBatch`` and ``simulate`` number them. The cards drawn later
  come from the game's own stream in the state, so ``step``'s ``key`` is not used;
- **an illegal action ends the game** (pgx): the player who took it gets -1 and the
  others share +1 (+1/(P-1) each, zero-sum like uno-env's win reward; with teams, -1 for
  the offender's team and +1 for the other, as a team round is scored). uno-env's own
  APIs refuse an illegal action with a ``ValueError`` and change nothing;
- **a finished game**: stepping it returns it unchanged with zero rewards, its
  ``legal_action_mask`` is all True (pgx: no division by zero when a policy normalises
  over it) and ``current_player`` stays the seat that moved last
  (pgx's players are always ids >= 0; the engine's ``current_player`` is -1 there);
- **the turn limit ends the game** (``max_turns``, default 1000 turns; about 40% of
  random-against-random classic games reach it): ``terminated`` with zero rewards, as
  pgx's Go ends at its ``max_termination_steps``; pgx leaves ``truncated`` to wrappers
  (its ``api_test`` plays each game until ``terminated``), so it stays False here.
  uno-env reports such a game as truncated: ``state._x.truncated`` still says so. With
  the rule flag ``settle_cut=True`` the cut step's rewards settle the game by each
  seat's standing instead (zero-sum; docs/rules.md 7), so self-play cannot gain by
  stalling to the limit;
- ``current_player`` and the ``rewards`` index are absolute seats (0 .. P-1); the engine
  already deals the starting seat from the game's stream, so no player-order shuffle is
  added.

``observe(state, player_id)`` is any seat's observation (the same vector
``EverySeatBatch`` gives that seat); ``observe_all(state)`` all of them,
``float32[P, observation_size]``. pgx's ``observe`` warns that ``player_id`` is deprecated
there; ``observe_all`` does not.
"""
from __future__ import annotations

from functools import partial
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
import pgx
from flax import struct

from uno_env.jax import _rng, core

#: ``env.id`` and ``state.env_id`` (pgx's own ids are a closed ``Literal``: see docs/jax.md)
ENV_ID = "uno"
#: bumped when the behaviour of ``UnoPgx`` changes (pgx's ``Env.version``)
VERSION = "v0"


@struct.dataclass
class UnoPgxState(pgx.State):
    """pgx's six public fields (and its private step count) over the engine's state
    ``_x`` (``uno_env.jax.core.State``)."""

    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _x: core.State

    @property
    def env_id(self) -> str:
        return ENV_ID

    def to_svg(self, *, color_theme: Optional[str] = None,
               scale: Optional[float] = None) -> str:
        """A small SVG card of each game's public fields (seat to move, turns, legal
        moves, winner, rewards), one card per game of a batch. pgx's own visualiser knows
        only its games, so UNO draws itself; ``color_theme`` "dark" inverts it."""
        return _svg(self, dark=(color_theme == "dark"), scale=scale or 1.0)

    def save_svg(self, filename, *, color_theme: Optional[str] = None,
                 scale: Optional[float] = None) -> None:
        """``to_svg`` written to ``filename`` (which must end with ``.svg``, as in pgx)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"filename must end with .svg, got {str(filename)!r}")
        with open(filename, "w", encoding="utf-8") as f:
            f.write(self.to_svg(color_theme=color_theme, scale=scale))


class UnoPgx(pgx.Env):
    """UNO on the pure-JAX engine with pgx's API (module docstring). ``preset``,
    ``num_players`` and rule flags as ``uno_env.jax.make_params`` takes them (the presets
    and flags the JAX engine supports: docs/jax-identity.md)."""

    def __init__(self, preset: str = "classic", num_players: int = 4, **rules):
        super().__init__()
        #: the engine's static parameters (``uno_env.jax.core.Params``)
        self.params = core.make_params(preset=preset, num_players=num_players, **rules)
        self._teams = _team_of(self.params)

    # -- pgx's abstract methods ------------------------------------------------------

    def _init(self, key) -> UnoPgxState:
        return self._wrap(core.init(self.params, core.seed_stream(_seed_of(key), 0)))

    def _step(self, state: UnoPgxState, action, key) -> UnoPgxState:
        del key                   # the game's draws come from its own stream in ``_x``
        x = state._x
        legal = x.legal_action_mask[action]
        stepped = core.step(self.params, x, action)
        # an illegal action leaves the engine's state as it was (pgx.Env.step then ends
        # the game with ``_step_with_illegal_action``); the engine's step is not defined
        # for it
        x = jax.tree.map(lambda new, old: jnp.where(legal, new, old), stepped, x)
        # the turn limit ends the game as pgx's Go ends at its max_termination_steps:
        # terminated (with the engine's rewards: zero, or settle_cut's settlement); pgx
        # leaves truncation to wrappers
        over = x.terminated | x.truncated
        return state.replace(
            current_player=jnp.where(over, state.current_player, x.current_player),
            rewards=x.rewards.astype(jnp.float32),
            terminated=over,
            legal_action_mask=x.legal_action_mask | over,
            _x=x)

    def _observe(self, state: UnoPgxState, player_id) -> jax.Array:
        return core.observe(self.params, state._x, player_id)

    def _step_with_illegal_action(self, state: UnoPgxState, loser) -> UnoPgxState:
        penalty = jnp.float32(self._illegal_action_penalty)      # -1, pgx's
        num_players = self.params.num_players
        if self._teams is None:
            rewards = jnp.full(num_players, -penalty / (num_players - 1), jnp.float32)
            rewards = rewards.at[loser].set(penalty)
        else:
            teams = jnp.asarray(self._teams)
            rewards = jnp.where(teams == teams[loser], penalty, -penalty)
        return state.replace(rewards=rewards.astype(jnp.float32),
                             terminated=jnp.bool_(True))

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        return self.params.num_players

    @property
    def num_actions(self) -> int:
        return self.params.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.params.observation_size,)

    # -- beyond pgx ----------------------------------------------------------------

    def deal(self, seed, game_index=0) -> UnoPgxState:
        """Game ``game_index`` of ``seed``, dealt as the numba engine deals it (``seed``:
        a Python int or uint32[2] (high, low); ``game_index``: an int or a traced int32,
        so ``jax.vmap(lambda i: env.deal(seed, i))(jnp.arange(n))`` deals games 0..n-1).
        One compiled program (run op by op, the deal compiles a few hundred small ones)."""
        return self._deal(_rng.seed_words(seed), game_index)

    @partial(jax.jit, static_argnums=[0])
    def _deal(self, seed, game_index) -> UnoPgxState:
        state = self._wrap(core.init(self.params, core.seed_stream(seed, game_index)))
        return state.replace(observation=self.observe(state))

    @partial(jax.jit, static_argnums=[0])
    def observe_all(self, state: UnoPgxState) -> jax.Array:
        """Every seat's observation of ``state``: float32[num_players, observation_size]
        (jitted, as ``deal``)."""
        seats = jnp.arange(self.params.num_players, dtype=jnp.int32)
        return jax.lax.stop_gradient(
            jax.vmap(lambda seat: core.observe(self.params, state._x, seat))(seats))

    def _wrap(self, x: core.State) -> UnoPgxState:
        return UnoPgxState(
            current_player=x.current_player,
            observation=jnp.zeros(self.params.observation_size, jnp.float32),
            rewards=x.rewards.astype(jnp.float32),
            terminated=x.terminated,
            truncated=x.truncated,
            legal_action_mask=x.legal_action_mask,
            _step_count=jnp.int32(0),
            _x=x)


def _seed_of(key) -> jax.Array:
    """The seed (uint32[2], high word first) a pgx key deals: its first two 32-bit
    draws, the top bit cleared (uno-env's seeds are below 2**63)."""
    bits = jax.random.bits(key, (2,), jnp.uint32)
    return bits.at[0].set(bits[0] & jnp.uint32(0x7FFFFFFF))   # uno-env's seeds: < 2**63


def _team_of(params) -> Optional[tuple[int, ...]]:
    """The team of each seat with the ``teams`` rule (partners sit opposite: seats s and
    s + P/2, docs/rules.md 2.12), else None."""
    if not params.config.rules.teams:
        return None
    half = params.num_players // 2
    return tuple(seat % half for seat in range(params.num_players))


def _svg(state: UnoPgxState, dark: bool, scale: float) -> str:
    cp = np.atleast_1d(np.asarray(state.current_player))
    games = len(cp)
    col = lambda a: np.asarray(a).reshape(games, -1)  # noqa: E731
    rows = {
        "current_player": cp,
        "turns": col(state._x.turns)[:, 0],
        "legal moves": col(state.legal_action_mask).sum(axis=1),
        "winner": col(state._x.winner)[:, 0],
        "terminated": col(state.terminated)[:, 0],
        "truncated": col(state.truncated)[:, 0],
    }
    rewards = col(state.rewards)
    fg, bg = ("white", "black") if dark else ("black", "white")
    width, line = 220, 18
    height = line * (len(rows) + 3)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * games * scale:.0f}" '
           f'height="{height * scale:.0f}" viewBox="0 0 {width * games} {height}">',
           f'<rect width="100%" height="100%" fill="{bg}"/>']
    for g in range(games):
        x0 = g * width + 10
        lines = [f"UNO ({ENV_ID}) game {g}"] + [f"{k}: {int(v[g])}" for k, v in rows.items()]
        lines.append("rewards: " + " ".join(f"{r:+.2f}" for r in rewards[g]))
        for i, text in enumerate(lines):
            out.append(f'<text x="{x0}" y="{line * (i + 1)}" fill="{fg}" '
                       f'font-family="monospace" font-size="12">{text}</text>')
    out.append("</svg>")
    return "\n".join(out)
