"""UNO One Piece over random and agent play: card conservation and an exact legal-action
count after every step (2-10 players), PettingZoo's api_test and seed_test, the numba
agents' legality, agreement of ``simulate``, ``Game`` and ``VectorEnv`` game by game,
determinism across batch sizes and threads, and no hidden information in the
observation (issue #7 [onepiece], "Done when")."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))

import uno_env  # noqa: E402
from uno_env import Game, make_config  # noqa: E402
from uno_env.engine import codes as C  # noqa: E402
from uno_env.engine.entry import GameOps  # noqa: E402
from uno_env.engine.policies import AGENT_CODES  # noqa: E402
from uno_env.engine.state import allocate  # noqa: E402
from uno_env.simulation import simulate  # noqa: E402
from house_invariants import ERRORS, run_checked  # noqa: E402
from test_house_invariants import _agents_stay_legal  # noqa: E402

FLAG_ROWS = [dict(), dict(challenge="classic"), dict(shanks_give="two_players"),
             dict(bbd_challenge=True), dict(bluff=False, bbd_challenge=True),
             dict(force_play=True, no_draw_if_playable=True), dict(uno_call=False)]


@pytest.mark.parametrize("num_players", range(2, 11))
def test_conservation_and_exact_mask_count_every_step(num_players):
    config = make_config("onepiece", num_players)
    games = 60
    st = allocate(games, num_players, config.deck.num_types, config.deck.num_cards)
    winners = np.zeros(games, np.int32)
    turns = np.zeros(games, np.int32)
    steps = np.zeros(games, np.int32)
    err, game = run_checked(st, config.spec, np.uint64(num_players), 0, winners, turns,
                            steps, 100 * config.rules.max_turns)
    assert err == 0, f"broken invariant {ERRORS[err]!r} in game {game}"
    assert (winners >= 0).sum() > 0.04 * games


@pytest.mark.parametrize("flags", FLAG_ROWS, ids=lambda f: "-".join(map(str, f.items())))
def test_conservation_with_onepiece_flags(flags):
    config = make_config("onepiece", 4, **flags)
    st = allocate(80, 4, config.deck.num_types, config.deck.num_cards)
    z = np.zeros(80, np.int32)
    err, game = run_checked(st, config.spec, np.uint64(7), 0, z, z.copy(), z.copy(),
                            100 * config.rules.max_turns)
    assert err == 0, f"broken invariant {ERRORS[err]!r} in game {game}"


def test_every_card_and_phase_is_reached_by_random_play():
    t = simulate("onepiece", 4, num_games=300, seed=2, threads=1).totals
    for name in ("petrifications", "breaks", "ace_combos", "gives", "challenges",
                 "challenges_won", "w4_played", "catches"):
        assert t[name] > 0, name
    assert simulate("classic", 4, num_games=50, seed=2, threads=1).totals["gives"] == 0


@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic"])
def test_numba_agents_choose_legal_actions_in_every_phase(agent):
    config = make_config("onepiece", 4)
    st = allocate(1, 4, config.deck.num_types, config.deck.num_cards)
    seen = np.zeros(C.NUM_PHASES, np.int64)
    bad = _agents_stay_legal(st, config.spec, AGENT_CODES[agent], np.uint64(3), 120, seen)
    assert bad == -1, f"{agent} chose an illegal action in game {bad}"
    for phase in (C.PHASE_GIVE, C.PHASE_JUMP_IN, C.PHASE_CHALLENGE, C.PHASE_DRAWN):
        assert seen[phase] > 0, C.PHASE_NAMES[phase]


def test_greedy_uses_the_new_cards():
    """Greedy combines the Ace with a draw card, gives its highest-point card, breaks."""
    from agents import GreedyAgent
    g = Game.from_scenario("onepiece", hands=[["ACE", "RD2", "RS", "R9"], ["B1"], ["Y1"]],
                           top="R5", uno_call=False)
    agent = GreedyAgent(g.config)
    assert g.layout.decode(agent.act(g.observe(0), g.action_mask())) == "ACE+RD2"
    g = Game.from_scenario("onepiece", hands=[["SHK", "R3", "W4", "G2"], ["B1"], ["Y1"]],
                           top="R5", uno_call=False)
    g.play("SHK:R")
    assert g.layout.decode(agent.act(g.observe(0), g.action_mask())) == "give:W4"
    g = Game.from_scenario("onepiece", hands=[["HAN", "R3"], ["B1", "B7"], ["Y1"]],
                           top="R5", uno_call=False)
    g.play("HAN:B")
    assert g.layout.decode(agent.act(g.observe(1), g.action_mask())) == "B1"


@pytest.mark.parametrize("num_players", range(2, 11))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api(num_players):
    api_test(uno_env.env(preset="onepiece", num_players=num_players), num_cycles=60)


def test_pettingzoo_seed():
    seed_test(lambda: uno_env.env(preset="onepiece", num_players=3), num_cycles=100)


def test_simulate_game_i_is_game_i_of_the_game_api():
    result = simulate("onepiece", 4, num_games=8, seed=3, threads=1)
    for i in (0, 5, 7):
        game = Game("onepiece", 4)
        game.reset(3, i)
        scratch = np.zeros(game.layout.size, np.uint8)
        steps = 0
        while not game.is_over:
            game.step(GameOps(game.config).random_legal(game._state, 0, scratch))
            steps += 1
        assert (result.steps[i], result.turns[i]) == (steps, game.turns)
        assert result.winner[i] == (game.winner if game.winner is not None else -1)
        assert result.points[i].tolist() == game.round_points


def test_simulate_does_not_depend_on_batch_size_or_threads(monkeypatch):
    import numba

    from uno_env import simulation as sim_mod
    a = simulate("onepiece", 5, num_games=120, seed=9, threads=1)
    monkeypatch.setattr(sim_mod, "CHUNK", 17)
    b = simulate("onepiece", 5, num_games=120, seed=9,
                 threads=min(2, numba.config.NUMBA_NUM_THREADS))
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.steps, b.steps)
    np.testing.assert_array_equal(a.counters["breaks"], b.counters["breaks"])


def test_vector_env_games_replay_through_game():
    from uno_env.vector import VectorEnv
    venv = VectorEnv(5, preset="onepiece", num_players=3, seed=4, auto_reset=False)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(1)
    log = [[] for _ in range(5)]
    while not venv.done.all():
        actions = venv.random_actions(rng)
        for b in range(5):
            if not venv.done[b]:
                log[b].append(int(actions[b]))
        venv.step(actions)
    for b in range(5):
        game = Game("onepiece", 3)
        game.reset(4, int(venv.game_index[b]))
        for a in log[b]:
            game.step(a)
        assert (game.winner if game.winner is not None else -1) == venv.winner[b]
        assert game.round_points == venv.round_points[b].tolist()


@pytest.mark.parametrize("num_players", [2, 5])
def test_observation_holds_nothing_hidden(num_players):
    """Moving cards between two other hands and permuting the draw pile never changes
    the mover's observation, in any phase (give, break, challenge included)."""
    rng = np.random.default_rng(num_players)
    game = Game("onepiece", num_players, seed=8)
    phases = set()
    for step in range(2500):
        if game.is_over:
            game.reset(8, step)
        seat = game.current_player
        phases.add(game.phase)
        if step % 2 == 0:
            before = game.observe(seat)
            st = game._state
            n = st.info[0, C.I_DRAW_LEN]
            st.draw_pile[0, :n] = rng.permutation(st.draw_pile[0, :n])
            others = [q for q in range(num_players) if q != seat]
            if len(others) >= 2:
                p, q = others[:2]
                tp = rng.choice(np.flatnonzero(st.hands[0, p]))
                tq = rng.choice(np.flatnonzero(st.hands[0, q]))
                st.hands[0, p, tp] -= 1
                st.hands[0, q, tp] += 1
                st.hands[0, q, tq] -= 1
                st.hands[0, p, tq] += 1
            game._refresh()
            np.testing.assert_array_equal(game.observe(seat), before)
        game.step(int(rng.choice(game.legal_actions())))
    assert {"give", "challenge"} <= phases
    if num_players > 2:
        assert "jump_in" in phases
