"""The PettingZoo AEC environment: PettingZoo's own api_test and seed_test over player
counts and rule options, plus our own checks of rewards, errors and rendering."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env.envs.aec import raw_env

PLAYER_COUNTS = (2, 3, 4, 7, 10)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api(num_players):
    api_test(uno_env.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed(num_players):
    seed_test(lambda: uno_env.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("rules", [dict(bluff=False), dict(uno_call=False),
                                   dict(target_score=200), dict(reward="score"),
                                   dict(scoring="penalty", target_score=150)])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_rule_options(rules):
    api_test(uno_env.env(num_players=3, **rules), num_cycles=300)


def _play_out(env, seed):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals


def test_rewards_are_zero_sum_and_go_to_the_winner():
    """docs/rules.md 7: winner +1, others -1/(N-1); every agent sees its reward at the end."""
    env = uno_env.env(num_players=4, max_turns=100_000)
    for seed in range(5):
        totals = _play_out(env, seed)
        game = env.unwrapped.game
        assert game.terminated
        winner = f"player_{game.winner}"
        assert totals[winner] == pytest.approx(1.0)
        for agent, r in totals.items():
            if agent != winner:
                assert r == pytest.approx(-1 / 3)


def test_truncation_gives_zero_reward():
    env = uno_env.env(num_players=2, max_turns=3)
    totals = _play_out(env, 0)
    assert env.unwrapped.game.truncated
    assert all(r == 0 for r in totals.values())


def test_only_the_agent_to_move_has_a_mask():
    env = uno_env.env(num_players=3)
    env.reset(seed=1)
    mover = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8
        assert (mask.sum() > 0) == (agent == mover)


def test_illegal_action_raises_and_leaves_the_game_unchanged():
    env = uno_env.env(num_players=4)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.observe(agent)["observation"].copy()
    with pytest.raises(ValueError, match="legal moves: "):
        env.step(illegal)
    with pytest.raises(ValueError, match="valid ids 0..69"):
        env.step(70)
    with pytest.raises(ValueError, match="None is only accepted"):
        env.step(None)
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["observation"], before)


def test_step_before_reset_is_a_clear_error():
    env = uno_env.env()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="reset"):
        env.observe("player_0")


def test_bad_constructor_arguments_name_what_is_valid():
    with pytest.raises(ValueError, match="valid presets: classic"):
        uno_env.env(preset="clasic")
    with pytest.raises(ValueError, match="from 2 to 10"):
        uno_env.env(num_players=11)
    with pytest.raises(ValueError, match="unknown rule flag.*'blufff'.*valid flags"):
        uno_env.env(blufff=True)
    with pytest.raises(ValueError, match="render_mode"):
        uno_env.env(render_mode="rgb_array")
    env = uno_env.env()
    with pytest.raises(ValueError, match="non-negative integer"):
        env.reset(seed=-1)


def test_render_ansi_and_human(capsys):
    env = raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "player 0" in text and "player 1" in text and "top" in text
    env = raw_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "to move" in capsys.readouterr().out


def test_metadata_and_spaces():
    env = uno_env.env(num_players=4)
    assert env.metadata["name"] == "uno_v1"
    assert env.action_space("player_0").n == 70
    # 192 of v0, then shown_hand (54 card types) and shown_by (4 seats)
    assert env.observation_space("player_0")["observation"].shape == (192 + 54 + 4,)
    assert env.unwrapped.layout.decode(60) == "draw"


def test_reset_without_seed_continues_the_seeded_sequence():
    """reset(seed=s) then reset() k times plays games 0..k of seed s, reproducibly."""
    a, b = uno_env.env(num_players=3), uno_env.env(num_players=3)
    a.reset(seed=11)
    b.reset(seed=11)
    a.reset()
    b.reset()
    np.testing.assert_array_equal(a.observe("player_0")["observation"],
                                  b.observe("player_0")["observation"])
    fresh = uno_env.Game(num_players=3)
    fresh.reset(11, index=1)
    assert fresh.hand(0) == a.unwrapped.game.hand(0)


# --- illegal_action="lose": PettingZoo's classic convention ----------------------------
def _first_illegal(env):
    obs, *_ = env.last()
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def _finish(env):
    """Step every agent out as PettingZoo's loop does; return what each one saw last."""
    seen = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        seen[agent] = (reward, terminated, truncated, info, obs["action_mask"].sum())
        assert terminated and not truncated
        env.step(None)
    return seen


@pytest.mark.parametrize("num_players", [2, 4])
def test_illegal_action_lose_ends_the_game_with_the_losing_reward(num_players):
    env = uno_env.env(num_players=num_players, illegal_action="lose")
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))   # a legal move first
    mover = env.agent_selection
    before = list(env.unwrapped.game.history)
    env.step(_first_illegal(env))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.game.history == before          # the move was not played
    seen = _finish(env)
    assert set(seen) == set(env.possible_agents) and env.agents == []
    for agent, (reward, _, _, info, mask_sum) in seen.items():
        assert mask_sum == 0
        if agent == mover:
            assert reward == -1.0 and info["illegal_action"] is True
        else:
            assert reward == pytest.approx(1 / (num_players - 1))
            assert "illegal_action" not in info
    assert sum(r for r, *_ in seen.values()) == pytest.approx(0.0)


def test_illegal_action_lose_out_of_range_and_with_teams():
    env = uno_env.env(num_players=4, preset="teams", illegal_action="lose")
    env.reset(seed=0)
    mover = env.agent_name_mapping[env.agent_selection]
    env.step(env.action_space(env.agent_selection).n + 5)     # outside the space
    seen = _finish(env)
    for agent, (reward, *_) in seen.items():
        same_team = (env.unwrapped.agent_name_mapping[agent] - mover) % 2 == 0
        assert reward == (-1.0 if same_team else 1.0)


def test_illegal_action_lose_then_reset_plays_a_fresh_game():
    env = uno_env.env(num_players=3, illegal_action="lose")
    env.reset(seed=5)
    env.step(_first_illegal(env))
    _finish(env)
    env.reset(seed=5)
    assert env.agents == env.possible_agents and not any(env.terminations.values())
    assert _play_out(env, 5)  # a whole legal game runs after the forfeit


def test_illegal_action_raise_is_the_default_and_bad_values_are_named():
    env = uno_env.env(num_players=2)
    assert env.unwrapped.illegal_action == "raise"
    env.reset(seed=0)
    with pytest.raises(ValueError, match="legal moves"):
        env.step(_first_illegal(env))
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose', got "
                                         "'forfeit'"):
        uno_env.env(illegal_action="forfeit")
    lose = uno_env.env(num_players=2, illegal_action="lose")
    lose.reset(seed=0)
    with pytest.raises(ValueError, match="an action is an integer"):
        lose.step("R1")                  # not a move id: a caller's bug, not a forfeit
    assert not any(lose.terminations.values())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_with_illegal_action_lose():
    api_test(uno_env.env(num_players=3, illegal_action="lose"), num_cycles=200)


# --- every preset and variant (moved from the per-variant invariant files) ------------
#: (preset, players, rule flags): every preset, the player counts of the variants with
#: their own kernels, and house-rule flags alone
VARIANT_API_ROWS = (
    [(p, 4, {}) for p in uno_env.PRESETS]
    + [(p, n, {}) for p in ("flip", "onepiece") for n in (2, 3, 10)]
    + [("chaos", n, {}) for n in (2, 7)]
    + [("classic", 4, dict(stack=s)) for s in ("same", "any")]
    + [("classic", 4, {flag: True}) for flag in ("seven_zero", "jump_in", "force_play",
                                                 "no_draw_if_playable",
                                                 "draw_until_playable", "multi_play")]
    + [("classic112", 4, dict(wx_rule="draw1")),
       ("classic112", 4, dict(wx_rule="swap", ws_last_card_wins=True)),
       ("chaos", 4, dict(teams=True)), ("classic", 4, dict(teams=True, reward="score")),
       ("street", 3, dict(target_score=200))])


@pytest.mark.parametrize("preset,num_players,rules", VARIANT_API_ROWS,
                         ids=[f"{p}-{n}p" + "".join(f"-{k}={v}" for k, v in r.items())
                              for p, n, r in VARIANT_API_ROWS])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_of_every_variant(preset, num_players, rules):
    api_test(uno_env.env(preset=preset, num_players=num_players, **rules), num_cycles=150)


@pytest.mark.parametrize("preset,num_players", [("chaos", 3), ("street", 4), ("teams", 4),
                                                ("onepiece", 3), ("flip", 3)])
def test_pettingzoo_seed_of_every_variant(preset, num_players):
    seed_test(lambda: uno_env.env(preset=preset, num_players=num_players), num_cycles=150)


def test_a_cut_game_pays_the_settlement_with_settle_cut():
    """docs/rules.md 7: with ``settle_cut=True`` the step that cuts the game by
    ``max_turns`` pays each agent its standing (the fewest cards: +1, the others -1/2),
    as ``Game.rewards`` says; without it, nothing."""
    import numpy as np

    from uno_env.envs.aec import env as make_env
    for settle in (True, False):
        e = make_env(preset="classic", num_players=3, max_turns=10, settle_cut=settle)
        e.reset(seed=0)
        rng = np.random.default_rng(0)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _ = e.last()
            total[agent] += reward
            e.step(None if terminated or truncated else
                   int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = e.unwrapped.game
        assert game.truncated
        assert list(total.values()) == (game.rewards if settle else [0.0, 0.0, 0.0])
        if settle:
            cards = [len(game.hand(s)) for s in range(3)]
            assert sum(total.values()) == 0.0 and sorted(total.values()) == [-0.5, -0.5, 1.0]
            assert total[f"player_{int(np.argmin(cards))}"] == 1.0
