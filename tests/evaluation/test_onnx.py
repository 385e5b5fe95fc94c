"""Shipped models leave the project as ONNX (``agents.onnx_policy``; the ``onnx`` extra,
installed in CI: there nothing here skips): every shipped model exports, and the file
played through onnxruntime (``onnx:PATH``) makes the same move as the ``.npz`` model on
10,000 observations of games of its own preset, and earns the same benchmark results."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import NEEDS  # noqa: E402

onnx = pytest.importorskip("onnx", reason=NEEDS["onnx"])
ort = pytest.importorskip("onnxruntime", reason=NEEDS["onnx"])

from agents.onnx_export import META_KEY
from agents.onnx_policy import OnnxAgent  # noqa: E402
from agents.ppo import PPOAgent, shipped_models  # noqa: E402
from uno_env import EverySeatBatch  # noqa: E402
from uno_env.players.registry import is_configured, make_agent  # noqa: E402

OBSERVATIONS = 10_000


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("onnx")
    return {name: PPOAgent.load(name).export_onnx(out / f"{name}.onnx")
            for name in shipped_models()}


def _observations(config, rules, n=OBSERVATIONS, seed=7):
    """``n`` observations (and masks) of random-play games of ``config``, every seat."""
    env = EverySeatBatch(250, config.preset, config.num_players, seed=seed, **rules)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    while sum(len(r) for r in rows) < n:
        rows.append(obs.copy())
        masks.append(mask.copy())
        obs, mask, *_ = env.step(env.random_actions(rng))
    return np.concatenate(rows)[:n], np.concatenate(masks)[:n]


def test_every_shipped_model_is_tested():
    assert len(shipped_models()) >= 6


@pytest.mark.parametrize("name", shipped_models())
def test_the_onnx_file_plays_the_same_moves(name, exported):
    model = PPOAgent.load(name)
    path = exported[name]
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    props = {p.key: p.value for p in proto.metadata_props}
    assert json.loads(props[META_KEY])["preset"] == model.config.preset
    assert [i.name for i in proto.graph.input][:2] == ["observation", "action_mask"]
    assert ("advice" in [i.name for i in proto.graph.input]) == bool(model.meta.get("advice"))
    agent = make_agent(f"onnx:{path}", None)
    assert isinstance(agent, OnnxAgent) and is_configured(f"onnx:{path}")
    obs, mask = _observations(model.config, model.meta.get("rules", {}))
    assert obs.shape == (OBSERVATIONS, model.config.layout.obs_size)
    expected = model.act_batch(obs, mask)
    got = agent.act_batch(obs, mask)
    assert mask[np.arange(len(got)), got].all()
    assert (got == expected).all(), f"{int((got != expected).sum())} moves differ"
    # the masked logits themselves agree to float32 rounding, -inf where illegal
    logits = agent.logits(obs, mask)
    assert np.isneginf(logits[mask == 0]).all()
    np.testing.assert_allclose(logits[mask != 0],
                               model.logits(obs, mask)[mask != 0], rtol=1e-4, atol=1e-3)
    # the graph's own argmax output is the same move
    feed = {"observation": obs[:500], "action_mask": mask[:500].astype(np.float32)}
    if agent.advisor is not None:
        from agents.ppo import advice_features
        feed["advice"] = advice_features(agent.advisor, obs[:500], mask[:500])
    (action,) = agent.session.run(["action"], feed)
    assert (action == expected[:500]).all()


def test_the_benchmark_rates_the_onnx_agent_identically(exported):
    """A short non-standard card of the ONNX file equals the .npz model's, game for game."""
    from uno_env.evaluation.benchmark import benchmark
    npz = benchmark("ppo_classic_2p", "classic-2p", games=24, threads=1,
                    opponents=["random", "heuristic"])
    onx = benchmark(f"onnx:{exported['ppo_classic_2p']}", "classic-2p", games=24,
                    threads=1, opponents=["random", "heuristic"])
    assert onx.tracks[0].results == npz.tracks[0].results
    assert onx.tracks[0].results[0]["games"] == 24


def test_the_export_command_writes_a_file_that_plays(tmp_path):
    from typer.testing import CliRunner

    from uno_env.apps.cli import app
    out = tmp_path / "m.onnx"
    runner = CliRunner()
    result = runner.invoke(app, ["export", "ppo_house_4p", "--format", "onnx", "--out",
                                 str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and f"onnx:{out}" in result.output
    assert OnnxAgent(out).config.preset == "street"
    bad = runner.invoke(app, ["export", "ppo_house_4p", "--format", "tflite"])
    assert bad.exit_code == 2 and "valid: onnx" in bad.output
    bad = runner.invoke(app, ["export", "heuristic"])
    assert bad.exit_code == 2 and "not a trained model" in bad.output


def test_a_file_that_is_not_an_exported_policy_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no ONNX file"):
        OnnxAgent(tmp_path / "missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a loadable ONNX file"):
        OnnxAgent(junk)
