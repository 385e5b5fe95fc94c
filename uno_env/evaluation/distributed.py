"""Ray backend of ``uno_env.evaluation.tournament``: every chunk of games is a Ray task.

    >>> import ray; ray.init(address="auto")          # or: ray.init() for local workers
    >>> r = tournament(("random", "greedy", "heuristic"), num_games=1_000_000,
    ...                backend="ray")                 # address="ray://head:10001" works too

``uno-bench tournament ... --backend ray [--address ADDR]`` on the command line. Needs the
``ray`` extra (``pip install -e ".[ray]"``) here and on every node of the cluster.

The driver cuts the games into the same chunks as the local backend
(``tournament._chunks``) and submits one task per chunk, running the very function the
local backend runs (``tournament._play_chunk``: a seeded ``simulate`` for numba agents, a
batched ``EverySeatBatch`` run for Python agents). Every result is written to the chunk's own
slot of the result arrays, whatever order the tasks finish in, so the same seed gives
exactly the local backend's winners and points. Python agents (trained networks such as
``agents.PPOAgent``) go into the object store once (``ray.put``) and every task that
needs them reads them from there. Scheduling, retries and placement are Ray's.

Each task asks for ``threads`` CPUs (default 1) and runs ``simulate`` on that many numba
threads: the parallelism comes from many tasks. Workers load the numba kernels from
the on-disk cache (``uno_env.engine.jit``); a cold cache on a new node costs one compilation
in the first task of each worker process.
"""
from __future__ import annotations

import numpy as np

from uno_env.evaluation.ray_runtime import (  # noqa: F401  (re-exported)
    RAY_EXTRA, MissingExtra, connect, require_ray,
)

_REMOTE = None


def _remote(ray, play_chunk):
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(play_chunk)
    return _REMOTE


def play_chunks(play_chunk, chunks, preset, num_players, python_agents, seed, threads, rules,
                winner: np.ndarray, points: np.ndarray, bar=None, address=None):
    """Play ``chunks`` (``tournament._chunks``) as Ray tasks of ``play_chunk``
    (``tournament._play_chunk``, passed in so that this module need not import it), writing game ``lo .. hi``
    of lineup ``r`` to ``winner[r, lo:hi]`` and ``points[r, lo:hi]``; ``bar`` (tqdm)
    advances as chunks finish. Returns the threads per task."""
    from uno_env.rules.config import make_config
    make_config(preset, num_players, **rules)      # bad rules fail here, not in a task
    per_task = 1 if threads is None else threads
    if isinstance(per_task, bool) or not isinstance(per_task, (int, np.integer)) \
            or per_task < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    ray = connect(address)
    task = _remote(ray, play_chunk).options(num_cpus=int(per_task))
    shared = ray.put(python_agents) if python_agents else None   # once, for every task
    g = winner.shape[1]
    pending = {}
    for r, lineup, lo, hi in chunks:
        needs = shared if any(a in python_agents for a in lineup) else {}
        ref = task.remote(preset, num_players, lineup, needs, hi - lo, seed, r * g + lo,
                          int(per_task), rules)
        pending[ref] = (r, lo, hi)
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                r, lo, hi = pending.pop(ref)
                winner[r, lo:hi], points[r, lo:hi], _ = ray.get(ref)
                if bar is not None:
                    bar.update(hi - lo)
    finally:
        for ref in pending:          # interrupted: do not leave tasks running
            ray.cancel(ref)
    return int(per_task)
