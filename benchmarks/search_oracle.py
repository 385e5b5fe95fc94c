"""What the search would need to know: ``mcts`` with deals told part of the truth.

An experiment, not an agent. ``mcts`` (``uno_env.engine.search``) plays rollouts on
determinizations: the cards its seat cannot see, redrawn from what it has not seen and
dealt again by the public belief (``engine/belief.py``). Here each determinization is
then dealt once more with some of the true hidden cards *told* to it (an oracle), so the
win rate of the same search can be read against how much it knows of the other hands:

* ``belief``: the shipped search, nothing told;
* ``reveal:<q>``: each card of each other player's hand is told with probability
  ``q`` percent (the rest dealt at random from the remaining hidden cards);
* ``colours``: every other player's count of each colour and of each kind of wild
  (which numbers and symbols, not told);
* ``colours+actions``: the same, each colour split into number and action cards;
* ``hands``: every other player's whole hand (the draw pile's order still hidden).

Each row also measures how close its deals are: the share of the other players' cards
a deal puts in the right hand (``cards_right``: seat 0's decisions in
``--position-games`` games of ``heuristic``, 20 deals each; the belief row also gives a
uniform redraw's share). The reference row is ``heuristic`` in the searcher's seat on
the same deals. Every mode plays the deals of the same seed, seat-rotated
(``search.py``'s ``seat_rotated``). A told mode runs in a child process whose
``uno_env.engine.search.sample`` is wrapped by the oracle before anything compiles, with
a cache directory of its own (``oracle-<class>-<percent>-<hash of this file>`` beside
the engine's cache): about a minute of compiling per mode on a first run.

    python benchmarks/search_oracle.py --games 4000 --seed 1 --json oracle.json

The figure (``--plot``, default docs/figures/search_oracle.png; ``--replot JSON``
draws it again from a run's JSON) plots each mode's win rate, with its 95% interval,
against its share of cards right, beside the heuristic's win rate and the 4-player
target of the search issue (0.32).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

#: what a determinization is told: (card classes, percent of cards told)
CLASS_NONE, CLASS_COLOUR, CLASS_COLOUR_ACTION, CLASS_CARD = 0, 1, 2, 3
MODES = {
    "belief": (CLASS_NONE, 0),
    "reveal:25": (CLASS_CARD, 25),
    "reveal:50": (CLASS_CARD, 50),
    "reveal:75": (CLASS_CARD, 75),
    "colours": (CLASS_COLOUR, 100),
    "colours+actions": (CLASS_COLOUR_ACTION, 100),
    "hands": (CLASS_CARD, 100),
}
#: the 4-player target of the search issue (one mcts against three heuristic)
TARGET_4P = 0.32


def make_oracle(card_classes: int, percent: int):
    """The oracle's kernels ``(tell, sample_told)`` for ``card_classes`` (``CLASS_*``)
    and ``percent`` (the chance that each card is told; 100 for the class modes).

    ``tell(root, dst, sp, seat, rng, r)`` deals the hidden cards of ``dst`` (a one-game
    state: ``root``, the true position, with its hidden cards redrawn) again, so that
    each other player's hand holds, for each told card of its true hand in ``root``, a
    random hidden card of the same class; the rest of each hand and the draw pile are
    dealt at random from the remaining hidden cards. ``sample_told`` is
    ``engine.search.sample`` followed by ``tell``."""
    from uno_env.engine.jit import njit
    from uno_env.engine import codes as C
    from uno_env.engine import search
    from uno_env.engine.determinize import hidden_pool
    from uno_env.engine.rng import below
    from uno_env.engine.tallies import recount

    plain_sample = search.sample

    @njit
    def card_class(sp, t):
        f = sp.type_face[t, 0]
        rank = sp.face_rank[f]
        if card_classes == CLASS_CARD:
            return t
        if rank >= C.FIRST_WILD_RANK:
            return 1000 + rank  # each kind of wild a class of its own
        if card_classes == CLASS_COLOUR:
            return sp.face_color[f]
        return 2 * sp.face_color[f] + (1 if rank >= 10 else 0)  # numbers are ranks 0-9

    @njit(allocates=True)
    def tell(root, dst, sp, seat, rng, r):
        pool, n = hidden_pool(dst, 0, seat, rng, r)  # shuffled
        used = np.zeros(n, np.uint8)
        num_players, num_types = dst.hands.shape[1], dst.hands.shape[2]
        need = np.zeros(num_players, np.int64)
        for q in range(num_players):
            if q != seat:
                dst.hands[0, q] = 0
                need[q] = dst.hand_size[0, q]
        for q in range(num_players):
            if q == seat:
                continue
            for t in range(num_types):
                for _ in range(root.hands[0, q, t]):
                    if percent < 100 and below(rng, r, 100) >= percent:
                        continue
                    c = card_class(sp, t)
                    for i in range(n):  # the first unused card of class c: a random one
                        if used[i] == 0 and card_class(sp, pool[i]) == c:
                            used[i] = 1
                            dst.hands[0, q, pool[i]] += 1
                            need[q] -= 1
                            break
        for q in range(num_players):
            for i in range(n):
                if q == seat or need[q] == 0:
                    break
                if used[i] == 0:
                    used[i] = 1
                    dst.hands[0, q, pool[i]] += 1
                    need[q] -= 1
        j = 0
        for i in range(n):
            if used[i] == 0:
                dst.draw_pile[0, j] = pool[i]
                j += 1
        recount(dst, 0, sp)

    @njit
    def sample_told(root, dst, sp, seat, rng, r, banned):
        plain_sample(root, dst, sp, seat, rng, r, banned)
        tell(root, dst, sp, seat, rng, r)

    return tell, sample_told


def cards_right(sampler, players, games, seed, samples=20):
    """How close the deals of ``sampler`` (``engine.search.sample``'s signature) are to
    the truth: the share of the other players' cards a deal puts in the right hand,
    averaged over the decisions of seat 0 (at least two legal moves) in ``games``
    games of ``heuristic`` in every seat, ``samples`` deals each, with the public
    belief of those games (``agents.MCTSAgent`` follows them). Returns ``(with the
    belief, without it)``; without it the deal is a uniform redraw."""
    import numba

    from agents import MCTSAgent, make_agent
    from uno_env import Game
    from uno_env.engine.rng import seed_stream_py
    from uno_env.engine.search import clone_row

    @numba.njit
    def share_right(st, sp, seat, rng, banned, samples):
        root = clone_row(st, 0)
        dst = clone_row(st, 0)
        right = total = 0
        for _ in range(samples):
            sampler(root, dst, sp, seat, rng, 0, banned)
            for q in range(root.hands.shape[1]):
                if q != seat:
                    total += root.hand_size[0, q]
                    for t in range(root.hands.shape[2]):
                        right += min(root.hands[0, q, t], dst.hands[0, q, t])
        return right, total

    sums = np.zeros((2, 2))
    rng = np.array([seed_stream_py(seed, 7)], np.uint64)
    for i in range(games):
        g = Game("classic", players, seed=seed)
        g.reset(seed, i)
        policy = make_agent("heuristic", g.config)
        follower = MCTSAgent(g.config, budget=1, seed=seed).attach(g)
        while not g.is_over:
            mask = g.action_mask()
            if g.current_player == 0 and mask.sum() > 1:
                follower.act_game(g)  # brings its belief up to date
                for k, banned in enumerate((follower.belief,
                                            np.zeros_like(follower.belief))):
                    sums[k] += share_right(g._state, g.config.spec, 0, rng, banned,
                                           samples)
            g.step(int(policy.act(g.observe(g.current_player), mask)))
    return tuple(float(right / total) for right, total in sums)


def measure(players, agent, games, seed, threads, position_games, sampler):
    """The row of ``agent`` (its deals from ``sampler``, ``engine.search.sample`` as it
    is in this process): its win rate and the share of cards its deals get right."""
    from search import seat_rotated
    row = seat_rotated("classic", players, agent, "heuristic", games, seed, threads)
    if position_games > 0:
        row["cards_right"], row["cards_right_uniform"] = cards_right(
            sampler, players, position_games, seed)
    return row


def run_mode(mode, players, agent, games, seed, threads, position_games):
    """One row (module docstring): ``belief`` in this process, a told mode in a child
    process with the oracle installed and a cache of its own; the row's dict."""
    cls, percent = MODES[mode]
    if cls == CLASS_NONE:
        from uno_env.engine import search as engine_search
        row = measure(players, agent, games, seed, threads, position_games,
                      engine_search.sample)
    else:
        from uno_env.engine.jit import cache_dir
        digest = hashlib.sha1(pathlib.Path(__file__).read_bytes()).hexdigest()[:12]
        base = os.path.dirname(cache_dir("classic"))  # the engine's cache root
        env = dict(os.environ, UNO_ORACLE_CLASS=str(cls),
                   UNO_ORACLE_PERCENT=str(percent),
                   NUMBA_CACHE_DIR=os.path.join(base, f"oracle-{cls}-{percent}-{digest}"))
        out = subprocess.run([sys.executable, __file__, "--child", json.dumps(
            [players, agent, games, seed, threads, position_games])], env=env,
            check=True, stdout=subprocess.PIPE, text=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
    row["mode"] = mode
    return row


def _child(spec):
    """A row with the oracle of ``UNO_ORACLE_CLASS`` / ``UNO_ORACLE_PERCENT`` installed:
    ``engine.search.sample`` replaced before the search compiles."""
    from uno_env.engine import search as engine_search
    _, engine_search.sample = make_oracle(int(os.environ["UNO_ORACLE_CLASS"]),
                                          int(os.environ["UNO_ORACLE_PERCENT"]))
    print(json.dumps(measure(*json.loads(spec), engine_search.sample)))


def plot(rows, reference, path, players):
    """Win rate against the share of the other players' cards the deals get right
    (``cards_right``; modes without it are left out)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in rows if "cards_right" in r]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for r in rows:
        x, p = r["cards_right"], r["win_rate"]
        told = r["mode"].startswith(("reveal", "hands"))
        ax.errorbar([x], [p], yerr=[[p - r["ci"][0]], [r["ci"][1] - p]], capsize=3,
                    fmt="o" if told else "s", color="C0" if told else "C2")
        ax.annotate(r["mode"], (x, p), textcoords="offset points", xytext=(6, -10),
                    fontsize=8)
    belief = [r for r in rows if r["mode"] == "belief"]
    if belief:
        ax.axvline(belief[0]["cards_right_uniform"], color="grey", ls=":", lw=0.8,
                   label="a uniform redraw")
    ax.axhline(reference["win_rate"], color="grey", ls="--", lw=1,
               label=f"heuristic in the seat ({reference['win_rate']:.3f})")
    if players == 4:
        ax.axhline(TARGET_4P, color="C3", lw=1, label=f"the issue's target ({TARGET_4P})")
    ax.set_xlim(0, 1.08)
    ax.set_xlabel("share of the other players' cards a deal puts in the right hand")
    ax.set_ylabel(f"win rate of one {rows[0]['agent']} (95% interval)")
    ax.set_title(f"{rows[0]['agent']} against {players - 1} heuristic, told part of the "
                 f"hidden hands ({players} players, classic)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games per row")
    ap.add_argument("--budget", type=int, default=200, help="rollouts per decision")
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6, 7, 8, 9, 10))
    ap.add_argument("--modes", default=",".join(MODES),
                    help=f"comma-separated, from: {', '.join(MODES)}")
    ap.add_argument("--position-games", type=int, default=100,
                    help="games whose positions measure how many cards the deals get "
                         "right (0: skip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument("--plot", default=str(ROOT / "docs" / "figures" / "search_oracle.png"))
    ap.add_argument("--replot", default=None, metavar="JSON",
                    help="only draw the plot again from a --json file of an earlier run")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        return _child(args.child)
    if args.replot:
        data = json.loads(pathlib.Path(args.replot).read_text())
        plot(data["rows"], data["reference"], args.plot, data["players"])
        print(f"plot: {args.plot}")
        return
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        ap.error(f"unknown mode(s) {', '.join(unknown)}; valid: {', '.join(MODES)}")
    if args.budget < 1:
        ap.error("--budget is a number of rollouts, at least 1")
    print(f"load average {os.getloadavg()[0]:.1f}; seed {args.seed}; "
          f"mcts:{args.budget}, {args.players} players vs heuristic", flush=True)
    from search import seat_rotated
    reference = seat_rotated("classic", args.players, "heuristic", "heuristic",
                             args.games, args.seed, args.threads)
    reference["mode"] = "heuristic"

    def show(row):
        lo, hi = row["ci"]
        right = f"  cards right {row['cards_right']:.3f}" if "cards_right" in row else ""
        if row["mode"] == "belief" and "cards_right" in row:
            right += f" (a uniform redraw {row['cards_right_uniform']:.3f})"
        print(f"{row['mode']:16s} {row['games']:6d} games  win rate {row['win_rate']:.4f} "
              f"[{lo:.4f}, {hi:.4f}]  ({row['seconds']:.0f} s){right}", flush=True)

    show(reference)
    rows = []
    for mode in modes:
        rows.append(run_mode(mode, args.players, f"mcts:{args.budget}", args.games,
                             args.seed, args.threads, args.position_games))
        show(rows[-1])
    if args.plot and rows:
        plot(rows, reference, args.plot, args.players)
        print(f"plot: {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "budget": args.budget, "players": args.players,
                       "reference": reference, "rows": rows,
                       "load": os.getloadavg()[0]}, f, indent=2)


if __name__ == "__main__":
    main()
