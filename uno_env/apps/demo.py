"""``uno-bench demo``: play a few games between random agents and print them.

The first game is printed move by move; then one line per game and the speed of the AEC
environment that played them. Options: ``--games``, ``--players``, ``--seed``,
``--preset``, ``--quiet``.
"""
from __future__ import annotations

import time

import numpy as np

import uno_env


def choose(layout, mask, rng, policy: str) -> int:
    """``uniform``: any legal action. ``eager``: call UNO and catch when possible, play a
    random playable card when there is one, draw only when there is none."""
    legal = np.flatnonzero(mask)
    if policy == "eager":
        for special in (layout.CATCH, layout.UNO):
            if mask[special]:
                return special
        plays = legal[legal < layout.DRAW]
        if len(plays):
            legal = plays
    return int(legal[rng.integers(len(legal))])


def play_game(env, rng, verbose: bool, policy: str = "eager") -> int:
    """Play one episode; return the steps taken. Prints the moves when ``verbose``."""
    game = env.unwrapped.game
    if verbose:
        print(game.render(), "\n")
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose(env.unwrapped.layout, obs["action_mask"], rng, policy)
        if verbose:
            print(f"  {agent}: {game.move_name(action):8s}  (top {game.top}, "
                  f"colour {game.color}, {int(obs['action_mask'].sum())} legal)")
        env.step(action)
        steps += 1
    return steps


def run(games: int, players: int, seed: int, preset: str, policy: str, quiet: bool,
        rules: dict | None = None) -> None:
    """Play ``games`` games of ``preset`` between random agents (``policy``: "eager" plays
    a card when it can, "uniform" any legal action) and print them: the first move by
    move unless ``quiet``, then one line each and the AEC env's speed. The options and
    their defaults are ``uno-bench demo``'s (``uno_env.apps.cli``)."""
    rules = dict(rules or {})
    env = uno_env.env(preset=preset, num_players=players, **rules)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    flags = "".join(f", {k}={v!r}" for k, v in rules.items())
    print(f"{games} games of {preset}{flags}, {players} players, "
          f"{policy} random agents, seed {seed}\n")
    total_steps, start = 0, time.perf_counter()
    rows = []
    for i in range(games):
        if i:
            env.reset()
        game = env.unwrapped.game
        steps = play_game(env, rng, verbose=(i == 0 and not quiet), policy=policy)
        total_steps += steps
        outcome = (f"winner player_{game.winner}, {game.round_points[game.winner]} points"
                   if game.terminated else "truncated at max_turns")
        rows.append(f"game {i:3d}: {game.turns:4d} turns, {steps:5d} steps, {outcome}")
        if i == 0 and not quiet:
            print("\n" + game.render() + "\n")
    print("\n".join(rows))
    elapsed = time.perf_counter() - start
    print(f"\n{games} games, {total_steps} AEC steps in {elapsed:.2f} s "
          f"({total_steps / elapsed:,.0f} steps/s including printing)")

