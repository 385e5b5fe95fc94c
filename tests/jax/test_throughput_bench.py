"""``benchmarks/jax_throughput.py`` measures what it says: its jitted loop steps every
game of the batch, and a game that ends is replaced within the step by the next game of
the seed (here with a turn limit of 6, so that games end inside one call)."""
from __future__ import annotations

import numpy as np

from benchmarks import jax_throughput as bench


def test_the_benchmark_loop_deals_the_next_games_of_the_seed():
    import jax
    start, run = bench.make_runner(2, 8, True, seed=5, max_turns=6)
    carry = start()
    carry, total = run(carry, jax.random.PRNGKey(0))
    states, next_index = carry
    dealt = int(next_index) - 8
    assert dealt >= 8                        # 32 steps, at most 6 turns a game
    assert float(total) > 0                  # the observations were computed
    # no game is left finished (at most 8 // 32 -> 8 slots dealt a step)
    assert not bool((states.terminated | states.truncated).any())
    # every game of the first deal ended (6 turns) and was replaced: none has 32 steps
    assert (np.asarray(states.steps) < bench.STEPS_PER_CALL).all()
