"""Train a belief network (``agents.belief.BeliefModel``) on positions of the engine's own
games, labelled with the true hands.

Positions. ``EverySeatBatch(public_record=True)`` plays ``--games`` games (game indices
0 .. of ``--seed``) with an agent drawn for each seat of each game from the mix
``--mix`` (default: heuristic 0.4, ppo_classic_4p 0.3 (the shipped PPO policy: the
"self-play" share), greedy 0.2, random 0.1); each decision is kept with probability
``--keep`` as (the decider's observation with the record, the other hands' true
counts). A second, smaller set from ``--seed + 1`` is the validation set.

Network. ``log1p(observation)`` -> ``--hidden`` ReLU layers -> ``(P - 1) * K`` logits,
added to the log of each type's hidden copies that no seat is known to hold (so the
untrained network is a uniform redraw); loss: the cross-entropy of the unknown cards of
each other hand against the softmax over types (the mean negative log-probability of a
hidden card's type, per card). Adam, ``--epochs`` epochs, the best validation epoch
kept. Needs torch (the ``rl`` extra); the result plays in numpy.

    nice -n 5 python benchmarks/belief_train.py --players 4 --games 40000 \\
        --out agents/models/belief/belief_classic_4p.npz
"""
from __future__ import annotations

import argparse
import json
import os
import time

# one BLAS thread: the PPO opponents' small matrix products run 50x slower when BLAS
# threads fight the engine and each other for a 2-core machine
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402

from agents import PPOAgent, make_agent  # noqa: E402
from agents.belief import BeliefModel  # noqa: E402
from uno_env.engine.obs_layout import RECORD_VERSION  # noqa: E402
from uno_env.envs.every_seat import EverySeatBatch  # noqa: E402

DEFAULT_MIX = "heuristic:0.4,ppo_classic_4p:0.3,greedy:0.2,random:0.1"


def parse_mix(text: str) -> tuple[list[str], np.ndarray]:
    names, weights = [], []
    for part in text.split(","):
        name, _, w = part.partition(":")
        names.append(name)
        weights.append(float(w or 1))
    w = np.array(weights)
    return names, w / w.sum()


def positions(preset, players, games, seed, mix, keep, batch=512, rng_seed=0):
    """(obs uint8[N, D], hands int8[N, P-1, K]) from ``games`` games of ``seed``
    (module docstring); the observations clipped to 255."""
    names, weights = parse_mix(mix)
    env = EverySeatBatch(batch, preset, players, seed=seed, public_record=True)
    cfg = env.config
    d = cfg.layout.obs_size
    agents = [PPOAgent.load(n) if n.startswith("ppo") else make_agent(n, cfg, seed=rng_seed)
              for n in names]
    rng = np.random.default_rng(rng_seed)
    obs, mask, player = env.reset()
    seats = rng.choice(len(names), size=(batch, players), p=weights)
    out_obs, out_hands = [], []
    hands = env.engine_state.hands
    rel = (np.arange(players)[None, :] + np.arange(1, players)[:, None]) % players  # [P-1,P]
    done = 0
    while done < games:
        keep_rows = np.flatnonzero(rng.random(batch) < keep)
        if len(keep_rows):
            out_obs.append(np.minimum(obs[keep_rows], 255).astype(np.uint8))
            p = player[keep_rows]
            others = rel[:, p].T                                      # [n, P-1]
            out_hands.append(hands[keep_rows[:, None], others].astype(np.int8))
        kinds = seats[np.arange(batch), player]
        actions = np.zeros(batch, np.int64)
        for j, agent in enumerate(agents):
            rows = np.flatnonzero(kinds == j)
            if len(rows):
                actions[rows] = agent.act_batch(np.ascontiguousarray(obs[rows, :d]),
                                                mask[rows])
        obs, mask, player, _, term, trunc = env.step(actions)
        ended = np.flatnonzero(term | trunc)
        done += len(ended)
        if len(ended):
            seats[ended] = rng.choice(len(names), size=(len(ended), players), p=weights)
    return np.concatenate(out_obs), np.concatenate(out_hands)


def train(obs, hands, val_obs, val_hands, meta, hidden, epochs, lr, batch, threads,
          log):
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    probe = BeliefModel(_dummy_weights(obs.shape[1], meta), meta)  # its input helpers
    p1, k = meta["players"] - 1, probe.num_types

    hand, played = probe._hand, probe._played
    known_at = probe._known
    deck = torch.from_numpy(probe._deck)

    def prepare(o, h):
        """A minibatch's inputs from the stored uint8 observations and int8 hands: the
        network's input, the log of each type's unknown hidden copies, the targets."""
        o = o.float()
        known = o[:, known_at].view(-1, p1, k)
        pool = torch.clamp(deck - o[:, hand] - o[:, played], min=0.0) - known.sum(1)
        target = torch.clamp(h.float() - known, min=0.0)
        return torch.log1p(o), torch.log(torch.clamp(pool, min=0.0) + 1e-30), target

    x, hh = torch.from_numpy(obs), torch.from_numpy(hands)
    vx, vh = torch.from_numpy(val_obs), torch.from_numpy(val_hands)
    layers, width = [], obs.shape[1]
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, p1 * k))
    net = torch.nn.Sequential(*layers)
    torch.nn.init.zeros_(net[-1].weight)
    torch.nn.init.zeros_(net[-1].bias)
    opt = torch.optim.Adam(net.parameters(), lr=lr)

    def loss_of(ob, hb):
        xb, lp, tb = prepare(ob, hb)
        logits = net(xb).view(-1, p1, k) + lp[:, None, :]
        logq = torch.log_softmax(logits, dim=2)
        logq = torch.where(tb > 0, logq, torch.zeros_like(logq))
        return -(tb * logq).sum(), tb.sum()

    def evaluate():
        with torch.no_grad():
            total, cards = 0.0, 0.0
            for i in range(0, len(vx), 8192):
                a, b = loss_of(vx[i:i + 8192], vh[i:i + 8192])
                total, cards = total + float(a), cards + float(b)
        return -total / cards

    best, best_state, curve = -np.inf, None, []
    start = time.time()
    log(f"epoch 0: validation log-likelihood per hidden card {evaluate():.4f} "
        f"(uniform redraw)")
    for epoch in range(1, epochs + 1):
        order = torch.randperm(len(x))
        for i in range(0, len(x), batch):
            j = order[i:i + batch]
            a, b = loss_of(x[j], hh[j])
            opt.zero_grad()
            (a / b).backward()
            opt.step()
        ll = evaluate()
        curve.append({"epoch": epoch, "val_ll": ll, "seconds": time.time() - start})
        log(f"epoch {epoch}: validation log-likelihood per hidden card {ll:.4f} "
            f"({time.time() - start:.0f} s)")
        if ll > best:
            best = ll
            best_state = [p.detach().numpy().copy() for p in net.parameters()]
    weights = []
    for i in range(0, len(best_state), 2):
        weights += [best_state[i].T.copy(), best_state[i + 1].copy()]
    return weights, curve


def _dummy_weights(d, meta):
    p1 = meta["players"] - 1
    from uno_env.rules.config import make_config
    k = make_config(meta["preset"], meta["players"]).deck.num_types
    return [np.zeros((d, p1 * k), np.float32), np.zeros(p1 * k, np.float32)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=40000)
    ap.add_argument("--val-games", type=int, default=4000)
    ap.add_argument("--keep", type=float, default=0.25)
    ap.add_argument("--mix", default=DEFAULT_MIX)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--hidden", default="256,256")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, flush=True)

    t = time.time()
    obs, hands = positions(args.preset, args.players, args.games, args.seed, args.mix,
                           args.keep)
    vobs, vhands = positions(args.preset, args.players, args.val_games, args.seed + 1,
                             args.mix, args.keep, rng_seed=1)
    log(f"{len(obs):,} training positions ({args.games:,} games of seed {args.seed}), "
        f"{len(vobs):,} validation ({args.val_games:,} of seed {args.seed + 1}); "
        f"{time.time() - t:.0f} s")
    env = EverySeatBatch(1, args.preset, args.players, public_record=True)
    meta = {"preset": args.preset, "players": args.players,
            "obs_size": env.config.observation_size(True),
            "record_version": RECORD_VERSION, "hidden": [int(h) for h in
                                                         args.hidden.split(",")],
            "input": "log1p(observation with the public record)",
            "training": {"games": args.games, "seed": args.seed, "mix": args.mix,
                         "keep": args.keep, "positions": int(len(obs)),
                         "val_games": args.val_games, "val_seed": args.seed + 1,
                         "epochs": args.epochs, "lr": args.lr, "batch": args.batch}}
    weights, curve = train(obs, hands, vobs, vhands, meta, meta["hidden"], args.epochs,
                           args.lr, args.batch, args.threads, log)
    meta["training"]["curve"] = curve
    meta["training"]["seconds"] = round(time.time() - t)
    BeliefModel(weights, meta).save(args.out)
    log(f"saved {args.out} ({time.time() - t:.0f} s in all)")


if __name__ == "__main__":
    main()
