"""The action-id layout and the codec between action ids and move strings.

One ``gymnasium.spaces.Discrete(layout.size)`` per (deck, rules, players). Ids come in
named blocks; for the classic 108-card deck (54 card types: 52 coloured, 2 wild):

==============  ==========  ==========================================================
block           ids         meaning (docs/rules.md section 1 notation)
==============  ==========  ==========================================================
``PLAY``        0 - 51      play the coloured card of type ``t`` (``R5``, ``GS``, ``BD2``)
``WILD``        52 - 59     play wild type ``w`` naming colour slot ``c``: id
                            ``WILD + 4*w + c`` (``W:R``, ``W:Y`` ... ``W4:B``)
``DRAW``        60          ``draw``
``PASS``        61          ``pass`` (keep the card just drawn)
``CHALLENGE``   62          ``challenge`` a Wild Draw Four
``ACCEPT``      63          ``accept`` it (draw 4, lose the turn)
``UNO``         64          ``uno``: declare UNO holding two cards
``CATCH``       65          ``catch`` the previous player who did not declare
``COLOR``       66 - 69     ``color:R`` ... ``color:B``: colour of a wild turned up first
``SWAP``        70 - ...    only with ``seven_zero`` (or ``wx_rule="swap"`` on a deck
                            with ``WX``): ``swap:+1`` ... ``swap:+(P-1)``, swap hands
                            with the player k seats ahead in the current direction
==============  ==========  ==========================================================

UNO One Piece (deck ``onepiece110``, 58 types: 52 coloured, 6 wild ``W W4 SHK BBD ACE
HAN``; ``WILD`` is then 52 - 75, ``DRAW`` 76 ... ``COLOR`` 82 - 85) appends two blocks:

==============  ==========  ==========================================================
``ACE``         86 - 97     ``ACE+RS`` ... ``ACE+BD2``: Fire Fist Ace with the coloured
                            action card (S, R, D2) of ace slot ``k``, deck order
``GIVE``        98 - 155    ``give:R0`` ... ``give:HAN``: Shanks gives card type ``t``
                            (id ``GIVE + t``) to the next player
==============  ==========  ==========================================================

``ACE:R`` (Ace alone, last card), ``SHK:G``, ``BBD:Y``, ``HAN:B`` are ``WILD`` moves; a
Hancock break is the play of the Luffy card (``B1``) in phase ``jump_in``, or ``pass``.

House rules add no other block: stacking answers with card plays and ``accept`` /
``challenge``, jump-in and multi-play with card plays and ``pass``. With every flag
off the layout is exactly the classic one.

Coloured types are ordered colour-major as the deck lists them (R0 R1 .. R9 RS RR RD2,
then Y, G, B); ``layout.play_type(a)`` and ``layout.type_action(t)`` translate. Colour
slot ``c`` means R Y G B on the light side (P T O V on Flip's dark side). The layout for
other decks is built by the same function, so agents read ``layout`` fields instead of
hard-coding ids.

UNO Flip (``flip`` deck, docs/rules.md 5): each of the 112 physical cards is a card type
(ordered by light face, ``cards.flip_deck``), and since the pairing of sides is drawn
per match, any type may show a coloured or a wild face. Every type therefore has one
``PLAY`` action and four ``WILD`` actions; the mask offers the ones that fit the face in
play. A move names the whole card, light side first, so cards with the same face in play
but different hidden faces are different moves (the hidden face is given away):

==============  ==========  ==========================================================
``PLAY``        0 - 111     play type ``t``, its face in play coloured (``R5|P7``)
``WILD``        112 - 559   play type ``t`` (its face in play wild) naming colour slot
                            ``c``: id ``WILD + 4*t + c`` (``W2|P1:B``, ``R5|WC:V``)
``DRAW`` ...    560 - 569   as above (``color:X`` names a colour of the side in play)
==============  ==========  ==========================================================

Two identical physical cards (same light and dark face) are one move: the mask offers
the lower type. Naming a card needs the match's pairing: ``decode``/``encode`` take
``dark`` (the ``State.dark_face`` row) and ``encode`` takes the legal ``mask`` to pick,
among identical cards, the type whose action is legal.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from uno_env.rules.cards import COLOR_LETTERS, Deck
from uno_env.engine import codes as C
from uno_env.engine.variants import BY_NAME
from uno_env.engine.obs_layout import observation_size
from uno_env.rules import Rules

SIMPLE_MOVES = ("draw", "pass", "challenge", "accept", "uno", "catch")


def action_id(action, size: int) -> int:
    """``action`` as a Python int if it is an integer: a Python or numpy integer, or a
    0-d integer array (what SB3's ``predict`` returns for one observation); ValueError
    naming the valid ids for anything else (bools, floats, strings, None). The range
    is the caller's to check."""
    if not isinstance(action, (bool, np.bool_)):
        try:
            return operator.index(action)
        except TypeError:
            pass
    raise ValueError(f"an action is an integer id 0..{size - 1}, got {action!r}")


@dataclass(frozen=True)
class ActionLayout:
    """First id of each block, and the translation tables between ids and card types."""

    num_players: int
    deck: Deck = field(repr=False)
    PLAY: int
    NUM_PLAY: int
    WILD: int
    NUM_WILD: int
    DRAW: int
    PASS: int
    CHALLENGE: int
    ACCEPT: int
    UNO: int
    CATCH: int
    COLOR: int
    #: first ``swap:+k`` id and the number of them (0 without the 7-0 rule)
    SWAP: int
    NUM_SWAP: int
    #: One Piece: first ``ACE+X`` id and count, first ``give:X`` id and count (0 if none)
    ACE: int
    NUM_ACE: int
    GIVE: int
    NUM_GIVE: int
    size: int
    obs_size: int
    #: type -> its index in the PLAY block (-1 if it has no coloured face)
    type_play_slot: np.ndarray = field(repr=False)
    #: type -> its index in the WILD block (-1 if it has no wild face)
    type_wild_slot: np.ndarray = field(repr=False)
    play_slot_type: np.ndarray = field(repr=False)
    wild_slot_type: np.ndarray = field(repr=False)
    #: ace slot -> coloured action type (S, R, D2) it combines with
    ace_slot_type: np.ndarray = field(repr=False, default=None)

    def as_array(self) -> np.ndarray:
        """The int32 ``L_*`` slot array the kernels read."""
        out = np.zeros(C.NUM_LAYOUT, np.int32)
        for slot, value in ((C.L_PLAY, self.PLAY), (C.L_NUM_PLAY, self.NUM_PLAY),
                            (C.L_WILD, self.WILD), (C.L_NUM_WILD, self.NUM_WILD),
                            (C.L_DRAW, self.DRAW), (C.L_PASS, self.PASS),
                            (C.L_CHALLENGE, self.CHALLENGE), (C.L_ACCEPT, self.ACCEPT),
                            (C.L_UNO, self.UNO), (C.L_CATCH, self.CATCH),
                            (C.L_COLOR, self.COLOR), (C.L_SIZE, self.size),
                            (C.L_OBS_SIZE, self.obs_size), (C.L_SWAP, self.SWAP),
                            (C.L_NUM_SWAP, self.NUM_SWAP), (C.L_ACE, self.ACE),
                            (C.L_NUM_ACE, self.NUM_ACE), (C.L_GIVE, self.GIVE),
                            (C.L_NUM_GIVE, self.NUM_GIVE)):
            out[slot] = value
        return out

    # --- codec -------------------------------------------------------------------------
    def card_name(self, t: int, dark=None) -> str:
        """Notation of card type ``t``; ``dark``: the match's dark face per type (flip)."""
        deck = self.deck
        if dark is None or not deck.double_sided:
            return deck.type_name(t)
        return deck.face_str(t, 0) + "|" + deck._face_str(int(dark[t]))

    def parse_card(self, text: str, dark=None, mask=None, action_base=None) -> int:
        """Card notation -> card type. For the flip deck, ``text`` must name both sides
        (``R5|P7``) and ``dark`` gives the match's pairing; among identical cards the
        type whose action (``action_base + type`` or its wild block) is legal in
        ``mask`` is chosen, else the lowest."""
        deck = self.deck
        if dark is None or not deck.double_sided:
            return deck.parse_type(text)
        light, sep, back = text.partition("|")
        if not sep:
            raise ValueError(f"{text!r} is not a move of the flip deck: a card names both "
                             f"sides, light first ('R5|P7', 'W2|P1:B'); other moves are "
                             f"{', '.join(SIMPLE_MOVES)} and color:X")
        lf, df = deck.face_id(light), deck.face_id(back)
        hits = np.flatnonzero((deck.type_face[:, 0] == lf) & (np.asarray(dark) == df))
        if len(hits) == 0:
            raise ValueError(f"this match's flip deck has no card {text!r} (light {light} "
                             f"is paired with other dark faces)")
        if mask is not None:
            for t in hits:
                ids = [self.PLAY + int(self.type_play_slot[t])] + \
                      [self.WILD + 4 * int(self.type_wild_slot[t]) + c for c in range(4)]
                if any(mask[a] for a in ids):
                    return int(t)
        return int(hits[0])

    def decode(self, action: int, side: int = 0, dark=None) -> str:
        """Action id -> move string (docs/rules.md section 1); ``dark``: the match's pairing
        (flip deck)."""
        a = action_id(action, self.size)
        if not 0 <= a < self.size:
            raise ValueError(f"action {action!r} is out of range 0..{self.size - 1}")
        if a < self.WILD:
            return self.card_name(int(self.play_slot_type[a - self.PLAY]), dark)
        if a < self.DRAW:
            w, c = divmod(a - self.WILD, 4)
            name = self.card_name(int(self.wild_slot_type[w]), dark)
            return f"{name}:{COLOR_LETTERS[c + 4 * side]}"
        if a < self.COLOR:
            return SIMPLE_MOVES[a - self.DRAW]
        if a < self.COLOR + 4:
            return f"color:{COLOR_LETTERS[a - self.COLOR + 4 * side]}"
        if a < self.SWAP + self.NUM_SWAP:
            return f"swap:+{a - self.SWAP + 1}"
        if a < self.ACE + self.NUM_ACE:
            return "ACE+" + self.deck.type_name(int(self.ace_slot_type[a - self.ACE]))
        return "give:" + self.deck.type_name(a - self.GIVE)

    def encode(self, move: str, side: int = 0, dark=None, mask=None) -> int:
        """Move string -> action id; ValueError for a string that names no action.
        Flip deck: ``dark`` is the match's pairing and ``mask`` the legal actions (to
        choose among identical cards)."""
        if not isinstance(move, str):
            raise ValueError(f"a move is a string such as 'R5', 'W:G' or 'draw', got {move!r}")
        if move in SIMPLE_MOVES:
            return self.DRAW + SIMPLE_MOVES.index(move)
        head, sep, tail = move.partition(":")
        if head == "swap" and sep:
            return self._swap_action(tail, move)
        if head == "give" and sep:
            if not self.NUM_GIVE:
                raise ValueError(f"{move!r}: give moves exist only with the onepiece deck")
            return self.GIVE + self.deck.parse_type(tail)
        if move.startswith("ACE+"):
            if not self.NUM_ACE:
                raise ValueError(f"{move!r}: Ace combinations exist only with the "
                                 f"onepiece deck")
            t = self.deck.parse_type(move[4:])
            slots = np.flatnonzero(self.ace_slot_type == t)
            if not len(slots):
                raise ValueError(f"{move!r}: Ace combines with a coloured action card "
                                 f"(S, R, D2), e.g. 'ACE+RS'")
            return self.ACE + int(slots[0])
        if sep:
            c = self._color_slot(tail, side, move)
            if head == "color":
                return self.COLOR + c
            t = self.parse_card(head, dark, mask)
            if dark is not None and self.deck.double_sided:
                f = self.deck.type_face[t, 0] if side == 0 else int(dark[t])
                if self.deck.face_rank[f] < C.FIRST_WILD_RANK:
                    raise ValueError(f"{head!r} shows a coloured face on this side: play "
                                     f"it as {head!r} without a colour")
            if self.type_wild_slot[t] < 0:
                raise ValueError(f"{head!r} is not a wild card: play it as {head!r} "
                                 f"without a colour")
            return self.WILD + 4 * int(self.type_wild_slot[t]) + c
        t = self.parse_card(move, dark, mask)
        if dark is not None and self.deck.double_sided:
            f = self.deck.type_face[t, 0] if side == 0 else int(dark[t])
            if self.deck.face_rank[f] >= C.FIRST_WILD_RANK:
                raise ValueError(f"{move!r} shows a wild face on this side: name a colour, "
                                 f"e.g. '{move}:{COLOR_LETTERS[4 * side]}'")
        if self.type_play_slot[t] < 0:
            raise ValueError(f"{move!r} is a wild card: name a colour, e.g. '{move}:R'")
        return self.PLAY + int(self.type_play_slot[t])

    def _swap_action(self, tail: str, move: str) -> int:
        if not self.NUM_SWAP:
            raise ValueError(f"{move!r}: swap moves exist only with seven_zero=True (or "
                             f"wx_rule='swap' on the classic112 deck)")
        valid = [f"+{k}" for k in range(1, self.NUM_SWAP + 1)]
        if tail not in valid:
            raise ValueError(f"{move!r}: write swap:+k with k from 1 to {self.NUM_SWAP} "
                             f"(seats ahead in the current direction): "
                             f"{', '.join('swap:' + v for v in valid)}")
        return self.SWAP + int(tail[1:]) - 1

    def _color_slot(self, letter: str, side: int, move: str) -> int:
        valid = COLOR_LETTERS[4 * side: 4 * side + 4]
        if len(letter) != 1 or letter not in valid:
            raise ValueError(f"{move!r}: the colour must be one of {', '.join(valid)}")
        return valid.index(letter)

    def play_type(self, action: int) -> int:
        """Card type played by a PLAY or WILD action (-1 for other actions)."""
        if self.PLAY <= action < self.WILD:
            return int(self.play_slot_type[action - self.PLAY])
        if self.WILD <= action < self.DRAW:
            return int(self.wild_slot_type[(action - self.WILD) // 4])
        if self.ACE <= action < self.ACE + self.NUM_ACE:
            return int(self.ace_slot_type[action - self.ACE])
        return -1


def build_layout(deck: Deck, rules: Rules, num_players: int) -> ActionLayout:
    """The layout for a deck, rule set and player count (the one house-rule block,
    ``SWAP``, is appended only when a rule needs it, so a flag that is off costs
    nothing)."""
    faces = deck.type_face
    coloured = np.array([any(deck.face_rank[faces[t, s]] < C.FIRST_WILD_RANK for s in (0, 1))
                         for t in range(deck.num_types)])
    wild = np.array([any(deck.face_rank[faces[t, s]] >= C.FIRST_WILD_RANK for s in (0, 1))
                     for t in range(deck.num_types)])
    if deck.double_sided:  # the pairing is drawn per match: any type may be either
        coloured[:] = True
        wild[:] = True
    play_slot_type = np.flatnonzero(coloured).astype(np.int32)
    wild_slot_type = np.flatnonzero(wild).astype(np.int32)
    type_play_slot = np.full(deck.num_types, -1, np.int32)
    type_play_slot[play_slot_type] = np.arange(len(play_slot_type))
    type_wild_slot = np.full(deck.num_types, -1, np.int32)
    type_wild_slot[wild_slot_type] = np.arange(len(wild_slot_type))
    play = 0
    wild_base = play + len(play_slot_type)
    draw = wild_base + 4 * len(wild_slot_type)
    has_wx = bool((deck.face_rank == C.WILD_CUSTOM).any())
    num_swap = num_players - 1 if rules.seven_zero or (has_wx and rules.wx_rule == "swap") \
        else 0
    size = draw + 10 + num_swap
    # One Piece blocks (docs/rules.md 6): ACE+X per coloured action type, give:X per type
    blocks = BY_NAME[rules.variant].action_blocks
    first = faces[:, 0]
    ace_slot_type = np.flatnonzero(
        coloured & (deck.face_rank[first] >= C.SKIP) & (deck.face_rank[first] <= C.DRAW2)
    ).astype(np.int32) if "ace" in blocks else np.zeros(0, np.int32)
    num_ace = len(ace_slot_type)
    num_give = deck.num_types if "give" in blocks else 0
    return ActionLayout(
        num_players=num_players, deck=deck,
        PLAY=play, NUM_PLAY=len(play_slot_type), WILD=wild_base,
        NUM_WILD=len(wild_slot_type), DRAW=draw, PASS=draw + 1, CHALLENGE=draw + 2,
        ACCEPT=draw + 3, UNO=draw + 4, CATCH=draw + 5, COLOR=draw + 6, SWAP=draw + 10,
        NUM_SWAP=num_swap, ACE=size, NUM_ACE=num_ace, GIVE=size + num_ace,
        NUM_GIVE=num_give, size=size + num_ace + num_give,
        obs_size=observation_size(deck.num_types, num_players, rules),
        type_play_slot=type_play_slot, type_wild_slot=type_wild_slot,
        play_slot_type=play_slot_type, wild_slot_type=wild_slot_type,
        ace_slot_type=ace_slot_type,
    )
