"""Replays: a game as a versioned JSON record that rebuilds it exactly through ``Game``.

    >>> data = to_replay(game, agents=["heuristic", "random"])   # a dict, JSON-ready
    >>> game = from_replay(data)        # re-plays every move; ValueError if one fails
    >>> paths = record(["heuristic", "ppo_classic_2p"], "classic", 2, games=5, seed=0,
    ...                out_dir="replays/")

The record (``FORMAT`` = ``"uno-env-replay/1"``)::

    format          "uno-env-replay/1"
    uno_env         the uno-env version that wrote it
    preset, rules   the preset name and every rule flag (``uno_env.rules.Rules``)
    players         number of seats
    seed, index     the deal: game ``index`` of ``seed`` (``Game.reset(seed, index)``)
    scenario        or, instead of index, the ``Game.from_scenario`` arguments
    pairing         UNO Flip: every card as "light|dark" (docs/rules.md section 5), else null
    agents          one name per seat, or null
    moves           [[seat, move], ...], moves in the notation of docs/rules.md section 1
    result          the game's end (winner, points, ...), or null for an unfinished game

``from_replay`` re-plays every move through ``Game.play`` and checks each one is made
by the seat whose turn it is; a wrong format, a malformed field, an illegal move (named
by its number, with the legal moves), a file that ends before the game does, or a
different result than the one recorded is a ``ValueError`` saying which.

``steps(data)`` re-plays a replay and returns the table's state after every move
(``public_state``): what the viewer (``uno_env.viewer``) shows and what the golden
playthroughs (tests/golden/) pin down.
"""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from uno_env.game import Game

FORMAT = "uno-env-replay/1"
_REQUIRED = ("format", "preset", "rules", "players", "seed", "moves")
_SCENARIO_KEYS = ("hands", "top", "color", "draw_pile", "discard", "current",
                  "direction", "side")


def _version() -> str:
    from uno_env import __version__
    return __version__


def _rules_dict(game: Game) -> dict:
    rules = dataclasses.asdict(game.config.rules)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in rules.items()}


def result_of(game: Game) -> dict | None:
    """How the game ended (None while it is not over)."""
    if not game.is_over:
        return None
    return {"truncated": game.truncated, "winner": game.winner,
            "round_winner": game.round_winner, "round_points": game.round_points,
            "scores": game.scores, "turns": game.turns, "rounds": game.round,
            "moves": len(game.history)}


def to_replay(game: Game, agents=None, index: int | None = None,
              scenario: dict | None = None) -> dict:
    """The replay of ``game`` so far, as a JSON-ready dict.

    ``agents``: one name per seat (strings, or agents with a ``name``), or None.
    The deal: a game built by ``from_replay``, ``record`` or ``uno-bench serve`` knows
    its own; otherwise it is game ``index`` (default 0) of ``game.seed``, or, for a
    game from ``Game.from_scenario``, pass the same keyword arguments as ``scenario``
    (hands, top, color, ...; not preset or rules). The replay is checked by re-playing
    it: a ValueError says so when it does not rebuild ``game`` (a wrong index, say)."""
    origin = getattr(game, "_replay_origin", None)
    if scenario is not None:
        unknown = sorted(set(scenario) - set(_SCENARIO_KEYS) - {"seed"})
        if unknown:
            raise ValueError(f"scenario: unknown key(s) {', '.join(unknown)}; valid: "
                             f"{', '.join(_SCENARIO_KEYS)} (preset and rules come from "
                             f"the game)")
        origin = {"scenario": {k: v for k, v in scenario.items() if k != "seed"}}
    elif index is not None:
        origin = {"index": int(index)}
    elif origin is None:
        origin = {"index": 0}
    names = None
    if agents is not None:
        names = [a if isinstance(a, str) else str(getattr(a, "name", type(a).__name__))
                 for a in agents]
        if len(names) != game.num_players:
            raise ValueError(f"agents: one name per seat, {game.num_players} needed, got "
                             f"{len(names)}")
    data = {"format": FORMAT, "uno_env": _version(), "preset": game.config.preset,
            "rules": _rules_dict(game), "players": game.num_players, "seed": game.seed,
            **origin,
            "pairing": game.pairing if game.config.deck.double_sided else None,
            "agents": names,
            "moves": [[seat, move] for seat, move in game.history],
            "result": result_of(game)}
    try:
        rebuilt = from_replay(data)
    except ValueError as err:
        raise ValueError(f"this game's moves do not replay from {_deal_text(data)} "
                         f"({err}); pass the index= or scenario= it was dealt by") from None
    if _table(rebuilt) != _table(game):
        raise ValueError(f"{_deal_text(data)} does not rebuild this game; pass the "
                         f"index= or scenario= it was dealt by")
    return data


def _deal_text(data) -> str:
    if "scenario" in data:
        return "the scenario given"
    return f"seed {data['seed']} game index {data.get('index', 0)}"


def _table(game: Game):
    return ([game.hand(s) for s in range(game.num_players)], game.discard,
            game.draw_pile, game.current_player, game.phase, game.color, game.scores)


# --- reading ---------------------------------------------------------------------------
def load(source) -> dict:
    """A replay record from a dict, JSON text, bytes, or a file path."""
    if isinstance(source, dict):
        return source
    if isinstance(source, (bytes, bytearray)):
        source = source.decode("utf-8", errors="replace")
    if isinstance(source, str) and source.lstrip().startswith("{"):
        text, where = source, "replay"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"replay file {str(path)!r} does not exist")
        text, where = path.read_text(encoding="utf-8", errors="replace"), str(path)
    else:
        raise ValueError(f"a replay is a dict, JSON text or a file path, got "
                         f"{type(source).__name__}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where} is not valid JSON (truncated or corrupt?): {err}") \
            from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a replay is a JSON object, got "
                         f"{type(data).__name__}")
    return data


def _check(data: dict) -> None:
    fmt = data.get("format")
    if fmt != FORMAT:
        raise ValueError(f"unsupported replay format {fmt!r}; this uno-env "
                         f"({_version()}) reads {FORMAT!r}")
    missing = [k for k in _REQUIRED if k not in data]
    if "index" not in data and "scenario" not in data:
        missing.append("index (or scenario)")
    if missing:
        raise ValueError(f"malformed replay: missing {', '.join(missing)}")
    if not isinstance(data["rules"], dict):
        raise ValueError("malformed replay: 'rules' must be an object of rule flags")
    if not isinstance(data["moves"], list):
        raise ValueError("malformed replay: 'moves' must be a list of [seat, move]")
    for n, m in enumerate(data["moves"], 1):
        if not (isinstance(m, list) and len(m) == 2 and isinstance(m[0], int)
                and not isinstance(m[0], bool) and isinstance(m[1], str)):
            raise ValueError(f"malformed replay: move {n} is {m!r}; each move is "
                             f"[seat, move string], e.g. [0, \"R5\"]")


def new_game(data: dict) -> Game:
    """The game of a replay before its first move (the format is checked)."""
    data = load(data)
    _check(data)
    rules = {k: tuple(v) if isinstance(v, list) else v for k, v in data["rules"].items()}
    try:
        if "scenario" in data:
            sc = data["scenario"]
            if not isinstance(sc, dict):
                raise ValueError("'scenario' must be an object of Game.from_scenario "
                                 "arguments")
            unknown = sorted(set(sc) - set(_SCENARIO_KEYS))
            if unknown:
                raise ValueError(f"scenario: unknown key(s) {', '.join(unknown)}; valid: "
                                 f"{', '.join(_SCENARIO_KEYS)}")
            game = Game.from_scenario(data["preset"], seed=data["seed"], **sc, **rules)
            if game.num_players != data["players"]:
                raise ValueError(f"'players' is {data['players']} but the scenario has "
                                 f"{game.num_players} hands")
            origin = {"scenario": sc}
        else:
            game = Game(data["preset"], data["players"], seed=data["seed"], **rules)
            if not isinstance(data["index"], int) or data["index"] < 0:
                raise ValueError(f"'index' must be a non-negative integer, got "
                                 f"{data['index']!r}")
            game.reset(data["seed"], data["index"], data.get("pairing"))
            origin = {"index": data["index"]}
    except (ValueError, TypeError, NotImplementedError) as err:
        raise ValueError(f"malformed replay: {err}") from None
    pairing = data.get("pairing")
    if pairing is not None and game.config.deck.double_sided and game.pairing != pairing:
        raise ValueError("malformed replay: 'pairing' does not match the scenario's cards")
    game._replay_origin = origin
    game._replay_agents = data.get("agents")
    return game


def _apply(game: Game, n: int, seat: int, move: str, total: int) -> None:
    """Make move number ``n`` (1-based) of a replay, with errors that name it."""
    if game.is_over:
        raise ValueError(f"move {n} of {total} (seat {seat}, {move!r}): the game was "
                         f"already over after move {n - 1}")
    if seat != game.current_player:
        raise ValueError(f"move {n} of {total} (seat {seat}, {move!r}): it is seat "
                         f"{game.current_player}'s turn, not seat {seat}'s")
    legal = game.legal_moves()
    if move not in legal:
        raise ValueError(f"move {n} of {total} (seat {seat}, {move!r}) is illegal; the "
                         f"legal moves were: {', '.join(legal)}")
    game.play(move)


def _finish(game: Game, data: dict) -> None:
    expected = data.get("result")
    n = len(data["moves"])
    if expected is None:
        return
    if not game.is_over:
        raise ValueError(f"truncated replay: it ends after move {n} but the game is not "
                         f"over (seat {game.current_player} to move); the recorded result "
                         f"is {expected}")
    got = result_of(game)
    diff = {k: (v, got.get(k)) for k, v in expected.items() if got.get(k) != v}
    if diff:
        raise ValueError("the replay does not reach its recorded result: " + "; ".join(
            f"{k} recorded {a!r}, replayed {b!r}" for k, (a, b) in diff.items()))


def from_replay(data) -> Game:
    """Rebuild the game of a replay (dict, JSON text or file path) by re-playing every
    move; the ``Game`` returned is in the position after the last one."""
    data = load(data)
    game = new_game(data)
    moves = data["moves"]
    for n, (seat, move) in enumerate(moves, 1):
        _apply(game, n, seat, move, len(moves))
    _finish(game, data)
    return game


def save(data: dict, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


# --- the table after every move --------------------------------------------------------
_STAT_EVENTS = (("challenges_won", "challenge won"), ("catches", "caught without UNO"),
                ("reshuffles", "discards reshuffled into the draw pile"),
                ("flips", "the deck flipped"), ("jump_ins", "jump-in"),
                ("exchanges", "hands exchanged"), ("stacked", "draw card stacked"),
                ("petrifications", "petrified"), ("breaks", "petrification broken"),
                ("ace_combos", "Ace combo"), ("gives", "card given"))


def public_state(game: Game) -> dict:
    """The table now: everything the viewer shows (every hand, face up; the viewer
    hides the ones a seat's view does not see)."""
    over = game.is_over
    return {"current": None if over else game.current_player, "phase": game.phase,
            "top": game.top, "color": game.color, "direction": game.direction,
            "side": game.side, "draw_pile": game.draw_pile_size,
            "discard_size": len(game.discard), "hand_sizes": game.hand_sizes,
            "hands": [game.hand(s) for s in range(game.num_players)],
            "legal": [] if over else game.legal_moves(),
            "pending_draw": game.pending_draw, "catchable": game.catchable,
            "turns": game.turns, "round": game.round, "scores": game.scores,
            "round_winner": game.round_winner, "round_points": game.round_points,
            "over": over, "result": result_of(game)}


def _events(before: dict, after: dict, sb: dict, sa: dict, seat: int, move: str) -> list:
    """What a move did besides the move itself: draws, challenges, catches, ..."""
    out = []
    if move == "challenge":
        won = sa["challenges_won"] > sb["challenges_won"]
        out.append("challenge succeeds: the Wild Draw Four was a bluff" if won
                   else "challenge fails")
    for key, text in _STAT_EVENTS:
        if key == "challenges_won" or key not in sa:
            continue
        if sa[key] > sb[key]:
            out.append(text)
    # hands exchanged (7-0, WS) or a card given (One Piece Shanks) are not draws
    if sa["exchanges"] == sb["exchanges"] and sa.get("gives") == sb.get("gives"):
        for s, (a, b) in enumerate(zip(before["hand_sizes"], after["hand_sizes"])):
            if b > a:
                out.append(f"seat {s} draws {b - a}")
    if before["round"] != after["round"] or (after["over"] and not before["over"]):
        if after["over"] and after["result"]["truncated"]:
            out.append("game truncated (turn limit)")
        elif after["round_winner"] is not None:
            points = sum(after["round_points"])
            out.append(f"seat {after['round_winner']} wins round {before['round']} "
                       f"({points} point{'' if points == 1 else 's'})")
    return out


def steps(data) -> list[dict]:
    """Re-play a replay: the state before the first move, then after every move, each
    with ``move`` (the [seat, move] that led to it, None first), ``events`` and
    ``step`` (its number)."""
    data = load(data)
    game = new_game(data)
    moves = data["moves"]
    state = public_state(game)
    out = [{"step": 0, "move": None, "events": [], **state}]
    stats = game.stats
    for n, (seat, move) in enumerate(moves, 1):
        _apply(game, n, seat, move, len(moves))
        new, new_stats = public_state(game), game.stats
        out.append({"step": n, "move": [seat, move],
                    "events": _events(state, new, stats, new_stats, seat, move), **new})
        state, stats = new, new_stats
    _finish(game, data)
    return out


# --- recording games between agents ----------------------------------------------------
def make_seat_agent(name, config, seed=None):
    """An agent by name (``uno_env.agent_registry``: a baseline, a shipped model, a
    ``.npz`` model file); an object with ``act`` passes through."""
    from uno_env.agent_registry import make_agent
    return make_agent(name, config, seed=seed)


def seat_names(agents, players: int) -> list[str]:
    """One agent per seat from a comma-separated string or a list: one name for every
    seat, or exactly one per seat."""
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",") if a.strip()]
    agents = list(agents)
    if len(agents) == 1:
        agents = agents * players
    if len(agents) != players:
        raise ValueError(f"give one agent for every seat or a single agent: {players} "
                         f"seats, got {len(agents)} agents")
    return agents


def play_agents(game: Game, seat_agents: list) -> Game:
    """Let the agents (one per seat, with ``act(obs, mask)``) finish ``game``."""
    while not game.is_over:
        seat = game.current_player
        game.step(int(seat_agents[seat].act(game.observe(seat),
                                            game.action_mask().copy())))
    return game


def record(agents, preset: str = "classic", players: int = 4, games: int = 1,
           seed: int = 0, out_dir="replays", **rules) -> list[Path]:
    """Play games ``0 .. games-1`` of ``seed`` with ``agents`` (one name for every seat
    or one per seat: baselines, shipped models, ``.npz`` files) and write each as
    ``out_dir/<preset>_<players>p_seed<seed>_game<index>.json``. Returns the paths."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    names = seat_names(agents, players)
    game = Game(preset, players, seed=seed, **rules)
    label = [n if isinstance(n, str) else str(getattr(n, "name", type(n).__name__))
             for n in names]
    paths = []
    for index in range(games):
        seat_agents = [make_seat_agent(n, game.config, seed=seed * 1_000_003 + index * 16
                                       + s) for s, n in enumerate(names)]
        game.reset(seed, index)
        game._replay_origin = {"index": index}
        play_agents(game, seat_agents)
        data = to_replay(game, agents=label)
        paths.append(save(data, Path(out_dir) /
                          f"{preset}_{players}p_seed{seed}_game{index}.json"))
    return paths


#: the fields of ``public_state`` the golden playthroughs pin down (tests/golden/):
#: everything a table shows, plus the decider's legal moves
GOLDEN_FIELDS = ("current", "phase", "top", "color", "direction", "side", "draw_pile",
                 "discard_size", "hand_sizes", "legal", "pending_draw", "catchable",
                 "turns", "round", "scores", "over")


def golden_states(data) -> list[dict]:
    """``steps(data)`` cut to ``GOLDEN_FIELDS`` plus the step's move and events."""
    return [{"move": s["move"], "events": s["events"],
             **{k: s[k] for k in GOLDEN_FIELDS}} for s in steps(data)]


def cli_record(agents, preset, players, games, seed, out) -> list[Path]:
    """``uno-bench record``: bad input is a usage error naming what is valid."""
    import typer
    try:
        paths = record(agents, preset, players, games=games, seed=seed, out_dir=out)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    for path in paths:
        data = json.loads(path.read_text())
        r = data["result"]
        end = "truncated" if r["truncated"] else f"seat {r['winner']} " \
            f"({data['agents'][r['winner']]}) wins"
        typer.echo(f"wrote {path}: {len(data['moves'])} moves, {end}")
    return paths
