"""Card tables as arrays, and the card notation of docs/rules.md section 1.

A deck is described in three layers, all plain numpy arrays so the kernels can read them:

* **face kinds** (``face_color[f]``, ``face_rank[f]``, ``face_points[f]``): one printed
  face, e.g. "red 5" or "Wild Draw Four". Colour and rank codes are the module constants
  below and are the same for every variant, so the kernels switch on them.
* **card types** (``type_face[t, side]``): the distinct physical cards of a deck. A
  single-sided card has the same face on both sides (``side`` 0 = light, 1 = dark); an
  UNO Flip card pairs a light face with a dark face. Identical cards share a type, so a
  hand is a vector of counts per type and two identical cards are one move.
* **deck counts** (``type_count[t]``): how many copies of each type the deck holds.

Types are ordered coloured-first so the action layout (``uno_env.rules.actions``) can give
each type with a coloured face one "play" action and each type with a wild face four
"play and name a colour" actions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uno_env.engine.codes import (  # noqa: F401  (re-exported for users)
    ACE, BLACKBEARD, BLUE, DARK_COLORS, DRAW1, DRAW2, DRAW5, FIRST_WILD_RANK, FLIP, GREEN,
    HANCOCK, LIGHT_COLORS, NO_COLOR, NUM_RANKS, ORANGE, PINK, PURPLE, RED, REVERSE, SHANKS,
    SKIP, SKIP_EVERYONE, TEAL, WILD, WILD2, WILD4, WILD_COLOR, WILD_CUSTOM, WILD_SHUFFLE,
    YELLOW,
)

COLOR_LETTERS = "RYGBPTOV"

RANK_NAMES = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
    "S", "R", "D2", "D1", "D5", "SE", "F",
    "W", "W4", "W2", "WC", "WS", "WX",
    "SHK", "BBD", "ACE", "HAN",
)
_RANK_BY_NAME = {name: code for code, name in enumerate(RANK_NAMES)}

def is_wild_rank(rank: int) -> bool:
    return rank >= FIRST_WILD_RANK


def face_name(color: int, rank: int) -> str:
    """``(RED, 5) -> "R5"``; wild faces have no colour letter: ``(NO_COLOR, WILD4) -> "W4"``."""
    if is_wild_rank(rank):
        return RANK_NAMES[rank]
    return COLOR_LETTERS[color] + RANK_NAMES[rank]


def parse_face(text: str) -> tuple[int, int]:
    """``"R5" -> (RED, 5)``, ``"W4" -> (NO_COLOR, WILD4)``; ValueError names valid forms."""
    if text in _RANK_BY_NAME and is_wild_rank(_RANK_BY_NAME[text]):
        return NO_COLOR, _RANK_BY_NAME[text]
    if len(text) >= 2 and text[0] in COLOR_LETTERS:
        rank = _RANK_BY_NAME.get(text[1:])
        if rank is not None and not is_wild_rank(rank):
            return COLOR_LETTERS.index(text[0]), rank
    raise ValueError(
        f"{text!r} is not a card: write a colour letter ({', '.join(COLOR_LETTERS)}) and a "
        f"rank (0-9, S, R, D2, D1, D5, SE, F), e.g. 'R5', 'GS', 'BD2', or a wild "
        f"({', '.join(n for n in RANK_NAMES if is_wild_rank(_RANK_BY_NAME[n]))})"
    )


@dataclass(frozen=True)
class Deck:
    """A deck's tables. Build one with :func:`classic_deck` (more variants follow)."""

    name: str
    face_color: np.ndarray   # int32[F]
    face_rank: np.ndarray    # int32[F]
    face_points: np.ndarray  # int32[F]
    type_face: np.ndarray    # int32[K, 2]: face shown on side 0 (light) and 1 (dark)
    type_count: np.ndarray   # int32[K]: copies in the deck
    double_sided: bool

    @property
    def num_types(self) -> int:
        return len(self.type_count)

    @property
    def num_cards(self) -> int:
        return int(self.type_count.sum())

    def type_name(self, t: int) -> str:
        """Notation of card type ``t``: ``"R5"``, or ``"R5|P7"`` for a double-sided card."""
        light = self._face_str(self.type_face[t, 0])
        if not self.double_sided:
            return light
        return light + "|" + self._face_str(self.type_face[t, 1])

    def face_str(self, t: int, side: int) -> str:
        return self._face_str(self.type_face[t, side])

    def _face_str(self, f: int) -> str:
        return face_name(int(self.face_color[f]), int(self.face_rank[f]))

    def parse_type(self, text: str) -> int:
        """Card notation -> type id; ValueError when the deck has no such card."""
        try:
            return self._type_by_name[text]
        except KeyError:
            parse_face(text.split("|")[0])  # raises a message about notation if malformed
            raise ValueError(f"the {self.name} deck has no card {text!r}") from None

    def face_id(self, text: str) -> int:
        """Face notation (one side, ``"P7"``, ``"WC"``) -> face id of this deck;
        ValueError when the deck has no such face."""
        color, rank = parse_face(text)
        hits = np.flatnonzero((self.face_color == color) & (self.face_rank == rank))
        if len(hits) == 0:
            raise ValueError(f"the {self.name} deck has no face {text!r}")
        return int(hits[0])

    @property
    def _type_by_name(self) -> dict[str, int]:
        cache = self.__dict__.get("_names")
        if cache is None:
            cache = {self.type_name(t): t for t in range(self.num_types)}
            object.__setattr__(self, "_names", cache)
        return cache


# Points (docs/rules.md section 2, 4 and 6): numbers face value, S R D2 20, W W4 50, WS WX 40.
_CLASSIC_POINTS = {SKIP: 20, REVERSE: 20, DRAW2: 20, WILD: 50, WILD4: 50,
                   WILD_SHUFFLE: 40, WILD_CUSTOM: 40,
                   SHANKS: 50, BLACKBEARD: 50, ACE: 50, HANCOCK: 50}


def _single_sided(name: str, coloured: list[tuple[int, int, int]],
                  wild: list[tuple[int, int]]) -> Deck:
    """Build a single-sided deck from (colour, rank, count) and (wild rank, count) rows."""
    faces = [(c, r) for c, r, _ in coloured] + [(NO_COLOR, r) for r, _ in wild]
    counts = [n for _, _, n in coloured] + [n for _, n in wild]
    face_color = np.array([c for c, _ in faces], np.int32)
    face_rank = np.array([r for _, r in faces], np.int32)
    face_points = np.array([r if r < 10 else _CLASSIC_POINTS[r] for _, r in faces], np.int32)
    idx = np.arange(len(faces), dtype=np.int32)
    return Deck(name, face_color, face_rank, face_points,
                np.stack([idx, idx], axis=1), np.array(counts, np.int32), False)


#: the action cards of a classic colour, in deck order, by their notation
ACTION_CARDS = {"S": SKIP, "R": REVERSE, "D2": DRAW2}


def parse_action_cards(text) -> tuple[int, ...]:
    """``"S/R/D2"`` (any subset, "/"-separated, or ``""`` for none) -> the ranks in deck
    order; ValueError naming the valid cards."""
    if not isinstance(text, str):
        raise ValueError(f"action_cards is a string such as 'S/R/D2', 'S' or '' (none), "
                         f"got {text!r}")
    names = [n.strip() for n in text.replace(",", "/").split("/") if n.strip()]
    bad = [n for n in names if n not in ACTION_CARDS]
    if bad or len(set(names)) != len(names):
        raise ValueError(f"action_cards lists each of S, R, D2 at most once, separated by "
                         f"'/' (e.g. 'S/R/D2', 'S', ''), got {text!r}")
    return tuple(r for n, r in ACTION_CARDS.items() if n in names)


def classic_deck(extra_wilds: tuple[tuple[int, int], ...] = (), colors: int = 4,
                 numbers: int = 10, copies: int = 2, action_cards: str = "S/R/D2",
                 wilds: int = 4, wild_draw_fours: int = 4) -> Deck:
    """The official 108 cards (docs/rules.md section 2): per colour one 0, two each of 1-9, S,
    R, D2; four W and four W4. ``extra_wilds`` adds (rank, count) rows, e.g. classic112.

    The other arguments make a small deck (docs/rules.md 8; the defaults are the 108
    cards): the first ``colors`` colours of R Y G B; the numbers ``0`` to
    ``numbers - 1``; ``copies`` of each coloured card but the ``0`` (one per colour);
    the ``action_cards`` of each colour (``"S/R/D2"``, any subset); ``wilds`` ``W`` and
    ``wild_draw_fours`` ``W4``."""
    ranks = parse_action_cards(action_cards)
    coloured = []
    for color in LIGHT_COLORS[:colors]:
        if numbers > 0:
            coloured.append((color, 0, 1))
        coloured += [(color, rank, copies) for rank in (*range(1, numbers), *ranks)]
    wild = [(r, n) for r, n in ((WILD, wilds), (WILD4, wild_draw_fours)) if n > 0]
    wild += list(extra_wilds)
    total = sum(n for *_, n in coloured) + sum(n for _, n in wild)
    small = (colors, numbers, copies, ranks, wilds, wild_draw_fours) != \
        (4, 10, 2, (SKIP, REVERSE, DRAW2), 4, 4)
    name = f"small{total}" if small else f"classic{total}"
    if not coloured:
        raise ValueError("a deck needs coloured cards: numbers > 0 or some action_cards")
    return _single_sided(name, coloured, wild)


def classic112_deck() -> Deck:
    """``classic112`` (docs/rules.md 4): the 108 cards plus one ``WS`` (Wild Shuffle Hands)
    and three ``WX`` (Wild Customizable), 40 points each."""
    return classic_deck(((WILD_SHUFFLE, 1), (WILD_CUSTOM, 3)))


def onepiece_deck(shanks: int = 2, blackbeard: int = 2, ace: int = 1,
                  hancock: int = 1) -> Deck:
    """``onepiece110`` (docs/rules.md 6, the One Piece rule sheet): the classic coloured cards; of the eight
    wilds two ``W`` are ``SHK`` (Shanks) and two ``W4`` are ``BBD`` (Blackbeard); plus one
    ``ACE`` (Fire Fist Ace) and one ``HAN`` (Hancock). The special cards' counts are
    arguments (docs/rules.md 6: "all configurable"); ``W``/``W4`` fill up to four each.
    Luffy cards are the ``1`` s. Special cards score 50."""
    for name, n in (("shanks", shanks), ("blackbeard", blackbeard), ("ace", ace),
                    ("hancock", hancock)):
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 8:
            raise ValueError(f"{name} must be an integer from 0 to 8, got {n!r}")
    if shanks > 4 or blackbeard > 4:
        raise ValueError("shanks and blackbeard replace W and W4 cards: at most 4 each")
    coloured = []
    for color in LIGHT_COLORS:
        coloured.append((color, 0, 1))
        coloured += [(color, rank, 2) for rank in (*range(1, 10), SKIP, REVERSE, DRAW2)]
    wild = [(WILD, 4 - shanks), (WILD4, 4 - blackbeard), (SHANKS, shanks),
            (BLACKBEARD, blackbeard), (ACE, ace), (HANCOCK, hancock)]
    return _single_sided("onepiece110", coloured, wild)


# UNO Flip points (docs/rules.md 5): numbers face value; D1 10; D5 20; R S F 20; SE 30; W 40;
# W2 50; WC 60 (scored on the side the round ended on).
_FLIP_POINTS = {DRAW1: 10, DRAW5: 20, REVERSE: 20, SKIP: 20, FLIP: 20, SKIP_EVERYONE: 30,
                WILD: 40, WILD2: 50, WILD_COLOR: 60}


def flip_deck() -> Deck:
    """UNO Flip (docs/rules.md 5): 112 double-sided cards. Light side: per colour R Y G B two
    each 1-9, D1, R, S, F; four W, four W2. Dark side: per colour P T O V two each 1-9,
    D5, R, SE, F; four W, four WC.

    Each physical card is its own type (``type_count`` is all ones), ordered by light
    face, so copies of one light face are adjacent. Which dark face a card carries is
    drawn per match from the game's seed (``State.dark_face``, see ``engine/flip.py``);
    ``type_face[:, 1]`` is only the canonical dark multiset the per-match pairing
    permutes, so ``type_name`` names cards by that canonical pairing (``Game`` names
    them by the match's own pairing)."""
    light_ranks = (*range(1, 10), DRAW1, REVERSE, SKIP, FLIP)
    dark_ranks = (*range(1, 10), DRAW5, REVERSE, SKIP_EVERYONE, FLIP)
    faces = ([(c, r) for c in LIGHT_COLORS for r in light_ranks]
             + [(c, r) for c in DARK_COLORS for r in dark_ranks]
             + [(NO_COLOR, WILD), (NO_COLOR, WILD2), (NO_COLOR, WILD_COLOR)])
    index = {f: i for i, f in enumerate(faces)}
    w, w2, wc = index[(NO_COLOR, WILD)], index[(NO_COLOR, WILD2)], index[(NO_COLOR, WILD_COLOR)]
    light = [index[(c, r)] for c in LIGHT_COLORS for r in light_ranks for _ in range(2)]
    light += [w] * 4 + [w2] * 4
    dark = [index[(c, r)] for c in DARK_COLORS for r in dark_ranks for _ in range(2)]
    dark += [w] * 4 + [wc] * 4
    face_color = np.array([c for c, _ in faces], np.int32)
    face_rank = np.array([r for _, r in faces], np.int32)
    face_points = np.array([r if r < 10 else _FLIP_POINTS[r] for _, r in faces], np.int32)
    return Deck("flip", face_color, face_rank, face_points,
                np.stack([light, dark], axis=1).astype(np.int32),
                np.ones(len(light), np.int32), True)


DECKS = {
    "classic108": classic_deck,
    "classic112": classic112_deck,
    "onepiece110": onepiece_deck,
    "flip": flip_deck,
}


def make_deck(name: str, *counts, **options) -> Deck:
    """Deck ``name`` with its counts (One Piece) or options (a small classic deck,
    docs/rules.md 8)."""
    if name not in DECKS:
        raise ValueError(f"unknown deck {name!r}; valid decks: {', '.join(DECKS)}")
    return DECKS[name](*counts, **options)
