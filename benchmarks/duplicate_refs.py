"""Play the panel on every 4-player track's duplicate deals and store the results
(``uno_env/evaluation/duplicate_refs/<track>.npz``, ``uno_env.evaluation.duplicate``).

    python benchmarks/duplicate_refs.py                      # every 4-player track
    python benchmarks/duplicate_refs.py --track classic-4p --threads 1

Run once per benchmark version whose duplicate deals, opponent or panel change; a card
then plays only its own agent's games. Prints each member's time and win rate.
"""
from __future__ import annotations

import argparse
import time

from uno_env.evaluation.benchmark import TRACKS, _member
from uno_env.evaluation.duplicate import play_duplicate, save_references
from uno_env.rules.config import make_config


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--track", action="append", help="a 4-player track (default: all)")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    names = args.track or [t for t, tr in TRACKS.items() if tr.duplicate]
    for name in names:
        tr = TRACKS[name]
        config = make_config(tr.preset, tr.num_players, **tr.rules)
        results = {}
        for m in tr.panel:
            t0 = time.perf_counter()
            won, points = play_duplicate(_member(m, config, tr.seed), tr,
                                         threads=args.threads)
            results[m] = (won, points)
            print(f"{name} {m}: {won.size} games in {time.perf_counter() - t0:.1f} s, "
                  f"win rate {won.mean():.4f}, points {points.mean():.2f}", flush=True)
        from uno_env.provenance import provenance
        record = provenance([config], [tr.duplicate.seed], agent="the panel",
                            opponents=list(tr.panel))
        print("wrote", save_references(tr, results, record=record), flush=True)


if __name__ == "__main__":
    main()
