"""Expert iteration (agents.exit, ``uno-bench exit``, issue 47): a tiny run end to end
writes every output, its network loads and plays; bad settings are clear errors.

Runs with torch installed (the ``rl`` extra's first step); without it the file skips,
naming the extra (tests/conftest.py)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from conftest import NEEDS

pytest.importorskip("torch", reason=NEEDS["rl"])

from typer.testing import CliRunner  # noqa: E402

from agents.exit import collect, exit_train, seat_rotated  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from uno_env import make_config  # noqa: E402
from uno_env.apps.cli import app  # noqa: E402

TINY = dict(iterations=1, games_per_iteration=4, budget=8, warm_decisions=300,
            warm_epochs=1, epochs=1, hidden=(16,), eval_games=8, batch_games=4)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exit")
    return out, exit_train(out, progress=False, **TINY)


def test_a_tiny_run_writes_every_output(tiny_run):
    out, result = tiny_run
    assert result.iterations == 1 and result.decisions > 0
    for name in ("policy.npz", "best.npz", "checkpoints/exit_0.npz",
                 "checkpoints/exit_1.npz", "data/iteration_1.npz", "eval.csv",
                 "iterations.csv", "curve.png", "summary.json"):
        assert (out / name).exists(), name
    rows = list(csv.DictReader(open(out / "eval.csv")))
    assert [int(r["iteration"]) for r in rows] == [0, 1]           # warm start, then 1
    assert all(r["opponent"] == "heuristic" and int(r["games"]) == 8 for r in rows)
    (it,) = list(csv.DictReader(open(out / "iterations.csv")))
    assert int(it["decisions"]) == result.decisions and float(it["expert_share"]) == 1.0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["budget"] == 8 and summary["iterations"] == 1


def test_the_network_loads_with_numpy_and_keeps_its_value_head(tiny_run):
    out, _ = tiny_run
    agent = PPOAgent.load(out / "policy.npz")
    assert agent.meta["method"] == "expert iteration" and agent.meta["teacher"] == "mcts:8"
    assert agent.meta["advice"] == "heuristic"          # a residual policy over it
    with np.load(out / "policy.npz") as z:
        assert z["value_w"].shape == (1, 16) and z["value_b"].shape == (1,)
    r = seat_rotated(agent, "random", 4, "classic", 2, seed=3)
    assert r["games"] == 4 and len(r["by_seat"]) == 2


def test_labels_are_the_search_moves_and_legal():
    cfg = make_config("classic", 2)
    data = collect(cfg, 3, seed=5, opponents="heuristic", budget=8, batch_games=3)
    n = len(data["label"])
    assert n > 0 and data["obs"].shape == (n, cfg.layout.obs_size)
    assert data["mask"][np.arange(n), data["label"]].all()          # legal moves
    assert (data["mask"].sum(axis=1) >= 2).all()                    # real choices only
    assert set(np.unique(data["value"])) <= {0.0, 1.0, 0.5}
    assert data["games_expert"].all() and len(data["games_won"]) == 3
    again = collect(cfg, 3, seed=5, opponents="heuristic", budget=8, batch_games=3)
    assert np.array_equal(again["label"], data["label"])            # seeded


def test_a_rerun_starts_from_an_earlier_runs_decisions(tiny_run, tmp_path):
    out, first = tiny_run
    data = out / "data" / "iteration_1.npz"
    result = exit_train(tmp_path, progress=False, **{**TINY, "warm_decisions": 0,
                                                     "advice": None, "data_from": (data,)})
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["earlier_data"]["decisions"] > 0
    rows = list(csv.DictReader(open(tmp_path / "eval.csv")))
    assert int(rows[0]["decisions"]) == first.decisions       # fitted before playing
    assert result.decisions > first.decisions
    assert "advice" not in PPOAgent.load(tmp_path / "policy.npz").meta   # plain MLP


def test_the_value_table_decides_as_the_engines_search():
    """agents.search_values rebuilds mcts's table outside the engine: on the same
    positions and streams it makes the engine's moves, and its values are win rates."""
    from agents.exit import _SearchLabeller, _ValueLabeller
    from uno_env.envs.single_seat import LearnerBatch
    lb = LearnerBatch(12, "classic", 2, "heuristic", "random", 9, auto_reset=False,
                      threads=1)
    _, mask = lb.reset()
    rows = np.flatnonzero((mask != 0).sum(axis=1) >= 2)
    assert len(rows) >= 3
    engine = _SearchLabeller(lb, 40, 9, 0)(rows)
    moves, q = _ValueLabeller(lb, 40, 9, 0)(rows)
    assert np.array_equal(moves, engine)
    legal = mask[rows] != 0
    assert np.isnan(q[~legal]).all() and ((q[legal] >= 0) & (q[legal] <= 1)).all()


@pytest.mark.parametrize("bad, message", [
    ({"data_from": ("nowhere.npz",)}, "no data file 'nowhere.npz'"),
    ({"iterations": None, "minutes": None}, "give iterations, minutes, or both"),
    ({"expert_share": 1.5}, "expert_share is a probability"),
    ({"budget": 0}, "the mcts budget is an integer"),
    ({"opponents": ("alphazero",)}, "unknown opponent 'alphazero'"),
    ({"games_per_iteration": 0}, "games_per_iteration must be a positive integer"),
])
def test_bad_settings_are_clear_errors(tmp_path, bad, message):
    with pytest.raises(ValueError, match=message):
        exit_train(tmp_path, progress=False, **{**TINY, **bad})


def test_uno_bench_exit_runs_and_reports(tmp_path):
    result = CliRunner().invoke(app, [
        "exit", "--iterations", "1", "--games", "3", "--budget", "8", "--warm", "200",
        "--hidden", "8", "--epochs", "1", "--eval-games", "4", "--out", str(tmp_path),
        "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "1 iterations" in result.output and "vs heuristic" in result.output
    assert (tmp_path / "best.npz").exists()
    bad = CliRunner().invoke(app, ["exit", "--hidden", "wide", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "--hidden takes comma-separated integers" in bad.output
