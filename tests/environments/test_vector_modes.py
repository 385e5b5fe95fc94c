"""Every Gymnasium vectorization mode runs the masked loop of docs/environments.md.

The block is read from the page and executed as written (300 steps instead of 100, so
that enough games end), with ``gymnasium.make_vec`` wrapped so that it builds 8 games
against the heuristic (whose games end sooner than against random moves) in the mode under test (the default ``GymVectorEnv``,
same-step autoreset; Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` of
``SingleAgentEnv``, next-step autoreset; and "sync" with ``vector_kwargs`` asking for
same-step autoreset, as the docs suggest) and records what each step got and returned.
The single envs of the sync and async modes raise on an illegal action
(``illegal_action="raise"``), so a completed loop sampled legal moves only."""
from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import uno_env  # noqa: F401  (registers the ids)
from uno_env.envs.single_seat import SingleAgentEnv
from support import ROOT

DOC = ROOT / "docs" / "environments.md"


def docs_loop() -> str:
    """The ``make_vec`` block of docs/environments.md."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    found = [b for b in blocks if "gymnasium.make_vec(" in b and "for _ in range" in b]
    assert len(found) == 1, "docs/environments.md has one make_vec loop"
    assert "for _ in range(100):" in found[0]
    return found[0].replace("for _ in range(100):", "for _ in range(300):")


@pytest.mark.parametrize("mode", [None, "sync", "async", "sync-same-step"])
def test_the_docs_masked_loop_runs_in_every_vectorization_mode(mode, monkeypatch):
    real_make_vec = gymnasium.make_vec
    made, steps = [], []

    def make_vec(env_id, num_envs=1, **kwargs):
        if mode == "sync-same-step":     # the docs' way to make "sync" reset as the default
            kwargs.update(vectorization_mode="sync", illegal_action="raise",
                          vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
        elif mode is not None:
            kwargs.update(vectorization_mode=mode, illegal_action="raise")
        kwargs["opponents"] = "heuristic"
        envs = real_make_vec(env_id, num_envs=8, **kwargs)
        step = envs.step

        def recording_step(actions):
            out = step(actions)
            steps.append((np.array(actions), *(np.array(x) for x in out[:4]), out[4]))
            return out
        envs.step = recording_step
        made.append(envs)
        return envs

    monkeypatch.setattr(gymnasium, "make_vec", make_vec)
    namespace: dict = {}
    try:
        exec(compile(docs_loop(), str(DOC), "exec"), namespace)
    finally:
        for envs in made:
            envs.close()
    envs, = made
    same_step = mode in (None, "sync-same-step")
    expected = AutoresetMode.SAME_STEP if same_step else AutoresetMode.NEXT_STEP
    assert envs.metadata["autoreset_mode"] == expected
    assert namespace["same_step"] == same_step
    assert len(steps) == 300
    ended = ignored = 0
    for t, (actions, obs, rewards, term, trunc, infos) in enumerate(steps):
        assert infos["action_mask"].shape == (8, envs.single_action_space.n)
        assert infos["action_mask"].any(axis=1).all()    # never an empty mask
        for i in np.flatnonzero(term | trunc):
            ended += 1
            assert rewards[i] != 0          # a finished game scores (2 players: +-1)
            if same_step:                   # the next game's decision, at once
                assert infos["final_obs"][i] is not None
                assert infos["final_info"]["action_mask"][i].all()
            else:                           # the ended game's mask marks every action
                assert infos["action_mask"][i].all()
                if t + 1 < len(steps):      # the step after is the ignored reset step
                    _, _, r, te, tr, after = steps[t + 1]
                    ignored += 1
                    assert (r[i], te[i], tr[i]) == (0.0, False, False)
                    assert not after["action_mask"][i].all()   # the new game's moves
    assert ended >= 20
    if not same_step:
        assert ignored >= 20


def test_a_single_env_reports_every_action_once_the_episode_ended():
    """The mask that makes next-step autoreset work (SingleAgentEnv v2): a decision's
    mask is its legal moves; the step that ends the episode marks every action, and
    step() still refuses to go on."""
    env = SingleAgentEnv("classic", 2, opponents="random", seed=0, illegal_action="raise")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        mask = info["action_mask"]
        assert 0 < mask.sum() < len(mask)
        np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(mask))))
    assert info["action_mask"].all() and env.action_masks().all()
    with pytest.raises(ValueError, match="the episode is over"):
        env.step(0)
    _, info = env.reset()
    assert not info["action_mask"].all()
