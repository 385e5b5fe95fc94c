"""Self-play PPO for 4-player UNO: one policy decides for every seat.

Needs torch (the CPU build; beside ``pip install -e .``, nothing else)::

    pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu

Trains on ``uno_env.EverySeatBatch`` (every game of the batch stepped by one numba call;
each step returns the observation and mask of the seat that decides next in each game)
and judges the policy against the agents ``--against`` names (default ``greedy``; any
name uno_env resolves, several with commas): for each agent X, the greedy policy in one
seat against X in the three others, beside X itself in that seat of the same games, and
the paired difference of the two win rates with its 95% interval (``Judge``). The
learning curve plays the first ``--eval-games`` deals of the final verdict's, so a rise
of the curve is the verdict's measure at a smaller game count, never a different one.

    python examples/selfplay_ppo.py                 # 8M decisions: 8 minutes on a quiet machine
    python examples/selfplay_ppo.py --minutes 10 --against greedy,heuristic --save mine.npz

**What 10 minutes give: no policy that beats greedy.** Measured on this project's 2-core
machine, seed 1, the defaults, ``--minutes 10 --against greedy,heuristic`` under ``nice
-n 5`` while other jobs loaded it (load average 12 to 15, 2026-12-07): 1.29M learner
decisions (2,150 a second; 132 s of CPU in 12.4 min of wall time, evaluations
included). The policy still made greedy's move in every game of the curve and of the
verdict: +0.0000 [+0.0000, +0.0000] against greedy on 20,000 games, and -0.0194
[-0.0267, -0.0122] against the heuristic (0.2300 against its 0.2495). On a quieter
machine 10 minutes reach about 5M decisions (issue 67's run: 5.1M in 9 min 55 s, -0.0003
[-0.0044, +0.0037] against greedy). The default budget, 8M decisions (7.8 min of
training at a load average of about 2, 2026-12-06), ends at +0.0053 [+0.0004, +0.0103]
against greedy: a half-point edge, the smallest the verdict can show. Plan for 8M
decisions or more, and read the verdict.

**Who plays.** Each new game in a slot is either a self-play game (the current policy in
every seat: all four seats' decisions are training samples) or, with probability
``--pool-games``, a game of one learner seat (drawn at random) against three copies of
one past self, drawn from a pool of the last ``--pool-size`` snapshots (one every
``--snapshot-every`` updates). Only the learner's decisions are trained on; the pool
keeps the policy from forgetting how to beat what it played before.

**Masks.** The logits of illegal actions are set to a large negative number before the
categorical distribution is formed, in the rollout, in the update (the masks are stored
with the observations) and in the evaluation, so no illegal move is ever sampled.

**Credit assignment** (``SeatChains``; docs/environments.md, "Self-play with
``EverySeatBatch``"). The decisions of one slot belong to different seats, interleaved.
Each learner decision is linked to the same seat's next decision in the same game, not
to the next row; when a game ends, each seat's final reward (classic: +1 to the winner,
-1/3 to the others) goes to that seat's last decision of the game, which is terminal.
A game cut at the rules' turn limit (truncated) is bootstrapped from each seat's final
observation (``EverySeatBatch(final_obs=True)``); a game still running at the end of a
rollout is bootstrapped from each seat's current observation (``EverySeatBatch.observe``).
GAE then runs along these links.

``--metrics PATH`` writes one JSON line per evaluation
(the learning curve of docs/examples.md). ``--save PATH`` writes the trained actor as a
``.npz`` policy (``agents.PPOAgent``, which plays it with numpy alone: ``uno-bench
benchmark --agent PATH`` gives it a report card).
"""
from __future__ import annotations

import argparse
import copy
import json
import pathlib
import sys
import time

import numpy as np

#: the command that installs what this example needs beyond uno-env itself
INSTALL = "pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu"
try:
    import torch
    import torch.nn as nn
    from torch.distributions.categorical import Categorical
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(f"this example needs {err.name}: {INSTALL}",
                              name=err.name) from None

import uno_env
from uno_env.engine.obs_layout import observation_slices
from uno_env.envs.every_seat import EverySeatBatch
from uno_env.integrations.scaling import config_scale
from uno_env.integrations.threads import set_threads

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# the network (masked actor, critic), its masking and PPO's options: those of the
# CleanRL example beside this file
from cleanrl_ppo_masked import (MASKED_LOGIT, Agent, add_ppo_options,  # noqa: E402
                                layer_init)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1, help="seed of the games and of torch")
    p.add_argument("--total-timesteps", type=int, default=8_000_000,
                   help="learner decisions to train on (the budget: the same run "
                        "whatever the machine's speed)")
    p.add_argument("--minutes", type=float, default=None,
                   help="stop after this many minutes of training instead, if sooner "
                        "(evaluations excluded; the run then depends on the machine)")
    p.add_argument("--preset", default="classic")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--num-envs", type=int, default=256, help="games played in parallel")
    p.add_argument("--num-steps", type=int, default=64,
                   help="steps per game slot in one rollout")
    add_ppo_options(p, learning_rate=3e-4, gamma=0.995, update_epochs=2, hidden=128)
    p.add_argument("--critic-sees-hands", action=argparse.BooleanOptionalAction,
                   default=True, help="the critic also reads the other seats' hands "
                                      "(SelfPlayAgent; the actor never does)")
    p.add_argument("--advice", default="greedy",
                   help="an agent (greedy, heuristic) whose move the actor reads as one "
                        "more input per action, added to its logit (a residual policy "
                        "over that agent; AdvisedActor), or 'none' (plain self-play "
                        "from random moves)")
    p.add_argument("--advice-weight", type=float, default=5.0,
                   help="the advised move's logit bonus at the start")
    p.add_argument("--pool-size", type=int, default=8, help="past selves kept")
    p.add_argument("--snapshot-every", type=int, default=10,
                   help="updates between two snapshots into the pool")
    p.add_argument("--pool-games", type=float, default=0.25,
                   help="share of new games played against a past self")
    p.add_argument("--against", default="greedy",
                   help="the agents the policy is judged against, comma-separated (any "
                        "name uno_env resolves: greedy, heuristic, mcts:50, a shipped "
                        "model's name, a .npz file): for each, the policy in one seat "
                        "against it in every other, beside that agent itself in the same "
                        "seat of the same games")
    p.add_argument("--eval-every", type=int, default=1_000_000,
                   help="evaluate every N learner decisions (and before and at the end)")
    p.add_argument("--eval-games", type=int, default=2000,
                   help="games of each evaluation: the first N deals of the verdict's")
    p.add_argument("--final-games", type=int, default=20_000,
                   help="games of the final verdict (0: none): the policy and each "
                        "--against agent in the same seat of the same games, compared "
                        "game by game")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--metrics", default=None, help="write evaluations as JSON lines here")
    p.add_argument("--save", default=None,
                   help="write the trained policy here as a .npz (agents.PPOAgent's "
                        "format: uno-bench benchmark --agent PATH reads it)")
    args = p.parse_args(argv)
    args.against = [a.strip() for a in args.against.split(",") if a.strip()]
    if not args.against:
        p.error("--against names at least one agent (e.g. greedy or greedy,heuristic)")
    if args.eval_games < 2 or args.final_games < 0:
        p.error(f"--eval-games must be at least 2 and --final-games at least 0; got "
                f"{args.eval_games} and {args.final_games}")
    if args.advice in ("", "none"):
        args.advice = None
    if not 0.0 <= args.pool_games <= 1.0:
        p.error(f"--pool-games is a share of games, 0 to 1; got {args.pool_games}")
    if args.total_timesteps < 1 or (args.minutes is not None and args.minutes <= 0):
        p.error(f"the budget must be positive: --total-timesteps "
                f"{args.total_timesteps}, --minutes {args.minutes}")
    return args


class AdvisedActor(nn.Module):
    """The actor of a residual policy: its input ends with a one-hot of the adviser's
    move (``advice_width`` entries), which the last layer reads once more, past the
    hidden layers, with ``weight`` on the advised move's own logit at the start. It
    first plays the adviser's moves; training learns where to depart from them. The
    layout of ``agents.PPOAgent`` with ``meta["advice"]``, so it exports as is."""

    def __init__(self, in_size: int, advice_width: int, hidden: int, weight: float):
        super().__init__()
        self.advice_width = advice_width
        self.hidden = nn.Sequential(layer_init(nn.Linear(in_size, hidden)), nn.Tanh(),
                                    layer_init(nn.Linear(hidden, hidden)), nn.Tanh())
        self.out = layer_init(nn.Linear(hidden + advice_width, advice_width), std=0.01)
        with torch.no_grad():
            self.out.weight[:, hidden:] = weight * torch.eye(advice_width)

    def forward(self, x):
        return self.out(torch.cat([self.hidden(x), x[:, -self.advice_width:]], 1))

    def layers(self) -> list[nn.Module]:
        """The modules in order, for ``PPOAgent.from_torch``."""
        return [*self.hidden, self.out]


class SelfPlayAgent(Agent):
    """The CleanRL example's masked actor, with a critic that also reads the other
    seats' hands when ``sees_hands`` (an asymmetric actor-critic: the critic only
    trains, the actor that plays reads its own observation alone). Knowing the hands,
    the critic predicts the game's outcome far better, so the advantages it gives the
    actor carry less of the deal's luck."""

    def __init__(self, obs_size, num_actions, scale, hidden, num_players, num_types,
                 sees_hands: bool = True, advisor=None, advice_weight: float = 5.0):
        if advisor is not None:       # the observation ends with the advice's one-hot
            obs_size += num_actions
            scale = np.concatenate([scale, np.ones(num_actions, np.float32)])
        super().__init__(obs_size, num_actions, scale, hidden)
        #: the agent whose move is an input (``with_advice``), or None
        self.advisor = advisor
        if advisor is not None:
            self.actor = AdvisedActor(obs_size, num_actions, hidden, advice_weight)
        self.others_size = (num_players - 1) * num_types if sees_hands else 0
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size + self.others_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0))

    def value(self, x, others):
        """float[n]: the value of observations ``x`` with the other seats' hands
        ``others`` (``other_hands``; ignored unless the critic sees hands)."""
        return self.critic(torch.cat([x * self.scale,
                                      others[:, :self.others_size] * 0.25], 1)).view(-1)

    def with_advice(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """The actor's input for observations ``obs`` (float32[n, D]) and masks: the
        observations, then the adviser's move as a one-hot (zeros where ``mask`` has
        no legal move, as in a finished game's view); the observations alone without
        an adviser."""
        x = torch.as_tensor(obs)
        if self.advisor is None:
            return x
        onehot = torch.zeros((len(obs), mask.shape[1]))
        playing = np.flatnonzero(mask.any(axis=1))
        if len(playing):
            onehot[playing, self.advisor.act_batch(obs[playing], mask[playing])] = 1.0
        return torch.cat([x, onehot], 1)

    def act_batch(self, observations, masks) -> np.ndarray:
        """The greedy legal action per row (``uno_env.evaluate`` plays it)."""
        masks = np.asarray(masks)
        return super().act_batch(self.with_advice(np.asarray(observations, np.float32),
                                                  masks).numpy(), masks)

    def export(self, config, path, **meta):
        """Write the actor as an ``agents.PPOAgent`` model file (with its adviser)."""
        from uno_agents import PPOAgent
        modules = self.actor if self.advisor is None else self.actor.layers()
        if self.advisor is not None:
            meta = {"advice": self.advisor.name, **meta}
        return PPOAgent.from_torch(modules, self.scale, config, **meta).save(path)

    def get_action_and_value(self, x, mask, action=None, others=None):
        probs = Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = probs.sample()
        value = None if others is None else self.value(x, others)
        return action, probs.log_prob(action), probs.entropy(), value


def other_hands(hands: np.ndarray, seats: np.ndarray) -> torch.Tensor:
    """float32[n, (P-1) * K]: the hands (``hands``: counts[n, P, K] by absolute seat)
    of the seats after ``seats[i]``, in turn order from it."""
    P = hands.shape[1]
    order = (np.asarray(seats)[:, None] + np.arange(1, P)) % P
    picked = hands[np.arange(len(hands))[:, None], order]
    return torch.as_tensor(picked.reshape(len(hands), -1).astype(np.float32))


class SeatChains:
    """Credit assignment for self-play on ``EverySeatBatch``: the decisions of a window
    of ``num_steps`` x ``num_envs`` steps, indexed flat (``t * num_envs + b``).

    ``decide(t, rows, seats)`` records the learner decisions of step ``t`` and links
    each to the same seat's previous decision in the same game (``next``); ``finish(rows,
    rewards)`` credits each seat's final reward of the games that ended in slots ``rows``
    to that seat's last decision and marks it terminal (``done``); ``cut(rows, seats,
    values)`` ends the chains of a game cut at the turn limit with a bootstrap value.
    A chain still open (``pending``) is valued only for one ``advantages`` call, and
    goes on after ``shift``, which drops the oldest steps to make room for new ones."""

    def __init__(self, num_steps: int, num_envs: int, num_players: int):
        self.num_envs = num_envs
        n = num_steps * num_envs
        self.next = np.full(n, -1, np.int64)      # the seat's next decision, -1: none
        self.reward = np.zeros(n, np.float32)
        self.done = np.zeros(n, np.bool_)
        self.bootstrap = np.zeros(n, np.float32)
        self.is_cut = np.zeros(n, np.bool_)
        self.recorded = np.zeros(n, np.bool_)
        #: flat index of each (slot, seat)'s latest decision in its current game, -1: none
        self.latest = np.full((num_envs, num_players), -1, np.int64)

    def decide(self, t: int, rows: np.ndarray, seats: np.ndarray) -> None:
        here = t * self.num_envs + rows
        previous = self.latest[rows, seats]
        linked = previous >= 0
        self.next[previous[linked]] = here[linked]
        self.latest[rows, seats] = here
        self.recorded[here] = True

    def finish(self, rows: np.ndarray, rewards: np.ndarray) -> None:
        """Games in slots ``rows`` ended (won) with ``rewards[rows]`` (by absolute seat)."""
        for seat in range(self.latest.shape[1]):
            last = self.latest[rows, seat]
            played = last >= 0                      # the seat decided in this window
            self.reward[last[played]] = rewards[rows[played], seat]
            self.done[last[played]] = True
        self.latest[rows] = -1

    def cut(self, rows: np.ndarray, seats: np.ndarray, values: np.ndarray) -> None:
        """The chains of (``rows[i]``, ``seats[i]``) end here, valued ``values[i]``."""
        last = self.latest[rows, seats]
        played = last >= 0
        self.bootstrap[last[played]] = values[played]
        self.is_cut[last[played]] = True
        self.latest[rows[played], seats[played]] = -1

    def pending(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, seats) whose chain is still open."""
        return np.nonzero(self.latest >= 0)

    def advantages(self, values: np.ndarray, gamma: float, lam: float,
                   open_values: np.ndarray | None = None):
        """GAE along the chains: ``(advantages, returns)``, float32[n] (0 where nothing
        was recorded). ``values``: float32[n], the critic's value of each decision;
        ``open_values``: the value of each open chain's end, in the order of
        ``pending()`` (0 if None)."""
        bootstrap, ends = self.bootstrap.copy(), self.is_cut.copy()
        if open_values is not None:
            last = self.latest[self.pending()]
            bootstrap[last], ends[last] = open_values, True
        linked = self.next >= 0
        follow = np.where(linked, self.next, 0)
        adv = np.zeros_like(values)
        n, width = len(values), self.num_envs
        for start in range(n - width, -1, -width):     # a decision's next comes later
            i = slice(start, start + width)
            next_value = np.where(linked[i], values[follow[i]],
                                  np.where(ends[i], bootstrap[i], 0.0))
            delta = self.reward[i] + gamma * next_value - values[i]
            adv[i] = delta + gamma * lam * np.where(linked[i], adv[follow[i]], 0.0)
        adv[~self.recorded] = 0.0
        return adv, adv + values

    def shift(self, steps: int) -> None:
        """Drop the oldest ``steps`` steps; the rest move up by as many (a link always
        points later, so no kept decision loses its link), and the freed steps at the
        end are empty."""
        k = steps * self.num_envs
        for name, empty in (("next", -1), ("reward", 0), ("done", False),
                            ("bootstrap", 0), ("is_cut", False), ("recorded", False)):
            array = getattr(self, name)
            array[:-k] = array[k:].copy()
            array[-k:] = empty
        self.next[self.next >= 0] -= k
        self.latest[self.latest >= 0] -= k
        self.latest[self.latest < 0] = -1           # a seat silent for the whole window


class Pool:
    """The last ``size`` snapshots of the actor (frozen copies), one drawn per pool game."""

    def __init__(self, size: int):
        self.size = size
        self.actors: list[nn.Module] = []

    def add(self, actor: nn.Module) -> None:
        frozen = copy.deepcopy(actor).requires_grad_(False)
        self.actors = (self.actors + [frozen])[-self.size:]


def sample_masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    logits = torch.where(mask, logits, torch.full((), MASKED_LOGIT, dtype=torch.float32))
    return Categorical(logits=logits).sample()


class Judge:
    """The paired comparison behind the curve and the verdict. For each ``--against``
    agent X: the policy in one seat (drawn per game) against X in every other seat, and X
    itself in that seat of the same games (``uno_env.evaluate(per_game=True)``), compared
    game by game (``uno_env.evaluation.stats.paired_difference``: where both play alike
    the games end alike, so a small edge is measured). Every evaluation of the curve
    plays the first ``--eval-games`` deals of the verdict's seed, so the curve and the
    verdict measure the same thing; X's own games are played once, at the start."""

    def __init__(self, args, config):
        from uno_env.engine.names import agent_code
        from uno_env.players.registry import make_agent
        self.args, self.seed = args, 20_000 + args.seed
        self.games = max(args.eval_games, args.final_games)
        self.opponents, self.reference = {}, {}
        for name in args.against:
            try:                # a numba agent plays inside the kernel, others from Python
                numba_name = agent_code(name) is not None
                itself = make_agent(name, config)
            except ValueError as err:
                raise SystemExit(f"--against {name}: {err}") from None
            self.opponents[name] = name if numba_name else itself
            self.reference[name] = self._play(itself, name, self.games)["won"]

    def _play(self, agent, name: str, games: int) -> dict:
        return uno_env.evaluate(agent, opponents=self.opponents[name], num_games=games,
                                preset=self.args.preset, num_players=self.args.num_players,
                                seed=self.seed, batch=min(games, 512), per_game=True)

    def compare(self, agent, games: int) -> dict:
        """{name: row}: the policy's win rate (95% Wilson interval), the agent's own in
        that seat, and the paired difference with its 95% interval, on the first
        ``games`` deals."""
        from uno_env.evaluation.stats import paired_difference
        rows = {}
        for name in self.opponents:
            mine = self._play(agent, name, games)
            theirs = self.reference[name][:games]
            paired = paired_difference(mine["won"], theirs)
            rows[name] = {"games": games, "win_rate": mine["win_rate"],
                          "ci": list(mine["ci"]), "reference_win_rate": float(theirs.mean()),
                          "difference": paired["difference"], "difference_ci":
                          list(paired["ci"])}
        return rows


def describe(name: str, r: dict) -> str:
    low, high = r["difference_ci"]
    return (f"vs {name}: win rate {r['win_rate']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}], "
            f"minus {name}'s own {r['reference_win_rate']:.3f} in that seat "
            f"{r['difference']:+.4f} [{low:+.4f}, {high:+.4f}]")


def evaluate(agent: Agent, judge: Judge, update: int, steps: int, minutes: float) -> dict:
    """A point of the learning curve: ``Judge.compare`` on the first ``--eval-games``
    deals of the verdict's (the same deals at every evaluation). The row's ``win_rate``,
    ``ci``, ``difference`` and ``difference_ci`` are those against the first
    ``--against`` agent; ``against`` holds every agent's."""
    args = judge.args
    rows = judge.compare(agent, args.eval_games)
    first = rows[args.against[0]]
    row = {"update": update, "learner_steps": steps, "minutes": round(minutes, 2),
           "win_rate": first["win_rate"], "ci": first["ci"],
           "difference": first["difference"], "difference_ci": first["difference_ci"],
           "chance": 1.0 / args.num_players, "against": rows}
    print(f"update {update:4d}  {steps:9,d} learner decisions  {minutes:5.1f} min  "
          + "; ".join(describe(name, r) for name, r in rows.items())
          + f"  ({args.eval_games:,} games, chance {row['chance']:.2f})", flush=True)
    return row


def verdict(agent: Agent, judge: Judge) -> list[dict]:
    """``Judge.compare`` on all ``--final-games`` deals, one row per ``--against`` agent
    (the curve's deals are the first of them)."""
    rows = []
    for name, r in judge.compare(agent, judge.args.final_games).items():
        beats = "beats" if r["difference_ci"][0] > 0 else "does NOT beat"
        low, high = r["difference_ci"]
        print(f"verdict on {r['games']:,} games: {r['win_rate']:.4f} against {name}'s "
              f"{r['reference_win_rate']:.4f} in the same seat of the same games: {beats} "
              f"{name}, {r['difference']:+.4f} [{low:+.4f}, {high:+.4f}]", flush=True)
        rows.append({"against": name, "games": r["games"], "win_rate": r["win_rate"],
                     "reference_win_rate": r["reference_win_rate"],
                     "difference": r["difference"], "ci": [low, high]})
    return rows


def budget_used(args, steps: int, minutes: float) -> float:
    """The share of the budget used: of ``--total-timesteps``, or of ``--minutes`` if
    that runs out first."""
    used = steps / args.total_timesteps
    if args.minutes is not None:
        used = max(used, minutes / args.minutes)
    return used


def ppo_update(agent, optimizer, chains, venv, obs_buf, others_buf, mask_buf, action_buf,
               logprob_buf, trained, rng, args) -> None:
    """PPO's clipped update on the decisions ``trained`` (flat indices of the window),
    with GAE along each seat's own decisions (``SeatChains``), valued by the critic as
    it is now; chains still open are valued at their seat's current observation."""
    recorded = np.flatnonzero(chains.recorded)
    values = np.zeros(len(chains.recorded), np.float32)
    rows, seats = chains.pending()
    with torch.no_grad():
        values[recorded] = agent.value(obs_buf[recorded], others_buf[recorded]).numpy()
        views = venv.observe(rows, seats)           # not deciding: no advice
        now = agent.value(agent.with_advice(views, np.zeros((len(rows), mask_buf.shape[1]),
                                                            np.uint8)), other_hands(
            venv.engine_state.hands[rows], seats)).numpy()
    advantages, returns = chains.advantages(values, args.gamma, args.gae_lambda, now)
    b_adv, b_ret, b_val = (torch.as_tensor(x) for x in (advantages, returns, values))
    idx = trained.copy()
    for _ in range(args.update_epochs):
        rng.shuffle(idx)
        for part in np.array_split(idx, args.num_minibatches):    # equal sizes
            mb = torch.as_tensor(part)
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                obs_buf[mb], mask_buf[mb], action_buf[mb], others_buf[mb])
            ratio = (newlogprob - logprob_buf[mb]).exp()
            mb_adv = b_adv[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_clipped = b_val[mb] + torch.clamp(newvalue - b_val[mb],
                                                -args.clip_coef, args.clip_coef)
            v_loss = 0.5 * torch.max((newvalue - b_ret[mb]) ** 2,
                                     (v_clipped - b_ret[mb]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()


def train(args) -> list[dict]:
    """Run self-play PPO; returns the evaluations (printed, and written to
    ``--metrics``)."""
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    set_threads(args.threads)
    B, T = args.num_envs, args.num_steps
    venv = EverySeatBatch(B, preset=args.preset, num_players=args.num_players,
                          seed=args.seed, final_obs=True)
    P, D = venv.num_players, venv.layout.obs_size
    A = venv.layout.size
    K = venv.config.deck.num_types
    hand = observation_slices(K, P)["hand"]           # a seat's own hand in its view
    advisor = None
    if args.advice:
        from uno_env.players.registry import make_agent
        advisor = make_agent(args.advice, venv.config)
    agent = SelfPlayAgent(D, A, config_scale(venv.config), args.hidden, P, K,
                          sees_hands=args.critic_sees_hands, advisor=advisor,
                          advice_weight=args.advice_weight)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = Pool(args.pool_size)
    pool.add(agent.actor)

    # a window of two rollouts: the older half is trained on, once the newer half has
    # carried its seats' chains on to their next decisions (GAE needs a seat's next
    # decision, which comes a few steps later, often past the end of a rollout)
    n = T * B
    obs_buf = torch.zeros((2 * n, agent.scale.shape[0]))   # the actor's inputs
    others_buf = torch.zeros((2 * n, (P - 1) * K))     # for the critic (SelfPlayAgent)
    mask_buf = torch.zeros((2 * n, A), dtype=torch.bool)
    action_buf = torch.zeros(2 * n, dtype=torch.long)
    logprob_buf = torch.zeros(2 * n)
    chains = SeatChains(2 * T, B, P)

    learner = np.ones((B, P), np.bool_)         # which seats of each slot's game learn
    opponent = np.zeros(B, np.int64)            # the pool snapshot of a pool game

    def new_games(rows):
        versus_pool = rng.random(len(rows)) < args.pool_games
        learner[rows] = ~versus_pool[:, None]
        learner[rows[versus_pool], rng.integers(P, size=int(versus_pool.sum()))] = True
        opponent[rows] = rng.integers(len(pool.actors), size=len(rows))

    obs, mask, player = venv.reset()
    new_games(np.arange(B))
    steps = update = 0
    trained_seconds = 0.0
    next_eval = args.eval_every
    judge = Judge(args, venv.config)
    metrics = [evaluate(agent, judge, 0, 0, 0.0)]
    pool_games = pool_wins = 0                  # the learner seat in games of the pool
    while True:
        started = time.perf_counter()
        if args.anneal_lr:                      # by the share of the budget used
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(
                0.0, 1.0 - budget_used(args, steps, trained_seconds / 60))
        chains.shift(T)                         # the last rollout becomes the older half
        for buf in (obs_buf, others_buf, mask_buf, action_buf, logprob_buf):
            buf[:n] = buf[n:].clone()
        for t in range(T, 2 * T):
            mine = learner[np.arange(B), player]
            rows = np.flatnonzero(mine)
            x = agent.with_advice(obs, mask)
            m = torch.as_tensor(mask != 0)
            actions = np.zeros(B, np.int64)
            with torch.no_grad():
                a, logp, _, _ = agent.get_action_and_value(x[rows], m[rows])
                for k in np.unique(opponent[~mine]):      # the past selves' seats
                    theirs = np.flatnonzero(~mine & (opponent == k))
                    logits = pool.actors[k](x[theirs] * agent.scale)
                    actions[theirs] = sample_masked(logits, m[theirs]).numpy()
            actions[rows] = a.numpy()
            flat = t * B + rows
            obs_buf[flat], mask_buf[flat] = x[rows], m[rows]
            others_buf[flat] = other_hands(venv.engine_state.hands[rows], player[rows])
            action_buf[flat], logprob_buf[flat] = a, logp
            chains.decide(t, rows, player[rows])

            obs, mask, player, rewards, terminated, truncated = venv.step(actions)
            if truncated.any():   # cut at the turn limit: value each seat's last view
                ended = np.flatnonzero(truncated)
                views = venv.final_obs[ended]                # [e, P, D]
                seats = np.tile(np.arange(P), len(ended))
                with torch.no_grad():
                    final = agent.value(agent.with_advice(views.reshape(-1, D), np.zeros(
                        (len(seats), A), np.uint8)), other_hands(
                        np.repeat(views[:, :, hand], P, axis=0), seats)).numpy()
                chains.cut(np.repeat(ended, P), seats, final)
            won = np.flatnonzero(terminated)
            if len(won):
                chains.finish(won, rewards)
                versus = won[~learner[won].all(axis=1)]
                pool_games += len(versus)
                pool_wins += int((rewards[versus][learner[versus]] > 0).sum())
            ended = np.flatnonzero(terminated | truncated)
            if len(ended):
                new_games(ended)
        trained = np.flatnonzero(chains.recorded[:n])     # the older half
        if len(trained):
            ppo_update(agent, optimizer, chains, venv, obs_buf, others_buf, mask_buf,
                       action_buf, logprob_buf, trained, rng, args)
            update += 1
            steps += len(trained)
            if update % args.snapshot_every == 0:
                pool.add(agent.actor)
        trained_seconds += time.perf_counter() - started
        minutes = trained_seconds / 60
        out_of_budget = budget_used(args, steps, minutes) >= 1.0
        if update and (steps >= next_eval or out_of_budget):
            print(f"update {update:4d}  {int(steps / trained_seconds):,d} learner "
                  f"decisions/s  won {pool_wins / max(pool_games, 1):.3f} of "
                  f"{pool_games:,d} games against past selves (pool of "
                  f"{len(pool.actors)})", flush=True)
            pool_games = pool_wins = 0
            metrics.append(evaluate(agent, judge, update, steps, minutes))
            next_eval = (steps // args.eval_every + 1) * args.eval_every
        if out_of_budget:
            break
    if args.final_games:
        verdicts = verdict(agent, judge)
        metrics[-1]["verdict"], metrics[-1]["verdicts"] = verdicts[0], verdicts
    if args.save:
        path = agent.export(venv.config, args.save, name="selfplay_ppo",
                            trainer="examples/selfplay_ppo.py", seed=args.seed,
                            trained_steps=steps, pool_size=args.pool_size)
        print(f"wrote {path} (uno-bench benchmark --agent {path})", flush=True)
    if args.metrics:
        with open(args.metrics, "w") as f:
            for row in metrics:
                f.write(json.dumps(row) + "\n")
    return metrics


if __name__ == "__main__":
    train(parse_args())
