"""Compile the engine ahead of time (``uno-bench warmup``): for a Docker image, every node
of a Ray cluster, or before a timed run.

Each variant's kernels (``Rules.variant``: classic, house, flip, onepiece) are compiled
once and cached on disk (``uno_env.engine.jit.cache_dir``); every preset of a variant shares
them, whatever its flags or player count. ``warmup()`` calls each entry point of the
variants asked for once, so the first real call loads it from the cache.
"""
from __future__ import annotations

import time

import numpy as np

from uno_env.rules.config import make_config
from uno_env.engine.names import AGENT_GREEDY
from uno_env.engine.variants import VARIANTS
from uno_env.rules import PRESETS

#: one preset of each variant (``engine/variants.py``)
VARIANT_PRESETS = {v.name: v.preset for v in VARIANTS}


def _touch_every_entry_point(preset: str) -> None:
    from uno_env.engine import learner as learner_ops
    from uno_env.engine.entry import kernels
    from uno_env.envs.game import Game
    from uno_env.envs.single_seat import LearnerBatch
    from uno_env.evaluation.simulation import simulate
    from uno_env.envs.every_seat import EverySeatBatch
    game = Game(preset, num_players=4, seed=0)
    game.play(game.legal_moves()[0])
    game.determinize(1, seed=0)
    venv = EverySeatBatch(2, preset, num_players=4, seed=0)
    venv.reset()
    venv.step(venv.random_actions(np.random.default_rng(0)))
    simulate(preset, 4, agents="random", num_games=2, seed=0, threads=1)
    # the search entry point (one kernel for simulate's mcts seats and MCTSAgent)
    simulate(preset, 4, agents=["mcts:2"] + ["random"] * 3, num_games=1, seed=0, threads=1)
    batch = LearnerBatch(2, preset, num_players=4, opponents="random", seed=0, threads=1)
    obs, mask = batch.reset()
    batch.step(mask.argmax(axis=1))
    # the threaded step's kernel (LearnerBatch(threads > 1)), whatever the cores here
    batch._rows_kernel(learner_ops.OP_DEAL_ENDED, batch.engine_state, batch.config.spec,
                       batch._lb, np.uint64(0), batch._no_rows, mask.argmax(axis=1))
    cfg = make_config(preset, 4)
    out = np.zeros(1, np.int64)
    kernels(cfg.variant).policy(AGENT_GREEDY, obs[:1].copy(), mask[:1].copy(), cfg.spec,
                                out)


def warmup(presets=None, progress: bool = True) -> dict[str, float]:
    """Compile (or load) every entry point of the variants of ``presets`` (default: one
    preset of each variant). Returns seconds per variant."""
    if presets is None:
        presets = list(VARIANT_PRESETS.values())
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        raise ValueError(f"unknown preset(s) {', '.join(unknown)}; valid: "
                         f"{', '.join(PRESETS)}")
    by_variant = {}
    for preset in presets:
        by_variant.setdefault(PRESETS[preset].variant, preset)
    seconds = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(by_variant), unit="variant", desc="compiling the engine")
    for variant, preset in by_variant.items():
        if bar is not None:
            bar.set_postfix_str(variant)
        start = time.perf_counter()
        _touch_every_entry_point(preset)
        seconds[variant] = time.perf_counter() - start
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return seconds
