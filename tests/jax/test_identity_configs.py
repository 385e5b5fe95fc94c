"""The JAX engine plays the numba engine's games (docs/jax-identity.md): the classic
preset with 7 to 10 players, ``teams``, and the groups of supported flags, as in
test_identity.py; and ``uno_env.jax.simulate`` itself (its ``lax.while_loop``) against
``uno_env.simulate``, on a single round and on whole matches."""
from __future__ import annotations

import jax
import pytest

from uno_env.jax._identity import CONFIGS, compare_random_play, compare_simulate, config_name

GAMES = 200
SEED = 2027
HERE = [c for c in CONFIGS if not (c[0] == "classic" and not c[2] and c[1] <= 6)]
SIMULATED = [("classic", 4, {}), ("classic", 3, {"target_score": 200, "dealer": 2})]


@pytest.mark.parametrize("preset, players, flags", HERE,
                         ids=[config_name(*c) for c in HERE])
def test_random_play_is_simulate_and_every_seat_batch(preset, players, flags):
    done = compare_random_play(preset, players, GAMES, SEED + players, **flags)
    assert done["games"] == GAMES and done["steps"] > 10 * GAMES


@pytest.mark.parametrize("preset, players, flags", SIMULATED,
                         ids=[config_name(*c) for c in SIMULATED])
def test_jax_simulate_equals_uno_env_simulate(preset, players, flags):
    x64 = jax.config.jax_enable_x64
    done = compare_simulate(preset, players, GAMES, SEED, batch_size=GAMES, **flags)
    assert done["games"] == GAMES and done["steps"] > 10 * GAMES
    assert jax.config.jax_enable_x64 == x64
