"""What one seat may see of a ``Game``: the public table plus that seat's own hand.

``seat_view(game, seat)`` builds a :class:`TableView`, a plain frozen record that the
terminal renderer (``uno_env.apps.play``) prints and tests compare with the ``Game``. It holds
nothing another player keeps hidden: other hands appear only as their sizes and, with
UNO Flip, as the faces they show to the table (docs/rules.md section 5: "Opponents see
the other side of every card in a hand"; the draw pile lies with the side not in play
up, so its top card shows that side). This is the information of the observation vector
(``uno_env/engine/observe.py``), in words.

Cards are :class:`Card` records: ``face`` is the side in play (what the holder plays),
``other`` the reverse side for Flip (None for single-sided decks), ``name`` the move
notation of docs/rules.md section 1 (light side first for Flip: ``"R5|P7"``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uno_env.rules.cards import COLOR_LETTERS, face_name

COLOR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "P": "pink",
               "T": "teal", "O": "orange", "V": "purple"}


@dataclass(frozen=True)
class Card:
    """One card as its holder sees it: ``face`` in play, ``other`` side (Flip only)."""

    face: str
    other: str | None
    name: str

    @property
    def color(self) -> str | None:
        """Colour letter of the face in play, None for a wild face."""
        return face_color(self.face)


@dataclass(frozen=True)
class SeatView:
    """What the table knows of one seat."""

    seat: int
    cards: int                       # hand size (public)
    backs: tuple[str, ...] = ()      # Flip: faces this hand shows to the others, sorted
    declared_uno: bool = False       # declared UNO and still holds one card
    catchable: bool = False          # may be caught for not declaring UNO
    #                                  (docs/rules.md section 2)
    score: int = 0                   # match total


@dataclass(frozen=True)
class TableView:
    """``seat``'s view of the table (see the module docstring)."""

    seat: int
    num_players: int
    preset: str
    flip: bool
    side: str                        # "light" or "dark" (always "light" without Flip)
    round: int
    turn: int
    current: int                     # seat that decides now
    phase: str                       # C.PHASE_NAMES
    direction: int                   # +1 or -1
    top: Card
    color: str | None                # colour letter in force, None if none yet
    pending_draw: int                # cards the decider draws by accepting (stack total)
    stacking: bool                   # stack rule on: the total grows by stacking
    multi_count: int                 # cards so far of a multi-card play (0 outside one)
    draw_pile: int                   # cards left in the draw pile
    draw_back: str | None            # Flip: the face the draw pile's top card shows
    hand: tuple[Card, ...]           # this seat's own cards, by face in play
    seats: tuple[SeatView, ...]      # every seat, in seat order (this one included)
    uno_called: int | None           # seat that declared UNO in the turn being played
    catchable: int | None            # seat that can be caught now
    jump_in_from: int | None         # jump-in window: whose card is open to jump in
    jump_in_resume: int | None       # ... and who decides next if nobody does
    hancock_from: int | None         # One Piece: Hancock player whose petrification
    #                                  may be broken (docs/rules.md section 6)
    match: bool                      # target_score > 0: scores carry over rounds
    target_score: int
    teams: bool
    over: bool
    truncated: bool
    round_over: bool                 # the last move ended a round (until the next move)
    round_winner: int | None
    round_points: tuple[int, ...]
    winner: int | None               # match winner (round winner with target_score=0)
    moves: tuple[str, ...] = field(default=())  # legal moves when this seat decides

    @property
    def deciding(self) -> bool:
        return not self.over and self.current == self.seat


def face_color(face: str) -> str | None:
    """Colour letter of a face name (``"P7" -> "P"``), None for a wild face."""
    return face[0] if face[:1] in COLOR_NAMES and face not in _WILD_NAMES else None


_WILD_NAMES = {"W", "W4", "W2", "WC", "WS", "WX", "SHK", "BBD", "ACE", "HAN"}


def _face_str(deck, f: int) -> str:
    return face_name(int(deck.face_color[f]), int(deck.face_rank[f]))


def _faces(game, t: int) -> tuple[int, int]:
    """Face ids of card type ``t``: (light, dark) of this match."""
    deck = game.config.deck
    light = int(deck.type_face[t, 0])
    if not deck.double_sided:
        return light, light
    return light, int(game.dark_faces[t])


def card(game, t: int, side: int | None = None) -> Card:
    """Card type ``t`` as seen by its holder on ``side`` (default: the side in play)."""
    deck = game.config.deck
    if side is None:
        side = int(game.side == "dark")
    light, dark = _faces(game, t)
    name = game.layout.card_name(int(t), game.dark_faces)
    if not deck.double_sided:
        return Card(_face_str(deck, light), None, name)
    up, down = (light, dark) if side == 0 else (dark, light)
    return Card(_face_str(deck, up), _face_str(deck, down), name)


def back_face(game, t: int) -> str:
    """Flip: the face card type ``t`` shows to the table (the side not in play)."""
    light, dark = _faces(game, t)
    return _face_str(game.config.deck, dark if game.side == "light" else light)


def _sort_key(c: Card):
    colour = c.color
    return (COLOR_LETTERS.index(colour) if colour else 8, c.face, c.other or "")


def _face_key(face: str):
    colour = face_color(face)
    return (COLOR_LETTERS.index(colour) if colour else 8, face)


def track_uno(game, declared: set[int]) -> set[int]:
    """Update ``declared`` (seats that have said "UNO" and still hold one card) after a
    move; call it after every move. A call is heard by everyone (docs/rules.md
    section 2)."""
    sizes = game.hand_sizes
    called = game.uno_called
    if called is not None:
        declared.add(called)
    for s in list(declared):
        if s != called and sizes[s] != 1:
            declared.discard(s)
    return declared


def seat_view(game, seat: int, declared: set[int] | frozenset = frozenset()) -> TableView:
    """``seat``'s view of ``game``; ``declared``: seats known to have declared UNO
    (kept by :func:`track_uno`; the engine remembers a call only for its turn)."""
    if not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat!r}")
    cfg = game.config
    flip = bool(cfg.deck.double_sided)
    current = game.current_player
    hands = [game.hand_counts(s) for s in range(game.num_players)]
    sizes, scores = game.hand_sizes, game.scores
    catchable = game.catchable
    uno_called = game.uno_called
    seats = []
    for s in range(game.num_players):
        backs = ()
        if flip and s != seat:
            backs = tuple(sorted((back_face(game, t) for t in np.flatnonzero(hands[s])
                                  for _ in range(hands[s][t])), key=_face_key))
        size = int(sizes[s])
        called = size == 1 and (s in declared or s == uno_called)
        seats.append(SeatView(s, size, backs, declared_uno=called,
                              catchable=catchable == s, score=int(scores[s])))
    own = tuple(sorted((card(game, t) for t in np.flatnonzero(hands[seat])
                        for _ in range(hands[seat][t])), key=_sort_key))
    n_draw = game.draw_pile_size
    draw_back = (back_face(game, int(game.draw_pile_types()[-1]))
                 if flip and n_draw else None)
    jump, resume = game.jump_in or (-1, -1)
    onepiece = cfg.variant == "onepiece"
    over = game.is_over
    rules = cfg.rules
    return TableView(
        seat=seat, num_players=game.num_players, preset=cfg.preset, flip=flip,
        side=game.side, round=game.round, turn=game.turns, current=current,
        phase=game.phase, direction=game.direction,
        top=card(game, game.top_type),
        color=game.color, pending_draw=game.pending_draw,
        stacking=rules.stack != "none", multi_count=game.multi_count,
        draw_pile=n_draw, draw_back=draw_back, hand=own, seats=tuple(seats),
        uno_called=uno_called, catchable=catchable,
        jump_in_from=jump if jump >= 0 and not onepiece else None,
        jump_in_resume=resume if jump >= 0 and not onepiece else None,
        hancock_from=jump if jump >= 0 and onepiece else None,
        match=rules.target_score > 0, target_score=rules.target_score, teams=rules.teams,
        over=over, truncated=game.truncated,
        round_over=game.round_just_ended, round_winner=game.round_winner,
        round_points=tuple(game.round_points), winner=game.winner,
        moves=_ordered(game.legal_moves(), game.side) if not over and current == seat
        else (),
    )


_NOT_A_CARD = ("draw", "pass", "challenge", "accept", "uno", "catch", "color", "swap",
               "give")


def _ordered(moves: list[str], side: str) -> tuple[str, ...]:
    """Card plays first, sorted by the face in play as the hand is (on Flip's dark side
    the engine's order is by light face); then the other moves in the engine's order."""
    def key(item):
        k, move = item
        if move.partition(":")[0] in _NOT_A_CARD:
            return (1, 0, "", "", k)
        up, down, _ = move_faces(move, side)
        return (0, *_face_key(up), down or "", k)
    return tuple(m for _, m in sorted(enumerate(moves), key=key))


def move_faces(move: str, side: str) -> tuple[str, str | None, str]:
    """Split a move string for display into (face in play, other side or None, rest):
    ``"W2|P1:B"`` on the dark side -> ``("P1", "W2", ":B")``, ``"W4:B"`` ->
    ``("W4", None, ":B")``; moves that play no card come back whole: ``"draw"`` ->
    ``("draw", None, "")``, ``"color:T"`` -> ``("color:T", None, "")``."""
    head, sep, tail = move.partition(":")
    if head in ("color", "swap", "give"):
        return move, None, ""
    if "|" not in head:
        return head, None, sep + tail
    light, _, dark = head.partition("|")
    up, down = (light, dark) if side == "light" else (dark, light)
    return up, down, sep + tail
