"""Learning one seat against opponents: ``LearnerBatch`` (many games, numpy in and out)
and ``SingleAgentEnv`` (a Gymnasium env on one game of it).

    >>> env = SingleAgentEnv("classic", 2, opponents="heuristic", seed=0)
    >>> obs, info = env.reset()
    >>> obs, reward, terminated, truncated, info = env.step(env.action_masks().argmax())

The opponents play between two of the learner's decisions: named baseline agents
("random", "greedy", "heuristic") inside numba (``uno_env.engine.learner``), the search
agent "mcts" ("mcts:400" for 400 rollouts a decision, the names of ``simulate``) inside
numba too, other agents (any object with ``act_batch(observations, masks)``, e.g.
``agents.PPOAgent``) in batches from Python. The reward of a step is the learner's own reward from everything
that happened since its last decision (docs/rules.md 7), so it sees its loss when an opponent
goes out. Observations are the learner's, in the documented layout of
``uno_env.engine.observe``.

``opponents`` is one of:

* a name or an agent object: every opponent seat;
* a sequence of ``num_players - 1`` of them: the seats after the learner, in seat order;
* a list of such line-ups (lists): each game draws one of them uniformly.

A search opponent plays game ``i`` as it does in ``simulate``: it keeps the belief of
that game's public moves (``engine.belief``, every move of the game watched, the
learner's included) and draws from the game's search stream
(``seed_stream(seed ^ SEARCH_SALT, i)``, shared by the game's search seats), so the
games do not depend on the batch size. A batch with a search opponent runs on the
``search`` entry point (``engine.search``); the others never compile it.

``threads`` splits a step's games over Python threads running the kernel side by side
(it releases the GIL): each thread plays its share of the slots, and the games that
ended get their successors afterwards in slot order, so the games are the same on any
number of threads (the default: every core for a batch of at least
``ROWS_PER_THREAD`` games a thread; one thread with a search opponent, whose search
buffers are shared).

``seat`` is the learner's seat, or "random" for a seat drawn per game. Game ``i`` of a
seed deals the same cards as ``Game(...).reset(seed, index=i)``. ``num_players``
defaults to 4, as everywhere in the package (``env``, ``Game``, ``EverySeatBatch``).

Registered with Gymnasium as ``uno_env/UnoSingleSeat-v3``
(``gymnasium.make("uno_env/UnoSingleSeat-v3", preset="street", num_players=3,
opponents="heuristic")``; :mod:`uno_env.envs.registration`).

Version History (``SingleAgentEnv``; CHANGELOG.md has the project's log)
    * v0 (0.1.0): first release; ``num_players`` defaulted to 2 (id ``uno_env/Uno-v0``).
    * v1 (0.1.x, id ``uno_env/Uno-v1``): ``num_players`` defaults to 4. With
      ``num_players`` given, v0 and v1 play the same games.
    * v2 (0.2.0, id ``uno_env/UnoSingleSeat-v2``; the 0.1 ids are retired): the step
      that ends an episode (and ``action_masks()`` after it) reports a mask of every
      action instead of none, so that a masked sampler still
      returns an action for the step Gymnasium's next-step autoreset ignores
      (``make_vec(..., vectorization_mode="sync"/"async")``; ``SingleAgentEnv``'s
      docstring). The games, observations and rewards are v1's.
    * v3 (0.2.0, id ``uno_env/UnoSingleSeat-v3``): the observation ends with two fields,
      ``shown_hand`` and ``shown_by``: the hand the learner's last challenge showed it
      and whose it was (``uno_env.engine.observe``; with ``bluff`` on, every preset's
      default). Every other field keeps its place, so v2's observation is the first
      entries of v3's. The games and rewards are v2's. ``gymnasium.make`` of the v2 id
      still gives v2's observation, with a ``DeprecationWarning``
      (``uno_env.envs.legacy``).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium
import numba
import numpy as np

from uno_env.rules.actions import action_id
from uno_env.rules.config import make_config
from uno_env.engine import codes as C
from uno_env.engine import learner as K
from uno_env.engine.batch import STAT_SLOTS
from uno_env.engine.entry import BoundEntry, kernels
from uno_env.engine.names import AGENT_CODES, MCTS_BASE, agent_code
from uno_env.engine.search import OP_LEARNER, SEARCH_SALT, idle_arguments
from uno_env.engine.state import allocate
from uno_env.engine.public_record import allocate_record
from uno_env.rules import check_seed
from uno_env.envs.every_seat import BatchRecord, as_actions


def _is_agent_object(x) -> bool:
    return callable(getattr(x, "act_batch", None))


def parse_opponents(opponents, num_players: int):
    """``opponents`` (module docstring) -> (int32[M, P-1] seat kinds, Python agents)."""
    n = num_players - 1
    externals: list = []
    names = f"{', '.join(AGENT_CODES)}, mcts (mcts:BUDGET, e.g. mcts:400)"

    def kind(x) -> int:
        if isinstance(x, str):
            try:
                code = agent_code(x)
            except ValueError as err:   # a malformed search name, e.g. "mcts:0"
                raise ValueError(f"opponent {err}; named opponents are {names}") from None
            if code is None:
                raise ValueError(f"unknown opponent {x!r}; named opponents are "
                                 f"{names}, or pass an agent object "
                                 f"with act_batch(observations, masks)")
            return code
        if getattr(x, "search_code", None) is not None:
            # a search agent (agents.MCTSAgent) plays by its code: the game's stream
            return int(x.search_code)
        if _is_agent_object(x):
            for j, e in enumerate(externals):
                if e is x:
                    return K.EXTERNAL - j
            externals.append(x)
            return K.EXTERNAL - (len(externals) - 1)
        raise ValueError(f"an opponent is a name ({names}) or an object "
                         f"with act_batch(observations, masks), got {x!r}")

    def lineup(x) -> list[int]:
        if isinstance(x, str) or _is_agent_object(x) or not isinstance(x, (list, tuple)):
            return [kind(x)] * n
        x = list(x)
        if len(x) == 1:
            return [kind(x[0])] * n
        if len(x) != n:
            raise ValueError(f"a line-up names 1 or num_players - 1 = {n} opponents, got "
                             f"{len(x)}; for a mix of line-ups pass a list of lists, "
                             f"e.g. [['random'], ['heuristic']]")
        return [kind(y) for y in x]

    if isinstance(opponents, (list, tuple)) and opponents \
            and all(isinstance(x, (list, tuple)) for x in opponents):
        table = [lineup(x) for x in opponents]
    else:
        if isinstance(opponents, (list, tuple)) and not opponents:
            raise ValueError("opponents is empty")
        table = [lineup(opponents)]
    return np.array(table, np.int32).reshape(len(table), n), externals


#: the fewest games a thread steps when ``threads`` is left to the default (below it,
#: handing the work to a thread costs more than it saves)
ROWS_PER_THREAD = 128
_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """One pool per thread count, shared by every batch of the process."""
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(max_workers=threads,
                                             thread_name_prefix="uno-env-learner")
    return _POOLS[threads]


# a forked child (a SubprocVecEnv worker, say) has none of the parent's pool threads: a
# pool inherited from the parent would never run a job, so the child makes its own
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOLS.clear)


class LearnerBatch(BatchRecord):
    """``num_envs`` games in which one seat learns (see the module docstring).

    ``reset()`` returns ``(obs, mask)`` of the learner in every game; ``step(actions)``
    returns ``(obs, mask, reward, terminated, truncated)``. The arrays are reused by the
    next call. With ``auto_reset`` a game that ends is replaced at once by the next game
    index (its last observation is in ``final_obs``); without it the game stays ended.
    """

    def __init__(self, num_envs: int, preset: str = "classic", num_players: int = 4,
                 opponents: Any = "random", seat: int | str = "random", seed: int = 0,
                 auto_reset: bool = True, threads: int | None = None,
                 public_record: bool = False, **rules):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        cores = numba.config.NUMBA_NUM_THREADS
        if threads is not None and (isinstance(threads, bool) or not isinstance(
                threads, (int, np.integer)) or not 1 <= threads <= cores):
            raise ValueError(f"threads must be None or an integer from 1 to {cores}, got "
                             f"{threads!r}")
        self.config = cfg = make_config(preset, num_players, **rules)
        self.layout = cfg.layout
        self.num_envs = int(num_envs)
        self.num_players = cfg.num_players
        self.seed = check_seed(seed)
        if seat == "random":
            seat_code = -1
        elif isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) \
                and 0 <= seat < cfg.num_players:
            seat_code = int(seat)
        else:
            raise ValueError(f"seat must be 'random' or a seat 0..{cfg.num_players - 1}, "
                             f"got {seat!r}")
        self.seat = seat
        lineups, self.external_agents = parse_opponents(opponents, cfg.num_players)
        self.opponents = opponents
        self._state = allocate(self.num_envs, cfg.num_players, cfg.deck.num_types,
                               cfg.deck.num_cards, cfg.deck.double_sided)
        #: observations end with the public record (docs/environments.md)
        self.public_record = cfg.check_public_record(public_record)
        self._obs_size = cfg.observation_size(self.public_record)
        self._lb = K.allocate_learner(self.num_envs, cfg.num_players, self._obs_size,
                                      self.layout.size, lineups, seat_code, auto_reset)
        self._no_rows = np.zeros(0, np.int64)
        self._no_obs = np.zeros((0, self._obs_size), np.float32)
        self._no_mask = np.zeros((0, self.layout.size), np.uint8)
        #: a search opponent: the search entry point, with each game's search stream
        #: and belief (module docstring); else the learner entry point
        self.searches = bool((lineups >= MCTS_BASE).any())
        self._records = None
        if self.public_record:
            if self.searches:
                raise ValueError("public_record=True is not available with a search "
                                 "opponent (mcts): use numba or Python opponents")
            self._records = allocate_record(self.num_envs, cfg.num_players,
                                           cfg.deck.num_types, cfg.record_offsets())
            self._kernel = BoundEntry(kernels(cfg.variant).learner_record)
            threads = 1  # the record's step is not split over threads
        elif self.searches:
            self._kernel = kernels(cfg.variant).search
            self._search_rng = np.zeros(self.num_envs, np.uint64)
            self._belief = np.zeros(self._state.hands.shape, np.uint8)
            self._idle_outputs = idle_arguments(cfg.num_players, self.layout.obs_size,
                                                self.layout.size)[0]
            self._no_codes = np.zeros(1, np.int64)
        else:
            # called without numba's type dispatch (engine.entry.BoundEntry)
            self._kernel = BoundEntry(kernels(cfg.variant).learner)
        if threads is None:
            threads = max(1, min(cores, self.num_envs // ROWS_PER_THREAD))
        #: the threads a step uses (one with a search opponent)
        self.threads = 1 if self.searches else min(int(threads), self.num_envs)
        # each thread's slots, and its own scratch for the numba opponents' decisions
        self._parts = [(rows, self._lb if k == 0 else self._lb._replace(
                            scratch_mask=np.zeros_like(self._lb.scratch_mask),
                            scratch_obs=np.zeros_like(self._lb.scratch_obs),
                            scratch_work=np.zeros_like(self._lb.scratch_work)))
                       for k, rows in enumerate(np.array_split(
                           np.arange(self.num_envs, dtype=np.int64), self.threads))]
        self._rows_kernel = kernels(cfg.variant).learner_rows
        self._ready = False

    def _call(self, op, arg=0, rows=None, actions=None, obs=None, mask=None) -> int:
        """One ``engine.learner.learner_kernel`` operation (unused arrays are empty), or
        with a search opponent the same operation of ``engine.search.search_kernel``."""
        rows = self._no_rows if rows is None else rows
        actions = self._no_rows if actions is None else actions
        obs = self._no_obs if obs is None else obs
        mask = self._no_mask if mask is None else mask
        seed = np.uint64(self.seed)
        if self.searches:
            return self._kernel(OP_LEARNER + op, self._state, self._state,
                                self.config.spec, self._no_codes, seed, arg, STAT_SLOTS,
                                self._search_rng, self._belief, actions,
                                *self._idle_outputs, self._lb, rows, obs, mask)
        if self._records is not None:
            return self._kernel(op, self._state, self.config.spec, self._lb, seed, int(arg),
                                rows, actions, obs, mask, self._records)
        return self._kernel(op, self._state, self.config.spec, self._lb, seed, int(arg), rows,
                            actions, obs, mask)

    # --- views of the buffers (reused between calls) ------------------------------------
    @property
    def obs(self) -> np.ndarray:
        return self._lb.obs

    @property
    def mask(self) -> np.ndarray:
        return self._lb.mask

    @property
    def final_obs(self) -> np.ndarray:
        """float32[B, D]: the learner's last observation of the episode that ended in
        the last step (rows where ``terminated | truncated``)."""
        return self._lb.final_obs

    @property
    def learner_seat(self) -> np.ndarray:
        return self._lb.learner

    @property
    def game_index(self) -> np.ndarray:
        return self._lb.game_index

    @property
    def done(self) -> np.ndarray:
        """bool[B]: games that have ended and wait for a reset (only without auto-reset)."""
        return self._lb.waiting == K.DONE

    def reset(self, seed: int | None = None, first_game: int = 0):
        """Deal games ``first_game .. first_game + num_envs - 1`` of ``seed`` (default: the
        constructor's) and play each to the learner's first decision."""
        if seed is not None:
            self.seed = check_seed(seed)
        first_game = check_seed(first_game)
        self._call(K.OP_RESET, first_game)
        self._run_externals()
        self._ready = True
        return self._lb.obs, self._lb.mask

    @classmethod
    def from_game(cls, game, seat: int, opponents: Any = "random") -> "LearnerBatch":
        """One slot continuing ``game`` (a ``uno_env.Game``, e.g. from
        ``Game.from_scenario``) with the learner at ``seat``; the opponents play first if
        it is not the learner's turn. The game itself is not changed, and the slot is not
        reset when it ends. The public record, if ``game`` keeps one, carries over."""
        cfg = game.config
        batch = cls(1, cfg.preset, cfg.num_players, opponents, seat, game.seed,
                    auto_reset=False, public_record=game.public_record,
                    **cfg.rule_overrides())
        if game.public_record:
            for mine, theirs in zip(batch._records[:3], game.record[:3]):
                mine[...] = theirs
        for mine, theirs in zip(batch.engine_state, game.engine_state):
            mine[...] = theirs
        batch._call(K.OP_RESUME, 0)
        batch._run_externals()
        batch._ready = True
        return batch

    def step(self, actions):
        if not self._ready:
            raise ValueError("call reset() before step()")
        actions = as_actions(actions, self.num_envs)
        lb = self._lb
        bad = self._call(K.OP_STEP, actions=actions) if self.threads == 1 else \
            self._step_threads(actions)
        if bad >= 0:
            raise ValueError(f"action {int(actions[bad])} is not legal in game {bad}; legal "
                             f"moves: {', '.join(self._legal_moves(bad))}. No game was "
                             f"stepped.")
        self._run_externals()
        return lb.obs, lb.mask, lb.reward, lb.terminated, lb.truncated

    def _step_threads(self, actions) -> int:
        """``OP_STEP`` split over ``self.threads`` (module docstring): the actions are
        checked first, so an illegal one changes nothing. Returns -1 or its slot."""
        lb = self._lb
        waits = lb.waiting == K.LEARNER
        legal = (actions >= 0) & (actions < lb.mask.shape[1]) & waits
        rows = np.flatnonzero(legal)
        legal[rows] = lb.mask[rows, actions[rows]] != 0
        bad = np.flatnonzero(waits & ~legal)
        if len(bad):
            return int(bad[0])
        seed, spec = np.uint64(self.seed), self.config.spec
        kernel = self._rows_kernel
        args = [(K.OP_STEP_ROWS, self._state, spec, part, seed, rows, actions)
                for rows, part in self._parts]
        auto_reset = int(lb.params[1])
        if auto_reset:
            lb.params[1] = K.LATER      # games that end wait for OP_DEAL_ENDED
        try:
            # the first share in this thread: waking a pool thread costs more than it saves
            jobs = [_pool(self.threads - 1).submit(kernel, *a) for a in args[1:]]
            kernel(*args[0])
            for job in jobs:
                job.result()
        finally:
            lb.params[1] = auto_reset
        kernel(K.OP_DEAL_ENDED, self._state, spec, lb, seed, self._no_rows, actions)
        return -1

    def _legal_moves(self, g: int) -> list[str]:
        """The learner's legal moves in game ``g``, as move strings."""
        side = int(self._state.info[g, C.I_SIDE])
        dark = self._state.dark_face[g] if self.config.deck.double_sided else None
        legal = np.flatnonzero(self._lb.mask[g])
        return [self.layout.decode(a, side, dark) for a in legal]

    def _run_externals(self) -> None:
        """Let the Python opponents decide, in batches, until every game waits for the
        learner (or is done)."""
        if not self.external_agents:
            return
        lb = self._lb
        obs_size, size = self._obs_size, self.layout.size
        while True:
            # Python opponents wait as EXTERNAL, EXTERNAL - 1, ...; a finished game
            # (DONE, below them all) waits for no one
            pending = np.flatnonzero((lb.waiting <= K.EXTERNAL) & (lb.waiting > K.DONE))
            if len(pending) == 0:
                return
            who = K.EXTERNAL - lb.waiting[pending]
            for j in np.unique(who):
                rows = pending[who == j].astype(np.int64)
                obs = np.empty((len(rows), obs_size), np.float32)
                mask = np.empty((len(rows), size), np.uint8)
                self._call(K.OP_EXTERNAL_OBSERVE, rows=rows, obs=obs, mask=mask)
                agent = self.external_agents[j]
                actions = np.ascontiguousarray(agent.act_batch(obs, mask), np.int64)
                if actions.shape != rows.shape:  # the entry point reads exactly int64[n]
                    raise ValueError(f"opponent {agent!r}: act_batch returned actions of "
                                     f"shape {actions.shape}, expected ({len(rows)},)")
                bad = self._call(K.OP_EXTERNAL_STEP, rows=rows, actions=actions, mask=mask)
                if bad >= 0:
                    raise RuntimeError(f"opponent {agent!r} chose illegal action "
                                       f"{int(actions[bad])} in game {int(rows[bad])}")


class SingleAgentEnv(gymnasium.Env):
    """A Gymnasium env for one learning seat (see the module docstring).

    ``reset(seed=s)`` deals game 0 of seed ``s``; each later ``reset()`` deals the next
    game of that seed, so a run is reproducible from the constructor's ``seed``. The
    info dict carries ``action_mask``, the learner's ``seat`` and the ``game_index``;
    ``action_masks()`` is what sb3-contrib's ``MaskablePPO`` asks for.

    The mask of an ended episode (the ``info`` of the step that ends it, and
    ``action_masks()`` until the next ``reset()``) marks every action: no move is left,
    but Gymnasium's vector envs in their default next-step autoreset mode
    (``gymnasium.make_vec(..., vectorization_mode="sync")`` or ``"async"``) send one
    more action, which they ignore while they reset the env, and a masked sampler
    cannot draw from an empty mask. ``step()`` after the end still raises; the
    ``terminated``/``truncated`` flags, not the mask, say the episode is over.

    An illegal action (any action of the space may come, e.g. from an agent without
    masks or from ``gymnasium``'s env checker) is handled by ``illegal_action``:
    "lose" (default) ends the episode with ``illegal_reward`` and
    ``info["illegal_action"] = True``, the game state untouched; "raise" raises a
    ValueError listing the legal moves."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, preset: str = "classic", num_players: int = 4,
                 opponents: Any = "random", seat: int | str = "random", seed: int = 0,
                 render_mode: str | None = None, illegal_action: str = "lose",
                 illegal_reward: float = -1.0, public_record: bool = False, **rules):
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got "
                             f"{illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.batch = LearnerBatch(1, preset, num_players, opponents, seat, seed,
                                  auto_reset=False, public_record=public_record, **rules)
        self.config = self.batch.config
        self.observation_space = self.config.observation_space_with(
            self.batch.public_record)
        self.action_space = self.config.action_space
        self._next_game = 0
        self._ready = False
        self._forfeited = False

    def _info(self) -> dict:
        b = self.batch
        return {"action_mask": self.action_masks().astype(np.int8),
                "seat": int(b.learner_seat[0]), "game_index": int(b.game_index[0])}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.batch.seed = check_seed(seed)
            self._next_game = 0
        obs, _ = self.batch.reset(first_game=self._next_game)
        self._next_game += 1
        self._ready = True
        self._forfeited = False
        return obs[0].copy(), self._info()

    def step(self, action):
        if not self._ready:
            raise ValueError("call reset() before step()")
        if self.batch.done[0] or self._forfeited:
            raise ValueError("the episode is over: call reset()")
        if isinstance(action, str):
            st = self.batch.engine_state
            dark = st.dark_face[0] if self.config.deck.double_sided else None
            action = self.config.layout.encode(action, int(st.info[0, C.I_SIDE]), dark,
                                               self.batch.mask[0])
        try:
            a = action_id(action, self.action_space.n)
        except ValueError as err:
            raise ValueError(f"{err}, or a move string such as 'R5'") from None
        if not (0 <= a < self.action_space.n and self.batch.mask[0, a]) \
                and self.illegal_action == "lose":
            self._forfeited = True
            info = self._info()          # an ended episode: every action (class doc)
            info["illegal_action"] = True
            return self.batch.obs[0].copy(), self.illegal_reward, True, False, info
        if not 0 <= a < self.action_space.n:  # "raise" (and no int64 for the kernel)
            raise ValueError(f"action {a} is out of range 0..{self.action_space.n - 1}; "
                             f"legal moves: {', '.join(self.batch._legal_moves(0))}")
        obs, _, reward, terminated, truncated = self.batch.step(np.array([a], np.int64))
        return (obs[0].copy(), float(reward[0]), bool(terminated[0]), bool(truncated[0]),
                self._info())

    def action_masks(self) -> np.ndarray:
        """bool[A]: the learner's legal actions now; once the episode ended, every
        action (the class docstring says why)."""
        if self._forfeited or self.batch.done[0]:
            return np.ones(self.action_space.n, bool)
        return self.batch.mask[0].astype(bool)

    def render(self):
        if self.render_mode != "ansi":
            return None
        b, deck = self.batch, self.config.deck
        st, seat = b.engine_state, int(b.learner_seat[0])
        counts = st.hands[0, seat]
        lay, side = self.config.layout, int(st.info[0, C.I_SIDE])
        dark = st.dark_face[0] if deck.double_sided else None
        hand = [lay.card_name(t, dark) for t in np.flatnonzero(counts)
                for _ in range(counts[t])]
        top = lay.card_name(int(st.discard[0, st.info[0, C.I_DISCARD_LEN] - 1]), dark)
        legal = [lay.decode(a, side, dark) for a in np.flatnonzero(b.mask[0])]
        return (f"game {int(b.game_index[0])}, learner seat {seat}; top {top}; hand "
                f"{' '.join(hand)}; opponents hold {st.hand_size[0].tolist()}; legal: "
                f"{' '.join(legal) or '-'}")
