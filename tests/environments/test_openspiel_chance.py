"""``python_uno`` with explicit chance on small decks (docs/rules.md 8, docs/openspiel.md)
and its whole tree as an OpenSpiel EFG game (``uno_env.integrations.openspiel.tree``): the deal
built from chance outcomes is the engine's deal; the exact expected returns of random
play over the tree agree with the engine's own random games (deals, draws and
reshuffles included); the information state is perfect recall, as a string and as a
tensor, and holds the hand a challenge shows; CFR+ solves the smallest game.
"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import NEEDS

pyspiel = pytest.importorskip("pyspiel", reason=NEEDS["openspiel"])

import uno_env  # noqa: E402
from uno_env.engine import codes as C  # noqa: E402
from uno_env.integrations.openspiel import explicit_chance as ec  # noqa: E402
from uno_env.integrations.openspiel import game as uno_spiel  # noqa: E402
from uno_env.integrations.openspiel import tree as ot  # noqa: E402

#: every first card: numbers, S, R, D2, W (and W4, which goes back)
FIRST_CARDS = dict(colors=2, numbers=2, copies=1, action_cards="S/R/D2", wilds=1,
                   wild_draw_fours=1, hand_size=2)
SHORT = {**ot.TINY, "max_turns": 2}


@pytest.fixture(scope="module")
def tree():
    return ot.export(ot.load(SHORT))


@pytest.mark.parametrize("players", [2, 3])
def test_the_deal_built_from_chance_outcomes_is_the_engines_deal(players):
    game = uno_env.Game("classic", players, seed=0, **FIRST_CARDS)
    config, tops = game.config, set()
    for index in range(150):
        game.reset(5, index)
        st = game._state
        hands = [st.hands[0, q].astype(np.int64) for q in range(players)]
        top = int(st.discard[0, 0])
        tops.add(config.deck.type_name(top))
        built = ec.deal_game(config, hands, top, int(st.info[0, C.I_STAT_CARDS_DRAWN]))
        np.testing.assert_array_equal(built._state.info[0], st.info[0])
        np.testing.assert_array_equal(built.action_mask(), game.action_mask())
        for q in range(players):
            np.testing.assert_array_equal(built.observe(q), game.observe(q))
    assert {"RS", "RR", "RD2", "W"} <= tops and "W4" not in tops


def test_chance_outcomes_are_weighted_by_the_copies_left():
    game = ot.load(SHORT)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    hands = state.chance_outcomes()
    assert len(hands) == 21 and sum(p for _, p in hands) == pytest.approx(1.0)
    state.apply_action(game._hand_index[(1, 1, 0, 0, 0, 0, 0)])  # R0 R1 to seat 1
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0).startswith("deal")
    state.apply_action(game._hand_index[(0, 0, 1, 1, 0, 0, 0)])  # RS Y0 to seat 0
    first = dict(state.chance_outcomes())
    assert first == pytest.approx({4: 1 / 3, 5: 1 / 3, 6: 1 / 3})  # Y1 YS W
    state.apply_action(4)                                          # Y1 turned up
    assert state.current_player() == 1 and state.uno.hand(1) == ["R0", "R1"]
    state.apply_action(state.uno.layout.DRAW)                      # 2 cards left
    assert dict(state.chance_outcomes()) == pytest.approx({5: 0.5, 6: 0.5})
    with pytest.raises(ValueError, match="not possible"):
        state.apply_action(0)
    state.apply_action(6)                                          # draws the W
    assert state.uno.hand(1) == ["R0", "R1", "W"] and state.uno.draw_pile == ["YS"]
    # chance="auto" is explicit for a small deck, sampled for the full one
    assert uno_spiel.UnoGame({"preset": "classic"}).explicit is False
    with pytest.raises(ValueError, match="classic deck"):
        uno_spiel.UnoGame({"preset": "flip", "chance": "explicit"})
    with pytest.raises(ValueError, match="chance must be one of"):
        uno_spiel.UnoGame({"chance": "maybe"})
    with pytest.raises(RuntimeError, match="chance='explicit' only"):
        uno_spiel.UnoGame({}).information_state_tensor_shape()


@pytest.mark.parametrize("players", [2, 3])
def test_exact_random_play_over_the_tree_agrees_with_the_engines_random_games(players,
                                                                             tree):
    # 3 players hold 6 of the 7 cards: the draw pile is empty, every draw reshuffles
    params = {**SHORT, "players": players}
    if players == 3:
        tree = ot.export(ot.load(params))
    exact = tree.returns()
    flags = {k: v for k, v in params.items() if k != "players"}
    games = 40_000
    sim = uno_env.simulate("classic", players, agents="random", num_games=games, seed=7,
                           threads=1, **flags)
    win = np.bincount(sim.winner[sim.winner >= 0], minlength=players) / games
    rewards = [win[q] - (win.sum() - win[q]) / (players - 1) for q in range(players)]
    # a reward is at most 1 in size: four standard errors at most 4 / sqrt(games)
    assert np.abs(np.array(rewards) - exact).max() < 4 / np.sqrt(games)
    assert sum(exact) == pytest.approx(0.0, abs=1e-9)


def test_information_state_is_perfect_recall_as_string_and_tensor():
    game = ot.load(SHORT)
    strings, tensors = {}, {}

    def walk(state):
        if state.is_terminal():
            return
        if not state.is_chance_node():
            p = state.current_player()
            s = state.information_state_string(p)
            t = np.asarray(state.information_state_tensor(p), np.float32).tobytes()
            assert strings.setdefault(s, t) == t   # one tensor per string
            assert tensors.setdefault(t, s) == s   # one string per tensor
            assert len(t) == 4 * game.information_state_tensor_size()
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            walk(child)

    state = game.new_initial_state()
    for outcome in (0, 20, 4):          # one deal, then every move and draw below it
        state.apply_action(outcome)
    walk(state)
    assert len(strings) > 10


def test_a_challenge_shows_the_wild_draw_four_players_hand_to_the_challenger():
    game = pyspiel.load_game("python_uno", {"preset": "classic", "seed": 1})
    uno = uno_env.Game.from_scenario("classic", hands=[["W4", "R5", "B7"], ["G1", "G2"]],
                                     top="R3")
    state = uno_spiel.UnoState(game, uno)
    state.apply_action(uno.layout.encode("W4:G"))        # a bluff: R5 matches red
    state.apply_action(uno.layout.CHALLENGE)
    shown = state.information_state_string(1)
    deck = uno.config.deck
    r5, b7 = deck.parse_type("R5"), deck.parse_type("B7")
    assert f"shown {r5}=1 {b7}=1" in shown                # the challenger saw R5 B7
    assert "shown" not in state.information_state_string(0)
    assert uno.hand_sizes == [6, 2]                       # guilty: the W4 player draws 4


def test_cfr_plus_solves_the_short_tiny_game_and_agents_are_exploitable(tree):
    assert tree.nodes > 10_000 and tree.num_infosets > 1_000
    solver, curve = ot.cfr_plus(tree, iterations=20, every=10)
    assert curve[-1][1] < 0.01 < tree.nash_conv(tree.agent_policy("random"))
    cfr = tree.uno_policy(solver.average_policy())
    assert tree.nash_conv(cfr) == pytest.approx(curve[-1][1], abs=1e-9)
    for name in ("random", "greedy", "heuristic"):
        policy = tree.agent_policy(name)
        assert all(abs(sum(p.values()) - 1) < 1e-9 for p in policy.values())
        assert 0 <= tree.exploitability(policy) <= 2
    # random play is worth the same in the EFG game and in the engine (above)
    assert tree.returns()[0] == pytest.approx(-tree.returns()[1])


@pytest.mark.parametrize("card", ["Y0", "YS", "W", "RS"])
def test_a_reshuffle_draws_the_card_the_chance_outcome_chose(card):
    # every card placed: the draw pile is empty and four cards lie under the top
    game = uno_env.Game.from_scenario("classic", hands=[["R1"], ["R0"]], top="Y1",
                                      discard=["Y0", "YS", "W", "RS"], current=1,
                                      **{k: v for k, v in ot.TINY.items()
                                         if k != "players"})
    pending = ec.Pending(game, game.layout.DRAW)
    deck = game.config.deck
    options = {deck.type_name(t): int(n) for t, n in enumerate(pending.options()) if n}
    assert options == {"Y0": 1, "YS": 1, "W": 1, "RS": 1}
    pending.choose(deck.parse_type(card))
    after = pending.result
    assert pending.options() is None and game.draw_pile_size == 0  # the game unchanged
    assert after.hand(1) == sorted(["R0", card], key=deck.parse_type)
    assert after.discard == ["Y1"] and sorted(after.draw_pile) == sorted(
        set(options) - {card})


def test_a_cfr_policy_plays_as_an_agent_that_knows_every_information_state(tree,
                                                                           tmp_path):
    from uno_env.integrations.openspiel import agents as oa
    from uno_env.evaluation.tournament import tournament

    solver, _ = ot.cfr_plus(tree, iterations=20, every=20)
    path = oa.save_policy(tmp_path / "short.json", SHORT, tree,
                          tree.uno_policy(solver.average_policy()))
    flags = {k: v for k, v in SHORT.items() if k != "players"}
    config = uno_env.make_config("classic", 2, **flags)
    agent = oa.CFRAgent(config, path, seed=0)
    for index in range(30):  # engine games against random: every state is in the table
        game = uno_env.Game("classic", 2, seed=4, **flags)
        game.reset(4, index)
        agent.attach(game)
        while not game.is_over:
            seat = game.current_player
            action = agent.act_game(game) if seat == index % 2 else game.random_action()
            game.step(action)
            agent.observe_move(game)
    assert agent.unknown == 0
    with pytest.raises(ValueError, match="not for this game's rules"):
        oa.CFRAgent(uno_env.make_config("classic", 2), path)
    # by name in a tournament, beside OpenSpiel's IS-MCTS
    result = tournament((f"cfr:{path}", "openspiel-ismcts:5", "random"), "classic",
                        num_players=2, num_games=6, seed=2, progress=False, **flags)
    stats = {d["agent"]: d for d in result.stats()}
    assert set(stats) == {f"cfr:{path}", "openspiel-ismcts:5", "random"}
    # each game seats two of the three agents: two agent-games per game played
    assert sum(d["games"] for d in stats.values()) == 2 * result.winner.size


def test_openspiel_agents_are_position_agents_with_clear_errors():
    from uno_env.integrations.openspiel import agents as oa
    from uno_env.players.registry import is_position_agent, make_agent

    assert is_position_agent("openspiel-ismcts:50") and is_position_agent("cfr:x.json")
    assert not is_position_agent("heuristic") and not is_position_agent("mcts:50")
    config = uno_env.make_config("classic", 2)
    agent = make_agent("openspiel-ismcts:3", config, seed=1)
    assert isinstance(agent, oa.ISMCTSAgent) and agent.simulations == 3
    game = uno_env.Game("classic", 2, seed=3)
    with pytest.raises(ValueError, match="attach it to the Game"):
        agent.act(game.observe(game.current_player), game.action_mask())
    agent.attach(game)
    twin = make_agent("openspiel-ismcts:3", config, seed=1).attach(game)
    for _ in range(3):  # IS-MCTS moves are legal and the same for the same seed
        action = agent.act(game.observe(game.current_player), game.action_mask())
        assert action in game.legal_actions() and twin.act_game(game) == action
        game.step(action)
    with pytest.raises(ValueError, match="simulations a decision are an integer"):
        make_agent("openspiel-ismcts:many", config)
    with pytest.raises(ValueError, match="needs a policy file"):
        make_agent("cfr", config)


def test_the_command_line_plays_openspiel_ismcts_by_name():
    from typer.testing import CliRunner

    from uno_env.apps.cli import app

    flags = [x for k, v in SHORT.items() if k != "players"
             for x in ("--rule", f"{k}={v}")]
    result = CliRunner().invoke(app, ["tournament", "--agents",
                                      "openspiel-ismcts:3,random", "--players", "2",
                                      "--games", "4", "--no-progress", *flags])
    assert result.exit_code == 0, result.output
    assert "openspiel-ismcts:3" in result.output
