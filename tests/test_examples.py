"""``examples/``: the CleanRL-style masked PPO runs a few updates on ``GymVectorEnv``,
prints its evaluations and writes them to ``--metrics``; its policy never samples an
illegal action. (``benchmarks/cleanrl_example.py`` runs it long enough to learn.)"""
from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from conftest import NEEDS

torch = pytest.importorskip("torch", reason=NEEDS["rl"])

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cleanrl_ppo_masked.py"


def load_example():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_masked", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cleanrl_example_trains_a_few_updates_and_writes_its_metrics(tmp_path, capsys):
    """The script's own entry (its argparse options and train()), run in this process so
    the test does not import torch a second time."""
    example = load_example()
    metrics = tmp_path / "metrics.jsonl"
    args = example.parse_args([
        "--total-timesteps", "1024", "--num-envs", "8", "--num-steps", "32",
        "--eval-every", "2", "--eval-games", "40", "--seed", "3", "--metrics", str(metrics)])
    assert (args.batch_size, args.minibatch_size, args.num_iterations) == (256, 64, 4)
    threads = torch.get_num_threads()
    try:
        returned = example.train(args)
    finally:
        torch.set_num_threads(threads)      # train() sets --threads (1)
    lines = capsys.readouterr().out.splitlines()
    assert sum("training games" in line for line in lines) == 4     # 1024 / (8 * 32)
    assert sum("win rate vs random" in line for line in lines) == 3  # before, 2, 4
    rows = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert rows == json.loads(json.dumps(returned))
    assert [r["update"] for r in rows] == [0, 2, 4]
    assert [r["global_step"] for r in rows] == [0, 512, 1024]
    for r in rows:       # a 95% interval around the rate (up to rounding at 0 and 1)
        assert -1e-9 <= r["ci"][0] <= r["win_rate"] + 1e-9
        assert r["win_rate"] - 1e-9 <= r["ci"][1] <= 1.0 + 1e-9 and r["ci"][1] > 0


def test_the_example_policy_samples_legal_actions_only():
    example = load_example()
    torch.manual_seed(0)
    agent = example.Agent(6, 5, np.ones(6, np.float32), hidden=8)
    obs = torch.randn(200, 6)
    mask = torch.zeros(200, 5, dtype=torch.bool)
    mask[torch.arange(200), torch.randint(0, 5, (200,))] = True
    mask[::3, 4] = True
    action, logprob, entropy, _ = agent.get_action_and_value(obs, mask)
    assert mask[torch.arange(200), action].all()
    assert torch.isfinite(logprob).all() and torch.isfinite(entropy).all()
    # one legal action: certain, no entropy
    single = mask.sum(1) == 1
    assert torch.allclose(logprob[single], torch.zeros(int(single.sum())), atol=1e-6)
    greedy = agent.act_batch(obs.numpy(), mask.numpy().astype(np.int8))
    assert mask[torch.arange(200), torch.as_tensor(greedy)].all()


def test_the_example_saves_a_policy_that_gets_a_benchmark_card(tmp_path, capsys):
    """docs/your-agent.md, the CleanRL path: ``--save PATH`` writes agents.PPOAgent's
    .npz, which plays exactly the torch policy's greedy moves (numpy only), and
    ``uno-bench benchmark --agent PATH`` plays it on a track."""
    from agents import PPOAgent
    from uno_env import benchmark
    from uno_env.gym_vector import GymVectorEnv

    example = load_example()
    path = tmp_path / "cleanrl.npz"
    args = example.parse_args([
        "--total-timesteps", "256", "--num-envs", "8", "--num-steps", "32",
        "--eval-games", "10", "--hidden", "16", "--seed", "2", "--save", str(path)])
    threads = torch.get_num_threads()
    try:
        example.train(args)
    finally:
        torch.set_num_threads(threads)
    assert f"wrote {path} (uno-bench benchmark --agent {path})" in capsys.readouterr().out
    saved = PPOAgent.load(path)
    assert saved.meta["trained_steps"] == 256 and saved.meta["activation"] == "tanh"
    assert (saved.config.preset, saved.config.num_players) == ("classic", 2)
    # export() is faithful: the same greedy moves as the torch actor, on real positions
    envs = GymVectorEnv(64, "classic", 2, opponents="heuristic", seed=5)
    obs, infos = envs.reset()
    torch.manual_seed(0)
    agent = example.Agent(obs.shape[1], envs.single_action_space.n,
                          np.asarray(saved.scale), hidden=16)
    exported = PPOAgent.load(example.export(agent, envs.config, tmp_path / "x.npz"))
    for _ in range(5):
        mask = infos["action_mask"]
        np.testing.assert_array_equal(exported.act_batch(obs, mask),
                                      agent.act_batch(obs, mask))
        obs, _, _, _, infos = envs.step(agent.act_batch(obs, mask))
    card = benchmark.benchmark(str(path), "classic-2p", games=2, threads=1,
                               progress=False)
    (track,) = card.tracks
    assert [r["games"] for r in track.results] == [2] * len(track.results)
    assert str(path) in card.markdown()
