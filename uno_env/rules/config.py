"""One configuration = (preset, rules, number of players): its deck, action layout and
the ``Spec`` tables the kernels read. Built once per configuration and cached."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

import gymnasium
import numpy as np

from uno_env.rules.actions import ActionLayout, build_layout
from uno_env.rules.cards import Deck, make_deck
from uno_env.engine import codes as C
from uno_env.engine.obs_layout import (
    field_offsets, observation_slices, record_observation_size, record_offsets)
from uno_env.engine.state import SPEC_CLASSES
from uno_env.rules import Rules, check_num_players, make_rules

#: ranks that go back into the draw pile when turned up first (docs/rules.md 2.3, 4, 5,
#: 6; ``engine.faces.is_first_card_redo``)
FIRST_CARD_REDO = (C.WILD4, C.WILD_SHUFFLE, C.WILD_CUSTOM, C.WILD2, C.FLIP, C.BLACKBEARD,
                   C.ACE, C.HANCOCK)


@dataclass(frozen=True)
class Config:
    preset: str
    num_players: int
    rules: Rules
    deck: Deck = field(repr=False)
    layout: ActionLayout = field(repr=False)
    spec: tuple = field(repr=False)

    @property
    def variant(self) -> str:
        """The rule set compiled for this configuration (``Rules.variant``)."""
        return self.rules.variant

    def rule_overrides(self) -> dict:
        """The rule flags that differ from the preset's (``make_config(preset, P,
        **overrides)`` rebuilds this configuration)."""
        from uno_env.rules import PRESETS
        base = PRESETS[self.preset]
        return {f.name: getattr(self.rules, f.name) for f in fields(self.rules)
                if getattr(self.rules, f.name) != getattr(base, f.name)}

    @property
    def action_space(self) -> gymnasium.spaces.Discrete:
        return gymnasium.spaces.Discrete(self.layout.size)

    @property
    def observation_space(self) -> gymnasium.spaces.Box:
        # every entry counts cards (at most the deck) except the match scores, which stay
        # below the target plus one round's worth of points
        deck = self.deck
        high = np.full(self.layout.obs_size, float(deck.num_cards), np.float32)
        points = int((deck.face_points[deck.type_face].max(axis=1) * deck.type_count).sum())
        high[observation_slices(deck.num_types, self.num_players)["scores"]] = \
            self.rules.target_score + points
        return gymnasium.spaces.Box(np.float32(0.0), high, (self.layout.obs_size,),
                                    np.float32)

    # --- the public record (``public_record=True``; docs/environments.md) ---------------
    def check_public_record(self, public_record) -> bool:
        """``public_record`` as a bool; ValueError for a non-bool, or for a deck whose
        cards change colour with the side in play (UNO Flip), which has no record."""
        if not isinstance(public_record, (bool, np.bool_)):
            raise ValueError(f"public_record must be True or False, got {public_record!r}")
        if public_record and self.deck.double_sided:
            raise ValueError(f"public_record is not available for the {self.deck.name!r} "
                             f"deck (a card's colour and rank change with the side in "
                             f"play); it is for the single-sided decks: presets classic, "
                             f"street, party, onepiece ...")
        return bool(public_record)

    def observation_size(self, public_record: bool = False) -> int:
        """The observation's length: ``layout.obs_size``, with the public record after
        it when ``public_record`` (``obs_layout.record_slices``)."""
        if not public_record:
            return self.layout.obs_size
        return record_observation_size(self.deck.num_types, self.num_players, self.rules)

    def record_offsets(self) -> np.ndarray:
        """``PublicRecord.at`` for this configuration."""
        return record_offsets(self.deck.num_types, self.num_players, self.rules)

    def observation_space_with(self, public_record: bool = False) -> gymnasium.spaces.Box:
        """``observation_space``, or with ``public_record`` the longer space of an
        observation with the record (its counts bounded by int16's range)."""
        space = self.observation_space
        if not public_record:
            return space
        n = self.observation_size(True)
        high = np.full(n, float(np.iinfo(np.int16).max), np.float32)
        high[:self.layout.obs_size] = space.high
        return gymnasium.spaces.Box(np.float32(0.0), high, (n,), np.float32)


def make_config(preset: str = "classic", num_players: int = 4, **overrides) -> Config:
    """Validate and build (cached) the configuration; clear ValueErrors for bad input."""
    num_players = check_num_players(num_players)
    rules = make_rules(preset, **overrides)
    return _build(preset, num_players, rules)


def candidate_tables(color, rank, play_slot) -> dict:
    """The Spec's ``match_types``, ``match_bits`` and ``wild_types`` of a deck whose type ``t`` shows
    ``color[t]`` and ``rank[t]`` (its light face) and is played by action slot
    ``play_slot[t]``. A card matches the pile by colour, by rank or as a wild
    (docs/rules.md 2), so a hand's legal plays are among one row
    ``match_types[colour in force, pile rank]`` (the non-wild types of that colour or
    rank, in action-id order: a wild pile's rank matches none) and the wilds
    (ascending); each row is ended by -1."""
    wild = rank >= C.FIRST_WILD_RANK
    groups = [[sorted(np.flatnonzero(~wild & ((color == c) | (rank == r))).tolist(),
                      key=lambda t: play_slot[t])
               for r in range(C.NUM_RANKS)] for c in range(C.NO_COLOR + 1)]
    width = max(len(x) for row in groups for x in row) + 1
    # official_random_play marks a row's held types in one uint64
    assert width <= 64, "a match row longer than 64 types"
    match = np.full((C.NO_COLOR + 1, C.NUM_RANKS, width), -1, np.int32)
    for c, row in enumerate(groups):
        for r, x in enumerate(row):
            match[c, r, :len(x)] = x
    wilds = np.full(int(wild.sum()) + 1, -1, np.int32)
    wilds[:-1] = np.flatnonzero(wild)
    # the same rows as sets of types, bit t for type t (decks of at most 64 types; the
    # classic variant's random play counts a hand's candidates with them): in type
    # order, which must then be action-id order
    bits = np.zeros((C.NO_COLOR + 1, C.NUM_RANKS), np.uint64)
    if len(color) <= 64:
        for c, row in enumerate(groups):
            for r, x in enumerate(row):
                assert x == sorted(x), "play slots out of type order"
                for t in x:
                    bits[c, r] |= np.uint64(1) << np.uint64(t)
    return {"match_types": match, "wild_types": wilds, "match_bits": bits}


def deck_tallies(color, rank, count) -> np.ndarray:
    """The Spec's ``deck_tallies``: the deck's cards per colour slot (wild faces in the
    fifth) and per rank, by the types' light faces (``engine/tallies.py``)."""
    out = np.zeros(C.NUM_TALLIES, np.int32)
    np.add.at(out, C.T_SLOT + np.where(color < C.NO_COLOR, color % 4, 4), count)
    np.add.at(out, C.T_RANK + rank, count)
    if out.max() > 127:
        raise ValueError(f"a deck with {int(out.max())} cards of one colour or rank: the "
                         f"state counts them as int8 (at most 127)")
    return out


@lru_cache(maxsize=64)
def _build(preset: str, num_players: int, rules: Rules) -> Config:
    deck = make_deck(rules.deck, *rules.deck_counts, **rules.deck_options)
    # the full decks keep a draw pile of 20; a small deck (docs/rules.md 8) a fifth
    spare = min(20, deck.num_cards // 5)
    if rules.hand_size * num_players > deck.num_cards - spare:
        raise ValueError(f"{num_players} hands of {rules.hand_size} cards do not leave a "
                         f"draw pile in a {deck.num_cards}-card deck; lower hand_size")
    redo = np.isin(deck.face_rank[deck.type_face[:, 0]], FIRST_CARD_REDO)
    startable = int(deck.type_count[~redo].sum())
    if rules.hand_size * num_players >= startable:
        raise ValueError(f"{num_players} hands of {rules.hand_size} cards may leave no "
                         f"card that can start the discard pile (docs/rules.md 2.3) in "
                         f"the {deck.name} deck ({startable} such cards); lower "
                         f"hand_size or add cards")
    layout = build_layout(deck, rules, num_players)
    if rules.variant == "classic" and deck.num_types > 64:  # its random play: match_bits
        raise ValueError(f"the {deck.name} deck has {deck.num_types} card types; the "
                         f"classic variant plays decks of at most 64")
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731
    light_rank = deck.face_rank[deck.type_face[:, 0]]
    light_color = deck.face_color[deck.type_face[:, 0]]
    rank_type = np.full(C.NUM_RANKS, -1, np.int32)
    for t in range(deck.num_types)[::-1]:
        rank_type[light_rank[t]] = t
    luffy_type = np.full(C.NO_COLOR + 1, -1, np.int32)  # the 1 of each colour (One Piece)
    for t in range(deck.num_types)[::-1]:
        if light_rank[t] == 1:
            luffy_type[light_color[t]] = t
    ace_slots = layout.ace_slot_type if layout.ace_slot_type is not None else []
    type_ace_slot = np.full(deck.num_types, -1, np.int32)
    type_ace_slot[np.asarray(ace_slots, np.int64)] = np.arange(len(ace_slots))
    spec = SPEC_CLASSES[rules.variant](
        face_color=i32(deck.face_color), face_rank=i32(deck.face_rank),
        face_points=i32(deck.face_points), type_face=i32(deck.type_face),
        type_count=i32(deck.type_count), type_play_slot=i32(layout.type_play_slot),
        type_wild_slot=i32(layout.type_wild_slot), play_slot_type=i32(layout.play_slot_type),
        wild_slot_type=i32(layout.wild_slot_type), rules=rules.compile(num_players),
        layout=layout.as_array(),
        obs_at=field_offsets(deck.num_types, num_players, rules),
        ace_slot_type=i32(ace_slots), rank_type=rank_type, luffy_type=luffy_type,
        **candidate_tables(light_color, light_rank, layout.type_play_slot),
        type_ace_slot=type_ace_slot,
        deck_tallies=deck_tallies(light_color, light_rank, deck.type_count),
    )
    for a in spec:
        a.setflags(write=False)
    return Config(preset, num_players, rules, deck, layout, spec)
