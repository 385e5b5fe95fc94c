"""``mcts`` as an opponent of the learner envs (``LearnerBatch``, ``SingleAgentEnv``, the
SB3 and Gymnasium vector envs): it plays whole legal episodes, the games follow the seed
whatever the batch size, and its moves are those of ``agents.MCTSAgent`` following the
same game through ``Game`` with the game's search stream, as in ``simulate``. Classic
only and small budgets: the search entry point of classic is the only kernel used."""
from __future__ import annotations

import numpy as np
import pytest
from test_learner import assert_batch_size_free

from agents import MCTSAgent
from uno_env import Game
from uno_env.engine import codes as C
from uno_env.engine.rng import seed_stream_py
from uno_env.engine.search import SEARCH_SALT
from uno_env.envs.single_seat import LearnerBatch, SingleAgentEnv, parse_opponents


def _play(batch, rng):
    """Random legal learner moves until every game is done; the learner's actions and
    returns per slot."""
    obs, mask = batch.reset()
    actions = [[] for _ in range(batch.num_envs)]
    returns = np.zeros(batch.num_envs)
    while not batch.done.all():
        live = np.flatnonzero(~batch.done)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        for g in live:
            assert mask[g, a[g]]
            actions[g].append(int(a[g]))
        obs, mask, reward, _, _ = batch.step(a)
        returns += reward
    return actions, returns


def test_mcts_opponents_play_whole_zero_sum_episodes():
    batch = LearnerBatch(3, "classic", 3, opponents=["mcts:4", "heuristic"], seed=2,
                         auto_reset=False)
    assert batch.searches
    _, returns = _play(batch, np.random.default_rng(0))
    st = batch._state
    assert (st.info[:, C.I_STATUS] != C.STATUS_PLAYING).all()
    np.testing.assert_allclose(st.rewards.sum(axis=1), 0, atol=1e-6)  # the last move
    for g in range(3):
        won = st.info[g, C.I_MATCH_WINNER] == batch.learner_seat[g]
        assert returns[g] == pytest.approx(1.0 if won else -0.5)


def test_same_seed_same_games_whatever_the_batch_size():
    assert_batch_size_free("mcts:4", (2, 5), steps=60, min_common=4)


def _first_legal_play(batch):
    """The learner plays its lowest legal action until every game is done."""
    obs, mask = batch.reset()
    while not batch.done.all():
        obs, mask, _, _, _ = batch.step(mask.argmax(axis=1))


def _replay(batch, seed, salt_seed, belief=True):
    """Each slot's game through ``Game``: the learner's lowest legal action, and at
    every other seat an ``MCTSAgent`` (UCB, as named) following the game, all of them
    drawing from one stream ``seed_stream(salt_seed ^ SEARCH_SALT, index)``; with
    ``belief=False`` it forgets the belief before each decision. Returns the final
    hands and rewards of every game."""
    out = []
    for slot in range(batch.num_envs):
        index = int(batch.game_index[slot])
        game = Game("classic", batch.num_players, seed=seed)
        game.reset(seed, index=index)
        stream = np.array([seed_stream_py(salt_seed ^ int(SEARCH_SALT), index)], np.uint64)
        bot = MCTSAgent(game.config, budget=6, mode="ucb").share_stream(stream).attach(game)
        learner = int(batch.learner_seat[slot])
        while not game.is_over:
            if game.current_player == learner:
                game.step(int(game.action_mask().argmax()))
            else:
                if not belief:
                    bot._follow(game)
                game.step(bot.act_game(game))
        out.append((game._state.hands[0].copy(), game.rewards.copy()))
    return out


def _same(batch, replayed) -> bool:
    return all(np.array_equal(batch._state.hands[g], hands) and
               np.allclose(batch._state.rewards[g], rewards)
               for g, (hands, rewards) in enumerate(replayed))


def test_its_moves_are_those_of_the_python_agent_following_the_game():
    """Same learner policy, same games: the batch's final hands and rewards are those of
    ``MCTSAgent`` replaying the games with the game's search stream and its belief
    (``watch`` after every move). A replay from another search stream, or without the
    belief, ends otherwise: the check would catch a wrong stream or belief."""
    seed = 5
    batch = LearnerBatch(6, "classic", 3, opponents="mcts-ucb:6", seat="random",
                         seed=seed, auto_reset=False)
    _first_legal_play(batch)
    assert _same(batch, _replay(batch, seed, seed))
    assert not _same(batch, _replay(batch, seed, seed + 1))
    assert not _same(batch, _replay(batch, seed, seed, belief=False))


def test_single_agent_env_and_bad_names():
    env = SingleAgentEnv("classic", 2, opponents="mcts:4", seed=1)
    obs, info = env.reset()
    done = False
    while not done:
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    assert reward in (1.0, -1.0) or trunc
    for bad in ("mcts:0", "mcts:abc"):
        with pytest.raises(ValueError, match=r"'mcts:400'.*named opponents are random"):
            parse_opponents(bad, 2)
    with pytest.raises(ValueError, match="mcts-fast"):
        LearnerBatch(1, "classic", 2, opponents="mcts-fast")


def test_gymnasium_vector_env_takes_mcts():
    from uno_env.envs.gym_vector import GymVectorEnv
    envs = GymVectorEnv(3, "classic", 2, opponents="mcts:4", seed=0)
    obs, infos = envs.reset()
    for _ in range(5):
        obs, rewards, term, trunc, infos = envs.step(envs.action_masks().argmax(axis=1))
    assert obs.shape == (3, envs.config.layout.obs_size)


def test_sb3_vec_env_takes_mcts():
    pytest.importorskip("torch", reason="needs the rl extra")
    pytest.importorskip("stable_baselines3", reason="needs the rl extra")
    from uno_env.integrations.sb3 import UnoVecEnv
    venv = UnoVecEnv(3, "classic", 2, opponents="mcts:4", seed=0)
    venv.reset()
    for _ in range(5):
        obs, rewards, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
    assert obs.shape == (3, venv.config.layout.obs_size)


def test_evaluate_of_mcts_against_mcts_plays_simulates_games():
    """With a search opponent the evaluated search agent shares the game's belief and
    search stream: the learner at seat 0 wins exactly the games ``simulate`` gives
    seat 0 with the same agents."""
    from uno_env import make_config, simulate
    from uno_env.evaluation.win_rate import evaluate
    bot = MCTSAgent(make_config("classic", 2), budget=6)
    out = evaluate(bot, "mcts:5", num_games=6, num_players=2, seed=4, seat=0, batch=4)
    sim = simulate("classic", 2, agents=["mcts:6", "mcts:5"], num_games=6, seed=4,
                   threads=1)
    assert out["wins"] == int((sim.winner == 0).sum())
    assert out["truncated"] == int((sim.winner < 0).sum())
