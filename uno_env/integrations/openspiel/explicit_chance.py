"""Explicit chance for small decks: every card the deal or a draw takes from the deck as a
chance outcome, weighted by the copies left (``python_uno`` with ``chance="explicit"``,
docs/openspiel.md). Pure Python and numpy over ``uno_env.Game``; no pyspiel.

The engine draws from the top of an ordered draw pile and reshuffles with the game's
own random stream. Here the pile's order is **unfixed**: a card's position is fixed
only when a move needs it, by a chance outcome over the cards still unfixed, so each
card drawn is uniform over the copies left, as in a shuffled deck:

* a move is first played on a copy of the game; while it draws more cards than the
  positions fixed at the top of the pile, the next position is a chance node
  (:meth:`Pending.options`), and the chosen card is put there (:func:`fix_pile`);
* a move that empties the draw pile and reshuffles the discard pile (docs/rules.md 2.9)
  fixes the old pile first, then the cards it takes from the new pile one chance node
  at a time; the engine's shuffle is made to put them on top by choosing the game's
  random stream for that move (``_realise``: the shuffle is a function of the stream,
  computed in Python by ``engine.rng.shuffle_prefix_py``), and the result is checked;
* the deal is one chance node per hand (a hand is unordered: the outcome is the
  multiset, weighted by the product of binomials of the copies left), then one for
  the first card turned up among the cards that may start the pile (docs/rules.md 2.3:
  a ``W4`` turned up goes back at a random place, so the first card is uniform over the
  others), then, after a ``D2``, one per card the first player draws.
  :func:`deal_game` builds that position and applies the first card's effect as the
  engine's ``rounds.start_round`` does (``tests/environments/test_openspiel_chance.py``
  compares the two over many deals).

Supported: the classic deck (small or full) with any house rule, one round
(``target_score=0``); a move that reshuffles twice raises a RuntimeError.
"""
from __future__ import annotations

from itertools import product
from math import comb

import numpy as np

from uno_env.engine.rng import seed_stream_py, shuffle_prefix_py
from uno_env.envs.game import Game
from uno_env.rules.config import FIRST_CARD_REDO, Config

#: the random streams tried for a reshuffle are ``seed_stream(_SALT, i)``, i = 0, 1, ...
_SALT = 0x5EED_C4A2CE
_MAX_TRIES = 1_000_000


def check_supported(config: Config) -> None:
    """ValueError unless explicit chance can play ``config`` (module docstring)."""
    rules = config.rules
    if rules.deck != "classic108":
        raise ValueError(f"explicit chance plays the classic deck (small or full, "
                         f"docs/rules.md 8), not {rules.deck!r}: use chance='sampled'")
    if rules.target_score != 0:
        raise ValueError("explicit chance plays one round (target_score=0)")


def hand_outcomes(type_count: np.ndarray, hand_size: int) -> list[tuple[int, ...]]:
    """Every hand of ``hand_size`` cards the deck can deal, as counts per card type, in
    a fixed order (the chance outcome of a hand is its index here)."""
    ranges = [range(min(int(n), hand_size) + 1) for n in type_count]
    if np.prod([len(r) for r in ranges], dtype=float) > 5e6:
        raise ValueError(f"the deck has too many hands of {hand_size} cards for explicit "
                         f"chance; use a smaller deck (docs/rules.md 8) or "
                         f"chance='sampled'")
    return [h for h in product(*ranges) if sum(h) == hand_size]


def hand_probability(left: np.ndarray, hand: tuple[int, ...]) -> float:
    """Probability of dealing ``hand`` (counts per type) from the ``left`` copies."""
    total = int(left.sum())
    k = sum(hand)
    ways = 1
    for n, h in zip(left.tolist(), hand):
        if h > n:
            return 0.0
        ways *= comb(n, h)
    return ways / comb(total, k)


def startable(config: Config) -> np.ndarray:
    """bool[K]: card types that may be the first card of the discard pile."""
    deck = config.deck
    return ~np.isin(deck.face_rank[deck.type_face[:, 0]], FIRST_CARD_REDO)


def deal_game(config: Config, hands: list, top: int, drawn: int = 0, cls=Game) -> Game:
    """The position after the deal (``Game.from_deal``): ``hands`` (counts per type,
    the first player's including the cards a first ``D2`` made it draw, ``drawn`` of
    them), ``top`` the first card, its effect applied; ``cls``: the ``Game`` class to
    make."""
    return cls.from_deal(config, hands, top, drawn)


def pile_counts(game: Game, fixed: int) -> np.ndarray:
    """Copies per type among the draw pile's cards below its top ``fixed`` positions."""
    pile = game.draw_pile_types()
    return np.bincount(pile[:len(pile) - fixed], minlength=game.config.deck.num_types)


def fix_pile(game: Game, fixed: int, t: int) -> None:
    """Put a card of type ``t`` from the unfixed part of the draw pile at position
    ``fixed`` from the top (0 = the top)."""
    game.put_in_draw_pile(fixed, t)


def _shuffled(n: int, stream) -> np.ndarray:
    perm = np.arange(n, dtype=np.int64)
    rng = np.array([stream], np.uint64)
    shuffle_prefix_py(rng, 0, perm, n)
    return perm


class Pending:
    """A move waiting for the cards it draws: ``options()`` is None when it is
    resolved (``result`` is then the game after the move), else the copies per type of
    the cards the next chance node draws from; ``choose(t)`` takes one."""

    def __init__(self, game: Game, action: int):
        self.game, self.action = game, int(action)
        self.old: list[int] = []        # cards fixed at the top of the draw pile
        self.new: list[int] = []        # cards fixed at the top of the reshuffled pile
        self.result: Game | None = None
        self._options: np.ndarray | None = None
        self._resolve()

    def options(self) -> np.ndarray | None:
        return self._options

    def choose(self, t: int) -> None:
        if self._options is None or not 0 <= t < len(self._options) \
                or self._options[t] <= 0:
            raise ValueError(f"chance outcome {t} is not a card left to draw")
        if self._stage == "old":
            fix_pile(self.game, len(self.old), t)
            self.old.append(int(t))
        else:
            self.new.append(int(t))
        self._resolve()

    def _resolve(self) -> None:
        game = self.game
        pile0, drawn0, shuffles0 = _counters(game)
        sim, reshuffled_pile = self._realise(game)
        _, drawn, shuffles = _counters(sim)
        drawn, shuffles = drawn - drawn0, shuffles - shuffles0
        if shuffles > 1:
            raise RuntimeError("a move reshuffled the draw pile twice; explicit chance "
                               "supports one reshuffle a move")
        self._options = None
        if len(self.old) < min(drawn, pile0):
            self._stage = "old"
            self._options = pile_counts(game, len(self.old))
        elif shuffles and drawn - pile0 > len(self.new):
            self._stage = "new"
            counts = np.bincount(reshuffled_pile, minlength=game.config.deck.num_types)
            for t in self.new:
                counts[t] -= 1
            self._options = counts
        else:
            self.result = sim

    def _realise(self, game: Game):
        """The game after the move, its reshuffle (if any) putting ``self.new`` on top of
        the new pile; and the reshuffled cards (empty without a reshuffle)."""
        pile0, drawn0, shuffles0 = _counters(game)
        sim = game.clone()
        stream = game.stream
        sim.step(self.action)
        pile1, drawn1, shuffles1 = _counters(sim)
        if shuffles1 == shuffles0:
            return sim, np.zeros(0, np.int64)
        taken = drawn1 - drawn0 - pile0  # from the new pile
        n = pile1 + taken
        shuffled = sim.draw_pile_types(n)
        if not self.new:
            return sim, shuffled
        # the pile before the shuffle: shuffled[i] = before[perm[i]]
        before = np.empty(n, np.int64)
        before[_shuffled(n, stream)] = shuffled
        want = np.array(self.new, np.int64)
        k = len(want)
        for i in range(_MAX_TRIES):
            candidate = seed_stream_py(_SALT, i)
            order = before[_shuffled(n, candidate)]
            if np.array_equal(order[n - k:][::-1], want):
                break
        else:  # pragma: no cover - the odds are at least 1 / n!
            raise RuntimeError("no random stream realises the chosen cards")
        sim = game.clone()
        sim.stream = candidate
        sim.step(self.action)
        got = sim.draw_pile_types(n)[n - k:][::-1]
        if not np.array_equal(got, want):
            raise RuntimeError("the reshuffle did not give the chosen cards: the move "
                               "used the random stream before reshuffling")
        return sim, before


def _counters(game: Game) -> tuple[int, int, int]:
    """(draw pile size, cards drawn, reshuffles) of ``game`` now."""
    stats = game.stats
    return game.draw_pile_size, stats["cards_drawn"], stats["reshuffles"]
