"""``Game``: one game of UNO behind a move-string API, for tests, scenarios and people.

    >>> g = Game.from_scenario(hands=[["R5", "W4"], ["B7", "G2"]], top="R8")
    >>> sorted(g.legal_moves())[:3]
    ['R5', 'W4:B', 'W4:G']
    >>> g.play("R5"); g.current_player
    1

Moves and cards use the notation of docs/rules.md section 1. ``Game`` owns a batch-of-one
engine state; the AEC environment (``uno_env.envs.aec``) drives the same object by action id.
"""
from __future__ import annotations

import numpy as np

from uno_env.rules.actions import action_id
from uno_env.rules.cards import COLOR_LETTERS
from uno_env.rules.config import Config, make_config
from uno_env.engine import codes as C
from uno_env.engine.variants import BY_NAME
from uno_env.engine.batch import OP_OBSERVE, OP_RANDOM, OP_REFRESH, OP_RESET, OP_STEP
from uno_env.engine.entry import kernels
from uno_env.engine.rng import seed_stream_py as seed_stream
from uno_env.engine.rng import shuffle_prefix_py as shuffle_prefix
from uno_env.engine.state import allocate
from uno_env.engine.public_record import allocate_record
from uno_env.engine.tallies import recount_state
from uno_env.engine.dispatch import STEP_SEAT_MASK
from uno_env.envs.replay_format import ReplayMixin
from uno_env.rules import check_seat, check_seed

_KERNELS: dict = {}
#: numpy's integer scalar types (not ``np.bool_``), for ``Game.step``'s quick check
_NUMPY_INTS = frozenset(t for t in np.sctypeDict.values() if issubclass(t, np.integer))


def _box(game: "Game"):
    """The game's arrays as one ``GameBox`` (``engine.state``), which the game entry
    point takes as one argument."""
    return kernels(game.config.variant).game_box(game._state, game._spec, game._mask,
                                                 game._obs, game._other_obs)


def _kernel(game: "Game"):
    """The game entry point compiled for this configuration's argument types (calling
    it directly skips numba's type dispatch): ``kernel(op, box, 0, arg)``."""
    cfg = game.config
    key = (cfg.variant, cfg.num_players, cfg.deck.num_types, cfg.layout.size)
    if key not in _KERNELS:
        _KERNELS[key] = kernels(cfg.variant).game.bind(OP_REFRESH, game._box, 0, 0)
    return _KERNELS[key]


class _RecordKernel:
    """The ``game_record`` entry point called as the plain game entry point is
    (``kernel(op, box, 0, arg)``), with the game's public record (``public_record``)."""

    def __init__(self, game: "Game"):
        cfg = game.config
        key = ("record", cfg.variant, cfg.num_players, cfg.deck.num_types, cfg.layout.size)
        if key not in _KERNELS:
            _KERNELS[key] = kernels(cfg.variant).game_record.bind(
                OP_REFRESH, game._box, game._record, 0, 0)
        self._bound, self._game = _KERNELS[key], game

    def __call__(self, op, box, g, arg):
        return self._bound(op, box, self._game._record, g, arg)


def _card_list(cards, where: str) -> list:
    """A scenario's list of cards (``hands[i]``, ``draw_pile``, ``discard``) as a list;
    ValueError for a string or a non-iterable (a hand of one card is ``["R5"]``)."""
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"{where}: a list of cards such as ['R5', 'W4'] is expected, "
                         f"got {cards!r}")
    return list(cards)


class Game(ReplayMixin):
    """A freshly dealt round (a match when ``target_score > 0``).

    Args:
        preset: a preset name (``uno_env.presets()``).
        num_players: 2 to 10.
        seed: a non-negative integer; the same seed deals the same cards.
        public_record: observations end with the public record (docs/environments.md,
            "The public record"; single-sided decks only).
        **rules: overrides of the preset's rule flags (``uno_env.rules.Rules``).
    """

    def __init__(self, preset: str = "classic", num_players: int = 4, seed: int = 0,
                 public_record: bool = False, **rules):
        self.config: Config = make_config(preset, num_players, **rules)
        self._setup(public_record)
        self.reset(seed)

    def _setup(self, public_record: bool = False) -> None:
        cfg = self.config
        self.public_record = cfg.check_public_record(public_record)
        obs_size = cfg.observation_size(self.public_record)
        self.layout = cfg.layout
        self._state = allocate(1, cfg.num_players, cfg.deck.num_types, cfg.deck.num_cards,
                               cfg.deck.double_sided)
        self._mask = np.zeros(cfg.layout.size, np.uint8)
        self._num_actions = cfg.layout.size
        self._spec = cfg.spec
        # the current decider's observation, kept up to date by every step (so an
        # environment loop needs one kernel call per step); other seats are computed
        self._obs = np.zeros(obs_size, np.float32)
        self._other_obs = np.zeros(obs_size, np.float32)
        self._box = _box(self)
        self._record = None
        if self.public_record:
            self._record = allocate_record(1, cfg.num_players, cfg.deck.num_types,
                                           cfg.record_offsets())
            self._kernel = _RecordKernel(self)
        else:
            self._kernel = _kernel(self)
        self._double_sided = cfg.deck.double_sided
        self._current = 0
        self._actions: list[tuple[int, int, int]] = []
        self._name_cache: tuple | None = None     # (dark faces, every type's name)
        self._deals = 0

    def reset(self, seed: int = 0, index: int = 0, pairing=None) -> None:
        """Deal a new match from ``seed`` (``index`` picks another game of the same seed:
        game ``index`` here is game ``index`` of a batch with that seed).

        ``pairing`` (flip deck only): the 112 cards as ``"light|dark"`` names, replacing
        the pairing drawn from the seed; the deal is the same card for card by light
        face (the deal and the first card depend on the light faces only)."""
        self.seed = check_seed(seed)
        self._state.rng[0] = seed_stream(self.seed, index)
        self._kernel(OP_RESET, self._box, 0, 0)
        if pairing is not None:
            self._set_pairing(pairing)
        self._refresh()
        self._actions = []
        self._deals += 1

    def _set_pairing(self, pairing) -> None:
        deck = self.config.deck
        if not deck.double_sided:
            raise ValueError(f"pairing applies to the flip deck, not {deck.name!r}")
        if isinstance(pairing, str) or len(pairing) != deck.num_types:
            raise ValueError(f"pairing lists all {deck.num_types} cards as 'light|dark' "
                             f"names, e.g. 'R5|P7'")
        dark = np.full(deck.num_types, -1, np.int16)
        for name in pairing:
            light, sep, back = str(name).partition("|")
            if not sep:
                raise ValueError(f"pairing: {name!r} must name both sides, e.g. 'R5|P7'")
            lf = deck.face_id(light)
            free = [t for t in np.flatnonzero(deck.type_face[:, 0] == lf) if dark[t] < 0]
            if not free:
                raise ValueError(f"pairing: too many cards with light side {light!r}")
            dark[free[0]] = deck.face_id(back)
        if sorted(dark) != sorted(deck.type_face[:, 1]):
            raise ValueError("pairing: the dark sides must be the deck's dark faces, each "
                             "as often as the deck has it (docs/rules.md 5)")
        self._state.dark_face[0] = dark

    @property
    def pairing(self) -> list[str]:
        """Flip deck: every card of this match as ``"light|dark"`` (docs/rules.md 5)."""
        return list(self._names())

    @property
    def side(self) -> str:
        """``"light"`` or ``"dark"``: the side in play (always light without Flip)."""
        return ("light", "dark")[int(self._state.info[0, C.I_SIDE])]

    def _dark(self):
        """The match's dark face per card type (flip deck), else None."""
        return self._state.dark_face[0] if self._double_sided else None

    def _names(self) -> list[str]:
        """Every card type's notation in this match, named once per dark-face pairing
        (``hand``, ``draw_pile`` and ``discard`` name up to a deck of cards per call)."""
        dark = self._dark()
        key = None if dark is None else dark.tobytes()
        if self._name_cache is None or self._name_cache[0] != key:
            names = [self.layout.card_name(t, dark)
                     for t in range(self.config.deck.num_types)]
            self._name_cache = (key, names)
        return self._name_cache[1]

    def _name(self, t) -> str:
        return self._names()[int(t)]

    def refresh(self) -> None:
        """Recompute the cached mask and observation after ``engine_state`` was changed
        directly (the contract checks, tests that edit a position)."""
        self._kernel(OP_REFRESH, self._box, 0, 0)
        self._current = int(self._state.info[0, C.I_CURRENT])

    _refresh = refresh   # the name tests that edit the state use

    # --- scenarios ---------------------------------------------------------------------
    @classmethod
    def from_scenario(cls, preset: str = "classic", hands=None, top: str | None = None,
                      color: str | None = None, draw_pile=None, discard=None,
                      current: int = 0, direction: int = 1, seed: int = 0,
                      side: str = "light", public_record: bool = False,
                      **rules) -> "Game":
        """Set up any position at the start of ``current``'s turn.

        ``hands`` lists each seat's cards (the number of players is ``len(hands)``;
        every seat holds at least one card: a player with none has already won);
        ``top`` is the discard pile's top card and ``color`` the colour in force when it
        is a wild; ``draw_pile`` lists cards top first; ``discard`` older discards,
        bottom first. Cards of the deck not listed go to the bottom of the draw pile in
        seeded order, so the deck is always whole.

        Flip deck (docs/rules.md 5): every card is named light side first (``"R5|P7"``);
        the listed cards fix their own pairings and the rest of the deck is paired from
        ``seed``; ``side`` is ``"light"`` or ``"dark"`` (the side in play), and
        ``color`` names a colour of that side. ``top`` is required there (no default).
        ``public_record``: as for ``Game`` (the record starts empty at this position)."""
        if not isinstance(hands, (list, tuple)) or not hands:
            raise ValueError(f"hands must be a list with one list of cards per seat, got "
                             f"{hands!r}")
        game = cls.__new__(cls)
        game.config = make_config(preset, len(hands), **rules)
        game._setup(public_record)
        game.seed = check_seed(seed)
        if not isinstance(side, str) or side not in ("light", "dark"):
            raise ValueError(f"side must be 'light' or 'dark', got {side!r}")
        if side == "dark" and not game._double_sided:
            raise ValueError(f"side='dark' needs the flip deck (preset 'flip'), not "
                             f"{game.config.deck.name!r}")
        if top is None:
            if game._double_sided:
                raise ValueError("top: name the discard pile's top card, light side "
                                 "first, e.g. top='R5|P7'")
            top = "R0"
        game._load_scenario(hands, top, color, [] if draw_pile is None else draw_pile,
                            [] if discard is None else discard, current, direction,
                            int(side == "dark"))
        return game

    def _load_scenario(self, hands, top, color, draw_pile, discard, current, direction,
                       side=0):
        cfg, st = self.config, self._state
        deck = cfg.deck
        flip = self._double_sided
        # flip: types still free per light face, and dark faces not yet given out
        dark = np.full(deck.num_types, -1, np.int16)
        dark_left = {int(f): int(n) for f, n in zip(*np.unique(deck.type_face[:, 1],
                                                                 return_counts=True))}
        current = check_seat(current, cfg.num_players, "current")
        if isinstance(direction, (bool, np.bool_)) \
                or not isinstance(direction, (int, np.integer)) or direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, got {direction!r}")
        left = deck.type_count.copy()

        def take(card, where):
            if not isinstance(card, str):
                raise ValueError(f"{where}: cards are strings such as 'R5', got {card!r}")
            if flip:
                return take_pair(card, where)
            t = deck.parse_type(card)
            left[t] -= 1
            if left[t] < 0:
                raise ValueError(f"{where}: the {deck.name} deck has only "
                                 f"{deck.type_count[t]} {card!r}")
            return t

        def take_pair(card, where):
            light, sep, back = card.partition("|")
            if not sep:
                raise ValueError(f"{where}: {card!r} names one side; a flip card names "
                                 f"both, light side first, e.g. 'R5|P7'")
            try:
                lf, df = deck.face_id(light), deck.face_id(back)
            except ValueError as err:
                raise ValueError(f"{where}: {card!r}: {err}") from None
            if not (deck.face_color[lf] < 4 or deck.face_rank[lf] in (C.WILD, C.WILD2)):
                raise ValueError(f"{where}: {card!r}: {light!r} is not a light face "
                                 f"(R Y G B, W, W2)")
            if not (4 <= deck.face_color[df] < 8
                    or deck.face_rank[df] in (C.WILD, C.WILD_COLOR)):
                raise ValueError(f"{where}: {card!r}: {back!r} is not a dark face "
                                 f"(P T O V, W, WC)")
            free = [t for t in np.flatnonzero(deck.type_face[:, 0] == lf) if left[t] > 0]
            if not free:
                raise ValueError(f"{where}: the flip deck has only "
                                 f"{int((deck.type_face[:, 0] == lf).sum())} cards "
                                 f"with light side {light!r}")
            if dark_left.get(df, 0) == 0:
                raise ValueError(f"{where}: the flip deck has only "
                                 f"{int((deck.type_face[:, 1] == df).sum())} cards with "
                                 f"dark side {back!r}")
            t = int(free[0])
            left[t] -= 1
            dark_left[df] -= 1
            dark[t] = df
            return t

        for seat, cards in enumerate(hands):
            for card in _card_list(cards, f"hand {seat}"):
                t = take(card, f"hand {seat}")
                st.hands[0, seat, t] += 1
                st.hand_size[0, seat] += 1
            if not st.hand_size[0, seat]:
                # docs/rules.md 2.10: a player with no cards has won; the round is over
                raise ValueError(f"hand {seat} is empty: a player with no cards left has "
                                 f"already won the round (docs/rules.md 2.10), so a game "
                                 f"in play gives every seat at least one card")
        pile = [take(c, "discard") for c in _card_list(discard, "discard")] \
            + [take(top, "top")]
        listed = [take(c, "draw_pile") for c in _card_list(draw_pile, "draw_pile")]
        rest = np.repeat(np.arange(deck.num_types, dtype=np.int16), left)
        st.rng[0] = seed_stream(self.seed, 0)
        if flip:  # the cards not listed are paired from the seed
            backs = np.array([f for f, n in sorted(dark_left.items()) for _ in range(n)],
                             np.int16)
            shuffle_prefix(st.rng, 0, backs, len(backs))
            dark[dark < 0] = backs
            st.dark_face[0] = dark
        shuffle_prefix(st.rng, 0, rest, len(rest))
        draw = np.concatenate([rest, np.array(listed[::-1], np.int16)])
        st.draw_pile[0, :len(draw)] = draw
        st.discard[0, :len(pile)] = pile
        st.discard_counts[0] = np.bincount(pile, minlength=deck.num_types)
        info = st.info[0]
        info[:] = 0
        for slot in (C.I_DRAWN_TYPE, C.I_UNO_CALLED, C.I_CATCH_PENDING, C.I_CATCHABLE,
                     C.I_W4_PLAYER, C.I_WINNER, C.I_MATCH_WINNER, C.I_JUMP_FROM,
                     C.I_RESUME_SEAT, C.I_SHOWN_TO, C.I_SHOWN_BY):
            info[slot] = -1
        info[C.I_DRAW_LEN] = len(draw)
        info[C.I_DISCARD_LEN] = len(pile)
        info[C.I_CURRENT] = current
        info[C.I_DIRECTION] = direction
        info[C.I_DEALER] = cfg.rules.dealer
        info[C.I_ROUND] = 1
        info[C.I_SIDE] = side
        face = deck.type_face[pile[-1], 0] if side == 0 else st.dark_face[0, pile[-1]]
        if deck.face_color[face] == C.NO_COLOR:
            letters = COLOR_LETTERS[4 * side: 4 * side + 4]
            if not isinstance(color, str) or len(color) != 1 or color not in letters:
                raise ValueError(f"top card {top!r} is a wild: name the colour in force "
                                 f"with color= one of {', '.join(letters)}")
            info[C.I_COLOR] = COLOR_LETTERS.index(color)
        else:
            if color is not None and (not isinstance(color, str)
                                      or color != COLOR_LETTERS[deck.face_color[face]]):
                raise ValueError(f"color={color!r} contradicts the top card {top!r}")
            info[C.I_COLOR] = deck.face_color[face]
        info[C.I_PHASE] = C.PHASE_PLAY
        recount_state(st, 0, cfg.spec)
        self._refresh()

    # --- search ------------------------------------------------------------------------
    def clone(self) -> "Game":
        """An independent copy: the state arrays of this game and its move history
        (cheap: about a kilobyte of arrays; nothing is recompiled). Playing one of the
        two never changes the other."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._state = type(self._state)(*(a.copy() for a in self._state))
        other._mask = self._mask.copy()
        other._obs = self._obs.copy()
        other._other_obs = self._other_obs.copy()
        other._actions = list(self._actions)
        other._box = _box(other)
        if self._record is not None:
            other._record = type(self._record)(*(a.copy() for a in self._record))
            other._kernel = _RecordKernel(other)
        return other

    def determinize(self, seat: int, seed: int = 0) -> "Game":
        """A copy in which every card hidden from ``seat`` (the other hands and the draw
        pile's order) is redrawn at random from the cards ``seat`` has not seen, keeping
        every hand size and everything ``seat`` observes (its ``observe(seat)`` vector
        is the same): the discard pile and, in UNO Flip, the sides of the opponents'
        cards and of the draw pile's top that face the table. ``seed`` (with ``seat``)
        picks the sample; this game is left unchanged and its random stream unused. The
        copy gets a random stream of its own, drawn from the sample's (its later
        reshuffles differ from this game's and from other samples').

        Knowledge only the history gives (a hand shown after a challenge, a card given
        by Shanks, a hand given away in a 7-0 swap) is ignored: see
        ``uno_env.engine.determinize`` for the exact list."""
        seat = check_seat(seat, self.num_players)
        seed = check_seed(seed)
        other = self.clone()
        rng = np.array([seed_stream(seed, int(seat))], np.uint64)
        kernels(self.config.variant).determinize(other._state, 0, self.config.spec,
                                                 int(seat), rng, 0)
        other._refresh()
        return other

    # --- moves -------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        """Legal action ids of the current decider (empty when the game is over)."""
        return np.flatnonzero(self._mask)

    def action_mask(self) -> np.ndarray:
        """uint8[A]: 1 for each legal action id. A view: do not modify it."""
        return self._mask

    def legal_moves(self) -> list[str]:
        side = int(self._state.info[0, C.I_SIDE])
        return [self.layout.decode(a, side, self._dark()) for a in self.legal_actions()]

    def random_action(self) -> int:
        """``simulate``'s ``random`` agent: a uniformly random legal action id drawn from
        the game's own random stream (so the draw pile's later shuffles move on as in
        ``simulate`` with a random seat; ``step`` it to play it). ValueError when the
        game is over."""
        if self.is_over:
            raise ValueError("the game is over: no move is legal (call reset())")
        return int(self._kernel(OP_RANDOM, self._box, 0, 0))

    def play(self, move: str | int) -> None:
        """Make a move (string, or action id). ValueError naming the legal moves if it is
        not one; the state is then unchanged."""
        if self.is_over:
            raise ValueError("the game is over: no move is legal (call reset())")
        side = int(self._state.info[0, C.I_SIDE])
        if isinstance(move, (int, np.integer)) and not isinstance(move, bool):
            action = int(move)
        else:
            try:
                action = self.layout.encode(move, side, self._dark(), self._mask)
            except ValueError as err:
                raise ValueError(f"{err}; legal moves: {', '.join(self.legal_moves())}") \
                    from None
        self.step(action)

    def step(self, action: int) -> int:
        """Apply a legal action id; ValueError (state unchanged) when it is not legal.
        Returns ``dispatch.step_and_mask``'s code: the next seat OR ``STEP_*`` bits."""
        if type(action) is not int:
            # numpy's integers (what an agent indexing a mask returns) the quick way
            action = int(action) if type(action) in _NUMPY_INTS else self._action_id(action)
        side = int(self._state.info[0, C.I_SIDE]) if self._double_sided else 0
        # the kernel refuses an action the mask does not allow (-1, nothing changed)
        code = self._kernel(OP_STEP, self._box, 0, action) \
            if 0 <= action < self._num_actions else -1
        if code < 0:
            raise ValueError(
                f"{self._describe(action)} is not legal for player {self.current_player} "
                f"in phase {self.phase!r}; legal moves: {', '.join(self.legal_moves())}")
        self._actions.append((self._current, action, side))
        self._current = code & STEP_SEAT_MASK
        return code

    def _action_id(self, action) -> int:
        """``action`` as an int (``actions.action_id``); ValueError naming the legal
        moves for a non-integer."""
        try:
            return action_id(action, len(self._mask))
        except ValueError as err:
            raise ValueError(f"{err}; legal moves: {', '.join(self.legal_moves())}") \
                from None

    @property
    def history(self) -> list[tuple[int, str]]:
        """Moves made so far in this match: (seat, move string)."""
        return [(seat, self.layout.decode(a, side, self._dark()))
                for seat, a, side in self._actions]

    @property
    def action_history(self) -> list[tuple[int, int]]:
        """Moves made so far: (seat, action id)."""
        return [(seat, a) for seat, a, _ in self._actions]

    def move_name(self, action: int) -> str:
        """Move string of action id ``action`` now (the side in play and, with Flip,
        this match's pairing name it)."""
        return self.layout.decode(action, int(self._state.info[0, C.I_SIDE]), self._dark())

    def _describe(self, action) -> str:
        try:
            return repr(self.layout.decode(action, int(self._state.info[0, C.I_SIDE]),
                                           self._dark()))
        except ValueError:
            return f"action {action!r} (valid ids 0..{self.layout.size - 1})"

    def observe(self, seat: int) -> np.ndarray:
        """``seat``'s observation vector (``uno_env.engine.observe``); a fresh copy."""
        seat = check_seat(seat, self.num_players)
        if seat == self._current:  # the cached observation is the current decider's
            return self._obs.copy()
        self._kernel(OP_OBSERVE, self._box, 0, seat)
        return self._other_obs.copy()

    def current_observation(self) -> np.ndarray:
        """The current decider's observation, a fresh copy: ``observe(current_player)``
        without the seat check, for loops that observe after every step (the AEC env)."""
        return self._obs.copy()

    # --- public state ------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def phase(self) -> str:
        return C.PHASE_NAMES[self._state.info[0, C.I_PHASE]]

    def hand(self, seat: int) -> list[str]:
        """Cards in ``seat``'s hand, in deck order."""
        counts = self._state.hands[0, check_seat(seat, self.num_players)]
        names = self._names()
        return [names[t] for t in np.flatnonzero(counts) for _ in range(counts[t])]

    @property
    def hand_sizes(self) -> list[int]:
        return [int(n) for n in self._state.hand_size[0]]

    @property
    def top(self) -> str:
        st = self._state
        return self._name(st.discard[0, st.info[0, C.I_DISCARD_LEN] - 1])

    @property
    def color(self) -> str | None:
        """Letter of the colour in force (the named colour after a wild), None if none."""
        c = int(self._state.info[0, C.I_COLOR])
        return None if c == C.NO_COLOR else COLOR_LETTERS[c]

    @property
    def direction(self) -> int:
        return int(self._state.info[0, C.I_DIRECTION])

    @property
    def draw_pile_size(self) -> int:
        return int(self._state.info[0, C.I_DRAW_LEN])

    @property
    def draw_pile(self) -> list[str]:
        """The draw pile, top first (hidden information: for tests and debugging)."""
        n = self.draw_pile_size
        names = self._names()
        return [names[t] for t in self._state.draw_pile[0, :n][::-1].tolist()]

    @property
    def discard(self) -> list[str]:
        """The discard pile, bottom first (the last one is ``top``)."""
        n = int(self._state.info[0, C.I_DISCARD_LEN])
        names = self._names()
        return [names[t] for t in self._state.discard[0, :n].tolist()]

    @property
    def is_over(self) -> bool:
        return bool(self._state.info[0, C.I_STATUS] != C.STATUS_PLAYING)

    @property
    def terminated(self) -> bool:
        return bool(self._state.info[0, C.I_STATUS] == C.STATUS_OVER)

    @property
    def truncated(self) -> bool:
        return bool(self._state.info[0, C.I_STATUS] == C.STATUS_TRUNCATED)

    @property
    def winner(self) -> int | None:
        """Winner of the match (of the round when ``target_score=0``), None if none."""
        w = int(self._state.info[0, C.I_MATCH_WINNER])
        return None if w < 0 else w

    @property
    def round_winner(self) -> int | None:
        """Winner of the last round that ended, None if none has."""
        w = int(self._state.info[0, C.I_WINNER])
        return None if w < 0 else w

    @property
    def round_points(self) -> list[int]:
        """Points of the last round that ended, per seat (docs/rules.md 2, "Round end")."""
        return [int(x) for x in self._state.round_points[0]]

    @property
    def scores(self) -> list[int]:
        return [int(x) for x in self._state.scores[0]]

    @property
    def rewards(self) -> list[float]:
        """Rewards produced by the last move, per seat (docs/rules.md 7)."""
        return [float(x) for x in self._state.rewards[0]]

    @property
    def turns(self) -> int:
        return int(self._state.info[0, C.I_TURNS])

    @property
    def round(self) -> int:
        return int(self._state.info[0, C.I_ROUND])

    @property
    def dealer(self) -> int:
        return int(self._state.info[0, C.I_DEALER])

    @property
    def pending_draw(self) -> int:
        """Cards the current decider draws by ``accept`` (the running total with
        ``stack``; 4 facing a Wild Draw Four), 0 if none."""
        return int(self._state.info[0, C.I_PENDING_DRAW])

    @property
    def winning_team(self) -> tuple[int, int] | None:
        """``teams=True``: the seats of the team that won the match, None if none."""
        w = self.winner
        if w is None or not self.config.rules.teams:
            return None
        return (w % 2, w % 2 + 2)

    @property
    def catchable(self) -> int | None:
        """Seat that may be caught for not declaring UNO, None if nobody."""
        c = int(self._state.info[0, C.I_CATCHABLE])
        return None if c < 0 else c

    @property
    def stats(self) -> dict[str, int]:
        info = self._state.info[0]
        slots = dict(C.COUNTERS)
        extra = {name: int(info[slots[name]])
                 for name in BY_NAME[self.config.variant].stats}
        return {**self._classic_stats(info), **extra}

    @staticmethod
    def _classic_stats(info) -> dict[str, int]:
        return {"cards_drawn": int(info[C.I_STAT_CARDS_DRAWN]),
                "w4_played": int(info[C.I_STAT_W4_PLAYED]),
                "w4_bluffs": int(info[C.I_STAT_W4_BLUFFS]),
                "challenges": int(info[C.I_STAT_CHALLENGES]),
                "challenges_won": int(info[C.I_STAT_CHALLENGES_WON]),
                "reshuffles": int(info[C.I_STAT_RESHUFFLES]),
                "catches": int(info[C.I_STAT_CATCHES]),
                "stacked": int(info[C.I_STAT_STACKED]),
                "jump_ins": int(info[C.I_STAT_JUMP_INS]),
                "multi_extra": int(info[C.I_STAT_MULTI]),
                "exchanges": int(info[C.I_STAT_EXCHANGES]),
                "flips": int(info[C.I_STAT_FLIPS])}

    @property
    def uno_called(self) -> int | None:
        """The seat that declared UNO this turn (the engine remembers a call for its turn
        only), None if none."""
        c = int(self._state.info[0, C.I_UNO_CALLED])
        return None if c < 0 else c

    @property
    def multi_count(self) -> int:
        """``multi_play``: the cards played so far in the current multi-card play."""
        return int(self._state.info[0, C.I_MULTI_COUNT])

    @property
    def jump_in(self) -> tuple[int, int] | None:
        """In the ``jump_in`` phase (a jump-in, or One Piece's Hancock): ``(seat whose
        card may be answered, seat the turn resumes at)``; else None."""
        info = self._state.info[0]
        if int(info[C.I_PHASE]) != C.PHASE_JUMP_IN or int(info[C.I_JUMP_FROM]) < 0:
            return None
        return int(info[C.I_JUMP_FROM]), int(info[C.I_RESUME_SEAT])

    @property
    def round_just_ended(self) -> bool:
        """Did the last move end a round (of a match, or the game)?"""
        return bool(self._state.info[0, C.I_LAST_ROUND_OVER])

    @property
    def challenge_hand(self) -> tuple[int, np.ndarray] | None:
        """While ``challenge`` is a legal move (the ``challenge`` phase, or a stack with
        ``stack`` on): ``(seat, counts per card type)`` of the player of the card it
        would challenge, the hand the challenge shows the challenger (docs/rules.md
        2.5); None otherwise. The counts are a copy."""
        w4 = int(self._state.info[0, C.I_W4_PLAYER])
        if w4 < 0 or not self._mask[self.layout.CHALLENGE]:
            return None
        return w4, self._state.hands[0, w4].copy()

    # --- for code built on a Game: agents, the chance layer, the contract checks -------
    def hand_counts(self, seat: int) -> np.ndarray:
        """``seat``'s hand as counts per card type (a copy; ``hand`` names them)."""
        return self._state.hands[0, check_seat(seat, self.num_players)].copy()

    @property
    def dark_faces(self) -> np.ndarray | None:
        """Flip deck: the dark face id of each card type in this match (a copy), else
        None."""
        dark = self._dark()
        return None if dark is None else dark.copy()

    @property
    def top_type(self) -> int:
        """The card type on top of the discard pile (``top`` names it)."""
        return int(self._state.discard[0, int(self._state.info[0, C.I_DISCARD_LEN]) - 1])

    def draw_pile_types(self, n: int | None = None) -> np.ndarray:
        """The draw pile as card types, bottom first, top last (a copy). ``n`` reads
        the first ``n`` slots of the pile's array instead of its ``draw_pile_size``:
        the slots above the pile hold the cards drawn from it since the last shuffle,
        the latest drawn lowest (the explicit chance layer rebuilds a reshuffle from
        them)."""
        size = int(self._state.info[0, C.I_DRAW_LEN]) if n is None else int(n)
        if not 0 <= size <= self._state.draw_pile.shape[1]:
            raise ValueError(f"n must be 0..{self._state.draw_pile.shape[1]}, got {n!r}")
        return self._state.draw_pile[0, :size].astype(np.int64)

    def put_in_draw_pile(self, position: int, card_type: int) -> None:
        """Move a card of type ``card_type`` to ``position`` of the draw pile (0 = the
        top), swapping it with the card there; the card comes from ``position`` or
        below. ValueError if there is none of that type there."""
        pile = self._state.draw_pile[0]
        pos = int(self._state.info[0, C.I_DRAW_LEN]) - 1 - int(position)
        if not 0 <= pos < len(pile):
            raise ValueError(f"position must be 0..{self.draw_pile_size - 1}, got "
                             f"{position!r}")
        where = np.flatnonzero(pile[:pos + 1] == card_type)
        if len(where) == 0:
            raise ValueError(f"no {self.config.deck.type_name(card_type)} left in the "
                             f"draw pile")
        j = int(where[-1])
        pile[j], pile[pos] = pile[pos], pile[j]
        self.refresh()

    @property
    def stream(self) -> int:
        """The state of this game's random stream (``uno_env.engine.rng``): it draws the
        reshuffles and ``random_action``. Setting it continues the game from another
        state (search rollouts, the explicit chance layer); the position is unchanged."""
        return int(self._state.rng[0])

    @stream.setter
    def stream(self, value: int) -> None:
        self._state.rng[0] = np.uint64(value)

    @property
    def deal_count(self) -> int:
        """Deals made by this Game (``reset`` makes one): an agent following a game
        sees from it that the game was dealt again."""
        return self._deals

    @property
    def num_moves(self) -> int:
        """Moves made so far in this match."""
        return len(self._actions)

    def moves_since(self, start: int) -> list[tuple[int, int]]:
        """The moves from move ``start`` on: (seat, action id)."""
        return [(seat, a) for seat, a, _ in self._actions[int(start):]]

    def action_id(self, action) -> int:
        """``action`` (an action id of any integer type) as an int; ValueError naming
        the legal moves for anything else."""
        return self._action_id(action)

    @property
    def record(self):
        """The public record's arrays (``engine.public_record.PublicRecord``) of a game
        made with ``public_record=True``, else None. Read it; the kernels write it."""
        return self._record

    @property
    def engine_state(self):
        """The engine's record of this game (``uno_env.engine.state.State``, one row),
        for code that hands it to a kernel (the search agents) or checks the engine's
        invariants (``uno_env.testing``). Read it; a change made to it directly bypasses
        the rules and needs ``refresh()`` after it."""
        return self._state

    @classmethod
    def from_deal(cls, config: Config, hands, top: int, drawn: int = 0) -> "Game":
        """The position after the deal: ``hands`` (counts per card type per seat, the
        first player's including the cards a first ``D2`` made it draw, ``drawn`` of
        them), ``top`` the first card's type, its effect applied (docs/rules.md 2.3, as
        ``rounds.start_round``); the rest of the deck in the draw pile. For the explicit
        chance layer (``uno_env.integrations.openspiel.explicit_chance``), which deals
        card by card."""
        deck, rules, players = config.deck, config.rules, config.num_players
        names = [[deck.type_name(t) for t in range(deck.num_types)
                  for _ in range(int(h[t]))] for h in hands]
        game = cls.__new__(cls)
        game.config = config
        game._setup()
        game.seed = 0
        rank = int(deck.face_rank[deck.type_face[top, 0]])
        wild = rank >= C.FIRST_WILD_RANK
        game._load_scenario(names, deck.type_name(top), "R" if wild else None, [], [], 0,
                            1)
        info = game._state.info[0]
        dealer = rules.dealer
        first = (dealer + 1) % players
        info[C.I_W4_PREV_COLOR] = C.NO_COLOR
        info[C.I_DEALER] = dealer
        info[C.I_STAT_CARDS_DRAWN] = drawn
        current, phase = first, C.PHASE_PLAY
        if wild:
            info[C.I_COLOR] = C.NO_COLOR
            phase = C.PHASE_COLOR
        elif rank == C.SKIP or rank == C.DRAW2:
            current = (dealer + 2) % players
        elif rank == C.REVERSE:
            info[C.I_DIRECTION] = -1
            current = dealer
        info[C.I_CURRENT] = current
        info[C.I_PHASE] = phase
        recount_state(game._state, 0, config.spec)
        game.refresh()
        return game

    def render(self) -> str:
        """A text picture of the table from an omniscient view."""
        lines = [f"round {self.round}  turn {self.turns}  top {self.top}  colour "
                 f"{self.color or '-'}  direction {'+1' if self.direction > 0 else '-1'}  "
                 f"draw pile {self.draw_pile_size}"]
        for seat in range(self.num_players):
            mark = ">" if seat == self.current_player and not self.is_over else " "
            lines.append(f"{mark} player {seat} ({self.hand_sizes[seat]:2d}): "
                         f"{' '.join(self.hand(seat))}")
        if self.is_over:
            lines.append(f"over: winner {self.winner}, round points {self.round_points}"
                         if self.terminated else "over: truncated (max_turns)")
        else:
            lines.append(f"player {self.current_player} to move ({self.phase}): "
                         f"{', '.join(self.legal_moves())}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Game(preset={self.config.preset!r}, num_players={self.num_players}, "
                f"current_player={self.current_player}, phase={self.phase!r}, "
                f"top={self.top!r})")


def game_of(target) -> Game:
    """The ``Game`` behind ``target``: a Game, or an environment that holds one
    (``.game``, or through ``.unwrapped``: the AEC env). For agents that follow one
    game (``attach``)."""
    seen = set()
    while not isinstance(target, Game):
        if id(target) in seen or target is None:
            break
        seen.add(id(target))
        inner = getattr(target, "game", None)
        target = inner if inner is not None else getattr(target, "unwrapped", None)
    if not isinstance(target, Game):
        raise ValueError("attach() takes a uno_env Game or an environment that has one "
                         "(the AEC env: env.unwrapped.game)")
    return target
