"""The replay format (``uno_env.apps.replay`` documents it): writing a game as a record, and
rebuilding a game from one by re-playing every move. ``Game`` gets ``to_replay`` and
``from_replay`` from ``ReplayMixin``; this module never imports ``uno_env.envs.game``, so the
game class is passed in (``game_class``)."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

FORMAT = "uno-env-replay/1"
_REQUIRED = ("format", "preset", "rules", "players", "seed", "moves")
_SCENARIO_KEYS = ("hands", "top", "color", "draw_pile", "discard", "current",
                  "direction", "side")


def _version() -> str:
    from uno_env.version import __version__
    return __version__


def _rules_dict(game) -> dict:
    rules = dataclasses.asdict(game.config.rules)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in rules.items()}


def result_of(game) -> dict | None:
    """How the game ended (None while it is not over)."""
    if not game.is_over:
        return None
    return {"truncated": game.truncated, "winner": game.winner,
            "round_winner": game.round_winner, "round_points": game.round_points,
            "scores": game.scores, "turns": game.turns, "rounds": game.round,
            "moves": len(game.history)}


def to_replay(game, agents=None, index: int | None = None,
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
    from uno_env.provenance import provenance
    data["provenance"] = provenance(game.config, [game.seed])
    try:
        rebuilt = from_replay(data, type(game))
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


def _table(game):
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


def new_game(data: dict, game_class):
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
            game = game_class.from_scenario(data["preset"], seed=data["seed"], **sc, **rules)
            if game.num_players != data["players"]:
                raise ValueError(f"'players' is {data['players']} but the scenario has "
                                 f"{game.num_players} hands")
            origin = {"scenario": sc}
        else:
            game = game_class(data["preset"], data["players"], seed=data["seed"], **rules)
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


def _apply(game, n: int, seat: int, move: str, total: int) -> None:
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


def _finish(game, data: dict) -> None:
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


def from_replay(data, game_class):
    """Rebuild the game of a replay (dict, JSON text or file path) by re-playing every
    move; the ``Game`` returned is in the position after the last one."""
    data = load(data)
    game = new_game(data, game_class)
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




class ReplayMixin:
    """``to_replay`` and ``from_replay`` for ``Game``."""

    def to_replay(self, agents=None, **deal) -> dict:
        """This game as a replay record (``uno_env.apps.replay``)."""
        return to_replay(self, agents, **deal)

    @classmethod
    def from_replay(cls, data):
        """Rebuild a game from a replay (dict, JSON text or path) by re-playing every
        move; ValueError naming what does not replay."""
        return from_replay(data, cls)
