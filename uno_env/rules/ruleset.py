"""The rules record: every rule option of docs/rules.md as one frozen dataclass, named presets
of it, validation with clear errors, and compilation to the ``int32`` array the kernels
read (slots ``R_*`` in :mod:`uno_env.engine.codes`).

A preset is just a named :class:`Rules`; keyword arguments override its fields::

    rules = make_rules("classic", bluff=False, target_score=500)

The house rules of docs/rules.md sections 3 and 4 (``stack``, ``seven_zero``, ``jump_in``,
``force_play``, ``no_draw_if_playable``, ``draw_until_playable``, ``multi_play``,
``teams``, ``wx_rule``, ``ws_last_card_wins``) combine freely; their kernels are in
``uno_env.engine.house``. UNO One Piece (section 6, preset ``onepiece``) adds
``onepiece_cards``, ``challenge``, ``shanks_give``, ``bbd_challenge`` and
``scoring="elimination"``, valid with its deck only; its kernels are in
``uno_env.engine.onepiece``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from uno_env.engine import codes as C

MIN_PLAYERS, MAX_PLAYERS = 2, C.MAX_PLAYERS


@dataclass(frozen=True)
class Rules:
    """All rule options. Defaults are the official classic rules (docs/rules.md section 2)."""

    deck: str = "classic108"
    #: cards dealt to each player
    hand_size: int = 7
    #: allow an illegal Wild Draw Four (and its challenge); False masks it (docs/rules.md 2)
    bluff: bool = True
    #: explicit `uno` calls and `catch`; False makes the call implicit
    uno_call: bool = True
    #: "winner" (winner scores the others' cards), "penalty" (each scores their own) or,
    #: with the onepiece deck, "elimination" (the One Piece rule sheet; docs/rules.md 6 and the README)
    scoring: str = "winner"
    #: match length in points; 0 = a single round (the RL default)
    target_score: int = 0
    #: a round ends by truncation after this many turns; the episode (the match, when
    #: ``target_score > 0``) ends truncated
    max_turns: int = 1000
    #: seat that deals the first round (play starts at dealer + 1)
    dealer: int = 0
    #: "win" (+1 / -1/(N-1), zero-sum) or "score" (round points; docs/rules.md 7)
    reward: str = "win"
    # --- house rules (docs/rules.md 3; issue [house-rules]) ---
    teams: bool = False
    stack: str = "none"
    seven_zero: bool = False
    jump_in: bool = False
    force_play: bool = False
    no_draw_if_playable: bool = False
    draw_until_playable: bool = False
    multi_play: bool = False
    # --- classic112 (docs/rules.md 4) ---
    wx_rule: str = "wild"
    ws_last_card_wins: bool = False
    # --- UNO One Piece (docs/rules.md 6; only with deck="onepiece110") ---
    #: copies of SHK, BBD, ACE, HAN (SHK and BBD replace W and W4 cards)
    onepiece_cards: tuple = (2, 2, 1, 1)
    #: a guilty W4: "return" (the One Piece rule sheet: the card goes back to its player's hand, top and
    #: colour revert) or "classic" (docs/rules.md 2: it stays, its player draws 4)
    challenge: str = "classic"
    #: Shanks gives a card with "all" player counts (docs/rules.md 6) or "two_players" only
    #: (the One Piece rule sheet's text; with more players it is a plain wild)
    shanks_give: str = "all"
    #: Blackbeard restricted and challengeable like a W4 (the One Piece rule sheet groups them); the
    #: project's reading (False) is a plain "next draws 2 and is skipped"
    bbd_challenge: bool = False

    def replace(self, **changes) -> "Rules":
        """A copy with ``changes``; unknown names are a ValueError listing valid flags."""
        unknown = sorted(set(changes) - set(rule_names()))
        if unknown:
            raise ValueError(
                f"unknown rule flag(s) {', '.join(map(repr, unknown))}; valid flags: "
                f"{', '.join(rule_names())}"
            )
        rules = dataclasses.replace(self, **changes)
        rules.validate()
        return rules

    def validate(self) -> None:
        """Raise ValueError naming the bad value and the valid ones."""
        from uno_env.rules.cards import DECKS

        _choice("deck", self.deck, tuple(DECKS))
        _choice("scoring", self.scoring, ("winner", "penalty", "elimination"))
        _choice("reward", self.reward, ("win", "score"))
        _choice("stack", self.stack, ("none", "same", "any"))
        _choice("wx_rule", self.wx_rule, ("wild", "draw1", "swap"))
        _choice("challenge", self.challenge, ("classic", "return"))
        _choice("shanks_give", self.shanks_give, ("all", "two_players"))
        for name in ("bluff", "uno_call", "teams", "seven_zero", "jump_in", "force_play",
                     "no_draw_if_playable", "draw_until_playable", "multi_play",
                     "ws_last_card_wins", "bbd_challenge"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"rule flag {name!r} must be True or False, "
                                 f"got {getattr(self, name)!r}")
        _int_range("hand_size", self.hand_size, 1, 20)
        _int_range("target_score", self.target_score, 0, 1_000_000)
        _int_range("max_turns", self.max_turns, 1, 1_000_000_000)
        _int_range("dealer", self.dealer, 0, MAX_PLAYERS - 1)
        if self.teams and self.scoring != "winner":
            raise ValueError("teams=True scores the winning team (scoring='winner'); "
                             "scoring='penalty' has no team reading in docs/rules.md")
        if self.deck not in DECKS_WITH_WS_WX and (self.wx_rule != "wild"
                                                  or self.ws_last_card_wins):
            raise ValueError(f"wx_rule and ws_last_card_wins apply to decks with WS/WX "
                             f"cards ({', '.join(DECKS_WITH_WS_WX)}), not {self.deck!r}; "
                             f"use preset 'classic112' or deck='classic112'")
        self._validate_onepiece()
        if self.deck in DOUBLE_SIDED_DECKS:
            unsupported = [name for name in _HOUSE_FLAGS
                           if getattr(self, name) != getattr(_DEFAULTS, name)]
            if unsupported:
                raise ValueError(
                    f"rule flag(s) {', '.join(unsupported)} are not supported with the "
                    f"{self.deck!r} deck (docs/rules.md 5 defines no house rules for UNO Flip); "
                    f"leave them at their defaults")

    def _validate_onepiece(self) -> None:
        """One Piece flags need its deck; house rules that its kernels do not implement
        are refused by name (docs/rules.md 6; engine/onepiece.py)."""
        op_flags = ("onepiece_cards", "challenge", "shanks_give", "bbd_challenge")
        cards = self.onepiece_cards
        # checked first, whatever the deck: comparing a numpy value with the default
        # tuple below would be element-wise
        if not isinstance(cards, tuple) or len(cards) != 4 or any(
                isinstance(n, bool) or not isinstance(n, (int, np.integer)) for n in cards):
            raise ValueError(f"onepiece_cards must be a tuple of four integers (copies of "
                             f"SHK, BBD, ACE, HAN), got {cards!r}")
        if self.deck != "onepiece110":
            used = [n for n in op_flags if getattr(self, n) != getattr(_DEFAULTS, n)]
            if self.scoring == "elimination":
                used.append("scoring='elimination'")
            if used:
                raise ValueError(f"rule flag(s) {', '.join(used)} apply to the One Piece "
                                 f"deck only; use preset 'onepiece' or deck='onepiece110'")
            return
        from uno_env.rules.cards import onepiece_deck
        onepiece_deck(*map(int, cards))  # raises on bad counts
        unsupported = [n for n in ONEPIECE_UNSUPPORTED
                       if getattr(self, n) != getattr(_DEFAULTS, n)]
        if unsupported:
            raise ValueError(f"house rule flag(s) {', '.join(unsupported)} are not "
                             f"supported with the onepiece deck (supported: force_play, "
                             f"no_draw_if_playable, teams)")
        if self.scoring == "elimination" and (self.teams or self.target_score == 0
                                              or self.reward != "win"):
            raise ValueError("scoring='elimination' needs target_score > 0 (the "
                             "elimination total, 500 on the sheet), reward='win' and "
                             "teams=False")

    def compile(self, num_players: int) -> np.ndarray:
        """The int32 array of ``R_*`` slots the kernels read."""
        check_num_players(num_players)
        if self.teams and num_players != 4:
            raise ValueError(f"teams=True needs exactly 4 players (seats 0+2 against 1+3), "
                             f"got num_players={num_players}")
        if self.dealer >= num_players:
            raise ValueError(f"dealer must be a seat 0..{num_players - 1}, got {self.dealer}")
        out = np.zeros(C.NUM_RULES, np.int32)
        out[C.R_NUM_PLAYERS] = num_players
        out[C.R_HAND_SIZE] = self.hand_size
        out[C.R_BLUFF] = self.bluff
        out[C.R_UNO_CALL] = self.uno_call
        out[C.R_SCORING] = ("winner", "penalty", "elimination").index(self.scoring)
        out[C.R_TARGET_SCORE] = self.target_score
        out[C.R_MAX_TURNS] = self.max_turns
        out[C.R_DEALER] = self.dealer
        out[C.R_REWARD] = ("win", "score").index(self.reward)
        out[C.R_TEAMS] = self.teams
        out[C.R_STACK] = ("none", "same", "any").index(self.stack)
        out[C.R_SEVEN_ZERO] = self.seven_zero
        out[C.R_JUMP_IN] = self.jump_in
        out[C.R_FORCE_PLAY] = self.force_play
        out[C.R_NO_DRAW_IF_PLAYABLE] = self.no_draw_if_playable
        out[C.R_DRAW_UNTIL_PLAYABLE] = self.draw_until_playable
        out[C.R_MULTI_PLAY] = self.multi_play
        out[C.R_WX_RULE] = ("wild", "draw1", "swap").index(self.wx_rule)
        out[C.R_WS_LAST_CARD_WINS] = self.ws_last_card_wins
        out[C.R_OP_CHALLENGE] = ("classic", "return").index(self.challenge)
        out[C.R_OP_SHANKS_GIVE] = self.shanks_give == "all"
        out[C.R_OP_BBD_CHALLENGE] = self.bbd_challenge
        return out

    @property
    def variant(self) -> str:
        """The rule set the kernels compile for this record (``uno_env.engine.jit``): "flip"
        (the flip deck), "onepiece" (its deck), "house" (any house rule, or a deck with
        WS/WX), else "classic". Each variant is compiled and cached on its own."""
        if self.deck in DOUBLE_SIDED_DECKS:
            return "flip"
        if self.deck == "onepiece110":
            return "onepiece"
        return "house" if self.uses_house_kernels else "classic"

    @property
    def uses_house_kernels(self) -> bool:
        """True when a rule needs ``engine/house.py`` (``teams`` alone only changes
        scoring, which the classic kernels do)."""
        return (self.stack != "none" or self.seven_zero or self.jump_in or self.force_play
                or self.no_draw_if_playable or self.draw_until_playable or self.multi_play
                or self.deck in DECKS_WITH_WS_WX or self.deck == "onepiece110")


_DEFAULTS = Rules()
#: decks holding WS and WX cards (docs/rules.md 4)
DECKS_WITH_WS_WX = ("classic112",)
#: house rules the One Piece kernels (engine/onepiece.py) do not implement
ONEPIECE_UNSUPPORTED = ("stack", "seven_zero", "jump_in", "draw_until_playable",
                        "multi_play")
#: double-sided decks (docs/rules.md 5): the kernels of ``engine/flip.py``
DOUBLE_SIDED_DECKS = ("flip",)
#: house-rule flags that need ``engine/house.py``; none is supported with the flip deck
#: (``teams`` only changes scoring, which the flip kernels share with classic)
_HOUSE_FLAGS = ("stack", "seven_zero", "jump_in", "force_play", "no_draw_if_playable",
                "draw_until_playable", "multi_play")

#: Named presets, every variant of docs/rules.md (sections 2-6). House-rule presets
#: are popular combinations of docs/rules.md section 3; any flag can be added to any preset.
#: Read-only (a ``MappingProxyType``): pass flags to ``make_rules``/``env`` instead.
PRESETS: Mapping[str, Rules] = MappingProxyType({
    "classic": Rules(),
    # docs/rules.md 4: 108 cards + WS + 3 WX (wx_rule="wild" by default)
    "classic112": Rules(deck="classic112"),
    # docs/rules.md 5: UNO Flip, 112 double-sided cards (engine/flip.py)
    "flip": Rules(deck="flip"),
    # the "street" rules most people play: stack anything, 7-0, jump-in, draw till you can
    "street": Rules(stack="any", seven_zero=True, jump_in=True, draw_until_playable=True),
    # "progressive UNO": D2 on D2, W4 on W4, the last player who cannot stack draws all
    "progressive": Rules(stack="same"),
    # the 7-0 rule alone (official Mattel house-rule card)
    "seven_o": Rules(seven_zero=True),
    # jump-in alone (official Mattel house-rule card)
    "jump_in": Rules(jump_in=True),
    # no idle turns: must play a playable card, a drawn playable card must be played
    "strict": Rules(no_draw_if_playable=True, force_play=True),
    # the house-rules sheet: multiple cards of the same number or symbol in one turn, with stacking
    "multi": Rules(multi_play=True, stack="same"),
    # the house-rules sheet: teams of two (4 players), winner's team scores the other team's cards
    "teams": Rules(teams=True),
    # every house rule at once on the 112-card deck (WX as a draw-one)
    "chaos": Rules(deck="classic112", stack="any", seven_zero=True, jump_in=True,
                   force_play=True, no_draw_if_playable=True, draw_until_playable=True,
                   multi_play=True, wx_rule="draw1"),
    # docs/rules.md 6 (the One Piece rule sheet): UNO One Piece, 110 cards, the sheet's challenge verdict
    "onepiece": Rules(deck="onepiece110", challenge="return"),
})


def rule_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Rules))


def presets() -> dict[str, dict]:
    """Every preset with its flags, e.g. ``presets()["classic"]["bluff"]``."""
    return {name: dataclasses.asdict(rules) for name, rules in PRESETS.items()}


def make_rules(preset: str = "classic", **overrides) -> Rules:
    """The preset's rules with ``overrides`` applied; clear errors for unknown names."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    return PRESETS[preset].replace(**overrides)


def check_num_players(num_players) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to "
                         f"{MAX_PLAYERS}, got {num_players!r}")
    return int(num_players)


def check_seat(seat, num_players: int, name: str = "seat") -> int:
    """A seat is an integer 0..num_players-1 (not a bool); ValueError naming the range."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
            or not 0 <= seat < num_players:
        raise ValueError(f"{name} must be a seat 0..{num_players - 1}, got {seat!r}")
    return int(seat)


def check_seed(seed) -> int:
    """Seeds are non-negative integers below 2**63 (None is left to the caller)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be a non-negative integer below 2**63, got {seed!r}")
    return int(seed)


def _choice(name, value, valid):
    if not isinstance(value, str) or value not in valid:
        raise ValueError(f"rule {name!r} must be one of {', '.join(map(repr, valid))}, "
                         f"got {value!r}")


def _int_range(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not lo <= value <= hi:
        raise ValueError(f"rule {name!r} must be an integer from {lo} to {hi}, got {value!r}")
