"""Masked PPO for UNO in one file, in the style of CleanRL's ``ppo.py``.

Needs torch (the CPU build; beside ``pip install -e .``, nothing else)::

    pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu

Trains one seat of 2-player classic UNO against the ``random`` agent on
``uno_env.GymVectorEnv`` (``gymnasium.make_vec("uno_env/UnoSingleSeat-v3", ...)``: every game of
the batch stepped by one numba call) and prints the win rate against ``random``
periodically, measured on the same fixed deals each time (``uno_env.evaluate``).

    python examples/cleanrl_ppo_masked.py --total-timesteps 500000 --num-envs 64

Invalid-action masking: the logits of illegal actions are set to a large negative
number before the categorical distribution is formed, in the rollout and in the update
(the masks are stored with the observations), so the policy never samples an illegal
move and its gradient ignores them. The env resets a finished game within the step
(``AutoresetMode.SAME_STEP``): ``next_obs`` after a done is the next game's first
observation, which is the layout this loop's GAE assumes; a truncated game's value is
bootstrapped from ``infos["final_obs"]``.

``--metrics PATH`` writes one JSON line per evaluation.
``--save PATH`` writes the trained actor as a ``.npz`` policy (``export``): the format of
``agents.PPOAgent``, which plays it with numpy alone, so ``uno-bench benchmark --agent
PATH`` gives it a report card, and ``uno-bench evaluate --model PATH`` and ``uno-bench
tournament --agents PATH,...`` play it too.
"""
from __future__ import annotations

import argparse
import json
import time

import gymnasium
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
from uno_env.integrations.scaling import config_scale
from uno_env.integrations.threads import set_threads

#: the logit of an illegal action (exp(-1e8) underflows to 0 in float32)
MASKED_LOGIT = -1e8


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1, help="seed of the games and of torch")
    p.add_argument("--total-timesteps", type=int, default=500_000,
                   help="learner decisions to train for")
    p.add_argument("--num-envs", type=int, default=64, help="games played in parallel")
    p.add_argument("--num-steps", type=int, default=128,
                   help="steps per game in one rollout")
    add_ppo_options(p)
    p.add_argument("--opponent", default="random",
                   help="opponent agent (random, greedy, heuristic)")
    p.add_argument("--eval-every", type=int, default=5,
                   help="evaluate every N updates (and before the first, and at the end)")
    p.add_argument("--eval-games", type=int, default=1000,
                   help="games of each evaluation against random")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--metrics", default=None, help="write evaluations as JSON lines here")
    p.add_argument("--save", default=None,
                   help="write the trained policy here as a .npz (agents.PPOAgent's "
                        "format: uno-bench benchmark --agent PATH reads it)")
    args = p.parse_args(argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    return args


#: PPO's settings and CleanRL's defaults for them (``add_ppo_options``)
PPO_DEFAULTS = {"learning_rate": 2.5e-4, "anneal_lr": True, "gamma": 0.99,
                "gae_lambda": 0.95, "num_minibatches": 4, "update_epochs": 4,
                "clip_coef": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
                "hidden": 256}


def add_ppo_options(p: argparse.ArgumentParser, **defaults) -> None:
    """PPO's options (``PPO_DEFAULTS``, as ``--learning-rate`` ...) on parser ``p``;
    ``defaults`` overrides some of their defaults (the self-play example's)."""
    unknown = sorted(set(defaults) - set(PPO_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown PPO settings {unknown}; valid: {sorted(PPO_DEFAULTS)}")
    values = {**PPO_DEFAULTS, **defaults}
    for name, value in values.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=value,
                           help="decay the learning rate linearly to 0 over the run")
        else:
            p.add_argument(flag, type=type(value), default=value,
                           help="units per hidden layer" if name == "hidden" else None)


def layer_init(layer: nn.Linear, std=np.sqrt(2), bias_const=0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """An MLP actor and critic over the scaled observation."""

    def __init__(self, obs_size: int, num_actions: int, scale: np.ndarray, hidden: int):
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, num_actions), std=0.01))

    def get_value(self, x):
        return self.critic(x * self.scale)

    def masked_logits(self, x, mask):
        return torch.where(mask, self.actor(x * self.scale),
                           torch.full((), MASKED_LOGIT, dtype=torch.float32))

    def get_action_and_value(self, x, mask, action=None):
        probs = Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x * self.scale)

    def act_batch(self, observations, masks) -> np.ndarray:
        """The greedy legal action per row (the ``act_batch`` of ``uno_env.evaluate``)."""
        with torch.no_grad():
            logits = self.masked_logits(torch.as_tensor(observations, dtype=torch.float32),
                                        torch.as_tensor(np.asarray(masks) != 0))
        return logits.argmax(dim=1).numpy()


def export(agent: Agent, config, path, **meta):
    """Write ``agent``'s actor as an ``agents.PPOAgent`` model file (``.npz``: the
    actor's layers, the observation scale, a JSON record of the game it was trained
    for) and return the path. The file plays the greedy policy of ``Agent.act_batch``
    with numpy alone."""
    from uno_agents import PPOAgent
    meta = {"name": "cleanrl_ppo", "trainer": "examples/cleanrl_ppo_masked.py", **meta}
    return PPOAgent.from_torch(agent.actor, agent.scale, config, **meta).save(path)


def eval_settings(args) -> dict:
    """The evaluation games: games 0.. of a fixed seed against random, 2-player classic
    (the same deals at every evaluation)."""
    return {"opponents": "random", "num_games": args.eval_games, "preset": "classic",
            "num_players": 2, "seed": 10_000 + args.seed,
            "batch": min(args.eval_games, 512)}


def evaluate(agent: Agent, args, update: int, global_step: int, started: float) -> dict:
    """Win rate of the greedy policy against random (``eval_settings``)."""
    result = uno_env.evaluate(agent, **eval_settings(args))
    row = {"update": update, "global_step": global_step,
           "win_rate": result["win_rate"], "ci": list(result["ci"]),
           "seconds": round(time.time() - started, 1)}
    print(f"update {update:4d}  step {global_step:8d}  win rate vs random "
          f"{row['win_rate']:.3f} [{row['ci'][0]:.3f}, {row['ci'][1]:.3f}]  "
          f"({row['seconds']} s)", flush=True)
    return row


def train(args) -> list[dict]:
    """Run PPO; returns the evaluations (also printed, and written to ``--metrics``)."""
    torch.manual_seed(args.seed)
    set_threads(args.threads)           # torch's threads: the recipes' one helper
    envs = gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=args.num_envs,
                              vectorization_mode="vector_entry_point", preset="classic",
                              num_players=2, opponents=args.opponent, seed=args.seed)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs_size = envs.single_observation_space.shape[0]
    num_actions = envs.single_action_space.n
    agent = Agent(obs_size, num_actions, config_scale(envs.unwrapped.config), args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + (obs_size,))
    masks = torch.zeros(shape + (num_actions,), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))

    started = time.time()
    global_step = 0
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(infos["action_mask"] != 0)
    next_done = torch.zeros(args.num_envs)
    episodes = wins = 0
    metrics = [evaluate(agent, args, 0, 0, started)]

    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob

            next_obs, env_reward, terminations, truncations, infos = envs.step(
                action.numpy())
            reward = torch.as_tensor(env_reward)
            if truncations.any():   # bootstrap a cut-off game from its last observation
                rows = np.flatnonzero(truncations)
                final = torch.as_tensor(np.stack(infos["final_obs"][rows]))
                with torch.no_grad():
                    reward[rows] += args.gamma * agent.get_value(final).flatten()
            rewards[step] = reward
            done = np.logical_or(terminations, truncations)
            # a 2-player round pays the winner +1 on its last step (docs/rules.md 7)
            episodes += int(done.sum())
            wins += int((terminations & (env_reward > 0)).sum())
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(infos["action_mask"] != 0)
            next_done = torch.as_tensor(done, dtype=torch.float32)

        # generalized advantage estimation
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (
                    delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam)
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        b_values = values.reshape(-1)

        # the clipped surrogate objective, over minibatches
        b_inds = np.arange(args.batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration).shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                mb = b_inds[start:start + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                newvalue = newvalue.view(-1)
                v_clipped = b_values[mb] + torch.clamp(
                    newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2,
                                         (v_clipped - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - started))
        print(f"update {iteration:4d}  step {global_step:8d}  training games {episodes}"
              f"  won {wins / max(episodes, 1):.3f}  loss {loss.item():.3f}  {sps} steps/s",
              flush=True)
        episodes = wins = 0
        if iteration % args.eval_every == 0 or iteration == args.num_iterations:
            metrics.append(evaluate(agent, args, iteration, global_step, started))
    if args.save:
        path = export(agent, envs.unwrapped.config, args.save, seed=args.seed,
                      trained_steps=global_step, opponents=args.opponent)
        print(f"wrote {path} (uno-bench benchmark --agent {path})", flush=True)
    envs.close()
    if args.metrics:
        with open(args.metrics, "w") as f:
            for row in metrics:
                f.write(json.dumps(row) + "\n")
    return metrics


if __name__ == "__main__":
    train(parse_args())
