"""``resample_from_infostate`` against the whole tree (issue #65): on small decks, every
information set of the tree is enumerated (``tree.infoset_positions``) and every resample
taken along random games, with explicit chance and with sampled chance, must be one of
its information set's positions; on the full decks, every resample's information-state
string, recomputed from its own history, must be the original's, with the seat to move
and the legal moves (the facts a draw that ended a turn fixes).

    python benchmarks/resample_sweep.py                 # every small-deck preset
    python benchmarks/resample_sweep.py --quick         # two configurations, seconds

Prints one row per configuration: tree nodes, information sets, resamples per chance
mode, how each was found (``game.resample_counts``), resamples outside their set (must
be 0) and seconds. Results go to ``benchmarks/results/resample_sweep.json``.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyspiel

import uno_env.integrations.openspiel.tree as ot

RESULTS = Path(__file__).resolve().parent / "results"

#: R0 R1 Y0 Y1 W, two cards each, three turns (the tests' deck: 2,635 nodes)
W5 = dict(players=2, colors=2, numbers=2, copies=1, action_cards="", wilds=1,
          wild_draw_fours=0, hand_size=2, uno_call=False, bluff=False, max_turns=3)
#: R0 R1 Y0 Y1 W4 with bluffing, one card each: a Wild Draw Four may be challenged
CHALLENGE = dict(W5, wilds=0, wild_draw_fours=1, hand_size=1, bluff=True)
#: R0 R1 RS Y0 Y1 YS, two cards each, two turns
D6 = dict(W5, action_cards="S", wilds=0, max_turns=2)
#: every preset of the classic deck made small (docs/rules.md 8), on a deck where its
#: house rules can act (a Draw Two to stack, identical cards to jump in with)
CONFIGS = {
    "classic": W5, "classic-challenge": CHALLENGE, "classic-d6": D6,
    "classic-3p": dict(D6, players=3, hand_size=1, max_turns=3),
    "street": dict(D6, preset="street"), "seven_o": dict(D6, preset="seven_o"),
    "progressive": dict(W5, preset="progressive", action_cards="D2", wilds=0,
                        max_turns=2),
    "jump_in": dict(W5, preset="jump_in", copies=2, max_turns=2),
    "strict": dict(W5, preset="strict"), "multi": dict(W5, preset="multi"),
    "teams": dict(D6, preset="teams", players=4, hand_size=1),
}
QUICK = ("classic", "classic-challenge")


def play_and_check(params: dict, sets: dict, chance: str, games: int, per: int,
                   seed: int = 0) -> dict:
    """Random games (challenging a Wild Draw Four whenever it can), ``per`` resamples
    for the player to move at every decision; each must be a position of the set."""
    game = pyspiel.load_game("python_uno", {**params, "chance": chance})
    counts = ot.check_resamples(game, sets, games, per, np.random.default_rng(seed))
    return {"resamples": counts["resamples"], "outside": counts["outside"],
            **game.resample_counts}


def full_deck(preset: str, players: int, games: int, every: int, seed: int = 0) -> dict:
    game = pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                            "max_turns": 80})
    rng = np.random.default_rng(seed)
    resamples = bad = 0
    for _ in range(games):
        state, m = game.new_initial_state(), 0
        while not state.is_terminal():
            m += 1
            if m % every == 0:
                p = state.current_player()
                mine = state.information_state_string(p)
                sample = state.resample_from_infostate(p, rng.uniform)
                resamples += 1
                bad += (sample.replayed().information_state_string(p) != mine
                        or sample.current_player() != p
                        or sample.legal_actions() != state.legal_actions())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return {"resamples": resamples, "outside": bad, **game.resample_counts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--per", type=int, default=3)
    ap.add_argument("--full-games", type=int, default=2)
    args = ap.parse_args()
    rows = []
    for name in (QUICK if args.quick else CONFIGS):
        params = CONFIGS[name]
        t = time.perf_counter()
        try:
            sets, nodes = ot.infoset_positions(ot.load(params))
        except ValueError as err:
            print(f"{name}: skipped ({err})")
            continue
        row = {"config": name, "nodes": nodes, "infosets": len(sets)}
        for chance in ("explicit", "sampled"):
            row[chance] = play_and_check(params, sets, chance, args.games, args.per)
        row["seconds"] = round(time.perf_counter() - t, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if not args.quick:
        for preset, players in (("classic", 2), ("street", 4), ("seven_o", 3),
                                ("jump_in", 3), ("multi", 2), ("flip", 3),
                                ("onepiece", 3), ("teams", 4), ("chaos", 3)):
            t = time.perf_counter()
            row = {"config": f"{preset}-{players} full deck",
                   **full_deck(preset, players, args.full_games, every=6),
                   "seconds": round(time.perf_counter() - t, 1)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "resample_sweep.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
