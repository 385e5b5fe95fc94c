"""The rules record: every rule option of docs/rules.md as one frozen dataclass, named presets
of it, validation with clear errors, and compilation to the ``int32`` array the kernels
read (slots ``R_*`` in :mod:`uno_env.engine.codes`).

A preset is just a named :class:`Rules`; keyword arguments override its fields::

    rules = make_rules("classic", bluff=False, target_score=500)

Each rule flag is declared once, as a field of :class:`Rules` made by :func:`flag`: its
default, the values it takes, the variants whose decks accept it, the slot and codes the
kernels read, its docs/rules.md section and a one-line doc. Validation
(:meth:`Rules.validate`), compilation (:meth:`Rules.compile`), ``Rules.variant``, the
command line's ``--rule`` help and the flag table of docs/rules.md
(:func:`flag_table`, checked by ``tests/rules/test_flags.py``) all read those fields.
The engine's side of a flag is its slot constant ``R_*`` in ``engine/codes.py``.

The house rules of docs/rules.md sections 3 and 4 combine freely; their kernels are in
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
from uno_env.engine.variants import BY_DECK, BY_NAME, HOUSE

MIN_PLAYERS, MAX_PLAYERS = 2, C.MAX_PLAYERS
#: the base variants of the classic decks (docs/rules.md 2-4), where house rules apply
CLASSIC_DECKS = ("classic", "house")


@dataclass(frozen=True)
class Flag:
    """What :class:`Rules` knows of one flag (``dataclasses.fields(Rules)[i].metadata``)."""

    #: one line for the docs and the command line's help
    doc: str
    #: docs/rules.md sections, e.g. ("2.5",)
    sections: tuple[str, ...]
    #: slot ``R_*`` of the compiled rules array; None: not compiled (read when building)
    slot: int | None = None
    #: a choice flag's values, and the engine code of each (default: their index)
    values: tuple = ()
    codes: tuple = ()
    #: an integer flag's range
    low: int | None = None
    high: int | None = None
    #: base variants (``engine.variants``) whose decks accept a value other than the
    #: default; None: every deck
    variants: tuple[str, ...] | None = None
    #: a value other than the default compiles the house kernels (``Rules.variant``)
    house: bool = False
    #: how the docs table shows the values, when it is not the list of values
    values_doc: str = ""

    def encode(self, value) -> int:
        """The value as the kernels read it in slot ``slot``."""
        if self.values:
            index = self.values.index(value)
            return self.codes[index] if self.codes else index
        return int(value)


def flag(default, doc: str, *sections: str, **spec):
    """A field of :class:`Rules` with its :class:`Flag` (the one declaration of a flag)."""
    return dataclasses.field(default=default, metadata={"flag": Flag(doc, sections, **spec)})


@dataclass(frozen=True)
class Rules:
    """All rule options. Defaults are the official classic rules (docs/rules.md section 2)."""

    deck: str = flag("classic108", "the deck, set by the presets", "2", "4", "5", "6",
                     values_doc="`\"classic108\"`, `\"classic112\"`, `\"flip\"`, "
                                "`\"onepiece110\"` (set by the presets)")
    hand_size: int = flag(7, "cards dealt to each player", "2.1", slot=C.R_HAND_SIZE,
                          low=1, high=20)
    bluff: bool = flag(True, "allow an illegal Wild Draw Four (and its challenge); False "
                       "masks it", "2.5", slot=C.R_BLUFF)
    uno_call: bool = flag(True, "explicit `uno` calls and `catch`; False makes the call "
                          "implicit", "2.8", slot=C.R_UNO_CALL)
    scoring: str = flag("winner", "\"winner\" scores the others' cards, \"penalty\" each "
                        "their own, \"elimination\" the One Piece sheet's", "2.11", "6.5",
                        slot=C.R_SCORING, values=("winner", "penalty", "elimination"),
                        codes=(C.SCORING_WINNER, C.SCORING_PENALTY, C.SCORING_ELIMINATION),
                        values_doc="`\"winner\"`, `\"penalty\"`, `\"elimination\"` "
                                   "(One Piece)")
    target_score: int = flag(0, "match length in points; 0 = a single round (the RL "
                             "default)", "2.11", slot=C.R_TARGET_SCORE, low=0,
                             high=1_000_000,
                             values_doc="0 (one round) or the match length in points")
    max_turns: int = flag(1000, "a round ends by truncation after this many turns",
                          "2.13", slot=C.R_MAX_TURNS, low=1, high=1_000_000_000,
                          values_doc="1 or more")
    dealer: int = flag(0, "seat that deals the first round (play starts at dealer + 1)",
                       "2.2", slot=C.R_DEALER, low=0, high=MAX_PLAYERS - 1,
                       values_doc="a seat")
    reward: str = flag("win", "\"win\" (+1 / -1/(N-1), zero-sum) or \"score\" (round "
                       "points)", "7", slot=C.R_REWARD, values=("win", "score"),
                       codes=(C.REWARD_WIN, C.REWARD_SCORE))
    settle_cut: bool = flag(False, "a round cut by max_turns pays each seat by its "
                            "standing, zero-sum (fewest cards share the win; \"score\": "
                            "the points in hand), instead of nothing", "7",
                            slot=C.R_SETTLE_CUT)
    # --- house rules (docs/rules.md 3) ---
    teams: bool = flag(False, "teams of two, seats 0+2 against 1+3 (4 players)", "2.12",
                       slot=C.R_TEAMS, values_doc="`True` with 4 players")
    stack: str = flag("none", "answer a draw card with another and pass the total on",
                      "3.1", slot=C.R_STACK, values=("none", "same", "any"),
                      codes=(C.STACK_NONE, C.STACK_SAME, C.STACK_ANY),
                      variants=CLASSIC_DECKS, house=True)
    seven_zero: bool = flag(False, "a 7 swaps hands with a chosen player, a 0 passes "
                            "every hand on", "3.2", slot=C.R_SEVEN_ZERO,
                            variants=CLASSIC_DECKS, house=True)
    jump_in: bool = flag(False, "play an identical card out of turn", "3.3",
                         slot=C.R_JUMP_IN, variants=CLASSIC_DECKS, house=True)
    force_play: bool = flag(False, "a drawn playable card must be played", "3.4",
                            slot=C.R_FORCE_PLAY, variants=CLASSIC_DECKS + ("onepiece",),
                            house=True)
    no_draw_if_playable: bool = flag(False, "no drawing while holding a playable card",
                                     "3.4", slot=C.R_NO_DRAW_IF_PLAYABLE,
                                     variants=CLASSIC_DECKS + ("onepiece",), house=True)
    draw_until_playable: bool = flag(False, "draw until a card can be played", "3.5",
                                     slot=C.R_DRAW_UNTIL_PLAYABLE, variants=CLASSIC_DECKS,
                                     house=True)
    multi_play: bool = flag(False, "several cards of one number or symbol in one turn",
                            "3.6", slot=C.R_MULTI_PLAY, variants=CLASSIC_DECKS,
                            house=True)
    # --- classic112 (docs/rules.md 4) ---
    wx_rule: str = flag("wild", "what the Wild Customizable does", "4",
                        slot=C.R_WX_RULE, values=("wild", "draw1", "swap"),
                        codes=(C.WX_WILD, C.WX_DRAW1, C.WX_SWAP), variants=(HOUSE,),
                        values_doc="`\"wild\"`, `\"draw1\"`, `\"swap\"` (`classic112`)")
    ws_last_card_wins: bool = flag(False, "a Wild Shuffle Hands played as the last card "
                                   "wins", "4", slot=C.R_WS_LAST_CARD_WINS,
                                   variants=(HOUSE,),
                                   values_doc="`True`, `False` (`classic112`)")
    # --- UNO One Piece (docs/rules.md 6; only with deck="onepiece110") ---
    onepiece_cards: tuple = flag((2, 2, 1, 1), "copies of SHK, BBD, ACE, HAN (SHK and "
                                 "BBD replace W and W4 cards)", "6.1",
                                 variants=("onepiece",),
                                 values_doc="copies of `SHK`, `BBD`, `ACE`, `HAN`")
    challenge: str = flag("classic", "a guilty W4: \"classic\" (it stays, its player "
                          "draws 4) or \"return\" (the One Piece sheet: back to the hand)",
                          "6.3", slot=C.R_OP_CHALLENGE, values=("classic", "return"),
                          codes=(C.CHALLENGE_CLASSIC, C.CHALLENGE_RETURN),
                          variants=("onepiece",),
                          values_doc="`\"classic\"`, `\"return\"` (One Piece)")
    shanks_give: str = flag("all", "Shanks gives a card with \"all\" player counts or "
                            "\"two_players\" only (the sheet's text)", "6.2",
                            slot=C.R_OP_SHANKS_GIVE, values=("all", "two_players"),
                            codes=(1, 0), variants=("onepiece",),
                            values_doc="`\"all\"`, `\"two_players\"` (One Piece)")
    bbd_challenge: bool = flag(False, "Blackbeard restricted and challengeable like a W4 "
                               "(the project's reading: a plain draw 2 and skip)", "6.2",
                               slot=C.R_OP_BBD_CHALLENGE, variants=("onepiece",),
                               values_doc="`True`, `False` (One Piece)")
    # --- small decks (docs/rules.md 8; the classic deck only, read when building it) ---
    colors: int = flag(4, "colours of the coloured cards: the first of R, Y, G, B", "8",
                       low=1, high=4, variants=("classic",))
    numbers: int = flag(10, "number cards per colour: 0 to numbers-1", "8", low=0,
                        high=10, variants=("classic",))
    copies: int = flag(2, "copies of each coloured card but the 0 (one per colour)", "8",
                       low=1, high=2, variants=("classic",))
    action_cards: str = flag("S/R/D2", "the action cards of each colour", "8",
                             variants=("classic",),
                             values_doc="any of `S`, `R`, `D2` joined by `/`, or `\"\"`")
    wilds: int = flag(4, "copies of W", "8", low=0, high=4, variants=("classic",))
    wild_draw_fours: int = flag(4, "copies of W4", "8", low=0, high=4,
                                variants=("classic",))

    def replace(self, /, **changes) -> "Rules":
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
        for name, spec in FLAGS.items():
            value = getattr(self, name)
            if spec.values:
                _choice(name, value, spec.values)
            elif isinstance(_DEFAULT_VALUES[name], bool):
                if not isinstance(value, (bool, np.bool_)):
                    raise ValueError(f"rule flag {name!r} must be True or False, "
                                     f"got {value!r}")
            elif spec.low is not None:
                _int_range(name, value, spec.low, spec.high)
        _check_onepiece_cards(self.onepiece_cards)
        self._validate_variants()
        if self.deck == "classic108":
            from uno_env.rules.cards import classic_deck
            classic_deck(**self.deck_options)  # raises on a bad or empty small deck
        if self.teams and self.scoring != "winner":
            raise ValueError("teams=True scores the winning team (scoring='winner'); "
                             "scoring='penalty' has no team reading in docs/rules.md")
        if self.deck == "onepiece110":
            from uno_env.rules.cards import onepiece_deck
            onepiece_deck(*map(int, self.onepiece_cards))  # raises on bad counts
        if self.scoring == "elimination":
            if BY_DECK[self.deck].name != "onepiece":
                raise ValueError("scoring='elimination' applies to the One Piece deck "
                                 "only; use preset 'onepiece' or deck='onepiece110'")
            if self.teams or self.target_score == 0 or self.reward != "win":
                raise ValueError("scoring='elimination' needs target_score > 0 (the "
                                 "elimination total, 500 on the sheet), reward='win' "
                                 "and teams=False")

    def _validate_variants(self) -> None:
        """A flag away from its default needs a deck of a variant that accepts it."""
        base = BY_DECK[self.deck]
        refused = [name for name, spec in FLAGS.items()
                   if spec.variants is not None and base.name not in spec.variants
                   and getattr(self, name) != _DEFAULT_VALUES[name]]
        if not refused:
            return
        accepted = sorted({v for name in refused for v in FLAGS[name].variants})
        decks = [d for v in accepted for d in BY_NAME[v].decks]
        allowed = [name for name, spec in FLAGS.items()
                   if spec.variants is not None and base.name in spec.variants]
        raise ValueError(
            f"rule flag(s) {', '.join(refused)} are not supported with the {self.deck!r} "
            f"deck (docs/rules.md {BY_NAME[base.name].section}); they apply to the "
            f"deck(s) {', '.join(map(repr, decks))} (a preset sets the deck: "
            f"{', '.join(repr(p) for p, r in PRESETS.items() if r.deck in decks)}). "
            f"Flags of that kind the {self.deck!r} deck takes: "
            f"{', '.join(allowed) or 'none'}")

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
        for name, spec in FLAGS.items():
            if spec.slot is not None:
                out[spec.slot] = spec.encode(getattr(self, name))
        return out

    @property
    def variant(self) -> str:
        """The rule set the kernels compile for this record (``uno_env.engine.variants``):
        the variant of its deck, or "house" for a classic deck with any house rule on.
        Each variant is compiled and cached on its own."""
        base = BY_DECK[self.deck].name
        if base in CLASSIC_DECKS and self.uses_house_kernels:
            return HOUSE
        return base

    @property
    def deck_counts(self) -> tuple:
        """The copies of the deck's special cards that the rules set (``make_deck``'s
        counts): One Piece's ``onepiece_cards``, else none."""
        return self.onepiece_cards if self.deck == "onepiece110" else ()

    @property
    def deck_options(self) -> dict:
        """The small-deck flags (docs/rules.md 8) as ``make_deck``'s keywords: the
        classic deck's, else none (their defaults build the full 108 cards)."""
        if self.deck != "classic108":
            return {}
        return {name: getattr(self, name) for name in SMALL_DECK_FLAGS}

    @property
    def small_deck(self) -> bool:
        """True when a small-deck flag (docs/rules.md 8) differs from its default."""
        return any(getattr(self, n) != _DEFAULT_VALUES[n] for n in SMALL_DECK_FLAGS)

    @property
    def uses_house_kernels(self) -> bool:
        """True when a rule needs ``engine/house.py`` (``teams`` alone only changes
        scoring, which the classic kernels do)."""
        return BY_DECK[self.deck].name == HOUSE or any(
            getattr(self, name) != _DEFAULT_VALUES[name]
            for name, spec in FLAGS.items() if spec.house)


#: the flags that build a small deck (docs/rules.md 8)
SMALL_DECK_FLAGS = ("colors", "numbers", "copies", "action_cards", "wilds",
                    "wild_draw_fours")
#: flag name -> its declaration, in the order of the fields of ``Rules``
FLAGS: Mapping[str, Flag] = MappingProxyType(
    {f.name: f.metadata["flag"] for f in dataclasses.fields(Rules)})
_DEFAULT_VALUES = {f.name: f.default for f in dataclasses.fields(Rules)}
#: decks holding WS and WX cards (docs/rules.md 4)
DECKS_WITH_WS_WX = BY_NAME[HOUSE].decks
#: house rules the One Piece kernels (engine/onepiece.py) do not implement
ONEPIECE_UNSUPPORTED = tuple(name for name, spec in FLAGS.items() if spec.house
                             and "onepiece" not in spec.variants)
#: double-sided decks (docs/rules.md 5): the kernels of ``engine/flip.py``
DOUBLE_SIDED_DECKS = tuple(deck for deck, v in BY_DECK.items() if v.double_sided)


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


def flag_table(anchors: Mapping[str, str] | None = None) -> str:
    """The Markdown table of every flag (docs/rules.md, "Rule flags at a glance"):
    name, default, values, sections; ``anchors`` maps a section number to its heading's
    anchor (``tests/rules/test_flags.py`` reads them from the page)."""
    anchors = anchors or {}

    def show(value):
        return f"`{value!r}`".replace("'", '"') if isinstance(value, (str, bool, tuple)) \
            else str(value)

    lines = ["| flag | default | values | section |", "|---|---|---|---|"]
    for name, spec in FLAGS.items():
        default = show(_DEFAULT_VALUES[name])
        changed = [p for p, r in PRESETS.items()
                   if getattr(r, name) != _DEFAULT_VALUES[name] and name != "deck"
                   and BY_DECK[r.deck].name in (spec.variants or ())
                   and all(getattr(r, n) == _DEFAULT_VALUES[n] for n in FLAGS
                           if n not in ("deck", name))]
        if changed:
            default += " (" + ", ".join(f"{show(getattr(PRESETS[p], name))} in `{p}`"
                                        for p in changed) + ")"
        if spec.values_doc:
            values = spec.values_doc
        elif spec.values:
            values = ", ".join(show(v) for v in spec.values)
        elif isinstance(_DEFAULT_VALUES[name], bool):
            values = "`True`, `False`"
        else:
            values = f"{spec.low} to {spec.high}"
        sections = ", ".join(f"[{s}](#{anchors[s]})" if s in anchors else s
                             for s in spec.sections)
        lines.append(f"| `{name}` | {default} | {values} | {sections} |")
    return "\n".join(lines) + "\n"


def _check_onepiece_cards(cards) -> None:
    # checked first, whatever the deck: comparing a numpy value with the default
    # tuple would be element-wise
    if not isinstance(cards, tuple) or len(cards) != 4 or any(
            isinstance(n, bool) or not isinstance(n, (int, np.integer)) for n in cards):
        raise ValueError(f"onepiece_cards must be a tuple of four integers (copies of "
                         f"SHK, BBD, ACE, HAN), got {cards!r}")
