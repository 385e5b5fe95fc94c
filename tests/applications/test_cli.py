"""uno-bench: every command runs and reports bad input clearly."""
import json

from typer.testing import CliRunner

from uno_env.apps.cli import app

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
    assert {"simulate, 1 thread", "EverySeatBatch B=1024", "EverySeatBatch B=1024, uint8 obs",
            "EverySeatBatch B=1024, final_obs",
            "LearnerBatch B=1024 vs heuristic", "AEC env()"} <= set(rows)
    assert all(r["steps_per_s"] > 0 for r in rows.values())


def test_bench_skips_only_rows_it_cannot_run():
    """The uint8 row is left out only when the match's scores do not fit in uint8;
    any other error of a row is raised, not hidden as a skipped row."""
    from uno_env.apps.throughput import _optional, _uint8_fits
    assert _uint8_fits(2, "classic")
    assert not _uint8_fits(2, "classic", target_score=500)

    def broken():
        raise ValueError("a real bug")
    with pytest.raises(ValueError, match="a real bug"):
        _optional(broken)
    assert _optional(lambda: (_ for _ in ()).throw(ImportError("old checkout"))) is None


# --- options, --version, --rule and the one-line usage errors of every command -------
import click  # noqa: E402
import pytest  # noqa: E402
import typer  # noqa: E402

import uno_env  # noqa: E402
from uno_env.apps.cli import parse_rule  # noqa: E402
from uno_env.rules import PRESETS, rule_names  # noqa: E402

#: every command that plays a game, with the arguments that keep it small
PLAYING = {"bench": ["--seconds", "0.01"], "demo": ["--games", "1", "--quiet"],
           "simulate": ["--games", "5", "--threads", "1"],
           "tournament": ["--games", "10", "--threads", "1", "--no-progress"],
           "play": [], "train": ["--timesteps", "64", "--no-progress"],
           "evaluate": ["--model", "random", "--games", "10"],
           "exit": ["--iterations", "1", "--games", "2", "--warm", "0", "--budget", "10",
                    "--eval-games", "2", "--no-progress"]}


def _error_line(result) -> str:
    """The usage error: exit code 2, no traceback, one line ``Error: ...`` last."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("Error: ") and sum(x.startswith("Error") for x in lines) == 1
    return lines[-1]


def test_version():
    """The version, and in a git checkout (this one) the commit: ``uno-bench (uno-env)
    0.2.0 (commit 1a2b3c4d5e6f[, dirty])``."""
    from uno_env.version import commit
    result = runner.invoke(app, ["--version"])
    head, dirty = commit()
    assert head is not None, "the tests run in a git checkout"
    assert result.exit_code == 0 and result.output.strip() == \
        f"uno-bench (uno-env) {uno_env.__version__} (commit {head[:12]}" \
        + (", dirty)" if dirty else ")")


def test_every_option_of_every_command_has_help_and_preset_lists_the_names():
    group = typer.main.get_command(app)
    assert set(PLAYING) <= set(group.commands)
    for name, command in group.commands.items():
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts} has no help text"
            if param.name == "preset":
                assert all(p in param.help for p in PRESETS), name
    for name in PLAYING:
        assert "rule" in {p.name for p in group.commands[name].params}, name


@pytest.mark.parametrize("command", sorted(PLAYING))
def test_bad_preset_names_the_valid_presets(command):
    result = runner.invoke(app, [command, *PLAYING[command], "--preset", "uno2"])
    line = _error_line(result)
    assert "unknown preset 'uno2'; valid presets: " + ", ".join(PRESETS) in line


@pytest.mark.parametrize("command", sorted(PLAYING))
def test_bad_rule_flag_names_the_valid_flags(command):
    result = runner.invoke(app, [command, *PLAYING[command], "--rule", "colour=red"])
    line = _error_line(result)
    assert "'--rule'" in line
    assert "unknown rule flag 'colour'; valid flags: " + ", ".join(rule_names()) in line


@pytest.mark.parametrize("command", sorted(PLAYING))
def test_bad_rule_value_and_player_count_name_the_valid_ones(command):
    result = runner.invoke(app, [command, *PLAYING[command], "--rule", "stack=sideways"])
    assert "rule 'stack' must be one of 'none', 'same', 'any', got 'sideways'" in \
        _error_line(result)
    result = runner.invoke(app, [command, *PLAYING[command], "--players", "11"])
    assert "num_players must be an integer from 2 to 10, got 11" in _error_line(result)


@pytest.mark.parametrize("args, message", [
    (["simulate", "--games", "5", "--agents", "alphazero"],
     "unknown agent(s) ['alphazero']"),
    (["tournament", "--games", "10", "--agents", "random,alphazero"], "alphazero"),
    (["play", "--opponents", "alphazero"], "alphazero"),
    (["evaluate", "--model", "alphazero", "--games", "10"], "alphazero"),
    (["evaluate", "--model", "random", "--opponents", "alphazero", "--games", "10"],
     "unknown opponent 'alphazero'"),
    (["demo", "--policy", "clever"], "unknown policy 'clever'; valid: eager, uniform"),
    (["train", "--framework", "jax"], "unknown framework 'jax'; valid: sb3, rllib"),
])
def test_bad_agent_names_what_is_valid(args, message):
    line = _error_line(runner.invoke(app, args, input="1\n"))
    assert message in line
    if "agent" in message or message == "alphazero":
        assert "random" in line and "heuristic" in line


def test_parse_rule_reads_each_value_by_the_flags_type():
    assert parse_rule("bluff=false") == ("bluff", False)
    assert parse_rule(" uno_call = YES ") == ("uno_call", True)
    assert parse_rule("hand_size=5") == ("hand_size", 5)
    assert parse_rule("stack=any") == ("stack", "any")
    assert parse_rule("onepiece_cards=3,1,1,1") == ("onepiece_cards", (3, 1, 1, 1))
    with pytest.raises(ValueError, match="a rule is KEY=VALUE"):
        parse_rule("stack")
    with pytest.raises(ValueError, match="'hand_size' is an integer, got 'seven'"):
        parse_rule("hand_size=seven")
    with pytest.raises(ValueError, match="'bluff' is true or false, got 'maybe'"):
        parse_rule("bluff=maybe")
    with pytest.raises(ValueError, match=r"comma-separated integers \(e.g. 2,2,1,1\)"):
        parse_rule("onepiece_cards=2,x")


def test_rule_flags_reach_the_game():
    result = runner.invoke(app, ["demo", "--games", "1", "--players", "2", "--quiet",
                                 "--rule", "hand_size=3", "--rule", "bluff=false"])
    assert result.exit_code == 0, result.output
    assert "1 games of classic, hand_size=3, bluff=False, 2 players" in result.output
    result = runner.invoke(app, ["simulate", "--games", "20", "--players", "2",
                                 "--threads", "1", "--rule", "bluff=false"])
    assert result.exit_code == 0, result.output


def test_flags_lists_every_flag_from_its_declaration():
    from uno_env.rules.ruleset import FLAGS, Rules
    result = runner.invoke(app, ["flags", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["flag"] for r in rows] == list(FLAGS)
    by_name = {r["flag"]: r for r in rows}
    assert by_name["stack"]["values"] == ["none", "same", "any"]
    assert by_name["stack"]["default"] == Rules().stack
    assert by_name["challenge"]["variants"] == ["onepiece"]
    assert "classic112" in by_name["deck"]["values"]
    text = runner.invoke(app, ["flags"]).output
    assert all(name in text for name in FLAGS)
