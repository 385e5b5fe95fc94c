"""UNO as an OpenSpiel game: ``import uno_env.integrations.openspiel.game`` registers ``python_uno``.

    >>> import pyspiel, uno_env.integrations.openspiel.game  # doctest: +SKIP
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

Chance (``chance``: "auto", the default, is "explicit" for a small deck, docs/rules.md
8, and "sampled" otherwise). **Sampled** (``SAMPLED_STOCHASTIC``: no chance nodes):
each state wraps a ``uno_env.Game``, whose own random stream deals and draws. The
``k``-th ``new_initial_state()`` of a loaded game is game ``k`` of ``seed`` (as the
``k``-th reset of the AEC environment after ``reset(seed=seed)``), so episodes differ;
``new_initial_state(index)`` picks game ``index`` and does not count. OpenSpiel's C++
side deals a state of its own now and then (its default observation shape does), which
counts too: for a given deal, pass ``index``. **Explicit** (``EXPLICIT_STOCHASTIC``;
the classic deck, one round): the deal (a hand per chance node, then the first card)
and every card drawn are chance outcomes weighted by the copies left
(``uno_env.integrations.openspiel.explicit_chance``); ``uno`` is None until the deal is done. Actions
are the environments' action ids (``config.layout``), returns the environments'
rewards summed over the game (docs/rules.md 7: one round with ``reward="win"`` gives
the winner +1 and the others -1/(N-1); truncation gives 0), in float64 values that add
up to exactly 0 with ``reward="win"`` (``UnoGame.exact_rewards``).

Observation tensor: ``Game.observe(player)``, the environments' observation (nothing
hidden from the player; a hand a challenge showed the player is in it, ``shown_hand``,
until the end of the player's next turn). Observation string: its non-zero fields by name.
Information-state string (perfect recall): every move so far as ``seat:action`` and,
after each, the changes of the player's own observation vector (``index=value``), from
its first observation on, and after a challenge the hand it showed the challenger
(``shown type=count``, docs/rules.md 2.5). Information-state tensor (explicit chance
only): the first observation, then per decision the seat, the action, the player's
observation after it and the hand shown to it (docs/openspiel.md).

``resample_from_infostate(player, sampler)``: a state inside the player's information
set, always: with sampled chance the real moves replayed on another deal consistent
with all it has seen (``uno_env.integrations.openspiel.resample``), where independent
draws find none a random walk from the real history; with explicit chance a history
found by a search over the chance outcomes. Its information-state strings are its own
history's (docs/openspiel.md).
``clone()`` copies the ``Game`` by ``Game.clone()``.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyspiel

from uno_env.engine import codes as C
from uno_env.engine.dispatch import STEP_EPISODE_ENDED, STEP_ROUND_ENDED
from uno_env.integrations.openspiel import explicit_chance, resample
from uno_env.engine.obs_layout import observation_slices
from uno_env.envs.game import Game
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules, check_seed, make_rules

SHORT_NAME = "python_uno"
_CLASSIC = Rules()
#: rule flag -> its OpenSpiel parameter default (the classic value; tuples as a string)
_FLAG_DEFAULTS = {f.name: ("/".join(map(str, f.default)) if isinstance(f.default, tuple)
                           else f.default) for f in dataclasses.fields(Rules)}
#: ``chance``: "auto" (explicit for a small deck, docs/rules.md 8), "explicit", "sampled"
CHANCE_MODES = ("auto", "explicit", "sampled")
_PARAMS = {"preset": "classic", "players": 2, "seed": 0, "chance": "auto",
           **_FLAG_DEFAULTS}
#: decisions allowed per turn by ``max_game_length`` (module docstring of ``UnoGame``)
_PER_TURN_BASE, _PER_TURN_SEAT = 16, 4
#: OpenSpiel's game lengths are C++ ints
_MAX_LENGTH = 2**31 - 1
#: tries of a move whose hidden draws the player's record rejects (UnoState._replay)
_REDRAWS = 30

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
                         f"preset, players, seed, chance and the rule flags "
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
        chance = params.get("chance", "auto")
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance must be one of {', '.join(map(repr, CHANCE_MODES))}, "
                             f"got {chance!r}")
        if chance == "auto":
            chance = "explicit" if rules.deck == "classic108" and rules.small_deck \
                else "sampled"
        self.explicit = chance == "explicit"
        if self.explicit:
            explicit_chance.check_supported(cfg)
            self._hands = explicit_chance.hand_outcomes(cfg.deck.type_count,
                                                        rules.hand_size)
            self._hand_index = {h: i for i, h in enumerate(self._hands)}
            self._startable = explicit_chance.startable(cfg)
        if rules.target_score != 0 and rules.scoring != "elimination":
            raise ValueError("python_uno plays one round (target_score=0) or an "
                             "elimination match (scoring='elimination', where max_turns "
                             "bounds the match); a match of several rounds has no "
                             f"bound on its length. Got target_score={rules.target_score}")
        deck = cfg.deck
        self._loss, self._win = win_values(players, rules.teams)
        if rules.reward == "win":  # ``_win`` to the winner(s), ``_loss`` (or 0) to the
            # others: the bounds are the returns themselves (``exact_rewards``)
            lo, hi, total, kind = self._loss, self._win, 0.0, \
                pyspiel.GameType.Utility.ZERO_SUM
        else:  # round points: the cards in the losers' hands, the winner's last card
            # (on the discard pile) not among them
            faces = deck.face_points[deck.type_face]
            points = float((faces.max(axis=1) * deck.type_count).sum()
                           - faces.min(axis=1).min())
            lo, hi, total = -points, points, None
            kind = pyspiel.GameType.Utility.GENERAL_SUM
        changes = {"utility": kind}
        if self.explicit:
            changes.update(
                chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
                provides_information_state_tensor=True)
        game_type = _GAME_TYPE if kind == _GAME_TYPE.utility and not self.explicit \
            else pyspiel.GameType(**{**{k: getattr(_GAME_TYPE, k) for k in _TYPE_FIELDS},
                                     **changes, "parameter_specification": _PARAMS})
        #: player decisions at most (the information-state tensor has a block each)
        self.max_decisions = (rules.max_turns + 1) * (_PER_TURN_BASE
                                                      + _PER_TURN_SEAT * players)
        length, outcomes = self.max_decisions, 0
        if self.explicit:  # a card drawn per decision, allowed twice over, and the deal
            length = 2 * self.max_decisions + players + 3
            outcomes = max(deck.num_types, len(self._hands))
        if length > _MAX_LENGTH:  # OpenSpiel's int
            per = (length + 1) // (rules.max_turns + 1) + 1
            raise ValueError(f"max_turns={rules.max_turns} makes python_uno longer than "
                             f"OpenSpiel's {_MAX_LENGTH} moves; with {players} players "
                             f"max_turns must be at most {_MAX_LENGTH // per - 1}")
        info = pyspiel.GameInfo(
            num_distinct_actions=cfg.layout.size, max_chance_outcomes=outcomes,
            num_players=players, min_utility=lo, max_utility=hi, utility_sum=total,
            max_game_length=length)
        self._slices = observation_slices(deck.num_types, players, rules)
        obs = cfg.layout.obs_size
        #: information-state tensor: the first observation, then per decision the
        #: seat, the action, the player's observation after it and a hand shown to it
        self._block = players + cfg.layout.size + obs + deck.num_types
        self._info_size = obs + self.max_decisions * self._block
        self._dealt = 0
        #: how each resample was found (UnoState.resample_from_infostate): "draw"
        #: (independent draws of the hidden cards, replayed), "chain" (a random walk
        #: from the real history), "search" (explicit chance; "real" of those: the
        #: search's budget ran out and the real history was returned)
        self.resample_counts = {"draw": 0, "chain": 0, "search": 0, "real": 0}
        # the parameters as played: every flag at its value in these rules, so that
        # get_parameters() tells the truth and str(game) loads the same game again
        played = {name: getattr(rules, name) for name in _FLAG_DEFAULTS}
        played["onepiece_cards"] = "/".join(map(str, rules.onepiece_cards))
        played["chance"] = chance
        super().__init__(game_type, info, {**params, **played})

    def exact_rewards(self, uno: Game) -> list[float]:
        """``uno.rewards`` (float32 in the engine) as float64 values that add up to
        exactly 0 in any order with ``reward="win"``: each loser gets ``_loss`` (or -1
        with teams), the winner minus their sum (at most ``_win``, the declared
        ``max_utility``: ``win_values`` computes both), and a truncation 0. With
        ``reward="score"`` the points are integers, exact already."""
        rewards = uno.rewards
        if self.config.rules.reward != "win":
            return [float(x) for x in rewards]
        losers = [x < 0 for x in rewards]
        if not any(losers):
            return [0.0] * len(rewards)
        out = [self._loss if lost else 0.0 for lost in losers]
        winners = [q for q, x in enumerate(rewards) if x > 0]
        lost = -sum(out)  # a small multiple of _loss: exact
        for q in winners:
            out[q] = lost / len(winners)
        return out

    def new_initial_state(self, index: int | None = None) -> "UnoState":
        """Game ``index`` of the seed; by default the next one (0, 1, 2, ...: the states
        dealt without an index are counted)."""
        if self.explicit:  # the deal is chance nodes; there is one initial state
            return UnoState(self, None)
        if index is None:
            index, self._dealt = self._dealt, self._dealt + 1
        game = self._template.clone()
        game.reset(self.seed, int(index))
        return UnoState(self, game)

    def information_state_tensor_shape(self) -> list[int]:
        """Explicit chance only (module docstring)."""
        self._needs_tensor()
        return [self._info_size]

    def information_state_tensor_size(self) -> int:
        self._needs_tensor()
        return self._info_size

    def _needs_tensor(self) -> None:
        if not self.explicit:
            raise RuntimeError("python_uno has an information-state tensor with "
                               "chance='explicit' only (a small deck, docs/rules.md 8; "
                               "this game has chance='sampled'); use the observation "
                               "tensor or the information-state string")

    def observation_tensor_shape(self) -> list[int]:
        """``[obs_size]``, without dealing a state (OpenSpiel's own version deals one,
        which would advance ``new_initial_state``'s count)."""
        return [self.config.layout.obs_size]

    def observation_tensor_size(self) -> int:
        return self.config.layout.obs_size

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation (``perfect_recall=False``, the default) or the information
        state (``perfect_recall=True``: a string, and with explicit chance a tensor) of
        one player."""
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
    """A position: a ``uno_env.Game`` and what each seat has observed so far. With
    explicit chance, ``uno`` is None until the deal's chance nodes are done, and a move
    that draws waits (``_pending``) for the chance nodes of the cards it draws."""

    def __init__(self, game: UnoGame, uno: Game | None, recall=None, returns=None):
        super().__init__(game)
        self.uno = uno
        n = game.num_players()
        self._returns = list(returns) if returns is not None else [0.0] * n
        self._pending: explicit_chance.Pending | None = None
        # explicit deal so far: hands (counts per type), the first card, its draws
        self._deal_hands: list[tuple[int, ...]] = []
        self._deal_top: int | None = None
        self._deal_draws: list[int] = []
        # per seat: its last observation, the record its info-state string joins and
        # (explicit chance) the steps its info-state tensor holds
        self._recall = recall
        self._steps: list[list] = [[] for _ in range(n)]
        # sampled chance: the game this state started from and the moves since, which
        # resample_from_infostate replays (None: not known, Game.determinize instead)
        self._origin: _Shared | None = None
        self._moves: list[int] = []
        self._rewrites = _Shared({})  # move -> the draw pile a resample set after it
        self._tracks = _Cache()
        if recall is None and uno is not None:
            self._start_recall()
            if not game.explicit:
                self._origin = _Shared(uno.clone())

    def _start_recall(self) -> None:
        self._recall = []
        for seat in range(self.uno.num_players):
            obs = self.uno.observe(seat)
            self._recall.append((obs, [_delta(np.zeros_like(obs), obs)]))
        self._first_obs = [self._recall[q][0].tobytes() for q in range(len(self._recall))]

    # --- the game ----------------------------------------------------------------------
    def current_player(self):
        if self.uno is None or self._pending is not None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if self.uno.is_over else self.uno.current_player

    def _legal_actions(self, player):
        return self.uno.legal_actions().tolist() if player == self.current_player() else []

    def chance_outcomes(self):
        """(outcome, probability) of the chance node: a hand (its index in the game's
        list of hands), a first card or a card drawn (a card type)."""
        weights = self._chance_weights()
        total = sum(weights.values())
        return [(a, w / total) for a, w in sorted(weights.items())]

    def _chance_weights(self) -> dict:
        game = self.get_game()
        if self._pending is not None:
            counts = self._pending.options()
            return {t: int(n) for t, n in enumerate(counts.tolist()) if n > 0}
        left = game.config.deck.type_count.copy()
        for h in self._deal_hands:
            left -= np.asarray(h, left.dtype)
        if len(self._deal_hands) < game.num_players():
            return {i: p for i, h in enumerate(game._hands)
                    if (p := explicit_chance.hand_probability(left, h)) > 0}
        if self._deal_top is None:
            return {t: int(n) for t, n in enumerate(left.tolist())
                    if n > 0 and game._startable[t]}
        left[self._deal_top] -= 1
        for t in self._deal_draws:
            left[t] -= 1
        return {t: int(n) for t, n in enumerate(left.tolist()) if n > 0}

    def _apply_action(self, action):
        if self.current_player() == pyspiel.PlayerId.CHANCE:
            self._apply_chance(int(action))
            return
        seat = self.uno.current_player
        shown = self._shown_hand(int(action))
        if self.get_game().explicit:
            self._moves = self._moves + [int(action)]
            self._pending = explicit_chance.Pending(self.uno, int(action))
            self._move = (seat, int(action), shown)
            self._settle()
            return
        code = self.uno.step(int(action))
        self._moves = self._moves + [int(action)]
        self._record(seat, int(action), shown, code)

    def _apply_chance(self, outcome: int) -> None:
        if outcome not in self._chance_weights():
            raise ValueError(f"chance outcome {outcome} is not possible here")
        if self._pending is not None:
            self._pending.choose(outcome)
            self._settle()
            return
        game = self.get_game()
        if len(self._deal_hands) < game.num_players():
            self._deal_hands.append(game._hands[outcome])
        elif self._deal_top is None:
            self._deal_top = outcome
        else:
            self._deal_draws.append(outcome)
        self._deal_if_complete()

    def _deal_if_complete(self) -> None:
        game = self.get_game()
        if len(self._deal_hands) < game.num_players() or self._deal_top is None:
            return
        deck, rules = game.config.deck, game.config.rules
        rank = int(deck.face_rank[deck.type_face[self._deal_top, 0]])
        if rank == C.DRAW2 and len(self._deal_draws) < 2:
            left = sum(self._chance_weights().values())
            if left > 0 and len(self._deal_draws) < 2:
                return  # the first player draws 2 (docs/rules.md 2.3)
        # the dealt hands go to the seats from the dealer's left, one at a time
        n = game.num_players()
        hands = [None] * n
        for k, h in enumerate(self._deal_hands):
            hands[(rules.dealer + 1 + k) % n] = np.array(h, np.int64)
        first = (rules.dealer + 1) % n
        for t in self._deal_draws:
            hands[first][t] += 1
        self.uno = explicit_chance.deal_game(game.config, hands, self._deal_top,
                                             len(self._deal_draws), cls=_Game)
        self._start_recall()

    def _settle(self) -> None:
        """Finish a pending move once its draws are known."""
        pending = self._pending
        if pending.options() is not None:
            return
        self._pending = None
        before = self.uno
        self.uno = pending.result
        code = STEP_ROUND_ENDED if self.uno.is_over and not before.is_over else 0
        self._record(*self._move, code)

    def _shown_hand(self, action: int):
        """Counts per type of the hand a challenge shows its challenger (docs/rules.md
        2.5), else None."""
        uno = self.uno
        if action != uno.layout.CHALLENGE:
            return None
        shown = uno.challenge_hand
        return None if shown is None else shown[1].astype(np.float32)

    def _record(self, seat: int, action: int, shown, code: int) -> None:
        # a round cut by max_turns ends the episode without ending a round; with
        # settle_cut it pays the standing at the cut (docs/rules.md 7), else zeros
        if code & (STEP_ROUND_ENDED | STEP_EPISODE_ENDED):
            self._returns = [r + x for r, x in
                             zip(self._returns, self.get_game().exact_rewards(self.uno))]
        move = f"{seat}:{action}"
        explicit = self.get_game().explicit
        recall = []
        for q, (last, record) in enumerate(self._recall):
            obs = self.uno.observe(q)
            mine = shown is not None and q == seat
            entry = record + _entries(move, last, obs, shown if mine else None)
            recall.append((obs, entry))
            if explicit:
                self._steps[q] = self._steps[q] + [
                    (seat, action, obs.tobytes(), shown.tobytes() if mine else None)]
        self._recall = recall

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return self._chance_string(action)
        try:
            return self.uno.move_name(action)
        except ValueError:
            return f"action {action}"

    def _chance_string(self, outcome: int) -> str:
        game = self.get_game()
        deck = game.config.deck
        if self._pending is None and len(self._deal_hands) < game.num_players():
            hand = game._hands[outcome]
            return "deal " + " ".join(deck.type_name(t) for t, n in enumerate(hand)
                                      for _ in range(n))
        if self._pending is None and self._deal_top is None:
            return f"first card {deck.type_name(outcome)}"
        return f"draw {deck.type_name(outcome)}"

    def is_terminal(self):
        return self.uno is not None and self._pending is None and self.uno.is_over

    def returns(self):
        return list(self._returns)

    def __str__(self):
        if self.uno is None:
            return f"dealing: {len(self._deal_hands)} hands dealt"
        text = self.uno.render()
        if self._pending is not None:
            text += f"\nmove {self.uno.move_name(self._pending.action)} waits for its draws"
        return text

    def information_state_tensor(self, player=None):
        """The information-state tensor (explicit chance only: with sampled chance
        the game provides none, and this raises rather than return an empty list)."""
        self.get_game()._needs_tensor()
        return super().information_state_tensor(
            self.current_player() if player is None else player)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (a position of its
        information set), drawn with a seed from ``probability_sampler``; its
        information-state strings are its own history's. Sampled chance: the real
        moves replayed on a deal and reshuffles consistent with all the player has seen
        (``resample``); explicit chance: a history found by a search over the hidden
        chance outcomes (``_searched``). ``game.resample_counts`` counts how each was
        found (docs/openspiel.md)."""
        if self.uno is None or self._pending is not None:
            raise ValueError("resample_from_infostate needs a decision node, not a "
                             "chance node")
        player = int(player_id)
        seed = int(probability_sampler() * 2**62)
        rng = np.random.default_rng(seed)
        counts = self.get_game().resample_counts
        if self.get_game().explicit:
            counts["search"] += 1
            return self._fresh(self._searched(player, rng), rng)
        if self._origin is None:  # pragma: no cover - every sampled state has one
            raise ValueError("this state does not know the deal it started from")
        tracking = self._tracking(player)
        if tracking is not None:
            for _ in range(resample.MAX_TRIES):
                state = self._replay(tracking, resample.sample(tracking, rng), player,
                                     rng)
                if state is not None:
                    counts["draw"] += 1
                    return self._fresh(state, rng)
        else:  # not followed card by card (UNO Flip's two sides): the deal redrawn as
            # Game.determinize does (what the player saw of it kept), then replayed
            origin = self._origin.value
            for _ in range(resample.FLIP_TRIES):
                deal = origin.determinize(player, int(rng.integers(2**62)))
                deal.stream = origin.stream  # the real reshuffles
                state = self._replay_deal(deal, player)
                if state is not None:
                    counts["draw"] += 1
                    return self._fresh(state, rng)
        counts["chain"] += 1
        return self._fresh(self._chained(tracking, player, rng), rng)

    @staticmethod
    def _fresh(state: "UnoState", rng) -> "UnoState":
        """A resample's own random stream for what follows."""
        state.uno.stream = int(rng.integers(1, 2**62))
        return state

    def _chained(self, tracking, player: int, rng) -> "UnoState":
        """Where independent draws found no consistent deal: a random walk from the real
        history, whose every step is a replayed history the player's record accepts
        (``resample.CHAIN_STEPS`` proposals: two hidden cards of one group exchanged,
        or in UNO Flip two cards of the deal sharing a side), so the result is always a
        position of the information set (at worst the real one)."""
        if tracking is not None:
            types = list(tracking.real)
            state = self._replay(tracking, list(types), player, rng)
            for _ in range(resample.CHAIN_STEPS):
                proposal = resample.exchange(tracking, types, rng)
                if proposal is None:
                    break
                got = self._replay(tracking, proposal, player, rng)  # may redraw
                if got is not None:
                    types, state = proposal, got
        else:
            deal = self._origin.value.clone()
            state = self._replay_deal(deal, player)
            for _ in range(resample.CHAIN_STEPS):
                proposal = resample.exchange_cards(deal, player, rng)
                if proposal is None:
                    break
                got = self._replay_deal(proposal, player)
                if got is not None:
                    deal, state = proposal, got
        if state is None:  # pragma: no cover - the real history always replays
            raise RuntimeError("the real history did not replay to the player's record")
        return state

    def _replay_deal(self, deal: Game, player: int):
        """The real moves replayed from ``deal`` (the draw pile's order and the random
        stream as ``deal`` has them), as a state; None when a move is illegal there or
        the player's record or the seat to move differs from this state's."""
        uno = deal.clone()
        mine = self._recall[player][1]
        last = uno.observe(player)
        if _delta(np.zeros_like(last), last) != mine[0]:  # the first observation
            return None
        at = 1
        for action in self._moves:
            got = self._check_move(uno, action, player, last, mine, at)
            if got is None:
                return None
            last, at = got
        if at != len(mine) or uno.current_player != self.uno.current_player \
                or uno.is_over != self.uno.is_over:
            return None
        sample = UnoState(self.get_game(), None)
        sample._origin = _Shared(deal.clone())
        sample._moves = list(self._moves)
        return sample.replayed()

    def _dealt_cards(self) -> list:
        """Per hand of the deal (in the deal's order): counts per type of the cards its
        seat played or gave away before it first received one, which it therefore held
        from the deal (``_searched`` deals no hand without them)."""
        game = self.get_game()
        n = game.num_players()
        state, before = game.new_initial_state(), None
        must = [np.zeros(game.config.deck.num_types, np.int64) for _ in range(n)]
        open_ = [True] * n
        for action in self.history():
            state.apply_action(action)
            if state.uno is None or state._pending is not None:
                continue
            counts = [state.uno.hand_counts(q).astype(np.int64) for q in range(n)]
            for q in range(n) if before is not None else ():
                diff = before[q] - counts[q]
                if open_[q] and (diff < 0).any():
                    open_[q] = False
                elif open_[q]:
                    must[q] += diff
            before = counts
        dealer = game.config.rules.dealer
        return [must[(dealer + 1 + k) % n] for k in range(n)]

    def _searched(self, player: int, rng) -> "UnoState":
        """Explicit chance: a history of the player's information set, found by a
        depth-first search from the initial state over the chance outcomes (each node's
        outcomes in a random order weighted by their probabilities), the real moves
        applied in turn, a branch cut as soon as the player's record leaves this
        state's. The real history is one of its leaves, so it always ends, with a
        position of the information set. The player's own hand at the deal and the first
        card turned up (both in its first observation) are the real ones."""
        game = self.get_game()
        mine = self._recall[player][1]
        moves = self._moves
        n = game.num_players()
        own = (player - game.config.rules.dealer - 1) % n  # the deal's hand for it
        forced = {own: game._hand_index[self._deal_hands[own]], n: self._deal_top}
        target = self.current_player()
        must = self._dealt_cards()
        deck = game.config.deck
        if int(deck.face_rank[deck.type_face[self._deal_top, 0]]) == C.DRAW2:
            must[0] = None  # the first player's hand holds the two cards it drew too

        def possible(k: int, outcome: int) -> bool:
            return must[k] is None or bool(np.all(np.asarray(game._hands[outcome])
                                                  >= must[k]))

        def follows(state) -> bool:
            if state._recall is None:
                return True
            record = state._recall[player][1]
            return len(record) <= len(mine) and record == mine[:len(record)]

        def children(state, j):
            if state.is_chance_node():
                dealt = len(state._deal_hands) + (state._deal_top is not None)
                if state._pending is None and dealt in forced:
                    outcomes = [forced[dealt]] if forced[dealt] in \
                        state._chance_weights() else []
                else:
                    pairs = state.chance_outcomes()
                    if state._pending is None and dealt < n:
                        pairs = [(o, q) for o, q in pairs if possible(dealt, o)]
                    keys = rng.random(len(pairs)) ** (1.0 / np.array([q for _, q in pairs]))
                    outcomes = [pairs[k][0] for k in np.argsort(-keys)]
                for outcome in outcomes:
                    child = state.clone()
                    child.apply_action(outcome)
                    if follows(child):
                        yield child, j
            elif j < len(moves) and moves[j] in state.legal_actions():
                child = state.clone()
                child.apply_action(moves[j])
                if follows(child):
                    yield child, j + 1

        stack = [children(game.new_initial_state(), 0)]
        nodes = 0
        while stack:
            try:
                child, j = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            nodes += 1
            if nodes > resample.SEARCH_NODES:  # the real history: in the set too
                game.resample_counts["real"] += 1
                return self.clone()
            if j == len(moves) and not child.is_chance_node():
                if child._recall[player][1] == mine and child.current_player() == target:
                    return child
                continue
            stack.append(children(child, j))
        raise RuntimeError("no history of the information set found")  # pragma: no cover

    def _tracking(self, player: int):
        if self._origin is None:
            return None
        cache, key = self._tracks.value, (player, len(self._moves))
        if key not in cache:
            cache[key] = resample.track(self._origin.value, self._moves, player,
                                        self._rewrites.value)
        return cache[key]

    def _replay(self, tracking, types, player: int, rng):
        """The real moves replayed from the deal ``types`` gives, as a state rebuilt
        from that history (``replayed``); None when a move is illegal there or
        ``player``'s record differs from this state's (a move whose hidden draws made
        the difference is retried with other cards drawn, ``resample.redraw``, which
        changes ``types``). The check follows the player's record only, on a ``Game``."""
        uno = resample.deal(self._origin.value, tracking, types)
        mine = self._recall[player][1]
        last = uno.observe(player)
        at = 1  # mine[0] is the first observation, the same in every deal
        for i, action in enumerate(self._moves):
            before = uno.clone() if i in tracking.draws else None
            for _ in range(_REDRAWS):
                got = self._check_move(uno, action, player, last, mine, at)
                if got is not None:
                    break
                if before is None:
                    return None
                uno = before.clone()
                if not resample.redraw(uno, tracking, types, i, rng):
                    return None
            else:
                return None
            last, at = got
            if i in tracking.reshuffles:
                resample.rearrange(uno, tracking.reshuffles[i], types)
        if at != len(mine) or uno.current_player != self.uno.current_player \
                or uno.is_over != self.uno.is_over:
            return None
        sample = UnoState(self.get_game(), None)
        sample._origin = _Shared(resample.deal(self._origin.value, tracking, types))
        sample._moves = list(self._moves)
        sample._rewrites = _Shared({i: [(pos, types[tok]) for pos, tok in placed]
                                    for i, placed in tracking.reshuffles.items()})
        return sample.replayed()

    @staticmethod
    def _check_move(uno, action: int, player: int, last, mine: list, at: int):
        """Play ``action`` on ``uno``; (the player's observation, the length of its
        record) if the record goes on as ``mine`` does, else None."""
        if not uno.action_mask()[action]:
            return None
        seat = uno.current_player
        shown = None
        if seat == player and action == uno.layout.CHALLENGE:
            hand = uno.challenge_hand
            shown = None if hand is None else hand[1].astype(np.float32)
        uno.step(action)
        obs = uno.observe(player)
        entry = _entries(f"{seat}:{action}", last, obs, shown)
        if mine[at:at + len(entry)] != entry:
            return None
        return obs, at + len(entry)

    def replayed(self) -> "UnoState":
        """This state rebuilt from its own history: the deal it started from, its moves
        and the draw piles a resample set (sampled chance; the tests recompute a
        resample's information state so)."""
        if self._origin is None:
            raise ValueError("this state does not know the deal it started from")
        state = UnoState(self.get_game(), self._origin.value.clone())
        state._origin, state._rewrites = self._origin, self._rewrites
        for i, action in enumerate(self._moves):
            state.apply_action(action)
            if i in self._rewrites.value:
                resample.set_pile(state.uno, self._rewrites.value[i])
        return state

    @staticmethod
    def _replay_move(state, action: int, player: int, mine: list) -> bool:
        if not state.uno.action_mask()[action]:
            return False
        state.apply_action(action)
        record = state._recall[player][1]
        return len(record) <= len(mine) and \
            record[-3:] == mine[max(0, len(record) - 3):len(record)]


class _Shared:
    """A value clones share (OpenSpiel deep-copies a state's attributes to clone it):
    the game a state started from, which is never changed, only cloned."""

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


class _Cache:
    """Per-state results a clone does not inherit (its moves will differ)."""

    def __init__(self):
        self.value = {}

    def __deepcopy__(self, memo):
        return _Cache()


def loss_value(players: int) -> float:
    """A loser's return with ``reward="win"``: -1/(players-1) rounded toward 0 to 48
    significant bits, so that any sum of up to ``players`` returns (multiples of it, the
    winner's being ``players - 1`` times it) is exact in float64 and the returns add up
    to 0 exactly whatever the order (docs/openspiel.md). Toward 0: no return is larger
    in size than the rules' -1/(N-1) and +1."""
    value = 1.0 / (players - 1)
    mantissa, exponent = math.frexp(value)
    return -math.ldexp(math.floor(math.ldexp(mantissa, 48)), exponent - 48)


def win_values(players: int, teams: bool = False) -> tuple[float, float]:
    """(a loser's return, a winner's return) with ``reward="win"``: the game's declared
    ``min_utility`` and ``max_utility``, computed as ``UnoGame.exact_rewards`` computes
    the returns (the winner gets minus the losers' sum), so no return passes them.
    Teams: -1 and +1. Otherwise ``loss_value`` and ``players - 1`` times its size (1
    within 4e-15: exactly 1 at 2, 3, 5 and 9 players)."""
    if teams:
        return -1.0, 1.0
    loss = loss_value(players)
    return loss, -sum([loss] * (players - 1))


def _entries(move: str, last: np.ndarray, obs: np.ndarray, shown) -> list[str]:
    """What a move adds to a seat's information-state string: the move, the changes of
    the seat's observation, and the hand a challenge showed it (``shown``, or None)."""
    entry = [move, _delta(last, obs)]
    if shown is not None:
        entry.append("shown " + " ".join(
            f"{t}={_num(n)}" for t, n in enumerate(shown.tolist()) if n))
    return entry


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
        if perfect_recall and game.explicit:
            self.tensor = np.zeros(game._info_size, np.float32)
            self.dict = {"info_state": self.tensor}
        elif perfect_recall:
            self.tensor, self.dict = None, {}
        else:
            self.tensor = np.zeros(game.config.layout.obs_size, np.float32)
            self.dict = {name: self.tensor[s] for name, s in game._slices.items()}

    def set_from(self, state: UnoState, player: int) -> None:
        if self.tensor is None:
            return
        if not self.perfect_recall:
            self.tensor[:] = 0 if state.uno is None else state.uno.observe(player)
            return
        game = self._game
        out = self.tensor
        out[:] = 0
        if state.uno is None:
            return
        obs_size, players = game.config.layout.obs_size, game.num_players()
        actions = game.config.layout.size
        out[:obs_size] = np.frombuffer(state._first_obs[player], np.float32)
        at = obs_size
        for seat, action, obs, shown in state._steps[player][:game.max_decisions]:
            out[at + seat] = 1
            out[at + players + action] = 1
            b = at + players + actions
            out[b:b + obs_size] = np.frombuffer(obs, np.float32)
            if shown is not None:
                out[b + obs_size:at + game._block] = np.frombuffer(shown, np.float32)
            at += game._block

    def string_from(self, state: UnoState, player: int) -> str:
        if self.perfect_recall:
            if state.uno is None:
                return f"p{player} dealing"
            return f"p{player} " + " | ".join(state._recall[player][1])
        if state.uno is None:
            return f"p{player} dealing"
        obs = state.uno.observe(player)
        parts = [f"p{player}"]
        for name, s in self._game._slices.items():
            values = obs[s]
            if values.any():
                parts.append(f"{name}=" + ",".join(_num(v) for v in values))
        return " ".join(parts)


pyspiel.register_game(_GAME_TYPE, UnoGame)
