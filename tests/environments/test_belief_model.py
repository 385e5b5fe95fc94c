"""The shipped learned belief (``agents.belief``, ``agents/models/belief_*.npz``) loads and
keeps the hard facts: every hand its size, no type more often than it is hidden, a card a
challenge showed where it is."""
import numpy as np
import pytest

from agents.belief import BeliefModel
from uno_env import Game


def positions(model, games=2):
    """Seat 0's observations (with the record) and the true other hands, in a few
    random games."""
    cfg = model.config
    rel = [r % cfg.num_players for r in range(1, cfg.num_players)]
    out = []
    for i in range(games):
        g = Game(cfg.preset, cfg.num_players, seed=11, public_record=True)
        g.reset(11, i)
        while not g.is_over:
            if g.current_player == 0:
                out.append((g.observe(0), g.engine_state.hands[0, rel].copy()))
            g.step(g.random_action())
    return out


@pytest.mark.parametrize("name", ["belief_classic_4p", "belief_classic_2p"])
def test_the_shipped_belief_is_consistent_with_the_counts(name):
    model = BeliefModel.load(name)
    data = positions(model)
    obs = np.stack([o for o, _ in data])
    true = np.stack([h for _, h in data]).astype(np.float64)
    pool = model.hidden_pool(obs)
    sizes = model.hand_sizes(obs)
    assert np.array_equal(sizes, true.sum(axis=2))
    assert (pool >= true.sum(axis=1)).all()
    q = model.predict(obs)
    assert np.allclose(q.sum(axis=2), 1.0, atol=1e-4) and (q[pool[:, None, :].repeat(
        q.shape[1], 1) == 0] == 0).all()
    expected = model.expected_hands(obs)
    assert np.allclose(expected.sum(axis=2), sizes, atol=1e-3)
    assert (expected.sum(axis=1) <= pool + 1e-3).all()
    rng = np.random.default_rng(0)
    for o, h in data[::7]:
        deal = model.sample_hands(o, rng)
        assert np.array_equal(deal.sum(axis=1), h.sum(axis=1))
        assert (deal.sum(axis=0) <= model.hidden_pool(o[None])[0]).all()
    # better than a uniform redraw at the true hands' types, on these positions
    uniform = pool / pool.sum(axis=1, keepdims=True)
    held = true > 0
    learned_ll = (true * np.log(np.where(held, expected / sizes[..., None], 1.0))).sum()
    uniform_ll = (true * np.log(np.where(held, uniform[:, None, :], 1.0))).sum()
    assert learned_ll > uniform_ll


def test_a_shown_card_is_dealt_to_its_hand():
    model = BeliefModel.load("belief_classic_4p")
    g = Game.from_scenario(hands=[["R5", "B7", "W4", "R1"], ["G2", "G3", "Y4"],
                                  ["B1", "B2"], ["Y7", "Y8", "G1"]], top="R8",
                           draw_pile=["G9", "Y1", "R2", "B3", "B4", "B5", "B6"],
                           public_record=True)
    g.play("W4:G")        # a bluff: seat 0 holds R5 and R1
    g.play("challenge")   # seat 1 sees R5 B7 R1
    obs = g.observe(1)
    assert model.known(obs[None])[0].sum() == 3
    rng = np.random.default_rng(1)
    for _ in range(5):
        deal = model.sample_hands(obs, rng)
        seat0 = deal[2]   # relative seat 3 of seat 1
        assert all(seat0[model.config.deck.parse_type(c)] >= 1 for c in ("R5", "B7", "R1"))
    expected = model.expected_hands(obs[None])[0]
    assert expected[2, model.config.deck.parse_type("B7")] >= 1.0 - 1e-4


def test_a_missing_model_names_the_shipped_ones():
    with pytest.raises(ValueError, match="belief_classic_4p"):
        BeliefModel.load("belief_nowhere")
