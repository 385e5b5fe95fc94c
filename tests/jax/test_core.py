"""``uno_env.jax.core``: its API contract. The engine stays out of ``import uno_env``,
leaves JAX's 64-bit mode alone, reproduces the numba streams in 32-bit words, refuses
what it does not play by name, and its functions jit and vmap (no host callback in
the traced step). The games themselves: test_identity.py."""
from __future__ import annotations

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from support import ROOT
from uno_env.engine import codes as C
from uno_env.engine.rng import seed_stream_py
from uno_env.jax import core


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=ROOT).stdout


def test_import_uno_env_does_not_import_jax():
    out = _run("import sys, uno_env; uno_env.make_config('classic', 4); "
               "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')"
               " or m.startswith('uno_env.jax')))")
    assert out.strip() == "[]"


def test_x64_mode_is_left_alone():
    """Importing and running the engine leaves JAX's 64-bit mode as it was (the games
    of test_identity.py check it again after whole games)."""
    before = jax.config.jax_enable_x64
    rng = jax.jit(jax.vmap(lambda i: core.seed_stream(7, i)))(jnp.arange(3))
    assert rng.dtype == jnp.uint32 and jax.config.jax_enable_x64 == before
    # and in a fresh process, where nothing else set it
    assert _run("import jax, uno_env.jax as uj; uj.make_params('teams', 4); "
                "uj.seed_stream(2 ** 64 - 1, 3).block_until_ready(); "
                "print(jax.config.jax_enable_x64)").strip() == "False"


@pytest.mark.parametrize("seed", [0, 1, 2 ** 32 + 7, 2 ** 64 - 1, 987654321987654321])
def test_seed_stream_is_the_engine_splitmix64(seed):
    indices = np.array([0, 1, 2, 99, 123_456, 2 ** 31 - 2])
    want = [int(seed_stream_py(seed, i)) for i in indices]
    pair = jnp.asarray([seed >> 32, seed & 0xFFFFFFFF], jnp.uint32)
    for got in (jax.jit(jax.vmap(lambda i: core.seed_stream(seed, i)))(jnp.asarray(indices)),
                jax.jit(jax.vmap(lambda i: core.seed_stream(pair, i)))(jnp.asarray(indices))):
        got = np.asarray(got).astype(np.uint64)
        assert [int(h) << 32 | int(lo) for h, lo in got] == want


@pytest.mark.parametrize("preset, words", [
    ("flip", ["flip", "UNO Flip"]), ("onepiece", ["onepiece", "One Piece"]),
    ("classic112", ["classic112"]), ("street", ["street", "house"]),
    ("chaos", ["chaos"]), ("nope", ["nope"])])
def test_unsupported_presets_are_refused_by_name(preset, words):
    with pytest.raises(ValueError) as err:
        core.make_params(preset, 4)
    for word in words + ["classic", "teams"]:
        assert word in str(err.value)


@pytest.mark.parametrize("flags, word", [
    ({"stack": "any"}, "stack"), ({"seven_zero": True}, "seven_zero"),
    ({"jump_in": True}, "jump_in"), ({"multi_play": True}, "multi_play"),
    ({"force_play": True}, "force_play"), ({"wilds": 2}, "wilds")])
def test_unsupported_flags_are_refused_by_name(flags, word):
    with pytest.raises(ValueError, match=word):
        core.make_params("classic", 4, **flags)


def test_bad_values_are_refused_by_the_rules_checks():
    with pytest.raises(ValueError, match="teams"):
        core.make_params("teams", 3)
    with pytest.raises(ValueError, match="num_players"):
        core.make_params("classic", 11)
    with pytest.raises(ValueError, match="scoring"):
        core.make_params("classic", 4, scoring="sometimes")


def test_params_are_static_and_sized_as_the_numba_config():
    from uno_env.rules.config import make_config
    for players in (2, 7, 10):
        params = core.make_params("classic", players, target_score=300)
        cfg = make_config("classic", players, target_score=300)
        assert hash(params) == hash(core.make_params("classic", players, target_score=300))
        assert params.num_actions == cfg.layout.size
        assert params.observation_size == cfg.layout.obs_size
        assert params.num_players == players
    assert set(core.supported_flags()) >= {"bluff", "uno_call", "target_score", "teams"}


def test_step_traces_to_pure_jax_without_callbacks():
    params = core.make_params("classic", 4, target_score=200)
    s = jax.eval_shape(lambda: core.init(params, core.seed_stream(0, 0)))
    text = str(jax.make_jaxpr(lambda st, a: core.step(params, st, a))(s, jnp.int32(60)))
    assert "callback" not in text and "while" in text
    assert C.PHASE_OVER == 9  # (the phase one-hot of the observation has 10 slots)


def test_table_params_take_the_player_count_at_init():
    """``table_params``: arrays of the largest table, the count given to ``init`` (the
    identity tests play every count through one program); bad counts are refused."""
    table = core.table_params("classic")
    assert table.any_players and table.num_players == 10
    assert core.table_params("teams").num_players == 4
    assert core.table_params("classic", hand_size=12).num_players == 7   # 7 x 12 fits
    assert table.observation_size == core.make_params("classic", 10).observation_size
    rng = core.seed_stream(0, 0)
    with pytest.raises(ValueError, match="needs num_players"):
        core.init(table, rng)
    for bad in (1, 11):
        with pytest.raises(ValueError, match="num_players must be 2 .. 10"):
            core.init(table, rng, bad)
    with pytest.raises(ValueError, match="table_params"):
        core.init(core.make_params("classic", 4), rng, 3)
    with pytest.raises(ValueError, match="teams"):
        core.table_params("teams", max_players=6)


@pytest.mark.parametrize("preset, players, flags, sizes, want", [
    ("classic", 3, {}, [1, 2, 4], [1.0, -0.5, -0.5]),
    ("classic", 3, {}, [1, 1, 3], [0.25, 0.25, -0.5]),
    ("classic", 4, {}, [2, 2, 2, 2], [0.0, 0.0, 0.0, 0.0]),
    ("teams", 4, {}, [1, 2, 3, 3], [1.0, -1.0, 1.0, -1.0]),
    ("teams", 4, {}, [1, 2, 3, 2], [0.0, 0.0, 0.0, 0.0])])
def test_settle_cut_pays_the_standing_as_the_numba_engine(preset, players, flags, sizes,
                                                          want):
    """``settle_cut`` (docs/rules.md 7) on states whose hand sizes are set: the fewest
    cards share the win (teams: the partners' total), as tests/rules/test_rules_classic.py
    checks on the numba engine; the identity tests compare whole cut games."""
    params = core.make_params(preset, players, settle_cut=True, **flags)
    T = core._tables(params)
    shapes = jax.eval_shape(lambda: core.init(params, core.seed_stream(0, 0)))
    s = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
    s = s._replace(hand_size=jnp.asarray(sizes, jnp.int32))
    got = jax.jit(lambda s: core._settle_cut(s, T))(s)
    assert np.asarray(got).tolist() == want
