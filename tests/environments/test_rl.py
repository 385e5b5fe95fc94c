"""Stable-Baselines3 training (uno_env.integrations.sb3, agents.train) and the PPO agent (agents.ppo).

Runs with the ``rl`` extra installed (the README's test command installs it); without
it the whole file skips, naming the extra (tests/conftest.py)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from conftest import NEEDS

pytest.importorskip("torch", reason=NEEDS["rl"])
pytest.importorskip("sb3_contrib", reason=NEEDS["rl"])

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import (  # noqa: E402
    get_action_masks, is_masking_supported)

from agents.ppo import PPOAgent, shipped_models  # noqa: E402
from agents.train import imitate, imitation_data, train  # noqa: E402
from uno_env import env as aec_env  # noqa: E402
from uno_env import make_config  # noqa: E402
from uno_env.evaluation.win_rate import evaluate  # noqa: E402
from uno_env.integrations.sb3 import (PPO_SETTINGS, AdvisedPolicy, UnoVecEnv,  # noqa: E402
                              policy_kwargs, ppo_kwargs)
from uno_env.evaluation.tournament import tournament  # noqa: E402


pytestmark = pytest.mark.slow  # trains with SB3 (pyproject.toml markers)


def test_vec_env_gives_maskable_ppo_its_masks_and_sb3_its_terminal_observations():
    venv = UnoVecEnv(8, "classic", 2, opponents="greedy", seed=0)
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (8, venv.config.layout.obs_size)
    masks = get_action_masks(venv)
    assert masks.shape == (8, venv.config.layout.size) and masks.dtype == bool
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, rewards, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            ended += 1
            info = infos[i]
            assert info["terminal_observation"].shape == obs[i].shape
            assert rewards[i] in (-1.0, 1.0) or info["TimeLimit.truncated"]
            assert info["episode"]["r"] == pytest.approx(rewards[i])
        masks = get_action_masks(venv)
    assert ended > 0


def test_vec_env_refuses_an_illegal_action():
    venv = UnoVecEnv(2, "classic", 2, seed=0)
    venv.reset()
    masks = venv.action_masks()
    with pytest.raises(ValueError, match="not legal"):
        venv.step(np.array([masks[0].argmin(), masks[1].argmax()]))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny training run through the whole job, self-play pool included."""
    out = tmp_path_factory.mktemp("run")
    result = train(out=out, progress=False, timesteps=2048, num_envs=16, n_steps=64,
                   batch_size=256, n_epochs=1, opponents=[["random"], ["self"]],
                   eval_every=1024, eval_games=64, checkpoint_every=1024,
                   snapshot_every=512, hidden=(32,))
    return out, result


def test_tiny_training_run_writes_every_output(tiny_run):
    out, result = tiny_run
    assert result.timesteps >= 2048 and result.steps_per_second > 0
    for name in ("policy.npz", "model.zip", "progress.csv", "eval.csv", "summary.json"):
        assert (out / name).exists(), name
    assert sorted(p.name for p in (out / "checkpoints").iterdir())
    summary = json.loads((out / "summary.json").read_text())
    assert {r["opponent"] for r in summary["final_evaluation"]} == {"random", "heuristic"}
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("steps,opponent,games,win_rate,ci_low,ci_high")
    assert len(rows) >= 1 + 2 * 2      # two evaluations or more, two opponents each


def test_exported_policy_acts_like_the_torch_policy(tiny_run):
    out, _ = tiny_run
    model = MaskablePPO.load(out / "model.zip")
    agent = PPOAgent.load(out / "policy.npz")
    venv = UnoVecEnv(64, "classic", 2, opponents="heuristic", seed=3)
    obs = venv.reset()
    masks = venv.action_masks()
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)


def test_trained_policy_plays_in_the_aec_env_and_in_tournaments(tiny_run):
    out, _ = tiny_run
    agent = PPOAgent.load(out / "policy.npz", name="tiny")
    env = aec_env("classic", 2)
    env.reset(seed=0)
    steps = 0
    for name in env.agent_iter(max_iter=3000):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else agent.act(obs)
        if action is not None:
            assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
    assert steps > 0 and not env.agents
    result = tournament([agent, "random"], "classic", 2, num_games=64, seed=0,
                        progress=False)
    assert result.num_games == 64 and set(result.agents) == {"tiny", "random"}


def test_sampling_agent_only_picks_legal_actions(tiny_run):
    out, _ = tiny_run
    agent = PPOAgent.load(out / "policy.npz", deterministic=False, seed=0)
    venv = UnoVecEnv(32, "classic", 2, seed=1)
    venv.reset()
    for _ in range(50):
        masks = venv.action_masks()
        actions = agent.act_batch(venv.batch.obs, masks)
        assert masks[np.arange(32), actions].all()
        venv.step(actions)


def test_corrupt_and_mismatched_model_files_are_clear_errors(tmp_path, tiny_run):
    out, _ = tiny_run
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a uno-env PPO model file"):
        PPOAgent.load(junk)
    with pytest.raises(ValueError, match="no model file"):
        PPOAgent.load(tmp_path / "missing.npz")
    good = PPOAgent.load(out / "policy.npz")
    # a layer of the wrong width
    layers = [(w, b) for w, b in good.layers]
    layers[0] = (layers[0][0][:, :-3], layers[0][1])
    with pytest.raises(ValueError, match="model layer 0 has weights"):
        PPOAgent(layers, good.scale, good.meta)
    # a model for 2 players used in a 4-player game
    with pytest.raises(ValueError, match="trained for classic with 2 players"):
        good.check_config(make_config("classic", 4))
    with pytest.raises(ValueError, match="act_batch takes observations"):
        good.act_batch(np.zeros((1, 5), np.float32), np.ones((1, 70), np.uint8))


def test_imitation_data_is_the_teachers_legal_moves_with_their_game_returns():
    cfg = make_config("classic", 2)
    obs, masks, actions, returns, complete = imitation_data("heuristic", cfg, 1000, 16,
                                                            seed=4, gamma=1.0)
    assert obs.shape == (1008, cfg.layout.obs_size) and masks.shape == (1008, cfg.layout.size)
    assert masks[np.arange(len(actions)), actions].all()        # every move legal
    # the same games again: the heuristic's moves are those of its act_batch
    from agents import make_agent
    np.testing.assert_array_equal(make_agent("heuristic", cfg).act_batch(obs, masks), actions)
    # 2 players, reward "win", no discount: a finished game returns +1 or -1 (docs/rules.md 7)
    assert complete.any() and set(np.unique(returns[complete])) <= {-1.0, 1.0}
    assert (returns[~complete] == 0).all()


def test_imitation_makes_the_policy_copy_the_teacher():
    cfg = make_config("classic", 2)
    venv = UnoVecEnv(8, "classic", 2, opponents="heuristic", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=0, verbose=0,
                        policy_kwargs=policy_kwargs(cfg, (64, 64)))
    data = imitation_data("heuristic", cfg, 4096, 32, seed=1, gamma=0.995)
    before = imitate(model, data, 0, seed=0)["agreement"]
    after = imitate(model, data, 6, seed=0)
    assert after["agreement"] > max(0.75, before + 0.2), (before, after)
    assert after["decisions"] == 4096 and after["policy_loss"] is not None


def test_resumed_training_uses_the_settings_given_not_the_saved_ones(tiny_run, tmp_path):
    out, _ = tiny_run
    train(out=tmp_path, progress=False, resume=out / "model.zip", timesteps=3072,
          num_envs=16, learning_rate=1.25e-5, ent_coef=0.002, eval_every=10**6,
          eval_games=8, eval_opponents=("random",))
    rows = list(csv.DictReader((tmp_path / "progress.csv").open()))
    rates = {float(r["train/learning_rate"]) for r in rows if r.get("train/learning_rate")}
    assert rates == {1.25e-5}                      # the saved run used 3e-4
    resumed = MaskablePPO.load(tmp_path / "model.zip")
    assert resumed.ent_coef == 0.002 and resumed.num_timesteps >= 2048 + 3072


def test_ppo_kwargs_are_the_training_jobs_settings_and_fit_small_batches(tiny_run):
    """The recipe of docs/environments.md lives once: ``uno_env.integrations.sb3.PPO_SETTINGS``,
    which ``agents.train`` fills in for the settings not given."""
    venv = UnoVecEnv(128, "classic", 2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, **ppo_kwargs(venv, seed=0))
    assert (model.n_steps, model.batch_size, model.n_epochs) == (128, 2048, 4)
    assert (model.gamma, model.ent_coef) == (0.995, 0.01)
    assert model.learning_rate == 3e-4
    assert [m.out_features for m in model.policy.mlp_extractor.policy_net
            if hasattr(m, "out_features")] == [256, 256]
    small = ppo_kwargs(UnoVecEnv(4, "classic", 2), n_steps=16, learning_rate=None)
    assert small["batch_size"] == 64 and small["learning_rate"] == 3e-4   # 16 x 4 envs
    out, _ = tiny_run         # n_steps, batch_size, n_epochs given; the rest recommended
    settings = json.loads((out / "summary.json").read_text())["settings"]
    assert (settings["n_steps"], settings["batch_size"], settings["n_epochs"]) == \
        (64, 256, 1)
    for key in ("learning_rate", "gamma", "ent_coef"):
        assert settings[key] == PPO_SETTINGS[key]


def test_an_sb3_model_gets_a_benchmark_card_through_from_sb3(tmp_path):
    """docs/your-agent.md, the SB3 path: MaskablePPO -> PPOAgent.from_sb3 -> .npz ->
    ``uno-bench benchmark --agent PATH``."""
    from typer.testing import CliRunner

    from uno_env.apps.cli import app

    venv = UnoVecEnv(8, "classic", 2, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, **ppo_kwargs(venv, n_steps=32, seed=0,
                                                        hidden=(32,)))
    model.learn(512)
    agent = PPOAgent.from_sb3(model, venv.config, name="my_sb3")
    path = agent.save(tmp_path / "my_sb3.npz")
    obs = venv.reset()
    masks = venv.action_masks()
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(PPOAgent.load(path).act_batch(obs, masks), expected)
    res = CliRunner().invoke(app, ["benchmark", "--agent", str(path), "--track",
                                   "classic-2p", "--games", "2", "--threads", "1",
                                   "--out", str(tmp_path / "card"), "--no-progress"])
    assert res.exit_code == 0, res.output
    card = json.loads((tmp_path / "card" / "card.json").read_text())
    assert card["agent"] == str(path)
    (track,) = card["tracks"]
    assert track["track"]["name"] == "classic-2p"
    assert [r["games"] for r in track["results"]] == [2] * len(track["results"])


def test_training_with_an_imitation_warm_start_evaluates_its_start(tmp_path):
    train(out=tmp_path, progress=False, timesteps=256, num_envs=8, n_steps=32,
          batch_size=64, n_epochs=1, hidden=(16,), imitate="heuristic",
          imitate_steps=512, imitate_epochs=1, eval_every=10**6, eval_games=8,
          eval_opponents=("random",))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["imitation"]["teacher"] == "heuristic"
    assert summary["imitation"]["decisions"] == 512
    rows = (tmp_path / "eval.csv").read_text().splitlines()
    assert rows[1].startswith("0,random,8,")          # the evaluation before PPO


def test_a_model_with_advice_reads_the_advisers_move_and_plays_as_trained(tmp_path):
    # the training env's observations end with a one-hot of the heuristic's move; the
    # exported numpy policy computes the same input itself, so it acts as torch does
    from agents import make_agent
    from agents.ppo import advice_features
    from agents.train import advised
    cfg = make_config("classic", 4)
    heuristic = make_agent("heuristic", cfg)
    venv = advised(UnoVecEnv(16, "classic", 4, opponents="heuristic", seed=3), heuristic)
    obs = venv.reset()
    d, a = cfg.layout.obs_size, cfg.layout.size
    masks = venv.action_masks()
    assert obs.shape == (16, d + a) and venv.observation_space.shape == (d + a,)
    np.testing.assert_array_equal(obs[:, d:].argmax(axis=1),
                                  heuristic.act_batch(obs[:, :d], masks))
    assert (obs[:, d:].sum(axis=1) == 1).all() and masks[np.arange(16),
                                                         obs[:, d:].argmax(axis=1)].all()
    # a finished game's last observation has no move to advise
    assert not advice_features(heuristic, obs[:2, :d], np.zeros((2, a), bool)).any()
    for _ in range(200):
        obs, _, done, infos = venv.step(np.array(
            [np.flatnonzero(m)[0] for m in venv.action_masks()]))
        if done.any():
            last = infos[int(np.flatnonzero(done)[0])]["terminal_observation"]
            assert last.shape == (d + a,) and not last[d:].any()
            break
    else:
        pytest.fail("no game ended in 200 steps")

    # the residual policy: before any training it plays the adviser's move
    model = MaskablePPO(AdvisedPolicy, venv, n_steps=16, batch_size=64, seed=0, verbose=0,
                        policy_kwargs={**policy_kwargs(cfg, (32,), extra_inputs=a),
                                       "advice": (d, d + a, 5.0)})
    data = imitation_data("heuristic", cfg, 2048, 32, seed=1, gamma=0.995,
                          advice="heuristic")
    assert data[0].shape == (2048, d + a)
    np.testing.assert_array_equal(data[0][:, d:].argmax(axis=1), data[2])
    np.testing.assert_array_equal(heuristic.act_batch(data[0][:, :d], data[1]), data[2])
    assert imitate(model, data, 0, seed=0)["agreement"] == 1.0
    model.learn(256)                      # and the numpy export still acts as torch does
    agent = PPOAgent.from_sb3(model, cfg, advice="heuristic")
    obs = venv.reset()
    masks = venv.action_masks()
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(agent.act_batch(obs[:, :d], masks), expected)
    loaded = PPOAgent.load(agent.save(tmp_path / "advised.npz"))
    np.testing.assert_allclose(loaded.logits(obs[:, :d], masks),
                               agent.logits(obs[:, :d], masks), rtol=1e-6)
    import torch
    with torch.no_grad():
        ours = model.policy.action_net(model.policy.mlp_extractor.forward_actor(
            model.policy.extract_features(torch.as_tensor(obs),
                                          model.policy.pi_features_extractor))).numpy()
    np.testing.assert_allclose(loaded.logits(obs[:, :d], masks), ours, rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="pass action_masks"):
        loaded.logits(obs[:, :d])
    import pickle                                     # as Ray sends it to a worker
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(loaded)).act_batch(
        obs[:, :d], masks), expected)
    resumed = MaskablePPO.load(_save(model, tmp_path / "advised.zip"), env=venv)
    assert isinstance(resumed.policy, AdvisedPolicy) and resumed.policy.advice[2] == 5.0


def _save(model, path):
    model.save(path)
    return path


def test_training_settings_are_checked_before_training(tmp_path):
    with pytest.raises(ValueError, match="timesteps must be a positive integer"):
        train(out=tmp_path, progress=False, timesteps=0)
    with pytest.raises(ValueError, match="unknown opponent 'champion'"):
        train(out=tmp_path, progress=False, timesteps=64, opponents="champion")


def test_shipped_model_beats_random():
    """The model shipped in the package (docs/rules.md 7 reward, 2-player classic) wins far
    more than the 50% of chance against the random agent (full figures:
    benchmarks/rl.py)."""
    assert "ppo_classic_2p" in shipped_models()
    agent = PPOAgent.load("ppo_classic_2p")
    result = evaluate(agent, "random", 400, "classic", 2, seed=123)
    assert result["ci"][0] > 0.65


def test_cli_train_and_evaluate(tmp_path):
    from typer.testing import CliRunner

    from uno_env.apps.cli import app
    runner = CliRunner()
    out = tmp_path / "cli_run"
    result = runner.invoke(app, ["train", "--timesteps", "512", "--envs", "8",
                                 "--eval-every", "512", "--eval-games", "16",
                                 "--hidden", "16", "--out", str(out), "--no-progress",
                                 "--opponents", "random,greedy", "--learning-rate",
                                 "0.0001", "--ent-coef", "0.003"])
    assert result.exit_code == 0, result.output
    assert "vs heuristic" in result.output and (out / "policy.npz").exists()
    settings = json.loads((out / "summary.json").read_text())["settings"]
    assert (settings["learning_rate"], settings["ent_coef"]) == (0.0001, 0.003)
    result = runner.invoke(app, ["evaluate", "--model", str(out / "policy.npz"),
                                 "--opponents", "random", "--games", "50"])
    assert result.exit_code == 0, result.output
    assert "vs random" in result.output and "win rate" in result.output
    result = runner.invoke(app, ["train", "--timesteps", "64", "--opponents", "nobody",
                                 "--out", str(out), "--no-progress"])
    assert result.exit_code != 0 and "unknown opponent 'nobody'" in result.output
    # a residual policy over the heuristic: the model file names its adviser
    advised = tmp_path / "advised"
    result = runner.invoke(app, ["train", "--timesteps", "256", "--envs", "8",
                                 "--eval-every", "256", "--eval-games", "8", "--hidden",
                                 "16", "--out", str(advised), "--no-progress",
                                 "--advice", "heuristic", "--advice-weight", "2"])
    assert result.exit_code == 0, result.output
    settings = json.loads((advised / "summary.json").read_text())["settings"]
    assert (settings["advice"], settings["advice_weight"]) == ("heuristic", 2.0)
    assert PPOAgent.load(advised / "policy.npz").meta["advice"] == "heuristic"
    result = runner.invoke(app, ["evaluate", "--model", str(advised / "policy.npz"),
                                 "--opponents", "random", "--games", "20"])
    assert result.exit_code == 0 and "vs random" in result.output, result.output
    result = runner.invoke(app, ["train", "--timesteps", "64", "--advice", "oracle",
                                 "--out", str(advised), "--no-progress"])
    assert result.exit_code != 0 and "unknown agent 'oracle'" in result.output


def test_flip_policies_read_the_dark_face_of_every_card_held(tmp_path):
    """UNO Flip's observation names the dark face of each card held by its id
    (``hand_dark``); the policies append that face's colour and rank as one-hots
    (``scaling.dark_face_table``), and the exported numpy agent computes exactly what the
    torch policy does."""
    from uno_env import Game
    from uno_env.engine import codes as C
    from uno_env.integrations.scaling import dark_face_features, dark_face_table

    cfg = make_config("flip", 4)
    assert dark_face_table(make_config("classic", 4)) is None
    where, table = dark_face_table(cfg)
    game = Game("flip", 4, seed=3)
    game.reset(3)
    obs = game.observe(0)[None]
    features = dark_face_features(obs, where, table).reshape(cfg.deck.num_types, -1)
    hand, dark = game._state.hands[0, 0], game._state.dark_face[0]
    assert hand.sum() == 7
    for t in range(cfg.deck.num_types):
        if hand[t] == 0:
            assert not features[t].any()
            continue
        face = dark[t]
        color, rank = cfg.deck.face_color[face], cfg.deck.face_rank[face]
        assert features[t, :4].sum() == (0 if color == C.NO_COLOR else 1)
        if color != C.NO_COLOR:
            assert features[t, color % 4] == 1
        # the rank one-hot: the same slot for two cards exactly when their ranks agree
        assert features[t, 4:].sum() == 1
    held = np.flatnonzero(hand)
    for a in held:
        for b in held:
            same = cfg.deck.face_rank[dark[a]] == cfg.deck.face_rank[dark[b]]
            assert (features[a, 4:] == features[b, 4:]).all() == same

    venv = UnoVecEnv(16, "flip", 4, opponents="heuristic", seed=5)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=0, verbose=0,
                        policy_kwargs=policy_kwargs(cfg, (32,)))
    agent = PPOAgent.from_sb3(model, cfg)
    obs = venv.reset()
    masks = venv.action_masks()
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
    loaded = PPOAgent.load(agent.save(tmp_path / "flip.npz"))      # the table is saved
    np.testing.assert_allclose(loaded.logits(obs), agent.logits(obs), rtol=1e-6)
    assert loaded.meta["dark"] == [where.start, where.stop]
    import torch
    with torch.no_grad():
        latent = model.policy.features_extractor(torch.as_tensor(obs))
    assert latent.shape[1] == cfg.layout.obs_size + cfg.deck.num_types * table.shape[1]
