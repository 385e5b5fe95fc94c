"""``uno-bench``: the command line for the main jobs.

    uno-bench bench      throughput table (simulate, EverySeatBatch, AEC, RLCard)
    uno-bench presets    every preset with its rule flags
    uno-bench flags      every rule flag: default, values, where it applies
    uno-bench demo       watch random agents play a few games
    uno-bench simulate   whole games in numba, with a summary
    uno-bench tournament agents in every seat: leaderboard, head-to-head, OpenSkill
    uno-bench play       play a game in the terminal against agents
    uno-bench train      train a PPO agent (MaskablePPO, or RLlib self-play with
                         --framework rllib; needs the rl or rllib extra)
    uno-bench exit       expert iteration: a network trained on the mcts search's
                         decisions (needs torch)
    uno-bench evaluate   win rate of an agent or a trained model against opponents
    uno-bench benchmark  an agent on the benchmark's fixed tracks: a report card
                         (--reproduce card.json: play a card's games again)
    uno-bench compare    two agents (two cards, or --agent A --agent B) on the same
                         duplicate deals: the paired edge of one over the other
    uno-bench export     a trained model as ONNX (needs the onnx extra)
    uno-bench record     record games between agents as replays (uno-bench view: HTML)
    uno-bench serve      play UNO in the browser against agents
    uno-bench warmup     compile the engine ahead of time (cached on disk)

``uno-bench COMMAND --help`` describes each command's options. Every command that plays
takes ``--preset`` and a repeatable ``--rule KEY=VALUE`` (any flag of
``uno_env.rules.Rules``: ``--rule stack=any --rule bluff=false``). Bad input is a usage
error: a one-line ``Error: ...`` naming what is valid, exit code 2, never a traceback.
"""
from __future__ import annotations

import contextlib
import json

import typer

from uno_env.evaluation.benchmark import TRACKS
from uno_env.rules import PRESETS, Rules, rule_names

TRACK_NAMES = tuple(TRACKS)

# rich_markup_mode=None: click's plain error output, whose "Error: ..." line is never
# wrapped into a box (a wrapped box splits the names of the valid values across lines)
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="uno-env: UNO environment and agent benchmark.")

PRESET_HELP = f"rule preset: {', '.join(PRESETS)} (uno-bench presets shows their flags)"
RULE_HELP = ("a rule flag over the preset, KEY=VALUE, repeatable (--rule stack=any "
             f"--rule bluff=false); flags: {', '.join(rule_names())} (uno-bench flags "
             "lists their values)")
PLAYERS_HELP = "number of players, 2 to 10"
SEED_HELP = "seed of the deals (game i of a seed is always the same game)"
THREADS_HELP = "threads playing games side by side (default: all cores)"
_BOOLS = {"true": True, "yes": True, "on": True, "1": True,
          "false": False, "no": False, "off": False, "0": False}


def _version(value: bool) -> None:
    if value:
        from uno_env.version import describe
        typer.echo(f"uno-bench (uno-env) {describe()}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version,
                                       is_eager=True, help="print the version and exit")):
    """uno-env: UNO environment and agent benchmark."""


def _check_preset(value: str | None) -> str | None:
    if value is not None and value not in PRESETS:
        raise typer.BadParameter(f"unknown preset {value!r}; valid presets: "
                                 f"{', '.join(PRESETS)}")
    return value


def parse_rule(text: str) -> tuple[str, object]:
    """``"KEY=VALUE"`` -> ``(key, value)``, the value parsed by the type of the ``Rules``
    field (bool, int, str, or a tuple of integers written ``2,2,1,1``). ValueError naming
    the valid flags or the expected form."""
    key, sep, raw = (s.strip() for s in text.partition("="))
    if not sep or not key:
        raise ValueError(f"a rule is KEY=VALUE (e.g. stack=any), got {text!r}")
    if key not in rule_names():
        raise ValueError(f"unknown rule flag {key!r}; valid flags: "
                         f"{', '.join(rule_names())}")
    default = getattr(Rules(), key)
    if isinstance(default, bool):
        if raw.lower() not in _BOOLS:
            raise ValueError(f"rule flag {key!r} is true or false, got {raw!r}")
        return key, _BOOLS[raw.lower()]
    if isinstance(default, int):
        try:
            return key, int(raw)
        except ValueError:
            raise ValueError(f"rule flag {key!r} is an integer, got {raw!r}") from None
    if isinstance(default, tuple):
        try:
            return key, tuple(int(x) for x in raw.split(","))
        except ValueError:
            raise ValueError(f"rule flag {key!r} is comma-separated integers (e.g. "
                             f"{','.join(map(str, default))}), got {raw!r}") from None
    return key, raw


def _parse_rules(values: list[str] | None) -> dict:
    try:
        return dict(parse_rule(v) for v in values or ())
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def _check_rules(values: list[str] | None) -> list[str] | None:
    _parse_rules(values)     # the error names --rule; the command parses again
    return values


def _preset_option(default: str | None = "classic", help: str = PRESET_HELP):
    return typer.Option(default, help=help, callback=_check_preset)


def _rule_option():
    return typer.Option(None, "--rule", metavar="KEY=VALUE", help=RULE_HELP,
                        callback=_check_rules)


@contextlib.contextmanager
def _usage_errors():
    """A ValueError or NotImplementedError of the library (bad players, rule values, agent
    names...) becomes a one-line usage error, exit code 2."""
    try:
        yield
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(" ".join(str(err).split())) from None


def _check(preset: str, players: int, rule: list[str] | None) -> dict:
    """The ``--rule`` flags as a dict, the configuration validated before any work
    (compiling, importing torch) starts."""
    from uno_env.rules.config import make_config
    rules = _parse_rules(rule)
    with _usage_errors():
        make_config(preset, players, **rules)
    return rules


@app.command()
def bench(seconds: float = typer.Option(3.0, min=0.01, help="seconds measured per row"),
          players: int = typer.Option(4, help=PLAYERS_HELP),
          preset: str = _preset_option(),
          rule: list[str] = _rule_option(),
          json_out: bool = typer.Option(False, "--json", help="print JSON only")):
    """Throughput of simulate, EverySeatBatch and the AEC env, beside RLCard if installed."""
    from uno_env.apps.throughput import run
    rules = _check(preset, players, rule)
    run(seconds, players, preset, json_out, rules=rules)


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
def flags(json_out: bool = typer.Option(False, "--json", help="print JSON")):
    """List every rule flag: its default, the values it takes, where it applies and what
    it does (the declaration in uno_env.rules.ruleset; docs/rules.md)."""
    from uno_env.rules.cards import DECKS
    from uno_env.rules.ruleset import FLAGS, Rules
    rows = []
    for name, spec in FLAGS.items():
        default = Rules.__dataclass_fields__[name].default
        values = (list(spec.values) if spec.values else [True, False]
                  if isinstance(default, bool) else
                  f"{spec.low} to {spec.high}" if spec.low is not None else
                  list(DECKS) if name == "deck" else spec.values_doc.replace("`", ""))
        rows.append({"flag": name, "default": default, "values": values,
                     "variants": list(spec.variants) if spec.variants else "all",
                     "sections": list(spec.sections), "doc": spec.doc})
    if json_out:
        typer.echo(json.dumps(rows, indent=2, default=list))
        return
    for r in rows:
        where = "" if r["variants"] == "all" else f"; only {', '.join(r['variants'])}"
        typer.echo(f"{r['flag']:20s} default {r['default']!r}; values {r['values']}"
                   f"{where}; docs/rules.md {', '.join(r['sections'])}")
        typer.echo(f"{'':20s} {r['doc']}")


@app.command()
def demo(games: int = typer.Option(5, min=1, help="number of games"),
         players: int = typer.Option(4, help=PLAYERS_HELP),
         seed: int = typer.Option(0, min=0, help=SEED_HELP),
         preset: str = _preset_option(),
         rule: list[str] = _rule_option(),
         policy: str = typer.Option("eager", help="eager (plays a card when it can) or "
                                    "uniform (any legal move) random agents"),
         quiet: bool = typer.Option(False, help="do not print the first game")):
    """Play a few games between random agents and print them."""
    from uno_env.apps.demo import run
    if policy not in ("eager", "uniform"):
        raise typer.BadParameter(f"unknown policy {policy!r}; valid: eager, uniform",
                                 param_hint="'--policy'")
    rules = _check(preset, players, rule)
    run(games, players, seed, preset, policy, quiet, rules=rules)


@app.command()
def simulate(games: int = typer.Option(10_000, min=1, help="number of games"),
             players: int = typer.Option(4, help=PLAYERS_HELP),
             seed: int = typer.Option(0, min=0, help=SEED_HELP),
             preset: str = _preset_option(),
             rule: list[str] = _rule_option(),
             agents: str = typer.Option("random", help="comma-separated, one per seat "
                                        "(or one name for every seat): random, greedy, "
                                        "heuristic"),
             threads: int = typer.Option(None, min=1, help=THREADS_HELP),
             out: str = typer.Option(None, help="a JSON file for the results, with "
                                     "their provenance (docs/reproducibility.md)")):
    """Play whole games inside numba and print a summary."""
    from uno_env.evaluation.simulation import simulate as run
    rules = _parse_rules(rule)
    names = tuple(a.strip() for a in agents.split(","))
    try:
        result = run(preset, players, agents=names, num_games=games, seed=seed,
                     threads=threads, **rules)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    typer.echo(result.summary())
    if out:
        from uno_env.apps.results import save_simulation
        typer.echo(f"wrote {save_simulation(result, rules, out)}")


@app.command()
def tournament(agents: str = typer.Option("random,greedy,heuristic",
                                          help="comma-separated: random, greedy, "
                                          "heuristic, a shipped model's name or a .npz "
                                          "model file"),
               preset: str = _preset_option(),
               rule: list[str] = _rule_option(),
               players: int = typer.Option(4, help=PLAYERS_HELP),
               games: int = typer.Option(100_000, min=1, help="number of games (rounded "
                                         "up to a multiple of the number of agents)"),
               seed: int = typer.Option(0, min=0, help=SEED_HELP),
               threads: int = typer.Option(None, min=1, help=THREADS_HELP),
               out: str = typer.Option(None, help="directory for results.json, "
                                       "leaderboard.csv, head_to_head.csv, win_rates.png"),
               progress: bool = typer.Option(True, help="show a progress bar"),
               backend: str = typer.Option("local", help="local, or ray: every chunk of "
                                           "games a Ray task (needs the ray extra)"),
               address: str = typer.Option(None, help="Ray cluster address (host:6379, "
                                           "ray://host:10001 or auto); default: start "
                                           "a local Ray instance"),
               schedule: str = typer.Option("rotate", help="rotate: every agent in every "
                                            "seat, all of them together; pairs: every "
                                            "pair of agents alone at the table (a "
                                            "head-to-head of each pair)")):
    """Every agent in every seat equally often; prints the leaderboard."""
    from uno_env.evaluation.tournament import tournament as run
    rules = _check(preset, players, rule)
    try:
        names = tuple(_agent(a.strip(), preset, players, rules)
                      for a in agents.split(",") if a.strip())
        result = run(names, preset, players, num_games=games, seed=seed, threads=threads,
                     progress=progress, backend=backend, address=address,
                     schedule=schedule, **rules)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    typer.echo(result.leaderboard())
    if out:
        for path in result.save(out).values():
            typer.echo(f"wrote {path}")


@app.command()
def play(players: int = typer.Option(4, help=PLAYERS_HELP),
         opponents: str = typer.Option("heuristic", help="agent name for every opponent, "
                                       "or comma-separated names, one per opponent"),
         seed: int = typer.Option(0, min=0, help=SEED_HELP),
         seat: int = typer.Option(0, min=0, help="your seat, 0 to players - 1"),
         preset: str = _preset_option(),
         rule: list[str] = _rule_option(),
         target_score: int = typer.Option(None, min=0, help="play a match to this many "
                                          "points (default: the preset's; 0 one round)"),
         color: bool = typer.Option(None, "--color/--no-color", help="cards in colour "
                                    "(default: when the output is a terminal)")):
    """Play UNO in the terminal against agents (type a move's number or its name)."""
    from uno_env.apps.play import play_game
    rules = _check(preset, players, rule)
    if target_score is not None:
        rules["target_score"] = target_score
    try:
        play_game(players=players, opponents=opponents, seed=seed, seat=seat,
                  preset=preset, color=color, **rules)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def _agent(name: str, preset: str, players: int, rules: dict | None = None):
    """A baseline's name stays a name (numba); any other agent (a shipped model, a
    ``.npz`` model file, a plug-in's agent) is built through ``uno_env.players.registry``."""
    from uno_env.engine.names import agent_code
    from uno_env.players.registry import is_position_agent, make_agent, model_name
    if agent_code(name) is not None or is_position_agent(name):
        return name  # the baselines, mcts, and position agents (openspiel-ismcts:N)
    from uno_env.rules.config import make_config
    agent = make_agent(name, make_config(preset, players, **(rules or {})))
    agent.name = model_name(name)
    return agent


def _csv(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


@app.command()
def train(preset: str = _preset_option(),
          rule: list[str] = _rule_option(),
          players: int = typer.Option(2, help=PLAYERS_HELP + " (2 by default, unlike the "
                                      "other commands: the shipped model's setting)"),
          timesteps: int = typer.Option(None, min=1, help="environment steps (default "
                                        "1,000,000; with --minutes and no --timesteps "
                                        "the minutes are the whole budget)"),
          opponents: str = typer.Option(None, help="comma-separated opponent "
                                        "names; each game draws one for every opponent "
                                        "seat ('self' = a pool of past snapshots); "
                                        "default heuristic (rllib: self-play only)"),
          out: str = typer.Option("runs/ppo", help="output directory"),
          seed: int = typer.Option(0, min=0, help="seed of training and evaluation"),
          envs: int = typer.Option(128, min=1, help="games stepped together"),
          eval_every: int = typer.Option(100_000, min=1, help="steps between evaluations"),
          eval_games: int = typer.Option(2_000, min=1, help="games per evaluation"),
          eval_opponents: str = typer.Option("random,heuristic", help="comma-separated "
                                             "opponents of each evaluation"),
          checkpoint_every: int = typer.Option(250_000, min=1, help="steps between saved "
                                               "policies (checkpoints/)"),
          hidden: str = typer.Option("256,256", help="hidden layer sizes"),
          minutes: float = typer.Option(None, min=0.01, help="a time budget: stop after "
                                        "this many minutes (with --timesteps, whichever "
                                        "comes first)"),
          threads: int = typer.Option(1, min=1, help="torch threads"),
          resume: str = typer.Option(None, help="model.zip to continue training"),
          imitate: str = typer.Option(None, help="warm start: first copy this agent's "
                                      "moves (e.g. heuristic), then PPO"),
          imitate_steps: int = typer.Option(300_000, min=1, help="decisions of the "
                                            "--imitate agent to copy"),
          advice: str = typer.Option(None, help="an agent (e.g. heuristic) whose move in "
                                     "each position is an input of the network; with "
                                     "--imitate of the same agent PPO starts from it"),
          advice_weight: float = typer.Option(5.0, help="--advice: the advised move's "
                                              "starting logit bonus"),
          learning_rate: float = typer.Option(3e-4, min=0.0, help="PPO's learning rate "
                                              "(sb3)"),
          ent_coef: float = typer.Option(0.01, min=0.0, help="PPO's entropy bonus (sb3)"),
          progress: bool = typer.Option(True, help="show a progress bar"),
          framework: str = typer.Option("sb3", help="sb3 (MaskablePPO against "
                                        "opponents) or rllib (self-play PPO with RLlib; "
                                        "needs the rllib extra)"),
          env_runners: int = typer.Option(0, min=0, help="rllib: EnvRunner actors (0: "
                                          "sample in this process)"),
          address: str = typer.Option(None, help="rllib: Ray cluster address")):
    """Train a PPO agent with MaskablePPO on the numba training env; writes policy.npz,
    model.zip, checkpoints, progress.csv, eval.csv and summary.json. With
    --framework rllib: self-play PPO with RLlib (uno_env.integrations.rllib); writes policy.npz,
    checkpoint/, progress.csv, eval.csv and summary.json."""
    if framework not in ("sb3", "rllib"):
        raise typer.BadParameter(f"unknown framework {framework!r}; valid: sb3, rllib")
    rules = _check(preset, players, rule)
    if timesteps is None and minutes is None:
        timesteps = 1_000_000
    if framework == "rllib":
        if opponents not in (None, "self"):
            raise typer.BadParameter("RLlib training is self-play (every seat is the "
                                     "policy being trained): leave out --opponents")
        if imitate is not None or advice is not None:
            raise typer.BadParameter("--imitate and --advice are options of MaskablePPO "
                                     "training (--framework sb3)")
        if resume is not None:
            raise typer.BadParameter("--resume takes an SB3 model.zip; for RLlib restore "
                                     "the checkpoint with Algorithm.from_checkpoint")
        return _train_rllib(preset=preset, num_players=players,
                            timesteps=10**12 if timesteps is None else timesteps,
                            out=out, seed=seed, eval_games=eval_games,
                            eval_opponents=tuple(_csv(eval_opponents)),
                            hidden=tuple(int(h) for h in _csv(hidden)),
                            max_minutes=minutes, progress=progress,
                            env_runners=env_runners, address=address,
                            threads=threads, **rules)
    names = _csv(opponents or "heuristic")
    result = _run_training(
        _trainer("ppo"), out=out, progress=progress, resume=resume,
        preset=preset, num_players=players, timesteps=timesteps,
        opponents=names[0] if len(names) == 1 else [[n] for n in names], seed=seed,
        num_envs=envs, eval_every=eval_every, eval_games=eval_games,
        eval_opponents=tuple(_csv(eval_opponents)), checkpoint_every=checkpoint_every,
        hidden=tuple(int(h) for h in _csv(hidden)), max_minutes=minutes, threads=threads,
        imitate=imitate, imitate_steps=imitate_steps, advice=advice,
        advice_weight=advice_weight,
        learning_rate=learning_rate, ent_coef=ent_coef, **rules)
    typer.echo(f"trained {result.timesteps:,} steps in {result.seconds:.0f} s "
               f"({result.steps_per_second:,.0f} steps/s)")
    _echo_evaluations([r for r in result.evaluations
                       if r["steps"] == result.evaluations[-1]["steps"]])
    typer.echo(f"wrote {result.policy_path} (play it: uno-bench evaluate --model "
               f"{result.policy_path})")


@app.command(name="exit")
def exit_(preset: str = _preset_option(),
          rule: list[str] = _rule_option(),
          players: int = typer.Option(2, help=PLAYERS_HELP + " (2 by default, as train)"),
          budget: int = typer.Option(1200, min=1, help="rollouts per decision of the "
                                     "labelling search mcts:BUDGET"),
          iterations: int = typer.Option(None, min=1, help="iterations (default 4; with "
                                         "--minutes and no --iterations the minutes are "
                                         "the budget)"),
          minutes: float = typer.Option(None, min=0.01, help="a wall-clock budget for "
                                        "the whole run"),
          games: int = typer.Option(1000, min=1, help="search-labelled games per "
                                    "iteration"),
          expert_share: float = typer.Option(0.5, min=0.0, max=1.0, help="share of the "
                                             "games the search plays after the first "
                                             "iteration (the network plays the rest)"),
          opponents: str = typer.Option("heuristic,heuristic,heuristic,greedy,self",
                                        help="comma-separated; each game draws one for "
                                        "every opponent seat ('self' = the last "
                                        "networks of the run)"),
          warm: int = typer.Option(200_000, min=0, help="heuristic decisions copied "
                                   "before the first iteration"),
          hidden: str = typer.Option("256,256", help="hidden layer sizes"),
          advice: float = typer.Option(4.0, help="the network reads the heuristic's move "
                                       "(a residual policy over it) starting at this "
                                       "logit bonus; see --plain"),
          plain: bool = typer.Option(False, help="a plain MLP, without the heuristic's "
                                     "move as an input"),
          data_from: str = typer.Option(None, help="comma-separated data/iteration_K.npz "
                                        "files of earlier runs to start from"),
          epochs: int = typer.Option(8, min=0, help="passes over the data per iteration"),
          learning_rate: float = typer.Option(1e-3, min=0.0, help="Adam's rate"),
          eval_games: int = typer.Option(2000, min=1, help="seat-rotated games per "
                                         "evaluation of the network alone"),
          eval_opponents: str = typer.Option("heuristic", help="comma-separated"),
          out: str = typer.Option("runs/exit", help="output directory"),
          seed: int = typer.Option(0, min=0, help="seed of the games and the network"),
          threads: int = typer.Option(1, min=1, help="torch threads"),
          progress: bool = typer.Option(True, help="show progress bars")):
    """Expert iteration (agents.exit): the mcts search labels the decisions of games
    played by itself and by the network; the network (policy and value heads) learns
    them; repeat. Writes policy.npz, best.npz, checkpoints/, data/, eval.csv,
    iterations.csv, curve.png and summary.json."""
    rules = _check(preset, players, rule)
    if iterations is None and minutes is None:
        iterations = 4
    try:
        sizes = tuple(int(h) for h in _csv(hidden))
    except ValueError:
        raise typer.BadParameter(f"--hidden takes comma-separated integers, got "
                                 f"{hidden!r}") from None
    result = _run_training(
        _trainer("exit"), out=out, progress=progress, preset=preset, num_players=players,
        budget=budget, iterations=iterations, minutes=minutes, games_per_iteration=games,
        expert_share=expert_share, opponents=tuple(_csv(opponents)),
        warm_decisions=warm, hidden=sizes, advice=None if plain else advice,
        data_from=tuple(_csv(data_from or "")), epochs=epochs, learning_rate=learning_rate,
        eval_games=eval_games, eval_opponents=tuple(_csv(eval_opponents)), seed=seed,
        threads=threads, **rules)
    typer.echo(f"{result.iterations} iterations, {result.decisions:,} search-labelled "
               f"decisions in {result.seconds:.0f} s")
    _echo_evaluations([r for r in result.evaluations
                       if r["iteration"] == result.evaluations[-1]["iteration"]])
    typer.echo(f"wrote {result.policy_path} and {result.best_path} (play it: uno-bench "
               f"evaluate --model {result.best_path})")


def _trainer(name: str):
    """A training job registered with ``uno_env.players.registry`` (the agents
    package registers "ppo" through the ``uno_env.agents`` entry point)."""
    from uno_env.players.registry import trainer
    try:
        return trainer(name)
    except ValueError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None


def _run_training(job, **kwargs):
    """Call a training job; a missing extra exits 1 with its install line, bad settings
    are a usage error."""
    try:
        return job(**kwargs)
    except ImportError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None


def _echo_evaluations(rows) -> None:
    for r in rows:
        typer.echo(f"  vs {r['opponent']:10s} win rate {r['win_rate']:.3f} "
                   f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] over {r['games']:,} games")


def _train_rllib(**kwargs):
    try:  # imports Ray and torch: only when it runs
        from uno_env.integrations.train_rllib import train_rllib
    except ImportError as err:  # the missing extra, named
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    result = _run_training(train_rllib, **kwargs)
    typer.echo(f"trained {result.timesteps:,} steps in {result.iterations} iterations, "
               f"{result.seconds:.0f} s ({result.steps_per_second:,.0f} steps/s)")
    _echo_evaluations(result.evaluations)
    typer.echo(f"wrote {result.policy_path} and {result.checkpoint_path} (play it: "
               f"uno-bench tournament --agents {result.policy_path},random --players "
               f"{kwargs['num_players']})")


@app.command()
def evaluate(model: str = typer.Option("ppo_classic_2p", help="a .npz model file, a "
                                       "shipped model's name, or a baseline's name"),
             opponents: str = typer.Option("random,heuristic", help="comma-separated; "
                                           "one evaluation per name"),
             preset: str = _preset_option(None, help=f"{PRESET_HELP}; default: the "
                                          "model's, classic for a baseline"),
             rule: list[str] = _rule_option(),
             players: int = typer.Option(None, help="number of players; default: the "
                                         "model's, 4 for a baseline"),
             games: int = typer.Option(10_000, min=1, help="games per opponent"),
             seed: int = typer.Option(0, min=0, help=SEED_HELP),
             json_out: bool = typer.Option(False, "--json", help="print JSON only"),
             out: str = typer.Option(None, help="a JSON file for the results, with "
                                     "their provenance (docs/reproducibility.md)")):
    """Win rate (95% Wilson interval) of an agent against copies of each opponent, the
    agent's seat drawn per game."""
    from uno_env.evaluation.win_rate import evaluate as run
    rules = _parse_rules(rule)
    try:
        from uno_env.players.registry import is_configured, make_agent
        if is_configured(model):
            agent = make_agent(model, None, seed=seed)  # a model knows its configuration
            preset = preset or agent.config.preset
            players = players or agent.config.num_players
            agent.check_config(_config(preset, players, rules))
        else:
            preset, players = preset or "classic", players or 4
            agent = make_agent(model, _config(preset, players, rules), seed=seed)
        rows = []
        for opp in _csv(opponents):
            r = run(agent, opp, games, preset, players, seed=seed, **rules)
            rows.append({"opponent": opp, **r})
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    if out:
        from uno_env.apps.results import save_evaluation
        path = save_evaluation(model, rows, _config(preset, players, rules), games, seed,
                               out)
    if json_out:
        typer.echo(json.dumps(rows, indent=2))
        return
    if out:
        typer.echo(f"wrote {path}")
    typer.echo(f"{model} in {preset}, {players} players, {games:,} games per opponent:")
    for r in rows:
        lo, hi = r["ci"]
        typer.echo(f"  vs {r['opponent']:10s} win rate {r['win_rate']:.4f} "
                   f"[{lo:.4f}, {hi:.4f}]  mean reward {r['mean_reward']:+.3f}")


@app.command()
def benchmark(agent: str = typer.Option(None, help="the agent: a baseline (random, greedy, "
                                        "heuristic, mcts, mcts:BUDGET), a shipped "
                                        "model's name, a .npz policy file, or "
                                        "module:Factory (Factory(config) -> an agent "
                                        "with act and optionally act_batch)"),
              track: str = typer.Option("all", help="a track's name or all; tracks: "
                                        + ", ".join(TRACK_NAMES)),
              out: str = typer.Option("benchmark", help="directory for card.json, "
                                      "card.md, card.png"),
              threads: int = typer.Option(None, min=1, help=THREADS_HELP),
              backend: str = typer.Option("local", help="local, or ray: every chunk of "
                                          "games a Ray task (needs the ray extra)"),
              address: str = typer.Option(None, help="Ray cluster address (default: a "
                                          "local Ray instance)"),
              games: int = typer.Option(None, min=1, help="games per opponent instead of "
                                        "the track's: a quick, NON-STANDARD card"),
              progress: bool = typer.Option(True, help="show a progress bar"),
              reproduce: str = typer.Option(None, help="a card.json (or a stored card's "
                                            "agent name): play its games again and say "
                                            "whether the results are identical (exit "
                                            "code 1 if not); docs/reproducibility.md"),
              deals: int = typer.Option(None, min=0, help="the first DEALS of each "
                                        "4-player track's duplicate deals instead of all "
                                        "(0: none): a NON-STANDARD card"),
              budget: str = typer.Option("auto", help="duplicate deals by cost: auto "
                                         "(default: a numba agent plays every deal, a "
                                         "slower one stops early once its headline "
                                         "interval is narrow enough or excludes 0), "
                                         "full (every deal), sequential (the early-"
                                         "stopping rule for any agent)")):
    """The benchmark: the agent against each track's reference panel; writes a report
    card (win rates with 95% intervals, the anchored rating, the headline)."""
    from uno_env.evaluation.benchmark import benchmark as run
    if reproduce is not None:
        if agent is not None or games is not None or track != "all":
            raise typer.BadParameter("--reproduce replays the card's own agent, tracks "
                                     "and games: leave out --agent, --track and --games")
        from uno_env.evaluation.reproduce import reproduce as replay
        try:
            report = replay(reproduce, threads=threads, backend=backend,
                            address=address, progress=progress)
        except (ValueError, NotImplementedError) as err:
            raise typer.BadParameter(" ".join(str(err).split())) from None
        typer.echo(report.text())
        if not report.identical:
            raise typer.Exit(1)
        return
    if agent is None:
        raise typer.BadParameter("give --agent (or --reproduce card.json)")
    try:
        card = run(agent, track, games=games, threads=threads, backend=backend,
                   address=address, progress=progress, deals=deals, budget=budget)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(" ".join(str(err).split())) from None
    typer.echo(card.markdown())
    for path in card.save(out).values():
        typer.echo(f"wrote {path}")


@app.command()
def compare(cards: list[str] = typer.Argument(None, help="two card folders (or card.json "
                                              "files): the paired edge of the first's "
                                              "agent over the second's"),
            agent: list[str] = typer.Option(None, help="two agents (give --agent twice): "
                                            "play both on the track's duplicate deals"),
            track: str = typer.Option("classic-4p", help="the 4-player track (with "
                                      "--agent)"),
            deals: int = typer.Option(None, min=1, help="the first DEALS of the track's "
                                      "duplicate deals (with --agent; default: all)"),
            threads: int = typer.Option(None, min=1, help=THREADS_HELP)):
    """Two agents on the same duplicate deals (uno-bench/6, 4-player tracks): the edge
    of one over the other, in points of win rate and round points, with 95% intervals
    from the per-deal differences."""
    from uno_env.evaluation.benchmark import compare_agents
    from uno_env.evaluation.duplicate import compare_cards, edge_line
    try:
        if agent:
            if cards or len(agent) != 2:
                raise ValueError("give two --agent, or two cards, not both")
            from uno_env.evaluation.benchmark import get_tracks
            (tr,) = get_tracks(track)
            rows = [compare_agents(agent[0], agent[1], tr, deals, threads)]
        else:
            if not cards or len(cards) != 2:
                raise ValueError("give two cards (card folders or card.json files), or "
                                 "--agent A --agent B --track NAME")
            rows = compare_cards(*cards)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(" ".join(str(err).split())) from None
    for row in rows:
        typer.echo(edge_line(row))


@app.command()
def export(model: str = typer.Argument(..., help="a shipped model's name or a .npz model "
                                       "file"),
           format: str = typer.Option("onnx", "--format", help="onnx (the only format)"),
           out: str = typer.Option(None, help="the file to write (default: MODEL.onnx "
                                   "in the current directory)")):
    """Write a trained model in a format other tools load: ONNX (observation and action
    mask in, masked action logits out; needs the onnx extra). Play it back with the
    agent onnx:PATH (docs/agents.md, "ONNX")."""
    from pathlib import Path

    from uno_env.players.registry import is_configured, make_agent, model_name
    if format != "onnx":
        raise typer.BadParameter(f"unknown format {format!r}; valid: onnx",
                                 param_hint="'--format'")
    if not is_configured(model):
        raise typer.BadParameter(f"{model!r} is not a trained model (a shipped model's "
                                 f"name or a .npz file)", param_hint="'MODEL'")
    try:
        agent = make_agent(model, None)
    except ValueError as err:
        raise typer.BadParameter(" ".join(str(err).split())) from None
    if not callable(getattr(agent, "export_onnx", None)):
        raise typer.BadParameter(f"{model!r} ({type(agent).__name__}) cannot be exported "
                                 f"to ONNX")
    path = Path(out or f"{model_name(model)}.onnx")
    try:
        agent.export_onnx(path)
    except ImportError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"wrote {path} (play it: uno-bench benchmark --agent onnx:{path})")


def _config(preset, players, rules=None):
    from uno_env.rules.config import make_config
    return make_config(preset, players, **(rules or {}))


# --- replays, the viewer and the browser game (issue #19: uno_env.apps.replay, .viewer, .server)
@app.command()
def record(agents: str = typer.Option("heuristic", help="comma-separated, one per seat, "
                                      "or one for every seat: baselines, shipped models "
                                      "(ppo_classic_2p) or .npz model files"),
           preset: str = _preset_option(), rule: list[str] = _rule_option(),
           players: int = typer.Option(4, help=PLAYERS_HELP),
           games: int = typer.Option(1, min=1, help="number of games (0 .. N-1 of the "
                                     "seed)"),
           seed: int = typer.Option(0, min=0, help=SEED_HELP),
           out: str = typer.Option("replays", help="directory for one JSON per game")):
    """Record games between agents as replays (games 0..N-1 of the seed)."""
    from uno_env.apps.replay import cli_record
    cli_record(agents, preset, players, games, seed, out, **_check(preset, players, rule))


@app.command()
def view(replay: str = typer.Argument(..., help="a replay JSON file"),
         out: str = typer.Option("game.html", help="the HTML file to write"),
         seat: int = typer.Option(None, min=0, help="open in this seat's view only "
                                  "(default: every hand face up)")):
    """Write a self-contained HTML page that steps through a replay."""
    from uno_env.apps.viewer import cli_view
    cli_view(replay, out, seat)


@app.command()
def serve(host: str = typer.Option("127.0.0.1", help="address to bind (default: this "
                                   "machine only)"),
          port: int = typer.Option(8000, min=0, max=65535, help="port to listen on"),
          max_sessions: int = typer.Option(100, min=1, help="games kept at once; "
                                           "finished games give up their place first"),
          idle_minutes: float = typer.Option(30.0, min=0.1, help="a game idle this long "
                                             "is forgotten"),
          max_per_client: int = typer.Option(10, min=1, help="live games one client "
                                             "address may have (docs/serve.md)"),
          move_seconds: float = typer.Option(5.0, min=0.1, help="an opponent's move "
                                             "longer than this answers 202, thinking")):
    """Play UNO in the browser against agents (needs the web extra)."""
    from uno_env.apps.server import cli_serve
    cli_serve(host, port, max_sessions, idle_minutes, max_per_client=max_per_client,
              move_seconds=move_seconds)


@app.command()
def warmup(preset: list[str] = typer.Option(
        None, "--preset", help="compile the variant of this preset (repeatable); default: "
        "every variant (classic, house rules, flip, onepiece). Valid: " + ", ".join(PRESETS),
        callback=lambda v: [_check_preset(p) for p in v] if v else v)):
    """Compile the engine ahead of time (a Docker build, every node of a Ray cluster):
    each variant is compiled once and cached on disk, for every preset of it."""
    from uno_env.engine.jit import cache_dir
    from uno_env.apps.warmup import warmup as run
    try:
        seconds = run(preset or None)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    for variant, s in seconds.items():
        typer.echo(f"{variant:9s} {s:7.1f} s   {cache_dir(variant)}")


def main():  # console-script entry point
    app()


if __name__ == "__main__":
    main()
