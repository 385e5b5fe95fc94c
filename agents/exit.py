"""Expert iteration (issue 47): the search agent's decisions as the targets of a policy
and value network, which then plays the positions the search labels next.
``exit_train(...)`` here, ``uno-bench exit`` on the command line. Needs torch (the
``rl`` extra's install line); the network it writes plays with numpy alone
(``agents.PPOAgent``: the same ``.npz`` format as the PPO models).

The loop, for a time budget (``minutes``) or a number of ``iterations``:

0. **Warm start**: the network copies ``warm_decisions`` decisions of ``heuristic``
   (cheap: no search), so that the first iteration starts from a sensible player.
1. **Play and label** (``collect``): ``games_per_iteration`` games, one learning seat
   (drawn per game) against ``opponents`` (by default three games in five against
   ``heuristic``, one against ``greedy``, one against ``self``: a pool of the last
   ``pool_size`` networks of this run). At every decision with two or more legal
   moves the search ``mcts:<budget>`` (``uno_env.engine.search``, flat, heuristic
   rollouts) decides from the position, as ``uno_env.evaluate`` runs it: its move is
   the label. Who *plays* the seat is drawn per game: the search with probability
   ``expert_share`` (the first iteration: always), else the current network
   (DAgger: the labels then cover the positions the network itself reaches).
2. **Fit** (``fit``): the network (``hidden`` ReLU layers, a policy head over the
   actions and a value head) is trained on every labelled decision so far (the
   iterations' data are aggregated), a masked cross-entropy to the search's move plus
   a binary cross-entropy of the value head to the game's result for that seat. A
   tenth of the games (by game) is held out to measure how often the network agrees
   with the search, overall and where the search departs from the heuristic.
3. **Measure**: the network alone against each of ``eval_opponents``,
   ``eval_games`` seat-rotated games on a seed never used for data
   (``seed + 1_000_003``, as ``agents.train``); the network joins the self-play pool.

What is not here, and why: the network is not yet the search's rollout policy or
prior. The search kernel's rollout policies are numba agents (``engine.policies``),
and a network inside the rollouts needs an engine hook (a policy code that runs an
MLP from arrays); the engine is being rewritten (issue 44), so that step is proposed
in docs/agents.md, not made here.

The output directory holds ``policy.npz`` (the last network), ``best.npz`` (the best
network on the evaluation seed), ``checkpoints/exit_<iteration>.npz``,
``data/iteration_<k>.npz`` (the labelled decisions: refit with ``fit`` without
searching again), ``eval.csv`` (the learning curve: one row per iteration and
opponent), ``iterations.csv`` (per iteration: decisions, agreement, losses, the
search's and the network's results in the data games, seconds), ``curve.png`` and
``summary.json``.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .ppo import PPOAgent
from uno_env.players.training import TrainResult

TORCH_EXTRA = ('expert iteration needs torch: pip install torch==2.13.0 '
               '--extra-index-url https://download.pytorch.org/whl/cpu (the CPU build), '
               'or pip install -e ".[rl]" after it')

#: the line-ups of the play-and-label games (``LearnerBatch``: one drawn per game)
DEFAULT_OPPONENTS = ("heuristic", "heuristic", "heuristic", "greedy", "self")


def _require_torch():
    try:
        import torch  # noqa: F401
    except ImportError as err:
        raise ImportError(f"{TORCH_EXTRA} ({err})") from None


@dataclass
class ExitSettings:
    preset: str = "classic"
    num_players: int = 2
    #: rollouts per decision of the labelling search (``mcts:<budget>``)
    budget: int = 1200
    #: stop after this many iterations (None: only the minutes stop it)
    iterations: int | None = 4
    #: a wall-clock budget in minutes for the whole run (None: only ``iterations``)
    minutes: float | None = None
    games_per_iteration: int = 1000
    #: share of the data games in which the search (not the network) plays the seat,
    #: after the first iteration (in which the search plays every game)
    expert_share: float = 0.5
    opponents: tuple = DEFAULT_OPPONENTS
    pool_size: int = 5
    warm_decisions: int = 200_000
    hidden: tuple = (256, 256)
    #: a residual network over the heuristic's move, starting at this logit bonus
    #: (``make_network``); None: a plain MLP
    advice: float | None = 4.0
    #: labelled decisions of earlier runs (``data/iteration_<k>.npz`` files) to start the
    #: aggregate with: a rerun with other network settings need not search them again
    data_from: tuple = ()
    learning_rate: float = 1e-3
    batch_size: int = 512
    #: passes over the aggregated data after each iteration
    epochs: int = 8
    warm_epochs: int = 2
    value_weight: float = 0.25
    #: the policy also learns the softmax of the search's move values at this
    #: temperature (``soft_targets``), weighted by ``values_weight`` (0: moves only)
    temperature: float = 0.05
    values_weight: float = 1.0
    eval_games: int = 2000
    eval_opponents: tuple = ("heuristic",)
    #: games stepped together while collecting
    batch_games: int = 128
    seed: int = 0
    #: torch threads (one: the machine is shared; the network is small)
    threads: int = 1
    rules: dict = field(default_factory=dict)


@dataclass
class ExitResult(TrainResult):
    """Expert iteration's ``TrainResult``: ``timesteps`` are the search's labelled
    decisions (also ``decisions``), ``iterations`` its rounds."""

    decisions: int = 0

    @property
    def best_path(self) -> Path:
        return self.out / "best.npz"


# --- playing and labelling ---------------------------------------------------------------


class _SearchLabeller:
    """The decisions of ``mcts:<budget>`` for rows of a ``LearnerBatch``, as
    ``uno_env.evaluate`` makes them: one search stream per game (``seed ^ SEARCH_SALT``,
    game index), no belief of the opponents' moves (they move inside the kernel)."""

    def __init__(self, lb, budget: int, seed: int, first_game: int):
        from uno_env.engine.entry import kernels
        from uno_env.engine.rng import seed_stream_py
        from uno_env.engine.names import mcts_code
        from uno_env.engine.search import SEARCH_SALT, idle_arguments

        self.lb = lb
        self.kernel = kernels(lb.config.variant).search
        self.codes = np.array([mcts_code(int(budget))], np.int64)
        self.budget = int(budget)
        n = lb.num_envs
        self.streams = np.array([seed_stream_py(int(seed) ^ int(SEARCH_SALT),
                                                first_game + g) for g in range(n)],
                                np.uint64)
        self.beliefs = np.zeros((n, *lb.engine_state.hands.shape[1:]), np.uint8)
        self.no_moves = np.zeros(0, np.int64)
        outputs, no_learner = idle_arguments(lb.config.num_players, lb.layout.obs_size,
                                             lb.layout.size)
        self.idle = (*outputs, *no_learner)

    def __call__(self, rows) -> np.ndarray:
        from uno_env.engine.batch import STAT_SLOTS
        from uno_env.engine.search import OP_DECIDE
        lb, out = self.lb, np.empty(len(rows), np.int64)
        for i, g in enumerate(rows):
            out[i] = self.kernel(OP_DECIDE, lb.engine_state, lb.engine_state, lb.config.spec,
                                 self.codes, np.uint64(0), int(g), STAT_SLOTS,
                                 self.streams, self.beliefs[g:g + 1], self.no_moves,
                                 *self.idle)
        return out


class _ValueLabeller(_SearchLabeller):
    """``_SearchLabeller``'s move (the same streams and rule, ``agents.search_values``)
    and the search's mean value of every legal move (NaN for the others)."""

    def __call__(self, rows):
        from .search_values import search_values
        moves = np.empty(len(rows), np.int64)
        q = np.full((len(rows), self.lb.layout.size), np.nan, np.float32)
        for i, g in enumerate(rows):
            actions, means, moves[i] = search_values(self.lb, int(g), self.streams,
                                                     self.beliefs, int(self.budget))
            q[i, actions] = means
        return moves, q


def collect(config, games: int, seed: int, opponents, budget: int | None,
            network=None, expert_share: float = 1.0, batch_games: int = 128,
            first_game: int = 0, bar=None) -> dict:
    """Play ``games`` games (indices ``first_game ..`` of ``seed``) with one learning
    seat, drawn per game, against ``opponents`` (as in ``LearnerBatch``) and label every
    learner decision with two or more legal moves.

    ``budget``: the labels are the moves of ``mcts:<budget>``; None: of ``heuristic``
    (the warm start). The seat is played by the labeller in a share ``expert_share`` of
    the games (drawn per game), else by ``network`` (an agent with ``act_batch``).

    Returns a dict of arrays, one row per labelled decision: ``obs`` (float32),
    ``mask`` (uint8), ``label``, ``heuristic`` (the heuristic's move there), ``game``
    (the game index), ``value`` (1 if the seat won that game, 0 lost, 1/P truncated);
    and per game: ``games_won``, ``games_expert`` (who played the seat)."""
    from .baselines import HeuristicAgent
    from uno_env.envs.single_seat import LearnerBatch

    if not 0.0 <= expert_share <= 1.0:
        raise ValueError(f"expert_share is a probability, got {expert_share!r}")
    if expert_share < 1.0 and network is None:
        raise ValueError("a share of the games is played by the network: pass network")
    heuristic = HeuristicAgent(config)
    rng = np.random.default_rng([int(seed), int(first_game), 47])
    parts = {k: [] for k in ("obs", "mask", "label", "heuristic", "game", "value", "q")}
    won_all, expert_all = [], []
    for lo in range(0, games, batch_games):
        size = min(batch_games, games - lo)
        start = first_game + lo
        lb = LearnerBatch(size, config.preset, config.num_players, opponents, "random",
                          seed, auto_reset=False, threads=1, **config.rule_overrides())
        obs, mask = lb.reset(first_game=start)
        label = _ValueLabeller(lb, budget, seed, start) if budget is not None else None
        expert = rng.random(size) < expert_share
        actions = np.zeros(size, np.int64)
        rows_of_game: list[list[int]] = [[] for _ in range(size)]
        first_row = sum(len(p) for p in parts["label"])
        while not (done := lb.done).all():
            live = np.flatnonzero(~done)
            o, m = obs[live], mask[live]
            legal = (m != 0).sum(axis=1)
            choice = live[legal >= 2]
            actions[live] = (m != 0).argmax(axis=1)          # the only legal move
            if len(choice):
                oc, mc = obs[choice], mask[choice]
                heur = heuristic.act_batch(oc, mc)
                if label is None:
                    lab, q = heur, np.full(mc.shape, np.nan, np.float32)
                else:
                    lab, q = label(choice)
                parts["q"].append(q)
                played = lab.copy()
                by_net = ~expert[choice]
                if by_net.any():
                    played[by_net] = network.act_batch(oc[by_net], mc[by_net])
                actions[choice] = played
                n_before = sum(len(p) for p in parts["label"])
                for i, g in enumerate(choice):
                    rows_of_game[g].append(n_before + i)
                parts["obs"].append(oc.copy())
                parts["mask"].append(mc.copy())
                parts["label"].append(lab.astype(np.int16))
                parts["heuristic"].append(heur.astype(np.int16))
                parts["game"].append((start + choice).astype(np.int64))
            obs, mask, *_ = lb.step(actions)
        winner = lb.winner
        result = np.where(winner < 0, 1.0 / config.num_players,
                          (winner == lb.learner_seat).astype(np.float64))
        n_total = sum(len(p) for p in parts["label"])
        value = np.empty(n_total - first_row, np.float32)
        for g in range(size):
            for r in rows_of_game[g]:
                value[r - first_row] = result[g]
        parts["value"].append(value)
        won_all.append(result)
        expert_all.append(expert)
        if bar is not None:
            bar.update(size)
    d = config.layout.obs_size
    out = {k: (np.concatenate(v) if v else np.zeros((0, d) if k == "obs" else 0))
           for k, v in parts.items()}
    if not len(out["label"]):
        out["mask"] = np.zeros((0, config.layout.size), np.uint8)
        out["q"] = np.zeros((0, config.layout.size), np.float32)
    out["games_won"] = np.concatenate(won_all)
    out["games_expert"] = np.concatenate(expert_all)
    return out


def save_data(path, data: dict) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "wb") as f:
        np.savez_compressed(f, **{k: (v.astype(np.float16) if k in ("obs", "q") else v)
                                  for k, v in data.items()})
    return p


def load_data(path) -> dict:
    with np.load(path) as z:
        data = {k: (z[k].astype(np.float32) if k in ("obs", "q") else z[k])
                for k in z.files}
    if "q" not in data:                   # labelled by the search's move alone
        data["q"] = np.full(data["mask"].shape, np.nan, np.float32)
    return data


def merge(datasets) -> dict:
    keys = ("obs", "mask", "label", "heuristic", "game", "value", "q")
    return {k: np.concatenate([d[k] for d in datasets]) for k in keys}


# --- the network -------------------------------------------------------------------------


def make_network(config, hidden=(256, 256), seed: int = 0, advice: float | None = 4.0):
    """A torch policy-value MLP for ``config`` (its input scaled as the PPO models').

    ``advice`` (a number): a residual network over the heuristic, as ``uno-bench train
    --advice heuristic`` (``uno_env.integrations.sb3.AdvisedPolicy``): the input ends with a
    one-hot of the heuristic's move, which the policy layer reads again past the hidden
    layers, starting at ``advice`` times the identity, so the untrained network plays
    the heuristic's move and training learns where the search leaves it. None: a plain
    MLP."""
    import torch
    from torch import nn

    from uno_env.integrations.scaling import config_scale

    torch.manual_seed(int(seed))
    d, a = config.layout.obs_size, config.layout.size
    advised = advice is not None

    class PolicyValue(nn.Module):
        def __init__(self):
            super().__init__()
            scale = config_scale(config)
            if advised:
                scale = np.concatenate([scale, np.ones(a, np.float32)])
            self.register_buffer("scale", torch.as_tensor(scale))
            self.advised = advised
            layers, width = [], len(scale)
            for h in hidden:
                layers += [nn.Linear(width, int(h)), nn.ReLU()]
                width = int(h)
            self.body = nn.Sequential(*layers)
            self.policy = nn.Linear(width + (a if advised else 0), a)
            self.value = nn.Linear(width, 1)
            if advised:
                with torch.no_grad():
                    self.policy.weight[:, width:] = float(advice) * torch.eye(a)

        def forward(self, obs):
            x = self.body(obs * self.scale)
            head = torch.cat([x, obs[:, d:]], dim=1) if self.advised else x
            return self.policy(head), self.value(x).squeeze(-1)

    return PolicyValue()


def network_inputs(data: dict, advised: bool, num_actions: int) -> np.ndarray:
    """The network's input rows for labelled decisions: the observation, and with
    advice the one-hot of the heuristic's move (recorded by ``collect``)."""
    if not advised:
        return data["obs"]
    n = len(data["obs"])
    hint = np.zeros((n, num_actions), np.float32)
    hint[np.arange(n), data["heuristic"].astype(np.int64)] = 1.0
    return np.concatenate([data["obs"], hint], axis=1)


def export(net, config, **meta) -> PPOAgent:
    """The policy of ``net`` as a numpy agent (``PPOAgent``); the value head is kept in
    ``meta``-free arrays by ``save_network``."""
    from torch import nn

    from uno_env.players.policy_file import policy_record
    layers = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
              for m in net.body if isinstance(m, nn.Linear)]
    layers.append((net.policy.weight.detach().numpy().copy(),
                   net.policy.bias.detach().numpy().copy()))
    extra = {"name": "exit", "method": "expert iteration"}
    if net.advised:
        extra["advice"] = "heuristic"
    record = policy_record(config, "relu", **{**extra, **meta})
    agent = PPOAgent(layers, net.scale.numpy(), record)
    agent.value_head = (net.value.weight.detach().numpy().copy(),
                        net.value.bias.detach().numpy().copy())
    return agent


def load_network(path, config):
    """The torch network of a file written by ``save_network`` (to continue training)."""
    import torch
    from torch import nn
    agent = PPOAgent.load(path)
    agent.check_config(config)
    hidden = tuple(w.shape[0] for w, _ in agent.layers[:-1])
    net = make_network(config, hidden, advice=0.0 if agent.advisor is not None else None)
    linears = [m for m in net.body if isinstance(m, nn.Linear)] + [net.policy]
    with torch.no_grad():
        for m, (w, b) in zip(linears, agent.layers):
            m.weight.copy_(torch.as_tensor(w))
            m.bias.copy_(torch.as_tensor(b))
        with np.load(path, allow_pickle=False) as z:
            if "value_w" in z.files:
                net.value.weight.copy_(torch.as_tensor(z["value_w"]))
                net.value.bias.copy_(torch.as_tensor(z["value_b"]))
    return net


def save_network(agent: PPOAgent, path) -> Path:
    """``agent.save(path)`` plus the value head (``value_w``, ``value_b``: the logit of
    the seat's win probability from the last hidden layer; ``PPOAgent.load`` ignores
    them)."""
    p = agent.save(path)
    head = getattr(agent, "value_head", None)
    if head is not None:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["value_w"], arrays["value_b"] = head
        with open(p, "wb") as f:
            np.savez_compressed(f, **arrays)
    return p


def soft_targets(q, mask, temperature: float) -> np.ndarray:
    """float32[N, A]: the softmax of the search's move values over the legal moves at
    ``temperature`` (a row of zeros where the values are unknown)."""
    legal = (mask != 0) & ~np.isnan(q)
    z = np.where(legal, np.nan_to_num(q) / temperature, -np.inf)
    known = legal.any(axis=1)
    z[~known] = 0.0
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z) * legal
    p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
    return p.astype(np.float32)


def fit(net, data: dict, epochs: int, learning_rate: float, batch_size: int, seed: int,
        value_weight: float = 0.5, holdout: dict | None = None, bar=None,
        temperature: float = 0.05, values_weight: float = 1.0) -> dict:
    """Train ``net`` on labelled decisions (``collect``): masked cross-entropy to the
    search's move, plus ``values_weight`` times the cross-entropy to the softmax of the
    search's move values at ``temperature`` (``soft_targets``; decisions with values
    only), plus ``value_weight`` times the value head's binary cross-entropy to the
    result. Returns the last epoch's losses and, on ``holdout``, the agreement with the
    labels (all, and where the label is not the heuristic's move)."""
    import torch
    import torch.nn.functional as F

    obs = torch.as_tensor(network_inputs(data, net.advised, data["mask"].shape[1]),
                          dtype=torch.float32)
    mask = torch.as_tensor(data["mask"]).bool()
    label = torch.as_tensor(data["label"].astype(np.int64))
    value = torch.as_tensor(data["value"], dtype=torch.float32)
    soft = torch.as_tensor(soft_targets(data["q"], data["mask"], temperature))
    has_soft = soft.sum(dim=1) > 0
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    n = len(label)
    stats = {"decisions": int(n)}
    net.train()
    for _ in range(epochs):
        tot_p = tot_v = 0.0
        batches = 0
        for idx in np.array_split(rng.permutation(n), max(1, n // batch_size)):
            idx = torch.as_tensor(idx)
            logits, v = net(obs[idx])
            logits = logits.masked_fill(~mask[idx], -1e9)
            lp = F.cross_entropy(logits, label[idx])
            rows = has_soft[idx]
            if values_weight and bool(rows.any()):
                logp = F.log_softmax(logits[rows], dim=1)
                lp = lp + values_weight * -(soft[idx][rows] * logp).sum(dim=1).mean()
            lv = F.binary_cross_entropy_with_logits(v, value[idx])
            loss = lp + value_weight * lv
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_p += lp.item()
            tot_v += lv.item()
            batches += 1
        if bar is not None:
            bar.update(1)
        stats["policy_loss"] = round(tot_p / batches, 4)
        stats["value_loss"] = round(tot_v / batches, 4)
    net.eval()
    if holdout is not None and len(holdout["label"]):
        stats.update(agreement(net, holdout))
    return stats


def agreement(net, data: dict) -> dict:
    """How often the network's best legal move is the label: on every decision, and on
    those where the label departs from the heuristic's move."""
    import torch
    with torch.no_grad():
        logits, _ = net(torch.as_tensor(
            network_inputs(data, net.advised, data["mask"].shape[1]), dtype=torch.float32))
        logits = logits.masked_fill(~torch.as_tensor(data["mask"]).bool(), -1e9)
        best = logits.argmax(dim=1).numpy()
    hit = best == data["label"]
    depart = data["label"] != data["heuristic"]
    return {"agreement": round(float(hit.mean()), 4),
            "departures": round(float(depart.mean()), 4),
            "agreement_on_departures": round(float(hit[depart].mean()), 4)
            if depart.any() else None}


# --- measuring ---------------------------------------------------------------------------


def seat_rotated(agent, opponents, games: int, preset: str, num_players: int, seed: int,
                 **rules) -> dict:
    """``uno_env.evaluate`` with the agent in each seat for ``games // num_players``
    games on the same deals (games ``0 ..`` of ``seed``): win rate, its 95% Wilson
    interval, and the rate per seat."""
    from uno_env.evaluation.stats import wilson
    from uno_env.evaluation.win_rate import evaluate
    per_seat = games // num_players
    if per_seat < 1:
        raise ValueError(f"games must be at least the number of players ({num_players})")
    wins, by_seat = 0, []
    for seat in range(num_players):
        r = evaluate(agent, opponents, per_seat, preset, num_players, seed=seed, seat=seat,
                     **rules)
        wins += r["wins"]
        by_seat.append(r["win_rate"])
    n = per_seat * num_players
    low, high = wilson(wins, n)
    return {"games": n, "wins": wins, "win_rate": wins / n, "ci": (low, high),
            "by_seat": by_seat}


def evaluate_guided(network, budget: int, opponents="heuristic", num_games: int = 1000,
                    preset: str = "classic", num_players: int = 2, seed: int = 0,
                    seat: int | str = "random", batch: int = 128, bar=None,
                    **rules) -> dict:
    """The network and the search together, as ``uno_env.evaluate`` plays an agent (the
    same games, seats and search streams for the same ``seed``): at a decision with two
    or more legal moves ``mcts:<budget>`` searches; where it leaves the heuristic's move
    (another move beat it on the same deals by more than the search's threshold) its
    move is played, else the network's. The search's default stays its rollout
    policy's move (a network default needs the engine hook of the module docstring),
    so this composes the two instead. Returns ``evaluate``'s dict plus ``overrides``,
    the share of choices where the search's move replaced the network's."""
    from .baselines import HeuristicAgent
    from uno_env.envs.single_seat import LearnerBatch
    from uno_env.evaluation.stats import wilson

    wins = truncated = choices = overrides = 0
    heuristic = None
    for lo in range(0, num_games, batch):
        size = min(batch, num_games - lo)
        lb = LearnerBatch(size, preset, num_players, opponents, seat, seed,
                          auto_reset=False, threads=1, **rules)
        obs, mask = lb.reset(first_game=lo)
        heuristic = heuristic or HeuristicAgent(lb.config)
        search = _SearchLabeller(lb, budget, seed, lo)
        actions = np.zeros(size, np.int64)
        while not (done := lb.done).all():
            live = np.flatnonzero(~done)
            m = mask[live]
            actions[live] = network.act_batch(obs[live], m)
            choice = live[(m != 0).sum(axis=1) >= 2]
            if len(choice):
                found = search(choice)
                depart = found != heuristic.act_batch(obs[choice], mask[choice])
                use = depart & (found != actions[choice])
                actions[choice[use]] = found[use]
                choices += len(choice)
                overrides += int(use.sum())
            obs, mask, *_ = lb.step(actions)
        winner = lb.winner
        wins += int((winner == lb.learner_seat).sum())
        truncated += int((winner < 0).sum())
        if bar is not None:
            bar.update(size)
    low, high = wilson(wins, num_games)
    return {"games": int(num_games), "wins": wins, "truncated": truncated,
            "win_rate": wins / num_games, "ci": (low, high),
            "overrides": overrides / max(choices, 1)}


def plot_curve(eval_csv, path, title: str | None = None) -> Path:
    """The learning curve (``eval.csv``) as a figure: win rate with its 95% interval
    per iteration, one line per opponent."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(eval_csv)))
    fig, ax = plt.subplots(figsize=(6, 4))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opp]
        x = [float(r["decisions"]) / 1000 for r in rs]
        y = np.array([float(r["win_rate"]) for r in rs])
        lo = np.array([float(r["ci_low"]) for r in rs])
        hi = np.array([float(r["ci_high"]) for r in rs])
        ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=3,
                    label=f"network alone vs {opp}")
    players = int(rows[0]["players"]) if rows else 2
    ax.axhline(1 / players, color="grey", lw=0.8, ls=":", label="even")
    ax.set_xlabel("search-labelled decisions learned (thousands)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(title or "expert iteration")
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    from uno_env.provenance import png_metadata, provenance
    fig.savefig(p, dpi=110, metadata=png_metadata(provenance(figure=str(eval_csv))))
    plt.close(fig)
    return p


# --- the loop ----------------------------------------------------------------------------


def _opponent_lineups(opponents, pool):
    if isinstance(opponents, str):
        opponents = [opponents]
    return [[pool if x == "self" else x] for x in opponents]


def exit_train(out="runs/exit", progress: bool = True, **settings) -> ExitResult:
    """Run expert iteration (module docstring). ``settings`` are the fields of
    ``ExitSettings``; unknown ones go to the rules."""
    _require_torch()
    import torch

    from .train import SelfPlayPool
    from uno_env.engine.names import mcts_code
    from uno_env.envs.single_seat import parse_opponents
    from uno_env.rules.config import make_config

    names = set(ExitSettings.__dataclass_fields__)
    rules = {k: settings.pop(k) for k in list(settings) if k not in names}
    s = ExitSettings(**settings)
    s.rules.update(rules)
    s.opponents = tuple([s.opponents] if isinstance(s.opponents, str) else s.opponents)
    s.eval_opponents = tuple([s.eval_opponents] if isinstance(s.eval_opponents, str)
                             else s.eval_opponents)
    s.hidden = tuple(int(h) for h in s.hidden)
    s.data_from = tuple(str(p) for p in ([s.data_from] if isinstance(s.data_from, (str, Path))
                                         else s.data_from))
    for path in s.data_from:
        if not Path(path).is_file():
            raise ValueError(f"no data file {path!r} (data/iteration_<k>.npz of a run)")
    for key in ("games_per_iteration", "eval_games", "batch_size", "batch_games",
                "pool_size", "threads"):
        value = getattr(s, key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
    for key in ("warm_decisions", "epochs", "warm_epochs"):
        value = getattr(s, key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{key} must be a non-negative integer, got {value!r}")
    if s.iterations is None and s.minutes is None:
        raise ValueError("give iterations, minutes, or both")
    if s.iterations is not None and (not isinstance(s.iterations, (int, np.integer))
                                     or s.iterations < 1):
        raise ValueError(f"iterations must be a positive integer, got {s.iterations!r}")
    if not s.hidden or min(s.hidden) < 1:
        raise ValueError(f"hidden must be positive layer sizes, got {s.hidden!r}")
    if not 0.0 <= s.expert_share <= 1.0:
        raise ValueError(f"expert_share is a probability, got {s.expert_share!r}")
    if not s.temperature > 0:
        raise ValueError(f"temperature must be positive, got {s.temperature!r}")
    mcts_code(int(s.budget))                           # a clear error for a bad budget
    config = make_config(s.preset, s.num_players, **s.rules)
    if s.eval_games < config.num_players:
        raise ValueError(f"eval_games must be at least {config.num_players} (seat-rotated)")
    pool = SelfPlayPool(s.pool_size, s.seed)
    lineups = _opponent_lineups(s.opponents, pool)
    parse_opponents(lineups, config.num_players)       # fail now, not after an hour
    for opp in s.eval_opponents:
        parse_opponents(opp, config.num_players)

    torch.set_num_threads(int(s.threads))
    out = Path(out)
    for sub in ("checkpoints", "data"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for stale in ("eval.csv", "iterations.csv"):
        (out / stale).unlink(missing_ok=True)
    start = time.perf_counter()
    deadline = None if s.minutes is None else start + 60 * s.minutes
    net = make_network(config, s.hidden, s.seed, s.advice)
    teacher = f"mcts:{s.budget}"
    evaluations: list[dict] = []
    best = {"win_rate": -1.0}

    def tqdm_bar(**kw):
        from tqdm.auto import tqdm
        return tqdm(disable=not progress, mininterval=1.0, **kw)

    def write_rows(path, rows):
        new = not path.exists()
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            if new:
                w.writeheader()
            w.writerows(rows)

    def measure(k: int, decisions: int, agent) -> list[dict]:
        rows = []
        for opp in s.eval_opponents:
            r = seat_rotated(agent, opp, s.eval_games, s.preset, s.num_players,
                             s.seed + 1_000_003, **s.rules)
            rows.append({"iteration": k, "decisions": decisions, "opponent": opp,
                         "players": s.num_players, "games": r["games"],
                         "win_rate": round(r["win_rate"], 5),
                         "ci_low": round(r["ci"][0], 5), "ci_high": round(r["ci"][1], 5),
                         "minutes": round((time.perf_counter() - start) / 60, 2)})
        write_rows(out / "eval.csv", rows)
        evaluations.extend(rows)
        return rows

    # 0. warm start on the heuristic's decisions (no search)
    warm = None
    if s.warm_decisions:
        t0 = time.perf_counter()
        games = max(1, -(-s.warm_decisions // 12))     # 2p classic: about 15 choices a game
        with tqdm_bar(total=games, desc="warm start: heuristic games", unit="game") as bar:
            data = collect(config, games, s.seed + 3_000_017, "heuristic", None,
                           batch_games=max(s.batch_games, 512), bar=bar)
        data = {k: v[:s.warm_decisions] if k not in ("games_won", "games_expert") else v
                for k, v in data.items()}
        with tqdm_bar(total=s.warm_epochs, desc="warm start: fit", unit="epoch") as bar:
            warm = fit(net, data, s.warm_epochs, s.learning_rate, s.batch_size, s.seed,
                       s.value_weight, bar=bar)
        warm["seconds"] = round(time.perf_counter() - t0, 1)
        del data
    datasets, holdouts = [], []

    def add_data(data):
        held = (data["game"] % 10) == 0       # a tenth of the games, to measure on
        take = {key: v for key, v in data.items()
                if key not in ("games_won", "games_expert")}
        datasets.append({key: v[~held] for key, v in take.items()})
        holdouts.append({key: v[held] for key, v in take.items()})

    for path in s.data_from:
        data = load_data(path)
        if data["obs"].shape[1:] != (config.layout.obs_size,) or \
                data["mask"].shape[1:] != (config.layout.size,):
            raise ValueError(f"{path}: its decisions are not of {s.preset} with "
                             f"{s.num_players} players")
        add_data(data)
    k, decisions = 0, sum(len(d["label"]) for d in datasets + holdouts)
    reused = None
    if datasets:                              # the earlier runs' decisions, first
        with tqdm_bar(total=s.epochs, desc="earlier data: fit", unit="epoch") as bar:
            reused = fit(net, merge(datasets), s.epochs, s.learning_rate, s.batch_size,
                         s.seed, s.value_weight, holdout=merge(holdouts), bar=bar,
                         temperature=s.temperature, values_weight=s.values_weight)
    agent = export(net, config, iteration=0, decisions=decisions, teacher=teacher,
                   seed=s.seed)
    save_network(agent, out / "checkpoints" / "exit_0.npz")
    measure(0, decisions, agent)
    pool.add(agent)
    while True:
        if s.iterations is not None and k >= s.iterations:
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
        k += 1
        t0 = time.perf_counter()
        share = 1.0 if k == 1 and not s.data_from else s.expert_share
        pool.pick()
        with tqdm_bar(total=s.games_per_iteration, unit="game",
                      desc=f"iteration {k}: {teacher} labels") as bar:
            data = collect(config, s.games_per_iteration, s.seed + 10_007 * k, lineups,
                           s.budget, network=agent, expert_share=share,
                           batch_games=s.batch_games, bar=bar)
        collect_s = time.perf_counter() - t0
        save_data(out / "data" / f"iteration_{k}.npz", data)
        add_data(data)
        train_data, holdout = merge(datasets), merge(holdouts)
        decisions = len(train_data["label"]) + len(holdout["label"])
        t1 = time.perf_counter()
        with tqdm_bar(total=s.epochs, desc=f"iteration {k}: fit", unit="epoch") as bar:
            stats = fit(net, train_data, s.epochs, s.learning_rate, s.batch_size,
                        s.seed + k, s.value_weight, holdout=holdout, bar=bar,
                        temperature=s.temperature, values_weight=s.values_weight)
        fit_s = time.perf_counter() - t1
        agent = export(net, config, iteration=k, decisions=decisions, teacher=teacher,
                       seed=s.seed)
        save_network(agent, out / "checkpoints" / f"exit_{k}.npz")
        pool.add(agent)
        rows = measure(k, decisions, agent)
        won, expert = data["games_won"], data["games_expert"]
        info = {"iteration": k, "games": s.games_per_iteration,
                "new_decisions": int(len(data["label"])), "decisions": decisions,
                "expert_share": share,
                "search_result": round(float(won[expert].mean()), 4) if expert.any()
                else None,
                "network_result": round(float(won[~expert].mean()), 4)
                if (~expert).any() else None,
                **{key: stats.get(key) for key in ("policy_loss", "value_loss",
                                                   "agreement", "departures",
                                                   "agreement_on_departures")},
                "collect_s": round(collect_s, 1), "fit_s": round(fit_s, 1),
                "minutes": round((time.perf_counter() - start) / 60, 2)}
        write_rows(out / "iterations.csv", [info])
        first = rows[0]
        if first["win_rate"] > best["win_rate"]:
            best = {"iteration": k, "win_rate": first["win_rate"]}
            save_network(agent, out / "best.npz")
        if progress:
            print(f"iteration {k}: {decisions:,} decisions, agreement "
                  f"{stats.get('agreement')}, on departures "
                  f"{stats.get('agreement_on_departures')}; network vs "
                  f"{first['opponent']} {first['win_rate']:.3f} "
                  f"[{first['ci_low']:.3f}, {first['ci_high']:.3f}]", flush=True)
    save_network(agent, out / "policy.npz")
    if best.get("iteration") is None:
        save_network(agent, out / "best.npz")
    plot_curve(out / "eval.csv", out / "curve.png",
               f"expert iteration, {s.preset}, {s.num_players} players, {teacher} labels")
    seconds = time.perf_counter() - start
    summary = {"settings": {key: (list(v) if isinstance(v, tuple) else v)
                            for key, v in asdict(s).items()},
               "iterations": k, "decisions": decisions, "seconds": round(seconds, 1),
               "warm_start": warm, "earlier_data": reused, "best": best, "evaluations": evaluations}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return ExitResult(out, decisions, seconds, evaluations, iterations=k,
                      decisions=decisions)
