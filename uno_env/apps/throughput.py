"""Throughput of uno-env against RLCard, measured side by side in one run.

    uno-bench bench [--seconds 3] [--players 4] [--json]
    python benchmarks/throughput.py [same options]

Rows: ``simulate`` (whole games in numba, random agents) on one thread and on all
threads; ``EverySeatBatch`` steps/s at B = 1024 (observation and mask included; the random
actions are drawn outside the timed step), with the float32 observation, with
``obs_dtype="uint8"`` and with ``final_obs=True`` (every seat's view of each ended game
as well); ``LearnerBatch`` (the path of the SB3 and Gymnasium learner envs)
at B = 1024, learner steps/s with the three other seats played by ``heuristic`` inside
the kernel, on one thread and on all threads (``LearnerBatch(threads=)``); the AEC
``env()`` with random legal actions chosen in Python; RLCard's UNO (2 players, its
simplified rules) when rlcard is installed. Ratios compare decisions per second, the like-for-like figure: a random
agent of the official rules draws freely (drawing is always legal), so its games last
far longer than RLCard's, where drawing is legal only without a playable card.
"""
from __future__ import annotations

import json
import random
import sys
import time

import numba
import numpy as np

import uno_env
from uno_env.evaluation.simulation import simulate
from uno_env.envs.every_seat import EverySeatBatch


def _timed(fn, seconds):
    """Call ``fn() -> (games, steps)`` until ``seconds`` pass; return rates."""
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        g, s = fn()
        games += g
        steps += s
    elapsed = time.perf_counter() - start
    return games / elapsed, steps / elapsed


def bench_simulate(players, threads, seconds, preset="classic", **rules):
    simulate(preset, players, num_games=256, seed=0, threads=threads, **rules)  # compile
    size = 4096
    counter = iter(range(10**9))

    def run():
        r = simulate(preset, players, num_games=size, seed=0, threads=threads,
                     first_game=next(counter) * size, **rules)
        return r.num_games, int(r.steps.sum())
    return _timed(run, seconds)


def bench_vector(players, seconds, batch=1024, preset="classic", obs_dtype="float32",
                 final_obs=False, **rules):
    options = {} if obs_dtype == "float32" else {"obs_dtype": obs_dtype}
    if final_obs:
        import inspect
        if "final_obs" not in inspect.signature(EverySeatBatch).parameters:
            raise TypeError("EverySeatBatch has no final_obs argument")  # an older one
        options["final_obs"] = True
    venv = EverySeatBatch(batch, preset=preset, num_players=players, seed=0, **options, **rules)
    venv.reset()
    rng = np.random.default_rng(0)
    venv.step(venv.random_actions(rng))
    stepped = 0.0
    steps = games = 0
    while stepped < seconds:
        actions = venv.random_actions(rng)
        t0 = time.perf_counter()
        _, _, _, _, term, trunc = venv.step(actions)
        stepped += time.perf_counter() - t0
        steps += batch
        games += int(term.sum() + trunc.sum())
    return games / stepped, steps / stepped, venv.state_bytes_per_game


def bench_learner(players, seconds, batch=1024, preset="classic", opponents="heuristic",
                  threads=1, **rules):
    """Learner steps/s of ``LearnerBatch`` on ``threads``: random legal learner actions
    (drawn outside the timed step), ``opponents`` in every other seat."""
    import inspect

    from uno_env.envs.single_seat import LearnerBatch
    if "threads" in inspect.signature(LearnerBatch).parameters:
        rules["threads"] = threads
    elif threads != 1:          # a checkout from before LearnerBatch(threads=)
        raise TypeError("LearnerBatch has no threads argument")
    lb = LearnerBatch(batch, preset, players, opponents=opponents, seed=0, **rules)
    _, mask = lb.reset()
    rng = np.random.default_rng(0)
    stepped = 0.0
    steps = games = 0
    while stepped < seconds:
        actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(axis=1)
        t0 = time.perf_counter()
        _, mask, _, term, trunc = lb.step(actions)
        stepped += time.perf_counter() - t0
        steps += batch
        games += int(term.sum() + trunc.sum())
    return games / stepped, steps / stepped


def _optional(row, *args, **kwargs):
    """A row of an API that an older checkout may lack (``benchmarks/
    throughput_checkouts.py --bench`` runs this file against older ones): None then,
    with the reason. Any other error is raised."""
    try:
        return row(*args, **kwargs)
    except (TypeError, ImportError) as err:
        print(f"(row skipped: {err})", file=sys.stderr)
        return None


def _uint8_fits(players, preset="classic", **rules) -> bool:
    """Does every observation field fit in uint8 (``EverySeatBatch(obs_dtype="uint8")``
    refuses the match scores of a high ``target_score``)?"""
    from uno_env.rules.config import make_config
    from uno_env.envs.every_seat import uint8_high
    if uint8_high(make_config(preset, players, **rules)).max() <= 255:
        return True
    print("(row skipped: the uint8 observation does not hold this match's scores)",
          file=sys.stderr)
    return False


def bench_aec(players, seconds, preset="classic", **rules):
    env = uno_env.env(preset=preset, num_players=players, **rules)
    env.reset(seed=0)
    # Python's own generator: a call costs about 40 ns, numpy's Generator.random() about
    # 450 ns, a tenth of a step; the row measures the environment, not the agent
    rng = random.Random(0)

    def run():
        env.reset()
        steps = 0
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(legal[int(rng.random() * len(legal))])
            steps += 1
        return 1, steps
    return _timed(run, seconds)


def bench_rlcard(seconds):
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions)
                    for _ in range(env.num_players)])

    def run():
        trajectories, _ = env.run(is_training=False)
        # a trajectory alternates state, action, ..., state: actions = len // 2
        return 1, sum(len(t) // 2 for t in trajectories)
    return _timed(run, seconds)


def run(seconds: float, players: int, preset: str, json_only: bool,
        rules: dict | None = None) -> dict:
    """Measure every row for ``seconds`` each and print the table (or, ``json_only``,
    the JSON of the result, which is also returned). ``rules``: rule flags over the
    preset; the classic reference row of a non-classic preset is measured without them.
    The options and their defaults are ``uno-bench bench``'s (``uno_env.apps.cli``)."""
    rules = dict(rules or {})
    p, s = players, seconds
    all_threads = numba.config.NUMBA_NUM_THREADS
    rows = {}
    rows["simulate, 1 thread"] = bench_simulate(p, 1, s, preset, **rules)
    rows[f"simulate, {all_threads} threads"] = bench_simulate(p, all_threads, s,
                                                              preset, **rules)
    vg, vs, nbytes = bench_vector(p, s, preset=preset, **rules)
    rows["EverySeatBatch B=1024"] = (vg, vs)
    uint8 = None
    if _optional(_uint8_fits, p, preset, **rules):
        uint8 = _optional(bench_vector, p, s, preset=preset, obs_dtype="uint8",
                          **rules)
    if uint8 is not None:
        rows["EverySeatBatch B=1024, uint8 obs"] = uint8[:2]
    final = _optional(bench_vector, p, s, preset=preset, final_obs=True, **rules)
    if final is not None:
        rows["EverySeatBatch B=1024, final_obs"] = final[:2]
    learner = _optional(bench_learner, p, s, preset=preset, **rules)
    if learner is not None:
        rows["LearnerBatch B=1024 vs heuristic"] = learner
    if all_threads > 1:
        learner = _optional(bench_learner, p, s, preset=preset, threads=all_threads,
                            **rules)
        if learner is not None:
            rows[f"LearnerBatch vs heuristic, {all_threads} thr"] = learner
    rows["AEC env()"] = bench_aec(p, s, preset, **rules)
    if preset != "classic" or rules:  # the classic reference, in the same run
        rows["simulate, 1 thread, classic"] = bench_simulate(p, 1, s, "classic")
    rl = bench_rlcard(s)
    if rl is not None:
        rows["RLCard uno (2 players)"] = rl
    result = {"preset": preset, "rules": rules, "players": p, "threads": all_threads,
              "state_bytes_per_game": nbytes,
              "rows": {k: {"games_per_s": g, "steps_per_s": st} for k, (g, st) in rows.items()}}
    if rl is not None:
        result["ratios_vs_rlcard_steps"] = {k: st / rl[1] for k, (g, st) in rows.items()}
        result["ratios_vs_rlcard_games"] = {k: g / rl[0] for k, (g, st) in rows.items()}
    if json_only:
        print(json.dumps(result, indent=2))
        return result
    flags = "".join(f", {k}={v!r}" for k, v in rules.items())
    print(f"uno-env throughput: {preset}{flags}, {p} players, random agents "
          f"(state {nbytes} bytes per game)")
    head = f"{'':32s} {'games/s':>12s} {'steps/s':>14s}"
    if rl is not None:
        head += f" {'x RLCard games':>15s} {'x RLCard steps':>15s}"
    print(head)
    for name, (g, st) in rows.items():
        line = f"{name:32s} {g:12,.0f} {st:14,.0f}"
        if rl is not None:
            line += f" {g / rl[0]:15.1f} {st / rl[1]:15.1f}"
        print(line)
    one, many = rows["simulate, 1 thread"], rows[f"simulate, {all_threads} threads"]
    print(f"simulate speed-up on {all_threads} threads: {many[0] / one[0]:.2f}x")
    if rl is None:
        print("(install rlcard to add the RLCard row: pip install rlcard)")
    return result

