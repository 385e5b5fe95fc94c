"""Replays: a game as a versioned JSON record that rebuilds it exactly through ``Game``.

    >>> data = to_replay(game, agents=["heuristic", "random"])   # a dict, JSON-ready
    >>> game = from_replay(data)        # re-plays every move; ValueError if one fails
    >>> paths = record(["heuristic", "ppo_classic_2p"], "classic", 2, games=5, seed=0,
    ...                out_dir="replays/")

The record (``FORMAT`` = ``"uno-env-replay/1"``)::

    format          "uno-env-replay/1"
    uno_env         the uno-env version that wrote it
    preset, rules   the preset name and every rule flag (``uno_env.rules.ruleset.Rules``)
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
(``public_state``): what the viewer (``uno_env.apps.viewer``) shows and what the golden
playthroughs (tests/golden/) pin down.
"""
from __future__ import annotations

import json
from pathlib import Path

from uno_env.envs import replay_format as _format
from uno_env.envs.game import Game
from uno_env.envs.replay_format import (  # noqa: F401  (the format's API, re-exported)
    FORMAT, _apply, _check, _deal_text, _finish, _rules_dict, _table, _version, load,
    result_of, save, to_replay,
)


def new_game(data: dict) -> Game:
    """The game of a replay before its first move (the format is checked)."""
    return _format.new_game(data, Game)


def from_replay(data) -> Game:
    """Rebuild the game of a replay (dict, JSON text or file path) by re-playing every
    move; the ``Game`` returned is in the position after the last one."""
    return _format.from_replay(data, Game)


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
    """An agent by name (``uno_env.players.registry``: a baseline, a shipped model, a
    ``.npz`` model file); an object with ``act`` passes through."""
    from uno_env.players.registry import make_agent
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


def cli_record(agents, preset, players, games, seed, out, **rules) -> list[Path]:
    """``uno-bench record``: bad input is a usage error naming what is valid."""
    import typer
    try:
        paths = record(agents, preset, players, games=games, seed=seed, out_dir=out,
                       **rules)
    except (ValueError, NotImplementedError) as err:
        raise typer.BadParameter(str(err)) from None
    for path in paths:
        data = json.loads(path.read_text())
        r = data["result"]
        end = "truncated" if r["truncated"] else f"seat {r['winner']} " \
            f"({data['agents'][r['winner']]}) wins"
        typer.echo(f"wrote {path}: {len(data['moves'])} moves, {end}")
    return paths
