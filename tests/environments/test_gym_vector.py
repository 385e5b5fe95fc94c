"""``uno_env.GymVectorEnv``: a ``gymnasium.vector.VectorEnv`` over the learner batch.

Its same-step autoreset is checked against Gymnasium's documented behaviour (the same
mode of Gymnasium's own ``SyncVectorEnv``, which defines it in code, over
``SingleAgentEnv``) and against an independent replay of every finished game, which pins
where a finished game's last observation appears and what the step after returns."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import uno_env
from uno_env.envs.gym_vector import GymVectorEnv
from uno_env.envs.single_seat import LearnerBatch, SingleAgentEnv

KW = dict(preset="classic", num_players=2, opponents="random")


def pick(obs: np.ndarray, mask: np.ndarray) -> int:
    """A legal action that depends only on the observation (so a game's moves do not
    depend on the slot or the batch it is played in)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(np.abs(obs).sum() * 1000) % len(legal)])


def pick_all(obs, masks) -> np.ndarray:
    return np.array([pick(o, m) for o, m in zip(obs, masks)], np.int64)


def play(envs, steps: int, seed: int = 3):
    """Step ``envs`` with ``pick``; returns every step's outputs (copied)."""
    obs, infos = envs.reset(seed=seed)
    out = [(obs.copy(), None, None, None, infos)]
    for _ in range(steps):
        obs, rewards, term, trunc, infos = envs.step(pick_all(obs, infos["action_mask"]))
        out.append((obs.copy(), rewards.copy(), term.copy(), trunc.copy(), infos))
    return out


def assert_infos_equal(mine: dict, theirs: dict):
    assert set(mine) == set(theirs)
    for key, value in theirs.items():
        if isinstance(value, dict):
            assert_infos_equal(mine[key], value)
        elif value.dtype == object:     # final_obs: one array per row or None
            assert [x is None for x in mine[key]] == [x is None for x in value]
            for a, b in zip(mine[key], value):
                if b is not None:
                    np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(mine[key], value, err_msg=key)
            assert mine[key].dtype == value.dtype, key


def test_a_gymnasium_vector_env_with_single_and_batched_spaces():
    envs = GymVectorEnv(5, **KW, seed=0)
    cfg = envs.config
    assert isinstance(envs, gymnasium.vector.VectorEnv) and envs.num_envs == 5
    assert envs.single_observation_space == cfg.observation_space
    assert envs.single_action_space == cfg.action_space
    assert envs.observation_space == gymnasium.vector.utils.batch_space(
        cfg.observation_space, 5)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([cfg.layout.size] * 5)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (5, cfg.layout.size)
    assert infos["action_mask"].dtype == np.int8 and infos["_action_mask"].all()
    np.testing.assert_array_equal(envs.action_masks(), infos["action_mask"].astype(bool))
    actions = envs.action_space.sample(mask=tuple(infos["action_mask"]))
    obs, rewards, term, trunc, infos = envs.step(actions)
    assert envs.observation_space.contains(obs)
    assert rewards.shape == term.shape == trunc.shape == (5,)
    assert term.dtype == trunc.dtype == np.bool_
    assert uno_env.GymVectorEnv is GymVectorEnv and "GymVectorEnv" in uno_env.__all__


def test_same_step_autoreset_is_gymnasiums_own():
    """With one sub-env, the env gives step for step what Gymnasium's SyncVectorEnv in
    same-step mode gives over SingleAgentEnv (which plays the games of one seed in
    order): observations, rewards, flags and every info key with its mask, final_obs
    and final_info included."""
    reference = SyncVectorEnv([lambda: SingleAgentEnv(**KW)],
                              autoreset_mode=AutoresetMode.SAME_STEP)
    mine, theirs = play(GymVectorEnv(1, **KW), 150), play(reference, 150)
    ended = 0
    for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(mine, theirs):
        np.testing.assert_array_equal(o1, o2)
        if r1 is not None:
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(t1, t2)
            np.testing.assert_array_equal(u1, u2)
            ended += int(t1[0] or u1[0])
        assert_infos_equal(i1, i2)
    assert ended >= 2       # the comparison went through episode ends


def _replay(game_index: int, actions: list[int], seed: int = 3):
    """Game ``game_index`` of ``seed`` in a batch of its own that does not reset: its
    first observation, then (obs, reward, terminated, truncated) after each action."""
    lb = LearnerBatch(1, **KW, seed=seed, auto_reset=False)
    obs, _ = lb.reset(first_game=game_index)
    first, steps = obs[0].copy(), []
    for a in actions:
        obs, _, reward, term, trunc = lb.step(np.array([a]))
        steps.append((obs[0].copy(), float(reward[0]), bool(term[0]), bool(trunc[0])))
    return first, steps


def test_a_finished_game_is_replaced_in_the_same_step():
    """Gymnasium's same-step mode, checked against a replay of each game on its own:

    * the step that ends game g of sub-env i returns g's reward and terminated/truncated
      at i, while obs[i] and infos["action_mask"][i] are the next game's first ones;
    * g's last observation is infos["final_obs"][i] (None elsewhere, "_final_obs"
      marks i); infos["final_info"] is g's last info: every action marked (v2), g's seat and index;
    * the step after plays its action in the new game: its reward and flags are the
      new game's (not a reset step with reward 0 and the action ignored)."""
    envs = GymVectorEnv(3, **KW)
    history = play(envs, 160)
    moves: dict[int, list[int]] = {}         # game index -> the learner's actions
    firsts: dict[int, np.ndarray] = {}
    results: dict[int, tuple] = {}           # game index -> outputs of each step
    obs, _, _, _, infos = history[0]
    for i, g in enumerate(infos["game_index"]):
        firsts[int(g)] = obs[i]
    checked_after = 0
    for t in range(1, len(history)):
        prev_obs, prev_infos = history[t - 1][0], history[t - 1][4]
        obs, rewards, term, trunc, infos = history[t]
        done = term | trunc
        for i in range(3):
            g = int(prev_infos["game_index"][i])
            action = pick(prev_obs[i], prev_infos["action_mask"][i])
            moves.setdefault(g, []).append(action)
            final = infos["final_obs"][i] if done[i] else obs[i]
            results.setdefault(g, []).append((final, rewards[i], term[i], trunc[i]))
            if done[i]:
                new = int(infos["game_index"][i])
                assert new != g and new not in firsts
                firsts[new] = obs[i]
                assert infos["_final_obs"][i] and infos["_final_info"][i]
                assert infos["final_info"]["game_index"][i] == g
                assert infos["final_info"]["seat"][i] == prev_infos["seat"][i]
                assert infos["final_info"]["action_mask"][i].all()   # SingleAgentEnv v2
                assert infos["action_mask"][i].any()     # the new game's decision
                if t + 1 < len(history):
                    checked_after += 1
            else:
                assert not infos.get("_final_obs", np.zeros(3, bool))[i]
                if "final_obs" in infos:
                    assert infos["final_obs"][i] is None
    assert sum(1 for r in results.values() if r[-1][2] or r[-1][3]) >= 4
    assert checked_after >= 3
    for g, actions in moves.items():
        first, steps = _replay(g, actions)
        np.testing.assert_array_equal(firsts[g], first, err_msg=f"game {g}")
        for (o1, r1, t1, u1), (o2, r2, t2, u2) in zip(results[g], steps):
            np.testing.assert_array_equal(o1, o2, err_msg=f"game {g}")
            assert (r1, t1, u1) == (r2, t2, u2), f"game {g}"


def test_a_game_is_the_same_whatever_num_envs_and_seeding_twice_repeats_it():
    def outcomes(num_envs: int) -> dict[int, tuple]:
        envs = GymVectorEnv(num_envs, **KW)
        obs, infos = envs.reset(seed=11)
        out, length = {}, {}
        for _ in range(400 // num_envs):
            index = infos["game_index"]
            obs, rewards, term, trunc, infos = envs.step(
                pick_all(obs, infos["action_mask"]))
            for i, g in enumerate(index):
                length[g] = length.get(g, 0) + 1
                if term[i] or trunc[i]:
                    out[int(g)] = (float(rewards[i]), length[g],
                                   infos["final_obs"][i].tobytes())
        return out

    one, four = outcomes(1), outcomes(4)
    common = set(one) & set(four)
    assert len(common) >= 3
    assert all(one[g] == four[g] for g in common)
    # seeded twice: identical trajectories
    a, b = play(GymVectorEnv(4, **KW), 60, seed=5), play(GymVectorEnv(4, **KW), 60, seed=5)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x[0], y[0])
        if x[1] is not None:
            np.testing.assert_array_equal(x[1], y[1])
            np.testing.assert_array_equal(x[2], y[2])
        assert_infos_equal(x[4], y[4])


def test_reset_follows_the_seed_like_the_single_env():
    envs = GymVectorEnv(3, **KW, seed=7)
    obs, infos = envs.reset()                      # the constructor's seed, games 0..2
    assert infos["game_index"].tolist() == [0, 1, 2]
    again, infos_again = GymVectorEnv(3, **KW).reset(seed=7)
    np.testing.assert_array_equal(obs, again)
    obs2, infos = envs.reset()                     # the next games not dealt yet
    assert infos["game_index"].tolist() == [3, 4, 5]
    lb = LearnerBatch(3, **KW, seed=7)
    np.testing.assert_array_equal(obs2, lb.reset(first_game=3)[0])
    _, infos = envs.reset(seed=7)                  # a seed starts over
    assert infos["game_index"].tolist() == [0, 1, 2]
    _, infos = envs.reset(options={"first_game": 10})
    assert infos["game_index"].tolist() == [10, 11, 12]
    with pytest.raises(ValueError, match="one integer for every sub-env"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="non-negative integer"):
        envs.reset(seed=-1)
    with pytest.raises(ValueError, match=r"options\['first_game'\] must be a non-negative"):
        envs.reset(options={"first_game": -1})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['reset_mask'\]; "
                                         "valid options: first_game"):
        envs.reset(options={"reset_mask": np.ones(3, bool)})


def test_outputs_are_fresh_unless_copy_is_false():
    envs = GymVectorEnv(4, **KW)
    obs, infos = envs.reset(seed=1)
    kept, kept_mask = obs.copy(), infos["action_mask"].copy()
    obs2, rewards, term, trunc, infos2 = envs.step(pick_all(obs, infos["action_mask"]))
    np.testing.assert_array_equal(obs, kept)               # not overwritten by step
    np.testing.assert_array_equal(infos["action_mask"], kept_mask)
    obs2[:] = -1                                           # the caller owns it
    assert envs.observation_space.contains(envs.step(
        pick_all(envs.batch.obs, envs.action_masks()))[0])
    assert not np.shares_memory(obs2, envs.batch.obs)

    views = GymVectorEnv(4, **KW, copy=False)
    obs, infos = views.reset(seed=1)
    obs_b, rewards_b, _, _, infos_b = views.step(pick_all(obs, infos["action_mask"]))
    assert np.shares_memory(obs, obs_b) and np.shares_memory(obs_b, views.batch.obs)
    assert np.shares_memory(infos_b["action_mask"], views.batch.mask)
    assert infos_b["action_mask"].dtype == np.int8
    with pytest.raises(ValueError, match="copy must be True or False"):
        GymVectorEnv(2, **KW, copy="no")


def test_bad_actions_are_refused_and_nothing_changes():
    envs, twin = GymVectorEnv(3, **KW), GymVectorEnv(3, **KW)
    obs, infos = envs.reset(seed=2)
    twin.reset(seed=2)
    good = pick_all(obs, infos["action_mask"])
    n = envs.single_action_space.n
    with pytest.raises(ValueError, match=r"shape \(3,\), got int64 \(2,\)"):
        envs.step(good[:2])
    with pytest.raises(ValueError, match=r"integer array of shape \(3,\), got float64"):
        envs.step(good.astype(float))
    bad = good.copy()
    bad[1] = n
    with pytest.raises(ValueError, match=rf"in 0\.\.{n - 1} \(Discrete\({n}\)\), got "
                                         rf"{n} for sub-env 1\. No game was stepped"):
        envs.step(bad)
    illegal = good.copy()
    illegal[2] = int(np.flatnonzero(infos["action_mask"][2] == 0)[0])
    with pytest.raises(ValueError, match="is not legal in game 2; legal moves: .*"
                                         "No game was stepped"):
        envs.step(illegal)
    # nothing changed: the next good step is the one of a twin that saw no bad action
    a, b = envs.step(good), twin.step(good)
    for x, y in zip(a[:4], b[:4]):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="call reset"):
        GymVectorEnv(2, **KW).step(np.zeros(2, np.int64))


class FirstLegal:
    """A Python opponent (an agent object with act_batch)."""

    def act_batch(self, observations, masks):
        return masks.argmax(axis=1)


def test_options_presets_rule_flags_players_and_opponents():
    envs = GymVectorEnv(4, preset="street", num_players=3, opponents="heuristic",
                        stack="same", seed=0)
    assert (envs.config.preset, envs.config.num_players) == ("street", 3)
    assert envs.config.rules.stack == "same" and envs.config.rules.seven_zero is True
    assert GymVectorEnv(2).config.num_players == 4          # as SingleAgentEnv v1
    mixed = GymVectorEnv(4, num_players=3, opponents=["greedy", FirstLegal()], seat=1)
    obs, infos = mixed.reset(seed=0)
    assert (infos["seat"] == 1).all()
    for _ in range(20):
        obs, *_, infos = mixed.step(pick_all(obs, infos["action_mask"]))
    assert mixed.observation_space.contains(obs)
    with pytest.raises(ValueError, match="unknown rule flag"):
        GymVectorEnv(2, colour="red")
    with pytest.raises(ValueError, match="unknown opponent 'alphazero'"):
        GymVectorEnv(2, opponents="alphazero")
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        GymVectorEnv(0)


def test_make_vec_builds_it_from_the_registry():
    envs = gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=8,
                              vectorization_mode="vector_entry_point", preset="flip",
                              num_players=3, opponents="heuristic", bluff=False)
    assert isinstance(envs, GymVectorEnv) and envs.num_envs == 8
    assert envs.config.rules.deck == "flip" and envs.config.rules.bluff is False
    assert envs.config.num_players == 3 and envs.spec.id == "uno_env/UnoSingleSeat-v3"
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, *envs.single_observation_space.shape)
    # the default mode is the vector entry point
    assert isinstance(gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=2),
                      GymVectorEnv)
