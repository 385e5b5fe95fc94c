"""Position agents: agents that play the ``Game`` they are attached to, reading the
position (to search it, or to keep an information state), not only the observation.

``PositionAgent`` holds what they share: ``attach`` (a ``Game``, or an environment that
has one), the check that ``act``'s observation is that of the attached game's current
decider, and ``observe_move``, which ``tournament`` and ``benchmark`` call after every
move. A subclass defines ``act_game(game)``, and ``_start(game)`` to set up when
attached. The ``mcts`` search (``agents.search.MCTSAgent``) and OpenSpiel's agents
(``uno_env.integrations.openspiel.agents``) are position agents; the registry knows them
by name (``register_position_agents``).
"""
from __future__ import annotations

import numpy as np

from uno_env.envs.game import Game, game_of
from uno_env.players.protocol import split_observation


class PositionAgent:
    """What the position agents share; ``self.config`` is the agent's configuration."""

    name = "position"
    #: the attached game (``attach``)
    game: Game | None = None

    def attach(self, target):
        """Play the positions of ``target`` (a ``Game`` or an env with one); returns the
        agent. A game of another variant or action layout is a ValueError."""
        game = game_of(target)
        if game.config.variant != self.config.variant or \
                game.config.layout.size != self.config.layout.size:
            raise ValueError(f"this agent is for {self.config.preset!r} with "
                             f"{self.config.num_players} players; the game is "
                             f"{game.config.preset!r} with {game.num_players}")
        self.game = game
        self._start(game)
        return self

    def _start(self, game: Game) -> None:
        """Set up for ``game``, just attached (nothing by default)."""

    def observe_move(self, game: Game) -> None:
        """Called after every move of the attached game (by ``tournament``)."""

    def act_game(self, game: Game) -> int:
        raise NotImplementedError

    def act(self, observation, action_mask=None) -> int:
        """The move for the attached game's current decider, whose observation (and
        mask, when given) ``observation`` must be."""
        if self.game is None:
            raise ValueError(f"{self.name} plays a position: attach it to the Game it "
                             f"plays in first (agent.attach(env) or agent.attach(game))")
        game = self.game
        if isinstance(observation, dict) or action_mask is not None:
            obs, mask = split_observation(observation, action_mask)
        else:
            obs, mask = observation, None
        if (mask is not None and not np.array_equal(np.asarray(mask, np.uint8),
                                                    game.action_mask())) or \
                not np.array_equal(np.asarray(obs, np.float32),
                                   game.observe(game.current_player)):
            raise ValueError("the observation is not that of the current decider of the "
                             "attached game: attach the agent to the game it plays in")
        return self.act_game(game)

    def act_batch(self, observations, action_masks):
        raise NotImplementedError(
            f"{self.name} plays one attached game at a time: in tournaments and "
            f"benchmarks name it (e.g. 'openspiel-ismcts:200', 'mcts:400')")
