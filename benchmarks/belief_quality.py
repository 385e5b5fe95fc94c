"""How well a learned belief (``agents.belief.BeliefModel``) knows the hidden hands, on
games no training used, beside the search's current belief and a uniform redraw.

Positions: seat 0's decisions with at least two legal moves in ``--games`` games of
``heuristic`` in every seat, games 0 .. of ``--seed`` (the positions of
``benchmarks/search_oracle.py``'s ``cards_right``; the shipped model trained on other
seeds). Three beliefs of the other hands:

* ``uniform``: every hidden card (not in seat 0's hand, not on the discard pile) equally
  likely in any hand or the draw pile (``engine.determinize``);
* ``current``: the search's deals (``engine.search.sample``: a uniform redraw dealt
  again by the public belief of ``engine/belief.py``, which ``agents.MCTSAgent`` keeps
  by following the game);
* ``learned``: the model's ``expected_hands`` and ``sample_hands``.

Measures, per row:

* ``log-likelihood``: the mean log-probability of the type of each card of the other
  hands under its seat's predicted composition (expected count of the type over the
  hand's size). The current belief's composition is the mean of ``--ll-samples`` of its
  deals; it and the learned one are smoothed with ``--alpha`` of a card spread as a
  uniform redraw would (the current belief's deals give 0 to many types); the uniform
  one is exact.
* ``cards right``: the share of the other players' cards a sampled deal puts in the
  right hand (``sum min(true, dealt) / cards``), ``--samples`` deals a position: the
  measure of the oracle table in docs/agents.md (0.117 uniform, 0.142 current there).

``--plot`` draws a calibration plot: the predicted share of a type's hidden copies in a
hand (``expected / hidden copies``) against the true share, in bins.

    nice -n 5 python benchmarks/belief_quality.py --model belief_classic_4p --games 200
"""
from __future__ import annotations

import argparse
import json
import os
import time

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from agents import MCTSAgent, make_agent  # noqa: E402
from agents.belief import BeliefModel  # noqa: E402
from uno_env import Game  # noqa: E402
from uno_env.engine.rng import seed_stream_py  # noqa: E402
from uno_env.engine.search import clone_row, sample  # noqa: E402

ROWS = ("uniform", "current", "learned")


@numba.njit
def deal_counts(st, sp, seat, rng, banned, samples, out):
    """``samples`` deals of the search's sampler (``banned``: the belief; zeros: a
    uniform redraw); ``out[i]`` (int[samples, P, K]) gets deal ``i``'s hands."""
    root = clone_row(st, 0)
    dst = clone_row(st, 0)
    for i in range(samples):
        sample(root, dst, sp, seat, rng, 0, banned)
        out[i] = dst.hands[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="belief_classic_4p")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--ll-samples", type=int, default=64)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--sharpness", default="1",
                    help="comma-separated: the learned deals' sharpness (sample_hands); "
                         "one learned row each")
    ap.add_argument("--json", default=None)
    ap.add_argument("--plot", default=None)
    args = ap.parse_args(argv)
    model = BeliefModel.load(args.model)
    cfg = model.config
    players, k = cfg.num_players, cfg.deck.num_types
    rel = [(0 + r) % players for r in range(1, players)]
    rng = np.array([seed_stream_py(args.seed, 7)], np.uint64)
    np_rng = np.random.default_rng(args.seed)
    ll = {r: [0.0, 0.0] for r in ROWS}
    right = {r: [0.0, 0.0] for r in ROWS}
    calib = {r: [] for r in ROWS}
    sharp = [float(x) for x in args.sharpness.split(",")]
    right_sharp = {b: [0.0, 0.0] for b in sharp if b != 1.0}
    d = cfg.layout.obs_size
    deals = np.zeros((max(args.samples, args.ll_samples), players, k), np.int8)
    positions, start = 0, time.time()
    for i in range(args.games):
        g = Game(cfg.preset, players, seed=args.seed, public_record=True,
                 **cfg.rule_overrides())
        g.reset(args.seed, i)
        policy = make_agent("heuristic", cfg)
        follower = MCTSAgent(cfg, budget=1, seed=args.seed).attach(g)
        while not g.is_over:
            mask = g.action_mask()
            if g.current_player == 0 and mask.sum() > 1:
                positions += 1
                follower.act_game(g)   # brings its belief up to date
                obs = g.observe(0)
                true = g.engine_state.hands[0, rel].astype(np.float64)     # [P-1, K]
                sizes = true.sum(axis=1)
                pool = model.hidden_pool(obs[None])[0].astype(np.float64)
                uniform = pool / pool.sum()                                 # per card
                smooth = args.alpha * uniform[None, :]
                comps = {"uniform": np.broadcast_to(uniform, true.shape)}
                for name, banned in (("current", follower.belief),
                                     ("uniform", np.zeros_like(follower.belief))):
                    n = args.ll_samples if name == "current" else args.samples
                    deal_counts(g.engine_state, cfg.spec, 0, rng, banned, n, deals)
                    dealt = deals[:n][:, rel].astype(np.float64)            # [n, P-1, K]
                    right[name][0] += np.minimum(true, dealt[:args.samples]).sum() / \
                        min(n, args.samples)
                    right[name][1] += sizes.sum()
                    if name == "current":
                        mean = dealt.mean(axis=0)
                        comps["current"] = (mean + smooth) / (sizes[:, None] + args.alpha)
                        calib["current"].append((mean, true, pool))
                expected = model.expected_hands(obs[None])[0].astype(np.float64)
                comps["learned"] = (expected + smooth) / (sizes[:, None] + args.alpha)
                calib["learned"].append((expected, true, pool))
                calib["uniform"].append((sizes[:, None] * uniform[None, :], true, pool))
                for _ in range(args.samples):
                    dealt = model.sample_hands(obs, np_rng)
                    right["learned"][0] += np.minimum(true, dealt).sum() / args.samples
                right["learned"][1] += sizes.sum()
                for b, acc in right_sharp.items():
                    for _ in range(args.samples):
                        dealt = model.sample_hands(obs, np_rng, sharpness=b)
                        acc[0] += np.minimum(true, dealt).sum() / args.samples
                    acc[1] += sizes.sum()
                for name in ROWS:
                    q = comps[name]
                    held = true > 0
                    ll[name][0] += (true[held] * np.log(q[held])).sum()
                    ll[name][1] += true.sum()
            g.step(int(policy.act(g.observe(g.current_player)[:d], mask)))
    out = {"model": args.model, "games": args.games, "seed": args.seed,
           "positions": positions, "seconds": round(time.time() - start),
           "rows": {name: {"log_likelihood": ll[name][0] / ll[name][1],
                           "cards_right": right[name][0] / right[name][1]}
                    for name in ROWS},
           "learned_cards_right_by_sharpness": {str(b): acc[0] / acc[1]
                                                for b, acc in right_sharp.items()}}
    print(f"{args.model}: {positions} positions of seat 0 in {args.games} heuristic games "
          f"(seed {args.seed}; {out['seconds']} s)")
    print(f"{'belief':10s} {'log-likelihood/card':>20s} {'cards right':>12s}")
    for name in ROWS:
        r = out["rows"][name]
        print(f"{name:10s} {r['log_likelihood']:20.4f} {r['cards_right']:12.4f}")
    for b, v in out["learned_cards_right_by_sharpness"].items():
        print(f"learned, deals of sharpness {b}: cards right {v:.4f}")
    if args.plot:
        plot(calib, args.plot, out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


def plot(calib, path, out):
    """The calibration plot (module docstring)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 4.2))
    edges = np.linspace(0, 1, 11)
    for name, colour in zip(ROWS, ("grey", "C1", "C0")):
        pred = np.concatenate([(e / np.maximum(p, 1)[None, :])[:, p > 0].ravel()
                               for e, _, p in calib[name]])
        real = np.concatenate([(t / np.maximum(p, 1)[None, :])[:, p > 0].ravel()
                               for _, t, p in calib[name]])
        which = np.clip(np.digitize(pred, edges) - 1, 0, len(edges) - 2)
        xs, ys = [], []
        for b in range(len(edges) - 1):
            sel = which == b
            if sel.sum() >= 20:
                xs.append(pred[sel].mean())
                ys.append(real[sel].mean())
        r = out["rows"][name]
        ax.plot(xs, ys, "o-", color=colour, ms=3,
                label=f"{name} (LL {r['log_likelihood']:.2f}, right {r['cards_right']:.3f})")
    ax.plot([0, 1], [0, 1], ":", color="black", lw=0.8)
    ax.set_xlabel("predicted share of a type's hidden copies in a hand")
    ax.set_ylabel("true share")
    ax.set_title(f"{out['model']}: {out['positions']} held-out positions", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
