"""Throughput of the pure-JAX engine (``uno_env.jax``) beside the numba engine's
``EverySeatBatch``, measured in the same run, and the JAX engine's compile times.

    python benchmarks/jax_throughput.py [--device cpu|gpu|tpu] [--players 4]
        [--batches 1024,4096,16384,65536] [--seconds 3] [--ppo-updates 0] [--json]

What is measured
    ``jit(vmap(step))``: classic UNO, every game of a batch of B stepped together, the
    random legal actions drawn on the device (``jax.random.categorical`` over the legal
    mask), 32 steps per call inside one ``jax.jit``'d ``lax.scan`` (the form a training
    loop runs it in), finished games replaced by the next games of the seed within the
    step, as ``EverySeatBatch`` does: up to B/32 finished games a step are gathered and
    dealt (``init`` of those only, under a ``lax.cond`` in the steps where some game
    ended; a game ends about once in 800 decisions, so a finished game rarely waits). Two rows per B: the step alone (the legal mask is part
    of the state), and with ``observe`` of the seat to move (what ``EverySeatBatch``
    writes every step). Steps/s = B x steps / seconds, warm (compiled before timing).
    ``EverySeatBatch B=1024``: the numba engine stepping 1,024 games with observations
    and masks (one thread), its random actions drawn in numpy outside the timed step
    (``uno-bench bench``'s row).

    Compile times: a fresh Python process jits the B=1024 step (with ``observe``) and
    runs it once; ``cold`` with JAX's persistent compilation cache in an empty temporary
    directory, ``cached`` in a second fresh process reading that directory (what a user
    meets on a second run). Each is the time of the first call in the child (trace,
    compile, or load from the cache, and one call).

    ``--ppo-updates N`` also runs ``examples/jax_ppo.py`` (its defaults: 256 games x 64
    steps an update) for N updates and reports its learner decisions per second after the
    compile (environment, opponents and PPO together).

The device: ``--device`` picks JAX's platform (``JAX_PLATFORMS``); the table's header
names the device it ran on. On a CPU the numba engine is the fast path; the JAX engine
is for pipelines that live on an accelerator (docs/performance.md).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

STEPS_PER_CALL = 32


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "gpu", "tpu"), default="cpu")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--batches", default="1024,4096,16384,65536",
                   help="comma-separated batch sizes")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row")
    p.add_argument("--ppo-updates", type=int, default=0,
                   help="also time examples/jax_ppo.py for this many updates")
    p.add_argument("--any-players", action="store_true",
                   help="step core.table_params's program (arrays of the largest table, "
                        "the player count traced) instead of make_params's")
    p.add_argument("--no-compile", action="store_true",
                   help="skip the compile-time subprocesses")
    p.add_argument("--json", action="store_true", help="print the rows as JSON too")
    p.add_argument("--compile-child", choices=("cold", "cached"), help=argparse.SUPPRESS)
    p.add_argument("--cache-dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        args.batch_sizes = [int(b) for b in args.batches.split(",")]
    except ValueError:
        p.error(f"--batches must be comma-separated integers, got {args.batches!r}")
    if any(b < 1 for b in args.batch_sizes):
        p.error("batch sizes must be positive")
    return args


def _platform(device: str) -> str:
    return {"gpu": "cuda"}.get(device, device)


def make_runner(players: int, batch: int, with_obs: bool, seed: int = 0,
                any_players: bool = False, **rules):
    """``(start, run)``: ``start()`` deals games 0..B-1 of ``seed``; ``run(carry, key)``
    steps them ``STEPS_PER_CALL`` times (jitted), returning the new carry ``(states,
    next game index)`` and the sum of the observations."""
    import jax
    import jax.numpy as jnp

    from uno_env.jax import core

    if any_players:   # one program for every table size: the count is init's argument
        params = core.table_params("classic", **rules)
        init = jax.vmap(lambda i: core.init(params, core.seed_stream(seed, i),
                                            jnp.int32(players)))
    else:
        params = core.make_params("classic", players, **rules)
        init = jax.vmap(lambda i: core.init(params, core.seed_stream(seed, i)))
    step = jax.vmap(lambda s, a: core.step(params, s, a))
    observe = jax.vmap(lambda s: core.observe(params, s, jnp.maximum(s.current_player, 0)))

    def start():
        return jax.jit(init)(jnp.arange(batch, dtype=jnp.int32)), jnp.int32(batch)

    # finished games are dealt again in groups of up to ``slots`` a step (a game ends
    # in about 1 step in 800, so more rarely wait a step), not the whole batch
    slots = max(8, batch // 32)

    def body(carry, key):
        states, next_index = carry
        logits = jnp.where(states.legal_action_mask, 0.0, -1e9)
        actions = jax.random.categorical(key, logits).astype(jnp.int32)
        states = step(states, actions)
        done = states.terminated | states.truncated
        where = jnp.nonzero(done, size=slots, fill_value=batch)[0]
        dealt = jnp.minimum(done.sum(), slots).astype(jnp.int32)

        def deal():
            fresh = init(next_index + jnp.arange(slots, dtype=jnp.int32))
            return jax.tree.map(lambda s, f: s.at[where].set(f, mode="drop"), states, fresh)
        states = jax.lax.cond(dealt > 0, deal, lambda: states)
        out = observe(states).sum() if with_obs else jnp.float32(0)
        return (states, next_index + dealt), out

    @jax.jit
    def run(carry, key):
        carry, outs = jax.lax.scan(body, carry, jax.random.split(key, STEPS_PER_CALL))
        return carry, outs.sum()

    return start, run


def bench_jax(players: int, batch: int, with_obs: bool, seconds: float,
              any_players: bool = False) -> float:
    import jax
    start, run = make_runner(players, batch, with_obs, any_players=any_players)
    carry = start()
    key = jax.random.PRNGKey(0)
    carry, out = run(carry, key)                       # compile
    jax.block_until_ready(out)
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        key, sub = jax.random.split(key)
        carry, out = run(carry, sub)
        calls += 1
        if calls % 4 == 0:
            jax.block_until_ready(out)
    jax.block_until_ready(out)
    return calls * STEPS_PER_CALL * batch / (time.perf_counter() - t0)


def bench_every_seat(players: int, seconds: float, batch: int = 1024) -> float:
    from uno_env.apps.throughput import bench_vector
    return bench_vector(players, seconds, batch=batch)[1]


def compile_child(args) -> None:
    """In a fresh process: jit and run the B=1024 step with observe once, timed."""
    import jax
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    start, run = make_runner(args.players, 1024, True)
    carry = jax.block_until_ready(start())
    t0 = time.perf_counter()
    carry, out = run(carry, jax.random.PRNGKey(0))
    jax.block_until_ready(out)
    print(json.dumps({"seconds": time.perf_counter() - t0}))


def compile_times(args) -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="uno-jax-cache-") as cache:
        for kind in ("cold", "cached"):
            env = dict(os.environ, JAX_PLATFORMS=_platform(args.device))
            cmd = [sys.executable, __file__, "--compile-child", kind, "--cache-dir", cache,
                   "--players", str(args.players), "--device", args.device]
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            if res.returncode != 0:
                raise RuntimeError(f"the {kind} compile child failed:\n{res.stderr[-2000:]}")
            out[kind] = json.loads(res.stdout.strip().splitlines()[-1])["seconds"]
    return out


def bench_ppo(updates: int) -> dict:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from examples import jax_ppo
    args = jax_ppo.parse_args(["--updates", str(max(updates, 2)), "--eval-games", "100",
                               "--print-every", str(10**6)])
    result = jax_ppo.train(args)
    return {"decisions_per_s": result["samples_per_s"], "updates": args.updates,
            "first_update_s": result["first_update_s"]}


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.compile_child:
        compile_child(args)
        return
    os.environ["JAX_PLATFORMS"] = _platform(args.device)
    import jax
    try:
        device = jax.devices()[0]
    except RuntimeError as err:
        raise SystemExit(f"--device {args.device}: JAX has no such device here ({err})")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"device: {device.platform} ({device.device_kind}), jax {jax.__version__}; "
          f"classic, {args.players} players; {os.cpu_count()} CPU cores, load "
          f"{load:.1f}", flush=True)
    rows = []
    numba_rate = bench_every_seat(args.players, args.seconds)
    rows.append({"engine": "numba EverySeatBatch (1 thread, obs + mask)", "batch": 1024,
                 "steps_per_s": numba_rate})
    for batch in args.batch_sizes:
        for with_obs in (False, True):
            rate = bench_jax(args.players, batch, with_obs, args.seconds, args.any_players)
            rows.append({"engine": "jax jit(vmap(step))" + (" + observe" if with_obs else "")
                         + (" [table_params]" if args.any_players else ""),
                         "batch": batch, "steps_per_s": rate})
            print(f"  measured {rows[-1]['engine']} B={batch}", flush=True)
    print(f"\n| engine | B | steps/s | / EverySeatBatch |\n|---|---:|---:|---:|")
    for r in rows:
        r["ratio"] = r["steps_per_s"] / numba_rate
        print(f"| {r['engine']} | {r['batch']:,} | {r['steps_per_s']:,.0f} | "
              f"{r['ratio']:.2f}x |")
    result = {"device": f"{device.platform} ({device.device_kind})", "players": args.players,
              "load": load, "rows": rows}
    if not args.no_compile:
        result["compile_s"] = compile_times(args)
        c = result["compile_s"]
        print(f"\ncompile (B=1024 step + observe, fresh process): cold {c['cold']:.1f} s, "
              f"from the persistent cache {c['cached']:.1f} s")
    if args.ppo_updates:
        result["ppo"] = bench_ppo(args.ppo_updates)
        print(f"\nexamples/jax_ppo.py: {result['ppo']['decisions_per_s']:,.0f} learner "
              f"decisions/s after the compile ({result['ppo']['updates']} updates)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
