"""``MCTSAgent``: the numba search agent ``mcts`` (``uno_env.engine.search``) as a Python
agent, for the AEC env, ``Game`` loops and ``uno-bench play``.

A search agent needs the position, not only the observation: it samples the cards its
seat cannot see (``Game.determinize``) and plays rollouts from there. So it is
*attached* to the ``Game`` it plays in, and ``act(observation, action_mask)`` searches
that game's current position (the observation and mask are checked against it; the
true hidden cards are never read, only redrawn)::

    env = uno_env.env("classic", 4); env.reset(seed=0)
    bot = MCTSAgent(env.unwrapped.config, budget=200, seed=1).attach(env)
    obs, *_ = env.last(); env.step(bot.act(obs))

``attach`` takes a ``Game``, or any object with a ``game`` attribute (the AEC env and
its wrappers: ``env.unwrapped.game``). Without ``attach`` it raises a ValueError that
says so. Its random numbers come from its own stream (``seed``), advanced by each
decision, so a sequence of positions gives the same moves for the same seed.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .base import Agent
from uno_env.engine.batch import STAT_SLOTS
from uno_env.engine.entry import kernels
from uno_env.engine.rng import seed_stream_py
from uno_env.engine.names import DEFAULT_BUDGET, DEFAULT_ROLLOUT, mcts_code
from uno_env.engine.search import OP_DECIDE, idle_arguments
from uno_env.envs.game import Game
from uno_env.players.position import PositionAgent


class MCTSAgent(PositionAgent, Agent):
    """Determinized Monte Carlo search: ``budget`` rollouts a decision with the
    ``rollout`` policy (``"greedy"``, ``"random"`` or ``"heuristic"``), ``mode``
    ``"flat"`` (every action on the same deals) or ``"ucb"``. ``simulate``'s name for
    the same agent is ``mcts:<budget>`` (``mcts-random:<budget>``, ...)."""

    name = "mcts"

    def __init__(self, config=None, budget: int = DEFAULT_BUDGET,
                 rollout: str = DEFAULT_ROLLOUT,
                 mode: str = "flat", seed=None):
        super().__init__(config)
        self.search_code = mcts_code(budget, rollout, mode)
        self.budget, self.rollout, self.mode = budget, rollout, mode
        self.kernel = "mcts" + "".join(f"-{w}" for w, d in ((rollout, DEFAULT_ROLLOUT),
                                                             (mode, "flat")) if w != d) \
            + f":{budget}"
        self._rng = np.array([seed_stream_py(0 if seed is None else int(seed), 0)],
                             np.uint64)
        self._search = kernels(self.config.variant).search
        self._codes = np.array([self.search_code], np.int64)
        # OP_DECIDE does not read simulate's outputs nor the learner's arrays
        outputs, no_learner = idle_arguments(self.config.num_players,
                                             self.config.layout.obs_size,
                                             self.config.layout.size)
        self._idle = (*outputs, *no_learner)
        self.game: Game | None = None

    def share_stream(self, stream: np.ndarray) -> "MCTSAgent":
        """Draw the search's random numbers from ``stream`` (a ``uint64[1]`` array,
        advanced by every decision) instead of this agent's own: the search seats of one
        game sharing ``seed_stream(seed ^ SEARCH_SALT, index)`` play that game exactly
        as ``simulate`` does (``uno_env.evaluation.tournament._play_games``). Returns the agent."""
        if not isinstance(stream, np.ndarray) or stream.dtype != np.uint64 or \
                stream.shape != (1,):
            raise ValueError("a search stream is a uint64 array of shape (1,)")
        self._rng = stream
        return self

    def _start(self, game: Game) -> None:
        """Attached (``PositionAgent.attach``: ``target`` is a ``Game`` or an env with
        one): follow it from here."""
        self._follow(game)

    def _follow(self, game: Game) -> None:
        """Start following ``game`` from its current position, with no belief."""
        self._watched_game, self._watched_deal = game, game.deal_count
        self._watched = game.clone().engine_state
        self._seen = game.num_moves
        self.belief = np.zeros(game.engine_state.hands.shape[1:], np.uint8)

    @contextlib.contextmanager
    def with_budget(self, budget: int):
        """Decide with ``budget`` rollouts instead of the agent's own inside the block
        (``uno-bench serve`` cuts a search this way while other clients wait); the
        agent's own budget is back after it, even on an error.

            >>> with agent.with_budget(100):
            ...     action = agent.act_game(game)
        """
        code = np.array([mcts_code(budget, self.rollout, self.mode)], np.int64)
        own, self._codes = self._codes, code
        try:
            yield self
        finally:
            self._codes = own

    def act_game(self, game: Game) -> int:
        """The search's action for ``game``'s current decider (the game is unchanged)."""
        if game.is_over:
            raise ValueError("no legal action: the episode is over for this agent")
        if getattr(self, "_watched_game", None) is not game or \
                self._watched_deal != game.deal_count or game.num_moves < self._seen:
            self._follow(game)   # another game, or this one was dealt again
        moves = np.array([a for _, a in game.moves_since(self._seen)], np.int64)
        self._seen = game.num_moves
        return int(self._search(OP_DECIDE, game.engine_state, self._watched,
                                game.config.spec,
                                self._codes, np.uint64(0), 0, STAT_SLOTS, self._rng,
                                self.belief[np.newaxis], moves, *self._idle))

    def act_batch(self, observations, action_masks) -> np.ndarray:
        raise NotImplementedError(
            "MCTSAgent searches one attached game at a time; in simulate, tournaments, "
            "evaluate and as an opponent of the learner envs name it 'mcts' (or "
            "'mcts:400'), which searches inside numba")

    def __repr__(self) -> str:
        return f"MCTSAgent({self.config.preset!r}, {self.config.num_players}, " \
               f"budget={self.budget}, rollout={self.rollout!r}, mode={self.mode!r})"
