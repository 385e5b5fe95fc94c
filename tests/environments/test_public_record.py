"""The public record (``public_record=True``, ``engine/public_record.py``): scenario
tests of its fields, and the same vector from every API that offers it."""
import numpy as np
import pytest

import uno_env
from uno_env import Game
from uno_env.engine.obs_layout import RECORD_FIELDS, record_slices
from uno_env.envs.every_seat import EverySeatBatch
from uno_env.envs.single_seat import LearnerBatch, SingleAgentEnv


def fields(game, observer):
    """``observer``'s record, field name -> array[P - 1, width] (by relative seat)."""
    cfg = game.config
    obs = game.observe(observer)
    out = {}
    for name, where in record_slices(cfg.deck.num_types, cfg.num_players,
                                     cfg.rules).items():
        out[name] = obs[where].reshape(cfg.num_players - 1, -1).astype(int)
    return out


def known(game, observer):
    """``observer``'s ``rec_known`` as sorted card names per relative seat."""
    rows = fields(game, observer)["rec_known"]
    return [sorted(game._name(t) for t in np.flatnonzero(r) for _ in range(r[t]))
            for r in rows]


def test_draws_wild_colours_plays_and_a_shown_hand():
    g = Game.from_scenario(hands=[["R5", "B7", "W4", "R1"], ["G2", "G3", "Y4"],
                                  ["B1", "B2"]], top="R8",
                           draw_pile=["G9", "Y1", "R2", "B3", "B4", "B5", "B6"],
                           public_record=True)
    assert not fields(g, 1)["rec_taken"].any()  # an empty record at the start
    g.play("R5")
    g.play("draw")        # seat 1 on R5: no red, no 5 (G9 drawn, not playable)
    g.play("draw")        # seat 2 the same (Y1)
    g.play("W4:G")        # seat 0 bluffs: it holds R1
    g.play("challenge")   # seat 1 challenges and sees seat 0's hand
    f = fields(g, 1)      # relative seat 1 is seat 2, relative seat 2 is seat 0
    assert f["rec_drew_color"].tolist() == [[1, 0, 0, 0], [0, 0, 0, 0]]
    assert np.flatnonzero(f["rec_drew_rank"][0]).tolist() == [5]
    assert not f["rec_drew_rank"][1].any()
    assert f["rec_named"].tolist() == [[0, 0, 0, 0], [0, 0, 1, 0]]   # green
    assert f["rec_played_color"].tolist() == [[0] * 5, [1, 0, 0, 0, 1]]  # R5, a wild
    assert np.flatnonzero(f["rec_played_rank"][1]).tolist() == [5, 18]  # 5, WILD4
    assert f["rec_taken"].ravel().tolist() == [1, 4]          # a draw; the penalty
    assert f["rec_draw_choices"].ravel().tolist() == [1, 0]
    assert f["rec_taken_since"].ravel().tolist() == [1, 4]
    # the hand as shown (after the W4 left it), to the challenger only
    assert known(g, 1) == [[], ["B7", "R1"]]
    assert known(g, 2) == [[], []]
    assert g.hand_sizes == [6, 4, 3]


def test_playing_clears_what_a_draw_said():
    g = Game.from_scenario(hands=[["R5", "G7"], ["R7", "Y3", "B9"]], top="Y7",
                           draw_pile=["B1", "G5"], public_record=True)
    g.play("draw")        # seat 0 draws on Y7 (B1, not playable): no yellow, no 7
    f = fields(g, 1)
    assert f["rec_drew_color"].tolist() == [[0, 1, 0, 0]]
    assert np.flatnonzero(f["rec_drew_rank"][0]).tolist() == [7]
    assert f["rec_taken_since"].ravel().tolist() == [1]
    assert f["rec_draw_choices"].ravel().tolist() == [1]
    g.play("R7")
    g.play("R5")          # seat 0 plays: its draw no longer says anything
    f = fields(g, 1)
    assert not f["rec_drew_color"].any() and not f["rec_drew_rank"].any()
    assert f["rec_taken_since"].ravel().tolist() == [0]
    assert f["rec_taken"].ravel().tolist() == [1]
    assert f["rec_played_color"].tolist() == [[1, 0, 0, 0, 0]]
    assert f["rec_draw_choices"].ravel().tolist() == [1]
    assert fields(g, 0)["rec_played_color"].tolist() == [[1, 0, 0, 0, 0]]  # seat 1's R7


def test_the_plain_observation_is_a_prefix_and_unchanged():
    plain, rec = Game("classic", 3, seed=4), Game("classic", 3, seed=4, public_record=True)
    d = plain.config.layout.obs_size
    assert rec.observe(0).shape == (rec.config.observation_size(True),)
    for _ in range(40):
        if plain.is_over:
            break
        for q in range(3):
            assert np.array_equal(plain.observe(q), rec.observe(q)[:d])
        a = plain.random_action()
        assert rec.random_action() == a
        plain.step(a)
        rec.step(a)
    cfg = plain.config
    slices = list(record_slices(54, 3, cfg.rules).values())
    assert slices[0].start == d and all(a.stop == b.start for a, b in
                                        zip(slices, slices[1:]))
    assert [name for name, _ in RECORD_FIELDS] == list(record_slices(54, 3, cfg.rules))
    assert slices[-1].stop == cfg.observation_size(True)


def test_every_api_gives_the_same_record():
    seed = 3
    batch = EverySeatBatch(3, "classic", 4, seed=seed, public_record=True)
    obs, _, _ = batch.reset()
    games = [Game("classic", 4, public_record=True) for _ in range(3)]
    for b, g in enumerate(games):
        g.reset(seed, int(batch.game_index[b]))
    rng = np.random.default_rng(0)
    for _ in range(120):
        actions = batch.random_actions(rng)
        for b, g in enumerate(games):
            g.step(int(actions[b]))
        obs, _, _, _, term, trunc = batch.step(actions)
        for b, g in enumerate(games):
            if term[b] or trunc[b]:
                g.reset(seed, int(batch.game_index[b]))
            assert np.array_equal(g.current_observation(), obs[b])
    assert np.array_equal(batch.observe([1], 2)[0], games[1].observe(2))
    assert batch.observation_space.shape == obs.shape[1:]

    # the AEC env is a Game; the learner batch and the Gymnasium env play their random
    # opponents from the game's own stream, as Game.random_action does
    env = uno_env.env("classic", 4, public_record=True)
    env.reset(seed=seed)
    assert np.array_equal(env.observe(env.agent_selection)["observation"],
                          games[0].__class__("classic", 4, seed, True).observe(
                              env.agents.index(env.agent_selection)))
    learner = LearnerBatch(1, "classic", 4, opponents="random", seat=2, seed=seed,
                           public_record=True)
    single = SingleAgentEnv("classic", 4, opponents="random", seat=2, seed=seed,
                            public_record=True)
    lobs, lmask = learner.reset()
    sobs, _ = single.reset(seed=seed)
    g = Game("classic", 4, seed=seed, public_record=True)
    compared = 0
    for _ in range(60):
        while g.current_player != 2 and not g.is_over:
            g.step(g.random_action())
        if g.is_over or learner.done[0]:
            break
        assert np.array_equal(g.current_observation(), lobs[0])
        assert np.array_equal(sobs, lobs[0])
        compared += 1
        a = int(np.flatnonzero(lmask[0])[0])
        g.step(a)
        lobs, lmask, _, term, trunc = learner.step(np.array([a]))
        sobs, *_ = single.step(a)
        if term[0] or trunc[0]:
            break
    assert compared >= 5 and g.observe(2)[-200:].any()
    assert single.observation_space.shape == lobs.shape[1:]


def test_bad_requests_say_what_is_valid():
    with pytest.raises(ValueError, match="not available for the 'flip' deck"):
        Game("flip", 2, public_record=True)
    with pytest.raises(ValueError, match="True or False"):
        Game("classic", 2, public_record="yes")
    with pytest.raises(ValueError, match="obs_dtype='float32'"):
        EverySeatBatch(2, "classic", 2, obs_dtype="uint8", public_record=True)
    with pytest.raises(ValueError, match="search opponent"):
        LearnerBatch(1, "classic", 2, opponents="mcts:8", public_record=True)
