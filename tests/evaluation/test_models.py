"""The shipped 4-player models (issue 18, one per benchmark track): each loads by its
registered name with its own preset and player count, and plays legal moves in its
preset (a handful of games; their strength is measured by benchmarks/models.py and
reported in agents/models/README.md)."""
from __future__ import annotations

import json

import pytest

from agents.ppo import PPOAgent, shipped_models
from uno_env import make_config
from uno_env.players.registry import agent_names, is_configured, make_agent
from uno_env.evaluation.win_rate import evaluate

#: model name -> the preset of its track
TRACK_MODELS = {"ppo_classic_4p": "classic", "ppo_house_4p": "street",
                "ppo_flip_4p": "flip", "ppo_onepiece_4p": "onepiece"}


def test_every_track_model_is_shipped_and_registered():
    assert set(TRACK_MODELS) <= set(shipped_models())
    names = agent_names()
    for name in TRACK_MODELS:
        assert name in names and is_configured(name)


@pytest.mark.parametrize("name", sorted(TRACK_MODELS))
def test_track_model_loads_by_name_with_its_own_configuration(name):
    agent = make_agent(name, None)   # a model knows its configuration
    assert isinstance(agent, PPOAgent) and agent.name == name
    assert (agent.config.preset, agent.config.num_players) == (TRACK_MODELS[name], 4)
    assert agent.meta["trained_steps"] > 0
    # the configuration check of the registry accepts its own track
    make_agent(name, make_config(TRACK_MODELS[name], 4))


@pytest.mark.parametrize("name", sorted(TRACK_MODELS))
def test_track_model_plays_legal_moves_in_its_preset(name):
    """Games to the end against three heuristic seats, the model in each seat: the
    learner env refuses an illegal action (ValueError), so finishing them means every
    move of the model was legal."""
    agent = make_agent(name, None)
    for seat in range(4):
        r = evaluate(agent, "heuristic", 2, TRACK_MODELS[name], 4, seed=5, seat=seat)
        assert r["games"] == 2 and 0 <= r["wins"] + r["truncated"] <= 2


def test_track_model_plays_a_tournament_by_name(tmp_path):
    """The name alone on the command line: uno-bench tournament --agents NAME,heuristic."""
    from typer.testing import CliRunner

    from uno_env.apps.cli import app
    result = CliRunner().invoke(app, ["tournament", "--agents", "ppo_classic_4p,heuristic",
                                      "--preset", "classic", "--players", "4", "--games",
                                      "4", "--seed", "5", "--no-progress", "--out",
                                      str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["agents"] == ["ppo_classic_4p", "heuristic"]


def test_exit_classic_2p_loads_by_name_plays_legal_moves_and_is_deterministic():
    """The expert-iteration network (agents.exit, issue 47): its name alone is a
    2-player classic agent, numpy only (a residual policy that reads the heuristic's
    move), whose games against the heuristic finish (every move legal: the learner env
    refuses an illegal one) and repeat exactly for a seed."""
    from uno_env import Game
    assert "exit_classic_2p" in shipped_models() and is_configured("exit_classic_2p")
    agent = make_agent("exit_classic_2p", None)
    assert (agent.config.preset, agent.config.num_players) == ("classic", 2)
    assert agent.meta["method"] == "expert iteration" and agent.meta["advice"] == "heuristic"
    runs = [evaluate(agent, "heuristic", 6, "classic", 2, seed=5, seat=seat)
            for seat in (0, 1, 0)]
    assert all(r["games"] == 6 for r in runs) and runs[0] == runs[2]
    game, moves = Game("classic", 2, seed=3), []
    game.reset(3, 0)
    again = make_agent("exit_classic_2p", None)
    while not game.is_over and len(moves) < 60:
        obs, mask = game.observe(game.current_player), game.action_mask()
        action = agent.act(obs, mask)
        assert mask[action] and action == again.act(obs, mask)
        moves.append(action)
        game.step(action)
    assert len(moves) > 5


@pytest.mark.parametrize("name", sorted(shipped_models()))
def test_a_shipped_model_reads_the_layout_it_was_trained_on(name):
    """The shipped models were trained before ``shown_hand``: each reads the first
    ``meta["obs_size"]`` entries of an observation (the earlier ids' whole vector, a
    prefix of today's), so today's observation, the earlier ids' and today's with any
    shown hand give the same moves (docs/environments.md, "The observation")."""
    import numpy as np

    from uno_env import Game
    from uno_env.envs.legacy import legacy_size
    agent = PPOAgent.load(name)
    cfg = agent.config
    assert agent.input_size == agent.meta["obs_size"] == legacy_size(cfg) \
        < cfg.layout.obs_size
    game = Game(cfg.preset, cfg.num_players, seed=2)
    rows, masks = [], []
    for index in range(3):
        game.reset(2, index)
        while not game.is_over and len(rows) < 40 * (index + 1):
            rows.append(game.observe(game.current_player).copy())
            masks.append(game.action_mask().copy())
            game.step(int(np.flatnonzero(game.action_mask())[0]))
    obs, mask = np.array(rows), np.array(masks)
    noisy = obs.copy()
    noisy[:, agent.input_size:] = np.random.default_rng(0).integers(
        0, 3, noisy[:, agent.input_size:].shape)
    moves = agent.act_batch(obs, mask)
    np.testing.assert_array_equal(agent.act_batch(obs[:, :agent.input_size], mask), moves)
    np.testing.assert_array_equal(agent.act_batch(noisy, mask), moves)
    with pytest.raises(ValueError, match="act_batch takes observations"):
        agent.act_batch(obs[:, :agent.input_size - 1], mask)
    # without bluffing there is no shown hand: the vector is the earlier one, which the
    # model still plays
    agent.check_config(make_config(cfg.preset, cfg.num_players, bluff=False))


def test_one_function_builds_the_policy_record_and_the_file_keeps_it(tmp_path):
    """``policy_record`` is the record of every exported policy: the game, the sizes,
    then the exporter's entries; a file saved with it loads with the same record."""
    import numpy as np

    from uno_env.players.policy_file import POLICY_FORMAT, policy_record
    config = make_config("classic", 2, stack="any")
    record = policy_record(config, "tanh", name="mine", trainer="test")
    assert record == {"format": POLICY_FORMAT, "preset": "classic", "num_players": 2,
                      "rules": {"stack": "any"}, "obs_size": config.layout.obs_size,
                      "num_actions": config.layout.size, "activation": "tanh",
                      "name": "mine", "trainer": "test"}
    with pytest.raises(ValueError, match="num_players"):
        policy_record(config, num_players=4)
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(8, config.layout.obs_size)).astype(np.float32),
               np.zeros(8, np.float32)),
              (rng.normal(size=(config.layout.size, 8)).astype(np.float32),
               np.zeros(config.layout.size, np.float32))]
    scale = np.ones(config.layout.obs_size, np.float32)
    path = PPOAgent(layers, scale, record).save(tmp_path / "mine.npz")
    again = PPOAgent.load(path)
    assert {k: again.meta[k] for k in record} == record
