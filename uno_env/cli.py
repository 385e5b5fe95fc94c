"""``uno-bench``: the command line for the main jobs.

    uno-bench bench      throughput table (simulate, VectorEnv, AEC, RLCard)
    uno-bench presets    every preset with its rule flags
    uno-bench demo       watch random agents play a few games
    uno-bench simulate   whole games in numba, with a summary

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


def main():  # console-script entry point
    app()


if __name__ == "__main__":
    main()
