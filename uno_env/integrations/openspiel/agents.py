"""Agents both ways between OpenSpiel and uno-env (docs/game-theory.md): OpenSpiel's
IS-MCTS as a uno-env agent (``openspiel-ismcts:<simulations>``), and a CFR policy of a
small deck as a uno-env agent (``cfr:<policy file>``). Needs the ``openspiel`` extra.

Both are *position agents*: like ``mcts`` they play the ``uno_env.Game`` they are
attached to (``agent.attach(game)``; ``act(observation, mask)`` checks the observation
against it), so ``tournament`` and ``benchmark`` run them through their game-by-game
loop, which calls ``agent.observe_move(game)`` after every move (the CFR agent keeps
its information state from it, as ``python_uno`` does).

    uno-bench tournament --agents openspiel-ismcts:200,mcts-random:200 --players 2
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from uno_env.envs.game import Game
from uno_env.players.position import PositionAgent


def spiel_params(config, chance: str = "sampled") -> dict:
    """``python_uno``'s parameters for a configuration (``uno_env.rules.config``)."""
    params = {"preset": config.preset, "players": config.num_players, "chance": chance}
    for name, value in config.rule_overrides().items():
        params[name] = "/".join(map(str, value)) if isinstance(value, tuple) else value
    return params


class _PositionAgent(PositionAgent):
    """OpenSpiel's position agents: a configuration, and a seed that ``tournament``
    sets per game (``share_stream``)."""

    def __init__(self, config, seed=None):
        self.config = config
        self.seed = 0 if seed is None else int(seed)
        self.game: Game | None = None

    def share_stream(self, stream: np.ndarray):
        """Seed this agent's random numbers from ``stream`` (``tournament`` gives each
        game its own); returns the agent."""
        self.seed = int(stream[0]) % 2**32
        return self


class ISMCTSAgent(_PositionAgent):
    """OpenSpiel's Python IS-MCTS (``open_spiel.python.algorithms.ismcts``) searching
    ``python_uno`` from the attached game's position: ``simulations`` simulations a
    decision, each from a world sampled by ``resample_from_infostate`` (a history
    of the seat's information set, docs/openspiel.md), leaves valued by one uniformly random rollout to the end of
    the game played by the engine (as OpenSpiel's ``RandomRolloutEvaluator`` does, at
    engine speed), UCT constant ``uct_c``, the most visited move. Every random number
    (the worlds sampled, the rollouts, the tree's ties) comes from the agent's seed, so
    the same seed gives the same moves."""

    name = "openspiel-ismcts"

    def __init__(self, config, simulations: int = 1000, uct_c: float = 2.0, seed=None):
        super().__init__(config, seed)
        if isinstance(simulations, bool) or not isinstance(simulations, int) \
                or simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got "
                             f"{simulations!r}")
        import pyspiel

        import uno_env.integrations.openspiel.game as uno_spiel
        self.simulations, self.uct_c = simulations, float(uct_c)
        self.kernel = f"openspiel-ismcts:{simulations}"
        self._spiel = pyspiel.load_game("python_uno", spiel_params(config))
        self._module = uno_spiel
        self._rng = None

    def act_game(self, game: Game) -> int:
        from open_spiel.python.algorithms import ismcts

        if game.is_over:
            raise ValueError("no legal action: the episode is over for this agent")
        if self._rng is None:
            self._rng = np.random.RandomState(self.seed)
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        state = self._root(game)
        bot = ismcts.ISMCTSBot(self._spiel, _EngineRollout(self._rng), self.uct_c,
                               self.simulations, random_state=self._rng)
        # ISMCTSBot's own resampling draws from an unseeded sampler: sample the worlds
        # from this agent's stream instead, so a seed gives the same moves
        rng = self._rng
        bot.set_resampler(lambda s, player: s.resample_from_infostate(
            player, rng.uniform))
        return int(bot.step(state))


    def _start(self, game: Game) -> None:
        self._origin = (game.deal_count, game.clone()) if game.num_moves == 0 else None

    def _root(self, game: Game):
        """``python_uno``'s state of ``game``: its moves replayed from the deal when
        the agent saw it (so that IS-MCTS resamples from all this seat has seen),
        else the position as it is (an information state that starts there)."""
        origin = getattr(self, "_origin", None)
        if origin is None or origin[0] != game.deal_count:
            origin = self._origin = None
        if origin is not None:
            uno = origin[1].clone()
            uno.__class__ = self._module._Game
            state = self._module.UnoState(self._spiel, uno)
            for _, action in game.moves_since(0):
                state.apply_action(action)
            if np.array_equal(state.uno.observe(game.current_player),
                              game.observe(game.current_player)):
                return state
        uno = game.clone()
        uno.__class__ = self._module._Game
        return self._module.UnoState(self._spiel, uno)


class _EngineRollout:
    """``mcts.RandomRolloutEvaluator``'s values, one rollout played by the engine:
    uniformly random legal moves to the end of the game; prior uniform."""

    def __init__(self, rng: np.random.RandomState):
        self._rng = rng

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        game = state.uno.clone()
        game.stream = self._rng.randint(1, 2**62)
        while not game.is_over:
            game.step(game.random_action())
        return np.array(state.returns()) + np.asarray(game.rewards, float)

    def prior(self, state):
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class CFRAgent(_PositionAgent):
    """A policy of a small deck's ``python_uno`` game (a CFR solver's average policy,
    saved by :func:`save_policy`), keyed by information-state string: the agent keeps
    its seat's information state as ``python_uno`` does (every move, the changes of its
    observation, the hand a challenge shows it) from ``observe_move``, and draws its
    move from the policy there. An information state the policy lacks (a game longer
    than the solved one's ``max_turns``) gets a uniformly random legal move, counted in
    ``unknown``."""

    name = "cfr"

    def __init__(self, config, path, seed=None):
        record = json.loads(Path(path).read_text())
        if record.get("format") != POLICY_FORMAT:
            raise ValueError(f"{path} is not a CFR policy file ({POLICY_FORMAT!r})")
        from uno_env.rules.config import make_config
        params = dict(record["params"])
        players = params.pop("players", 2)
        params.pop("chance", None)
        own = make_config(params.pop("preset", "classic"), players, **params)
        if config is not None and (config.rules != own.rules
                                   or config.num_players != own.num_players):
            raise ValueError(f"the policy {path} is for {record['params']}, not for "
                             f"this game's rules")
        super().__init__(own, seed)
        self.path = str(path)
        self.kernel = f"cfr:{Path(path).name}"
        self.policy = {k: {int(a): float(p) for a, p in v.items()}
                       for k, v in record["policy"].items()}
        self.unknown = 0
        self._rng = None

    def _start(self, game: Game) -> None:
        self._records = []
        for seat in range(game.num_players):
            obs = game.observe(seat)
            self._records.append([obs, [_delta(np.zeros_like(obs), obs)]])
        self._seen = game.num_moves
        self._w4_hand = None

    def observe_move(self, game: Game) -> None:
        if game is not self.game:
            return
        for seat, action in game.moves_since(self._seen):
            move = f"{seat}:{action}"
            for q, entry in enumerate(self._records):
                obs = game.observe(q)
                entry[1] += [move, _delta(entry[0], obs)]
                if action == game.layout.CHALLENGE and q == seat and \
                        self._w4_hand is not None:
                    entry[1].append("shown " + " ".join(
                        f"{t}={int(n)}" for t, n in enumerate(self._w4_hand) if n))
                entry[0] = obs
        self._seen = game.num_moves
        shown = game.challenge_hand if game.phase == "challenge" else None
        self._w4_hand = None if shown is None else shown[1]

    def information_state(self, seat: int) -> str:
        return f"p{seat} " + " | ".join(self._records[seat][1])

    def act_game(self, game: Game) -> int:
        if game is not self.game or game.num_moves != self._seen:
            raise ValueError("the CFR agent follows its game move by move: attach it "
                             "at the start and call observe_move(game) after each move")
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        legal = game.legal_actions()
        probs = self.policy.get(self.information_state(game.current_player))
        if probs is None:
            self.unknown += 1
            return int(self._rng.choice(legal))
        actions = [a for a in legal if probs.get(int(a), 0) > 0] or list(legal)
        weights = np.array([probs.get(int(a), 0.0) for a in actions]) + 1e-12
        return int(self._rng.choice(actions, p=weights / weights.sum()))


POLICY_FORMAT = "uno-env-cfr/1"


def save_policy(path, params: dict, tree, uno_policy: dict) -> Path:
    """Save a policy of ``tree`` (``openspiel_tree.Tree``; ``{(player, number): {uno
    action: prob}}``) by information-state string, for :class:`CFRAgent`."""
    names = {key: info for info, key in tree.infosets.items()}
    record = {"format": POLICY_FORMAT, "params": params,
              "policy": {names[key]: {str(a): round(p, 6) for a, p in probs.items()
                                      if p > 1e-6}
                         for key, probs in uno_policy.items()}}
    path = Path(path)
    path.write_text(json.dumps(record, separators=(",", ":")))
    return path


def _delta(before, after) -> str:
    from uno_env.integrations.openspiel.game import _delta as delta
    return delta(before, after)


def make(spec: str, config, seed=None):
    """The agent of a spec ``openspiel-ismcts[:simulations]`` or ``cfr:<policy file>``
    (the agent registry's resolver); None for other specs."""
    head, _, arg = spec.partition(":")
    if head == "openspiel-ismcts":
        try:
            sims = int(arg) if arg else 1000
        except ValueError:
            raise ValueError(f"{spec!r}: the simulations a decision are an integer, "
                             f"e.g. 'openspiel-ismcts:200'") from None
        return ISMCTSAgent(config, sims, seed=seed)
    if head == "cfr":
        if not arg:
            raise ValueError("'cfr' needs a policy file: 'cfr:path/to/policy.json'")
        return CFRAgent(config, arg, seed=seed)
    return None


#: the spec prefixes of this module's agents
PREFIXES = ("openspiel-ismcts", "cfr")


def register() -> None:
    """Make these agents known by name (``uno_env.players.registry`` loads this as a
    plug-in): the specs ``openspiel-ismcts[:N]`` and ``cfr:<file>`` are position agents."""
    from uno_env.players.registry import register_position_agents

    def resolve(spec):
        if spec.partition(":")[0] not in PREFIXES:
            return None
        return lambda config, seed=None: make(spec, config, seed)
    register_position_agents(PREFIXES, resolve)
