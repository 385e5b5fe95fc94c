"""Generated inputs (hypothesis): every public entry point refuses garbage with a
ValueError or TypeError naming what is valid, and a refused input changes nothing.

- ``Game``: a state machine that mixes legal moves (as ints, numpy integers of every
  dtype, 0-d arrays and move strings: each must act exactly as the plain int), illegal
  action ids and garbage, on classic and UNO Flip.
- ``Game.from_scenario``: random whole-deck positions of the classic and flip decks are
  accepted and set up exactly; random corruptions of them are refused by name.
- the AEC env, ``EverySeatBatch.step``, ``SingleAgentEnv.step`` and the rule flags.

Example counts are bounded by the profiles of ``tests/conftest.py`` (fixed seed under
CI). Compiles the classic and flip game kernels and the classic vector and learner
kernels (the whole suite's warm-up compiles them anyway).
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason='needs the "dev" extra: '
                                 'pip install -e ".[dev]"')
from hypothesis import example, given, note  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (  # noqa: E402
    RuleBasedStateMachine, initialize, invariant, precondition, rule)

import uno_env  # noqa: E402
from uno_env import Game, SingleAgentEnv, EverySeatBatch  # noqa: E402
from uno_env.rules.config import make_config  # noqa: E402
from uno_env.rules import rule_names  # noqa: E402

INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64)

#: inputs that are no action id and no move: each must be refused
GARBAGE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 3.0, -0.0, 1e300]),
    st.sampled_from([np.float16(1), np.float32(2.5), np.float64(np.nan), np.float64(np.inf),
                     np.complex64(1), np.bool_(True), np.bool_(False), np.str_("R99")]),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["", " ", "draw ", "DRAW", "R", "R10", "W4:X", "W4:", ":R",
                     "swap:+9", "give:R0", "ACE+RS", "R5|P7", "R5|", "|P7", "color:Q",
                     "\x00", "R5\n"]),
    st.binary(max_size=4),
    st.sampled_from([[], [0], (1,), {}, {0: 1}, object(), np.array([1, 2]),
                     np.array(1.5), np.array([]), np.array("R5"), 1j, Ellipsis, slice(1),
                     int]),
)

#: integers that are no action id of any layout (negative, or beyond every layout)
OUT_OF_RANGE = st.one_of(st.integers(max_value=-1), st.integers(min_value=10_000))


def as_dtype(value: int, data) -> object:
    """``value`` as a Python int, a numpy integer of some dtype holding it, or a 0-d
    array of one (all must act alike)."""
    fits = [d for d in INT_DTYPES if np.iinfo(d).min <= value <= np.iinfo(d).max]
    kind = data.draw(st.sampled_from(["int", "scalar", "0-d"]))
    if kind == "int":
        return value
    dtype = data.draw(st.sampled_from(fits))
    return dtype(value) if kind == "scalar" else np.array(value, dtype)


def snapshot(game: Game) -> dict:
    """Everything a move can change: the state arrays, the cached mask, observation and
    current seat, and the move history."""
    out = {name: a.copy() for name, a in zip(game._state._fields, game._state)}
    out.update(mask=game._mask.copy(), obs=game._obs.copy(), current=game._current,
               actions=list(game._actions))
    return out


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(value, after[name], err_msg=f"{name} changed")


def is_integer(x) -> bool:
    """Does ``x`` pass for an action id (an integer, numpy integer or 0-d integer array;
    not a bool)?"""
    return not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, np.integer)) or (
        isinstance(x, np.ndarray) and x.ndim == 0 and np.issubdtype(x.dtype, np.integer))


def assert_arrays_equal(before, after) -> None:
    """Two sequences of arrays (or of tuples of arrays) are equal item by item."""
    assert len(before) == len(after)
    for a, b in zip(before, after):
        if isinstance(a, tuple):
            assert_arrays_equal(a, b)
        else:
            np.testing.assert_array_equal(a, b)


def from_numba(err: Exception) -> bool:
    """Is ``err`` numba's (a typing error, or its dispatcher's "No matching definition"
    for arguments it was not compiled for)? The message itself may quote the input."""
    return type(err).__module__.startswith("numba") or \
        "No matching definition for argument type" in str(err)


def refused(call, *patterns: str) -> str:
    """``call()`` must raise ValueError or TypeError (never a numba error or another
    exception) whose message matches every pattern; returns the message."""
    try:
        call()
    except (ValueError, TypeError) as err:
        message = str(err)
        assert not from_numba(err), message
        for pattern in patterns:
            assert re.search(pattern, message), f"{pattern!r} not in: {message}"
        return message
    raise AssertionError("the input was accepted")


def legal_moves_listed(game: Game) -> str:
    """The tail every refusal of a move names: the legal moves."""
    return re.escape("legal moves: " + ", ".join(game.legal_moves()))


# --- Game, as a state machine -------------------------------------------------------


class GameMachine(RuleBasedStateMachine):
    """Random mixes of legal moves, illegal ids and garbage on one ``Game``."""

    preset = "classic"

    @initialize(num_players=st.integers(2, 5), seed=st.integers(0, 2**63 - 1))
    def deal(self, num_players, seed):
        self.game = Game(self.preset, num_players=num_players, seed=seed)

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def legal_move(self, data):
        """A legal id in any integer form acts exactly as the plain int on a clone."""
        game = self.game
        action = int(data.draw(st.sampled_from(list(game.legal_actions()))))
        ref = game.clone()
        ref.step(action)
        given_as = as_dtype(action, data)
        note(f"step({given_as!r}: {type(given_as).__name__})")
        game.step(given_as)
        assert_same(snapshot(ref), snapshot(game))

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def legal_move_by_name(self, data):
        """``play`` of a legal move string (or of its id) acts as ``step`` of the id."""
        game = self.game
        action = int(data.draw(st.sampled_from(list(game.legal_actions()))))
        ref = game.clone()
        ref.step(action)
        move = game.move_name(action) if data.draw(st.booleans()) else action
        game.play(move)
        assert_same(snapshot(ref), snapshot(game))

    @rule(data=st.data())
    def illegal_id(self, data):
        game = self.game
        illegal = [int(a) for a in np.flatnonzero(game.action_mask() == 0)]
        action = data.draw(st.sampled_from(illegal) | OUT_OF_RANGE)
        given_as = as_dtype(action, data) if -2**63 <= action < 2**64 else action
        before = snapshot(game)
        expect = "not legal" if 0 <= action < game.layout.size else \
            rf"valid ids 0\.\.{game.layout.size - 1}"
        refused(lambda: game.step(given_as), expect, legal_moves_listed(game))
        assert_same(before, snapshot(game))

    @rule(junk=GARBAGE)
    def garbage_action(self, junk):
        """Neither ``step`` nor ``play`` takes a non-integer (nor ``play`` an unknown
        string); both name what is valid."""
        game = self.game
        before = snapshot(game)
        refused(lambda: game.step(junk), r"an action is an integer id 0\.\.\d+",
                legal_moves_listed(game))
        if isinstance(junk, str) and junk in game.legal_moves():
            return
        if game.is_over:
            refused(lambda: game.play(junk), "the game is over")
        else:
            refused(lambda: game.play(junk), legal_moves_listed(game))
        assert_same(before, snapshot(game))

    @rule(seat=st.one_of(GARBAGE, OUT_OF_RANGE, st.integers(-12, 12)))
    def observe_any_seat(self, seat):
        """Observing never changes the game; a seat that is none is refused by name."""
        game = self.game
        before = snapshot(game)
        if isinstance(seat, int) and not isinstance(seat, bool) \
                and 0 <= seat < game.num_players:
            obs = game.observe(seat)
            assert obs.shape == game._obs.shape and np.isfinite(obs).all()
        else:
            refused(lambda: game.observe(seat),
                    rf"seat must be a seat 0\.\.{game.num_players - 1}")
            refused(lambda: game.hand(seat), rf"seat 0\.\.{game.num_players - 1}")
        assert_same(before, snapshot(game))

    @precondition(lambda self: self.game.is_over)
    @rule(seed=st.integers(0, 2**63 - 1))
    def new_game(self, seed):
        self.game.reset(seed)

    @invariant()
    def live_game_has_a_legal_move(self):
        game = getattr(self, "game", None)
        if game is not None:
            assert len(game.legal_actions()) == (0 if game.is_over else
                                                 int(game.action_mask().sum()))
            assert game.is_over or len(game.legal_actions()) > 0


class FlipGameMachine(GameMachine):
    preset = "flip"


TestGameClassic = GameMachine.TestCase
TestGameFlip = FlipGameMachine.TestCase


# --- Game.from_scenario ---------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def deck_cards(preset: str) -> tuple[str, ...]:
    """Every card of the preset's deck by name (flip: one match's pairing). Built at
    first use, so collecting the tests compiles nothing."""
    if preset == "flip":
        return tuple(Game("flip", num_players=2, seed=0).pairing)
    deck = make_config(preset, 2).deck
    return tuple(deck.type_name(t) for t in range(deck.num_types)
                 for _ in range(int(deck.type_count[t])))


def is_wild(card: str) -> bool:
    return card.split("|")[0].startswith("W")


@st.composite
def scenarios(draw, preset: str, top=None) -> dict:
    """A valid position: a shuffled whole deck cut into a top card (the first card that
    ``top(card)`` accepts, if given) and hands (each at least one card), a listed draw
    pile and discards (the rest of the deck is left out)."""
    cards = list(draw(st.permutations(deck_cards(preset))))
    if top is not None:
        cards.insert(0, cards.pop(next(i for i, c in enumerate(cards) if top(c))))
    n = draw(st.integers(2, 6))
    hands, k = [], 1
    for size in [draw(st.integers(1, 12)) for _ in range(n)]:
        hands.append(cards[k:k + size])
        k += size
    n_draw, n_discard = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    piles = cards[k:k + n_draw + n_discard]
    kw = {"preset": preset, "hands": hands, "top": cards[0],
          "draw_pile": piles[:n_draw], "discard": piles[n_draw:],
          "current": draw(st.integers(0, n - 1)),
          "direction": draw(st.sampled_from([1, -1])),
          "seed": draw(st.integers(0, 2**63 - 1)), "uno_call": draw(st.booleans())}
    if is_wild(cards[0]):
        kw["color"] = draw(st.sampled_from("RYGB"))
    return kw


@pytest.mark.parametrize("preset", ["classic", "flip"])
@given(data=st.data())
def test_scenarios_of_the_whole_deck_are_set_up_exactly(preset, data):
    kw = data.draw(scenarios(preset))
    game = Game.from_scenario(**kw)
    for seat, hand in enumerate(kw["hands"]):
        assert Counter(game.hand(seat)) == Counter(hand)
    assert game.top == kw["top"] and game.discard == kw["discard"] + [kw["top"]]
    assert game.draw_pile[:len(kw["draw_pile"])] == kw["draw_pile"]
    everything = [c for q in range(game.num_players) for c in game.hand(q)] \
        + game.draw_pile + game.discard
    # the whole deck (flip: the cards not listed are paired anew, so by light side)
    light = lambda cards: Counter(c.split("|")[0] for c in cards)  # noqa: E731
    assert light(everything) == light(deck_cards(preset))
    assert (game.current_player, game.direction, game.phase) == \
        (kw["current"], kw["direction"], "play")
    assert not game.is_over and len(game.legal_actions()) > 0
    if "color" in kw:
        assert game.color == kw["color"]


def _set(**changes):
    """A corruption that sets scenario arguments, each drawn from its strategy."""
    def corrupt(kw, data):
        kw.update({k: data.draw(v) for k, v in changes.items()})
    return corrupt


def _other_colour(kw, data):
    kw["color"] = data.draw(st.sampled_from([c for c in "RYGBX" if c != kw["top"][0]]))


def _too_many(kw, data):
    """One copy more of a card than the deck has (flip: of its light side)."""
    card = data.draw(st.sampled_from(kw["hands"][0]))
    light = card.split("|")[0]
    kw["hands"][0] += [card] * sum(c.split("|")[0] == light for c in deck_cards(kw["preset"]))


#: corruption of a valid scenario: (the top card it needs, or None; what it changes;
#: a pattern the refusal's message must match)
CORRUPTIONS = {
    "empty hand": (None, lambda kw, d: kw["hands"].__setitem__(
        d.draw(st.integers(0, len(kw["hands"]) - 1)), []), r"hand \d is empty: a player "
        r"with no cards left has already won the round"),
    "hand as a string": (None, lambda kw, d: kw["hands"].__setitem__(0, "R5"),
                         r"hand 0: a list of cards such as \['R5', 'W4'\] is expected"),
    "hand as junk": (None, lambda kw, d: kw["hands"].__setitem__(0, d.draw(st.sampled_from(
        [None, 5, 1.5, object(), np.int64(2)]))), r"hand 0: a list of cards"),
    "card not a string": (None, lambda kw, d: kw["hands"][0].append(d.draw(st.sampled_from(
        [None, 5, 1.5, b"R5", np.int8(3), ["R5"], np.nan]))),
        r"hand 0: cards are strings such as 'R5'"),
    "unknown card": (None, lambda kw, d: kw["hands"][-1].append(d.draw(st.sampled_from(
        ["R10", "X5", "", "W5", "R5|P7|G1", "r5", "R5|R5", "P7|R5", " R5"]))),
        r"is not a card|has no card|has no face|names one side|is not a (light|dark) face"),
    "a card too many": (None, _too_many, r"has only \d+"),
    "wild top, no colour": (is_wild, _set(color=st.sampled_from(
        [None, "", "RY", "X", 0, "P", "r", ["R"]])),
        r"is a wild: name the colour in force with color= one of R, Y, G, B"),
    "colour against the top": (lambda c: not is_wild(c), _other_colour,
                               r"color='.' contradicts the top card"),
    "current": (None, lambda kw, d: kw.update(current=d.draw(st.one_of(
        st.integers(len(kw["hands"]), 99), st.integers(-99, -1), st.sampled_from(
            [True, None, 1.0, "0", np.float64(0)])))), r"current must be a seat 0\.\.\d"),
    "direction": (None, _set(direction=st.sampled_from(
        [0, 2, -2, True, 1.0, "1", None, np.array([1, -1])])),
        r"direction must be 1 or -1"),
    "seed": (None, _set(seed=st.sampled_from([-1, 2**63, 1.5, "0", None, True])),
             r"seed must be a non-negative integer"),
    "side": (None, _set(side=st.sampled_from(["Light", "", None, 0, ["dark"]])),
             r"side must be 'light' or 'dark'"),
    "players": (None, _set(hands=st.sampled_from(
        [[], [["R5"]], [["R5"]] * 11, "R5", None, {0: ["R5"]}])),
        r"hands must be a list|num_players must be an integer from 2 to 10"),
    "preset": (None, _set(preset=st.sampled_from(["clasic", "", None, 3, "FLIP"])),
               r"valid presets: classic"),
    "rule flag": (None, _set(bluff=st.sampled_from([2, "yes", None, 1.0])),
                  r"rule flag 'bluff' must be True or False"),
}


@pytest.mark.parametrize("preset", ["classic", "flip"])
@given(data=st.data(), kind=st.sampled_from(sorted(CORRUPTIONS)))
def test_corrupt_scenarios_are_refused_by_name(preset, data, kind):
    top, corrupt, pattern = CORRUPTIONS[kind]
    kw = data.draw(scenarios(preset, top))
    corrupt(kw, data)
    note(f"{kind}: {kw}")
    refused(lambda: Game.from_scenario(**kw), pattern)


def test_a_scenario_with_an_empty_hand_is_refused():
    """docs/rules.md 2.10: a player with no cards has won, so a live game cannot have
    one (issue 20: this was accepted)."""
    with pytest.raises(ValueError, match=r"hand 1 is empty: a player with no cards "
                       r"left has already won the round \(docs/rules.md 2.10\)"):
        Game.from_scenario(hands=[["R5", "B7"], []], top="R8")
    with pytest.raises(ValueError, match="hand 0 is empty"):
        Game.from_scenario(preset="flip", hands=[[], ["R5|P7"]], top="R8|T1")
    game = Game.from_scenario(hands=[["R5", "B7"], ["G2"]], top="R8")
    assert game.hand_sizes == [2, 1] and not game.is_over


# --- the AEC env ------------------------------------------------------------------------


def aec_snapshot(env) -> tuple:
    raw = env.unwrapped
    return (snapshot(raw.game), raw.agent_selection, dict(raw.rewards),
            dict(raw._cumulative_rewards), dict(raw.terminations), dict(raw.truncations))


def assert_same_env(before, after):
    assert_same(before[0], after[0])
    assert before[1:] == after[1:]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
@given(seed=st.integers(0, 2**63 - 1), moves=st.lists(st.one_of(
    st.just("legal"), st.just("illegal"), GARBAGE, OUT_OF_RANGE), max_size=25),
    data=st.data())
def test_aec_env_refuses_garbage_and_keeps_its_state(illegal_action, seed, moves, data):
    env = uno_env.env(num_players=3, illegal_action=illegal_action)
    env.reset(seed=seed)
    for move in moves:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                return
            continue
        mask = env.observe(agent)["action_mask"]
        if isinstance(move, str) and move == "legal":
            env.step(as_dtype(int(data.draw(st.sampled_from(list(np.flatnonzero(mask))))),
                              data))
            continue
        before = aec_snapshot(env)
        if isinstance(move, str) and move == "illegal":
            illegal = list(np.flatnonzero(mask == 0))
            move = as_dtype(int(data.draw(st.sampled_from(illegal))), data)
        integer = is_integer(move)
        if integer and illegal_action == "lose":
            env.step(move)  # a forfeit: the game ends for everyone
            assert all(env.terminations.values()) and env.rewards[agent] == -1
            assert env.infos[agent]["illegal_action"] is True
            continue
        pattern = r"not legal|valid ids" if integer else \
            r"an action is an integer id 0\.\.69|None is only accepted"
        refused(lambda: env.step(move), pattern, "legal moves: ")
        assert_same_env(before, aec_snapshot(env))
    for junk in ("player_9", None, 0, "player_0 "):
        refused(lambda: env.observe(junk), "unknown agent", "agents: player_0, player_1, "
                                                            "player_2")


# --- EverySeatBatch.step ----------------------------------------------------------------------

B = 4


def vector_snapshot(venv) -> tuple:
    return (tuple(a.copy() for a in venv._state), venv._obs.copy(), venv._mask.copy(),
            venv._player.copy(), venv.game_index.copy(), venv._next_index.copy())


#: batches of actions that are no int[B] array
BAD_BATCHES = st.one_of(
    GARBAGE,
    st.lists(st.integers(0, 69), min_size=0, max_size=B - 1),
    st.lists(st.integers(0, 69), min_size=B + 1, max_size=2 * B),
    st.lists(st.floats(allow_nan=True), min_size=B, max_size=B),
    st.lists(st.booleans(), min_size=B, max_size=B),
    st.lists(st.one_of(st.integers(0, 69), st.none(), st.text(max_size=2)), min_size=B,
             max_size=B).filter(lambda x: not all(isinstance(v, int) for v in x)),
    st.just(np.zeros((B, 1), np.int64)), st.just(np.zeros((1, B), np.int64)),
    st.just(np.zeros(B, np.float32)), st.just(np.full(B, np.nan)),
    st.just(np.array([2**64 - 1] * B, np.uint64)), st.just(np.array([[0] * B])),
)


@given(seed=st.integers(0, 2**63 - 1), steps=st.lists(st.one_of(
    st.just("legal"), st.just("one illegal"), BAD_BATCHES), max_size=15), data=st.data())
def test_vector_env_step_refuses_bad_batches_and_steps_nothing(seed, steps, data):
    venv = EverySeatBatch(B, "classic", num_players=3, seed=seed)
    venv.reset()
    rng = np.random.default_rng(seed % 2**32)
    for step in steps:
        legal = venv.random_actions(rng)
        if isinstance(step, str) and step == "legal":
            dtype = data.draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64,
                                               np.uint8, np.uint64]))
            venv.step(legal.astype(dtype))
            continue
        before = vector_snapshot(venv)
        if isinstance(step, str) and step == "one illegal":
            g = data.draw(st.integers(0, B - 1))
            bad = data.draw(st.sampled_from(list(np.flatnonzero(venv._mask[g] == 0)))
                            | st.integers(-2**63, -1) | st.integers(70, 2**63 - 1))
            legal[g] = bad
            refused(lambda: venv.step(legal), rf"action -?\d+ is not legal in game {g}",
                    "legal moves: ", "No game was stepped")
        else:
            refused(lambda: venv.step(step), rf"actions must be an integer array of shape "
                                             rf"\({B},\)|{2**64 - 1} is none")
        assert_arrays_equal(before, vector_snapshot(venv))


# --- SingleAgentEnv.step ----------------------------------------------------------------


def single_snapshot(env) -> tuple:
    b = env.batch
    return (tuple(a.copy() for a in b._state), b.mask.copy(), b.obs.copy(), env._forfeited)


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
@given(seed=st.integers(0, 2**63 - 1), moves=st.lists(st.one_of(
    st.just("legal"), st.just("illegal"), GARBAGE, OUT_OF_RANGE), max_size=20),
    data=st.data())
def test_single_agent_env_refuses_garbage(illegal_action, seed, moves, data):
    env = SingleAgentEnv("classic", num_players=2, seed=seed, illegal_action=illegal_action)
    env.reset()
    layout = env.config.layout
    for move in moves:
        if env.batch.done[0] or env._forfeited:
            refused(lambda: env.step(0), "the episode is over: call reset()")
            env.reset()
        mask = env.action_masks()
        before = single_snapshot(env)
        if isinstance(move, str) and move in ("legal", "illegal"):
            ids = np.flatnonzero(mask if move == "legal" else ~mask)
            action = as_dtype(int(data.draw(st.sampled_from(list(ids)))), data)
            if move == "legal":
                env.step(action)
                continue
            move = action
        if is_integer(move) and illegal_action == "lose":
            obs, reward, terminated, truncated, info = env.step(move)  # a forfeit
            assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
            assert env.action_masks().all()     # an ended episode's mask (v2)
        elif is_integer(move):
            refused(lambda: env.step(move), r"is not legal in game 0|is out of range "
                                            r"0\.\.69", "; legal moves: ")
        elif isinstance(move, str):  # a move string: unknown, or not legal now
            if move in {layout.decode(a) for a in np.flatnonzero(mask)}:
                continue
            try:
                env.step(move)
            except (ValueError, TypeError) as err:
                assert not from_numba(err), err
            else:
                assert illegal_action == "lose" and env._forfeited
        else:
            refused(lambda: env.step(move), r"an action is an integer id 0\.\.69, got .*, "
                                            r"or a move string")
        # refused or forfeited: the game itself is untouched
        assert_arrays_equal(before[:3], single_snapshot(env)[:3])


# --- rule flags --------------------------------------------------------------------------

FLAG_VALUES = st.one_of(GARBAGE, st.integers(-10, 10**7), st.sampled_from(
    ["none", "same", "any", "winner", "penalty", "elimination", "win", "score",
     "classic108", "classic112", "flip", "onepiece110", "wild", "draw1", "swap",
     "classic", "return", "all", "two_players", (2, 2, 1, 1), (0, 0, 0, 0), [2, 2, 1, 1],
     (2, 2, 1, 1.0), np.int64(7), np.bool_(True)]))


@given(preset=st.sampled_from(list(uno_env.PRESETS)), flag=st.sampled_from(rule_names()),
       value=FLAG_VALUES, num_players=st.integers(2, 6))
def test_rule_flags_refuse_bad_values_by_name(preset, flag, value, num_players):
    """A flag value is accepted (and compiles to the kernels' rule array) or refused
    with an error naming the flag; never another exception."""
    try:
        config = make_config(preset, num_players, **{flag: value})
    except (ValueError, TypeError) as err:
        message = str(err)
        assert not from_numba(err), message
        # it names the flag, or the flag it clashes with
        assert any(name in message for name in rule_names()), message
        return
    rules = config.rules
    assert getattr(rules, flag) == value and hash(rules) is not None
    assert rules.compile(num_players).dtype == np.int32


@given(name=st.text(min_size=1, max_size=12).filter(lambda s: s not in rule_names()))
@example(name="self")   # once a TypeError: Rules.replace's own first argument
def test_unknown_rule_flags_list_the_valid_ones(name):
    refused(lambda: make_config("classic", 4, **{name: True}), "unknown rule flag",
            "valid flags: deck, hand_size")
