"""``EverySeatBatch``: many games stepped together by one kernel call, numpy in and out,
every seat decided by the caller (self-play, or any agents of your own in every seat).
Not a ``gymnasium.vector.VectorEnv`` (that is ``GymVectorEnv``, one learning seat): in
0.1 it was called ``VectorEnv``, a name that still works in 0.2 with a warning.

    >>> venv = EverySeatBatch(1024, preset="classic", num_players=4, seed=0)
    >>> obs, mask, player = venv.reset()
    >>> obs, mask, player, rewards, terminated, truncated = venv.step(actions)

``obs[b]`` and ``mask[b]`` belong to ``player[b]``, the seat that decides next in game
``b``. A game that ends in a step reports its ``rewards[b]`` (one per seat) and
``terminated[b]``/``truncated[b]`` and is replaced at once by the next game (auto-reset):
the returned observation is already the new game's. ``game_index[b]`` names the game in
slot ``b``: ``Game(...).reset(seed, index=game_index[b])`` deals the same cards, so any
episode can be replayed through the ``Game`` API.

``final_obs=True`` keeps the ended game's last view, as Gymnasium's vector envs do:
``venv.final_obs`` (float32[B, P, D], reused by every step) gets, in the step where slot
``b``'s game ends, ``final_obs[b, q]`` = seat ``q``'s observation of it (every seat, by
absolute index), written before the next game is dealt; only the rows with
``terminated | truncated`` belong to that step, the others hold older games. It is
float32 whatever ``obs_dtype`` is (it is written once a game, not once a step). Off
(the default), ``final_obs`` is None and the step writes nothing more.
``observe(rows, seats)`` gives any seat's observation of the game now in a slot (a new
float32[n, D] array), e.g. to bootstrap each seat's unfinished trajectory at the end of
a rollout.

``obs_dtype`` picks what the kernel writes: ``"float32"`` (the default, the observation
space of every other API), ``"uint8"`` (the same values, a quarter of the bytes: every
field is a count of cards, a one-hot or a flag; refused for a match whose scores may pass
255), or ``None`` (no observation at all, ``obs`` is None: masks and rewards only, for
rollouts of agents that read the state themselves).
"""
from __future__ import annotations

import gymnasium
import numpy as np

from uno_env.rules.config import make_config
from uno_env.engine import codes as C
from uno_env.engine.batch import OP_OBSERVE, OP_RANDOM
from uno_env.engine.entry import BoundEntry, kernels
from uno_env.engine.obs_layout import observation_slices
from uno_env.engine.public_record import allocate_record
from uno_env.engine.state import allocate, state_nbytes
from uno_env.rules import check_seed

#: ``obs_dtype`` values (module docstring)
OBS_DTYPES = ("float32", "uint8", None)


def check_obs_dtype(obs_dtype, config) -> str | None:
    """``obs_dtype`` as ``"float32"``, ``"uint8"`` or None; ValueError naming the valid
    values, or why uint8 cannot hold this configuration's observation."""
    if obs_dtype is not None:
        try:
            name = np.dtype(obs_dtype).name
        except TypeError:
            name = None
        if name not in OBS_DTYPES[:2]:
            raise ValueError(f"obs_dtype must be 'float32', 'uint8' or None, got "
                             f"{obs_dtype!r}")
        obs_dtype = name
    if obs_dtype == "uint8" and uint8_high(config).max() > 255:
        raise ValueError(f"obs_dtype='uint8' holds values up to 255, but the match scores "
                         f"of target_score={config.rules.target_score} reach "
                         f"{int(uint8_high(config).max())}: use obs_dtype='float32'")
    return obs_dtype


def uint8_high(config) -> np.ndarray:
    """The observation's bounds (``observation_space.high``), with the match scores at 0
    in a single round (``target_score=0``), where they stay 0 (docs/rules.md 2.11)."""
    high = config.observation_space.high.copy()
    if config.rules.target_score == 0:
        high[observation_slices(config.deck.num_types, config.num_players)["scores"]] = 0
    return high


def as_actions(actions, num_envs: int) -> np.ndarray:
    """``actions`` as int64[num_envs], or a ValueError naming the expected shape."""
    actions = np.asarray(actions)
    if actions.shape != (num_envs,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"actions must be an integer array of shape ({num_envs},), got "
                         f"{actions.dtype} {actions.shape}")
    if actions.dtype == np.uint64 and num_envs and actions.max() > np.iinfo(np.int64).max:
        # as int64 it would wrap round to a negative id, and be reported as that
        raise ValueError(f"actions are action ids; {int(actions.max())} is none")
    # contiguous int64: the step's bound entry point reads exactly that type (no dispatch)
    return np.ascontiguousarray(actions, dtype=np.int64)


class BatchRecord:
    """What the batches (``EverySeatBatch``, ``LearnerBatch``) show of their games'
    engine record (``self._state``)."""

    @property
    def engine_state(self):
        """The engine's record of these games (``uno_env.engine.state.State``, one row
        per slot), for code that hands it to a kernel (search agents) or checks the
        engine's invariants (``uno_env.testing``). Read it; do not change it."""
        return self._state

    @property
    def winner(self) -> np.ndarray:
        """int[B]: the match winner of each slot's game, -1 while playing or if
        truncated."""
        return self._state.info[:, C.I_MATCH_WINNER].copy()


class EverySeatBatch(BatchRecord):
    """``num_envs`` games of one configuration (see the module docstring)."""

    def __init__(self, num_envs: int, preset: str = "classic", num_players: int = 4,
                 seed: int = 0, auto_reset: bool = True, obs_dtype: str | None = "float32",
                 final_obs: bool = False, public_record: bool = False, **rules):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.config = make_config(preset, num_players, **rules)
        self.layout = self.config.layout
        self.num_envs = int(num_envs)
        self.num_players = self.config.num_players
        self.seed = check_seed(seed)
        #: replace a finished game at once; if False it stays finished (see ``done``)
        self.auto_reset = bool(auto_reset)
        cfg = self.config
        self._state = allocate(self.num_envs, cfg.num_players, cfg.deck.num_types,
                               cfg.deck.num_cards, cfg.deck.double_sided)
        self.obs_dtype = check_obs_dtype(obs_dtype, cfg)
        #: observations end with the public record (docs/environments.md)
        self.public_record = cfg.check_public_record(public_record)
        if self.public_record and self.obs_dtype == "uint8":
            raise ValueError("obs_dtype='uint8' is not available with public_record=True "
                             "(the record's counts may pass 255): use obs_dtype='float32'")
        self._obs_size = obs_size = cfg.observation_size(self.public_record)
        rows = {name: self.num_envs if self.obs_dtype == name else 0
                for name in ("float32", "uint8")}
        # the kernel writes the buffer with rows; the other stays empty (batch.vector_kernel)
        self._obs = np.zeros((rows["float32"], obs_size), np.float32)
        self._obs_u8 = np.zeros((rows["uint8"], obs_size), np.uint8)
        self._obs_out = {"float32": self._obs, "uint8": self._obs_u8, None: None}[
            self.obs_dtype]
        if not isinstance(final_obs, (bool, np.bool_)):
            raise ValueError(f"final_obs must be True or False, got {final_obs!r}")
        # every seat's observation of a game that ended, written by the kernel before
        # the next game is dealt; 0 rows (nothing written) unless asked for
        self._final_obs = np.zeros((self.num_envs if final_obs else 0, cfg.num_players,
                                    obs_size), np.float32)
        #: float32[B, P, D] with ``final_obs=True``, else None: ``final_obs[b, q]`` is
        #: seat ``q``'s observation of the game that ended in slot ``b`` in the last
        #: step (only the rows with ``terminated | truncated`` are of that step; the
        #: others hold older games). Reused by every step, like the returned arrays.
        self.final_obs = self._final_obs if final_obs else None
        self._mask = np.zeros((self.num_envs, self.layout.size), np.uint8)
        self._player = np.zeros(self.num_envs, np.int32)
        self._rewards = np.zeros((self.num_envs, cfg.num_players), np.float32)
        self._terminated = np.zeros(self.num_envs, np.bool_)
        self._truncated = np.zeros(self.num_envs, np.bool_)
        self.game_index = np.zeros(self.num_envs, np.int64)
        self._next_index = np.zeros(1, np.int64)
        self._records = None
        if self.public_record:
            self._records = allocate_record(self.num_envs, cfg.num_players,
                                           cfg.deck.num_types, cfg.record_offsets())
            self._kernel = BoundEntry(kernels(cfg.variant).vector_record)
        else:
            self._kernel = BoundEntry(kernels(cfg.variant).vector)
        self._no_actions = np.zeros(self.num_envs, np.int64)
        self._box = None             # a GameBox, for stream_random_actions and observe
        self._ready = False
        space = cfg.observation_space_with(self.public_record)
        if self.obs_dtype == "uint8":
            space = gymnasium.spaces.Box(0, uint8_high(cfg).astype(np.uint8), space.shape,
                                         np.uint8)
        #: the space of one row of ``obs`` (None with ``obs_dtype=None``)
        self.observation_space = None if self.obs_dtype is None else space
        self.action_space = cfg.action_space

    @property
    def state_bytes_per_game(self) -> int:
        return state_nbytes(self._state)

    def reset(self, seed: int | None = None, first_game: int = 0):
        """Deal games ``first_game .. first_game + num_envs - 1`` of ``seed`` (default:
        the constructor's seed)."""
        if seed is not None:
            self.seed = check_seed(seed)
        first_game = check_seed(first_game)
        self._next_index[0] = first_game
        self._run(True, self._no_actions)
        self._ready = True
        return self._obs_out, self._mask, self._player

    def step(self, actions):
        """Step every game with ``actions[b]`` (int[B]). Returns ``(obs, mask, player,
        rewards, terminated, truncated)``; the arrays are reused by the next call.
        ValueError (nothing changed) if any action is illegal."""
        if not self._ready:
            raise ValueError("call reset() before step()")
        actions = as_actions(actions, self.num_envs)
        bad = self._run(False, actions)
        if bad >= 0:
            side = int(self._state.info[bad, C.I_SIDE])
            dark = self._state.dark_face[bad] if self.config.deck.double_sided else None
            legal = [self.layout.decode(a, side, dark)
                     for a in np.flatnonzero(self._mask[bad])]
            raise ValueError(f"action {int(actions[bad])} is not legal in game {bad} "
                             f"(player {self._player[bad]}); legal moves: "
                             f"{', '.join(legal)}. No game was stepped.")
        return (self._obs_out, self._mask, self._player, self._rewards, self._terminated,
                self._truncated)

    def _run(self, reset: bool, actions: np.ndarray) -> int:
        """One call of the vector entry point (``engine.batch.vector_kernel``), without
        numba's type dispatch (``BoundEntry``: about 6.5 -> 2.4 us a call, 4 ns a game
        at B = 1,024, 250 at B = 16)."""
        if self._records is not None:
            return self._kernel(bool(reset), self._state, self.config.spec, self._records,
                                actions, np.uint64(self.seed), self._next_index,
                                self.game_index, self._obs, self._obs_u8, self._final_obs,
                                self._mask, self._player, self._rewards, self._terminated,
                                self._truncated, self.auto_reset)
        return self._kernel(bool(reset), self._state, self.config.spec, actions,
                            np.uint64(self.seed), self._next_index, self.game_index,
                            self._obs, self._obs_u8, self._final_obs, self._mask,
                            self._player, self._rewards, self._terminated, self._truncated,
                            self.auto_reset)

    @property
    def done(self) -> np.ndarray:
        """bool[B]: games that have ended (only ever True without ``auto_reset``)."""
        return self._state.info[:, C.I_STATUS] != C.STATUS_PLAYING

    @property
    def round_points(self) -> np.ndarray:
        """int[B, P]: points of each slot's last finished round."""
        return self._state.round_points.copy()

    def stream_random_actions(self, rows) -> np.ndarray:
        """``simulate``'s ``random`` agent in games ``rows`` (int[n], playing): a uniformly
        random legal action each, drawn from the game's own random stream, so a game
        with random seats goes on as it does in ``simulate`` (the tournament's mixed
        lineups). Consumes those games' streams; returns int64[n]."""
        box, kernel = self._game_box()
        rows = np.asarray(rows, np.int64)
        out = np.empty(len(rows), np.int64)
        for i, g in enumerate(rows):
            out[i] = kernel(OP_RANDOM, box, int(g), 0)
        if (out < 0).any():
            raise ValueError(f"games {rows[out < 0].tolist()} are over: no legal action")
        return out

    def observe(self, rows, seats) -> np.ndarray:
        """float32[n, D], a new array: row ``i`` is seat ``seats[i]``'s observation of
        the game now in slot ``rows[i]`` (any seat, not only the one deciding; absolute
        seat index), the same vector ``Game.observe`` gives. For self-play that
        bootstraps a seat's unfinished trajectory from that seat's current observation
        at the end of a rollout. ``rows`` and ``seats``: integer sequences of one
        length (``seats`` may be one integer for every row). Float32 whatever
        ``obs_dtype`` is. Reads the games only (their random streams are untouched)."""
        if not self._ready:
            raise ValueError("call reset() before observe()")
        rows = self._indices(rows, "rows", self.num_envs, "slot")
        seats = np.asarray(seats)
        if seats.ndim == 0:
            seats = np.full(len(rows), seats)
        seats = self._indices(seats, "seats", self.num_players, "seat")
        if seats.shape != rows.shape:
            raise ValueError(f"rows and seats must have the same length, got {len(rows)} "
                             f"rows and {len(seats)} seats")
        box, kernel = self._game_box()
        out = np.empty((len(rows), self._obs_size), np.float32)
        for i in range(len(rows)):
            if self._records is not None:
                self._record_kernel(OP_OBSERVE, box, self._records, int(rows[i]),
                                    int(seats[i]))
            else:
                kernel(OP_OBSERVE, box, int(rows[i]), int(seats[i]))
            out[i] = self._box_obs      # OP_OBSERVE writes the box's other_obs
        return out

    @staticmethod
    def _indices(values, name: str, bound: int, what: str) -> np.ndarray:
        """``values`` as int64[n], each in ``0 .. bound - 1``, or a ValueError."""
        array = np.asarray(values)
        if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or
                                   array.size == 0):
            raise ValueError(f"{name} must be a 1-D sequence of integers, got "
                             f"{array.dtype} {array.shape}")
        if array.size and (array.min() < 0 or array.max() >= bound):
            raise ValueError(f"{name} must be {what} indices 0 to {bound - 1}, got "
                             f"{array.tolist()}")
        return array.astype(np.int64)

    def _game_box(self):
        """One ``GameBox`` over this batch's arrays (made at the first use, reused) and
        the game entry point: single-game operations on any slot (``OP_*``)."""
        if self._box is None:
            entry = kernels(self.config.variant)
            self._box_obs = np.zeros(self._obs_size, np.float32)
            self._box = entry.game_box(
                self._state, self.config.spec, np.zeros(self.layout.size, np.uint8),
                np.zeros(self._obs_size, np.float32), self._box_obs)
            self._game_kernel = entry.game
            self._record_kernel = entry.game_record
        return self._box, self._game_kernel

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game (numpy; for tests and benchmarks):
        the legal action with the highest of ``rng``'s float32 draws (one per action)."""
        scores = rng.random(self._mask.shape, dtype=np.float32)
        # illegal actions below every draw: a legal move drawn as 0.0 (odds 2**-24) is
        # still picked over them (it was once scored 0, as the illegal ones, and lost
        # to action 0)
        np.copyto(scores, np.float32(-1.0), where=self._mask == 0)
        return scores.argmax(axis=1)


def __getattr__(name: str):
    if name == "VectorEnv":  # its 0.1 name
        import warnings
        warnings.warn("VectorEnv is now EverySeatBatch (uno-env 0.2: the every-seat batch "
                      "is not a gymnasium.vector.VectorEnv); the old name goes in 0.3",
                      DeprecationWarning, stacklevel=2)
        return EverySeatBatch
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
