"""``uno-bench``: the command line for the main jobs.

    uno-bench bench      throughput table (simulate, VectorEnv, AEC, RLCard)
    uno-bench presets    every preset with its rule flags
    uno-bench demo       watch random agents play a few games
    uno-bench simulate   whole games in numba, with a summary
    uno-bench tournament agents in every seat: leaderboard, head-to-head, ratings
    uno-bench play       play a game in the terminal against agents

``uno-bench COMMAND --help`` describes each command's options.
"""
from __future__ import annotations

import json

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="uno-env: UNO environment and agent benchmark.")


@app.command()
def bench(seconds: float = typer.Option(3.0, help="seconds measured per row"),
          players: int = typer.Option(4, help="number of players"),
          preset: str = typer.Option("classic", help="preset name"),
          json_out: bool = typer.Option(False, "--json", help="print JSON only")):
    """Throughput of simulate, VectorEnv and the AEC env, beside RLCard if installed."""
    from uno_env.bench import main
    argv = ["--seconds", str(seconds), "--players", str(players), "--preset", preset]
    main(argv + (["--json"] if json_out else []))


@app.command()
def presets(json_out: bool = typer.Option(False, "--json", help="print JSON")):
    """List every preset with its rule flags."""
    from uno_env.rules import presets as all_presets
    table = all_presets()
    if json_out:
        typer.echo(json.dumps(table, indent=2))
        return
    for name, flags in table.items():
        typer.echo(f"{name}:")
        for flag, value in flags.items():
            typer.echo(f"  {flag:20s} {value!r}")


@app.command()
def demo(games: int = typer.Option(5, min=1), players: int = typer.Option(4),
         seed: int = typer.Option(0, min=0), preset: str = typer.Option("classic"),
         policy: str = typer.Option("eager", help="eager or uniform random agents"),
         quiet: bool = typer.Option(False, help="do not print the first game")):
    """Play a few games between random agents and print them."""
    from uno_env.demo import main
    argv = ["--games", str(games), "--players", str(players), "--seed", str(seed),
            "--preset", preset, "--policy", policy]
    main(argv + (["--quiet"] if quiet else []))


@app.command()
def simulate(games: int = typer.Option(10_000, min=1, help="number of games"),
             players: int = typer.Option(4), seed: int = typer.Option(0, min=0),
             preset: str = typer.Option("classic"),
             agents: str = typer.Option("random", help="comma-separated, one per seat "
                                        "(or one name for every seat)"),
             threads: int = typer.Option(None, help="numba threads (default: all)")):
    """Play whole games inside numba and print a summary."""
    from uno_env.simulate import simulate as run
    names = tuple(a.strip() for a in agents.split(","))
    try:
        result = run(preset, players, agents=names, num_games=games, seed=seed,
                     threads=threads)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    typer.echo(result.summary())


@app.command()
def tournament(agents: str = typer.Option("random,greedy,heuristic",
                                          help="comma-separated agent names"),
               preset: str = typer.Option("classic"), players: int = typer.Option(4),
               games: int = typer.Option(100_000, min=1, help="number of games (rounded "
                                         "up to a multiple of the number of agents)"),
               seed: int = typer.Option(0, min=0),
               threads: int = typer.Option(None, help="numba threads (default: all)"),
               out: str = typer.Option(None, help="directory for results.json, "
                                       "leaderboard.csv, head_to_head.csv, win_rates.png"),
               progress: bool = typer.Option(True, help="show a progress bar")):
    """Every agent in every seat equally often; prints the leaderboard."""
    from uno_env.tournament import tournament as run
    names = tuple(a.strip() for a in agents.split(",") if a.strip())
    try:
        result = run(names, preset, players, num_games=games, seed=seed, threads=threads,
                     progress=progress)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    typer.echo(result.leaderboard())
    if out:
        for path in result.save(out).values():
            typer.echo(f"wrote {path}")


@app.command()
def play(players: int = typer.Option(3, help="number of players"),
         opponents: str = typer.Option("heuristic", help="agent name for every opponent, "
                                       "or comma-separated names, one per opponent"),
         seed: int = typer.Option(0, min=0), seat: int = typer.Option(0, min=0,
                                                                      help="your seat"),
         preset: str = typer.Option("classic")):
    """Play UNO in the terminal against agents (type a move's number or its name)."""
    from uno_env.play import play_game
    try:
        play_game(players=players, opponents=opponents, seed=seed, seat=seat,
                  preset=preset)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def main():  # console-script entry point
    app()


if __name__ == "__main__":
    main()
