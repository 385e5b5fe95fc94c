"""Real RL clients on the PettingZoo AEC env: TorchRL's ``PettingZooWrapper(use_mask=
True)`` and Tianshou's ``PettingZooEnv`` with its ``MultiAgentPolicy`` (the runnable
examples ``examples/torchrl_pettingzoo.py`` and ``examples/tianshou_pettingzoo.py``).
Each collects steps with a masked policy: every move is checked against the mask it was
chosen from (and ``uno_env.env`` raises on an illegal one), and every finished game
pays +1 to one seat and -1/(N-1) to the others. Needs the ``clients`` extra."""
from __future__ import annotations

import importlib

import pytest

from conftest import NEEDS

pytest.importorskip("torchrl", reason=NEEDS["clients"])
pytest.importorskip("tianshou", reason=NEEDS["clients"])

pytestmark = pytest.mark.slow  # runs TorchRL and Tianshou (pyproject.toml markers)


def load(name: str):
    return importlib.import_module(f"examples.{name}")  # the repository root is on the path


@pytest.mark.parametrize("players", [2, 4])
def test_torchrl_collects_masked_steps_with_the_aec_env(players):
    example = load("torchrl_pettingzoo")
    env = example.make_env(players, seed=1)
    assert list(env.group_map) == [f"player_{k}" for k in range(players)]
    if players == 2:
        from torchrl.envs.utils import check_env_specs
        check_env_specs(env)
    result = example.collect(players, steps=300, seed=1)   # raises on any violation
    assert result["moves"] == 300
    assert result["games_won"] >= 1                         # rewards were checked
    assert sum(result["wins_by_seat"]) == result["games_won"]


def test_torchrl_policy_never_picks_a_masked_action():
    import torch
    example = load("torchrl_pettingzoo")
    policy = example.MaskedRandom(draw_action=3, seed=0)
    mask = torch.zeros(500, 6, dtype=torch.bool)
    mask[torch.arange(500), torch.randint(0, 6, (500,))] = True
    mask[::2, 3] = True
    action = policy(mask)
    assert mask[torch.arange(500), action].all()
    assert (action[1::2] != 3).all() or mask[1::2, 3].any()


def test_tianshou_collects_whole_games_with_its_multi_agent_policy():
    """2 players on a DummyVectorEnv, 4 on a SubprocVectorEnv (a worker process), one
    env each: a plain replay buffer (a VectorReplayBuffer, for several envs, costs a
    numba compile of Tianshou's own in every fresh process; the example takes --envs)."""
    example = load("tianshou_pettingzoo")
    for players, subproc, envs in [(2, False, 1), (4, True, 1)]:
        # 3-card hands: shorter games, the same interfaces
        result = example.collect(players, num_envs=envs, episodes=2, subproc=subproc,
                                 seed=3, hand_size=3)
        assert result["envs"] == envs
        assert result["vector"] == ("SubprocVectorEnv" if subproc else "DummyVectorEnv")
        assert result["episodes"] >= 2 and result["stored"] == result["steps"]
        assert result["games_won"] + result["games_truncated"] >= 2
        assert sum(result["wins_by_seat"]) == result["games_won"] >= 1


def test_the_aec_env_has_no_parallel_api_and_says_so():
    """docs/environments.md: UNO is turn-based; PettingZoo's aec_to_parallel refuses it."""
    from pettingzoo.utils.conversions import aec_to_parallel

    import uno_env
    with pytest.raises(Exception):
        aec_to_parallel(uno_env.env(num_players=2))
