"""Tianshou on the PettingZoo AEC env: ``PettingZooEnv`` and ``MultiAgentPolicy``.

Needs torch (the CPU build) and tianshou (the ``clients`` extra), from the checkout::

    pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu && pip install -e ".[clients]"

UNO is turn-based: ``uno_env.env()`` is an AEC env with no parallel API. Tianshou's
``PettingZooEnv`` takes the AEC env as it is: each observation is ``{"agent_id", "obs",
"mask"}`` for the agent to move, and ``MultiAgentPolicy`` (Tianshou's multi-agent
policy manager) hands each row to that agent's policy; the reward of a step is an array
with one entry per seat (+1 to the round's winner, -1/(N-1) to the others, on the step
that ends the game). Any of Tianshou's vector envs runs it (``DummyVectorEnv``,
``SubprocVectorEnv``).

Here every seat plays a masked random policy (your trained policies go in its place;
a ``Policy`` reads ``batch.obs.mask``), a ``Collector`` collects whole games into a
replay buffer, and every stored move is checked against the mask it was chosen from
(``uno_env.env`` raises on an illegal move in any case).

    python examples/tianshou_pettingzoo.py --players 4 --envs 2 --episodes 8 --subproc
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

#: the command that installs what this example needs beyond uno-env itself
INSTALL = 'pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu && pip install -e ".[clients]"'
try:
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.data import Batch, Collector, ReplayBuffer, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv, SubprocVectorEnv
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(f"this example needs {err.name}: {INSTALL}",
                              name=err.name) from None

import uno_env


class MaskedRandom(Policy):
    """A random legal action from ``batch.obs.mask``; drawing a card weighs
    ``draw_weight`` against a card play, so the games end sooner than with uniform
    moves."""

    def __init__(self, action_space, draw_action: int, draw_weight: float = 0.1,
                 seed: int = 0):
        super().__init__(action_space=action_space)
        self.draw_action, self.draw_weight = draw_action, draw_weight
        self.rng = np.random.default_rng(seed)

    def forward(self, batch, state=None, **kwargs):
        weights = np.asarray(batch.obs.mask, np.float64)
        weights[:, self.draw_action] *= self.draw_weight
        cumulative = weights.cumsum(axis=1)
        u = self.rng.random((len(weights), 1)) * cumulative[:, -1:]
        return Batch(act=(cumulative < u).sum(axis=1))


class _Make:
    """A picklable env factory (``SubprocVectorEnv`` sends it to its workers)."""

    def __init__(self, num_players: int, rules: dict):
        self.num_players, self.rules = num_players, rules

    def __call__(self) -> PettingZooEnv:
        return PettingZooEnv(uno_env.env(num_players=self.num_players, **self.rules))


def make_policy(env: PettingZooEnv, seed: int = 0) -> MultiAgentPolicy:
    """One masked random policy per seat, under Tianshou's multi-agent manager."""
    draw = env.env.unwrapped.layout.DRAW
    return MultiAgentPolicy({agent: MaskedRandom(env.action_space, draw, seed=seed + i)
                             for i, agent in enumerate(env.agents)})


def collect(num_players: int = 4, num_envs: int = 2, episodes: int = 4,
            subproc: bool = False, seed: int = 0, **rules) -> dict:
    """Collect ``episodes`` whole games on ``num_envs`` envs; checks every stored move
    against its mask and every game's final rewards. Returns the counts."""
    make = _Make(num_players, rules)
    # the policy first: its env loads the engine's kernels here, before the workers of
    # a SubprocVectorEnv fork (each would load them again)
    policy = make_policy(make(), seed)
    vector = SubprocVectorEnv if subproc else DummyVectorEnv
    envs = vector([make for _ in range(num_envs)])
    envs.seed([seed + i for i in range(num_envs)])
    # one env: a plain buffer (a VectorReplayBuffer compiles its numba helpers first,
    # seconds on a small machine)
    buffer = ReplayBuffer(50_000) if num_envs == 1 else VectorReplayBuffer(50_000,
                                                                           num_envs)
    collector = Collector(policy, envs, buffer)
    with warnings.catch_warnings():     # Tianshou's note on 2-D reward statistics
        warnings.simplefilter("ignore")
        stats = collector.collect(n_episode=episodes, reset_before_collect=True)
    envs.close()
    data, _ = buffer.sample(0)          # every stored transition
    chosen = data.obs.mask[np.arange(len(data.act)), data.act]
    if not chosen.all():
        raise AssertionError(f"{int((~chosen).sum())} illegal moves")
    ended = data.terminated | data.truncated
    rewards = np.asarray(data.rew)                        # [steps, seats]
    if (rewards[~ended] != 0).any():
        raise AssertionError("a reward before the end of a game")
    won = rewards[data.terminated]
    if not (np.isclose(won.max(axis=1), 1.0).all() and np.isclose(won.sum(axis=1), 0.0,
                                                                      atol=1e-5).all()):
        raise AssertionError(f"unexpected final rewards {won}")
    if (rewards[data.truncated] != 0).any():
        raise AssertionError("a truncated game paid a reward")
    return {"players": num_players, "envs": num_envs, "vector": vector.__name__,
            "episodes": int(stats.n_collected_episodes),
            "steps": int(stats.n_collected_steps), "stored": len(data.act),
            "games_won": int(data.terminated.sum()),
            "games_truncated": int(data.truncated.sum()),
            "wins_by_seat": [int((won[:, k] > 0).sum()) for k in range(num_players)]}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--envs", type=int, default=2)
    p.add_argument("--episodes", type=int, default=8)
    p.add_argument("--subproc", action="store_true", help="SubprocVectorEnv workers")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    result = collect(args.players, args.envs, args.episodes, args.subproc, args.seed)
    print(f"{result['episodes']} games, {result['steps']} steps on {result['envs']} "
          f"envs ({result['vector']}), every move legal; {result['games_won']} won, "
          f"{result['games_truncated']} truncated; wins by seat {result['wins_by_seat']}")
    return result


if __name__ == "__main__":
    main()
