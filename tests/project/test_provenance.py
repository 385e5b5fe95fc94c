"""Provenance in every result (``uno_env.provenance``, docs/reproducibility.md): the one
function builds the record, every writer a person may report from calls it, cards
written before it load with their provenance unknown, and ``uno-bench benchmark
--reproduce`` replays a card's games identically."""
from __future__ import annotations

import ast
import datetime
import json
import os
import shlex
import subprocess
import sys
import types
import uuid

import numpy as np
import pytest
from typer.testing import CliRunner

import uno_env
from conftest import in_ci
from support import ROOT
from uno_env import provenance as P
from uno_env.apps.cli import app
from uno_env.rules.config import make_config
from uno_env.rules.ruleset import Rules

runner = CliRunner()

#: every module that writes a result file, and what it writes
WRITERS = {
    "uno_env/evaluation/benchmark.py": "card.json, card.md, card.png",
    "uno_env/evaluation/tournament.py": "results.json, win_rates.png",
    "uno_env/apps/results.py": "uno-bench simulate --out, uno-bench evaluate --out",
    "uno_env/envs/replay_format.py": "replay files (uno-bench record, Game.to_replay)",
    "agents/ppo.py": "trained model files (.npz meta)",
    "agents/onnx_export.py": "exported ONNX files",
    "agents/exit.py": "expert iteration's learning curve (curve.png metadata)",
}


def test_the_record_holds_every_field():
    config = make_config("street", 3, seven_zero=False)
    record = P.provenance(config, [5, np.int64(6)], extra="x")
    assert record["format"] == P.PROVENANCE_FORMAT and record["extra"] == "x"
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], text=True,
                          capture_output=True).stdout.strip()
    assert record["uno_env"]["version"] == uno_env.__version__
    assert record["uno_env"]["commit"] == head and record["uno_env"]["dirty"] in (True, False)
    import numba
    assert record["libraries"]["numpy"] == np.__version__
    assert record["libraries"]["numba"] == numba.__version__
    assert record["python"] == ".".join(map(str, sys.version_info[:3]))
    (rules,) = record["rules"]
    assert (rules["preset"], rules["num_players"]) == ("street", 3)
    assert set(rules["rules"]) == set(Rules.__dataclass_fields__)     # every flag
    assert rules["rules"]["seven_zero"] is False and rules["rules"]["stack"] == "any"
    assert record["seeds"] == [5, 6]
    assert record["environments"] == {"single_seat": "uno_env/UnoSingleSeat-v3",
                                      "aec": "uno_env/UnoAEC-v1"}
    assert record["machine"]["cores"] == os.cpu_count() and record["machine"]["cpu"]
    when = datetime.datetime.fromisoformat(record["date"])
    assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600
    assert record["command"] == shlex.join(sys.orig_argv)
    json.dumps(record)                                   # JSON-ready


def test_optional_libraries_are_recorded_when_loaded(monkeypatch):
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    assert "ray" not in P.provenance()["libraries"]
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(__version__="9.9.9"))
    assert P.provenance()["libraries"]["ray"] == "9.9.9"


def test_a_missing_record_reads_unknown():
    assert P.of({"benchmark": "uno-bench/5"}) is None
    (line,) = P.describe(None)
    assert "unknown" in line
    lines = P.describe(P.provenance())
    assert uno_env.__version__ in lines[0] and "numba" in lines[0]


@pytest.mark.parametrize("path", sorted(WRITERS))
def test_every_writer_calls_the_one_function(path):
    """The writer's module calls ``uno_env.provenance.provenance`` (the record is never
    assembled elsewhere); the next test checks what each writes."""
    tree = ast.parse((ROOT / path).read_text())
    imports = any(isinstance(n, ast.ImportFrom) and n.module == "uno_env.provenance"
                  and any(a.name == "provenance" for a in n.names) for n in ast.walk(tree))
    calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and n.func.id == "provenance" for n in ast.walk(tree))
    assert imports and calls, f"{path} ({WRITERS[path]}) does not call provenance()"


@pytest.fixture
def marked(monkeypatch):
    """``provenance`` returning its record plus a unique marker, to find in the files."""
    marker = uuid.uuid4().hex
    real = P.provenance
    monkeypatch.setattr(P, "provenance", lambda *a, **k: {**real(*a, **k), "marker": marker})
    return marker


def _png_record(path):
    from PIL import Image
    with Image.open(path) as image:
        return json.loads(image.text["Provenance"])


def test_every_result_file_carries_the_record(tmp_path, marked, monkeypatch):
    from uno_env.evaluation.benchmark import benchmark
    from uno_env.evaluation.tournament import tournament
    # a benchmark card: JSON, its text card, its chart's metadata
    card = benchmark("heuristic", "classic-4p", games=4, threads=1, opponents=["random"])
    paths = card.save(tmp_path / "card")
    data = json.loads(paths["json"].read_text())
    assert data["provenance"]["marker"] == marked
    assert [r["preset"] for r in data["provenance"]["rules"]] == ["classic"]
    assert data["provenance"]["seeds"] == [1804]
    assert data["provenance"]["uno_env"]["commit"] in paths["md"].read_text()
    assert _png_record(paths["png"])["marker"] == marked
    # a tournament's results.json and chart
    result = tournament(("random", "greedy"), "classic", 2, num_games=4, seed=3,
                        progress=False, threads=1)
    saved = result.save(tmp_path / "tournament")
    assert json.loads(saved["results.json"].read_text())["provenance"]["marker"] == marked
    assert _png_record(saved["win_rates.png"])["seeds"] == [3]
    # uno-bench simulate --out and evaluate --out
    out = tmp_path / "sim.json"
    done = runner.invoke(app, ["simulate", "--games", "6", "--players", "2", "--seed", "4",
                               "--rule", "stack=any", "--out", str(out)])
    assert done.exit_code == 0, done.output
    sim = json.loads(out.read_text())
    assert sim["provenance"]["marker"] == marked and sim["provenance"]["seeds"] == [4]
    assert sim["provenance"]["rules"][0]["rules"]["stack"] == "any"
    assert sum(sim["wins_by_seat"]) + sim["truncated"] == 6
    out = tmp_path / "eval.json"
    done = runner.invoke(app, ["evaluate", "--model", "greedy", "--opponents", "random",
                               "--games", "4", "--players", "2", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text())["provenance"]["marker"] == marked
    # a replay file (uno-bench record)
    done = runner.invoke(app, ["record", "--agents", "heuristic", "--players", "2",
                               "--out", str(tmp_path / "replays")])
    assert done.exit_code == 0, done.output
    (replay,) = (tmp_path / "replays").glob("*.json")
    data = json.loads(replay.read_text())
    assert data["provenance"]["marker"] == marked
    from uno_env.envs.game import Game
    assert Game.from_replay(data).is_over        # the record does not disturb loading
    # a trained model file: saving a model without a record gives it one
    from agents.ppo import PPOAgent
    model = PPOAgent.load("ppo_classic_2p")
    assert "provenance" not in model.meta       # the shipped files predate it
    again = PPOAgent.load(model.save(tmp_path / "m.npz"))
    assert again.meta["provenance"]["marker"] == marked
    # an exported ONNX file (the onnx extra: installed in CI, where it must be here)
    if in_ci() or _has("onnx"):
        import onnx
        from agents.onnx_export import EXPORT_KEY
        proto = onnx.load(str(again.export_onnx(tmp_path / "m.onnx")))
        props = {p.key: p.value for p in proto.metadata_props}
        assert json.loads(props[EXPORT_KEY])["marker"] == marked
    # expert iteration's learning curve (agents.exit.plot_curve; its figure needs no torch)
    from agents.exit import plot_curve
    curve = tmp_path / "eval.csv"
    curve.write_text("iteration,decisions,opponent,players,win_rate,ci_low,ci_high\n"
                     "0,1000,heuristic,2,0.5,0.45,0.55\n")
    assert _png_record(plot_curve(curve, tmp_path / "curve.png"))["marker"] == marked


def _has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def test_cards_written_before_load_with_provenance_unknown():
    from uno_env.evaluation.benchmark import BenchmarkCard
    from uno_env.evaluation.reproduce import stored_card, stored_cards
    assert "heuristic" in stored_cards() and "mcts:10" in stored_cards()
    data = stored_card("heuristic")
    # its rating games were played before the record existed (uno-bench/6 carried the
    # card over and wrote the key, null)
    assert data.get("provenance") is None
    card = BenchmarkCard.from_dict(data)
    assert card.provenance is None and card.to_dict()["provenance"] is None
    assert "Provenance: unknown" in card.markdown()
    with pytest.raises(ValueError, match="stored: .*greedy"):
        stored_card("nobody")


def test_reproduce_replays_a_card_identically(tmp_path):
    from uno_env.evaluation.benchmark import benchmark
    card = benchmark("heuristic", "classic-4p", games=8, threads=1,
                     opponents=["random", "greedy"])
    path = card.save(tmp_path)["json"]
    done = runner.invoke(app, ["benchmark", "--reproduce", str(path), "--threads", "1",
                               "--no-progress"])
    assert done.exit_code == 0, done.output
    assert "vs random" in done.output and "vs greedy" in done.output
    assert done.output.strip().endswith("results: identical (2 of 2 results)")
    assert "this run:" in done.output and "Provenance: uno-env" in done.output
    # a card whose results differ from its games: found, exit code 1
    data = json.loads(path.read_text())
    data["tracks"][0]["results"][1]["wins"] += 1
    data["tracks"][0]["results"][1]["wins_by_seat"][0] += 1
    path.write_text(json.dumps(data))
    done = runner.invoke(app, ["benchmark", "--reproduce", str(path), "--threads", "1",
                               "--no-progress"])
    assert done.exit_code == 1
    assert "greedy" in done.output and "DIFFERENT" in done.output
    assert "NOT identical (1 of 2 results)" in done.output
    bad = runner.invoke(app, ["benchmark", "--reproduce", str(path), "--agent", "random"])
    assert bad.exit_code == 2 and "leave out --agent" in bad.output
    bad = runner.invoke(app, ["benchmark", "--reproduce", str(tmp_path / "none.json")])
    assert bad.exit_code == 2 and "no card file" in bad.output
