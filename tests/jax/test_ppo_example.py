"""``examples/jax_ppo.py``: PPO with the environment and the learner in one ``jax.jit``'d
update learns one seat of 2-player classic UNO against the random policy at a tiny
budget (10 updates of 128 games x 32 decisions, 40,960 decisions): its win rate against
random, on the same 300 deals before and after training, rises far above the untrained
policy's (about 0.27 there: random against random, with 45% of the games cut by the turn
limit; 0.9 and more after training). The 95% intervals of two rates over 300 games are
about +-0.05, so a rise of 0.25 is no accident of the deals. The update also counts
the learner's decisions that were illegal or taken out of turn: none."""
from __future__ import annotations

import importlib

import pytest

pytest.importorskip("flax", reason='needs the "jax" extra: pip install -e ".[jax]"')
pytest.importorskip("optax", reason='needs the "jax" extra: pip install -e ".[jax]"')

pytestmark = pytest.mark.slow  # trains the JAX PPO example (pyproject.toml markers)


def test_the_jax_ppo_example_learns_against_random(tmp_path, capsys):
    example = importlib.import_module("examples.jax_ppo")
    curve = tmp_path / "curve.png"
    args = example.parse_args([
        "--updates", "10", "--num-envs", "128", "--num-steps", "32", "--hidden", "64",
        "--eval-games", "300", "--print-every", "5", "--seed", "0",
        "--save-curve", str(curve)])
    result = example.train(args)
    out = capsys.readouterr().out
    assert 0.15 <= result["before"] <= 0.40, result["before"]
    assert result["after"] >= result["before"] + 0.25, (result["before"], result["after"])
    assert result["after"] >= 0.6
    assert "final win rate against random" in out
    assert sum(line.startswith("update ") for line in out.splitlines()) == 2   # 5, 10
    # every sampled action was legal (masked logits) and taken on the learner's turn
    assert result["bad_decisions"] == 0
    assert [x for x, _ in result["curve"]] == [4096 * u for u in range(1, 11)]
    assert result["samples_per_s"] > 0
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

