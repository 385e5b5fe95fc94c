"""``GymVectorEnv``: many single-seat games as a ``gymnasium.vector.VectorEnv``, all
stepped by one numba call.

    >>> envs = GymVectorEnv(64, "classic", num_players=2, opponents="random", seed=0)
    >>> obs, infos = envs.reset()
    >>> actions = np.array([m.nonzero()[0][0] for m in infos["action_mask"]])
    >>> obs, rewards, terminations, truncations, infos = envs.step(actions)

It is :class:`uno_env.envs.single_seat.SingleAgentEnv`, ``num_envs`` times over, in the form
CleanRL, TorchRL or Tianshou loops expect: one seat of each game learns, the opponents
play inside numba (or, for agent objects, in batches from Python) between two of its
decisions, and one ``step`` applies the learner's action in every game and plays every
game on to the learner's next decision (``uno_env.envs.single_seat.LearnerBatch``, one kernel
call). Observations, actions, rewards and seats are those of ``SingleAgentEnv``: with
``num_envs=1`` the two give the same games step by step.

Spaces
    ``single_observation_space`` and ``single_action_space`` are the single env's
    (``Box`` of float32[D], ``Discrete(A)``); ``observation_space`` and
    ``action_space`` are their batched forms (``Box`` float32[num_envs, D],
    ``MultiDiscrete([A] * num_envs)``).

Autoreset (``metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP``)
    As Gymnasium documents the same-step mode (and its ``SyncVectorEnv`` does it), a game
    that ends in a step is reset within that step: for such a sub-env ``i``
    ``terminations[i]``/``truncations[i]`` and ``rewards[i]`` are those of the ending
    step, ``obs[i]`` and the top-level info keys (``infos["action_mask"][i]`` ...) are
    already the next game's first, and the ended game's last observation is in
    ``infos["final_obs"][i]`` (an object array, ``None`` where no game ended; its mask
    ``infos["_final_obs"]``) and its last info in ``infos["final_info"]`` (batched, with
    its ``_key`` masks; there ``action_mask`` marks every action, as the ended
    ``SingleAgentEnv``'s does, and ``seat`` and ``game_index`` name the ended game).
    The next ``step`` plays its action in the new game; its reward and flags are the
    new game's. SAME_STEP rather than NEXT_STEP because the
    kernel replaces a finished game at once (the opponents' moves up to the learner's
    first decision of the next game are played in the same call), so no step is spent
    on an ignored action at an observation that has no legal move, and a rollout's
    every transition is a real decision: the layout that CleanRL-style PPO and its GAE
    (``next_done`` masks) assume. ``infos["final_obs"]`` is what a truncated game's value
    bootstrap needs.

Infos
    ``action_mask`` (int8[num_envs, A], the legal actions of the observation returned),
    ``seat`` (the learner's seat) and ``game_index`` (``Game(...).reset(seed,
    index=i)`` deals the same cards), each with Gymnasium's ``_key`` mask;
    ``action_masks()`` gives the same mask as bool[num_envs, A] (what masked-PPO code
    asks for).

Seeds and games
    ``reset(seed=s)`` deals games ``0 .. num_envs - 1`` of seed ``s``; a game that ends
    is replaced by the next game index not dealt yet; a later ``reset()`` without a
    seed deals the next ``num_envs`` games not dealt yet, so a run is reproducible from
    one seed (the constructor's, until a reset names another), as with
    ``SingleAgentEnv``. ``reset(options={"first_game": k})`` deals games ``k ..``.
    Game ``i`` of a seed is the same game whatever ``num_envs``: the same cards, seat
    and opponents, so the same actions give the same outcome; which slot plays it
    depends on the order in which games end. A seed is one integer for all sub-envs
    (not a list).

Arrays
    By default every call returns fresh arrays. ``copy=False`` returns views of the
    batch's buffers instead (the observations, rewards, terminations, truncations,
    ``infos["action_mask"]`` and the arrays in ``infos["final_obs"]``), which the next
    ``step`` or ``reset`` overwrites; rewards are float32, as in the engine.

Errors
    Actions must be integers of shape ``(num_envs,)`` in ``0 .. A-1`` and legal in their
    game; anything else raises a ValueError naming the valid shape, range or the legal
    moves, and no game is stepped. (``SingleAgentEnv`` can instead end the episode
    with a losing reward, its ``illegal_action="lose"``; a batch has no such option,
    since a masked policy never picks an illegal action and a silent forfeit would
    hide a bug in the caller's masking.)

Registered as the ``vector_entry_point`` of ``uno_env/UnoSingleSeat-v3``:
``gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=8, preset="flip",
num_players=3, opponents="heuristic")`` builds it
(:mod:`uno_env.envs.registration`).

Version History (``GymVectorEnv``; the id's version is ``SingleAgentEnv``'s, whose games
it plays; CHANGELOG.md has the project's log)
    * v1 (0.1.x): first release, as the ``vector_entry_point`` of ``uno_env/Uno-v1``
      (``num_players`` defaults to 4) and of ``uno_env/Uno-v0`` (2 players).
    * v2 (0.2.0, ``uno_env/UnoSingleSeat-v2``): ``infos["final_info"]["action_mask"]`` marks every action, as the
      last info of an ended ``SingleAgentEnv`` v2 does (it was all zeros).
    * v3 (0.2.0, ``uno_env/UnoSingleSeat-v3``): the observation ends with ``shown_hand``
      and ``shown_by``, as ``SingleAgentEnv`` v3's. ``make_vec`` of the v2 id still
      gives v2's observations, with a ``DeprecationWarning`` (``uno_env.envs.legacy``).
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from uno_env.envs.single_seat import LearnerBatch
from uno_env.rules import check_seed
from uno_env.envs.every_seat import as_actions

#: the keys ``reset(options=...)`` understands
RESET_OPTIONS = ("first_game",)


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-seat games as a Gymnasium vector env (see the module
    docstring). Arguments are those of ``SingleAgentEnv`` (``preset``,
    ``num_players``, ``opponents``, ``seat``, ``seed``, rule flags as keywords) plus
    ``num_envs`` and ``copy``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, preset: str = "classic", num_players: int = 4,
                 opponents: Any = "random", seat: int | str = "random", seed: int = 0,
                 copy: bool = True, public_record: bool = False, **rules):
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        self.batch = LearnerBatch(num_envs, preset, num_players, opponents, seat, seed,
                                  auto_reset=True, public_record=public_record, **rules)
        self.config = self.batch.config
        self.num_envs = self.batch.num_envs
        self.copy = copy
        self.single_observation_space = self.config.observation_space_with(
            self.batch.public_record)
        self.single_action_space = self.config.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ready = False

    # --- reset ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal ``num_envs`` games (module docstring, Seeds and games) and play each to
        the learner's first decision. Returns ``(obs, infos)``."""
        if seed is not None:
            if isinstance(seed, (list, tuple, np.ndarray)):
                raise ValueError(f"seed is one integer for every sub-env (game i of a "
                                 f"seed is the same whatever num_envs), got {seed!r}")
            seed = check_seed(seed)
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid options: "
                             f"{', '.join(RESET_OPTIONS)}")
        super().reset(seed=seed)
        if "first_game" in options:
            first = options["first_game"]
            if isinstance(first, bool) or not isinstance(first, (int, np.integer)) \
                    or not 0 <= first < 2**63:
                raise ValueError(f"options['first_game'] must be a non-negative integer "
                                 f"(a game index), got {first!r}")
            first = int(first)
        elif seed is not None or not self._ready:
            first = 0
        else:
            first = int(self.batch._lb.next_index[0])   # the next game not dealt yet
        obs, _ = self.batch.reset(seed=seed, first_game=first)
        self._ready = True
        return self._out(obs), self._infos()

    # --- step -----------------------------------------------------------------------------
    def step(self, actions):
        """The learner's ``actions[i]`` in every game; games that end are reset within
        the step (module docstring, Autoreset). Returns ``(obs, rewards, terminations,
        truncations, infos)``."""
        if not self._ready:
            raise ValueError("call reset() before step()")
        actions = self._check_actions(actions)
        b = self.batch
        # the seat and index of the game each slot plays now, before an ended game's
        # slot is dealt the next one
        seat, index = b.learner_seat.astype(np.int64), b.game_index.copy()
        obs, _, reward, terminated, truncated = b.step(actions)
        infos = self._infos()
        done = terminated | truncated
        if done.any():
            rows = np.flatnonzero(done)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in rows:
                final_obs[i] = b.final_obs[i].copy() if self.copy else b.final_obs[i]
            final_mask = done[:, None].astype(np.int8).repeat(
                self.single_action_space.n, axis=1)
            infos["final_obs"], infos["_final_obs"] = final_obs, done.copy()
            infos["final_info"] = {
                # SingleAgentEnv's last info: an ended episode's mask marks every action
                "action_mask": final_mask, "_action_mask": done.copy(),
                "seat": np.where(done, seat, 0), "_seat": done.copy(),
                "game_index": np.where(done, index, 0), "_game_index": done.copy()}
            infos["_final_info"] = done.copy()
        return self._out(obs), self._out(reward), self._out(terminated), \
            self._out(truncated), infos

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, A]: the learner's legal actions in every game now."""
        return self.batch.mask.astype(bool)

    # --- helpers --------------------------------------------------------------------------
    def _check_actions(self, actions) -> np.ndarray:
        """``actions`` as int64[num_envs] in range, or a ValueError naming what is valid
        (legality in the game is checked by the kernel, which steps nothing then)."""
        try:
            actions = np.asarray(actions)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(f"actions must be an integer array of shape "
                             f"({self.num_envs},), got {type(actions).__name__}") from None
        actions = as_actions(actions, self.num_envs)
        n = self.single_action_space.n
        out = np.flatnonzero((actions < 0) | (actions >= n))
        if len(out):
            g = int(out[0])
            raise ValueError(f"actions must be in 0..{n - 1} (Discrete({n})), got "
                             f"{int(actions[g])} for sub-env {g}. No game was stepped.")
        return actions

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _infos(self) -> dict:
        b, all_rows = self.batch, np.ones(self.num_envs, bool)
        mask = b.mask.astype(np.int8) if self.copy else b.mask.view(np.int8)
        return {"action_mask": mask, "_action_mask": all_rows,
                "seat": b.learner_seat.astype(np.int64), "_seat": all_rows.copy(),
                "game_index": b.game_index.copy(), "_game_index": all_rows.copy()}
