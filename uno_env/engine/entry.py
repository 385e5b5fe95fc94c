"""The engine's entry points: the kernels the Python APIs call, one per API, compiled
once per variant and cached on disk (``uno_env.engine.jit.entry_point``).

================  ==========================  ============================================
entry point       kernel                      called by
================  ==========================  ============================================
``game``          ``batch.game_box_kernel``   ``Game``, the AEC env, tests (``OP_*``)
``game_box``      ``batch.make_game_box``     ``Game`` (its arrays as one ``GameBox``)
``vector``        ``batch.vector_kernel``     ``EverySeatBatch``
``simulate``      ``batch.simulate_chunk``    ``simulate``, tournaments
``learner``       ``learner.learner_kernel``  ``LearnerBatch``, ``SingleAgentEnv``, SB3
``learner_rows``  ``learner.                  ``LearnerBatch`` with ``threads`` > 1 (each
                  learner_rows_kernel``       thread's share of a step)
``policy``        ``policies.policy_batch``   the greedy and heuristic Python agents
``determinize``   ``determinize.              ``Game.determinize``
                  determinize_kernel``
``search``        ``search.search_kernel``    the ``mcts`` Python agent (one decision),
                                              ``simulate`` when a seat is ``mcts``, the
                                              learner envs with an ``mcts`` opponent
``soak``          ``soak.soak_kernel``        ``uno_env.testing.soak`` (``benchmarks/
                                              soak.py``): games with invariant checks
================  ==========================  ============================================

The search kernels (``determinize``, and those of ``engine.search``) and the soak
kernel are entry points of their own, so a user who never searches or soaks never
compiles them: the kernels above do not reach them. So are the kernels of the public
record (``engine.public_record``): the plain loops pass ``None`` for it.

``kernels(variant)`` builds them (lazily: numba compiles a kernel at its first call, or
loads it from the cache). The first call of a kernel that is not in the cache yet
prints one line saying what is being compiled, that this happens on the first run
only, and where the cache lives; ``warmup`` compiles everything ahead of time.
"""
from __future__ import annotations

import functools
import os
import sys
from types import SimpleNamespace

import numpy as np

from uno_env.engine.jit import VARIANT_MODULES, bind, cache_dir, entry_point
from uno_env.engine import batch, determinize, learner, policies, search, soak

#: entry point name -> (kernel, extra jit options)
ENTRY_POINTS = {
    "game": (batch.game_box_kernel, {}),
    "game_box": (batch.make_game_box, {}),
    "vector": (batch.vector_kernel, {}),
    "simulate": (batch.simulate_chunk, {}),
    "learner": (learner.learner_kernel, {}),
    "learner_rows": (learner.learner_rows_kernel, {}),
    "policy": (policies.policy_batch, {}),
    "determinize": (determinize.determinize_kernel, {}),
    "search": (search.search_kernel, {}),
    "soak": (soak.soak_kernel, {}),
    "game_record": (batch.game_record_kernel, {}),
    "vector_record": (batch.vector_record_kernel, {}),
    "learner_record": (learner.learner_record_kernel, {}),
}

#: set UNO_ENV_QUIET=1 to silence the first-compile notices
QUIET = os.environ.get("UNO_ENV_QUIET", "") not in ("", "0")


class _Announced:
    """An entry point that says, the first time it compiles, what it is doing."""

    def __init__(self, name: str, variant: str, dispatcher):
        self.name, self.variant, self.dispatcher = name, variant, dispatcher
        self._checked = False

    def cached(self) -> bool:
        """Is this entry point in the on-disk cache (a first call loads, not compiles)?
        A kernel already compiled in this process counts as cached."""
        if getattr(self.dispatcher, "signatures", None):
            return True
        try:
            index = self.dispatcher._cache._cache_file._index_path
        except AttributeError:  # NUMBA_DISABLE_JIT=1, or another numba layout
            return True
        return os.path.exists(index)

    def _announce(self) -> None:
        if not self._checked:
            self._checked = True
            if not QUIET and not self.cached():
                print(f"uno-env: compiling the {self.variant} {self.name} kernel (first run "
                      f"only; cached in {cache_dir(self.variant)}) ...",
                      file=sys.stderr, flush=True)

    def __call__(self, *args):
        self._announce()
        return self.dispatcher(*args)

    def bind(self, *example_args):
        """The compiled entry point for exactly these argument types (no dispatch)."""
        self._announce()
        return bind(self.dispatcher, *example_args)


class BoundEntry:
    """An entry point called without numba's type dispatch: compiled (or loaded) for the
    argument types of its first call, which every later call must repeat (the batches
    pass the same arrays each step). It pickles as the entry point alone, since compiled
    code does not pickle; the copy binds again on its first call."""

    def __init__(self, entry: _Announced):
        self.entry, self._call = entry, None

    def __call__(self, *args):
        if self._call is None:
            self._call = self.entry.bind(*args)
        return self._call(*args)

    def __getstate__(self):
        return {"entry": self.entry, "_call": None}


@functools.lru_cache(maxsize=None)
def kernels(variant: str) -> SimpleNamespace:
    """The entry points of one variant (``Rules.variant``), as attributes named as in
    the module docstring."""
    if variant not in VARIANT_MODULES:
        raise ValueError(f"unknown variant {variant!r}; valid: "
                         f"{', '.join(VARIANT_MODULES)}")
    return SimpleNamespace(**{
        name: _Announced(name, variant, entry_point(kernel, variant, **options))
        for name, (kernel, options) in ENTRY_POINTS.items()})



class GameOps:
    """Single-game kernels for Python callers (tests, tools): each method is one call of
    the cached ``game`` entry point on game ``g`` of a batched state of ``config``
    (through a ``GameBox`` of the arrays it names, made for the call)."""

    def __init__(self, config):
        self.spec = config.spec
        entry = kernels(config.variant)
        self._kernel, self._box = entry.game, entry.game_box
        self._mask = np.zeros(config.layout.size, np.uint8)
        self._obs = np.zeros(config.layout.obs_size, np.float32)

    def _call(self, op, st, g, arg, mask, obs) -> int:
        return int(self._kernel(op, self._box(st, self.spec, mask, obs, obs), g, arg))

    def reset_game(self, st, g) -> None:
        """Deal a new match into slot ``g`` (its stream ``st.rng[g]`` already seeded)."""
        self._call(batch.OP_RESET, st, g, 0, self._mask, self._obs)

    def legal_mask(self, st, g, mask) -> int:
        return self._call(batch.OP_MASK, st, g, 0, mask, self._obs)

    def random_legal(self, st, g, mask) -> int:
        """The random agent's action (from the game's own stream), -1 if none."""
        return self._call(batch.OP_RANDOM, st, g, 0, mask, self._obs)

    def apply_action(self, st, g, action) -> int:
        """Apply a legal ``action``; returns the next decider."""
        return self._call(batch.OP_APPLY, st, g, int(action), self._mask, self._obs)

    def observe(self, st, g, seat, obs) -> None:
        self._call(batch.OP_OBSERVE, st, g, int(seat), self._mask, obs)
