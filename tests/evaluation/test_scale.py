"""[scale]: the Ray tournament backend equals the local one; RLlib self-play training
and its policy in a tournament. One local Ray instance (2 CPUs, loopback) for the file.
Without the ray extra the file skips; without the rllib extra (and torch) the RLlib tests
do, each naming what to install (tests/conftest.py)."""
import importlib
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from agents.ppo import PPOAgent
from uno_env.apps.cli import app
from uno_env.evaluation.distributed import MissingExtra
from uno_env.evaluation.tournament import tournament

from conftest import NEEDS, importable

ray = pytest.importorskip("ray", reason=NEEDS["ray"])
pytestmark = pytest.mark.slow  # starts Ray and trains with RLlib (pyproject.toml markers)


# the module (``uno_env.evaluation.tournament``, the package attribute, is the function)
T = importlib.import_module("uno_env.evaluation.tournament")
needs_rllib = pytest.mark.skipif(not importable("ray.rllib", "torch"),
                                 reason=NEEDS["rllib"])
runner = CliRunner()
NUMBA = ("random", "greedy", "heuristic")


@pytest.fixture(scope="module")
def local_ray():
    # warm the numba cache in the driver first: the workers then load it from disk
    tournament(NUMBA, "classic", 2, num_games=30, seed=0, threads=1, progress=False)
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def _same(a, b):
    assert np.array_equal(a.winner, b.winner)
    assert np.array_equal(a.points, b.points)
    assert a.stats() == b.stats()
    assert a.head_to_head() == b.head_to_head()
    assert a.ratings == b.ratings


def test_ray_tournament_equals_local_with_numba_and_python_agents(local_ray, monkeypatch):
    """Many small chunks (finishing in any order) on 2 workers, a trained network among
    the agents: exactly the local backend's winners and points."""
    ppo = PPOAgent.load("ppo_classic_2p")
    agents = (*NUMBA, ppo)
    # ~25 chunks, uneven last ones. (A lineup with a Python agent plays the named agents
    # through their Python classes, seeded per chunk: the chunks are the backends' shared
    # unit, so both use the same ones.)
    monkeypatch.setattr(T, "CHUNK", 97)
    local = tournament(agents, "classic", 2, num_games=2400, seed=11, threads=1,
                       progress=False)
    puts = []
    real_put = ray.put
    monkeypatch.setattr(ray, "put", lambda x, **kw: puts.append(x) or real_put(x, **kw))
    dist = tournament(agents, "classic", 2, num_games=2400, seed=11, progress=False,
                      backend="ray")
    _same(local, dist)
    assert len(T._chunks(dist.lineups, dist.games_per_lineup)) > 20
    assert len(puts) == 1 and set(puts[0]) == {"ppo"}   # the network: once, for all tasks
    assert dist.truncated < dist.num_games // 100
    assert sum(d["wins"] for d in dist.stats()) == dist.num_games - dist.truncated


def test_ray_tournament_numba_agents_four_players_and_rules(local_ray, monkeypatch):
    monkeypatch.setattr(T, "CHUNK", 1000)
    kw = dict(num_games=6000, seed=3, progress=False, bluff=False)
    local = tournament(NUMBA, "classic", 4, threads=2, **kw)
    dist = tournament(NUMBA, "classic", 4, backend="ray", **kw)
    _same(local, dist)
    assert dist.rules == {"bluff": False}
    other_seed = tournament(NUMBA, "classic", 4, backend="ray", **{**kw, "seed": 4})
    assert not np.array_equal(other_seed.winner, dist.winner)


def test_bad_backend_input_raises_value_error(local_ray, monkeypatch):
    with pytest.raises(ValueError, match="unknown backend 'dask'.*local, ray"):
        tournament(NUMBA, num_games=10, backend="dask", progress=False)
    with pytest.raises(ValueError, match="address.*backend='ray'"):
        tournament(NUMBA, num_games=10, address="auto", progress=False)
    with pytest.raises(ValueError, match="threads"):
        tournament(NUMBA, num_games=10, backend="ray", threads=0, progress=False)
    with pytest.raises(ValueError, match="unknown rule flag"):
        tournament(NUMBA, num_games=10, backend="ray", progress=False, colour="red")
    monkeypatch.setitem(sys.modules, "ray", None)     # as if Ray were not installed
    with pytest.raises(ValueError, match=r'"ray" extra: pip install -e ".\[ray\]"') as err:
        tournament(NUMBA, num_games=10, backend="ray", progress=False)
    assert isinstance(err.value, (MissingExtra, ImportError))


def test_cli_tournament_ray_backend_prints_the_local_leaderboard(local_ray, tmp_path):
    args = ["tournament", "--agents", "random,greedy,heuristic", "--players", "3",
            "--games", "1500", "--seed", "5", "--no-progress"]
    local = runner.invoke(app, args + ["--threads", "1"])
    dist = runner.invoke(app, args + ["--backend", "ray", "--out", str(tmp_path)])
    assert local.exit_code == 0 and dist.exit_code == 0, dist.output
    # the first line holds the wall-clock time; the OpenSkill line its seconds
    body = [x for x in local.output.splitlines()[1:] if not x.startswith("OS mu")]
    assert body == [x for x in dist.output.splitlines()[1:len(body) + 1]
                    if not x.startswith("OS mu")]
    assert (tmp_path / "results.json").exists() and (tmp_path / "win_rates.png").exists()
    bad = runner.invoke(app, args + ["--backend", "spark"])
    assert bad.exit_code == 2 and "unknown backend" in bad.output


def test_ray_benchmark_card_equals_the_local_one(local_ray):
    """The benchmark on the Ray backend: the local card (all but its run entry), with the
    shipped model among the panel (a Python agent) and the search agents."""
    from uno_env.evaluation.benchmark import benchmark
    local = benchmark("heuristic", "classic-2p", games=6, threads=1).to_dict()
    dist = benchmark("heuristic", "classic-2p", games=6, backend="ray").to_dict()
    assert dist.pop("run")["backend"] == "ray" and local.pop("run")["backend"] == "local"
    # where and when each was played (the date, the command line) differs by design
    mine, theirs = dist.pop("provenance"), local.pop("provenance")
    assert mine["rules"] == theirs["rules"] and mine["seeds"] == theirs["seeds"]
    assert dist == local


# --- RLlib -------------------------------------------------------------------------------
@needs_rllib
def test_rllib_env_is_turn_based_with_masks_and_final_rewards():
    from uno_env.integrations.rllib import UnoMultiAgentEnv
    env = UnoMultiAgentEnv({"num_players": 3})
    rng = np.random.default_rng(0)
    for game in range(5):
        obs, _ = env.reset(seed=7 if game == 0 else None)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        while True:
            (agent, o), = obs.items()             # only the agent to move
            assert env.observation_spaces[agent].contains(o)
            legal = np.flatnonzero(o["action_mask"])
            obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
            steps += 1
            for a, r in rew.items():
                returns[a] += r
            if term["__all__"] or trunc["__all__"]:
                break
        assert set(obs) == set(env.possible_agents)      # everyone's last observation
        assert all(o["action_mask"].sum() == 0 for o in obs.values())
        if term["__all__"]:
            assert sorted(returns.values()) == pytest.approx([-0.5, -0.5, 1.0])
            assert returns[f"player_{env.aec.game.winner}"] == 1.0
        assert steps > 3


@pytest.fixture(scope="module")
def rllib_run(local_ray, tmp_path_factory):
    from uno_env.integrations.train_rllib import train_rllib
    out = tmp_path_factory.mktemp("rllib")
    # one EnvRunner actor: sampling happens in a Ray worker, as on a cluster
    return train_rllib(out, num_players=2, timesteps=10**9, iterations=2, seed=0,
                       env_runners=1, hidden=(64, 64), train_batch_size=1000,
                       minibatch_size=250,
                       num_epochs=2, eval_games=300, eval_opponents=("random",),
                       progress=False)


@needs_rllib
def test_rllib_self_play_trains_two_iterations(rllib_run):
    r = rllib_run
    assert r.iterations == 2 and r.timesteps >= 2000
    assert [h["iteration"] for h in r.history] == [1, 2]
    assert r.history[1]["steps"] > r.history[0]["steps"]
    assert all(np.isfinite(h["policy_loss"]) for h in r.history)
    for name in ("policy.npz", "progress.csv", "eval.csv", "summary.json"):
        assert (r.out / name).exists()
    assert (r.checkpoint_path / "rllib_checkpoint.json").exists()
    assert r.evaluations[0]["opponent"] == "random" and r.evaluations[0]["games"] == 300


@needs_rllib
def test_exported_policy_acts_as_the_rllib_module(rllib_run):
    """The numpy agent takes the module's greedy action (masked logits) everywhere."""
    import torch

    from uno_env.integrations.rllib import UnoMultiAgentEnv, agent_from_checkpoint, load_module
    module = load_module(rllib_run.checkpoint_path)
    agent = PPOAgent.load(rllib_run.policy_path)
    assert agent.name == "rllib_ppo" and agent.meta["iterations"] == 2
    assert agent_from_checkpoint(rllib_run.checkpoint_path).layers[0][0].tobytes() \
        == agent.layers[0][0].tobytes()
    env = UnoMultiAgentEnv({"num_players": 2})
    raw, masks, scaled = [], [], []
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    while len(raw) < 300:
        (a, o), = obs.items()
        raw.append(env.aec.observe(a)["observation"])
        masks.append(o["action_mask"])
        scaled.append(o["observations"])
        obs, _, term, trunc, _ = env.step({a: int(rng.choice(np.flatnonzero(masks[-1])))})
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    with torch.no_grad():
        out = module.forward_inference({"obs": {
            "observations": torch.as_tensor(np.array(scaled)),
            "action_mask": torch.as_tensor(np.array(masks))}})
    legal = np.array(masks) > 0
    theirs_logits = out["action_dist_inputs"].numpy()
    ours_logits = agent.logits(np.array(raw))
    assert np.allclose(ours_logits[legal], theirs_logits[legal], rtol=1e-4, atol=1e-4)
    theirs = theirs_logits.argmax(axis=1)
    ours = agent.act_batch(np.array(raw), np.array(masks))
    top2 = np.sort(np.where(legal, ours_logits, -np.inf), axis=1)[:, -2:]
    near_tie = (top2[:, 1] - top2[:, 0]) < 1e-4       # float rounding may pick either
    assert ((ours == theirs) | near_tie).all() and (ours == theirs).mean() > 0.95
    assert legal[np.arange(len(ours)), ours].all()


@needs_rllib
def test_rllib_policy_plays_in_a_ray_tournament(rllib_run):
    agent = rllib_run.agent
    local = tournament((agent, "random"), "classic", 2, num_games=200, seed=2, threads=1,
                       progress=False)
    dist = tournament((agent, "random"), "classic", 2, num_games=200, seed=2,
                      progress=False, backend="ray")
    _same(local, dist)
    rows = {d["agent"]: d for d in dist.stats()}
    assert rows["rllib_ppo"]["games"] == 200
    assert rows["rllib_ppo"]["wins"] + rows["random"]["wins"] == 200 - dist.truncated


def test_cli_train_framework_option(tmp_path):
    bad = runner.invoke(app, ["train", "--framework", "jax", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "framework" in bad.output
    bad = runner.invoke(app, ["train", "--framework", "rllib", "--opponents", "heuristic",
                              "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "self-play" in bad.output


@needs_rllib
def test_missing_rllib_names_the_extra(monkeypatch):
    from uno_env.integrations.rllib import require_rllib
    monkeypatch.setitem(sys.modules, "ray.rllib", None)
    with pytest.raises(ValueError, match=r'"rllib" extra.*pip install -e ".\[rllib\]"'):
        require_rllib()
