"""UNO as an OpenSpiel game: ``import uno_env.envs.openspiel`` registers ``python_uno``.

    >>> import pyspiel, uno_env.envs.openspiel  # doctest: +SKIP
    >>> game = pyspiel.load_game("python_uno", {"preset": "classic", "players": 2})

Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``); docs/openspiel.md.

Parameters (all optional): ``preset`` (str, "classic"), ``players`` (int, 2), ``seed``
(int, 0: the deal seed) and every rule flag of ``uno_env.rules.Rules`` by its name.
OpenSpiel fills every parameter in with its declared default before the game sees it,
so a flag's default here is its classic value and **a flag counts as set when it
differs from the classic value**: ``{"preset": "street", "stack": "none"}`` is plain
``street`` (to drop a flag of a preset, start from ``"classic"`` and set the others).
``game.get_parameters()`` reports every flag as played (``stack="any"`` there), and
``pyspiel.load_game(str(game))`` loads the same game.
``onepiece_cards`` is a string of four counts, ``"2/2/1/1"`` (a comma would split a game
string; commas are accepted in a parameter dict). ``target_score`` must be
0 (one round) unless ``scoring="elimination"`` (where ``max_turns`` bounds the match):
a match of several rounds has no bound on its length, which OpenSpiel needs.

Chance is **sampled** (``SAMPLED_STOCHASTIC``: no chance nodes): each state wraps a
``uno_env.Game``, whose own random stream deals and draws. The ``k``-th
``new_initial_state()`` of a loaded game is game ``k`` of ``seed`` (as the ``k``-th
reset of the AEC environment after ``reset(seed=seed)``), so episodes differ;
``new_initial_state(index)`` picks game ``index`` and does not count. OpenSpiel's C++
side deals a state of its own now and then (its default observation shape does), which
counts too: for a given deal, pass ``index``. Actions are the environments' action ids
(``config.layout``), returns the environments' rewards summed over the game
(docs/rules.md 7: one round with ``reward="win"`` gives the winner +1 and the others
-1/(N-1); truncation gives 0).

Observation tensor: ``Game.observe(player)``, the environments' observation (nothing
hidden from the player). Observation string: its non-zero fields by name.
Information-state string (perfect recall): every move so far as ``seat:action`` and,
after each, the changes of the player's own observation vector (``index=value``), from
its first observation on. It holds what the player's observations showed, no more: a
hand shown privately after a challenge, a card given by Shanks or a hand received in a
7-0 swap appear only as far as the observation shows them (putting them into the
observation is left to later work on the environments). There is no information-state
tensor.

``resample_from_infostate(player, sampler)`` is ``Game.determinize(player, seed)`` with
a seed drawn from ``sampler``: the other hands and the draw pile are redrawn, the
player's observation is unchanged (so OpenSpiel's IS-MCTS runs). The redrawn state
gets a random stream of its own from the sample (later reshuffles differ from the
original's and from other samples'), and the other
seats' information-state strings restart from their redrawn observation, marked
``resampled``. ``clone()`` copies the ``Game`` by ``Game.clone()``.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from uno_env.engine.dispatch import STEP_ROUND_ENDED
from uno_env.engine.observe import observation_slices
from uno_env.envs.game import Game
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules, check_seed, make_rules

SHORT_NAME = "python_uno"
_CLASSIC = Rules()
#: rule flag -> its OpenSpiel parameter default (the classic value; tuples as a string)
_FLAG_DEFAULTS = {f.name: ("/".join(map(str, f.default)) if isinstance(f.default, tuple)
                           else f.default) for f in dataclasses.fields(Rules)}
_PARAMS = {"preset": "classic", "players": 2, "seed": 0, **_FLAG_DEFAULTS}
#: decisions allowed per turn by ``max_game_length`` (module docstring of ``UnoGame``)
_PER_TURN_BASE, _PER_TURN_SEAT = 16, 4

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME, long_name="UNO (uno-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS, min_num_players=MIN_PLAYERS,
    provides_information_state_string=True, provides_information_state_tensor=False,
    provides_observation_string=True, provides_observation_tensor=True,
    parameter_specification=_PARAMS)

#: the fields of ``_GAME_TYPE`` that a general-sum copy of it repeats
_TYPE_FIELDS = ("short_name", "long_name", "dynamics", "chance_mode", "information",
                "utility", "reward_model", "max_num_players", "min_num_players",
                "provides_information_state_string", "provides_information_state_tensor",
                "provides_observation_string", "provides_observation_tensor")


def _flag_value(name: str, value):
    """An OpenSpiel parameter as the rule flag's value (``onepiece_cards`` from
    ``"2/2/1/1"``); ValueError for a string that is not four integers."""
    if name != "onepiece_cards":
        return value
    try:
        return tuple(int(x) for x in str(value).replace(",", "/").split("/"))
    except ValueError:
        raise ValueError(f"onepiece_cards is four counts (SHK, BBD, ACE, HAN) as a "
                         f"string such as '2/2/1/1', got {value!r}") from None


def rules_from_params(params: dict) -> tuple[str, int, int, dict]:
    """(preset, players, seed, rule overrides) from OpenSpiel parameters: a flag is an
    override when it differs from its classic value. ValueError naming the valid
    presets or flags, as ``make_rules`` does."""
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))}; valid: "
                         f"preset, players, seed and the rule flags "
                         f"{', '.join(_FLAG_DEFAULTS)}")
    preset = params.get("preset", "classic")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    overrides = {}
    for name in _FLAG_DEFAULTS:
        if name in params:
            value = _flag_value(name, params[name])
            if value != getattr(_CLASSIC, name):
                overrides[name] = value
    make_rules(preset, **overrides)  # validates: ValueError naming the valid values
    return preset, int(params.get("players", 2)), check_seed(params.get("seed", 0)), \
        overrides


class UnoGame(pyspiel.Game):
    """``python_uno``: one configuration (preset, players, rule flags) and a deal seed.

    ``max_game_length`` is ``(max_turns + 1) * (16 + 4 * players)`` decisions: a round
    is truncated after ``max_turns`` turns (docs/rules.md 2.13), and one turn holds at
    most a few decisions of its player (``uno``, a card, a colour, draw then play or
    pass, a run of multi-play cards bounded by a rank's copies in the deck) plus one
    answer per other seat (challenge, stack, catch, jump-in window). This allowance
    is generous, not proved: random play over every preset at 2 to 8 players never
    took more than 7 decisions in a turn (docs/openspiel.md); the tests check that
    random games stay within it.
    """

    def __init__(self, params=None):
        params = dict(params or {})
        preset, players, seed, overrides = rules_from_params(params)
        self.uno_preset, self.seed, self.rule_overrides = preset, seed, overrides
        self._template = _Game(preset, players, seed=seed, **overrides)
        cfg = self.config = self._template.config
        rules = cfg.rules
        if rules.target_score != 0 and rules.scoring != "elimination":
            raise ValueError("python_uno plays one round (target_score=0) or an "
                             "elimination match (scoring='elimination', where max_turns "
                             "bounds the match); a match of several rounds has no "
                             f"bound on its length. Got target_score={rules.target_score}")
        deck = cfg.deck
        if rules.reward == "win":
            lo, hi, total, kind = -1.0, 1.0, 0.0, pyspiel.GameType.Utility.ZERO_SUM
        else:  # round points: at most the deck's points either way
            points = float((deck.face_points[deck.type_face].max(axis=1)
                            * deck.type_count).sum())
            lo, hi, total = -points, points, 0.0
            kind = pyspiel.GameType.Utility.GENERAL_SUM
        game_type = _GAME_TYPE if kind == _GAME_TYPE.utility else pyspiel.GameType(
            **{**{k: getattr(_GAME_TYPE, k) for k in _TYPE_FIELDS}, "utility": kind,
               "parameter_specification": _PARAMS})
        length = (rules.max_turns + 1) * (_PER_TURN_BASE + _PER_TURN_SEAT * players)
        info = pyspiel.GameInfo(
            num_distinct_actions=cfg.layout.size, max_chance_outcomes=0,
            num_players=players, min_utility=lo, max_utility=hi, utility_sum=total,
            max_game_length=length)
        self._slices = observation_slices(deck.num_types, players, rules)
        self._dealt = 0
        # the parameters as played: every flag at its value in these rules, so that
        # get_parameters() tells the truth and str(game) loads the same game again
        played = {name: getattr(rules, name) for name in _FLAG_DEFAULTS}
        played["onepiece_cards"] = "/".join(map(str, rules.onepiece_cards))
        super().__init__(game_type, info, {**params, **played})

    def new_initial_state(self, index: int | None = None) -> "UnoState":
        """Game ``index`` of the seed; by default the next one (0, 1, 2, ...: the states
        dealt without an index are counted)."""
        if index is None:
            index, self._dealt = self._dealt, self._dealt + 1
        game = self._template.clone()
        game.reset(self.seed, int(index))
        return UnoState(self, game)

    def observation_tensor_shape(self) -> list[int]:
        """``[obs_size]``, without dealing a state (OpenSpiel's own version deals one,
        which would advance ``new_initial_state``'s count)."""
        return [self.config.layout.obs_size]

    def observation_tensor_size(self) -> int:
        return self.config.layout.obs_size

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation (``perfect_recall=False``, the default) or the information
        state (``perfect_recall=True``: a string only) of one player."""
        if params:
            raise ValueError(f"python_uno takes no observation parameters, got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return UnoObserver(self, recall)


class _Game(Game):
    """A ``Game`` that ``copy.deepcopy`` copies by ``Game.clone()``: OpenSpiel clones a
    Python state by deep-copying its attributes."""

    def __deepcopy__(self, memo):
        return self.clone()


class UnoState(pyspiel.State):
    """A position: a ``uno_env.Game`` and what each seat has observed so far."""

    def __init__(self, game: UnoGame, uno: Game, recall=None, returns=None):
        super().__init__(game)
        self.uno = uno
        n = uno.num_players
        self._returns = list(returns) if returns is not None else [0.0] * n
        # per seat: its last observation and the record its info-state string joins
        if recall is None:
            recall = []
            for seat in range(n):
                obs = uno.observe(seat)
                recall.append((obs, [_delta(np.zeros_like(obs), obs)]))
        self._recall = recall

    # --- the game ----------------------------------------------------------------------
    def current_player(self):
        return pyspiel.PlayerId.TERMINAL if self.uno.is_over else self.uno.current_player

    def _legal_actions(self, player):
        return self.uno.legal_actions().tolist() if player == self.current_player() else []

    def _apply_action(self, action):
        seat = self.uno.current_player
        code = self.uno.step(int(action))
        if code & STEP_ROUND_ENDED:
            self._returns = [r + x for r, x in zip(self._returns, self.uno.rewards)]
        move = f"{seat}:{int(action)}"
        recall = []
        for q, (last, record) in enumerate(self._recall):
            obs = self.uno.observe(q)
            recall.append((obs, record + [move, _delta(last, obs)]))
        self._recall = recall

    def _action_to_string(self, player, action):
        try:
            return self.uno.move_name(action)
        except ValueError:
            return f"action {action}"

    def is_terminal(self):
        return self.uno.is_over

    def returns(self):
        return list(self._returns)

    def __str__(self):
        return self.uno.render()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: ``Game.determinize`` with a
        seed drawn from ``probability_sampler`` (module docstring)."""
        seed = int(probability_sampler() * 2**62)
        uno = self.uno.determinize(int(player_id), seed)
        recall = []
        for q, entry in enumerate(self._recall):
            if q == player_id:
                recall.append(entry)
            else:
                obs = uno.observe(q)
                recall.append((obs, ["resampled", _delta(np.zeros_like(obs), obs)]))
        return UnoState(self.get_game(), uno, recall, self._returns)


def _delta(before: np.ndarray, after: np.ndarray) -> str:
    """The entries of an observation that changed, as ``index=value`` (values are
    counts and one-hots, so printed as integers when they are)."""
    idx = np.flatnonzero(before != after)
    return " ".join(f"{i}={_num(after[i])}" for i in idx.tolist())


def _num(x) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


class UnoObserver:
    """OpenSpiel's observer protocol (``open_spiel/python/observation.py``)."""

    def __init__(self, game: UnoGame, perfect_recall: bool):
        self._game = game
        self.perfect_recall = perfect_recall
        if perfect_recall:
            self.tensor, self.dict = None, {}
        else:
            self.tensor = np.zeros(game.config.layout.obs_size, np.float32)
            self.dict = {name: self.tensor[s] for name, s in game._slices.items()}

    def set_from(self, state: UnoState, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = state.uno.observe(player)

    def string_from(self, state: UnoState, player: int) -> str:
        if self.perfect_recall:
            return f"p{player} " + " | ".join(state._recall[player][1])
        obs = state.uno.observe(player)
        parts = [f"p{player}"]
        for name, s in self._game._slices.items():
            values = obs[s]
            if values.any():
                parts.append(f"{name}=" + ",".join(_num(v) for v in values))
        return " ".join(parts)


pyspiel.register_game(_GAME_TYPE, UnoGame)
