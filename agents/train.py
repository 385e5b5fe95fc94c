"""Train a ``PPOAgent`` with sb3-contrib's ``MaskablePPO`` on the numba training env
(``uno_env.integrations.sb3.UnoVecEnv``): ``train(...)`` here, ``uno-bench train`` on the command line.
Needs the ``rl`` extra (``pip install torch==2.13.0 --extra-index-url
https://download.pytorch.org/whl/cpu && pip install -e ".[rl]"``).

The output directory holds:

* ``policy.npz``: the trained policy (``agents.PPOAgent.load``), needing only numpy;
* ``model.zip``: the whole SB3 model, to continue training (``resume=``: the learning
  rate, entropy coefficient and discount come from the settings given, the network
  and the rollout sizes from the saved model);
* ``checkpoints/ppo_<steps>.npz``: policies saved along the way;
* ``progress.csv``: SB3's training statistics per update (losses, entropy, KL, fps);
* ``eval.csv``: win rate with its 95% interval against each evaluation opponent, over
  the same games at every evaluation (masks applied, greedy actions);
* ``summary.json``: settings, speed, the imitation warm start (if any) and the final
  evaluation.

``imitate="heuristic"`` (``--imitate``) warm-starts the network before PPO: the policy
copies the moves of that agent, playing the learner seat against copies of itself for
``imitate_steps`` decisions (its own games, ``seed + 2_000_003``), and the value head fits
those games' discounted returns (``imitation_data``, ``imitate``). PPO then improves on
a policy that already plays like the teacher instead of starting from random moves;
the imitation time is not part of ``max_minutes``. An evaluation at step 0 shows where
PPO starts.

``advice="heuristic"`` (``--advice``) trains a residual policy over that agent: the
network gets one more input per action, a one-hot of the move the agent would make in
the same position (``advised``, a wrapper of the training env;
``agents.ppo.advice_features``), and its action layer reads that one-hot directly, adding
``advice_weight`` to the advised move's logit from the start
(``uno_env.integrations.sb3.AdvisedPolicy``). PPO thus starts from a policy that follows the adviser
(and ``imitate`` of the same agent makes it follow it almost always), so a model that
beats the adviser has learned where to depart from it. The saved policy records the
adviser and computes its move when it plays.

``opponents`` are those of ``uno_env.envs.single_seat.LearnerBatch``; the name ``"self"`` stands
for a self-play pool: past snapshots of the policy being trained (one snapshot every
``snapshot_every`` steps, the last ``pool_size`` kept; each rollout plays against one of
them, drawn at random).

The training job defaults to ``num_players=2``, unlike the environments (4 everywhere):
two players is the setting of the shipped model ``ppo_classic_2p`` and of the README's
training figures, so ``train()`` and ``uno-bench train`` without ``--players`` reproduce
them.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .ppo import PPOAgent
from uno_env.players.training import TrainResult, evaluation_row

RL_EXTRA = ('the training job needs the "rl" extra: pip install torch==2.13.0 '
            '--extra-index-url https://download.pytorch.org/whl/cpu && pip install -e ".[rl]"')


def _require_rl():
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as err:
        raise ImportError(f"{RL_EXTRA} ({err})") from None


class SelfPlayPool:
    """Opponent made of past snapshots of the learner (``act_batch`` of one of them)."""

    name = "self"

    def __init__(self, pool_size: int = 5, seed: int = 0):
        self.pool_size = int(pool_size)
        self.snapshots: list[PPOAgent] = []
        self.current: PPOAgent | None = None
        self.rng = np.random.default_rng(seed)

    def add(self, agent: PPOAgent) -> None:
        self.snapshots = (self.snapshots + [agent])[-self.pool_size:]
        if self.current is None:
            self.current = agent

    def pick(self) -> None:
        if self.snapshots:
            self.current = self.snapshots[self.rng.integers(len(self.snapshots))]

    def act_batch(self, observations, action_masks):
        if self.current is None:
            raise RuntimeError("the self-play pool is empty")
        return self.current.act_batch(observations, action_masks)


def advised(venv, advisor):
    """``venv`` (an SB3 ``VecEnv`` with ``action_masks()``) whose observations end with
    ``advice_features`` of ``advisor`` (one entry per action; zeros in a finished game's
    ``terminal_observation``)."""
    import gymnasium
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from .ppo import advice_features

    base = venv.observation_space
    actions = venv.action_space.n
    space = gymnasium.spaces.Box(
        np.concatenate([base.low, np.zeros(actions, base.dtype)]),
        np.concatenate([base.high, np.ones(actions, base.dtype)]), dtype=base.dtype)

    class Advised(VecEnvWrapper):
        def __init__(self):
            super().__init__(venv, observation_space=space)

        def _advise(self, obs):
            return np.concatenate(
                [obs, advice_features(advisor, obs, self.venv.action_masks())], axis=1)

        def reset(self):
            return self._advise(self.venv.reset())

        def step_wait(self):
            obs, reward, done, infos = self.venv.step_wait()
            for info in infos:
                if "terminal_observation" in info:
                    last = info["terminal_observation"]
                    info["terminal_observation"] = np.concatenate(
                        [last, np.zeros(actions, last.dtype)])
            return self._advise(obs), reward, done, infos

        def action_masks(self):
            return self.venv.action_masks()

    return Advised()


#: the step budget of a run whose budget is its minutes (``timesteps=None``)
UNLIMITED_STEPS = 10**12


@dataclass
class TrainSettings:
    preset: str = "classic"
    num_players: int = 2
    #: environment steps; None with ``max_minutes``: the minutes are the budget
    timesteps: int | None = 1_000_000
    opponents: object = "heuristic"
    seed: int = 0
    num_envs: int = 128
    #: PPO's settings; None: the recommended one, ``uno_env.integrations.sb3.PPO_SETTINGS`` (and
    #: ``PPO_HIDDEN``), filled in by ``train`` (so summary.json has the values used)
    n_steps: int | None = None
    batch_size: int | None = None
    n_epochs: int | None = None
    learning_rate: float | None = None
    gamma: float | None = None
    ent_coef: float | None = None
    hidden: tuple | None = None
    eval_every: int = 100_000
    eval_games: int = 2_000
    eval_opponents: tuple = ("random", "heuristic")
    checkpoint_every: int = 250_000
    snapshot_every: int = 200_000
    pool_size: int = 5
    max_minutes: float | None = None
    #: torch threads; 1 by default: the MLP is small and more threads fight the env
    threads: int | None = 1
    #: an agent name whose moves the network copies before PPO (module docstring)
    imitate: str | None = None
    imitate_steps: int = 300_000
    imitate_epochs: int = 4
    #: an agent name whose move in each position is an input of the network (docstring)
    advice: str | None = None
    #: the advised move's starting logit bonus (``uno_env.integrations.sb3.AdvisedPolicy``)
    advice_weight: float = 5.0
    rules: dict = field(default_factory=dict)


def _opponent_spec(opponents, pool):
    """Replace the name "self" by the self-play pool object."""
    if isinstance(opponents, str):
        return pool if opponents == "self" else opponents
    return [_opponent_spec(x, pool) for x in opponents]


def _uses_self(opponents) -> bool:
    if isinstance(opponents, str):
        return opponents == "self"
    return any(_uses_self(x) for x in opponents)


def imitation_data(teacher: str, config, steps: int, num_envs: int, seed: int,
                   gamma: float, advice: str | None = None):
    """``steps`` decisions (rounded up to a multiple of ``num_envs``) of the agent named
    ``teacher`` in the learner seat (drawn per game) against copies of itself. Returns
    ``(obs, masks, actions, returns, complete)``, one row per decision: ``returns`` is
    the discounted return from that decision on, ``complete`` False for the decisions
    of games still running at the end (their return is unknown). ``advice``: an agent
    name whose ``advice_features`` end every observation, as in ``advised``."""
    from . import make_agent
    from .ppo import advice_features
    from uno_env.envs.single_seat import LearnerBatch

    agent = make_agent(teacher, config)
    advisor = None if advice is None else make_agent(advice, config)
    lb = LearnerBatch(num_envs, config.preset, config.num_players, teacher, "random",
                      seed, **config.rule_overrides())
    obs, mask = lb.reset()
    t_max = -(-int(steps) // num_envs)
    width = obs.shape[1] + (mask.shape[1] if advisor is not None else 0)
    all_obs = np.empty((t_max, num_envs, width), np.float32)
    all_mask = np.empty((t_max,) + mask.shape, np.uint8)
    actions = np.empty((t_max, num_envs), np.int64)
    rewards = np.empty((t_max, num_envs), np.float32)
    ends = np.empty((t_max, num_envs), bool)
    for t in range(t_max):
        all_obs[t, :, :obs.shape[1]], all_mask[t] = obs, mask
        if advisor is not None:
            all_obs[t, :, obs.shape[1]:] = advice_features(advisor, obs, mask)
        # the teacher as its own adviser: its move is already the advice's one-hot
        actions[t] = all_obs[t, :, obs.shape[1]:].argmax(axis=1) if advice == teacher \
            else agent.act_batch(obs, mask)
        obs, mask, reward, terminated, truncated = lb.step(actions[t])
        rewards[t], ends[t] = reward, terminated | truncated
    returns = np.zeros_like(rewards)
    complete = np.zeros_like(ends)
    ret = np.zeros(num_envs, np.float32)
    seen_end = np.zeros(num_envs, bool)
    for t in range(t_max - 1, -1, -1):
        ret = rewards[t] + gamma * ret * ~ends[t]
        seen_end |= ends[t]
        returns[t], complete[t] = ret, seen_end
    flat = (lambda a: a.reshape((-1,) + a.shape[2:]))
    return (flat(all_obs), flat(all_mask), flat(actions), flat(returns), flat(complete))


def imitate(model, data, epochs: int, seed: int, batch_size: int = 1024,
            learning_rate: float = 1e-3) -> dict:
    """Fit ``model``'s policy (masked cross-entropy on the teacher's actions) and value
    head (squared error to the returns of complete games) to ``imitation_data``.
    Returns the share of decisions where the network's best legal action is the
    teacher's, measured after training on the same data, and the final losses."""
    import torch

    obs, masks, actions, returns, complete = (torch.as_tensor(a) for a in data)
    masks = masks.bool()
    weight = complete.float()
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    n = len(actions)
    losses = (None, None)
    policy.set_training_mode(True)
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(n), max(1, n // batch_size)):
            idx = torch.as_tensor(idx)
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx],
                                                          masks[idx])
            value_loss = (weight[idx] * (values.flatten() - returns[idx]) ** 2).sum() \
                / weight[idx].sum().clamp(min=1.0)
            loss = -log_prob.mean() + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses = (round(float(-log_prob.mean().detach()), 4),
                      round(float(value_loss.detach()), 4))
    policy.set_training_mode(False)
    with torch.no_grad():
        hits = 0
        for idx in np.array_split(np.arange(n), max(1, n // 8192)):
            idx = torch.as_tensor(idx)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(
                policy.extract_features(obs[idx], policy.pi_features_extractor)))
            best = logits.masked_fill(~masks[idx], -torch.inf).argmax(dim=1)
            hits += int((best == actions[idx]).sum())
    return {"decisions": int(n), "epochs": int(epochs), "agreement": round(hits / n, 4),
            "policy_loss": losses[0], "value_loss": losses[1]}


def train(out="runs/ppo", progress: bool = True, resume=None, **settings) -> TrainResult:
    """Train, evaluate and save (see the module docstring). ``settings`` are the fields
    of ``TrainSettings``; unknown ones go to the rules (``stack="any"``...)."""
    _require_rl()
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    from uno_env.evaluation.win_rate import evaluate
    from uno_env.integrations.sb3 import (PPO_HIDDEN, PPO_SETTINGS, AdvisedPolicy, UnoVecEnv,
                                  policy_kwargs, ppo_kwargs, set_threads)

    names = set(TrainSettings.__dataclass_fields__)
    rules = {k: settings.pop(k) for k in list(settings) if k not in names}
    s = TrainSettings(**settings)
    s.rules.update(rules)
    for key, value in {**PPO_SETTINGS, "hidden": PPO_HIDDEN}.items():
        if getattr(s, key) is None:       # the recommended settings (uno_env.integrations.sb3)
            setattr(s, key, value)
    budget_is_time = s.timesteps is None
    if budget_is_time:
        if s.max_minutes is None:
            raise ValueError("give timesteps, max_minutes, or both (timesteps=None trains "
                             "until max_minutes have passed)")
        s.timesteps = UNLIMITED_STEPS
    for key in ("timesteps", "num_envs", "eval_every", "eval_games"):
        value = getattr(s, key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    if s.threads:
        set_threads(int(s.threads))     # the recipes' helper (uno_env.integrations.threads)

    pool = SelfPlayPool(s.pool_size, s.seed) if _uses_self(s.opponents) else None
    venv = UnoVecEnv(s.num_envs, s.preset, s.num_players,
                     opponents=_opponent_spec(s.opponents, pool), seed=s.seed, **s.rules)
    config = venv.config
    if s.advice is not None:
        from . import make_agent
        venv = advised(venv, make_agent(s.advice, config))
    for opp in s.eval_opponents:   # fail now, not after an hour of training
        from uno_env.envs.single_seat import parse_opponents
        parse_opponents(opp, config.num_players)
    if resume is not None:
        # the saved model's own rate, entropy bonus and discount would otherwise win over
        # the settings given here (and summary.json would report values not used)
        model = MaskablePPO.load(resume, env=venv, seed=s.seed, custom_objects={
            "learning_rate": s.learning_rate, "ent_coef": s.ent_coef, "gamma": s.gamma})
    else:
        policy, kwargs = "MlpPolicy", policy_kwargs(config, tuple(s.hidden))
        if s.advice is not None:
            d, a = config.layout.obs_size, config.layout.size
            policy = AdvisedPolicy
            kwargs = {**policy_kwargs(config, tuple(s.hidden), extra_inputs=a),
                      "advice": (d, d + a, s.advice_weight)}
        model = MaskablePPO(policy, venv, **ppo_kwargs(
            venv, n_steps=s.n_steps, batch_size=s.batch_size, n_epochs=s.n_epochs,
            learning_rate=s.learning_rate, gamma=s.gamma, ent_coef=s.ent_coef,
            seed=s.seed, verbose=0, policy_kwargs=kwargs))
    model.set_logger(configure(str(out), ["csv"]))
    imitation = None
    if s.imitate is not None and resume is None:
        t0 = time.perf_counter()
        data = imitation_data(s.imitate, config, s.imitate_steps, s.num_envs,
                              s.seed + 2_000_003, s.gamma, s.advice)
        imitation = {"teacher": s.imitate,
                     **imitate(model, data, s.imitate_epochs, s.seed)}
        imitation["seconds"] = round(time.perf_counter() - t0, 1)
        del data

    meta = {"name": "ppo", "opponents": repr(s.opponents), "seed": s.seed}
    if s.advice is not None:
        meta["advice"] = s.advice

    def snapshot(steps: int) -> PPOAgent:
        return PPOAgent.from_sb3(model, config, trained_steps=int(steps), **meta)

    if pool is not None:
        pool.add(snapshot(0))
    eval_path = out / "eval.csv"
    evaluations: list[dict] = []

    eval_seconds = [0.0]

    def run_eval(steps: int, bar=None) -> list[dict]:
        t0 = time.perf_counter()
        agent = snapshot(steps)
        rows = []
        for opp in s.eval_opponents:
            r = evaluate(agent, opp, s.eval_games, s.preset, s.num_players,
                         seed=s.seed + 1_000_003, **s.rules)
            rows.append(evaluation_row(steps, opp, r, minutes=round(
                (time.perf_counter() - start) / 60, 3)))
        new = not eval_path.exists()
        with open(eval_path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            if new:
                w.writeheader()
            w.writerows(rows)
        evaluations.extend(rows)
        eval_seconds[0] += time.perf_counter() - t0
        if bar is not None:
            bar.set_postfix({r["opponent"]: f"{r['win_rate']:.3f}" for r in rows})
        return rows

    class Progress(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = None
            self.every = {"eval": s.eval_every, "ckpt": s.checkpoint_every,
                          "snap": s.snapshot_every}
            self.marks = dict(self.every)     # the next step count each job is due at

        def _on_training_start(self):
            if progress:
                from tqdm.auto import tqdm
                # a time budget: the bar counts steps, the minutes stop the run
                self.bar = tqdm(total=None if budget_is_time else s.timesteps,
                                unit="step", desc="train", mininterval=1.0)

        def _on_rollout_start(self):
            if pool is not None:
                pool.pick()

        def _due(self, key) -> bool:
            if self.num_timesteps < self.marks[key]:
                return False
            every = self.every[key]
            self.marks[key] = (self.num_timesteps // every + 1) * every
            return True

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            if self._due("eval"):
                run_eval(self.num_timesteps, self.bar)
            if self._due("ckpt"):
                snapshot(self.num_timesteps).save(
                    out / "checkpoints" / f"ppo_{self.num_timesteps}.npz")
            if pool is not None and self._due("snap"):
                pool.add(snapshot(self.num_timesteps))
            if s.max_minutes is not None \
                    and time.perf_counter() - start > 60 * s.max_minutes:
                return False
            return True

        def _on_training_end(self):
            if self.bar is not None:
                self.bar.close()

    start_steps = int(model.num_timesteps)
    start = time.perf_counter()
    if imitation is not None:
        run_eval(0)        # where PPO starts from
        start = time.perf_counter()
        eval_seconds[0] = 0.0
    model.learn(s.timesteps, callback=Progress(), reset_num_timesteps=resume is None)
    # training time without the evaluations made along the way
    seconds = time.perf_counter() - start - eval_seconds[0]
    steps = int(model.num_timesteps) - (0 if resume is None else start_steps)
    final = snapshot(model.num_timesteps)
    final.save(out / "policy.npz")
    model.save(out / "model.zip")
    final_rows = run_eval(model.num_timesteps)
    result = TrainResult(out, steps, seconds, evaluations)
    summary = {"settings": {k: (list(v) if isinstance(v, tuple) else v)
                            for k, v in asdict(s).items() if k != "opponents"},
               "opponents": repr(s.opponents), "timesteps": steps,
               "seconds": round(seconds, 1),
               "steps_per_second": round(result.steps_per_second, 1),
               "imitation": imitation,
               "final_evaluation": final_rows}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return result
