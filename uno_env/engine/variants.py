"""Every variant of the engine, declared once: one :class:`Variant` entry each.

A variant is a rule set the kernels compile on their own (``Rules.variant``): its
``Spec`` class (made here from its name), the engine module of its rules
(``engine/<module>.py``, with the entry names ``legal_mask``, ``apply_action`` and
``observe_fields``), the decks that select it, whether its cards are double-sided, and the
observation fields and action blocks it adds. Everything else derives its tables from
:data:`VARIANTS`: the jit's cache keys (``engine.jit``), the ``Spec`` classes
(``engine.state``), the dispatch to the variant's rules (``engine.dispatch``), the
observation (``engine.observe``), the action layout (``uno_env.rules.actions``) and
``Rules.variant``. ``tests/engine/test_variant_registry.py`` fails on an incomplete entry;
docs/adding-a-variant.md is the checklist.

Pure data: this module imports nothing of the engine, so every layer may read it.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

#: The read-only tables of one configuration (``uno_env.rules.config``): deck faces and
#: types (``uno_env.rules.cards``), action slots per type (``uno_env.rules.actions``),
#: the compiled ``rules`` and ``layout`` slot arrays, ``obs_at`` (first index of each
#: observation field ``O_*``, -1 if absent), ``ace_slot_type`` (One Piece: the action
#: type of each ``ACE+X`` slot), ``rank_type`` (first type of each rank, -1) and
#: ``luffy_type`` (the ``1`` of each colour, -1). Every variant's ``Spec`` class has
#: these fields: the class is how the kernels are specialised (``engine.jit.by_spec``),
#: so each variant compiles its own code only.
#: ``match_types[colour, rank]`` lists, by their light faces, the non-wild types that
#: match a pile of that colour in force and rank, in action-id order, and
#: ``wild_types`` the wilds (``-1`` after the last): the legal moves are gathered from
#: them (``plays.set_hand_plays``). ``match_bits[colour, rank]``: the same row as a
#: set of types (bit ``t``; decks of at most 64 types, zeros otherwise).
#: A field costs nothing per call: the kernels receive a Spec by reference
#: (``state.as_record``).
SPEC_FIELDS = ("face_color", "face_rank", "face_points", "type_face", "type_count",
               "type_play_slot", "type_wild_slot", "play_slot_type", "wild_slot_type",
               "rules", "layout", "obs_at", "ace_slot_type", "rank_type", "luffy_type",
               "match_types", "match_bits", "wild_types", "type_ace_slot", "deck_tallies")


@dataclass(frozen=True)
class Variant:
    """One variant: the single place that names it."""

    #: ``Rules.variant``, the cache directory's prefix and the entry points' key
    name: str
    #: the engine module of its rules: ``uno_env/engine/<module>.py``
    module: str
    #: the decks (``uno_env.rules.cards.DECKS``) whose games compile this variant
    decks: tuple[str, ...]
    #: docs/rules.md section of its rules
    section: str
    #: a preset that compiles it (``uno-bench warmup`` compiles the variant through it)
    preset: str
    #: cards with two faces (UNO Flip): per-match dark faces, the side in play
    double_sided: bool = False
    #: observation fields it adds (``engine/observe.py``; ``codes.OBS_FIELDS``)
    obs_fields: tuple[str, ...] = ()
    #: action blocks it adds (``uno_env.rules.actions``): "ace" (ACE+X), "give" (give:X)
    action_blocks: tuple[str, ...] = ()
    #: its own counters (``codes.COUNTERS`` names) that ``Game.stats`` reports
    stats: tuple[str, ...] = ()
    #: its ``Spec`` class (made from ``name``; the by-spec kernels register on it)
    spec_class: type = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        class_name = "".join(part.title() for part in self.name.split("_")) + "Spec"
        object.__setattr__(self, "spec_class", namedtuple(class_name, SPEC_FIELDS))


#: every variant; the first is the default rule set of a deck with no house rule
VARIANTS = (
    Variant("classic", "classic", decks=("classic108",), section="2", preset="classic"),
    # any house rule (docs/rules.md 3) on the classic deck also compiles this variant
    # (``Rules.variant``), as does the 112-card deck's WS and WX (section 4)
    Variant("house", "house", decks=("classic112",), section="3, 4", preset="street"),
    Variant("flip", "flip", decks=("flip",), section="5", preset="flip", double_sided=True,
            obs_fields=("hand_dark", "opponent_backs", "draw_back", "top_other",
                        "played_dark")),
    Variant("onepiece", "onepiece", decks=("onepiece110",), section="6", preset="onepiece",
            obs_fields=("hancock",), action_blocks=("ace", "give"),
            stats=("petrifications", "breaks", "ace_combos", "gives")),
)

#: name -> variant
BY_NAME = {v.name: v for v in VARIANTS}
#: deck name -> the variant its games compile when no house rule is on
BY_DECK = {deck: v for v in VARIANTS for deck in v.decks}
#: the variant any house rule on the classic deck compiles (docs/rules.md 3)
HOUSE = "house"
#: Spec classes of the variants whose cards show one fixed face, and of the
#: double-sided ones (the by-spec kernels of faces, tallies, piles ... register on these)
# each Spec class a module attribute under its own name, where pickle (numba's cache
# index) looks for it
for _variant in VARIANTS:
    _variant.spec_class.__module__ = __name__
    globals()[_variant.spec_class.__name__] = _variant.spec_class
SINGLE_SIDED = tuple(v.spec_class for v in VARIANTS if not v.double_sided)
DOUBLE_SIDED = tuple(v.spec_class for v in VARIANTS if v.double_sided)
