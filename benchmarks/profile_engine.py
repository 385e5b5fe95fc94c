"""Where a decision's time goes: the engine's phases timed one by one, in one process.

    python benchmarks/profile_engine.py [--preset classic] [--players 4] [--games 20000]
                                        [--repeat 3] [--json out.json]

Random play (the ``simulate`` agent) of ``--games`` games, timed as a whole and then with
one phase repeated: each ``extra_*`` loop plays the same kind of games but calls one
kernel ``EXTRA`` more times per decision, so (its time - the plain loop's time) / (EXTRA x
decisions) is that kernel's cost per call. Rows (nanoseconds per decision or per call):

* ``decision``: the whole loop (deal, mask, choice, apply) per decision;
* ``deal``: ``reset_game`` (shuffle and deal), per game and spread over the decisions;
* ``legal_mask``: the legal mask and count of the decider (zeroing the mask included);
* ``random_legal``: the random agent's choice (a legal mask, then the k-th legal action);
* ``apply``: what remains of a decision: ``apply_action`` and the loop;
* ``observe``: the decider's observation (not part of ``simulate``; every env step pays it);

The extra calls of ``random_legal`` draw from the game's stream, so those games differ
from the plain ones; the phases are averaged over thousands of games of the same kind,
which is what matters here. Compiles its own small loops on the first run (a minute or
two), cached like the engine's kernels.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from uno_env.engine.jit import entry_point
from uno_env.rules.config import make_config
from uno_env.engine import codes as C
from uno_env.engine.observe import observe
from uno_env.engine.rng import seed_stream
from uno_env.engine.rounds import reset_game
from uno_env.engine.state import allocate
from uno_env.engine.dispatch import apply_action, legal_mask, random_legal

EXTRA = 3
#: what the loop repeats (``phase`` argument of ``_loop``)
PHASES = ("none", "legal_mask", "random_legal", "observe", "deal")


def _loop(phase, st, sp, seed, games, mask, obs):
    """Play ``games`` random games in slot 0 (slot 1 is scratch); returns the decisions.
    ``phase`` 1-4 repeats one kernel ``EXTRA`` times per decision (per game for 4)."""
    decisions = 0
    for i in range(games):
        st.rng[0] = seed_stream(seed, i)
        reset_game(st, 0, sp)
        if phase == 4:
            for _ in range(EXTRA):
                st.rng[1] = seed_stream(seed, i)
                reset_game(st, 1, sp)
        while st.info[0, C.I_STATUS] == C.STATUS_PLAYING:
            if phase == 1:
                for _ in range(EXTRA):
                    legal_mask(st, 0, sp, mask)
            elif phase == 2:
                for _ in range(EXTRA):
                    random_legal(st, 0, sp, mask)
            elif phase == 3:
                for _ in range(EXTRA):
                    observe(st, 0, sp, st.info[0, C.I_CURRENT], obs)
            action = random_legal(st, 0, sp, mask)
            apply_action(st, 0, sp, action)
            decisions += 1
    return decisions


def run(preset="classic", players=4, games=20000, repeat=3, seed=0) -> dict:
    cfg = make_config(preset, players)
    kernel = entry_point(_loop, cfg.variant)
    st = allocate(2, cfg.num_players, cfg.deck.num_types, cfg.deck.num_cards,
                  cfg.deck.double_sided)
    mask = np.zeros(cfg.layout.size, np.uint8)
    obs = np.zeros(cfg.layout.obs_size, np.float32)
    for phase in range(len(PHASES)):  # compile (or load) before timing
        kernel(phase, st, cfg.spec, np.uint64(seed), 2, mask, obs)
    times: dict[str, list] = {name: [] for name in PHASES}
    decisions = {}
    for _ in range(repeat):  # interleaved: every phase sees the same load
        for phase, name in enumerate(PHASES):
            t0 = time.perf_counter()
            decisions[name] = kernel(phase, st, cfg.spec, np.uint64(seed), games, mask, obs)
            times[name].append(time.perf_counter() - t0)
    base = np.array(times["none"])
    d = decisions["none"]

    def per_call(name, calls):  # the extra time per extra call, every repeat
        return (np.array(times[name]) - base) / calls * 1e9

    rows = {
        "decision": base / d * 1e9,
        "deal (per game)": per_call("deal", EXTRA * games),
        "legal_mask": per_call("legal_mask", EXTRA * decisions["legal_mask"]),
        "random_legal": per_call("random_legal", EXTRA * decisions["random_legal"]),
        "observe": per_call("observe", EXTRA * decisions["observe"]),
    }
    deal_share = rows["deal (per game)"] * games / d
    rows["deal (per decision)"] = deal_share
    rows["apply + loop"] = rows["decision"] - rows["random_legal"] - deal_share
    return {"preset": preset, "players": players, "games": games, "repeat": repeat,
            "decisions": d, "decisions_per_game": d / games,
            "ns": {k: [round(float(x), 1) for x in v] for k, v in rows.items()}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    result = run(args.preset, args.players, args.games, args.repeat)
    print(f"{args.preset}, {args.players} players, random play: "
          f"{result['decisions_per_game']:.1f} decisions a game, {args.repeat} repeats")
    print(f"{'phase':<22}{'median ns':>12}{'min':>10}{'max':>10}")
    for name, values in result["ns"].items():
        print(f"{name:<22}{np.median(values):>12.1f}{min(values):>10.1f}{max(values):>10.1f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
