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


def test_the_example_saves_a_policy_that_gets_a_benchmark_card(tmp_path, capsys):
    """docs/your-agent.md, the CleanRL path: ``--save PATH`` writes agents.PPOAgent's
    .npz, which plays exactly the torch policy's greedy moves (numpy only), and
    ``uno-bench benchmark --agent PATH`` plays it on a track."""
    from agents import PPOAgent
    from uno_env.evaluation import benchmark
    from uno_env.envs.gym_vector import GymVectorEnv

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


# --- the documentation's code blocks run (at a tiny budget) -------------------------------
DOC_PAGES = ("README.md", "environments.md", "examples.md", "your-agent.md")
#: per page, (text, replacement) that shrink a block's budget; each must be found in the
#: page (a stale one fails the test), and a block runs as written apart from these
BUDGETS = {
    "README.md": [("UnoVecEnv(128,", "UnoVecEnv(4,"),
                  ("model.learn(1_000_000)", "model.learn(512)")],
    "environments.md": [("num_games=100_000", "num_games=200"),
                        ("EverySeatBatch(1024,", "EverySeatBatch(64,"),
                        ("UnoVecEnv(128,", "UnoVecEnv(4,"),
                        ("model.learn(1_000_000)", "model.learn(512)")],
    "examples.md": [("UnoVecEnv(128,", "UnoVecEnv(4,"),
                    ("model.learn(1_000_000)", "model.learn(512)"),
                    ("num_games=2_000", "num_games=20"),
                    # an untrained policy against random plays to max_turns: slow
                    ('("random", "heuristic")', '("heuristic",)')],
    "your-agent.md": [("UnoVecEnv(128,", "UnoVecEnv(4,"),
                      ("model.learn(1_000_000)", "model.learn(512)")],
}
#: blocks not run here, found by a text they hold, and why (none may be skipped silently)
NOT_RUN = {"train_rllib(": "starts a Ray cluster; tests/test_scale.py runs train_rllib "
                           "at a tiny budget"}


def doc_blocks(page: str) -> list[str]:
    import re
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), re.S | re.M)


@pytest.mark.parametrize("page", DOC_PAGES)
def test_every_python_block_of_the_docs_runs(page, tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib", reason=NEEDS["rl"])
    monkeypatch.chdir(tmp_path)           # files the blocks write land here
    blocks = doc_blocks(page)
    assert blocks, f"docs/{page} has python blocks"
    text = "\n".join(blocks)
    for old, _ in BUDGETS[page]:
        assert old in text, f"docs/{page} no longer has {old!r}: update BUDGETS"
    threads = torch.get_num_threads()
    ran = 0
    namespace = {"__name__": f"docs_{page}"}   # a page's blocks build on each other
    try:
        for block in blocks:
            if any(marker in block for marker in NOT_RUN):
                continue
            for old, new in BUDGETS[page]:
                block = block.replace(old, new)
            exec(compile(block, f"docs/{page}", "exec"), namespace)
            ran += 1
            if "class Factory" in block:       # your-agent.md's module plays legal moves
                check_factory(namespace["Factory"])
    finally:
        torch.set_num_threads(threads)
    assert ran >= {"README.md": 3, "environments.md": 5, "examples.md": 1,
                   "your-agent.md": 2}[page]
    if page == "README.md":
        from agents import PPOAgent
        assert PPOAgent.load(tmp_path / "mine.npz").name == "mine"
    if page == "your-agent.md":
        from agents import PPOAgent
        assert PPOAgent.load(tmp_path / "my_sb3.npz").name == "my_sb3"


def check_factory(factory):
    from uno_env.envs.gym_vector import GymVectorEnv
    envs = GymVectorEnv(16, "classic", 2, opponents="heuristic", seed=0)
    agent = factory(envs.config)
    obs, infos = envs.reset()
    for _ in range(50):             # GymVectorEnv raises on an illegal action
        actions = agent.act_batch(obs, infos["action_mask"])
        assert agent.act(obs[0], infos["action_mask"][0]) == actions[0]
        obs, _, _, _, infos = envs.step(actions)
