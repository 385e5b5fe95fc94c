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


# --- what happened, in words --------------------------------------------------------------
RANK_WORDS = {"S": "Skip", "R": "Reverse", "D2": "Draw Two", "D1": "Draw One",
              "D5": "Draw Five", "SE": "Skip Everyone", "F": "Flip"}
WILD_WORDS = {"W": "Wild", "W4": "Wild Draw Four", "W2": "Wild Draw Two",
              "WC": "Wild Draw Colour", "WS": "Wild Shuffle Hands",
              "WX": "Wild Customizable", "SHK": "Shanks", "BBD": "Blackbeard",
              "ACE": "Fire Fist Ace", "HAN": "Hancock"}


def face_words(face: str) -> str:
    """A face in words: ``"R5"`` -> ``"Red 5"``, ``"GD2"`` -> ``"Green Draw Two"``,
    ``"W4"`` -> ``"Wild Draw Four"``, ``"SHK"`` -> ``"Shanks"``."""
    if face in WILD_WORDS:
        return WILD_WORDS[face]
    colour = face_color(face)
    if colour is None:
        return face
    rank = face[1:]
    return f"{COLOR_NAMES[colour].capitalize()} {RANK_WORDS.get(rank, rank)}"


def snapshot(game) -> dict:
    """The public facts of ``game`` that :func:`narrate` compares before and after a
    move (``Game``'s public API only)."""
    over = game.is_over
    snap = {"sizes": game.hand_sizes, "round": game.round, "over": over,
            "side": game.side, "top": game.top, "direction": game.direction,
            "stats": game.stats, "pending": game.pending_draw,
            "catchable": game.catchable, "current": None if over else game.current_player,
            "players": game.num_players, "variant": game.config.variant,
            "round_winner": game.round_winner, "round_points": game.round_points,
            "truncated": game.truncated, "winner": game.winner, "wild_draw": None}
    if not over and (game.phase == "challenge" or game.pending_draw):
        # whose wild draw card may be challenged (with stacking, in the stack phase)
        for seat, move in reversed(game.history):
            if move.partition(":")[0] not in _NOT_A_CARD:
                snap["wild_draw"] = (seat, move)
                break
    return snap


_STAT_WORDS = (("reshuffles", "the discards are shuffled into a new draw pile"),
               ("jump_ins", "a jump-in"), ("stacked", "the draw is stacked"),
               ("petrifications", "everyone else is petrified"),
               ("breaks", "the petrification is broken"), ("ace_combos", None))


def narrate(before: dict, after: dict, seat: int, move: str, viewer: int | None = None,
            names=None, ends: bool = True) -> list[str]:
    """What ``seat``'s ``move`` did, in sentences: the move first, then what followed
    (draws, a challenge's verdict and penalty, a flip, the end of a round).
    ``before``/``after``: :func:`snapshot` of the game around the move; ``viewer``: the
    seat called "you"; ``names``: what to call the others (default ``"seat N"``);
    ``ends=False`` leaves out the flip and the end of a round (said elsewhere)."""
    def who(s):
        if s == viewer:
            return "you"
        return names[s] if names is not None else f"seat {s}"

    def verb(s, word, third=None):
        return f"{who(s)} {word if s == viewer else third or word + 's'}"

    def whose(s):
        return "your" if s == viewer else f"{who(s)}'s"

    side = before["side"]
    sizes0, sizes1 = before["sizes"], after["sizes"]
    grew = {s: sizes1[s] - sizes0[s] for s in range(len(sizes0))
            if sizes1[s] > sizes0[s]}
    said, told = [], set()     # sentences; seats whose draws are already said
    head, _, arg = move.partition(":")
    exchanged = after["stats"].get("exchanges", 0) > before["stats"].get("exchanges", 0)

    def cards(n):
        return f"{n} card{'' if n == 1 else 's'}"

    if move == "challenge":
        owner, card = before["wild_draw"] or (None, "W4")
        face = face_words(move_faces(card, side)[0].partition("+")[0])
        won = after["stats"]["challenges_won"] > before["stats"]["challenges_won"]
        target = f"{whose(owner)} {face}" if owner is not None else f"the {face}"
        loser = owner if won else seat
        if loser is None:          # (the card's owner is not known: the one who drew)
            loser = next(iter(grew), seat)
        n = grew.get(loser, 0)
        back = won and before["variant"] == "onepiece"
        penalty = (f"{verb(loser, 'take')} it back and {'draw' if loser == viewer else 'draws'}"
                   f" {max(0, n - 1)}" if back else f"{verb(loser, 'draw')} {n}")
        said.append(f"{verb(seat, 'challenge')} {target}: "
                    f"{'it was a bluff' if won else 'it was legal'}, {penalty}")
        told.add(loser)
    elif move == "accept":
        said.append(f"{verb(seat, 'accept')} and {'draw' if seat == viewer else 'draws'} "
                    f"{cards(grew.get(seat, 0))}")
        told.add(seat)
    elif move == "draw":
        said.append(f"{verb(seat, 'draw')} {cards(grew.get(seat, 1))}")
        told.add(seat)
    elif move == "pass":
        said.append(f"{verb(seat, 'pass', 'passes')}")
    elif move == "uno":
        said.append(f"{verb(seat, 'say')} UNO!")
    elif move == "catch":
        caught = before["catchable"]
        n = grew.get(caught, 0) if caught is not None else 0
        said.append(f"{verb(seat, 'catch', 'catches')} {who(caught)} without UNO: "
                    f"{verb(caught, 'draw')} {n}" if caught is not None
                    else f"{verb(seat, 'catch', 'catches')} a player without UNO")
        told.add(caught)
    elif head == "color":
        said.append(f"{verb(seat, 'name')} {COLOR_NAMES.get(arg, arg)}")
    elif head == "swap":
        other = (seat + int(arg) * before["direction"]) % before["players"]
        said.append(f"{verb(seat, 'swap')} hands with {who(other)}")
    elif head == "give":
        to = next((s for s in grew if s != seat), None)
        given = face_words(move_faces(arg, side)[0]) if viewer in (seat, to) \
            else "a card"
        said.append(f"{verb(seat, 'give')} {given} to {who(to) if to is not None else 'the next player'}")
        told.add(to)
    else:                                        # a card
        up = move_faces(move, side)[0]
        faces = up.split("+")
        text = " with ".join(face_words(f) for f in faces)
        if arg and face_color(faces[0]) is None:
            text += f", choosing {COLOR_NAMES.get(arg, arg)}"
        said.append(f"{verb(seat, 'play')} {text}")
        if after["direction"] != before["direction"] and not after["over"] \
                and after["round"] == before["round"]:
            said.append("play now goes " + ("clockwise" if after["direction"] > 0
                                            else "counter-clockwise"))
    if exchanged and head != "swap":
        said.append("hands are exchanged")
    for key, text in _STAT_WORDS:
        if text and after["stats"].get(key, 0) > before["stats"].get(key, 0):
            said.append(text)
    if not exchanged:
        for s, n in grew.items():
            if s not in told and not (head == "give" and s != seat):
                said.append(f"{verb(s, 'draw')} {cards(n)}")
    if ends and after["stats"].get("flips", 0) > before["stats"].get("flips", 0) \
            and after["side"] != side:
        said.append(f"the cards flip: the {after['side']} side is in play")
    if after["current"] is not None and not after["over"] and \
            after["round"] == before["round"] and after["pending"] and \
            after["pending"] != before["pending"]:
        said.append(f"{who(after['current'])} must answer a draw of {after['pending']}")
    ended = ends and (after["round"] != before["round"]
                      or (after["over"] and not before["over"]))
    if ended:
        if after["over"] and after["truncated"]:
            said.append("the game is stopped at the turn limit, with no winner")
        else:
            rw = after["round_winner"]
            if rw is not None:
                points = sum(after["round_points"])
                said.append(f"{verb(rw, 'win')} the round ({points} point"
                            f"{'' if points == 1 else 's'})")
            if after["over"] and after["winner"] is not None and \
                    after["round"] != before["round"]:
                said.append(f"{verb(after['winner'], 'win')} the match")
    return said
