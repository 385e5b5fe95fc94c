"""The search agent ``mcts`` (``uno_env.engine.search``, ``agents.MCTSAgent``): it plays
legal moves in every preset, decides from what its seat may know only, is deterministic
for a seed whatever the thread count, and plays by name in every API."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import uno_env
from agents import MCTSAgent, make_agent
from uno_env import Game
from uno_env.engine.names import DEFAULT_BUDGET, agent_code, mcts_code, parse_search_name
from uno_env.rules import PRESETS
from uno_env import simulate
from uno_env.evaluation.tournament import tournament


def _position(preset, num_players, seed, moves):
    g = Game(preset, num_players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if g.is_over:
            break
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(len(legal))]))
    return g


def test_names():
    assert parse_search_name("mcts") == (DEFAULT_BUDGET, "heuristic", "flat")
    assert parse_search_name("mcts:400") == (400, "heuristic", "flat")
    assert parse_search_name("mcts-greedy:7") == (7, "greedy", "flat")
    assert parse_search_name("mcts-random-ucb:9") == (9, "random", "ucb")
    assert parse_search_name("greedy") is None
    assert agent_code("greedy") == 1 and agent_code("mcts:5") == mcts_code(5)
    for bad in ("mcts:0", "mcts:x", "mcts-fast"):
        with pytest.raises(ValueError, match="mcts"):
            parse_search_name(bad)
    with pytest.raises(ValueError, match="unknown agent"):
        simulate("classic", 2, agents=["mcts", "nobody"], num_games=1)


def _legal_moves_in_play(preset, num_players):
    g = _position(preset, num_players, 3, 6)
    agent = MCTSAgent(g.config, budget=6, seed=1).attach(g)
    for _ in range(4):
        if g.is_over:
            break
        a = agent.act(g.observe(g.current_player), g.action_mask())
        assert g.action_mask()[a] == 1
        g.step(a)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_mcts_plays_legal_moves_in_every_preset(preset):
    for n in ((4,) if PRESETS[preset].teams else (2, 3, 5)):
        _legal_moves_in_play(preset, n)


@pytest.mark.parametrize("preset", ["classic", "flip", "street", "onepiece"])
def test_the_true_hidden_cards_do_not_change_its_move(preset):
    """Positions that look the same to the decider (a determinization of the true
    state) get the same move for the same seed, and the search leaves the state as
    it was."""
    for seed in range(4):
        g = _position(preset, 3, seed, 5 + 9 * seed)
        if g.is_over or len(g.legal_actions()) < 2:
            continue
        seat = g.current_player
        before = [a.copy() for a in g._state]
        twin = g.determinize(seat, 123)
        assert any(not np.array_equal(a, b) for a, b in zip(g._state, twin._state))
        m1 = MCTSAgent(g.config, budget=24, seed=5).act_game(g)
        m2 = MCTSAgent(g.config, budget=24, seed=5).act_game(twin)
        assert m1 == m2
        assert all(np.array_equal(a, b) for a, b in zip(g._state, before))


def test_with_budget_searches_with_that_budget_for_the_block_only():
    """``with_budget`` (the server's cut): inside the block the agent decides as an agent
    of that budget would, from the same seed; after it, with its own budget again."""
    checked = 0
    for seed in range(6):
        g = _position("classic", 3, seed, 4 + 7 * seed)
        if g.is_over or len(g.legal_actions()) < 2:
            continue
        big = MCTSAgent(g.config, budget=4000, seed=seed)
        with big.with_budget(3):
            cut = big.act_game(g)
        assert cut == MCTSAgent(g.config, budget=3, seed=seed).act_game(g)
        assert int(big._codes[0]) == big.search_code    # its own budget again
        checked += 1
    assert checked >= 3
    with pytest.raises(ValueError, match="budget"):
        with MCTSAgent(Game("classic", 2, seed=0).config).with_budget(0):
            pass


def test_simulate_is_deterministic_whatever_the_threads():
    kwargs = dict(agents=["mcts:12", "greedy", "mcts-random-ucb:12"], num_games=6, seed=3)
    one = simulate("classic", 3, threads=1, **kwargs)
    every = simulate("classic", 3, threads=numba.config.NUMBA_NUM_THREADS, **kwargs)
    assert np.array_equal(one.winner, every.winner)
    assert np.array_equal(one.steps, every.steps)
    assert one.agents == ("mcts:12", "greedy", "mcts-random-ucb:12")


def test_python_agent_plays_what_simulate_plays():
    """``MCTSAgent`` through ``Game`` and ``mcts`` in ``simulate`` are the same agent: a
    game where it meets greedy replays move for move (the same search stream)."""
    from uno_env.engine.rng import seed_stream_py
    from uno_env.engine.search import SEARCH_SALT
    r = simulate("classic", 2, agents=["mcts:10", "greedy"], num_games=2, seed=4)
    for index in range(2):
        g = Game("classic", 2, seed=4)
        g.reset(4, index)
        bot = MCTSAgent(g.config, budget=10).attach(g)
        bot._rng[0] = seed_stream_py(4 ^ int(SEARCH_SALT), index)
        greedy = make_agent("greedy", g.config)
        steps = 0
        while not g.is_over:
            obs, mask = g.observe(g.current_player), g.action_mask()
            g.step(bot.act(obs, mask) if g.current_player == 0 else greedy.act(obs, mask))
            steps += 1
        assert steps == r.steps[index] and g.winner == r.winner[index]


def test_aec_env_and_registry():
    env = uno_env.env("classic", 2)
    env.reset(seed=2)
    bot = make_agent("mcts:8", env.unwrapped.config, seed=0).attach(env)
    other = make_agent("heuristic", env.unwrapped.config)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        actor = bot if agent == "player_0" else other
        env.step(actor.act(obs))
    from uno_env.players.registry import make_agent as registry_agent
    assert isinstance(registry_agent("mcts-random:30", env.unwrapped.config), MCTSAgent)
    with pytest.raises(ValueError, match="attach"):
        MCTSAgent(env.unwrapped.config).act(obs)


def test_tournament_and_evaluate_by_name():
    res = tournament(["mcts:6", "greedy"], num_players=2, num_games=6, seed=1,
                     progress=False, rating_games=None)
    assert res.num_games == 6
    from uno_env.evaluation.win_rate import evaluate
    bot = MCTSAgent(uno_env.make_config("classic", 2), budget=6)
    out = evaluate(bot, "greedy", num_games=4, num_players=2, seed=0)
    assert out["games"] == 4 and 0 <= out["wins"] <= 4


def test_a_player_who_draws_instead_of_playing_is_believed_to_hold_nothing_playable():
    """The belief of ``mcts`` (``engine/belief.py``): seat 0 draws on a red 5 and keeps
    the card watching the game then bans, for seat 0, exactly the
    card types that were playable (reds, fives, wilds), and nothing for the others. A
    Draw Two given to seat 0 later clears it (cards it cannot see into)."""
    g = Game.from_scenario(hands=[["B3", "G7", "Y1"], ["R1", "Y2", "B9"],
                                  ["RD2", "G4", "Y3"]], top="R5", draw_pile=["G2"])
    deck = g.config.deck
    playable = {t for t in range(deck.num_types)
                if deck.type_name(t)[0] in "RW" or deck.type_name(t)[1:] == "5"}
    bot = MCTSAgent(g.config, budget=4, seed=0).attach(g)
    g.play("draw")                       # G2 cannot be played: the turn passes
    bot.act_game(g)                      # seat 1 decides: the belief catches up
    assert set(np.flatnonzero(bot.belief[0]).tolist()) == playable
    assert not bot.belief[1].any() and not bot.belief[2].any()
    g.play("R1")
    g.play("RD2")                        # seat 0 draws two and loses its turn
    assert g.current_player == 1 and g.hand_sizes[0] == 6
    bot.act_game(g)
    assert not bot.belief.any()


def test_search_benchmark_runs_and_plots(tmp_path):
    """``benchmarks/search.py`` end to end at a tiny size (classic only): every row,
    the speed figures, the tournament rates, the JSON and the budget plot."""
    import json

    import benchmarks.search as bench
    out, fig = tmp_path / "s.json", tmp_path / "s.png"
    bench.main(["--games", "4", "--budgets", "2,4", "--variants", "", "--python-games",
                "2", "--speed-positions", "2", "--tournament-games", "6", "--json", str(out),
                "--plot", str(fig)])
    data = json.loads(out.read_text())
    # 3 rows a budget, the 4-player heuristic reference, the PPO row
    assert len(data["rows"]) == 2 * 3 + 2 and len(data["speed"]) == 4
    # a tournament-rate row a budget: 6 games with a searcher in each
    assert [t["budget"] for t in data["tournament"]] == [2, 4]
    assert all(t["games"] == 6 and t["games_per_s"] > 0 for t in data["tournament"])
    assert all(0 <= r["win_rate"] <= 1 and r["ci"][0] <= r["win_rate"] <= r["ci"][1]
               for r in data["rows"])
    assert fig.stat().st_size > 1000


def test_a_new_round_clears_the_belief():
    """In a match (``target_score``) every hand is dealt again when a round ends: a ban
    from the last round says nothing about the new hand, even when that hand is not
    larger (seat 0 held 9 cards, the new deal gives it 7)."""
    g = Game.from_scenario(hands=[["B3", "G7", "Y1", "B4", "G8", "Y2", "B6", "G9"],
                                  ["R1"], ["Y3", "G4"]],
                           top="R5", draw_pile=["G2"], target_score=500)
    bot = MCTSAgent(g.config, budget=4, seed=0).attach(g)
    g.play("draw")                       # seat 0: nothing red, no 5, no wild
    bot.act_game(g)
    assert bot.belief[0].any() and g.hand_sizes[0] == 9
    g.play("R1")                         # seat 1 goes out: a new round is dealt
    assert not g.is_over and g.hand_sizes[0] == 7
    bot.act_game(g)                      # the new round's first decision
    assert not bot.belief.any()
