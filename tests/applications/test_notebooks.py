"""The notebooks run top to bottom in quick mode, show figures, and quote no hand-typed
numbers; the analysis functions behind them compute what they claim."""
import importlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from uno_env.evaluation.analysis import (ablation_configs, markdown_table, preset_players,
                              skill_edge, variant_stats)
from uno_env.evaluation.simulation import simulate

from conftest import NEEDS, has_python3_kernel, importable
from support import ROOT

needs_kernel = pytest.mark.skipif(not has_python3_kernel(), reason=NEEDS["kernel"])
needs_nbformat = pytest.mark.skipif(not importable("nbformat"),
                                    reason=NEEDS["kernel"])

pytestmark = pytest.mark.slow  # executes the notebooks (pyproject.toml markers)


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _load(name):
    return importlib.import_module(f"benchmarks.{name}")


def test_the_three_notebooks_exist():
    assert {p.stem for p in NOTEBOOKS} >= {"variants", "agents", "house_rules"}


@needs_kernel
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(path, tmp_path):
    nb, _ = _load("notebooks").execute(path, quick=True, out=tmp_path / path.name,
                                       timeout=600)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    readings = [o.data["text/markdown"] for o in outputs
                if "text/markdown" in o.get("data", {})]
    assert images, "every notebook shows at least one figure"
    assert readings and all("nan" not in r for r in readings)
    assert any("Quick" in r or "UNO_QUICK" in r or "run time" in r for r in readings)
    # a quick run says its game counts (or budgets) first, and marks its readings
    assert readings[0].lstrip("*").startswith("Quick run"), readings[0][:200]
    assert sum("this reading may change in the full run" in r for r in readings) >= 2


# Prose may name player counts, the 95% interval and the like; a measured figure
# (a rate, a count of turns, a win rate) must come from a computed cell.
ALLOWED_NUMBERS = {"1", "2", "4", "5", "6", "95"}  # "5th and 95th percentiles"


@needs_nbformat
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_cells_quote_no_numbers(path):
    import nbformat
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"`[^`]*`", "", cell.source)  # code spans name things
        numbers = set(re.findall(r"\d+(?:[.,]\d+)*", text))
        assert numbers <= ALLOWED_NUMBERS, (path.name, numbers - ALLOWED_NUMBERS)


def test_variant_stats_match_simulate():
    v = variant_stats("classic", 4, 300, seed=7)
    r = simulate("classic", 4, "heuristic", num_games=300, seed=7)
    assert np.array_equal(v.turns, r.turns)
    wins = int((r.winner == 1).sum())            # seat 0 deals, seat 1 moves first
    assert v.first_seat[0] == wins / 300
    assert v.first_seat_advantage[0] == pytest.approx(wins / 300 - 0.25)
    assert v.round_points.tolist() == r.points.sum(axis=1).tolist()
    played = int(r.counters["w4_played"].sum())
    assert v.challenge_rate == pytest.approx(r.counters["challenges"].sum() / played)
    row = v.row()
    assert row["games"] == 300 and row["turns_median"] == float(np.median(r.turns))


def test_skill_edge_rotates_the_agent_through_every_seat():
    e = skill_edge("classic", 3, 300, seed=5)
    wins = decided = 0
    for s in range(3):
        lineup = ["random"] * 3
        lineup[s] = "heuristic"
        r = simulate("classic", 3, lineup, num_games=100, seed=5, first_game=100 * s)
        wins += int((r.winner == s).sum())
        decided += 100 - r.truncated
    assert (e.wins, e.games) == (wins, decided)
    assert e.edge == pytest.approx((wins / decided - 1 / 3) / (2 / 3))
    lo, hi = e.edge_interval
    assert lo < e.edge < hi
    # the heuristic beats random players far more often than chance
    assert e.edge > 0.5


def test_skill_edge_of_a_python_agent_plays_the_same_games():
    """A Python agent (``act_batch``) goes through the tournament's match loop: the
    heuristic's Python class against random seats wins exactly the numba heuristic's
    games, seat by seat on the same deals (the notebook's edge of a trained model)."""
    from agents import HeuristicAgent
    from uno_env.rules.config import make_config
    bot = HeuristicAgent(make_config("classic", 3))
    bot.name = "heuristic-in-python"
    py = skill_edge("classic", 3, 300, seed=5, agent=bot)
    nb = skill_edge("classic", 3, 300, seed=5)
    assert (py.agent, py.opponent) == ("heuristic-in-python", "random")
    assert (py.wins, py.games, py.truncated) == (nb.wins, nb.games, nb.truncated)
    assert np.isnan(py.turns_mean) and py.edge == nb.edge > 0.5


def test_skill_edge_is_zero_for_identical_agents_within_noise():
    e = skill_edge("classic", 2, 2000, seed=3, agent="random", opponent="random")
    lo, hi = e.edge_interval
    assert lo < 0 < hi
    assert e.truncated > 0 and e.games == 2000 - e.truncated  # random games run long


def test_preset_players_and_ablation_rows():
    assert preset_players("teams") == (4,)
    assert preset_players("classic") == (2, 4, 6)
    configs = ablation_configs()
    assert configs["classic"] == ("classic", {})
    assert configs["all (chaos)"] == ("chaos", {})
    assert configs["stack=any"] == ("classic", {"stack": "any"})


def test_markdown_table():
    text = markdown_table([{"preset": "classic", "x": 0.12345, "y": float("nan")}],
                          {"preset": "preset", "x": "x", "y": "y"}, {"x": ".2f"})
    assert text.splitlines() == ["| preset | x | y |", "|---|---:|---:|",
                                 "| classic | 0.12 | - |"]


def test_figures_script_writes_the_headline_pngs(tmp_path):
    paths = _load("figures").main(["--games", "200", "--out", str(tmp_path)])
    for name in ("game_length.png", "skill_gap.png"):
        data = paths[name].read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
