"""uno-bench: every command runs and reports bad input clearly."""
import json

from typer.testing import CliRunner

from uno_env.cli import app

runner = CliRunner()


def test_presets_lists_classic_with_its_flags():
    result = runner.invoke(app, ["presets", "--json"])
    assert result.exit_code == 0
    table = json.loads(result.output)
    assert table["classic"]["bluff"] is True and table["classic"]["deck"] == "classic108"


def test_simulate_prints_a_summary():
    result = runner.invoke(app, ["simulate", "--games", "50", "--players", "3",
                                 "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "50 games of classic, 3 players" in result.output


def test_simulate_names_the_valid_agents_for_an_unknown_one():
    result = runner.invoke(app, ["simulate", "--agents", "alphazero", "--games", "5"])
    assert result.exit_code != 0
    assert "unknown agent(s) ['alphazero']" in result.output


def test_demo_plays_games():
    result = runner.invoke(app, ["demo", "--games", "2", "--players", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "game   1:" in result.output


def test_bench_json_has_every_row():
    result = runner.invoke(app, ["bench", "--seconds", "0.05", "--players", "2", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output[result.output.index("{"):])["rows"]
    assert {"simulate, 1 thread", "VectorEnv B=1024", "AEC env()"} <= set(rows)
    assert all(r["steps_per_s"] > 0 for r in rows.values())
