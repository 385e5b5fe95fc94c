"""``examples/``: the CleanRL-style masked PPO runs a few updates on ``GymVectorEnv``,
prints its evaluations and writes them to ``--metrics``; its policy never samples an
illegal action. (``benchmarks/cleanrl_example.py`` runs it long enough to learn.)"""
from __future__ import annotations

import importlib
import json
import pathlib

import numpy as np
import pytest

from conftest import NEEDS
from support import ROOT

torch = pytest.importorskip("torch", reason=NEEDS["rl"])

pytestmark = pytest.mark.slow  # trains the CleanRL example (pyproject.toml markers)


EXAMPLE = ROOT / "examples" / "cleanrl_ppo_masked.py"


def load_example():
    return importlib.import_module("examples.cleanrl_ppo_masked")


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
