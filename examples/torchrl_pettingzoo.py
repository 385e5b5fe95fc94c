"""TorchRL on the PettingZoo AEC env: ``PettingZooWrapper(use_mask=True)``, masked moves.

Needs torch (the CPU build) and torchrl (the ``clients`` extra), from the checkout::

    pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu && pip install -e ".[clients]"

UNO is turn-based: ``uno_env.env()`` is an AEC env (one agent moves at a time), and it has
no parallel API (``pettingzoo.utils.aec_to_parallel`` refuses it, rightly). TorchRL's
``PettingZooWrapper`` takes the AEC env as it is: every seat is a group
(``player_0`` ...), each step carries, per group, ``mask`` (True for the one agent that
moved), ``action_mask`` (its legal actions) and, under ``("next", group, "reward")``,
the seat's reward (+1 to the round's winner, -1/(N-1) to the others, on the step that
ends the game). ``use_mask=True`` is what makes it work on a turn-based env.

This script collects steps with a masked random policy (a ``TensorDictModule`` that
reads each group's ``action_mask``: the place for your own network, e.g. with
``torchrl.modules.MaskedCategorical``) and checks every move against the mask it was
chosen from. ``uno_env.env`` raises on an illegal move, so a finished rollout had none.

    python examples/torchrl_pettingzoo.py --players 4 --steps 2000
"""
from __future__ import annotations

import argparse
import warnings

import uno_env

#: the command that installs what this example needs beyond uno-env itself
INSTALL = 'pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu && pip install -e ".[clients]"'
try:
    import torch
    from tensordict.nn import TensorDictModule

    with warnings.catch_warnings():     # "tested with PettingZoo 1.24.3": 1.27 works
        warnings.simplefilter("ignore", UserWarning)
        from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(f"this example needs {err.name}: {INSTALL}",
                              name=err.name) from None


def make_env(num_players: int = 4, seed: int = 0, **rules) -> PettingZooWrapper:
    """The AEC env in TorchRL's wrapper, masks on; rule flags as keywords."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return PettingZooWrapper(env=uno_env.env(num_players=num_players, **rules),
                                 use_mask=True, seed=seed)


class MaskedRandom(torch.nn.Module):
    """A random legal action from ``action_mask``; drawing a card weighs
    ``draw_weight`` against a card play, so the games end sooner than with uniform
    moves (which draw so often that many games reach ``max_turns``)."""

    def __init__(self, draw_action: int, draw_weight: float = 0.1, seed: int = 0):
        super().__init__()
        self.draw_action, self.draw_weight = draw_action, draw_weight
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, action_mask: torch.Tensor) -> torch.Tensor:
        weights = action_mask.float()
        weights[..., self.draw_action] *= self.draw_weight
        # a group that does not move this step may show an empty mask: any action
        weights = torch.where(weights.sum(-1, keepdim=True) > 0, weights,
                              torch.ones_like(weights))
        flat = weights.reshape(-1, weights.shape[-1])
        return torch.multinomial(flat, 1, generator=self.generator).reshape(
            weights.shape[:-1])


def make_policy(env: PettingZooWrapper, seed: int = 0):
    """One masked module per group, in a ``TensorDictSequential``."""
    from tensordict.nn import TensorDictSequential
    draw = env._env.unwrapped.layout.DRAW
    return TensorDictSequential(*[
        TensorDictModule(MaskedRandom(draw, seed=seed + i), in_keys=[(group, "action_mask")],
                         out_keys=[(group, "action")])
        for i, group in enumerate(env.group_map)])


def collect(num_players: int = 4, steps: int = 2000, seed: int = 0) -> dict:
    """Roll the env ``steps`` steps (games restart when they end) with the masked policy;
    checks every move against its mask and every finished game's rewards. Returns the
    counts."""
    env = make_env(num_players, seed)
    groups = list(env.group_map)
    rollout = env.rollout(steps, make_policy(env, seed), break_when_any_done=False)
    moves = 0
    for group in groups:
        moved = rollout[group, "mask"].reshape(-1)          # this seat moved
        action = rollout[group, "action"].reshape(-1)
        legal = rollout[group, "action_mask"].reshape(len(action), -1)
        chosen = legal[torch.arange(len(action)), action]
        if (moved & ~chosen).any():
            raise AssertionError(f"{group} made an illegal move")
        moves += int(moved.sum())
    if moves != steps:
        raise AssertionError(f"{moves} moves in {steps} steps: one agent moves a step")
    rewards = torch.stack([rollout["next", g, "reward"].reshape(-1) for g in groups], 1)
    terminated = rollout["next", "terminated"].reshape(-1)
    truncated = rollout["next", "truncated"].reshape(-1)
    ended = terminated | truncated
    if (rewards[~ended] != 0).any():
        raise AssertionError("a reward before the end of a game")
    won = rewards[terminated]
    # the round's winner +1, every other seat -1/(N-1); a truncated game pays 0
    if not (torch.isclose(won.max(1).values, torch.tensor(1.0)).all()
            and torch.isclose(won.sum(1), torch.tensor(0.0), atol=1e-5).all()
            and ((won == 1).sum(1) == 1).all()):
        raise AssertionError(f"unexpected final rewards {won}")
    if (rewards[truncated] != 0).any():
        raise AssertionError("a truncated game paid a reward")
    env.close()
    return {"players": num_players, "steps": steps, "moves": moves,
            "games_won": int(terminated.sum()), "games_truncated": int(truncated.sum()),
            "wins_by_seat": [int((won[:, k] > 0).sum()) for k in range(num_players)]}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    from torchrl.envs.utils import check_env_specs
    check_env_specs(make_env(args.players, args.seed))    # TorchRL's own spec check
    result = collect(args.players, args.steps, args.seed)
    print(f"{result['steps']} steps, every move legal; {result['games_won']} games won "
          f"(+1 to the winner, -1/{args.players - 1} to the others), "
          f"{result['games_truncated']} truncated; wins by seat {result['wins_by_seat']}")
    return result


if __name__ == "__main__":
    main()
