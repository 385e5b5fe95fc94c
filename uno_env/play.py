"""A person plays a game of UNO in the terminal against agents (``uno-bench play``).

Each of the person's turns shows the top card, the colour in force, every other
player's hand size, the person's hand and the legal moves, numbered; the person types a
number or a move string (``R5``, ``W4:B``, ...). The other players' moves are printed as
they are made. End of input (Ctrl-D) ends the game with a message.
"""
from __future__ import annotations

import sys

import typer

from uno_env.game import Game


def _opponent_names(opponents, players: int, seat: int) -> list[str]:
    if isinstance(opponents, str):
        opponents = [o.strip() for o in opponents.split(",") if o.strip()]
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"give one opponent name for every opponent seat, or a single "
                         f"name: {players - 1} needed, got {len(opponents)}")
    return opponents


def _read(prompt: str, out) -> str | None:
    out(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        return None
    return line.strip()


def _choose(text: str, moves: list[str]) -> str | None:
    """The legal move named by ``text`` (a 1-based number or a move string), else None."""
    if text.isdigit():
        n = int(text)
        return moves[n - 1] if 1 <= n <= len(moves) else None
    for move in moves:
        if move.upper() == text.upper():
            return move
    return None


def play_game(players: int = 3, opponents="heuristic", seed: int = 0, seat: int = 0,
              preset: str = "classic", out=typer.echo, **rules) -> Game | None:
    """Run the interactive game; returns the finished ``Game`` (None if input ended)."""
    from agents import make_agent

    game = Game(preset, players, seed=seed, **rules)
    if not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat}")
    names = _opponent_names(opponents, game.num_players, seat)
    others = [s for s in range(game.num_players) if s != seat]
    bots = {}
    for k, (s, name) in enumerate(zip(others, names)):
        bots[s] = make_agent(name, game.config, seed=seed * 1000 + s) \
            if name == "random" else make_agent(name, game.config)
    who = {seat: "you"}
    who.update({s: f"player {s} ({names[k]})" for k, s in enumerate(others)})
    out(f"UNO ({preset}, {game.num_players} players): you are player {seat}. "
        f"Type a move's number or its name; Ctrl-D quits.")
    shown = 0
    while not game.is_over:
        history = game.history
        for s, move in history[shown:]:
            if s != seat:
                out(f"  {who[s]}: {move}")
        shown = len(history)
        current = game.current_player
        if current != seat:
            bot = bots[current]
            action = bot.act(game.observe(current), game.action_mask().copy())
            game.step(action)
            continue
        sizes = game.hand_sizes
        out("")
        out(f"top {game.top}   colour {game.color or '-'}   phase {game.phase}   "
            f"draw pile {game.draw_pile_size}")
        out("others: " + ", ".join(f"{who[s]} {sizes[s]} card(s)" for s in others))
        out(f"your hand ({sizes[seat]}): {' '.join(game.hand(seat))}")
        moves = game.legal_moves()
        for n, move in enumerate(moves, 1):
            out(f"  {n:2d}. {move}")
        while True:
            text = _read(f"your move [1-{len(moves)}]: ", out)
            if text is None:
                out("")
                out("end of input: game abandoned.")
                return None
            move = _choose(text, moves)
            if move is not None:
                break
            out(f"not a legal choice: {text!r}. Type a number from 1 to {len(moves)} "
                f"or one of: {', '.join(moves)}")
        game.play(move)
    for s, move in game.history[shown:]:
        if s != seat:
            out(f"  {who[s]}: {move}")
    out("")
    if game.truncated:
        out("game over: truncated (turn limit reached), no winner.")
    else:
        w = game.winner
        out(f"game over: the winner is {who[w]}" + (" - well played!" if w == seat else "."))
        out("round points: " + ", ".join(f"{who[s]} {p}"
                                         for s, p in enumerate(game.round_points)))
        if game.config.rules.target_score > 0:
            out("scores: " + ", ".join(f"{who[s]} {p}" for s, p in enumerate(game.scores)))
    return game
