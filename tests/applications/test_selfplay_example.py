"""``examples/selfplay_ppo.py``: its credit assignment (``SeatChains``) on hand-made
interleavings and on real games replayed with ``Game``, its GAE along each seat's own
decisions, and one tiny training run that writes its metrics and a policy the benchmark
reads. (``benchmarks/selfplay_example.py`` runs it long enough to learn.)"""
from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from conftest import NEEDS
import uno_env
from uno_env import Game
from uno_env.envs.every_seat import EverySeatBatch

torch = pytest.importorskip("torch", reason=NEEDS["rl"])


def example():
    return importlib.import_module("examples.selfplay_ppo")


def play(chains, t, slots_seats):
    """Record the decisions of step ``t``: {slot: seat}."""
    rows = np.array(sorted(slots_seats), np.int64)
    chains.decide(t, rows, np.array([slots_seats[r] for r in rows], np.int64))


def test_each_seat_links_to_its_own_next_decision_and_gets_its_final_reward():
    """Two slots, three seats. Slot 0: seats 0, 1, 2, 0, 1, then the game ends (seat 1
    wins) and a new game starts with seat 2. Slot 1: seats 2, 0 then the rollout ends
    (cut, valued 0.25 for seat 2 and -0.5 for seat 0)."""
    ex = example()
    B = 2
    chains = ex.SeatChains(num_steps=6, num_envs=B, num_players=3)
    flat = lambda t, b: t * B + b  # noqa: E731
    play(chains, 0, {0: 0, 1: 2})
    play(chains, 1, {0: 1, 1: 0})
    play(chains, 2, {0: 2})
    play(chains, 3, {0: 0})
    play(chains, 4, {0: 1})
    rewards = np.zeros((B, 3), np.float32)
    rewards[0] = [-0.5, 1.0, -0.5]
    chains.finish(np.array([0]), rewards)
    play(chains, 5, {0: 2})                   # the next game of slot 0
    rows, seats = chains.pending()
    assert sorted(zip(rows.tolist(), seats.tolist())) == [(0, 2), (1, 0), (1, 2)]
    chains.cut(np.array([1, 1]), np.array([2, 0]), np.array([0.25, -0.5], np.float32))

    # each decision's next is the same seat's next decision in the same game
    assert chains.next[flat(0, 0)] == flat(3, 0)      # seat 0: step 0 -> step 3
    assert chains.next[flat(1, 0)] == flat(4, 0)      # seat 1: step 1 -> step 4
    assert chains.next[flat(2, 0)] == -1              # seat 2's last decision of game 1
    assert chains.next[flat(3, 0)] == chains.next[flat(4, 0)] == -1
    assert chains.next[flat(5, 0)] == -1              # not linked to the old game's seat 2
    # the final rewards land on each seat's last decision, and only there
    expected = {flat(2, 0): -0.5, flat(3, 0): -0.5, flat(4, 0): 1.0}
    for i in range(chains.reward.size):
        assert chains.reward[i] == expected.get(i, 0.0)
        assert chains.done[i] == (i in expected)
    # the cut chains carry their bootstrap values; seat 2's new game is still open
    assert chains.is_cut[flat(0, 1)] and chains.bootstrap[flat(0, 1)] == 0.25
    assert chains.is_cut[flat(1, 1)] and chains.bootstrap[flat(1, 1)] == -0.5
    assert not chains.is_cut[flat(5, 0)]
    assert chains.recorded.sum() == 8

    # GAE with gamma = lambda = 1: every decision's advantage is the reward (or the
    # bootstrap value) at the end of its seat's chain, minus its own value
    values = np.linspace(-0.3, 0.4, 12).astype(np.float32)
    adv, ret = chains.advantages(values, gamma=1.0, lam=1.0)
    end = {flat(0, 0): -0.5, flat(3, 0): -0.5, flat(1, 0): 1.0, flat(4, 0): 1.0,
           flat(2, 0): -0.5, flat(0, 1): 0.25, flat(1, 1): -0.5}
    for i, r in end.items():
        assert ret[i] == pytest.approx(r, abs=1e-6)
        assert adv[i] == pytest.approx(r - values[i], abs=1e-6)
    assert ret[flat(5, 0)] == pytest.approx(0.0, abs=1e-6)   # open: nothing after it
    assert not adv[~chains.recorded].any()
    # gamma < 1 discounts by the seat's own decisions, not the rows between them
    adv, ret = chains.advantages(values, gamma=0.5, lam=1.0)
    assert ret[flat(0, 0)] == pytest.approx(0.5 * -0.5)      # one own step to its end
    assert ret[flat(3, 0)] == pytest.approx(-0.5)


def test_a_pool_game_trains_only_the_learner_seat():
    """In a game against past selves only the learner seat's decisions are recorded:
    its chain skips the other seats' turns and ends with its own reward."""
    ex = example()
    chains = ex.SeatChains(num_steps=8, num_envs=1, num_players=4)
    for t, seat in enumerate([3, 0, 1, 2, 3, 0, 1]):
        if seat == 3:                                 # the learner
            play(chains, t, {0: 3})
    rewards = np.array([[1.0, -1 / 3, -1 / 3, -1 / 3]], np.float32)
    chains.finish(np.array([0]), rewards)
    assert chains.recorded.nonzero()[0].tolist() == [0, 4]
    assert chains.next[0] == 4 and chains.done[4] and not chains.done[0]
    assert chains.reward[4] == pytest.approx(-1 / 3) and chains.reward[0] == 0
    assert (chains.latest == -1).all()


def test_the_chains_credit_real_games_as_game_replays_them():
    """``SeatChains`` driven by ``EverySeatBatch`` (first legal move everywhere): every
    game that ended within the rollout credits each seat's final reward, as ``Game``
    replays that game move by move, to that seat's last decision."""
    ex = example()
    B, P, T = 16, 4, 200
    venv = EverySeatBatch(B, preset="classic", num_players=P, seed=7)
    chains = ex.SeatChains(T, B, P)
    obs, mask, player = venv.reset()
    first_end = np.full(B, -1)
    for t in range(T):
        chains.decide(t, np.arange(B), player.astype(np.int64))
        obs, mask, player, rewards, terminated, truncated = venv.step(mask.argmax(axis=1))
        assert not truncated.any()
        ended = np.flatnonzero(terminated)
        chains.finish(ended, rewards)
        first_end[ended[first_end[ended] < 0]] = t
    checked = 0
    for b in np.flatnonzero(first_end >= 0):
        game = Game("classic", P)
        game.reset(seed=7, index=b)             # the first game of slot b
        seats = []
        while not game.is_over:
            seats.append(game.current_player)
            game.step(int(game.legal_actions().min()))
        assert len(seats) == first_end[b] + 1
        last = {s: max(i for i, x in enumerate(seats) if x == s) for s in set(seats)}
        for i, seat in enumerate(seats):
            k = i * B + b
            assert chains.done[k] == (last[seat] == i)
            assert chains.reward[k] == (game.rewards[seat] if last[seat] == i else 0.0)
            later = [j for j in range(i + 1, len(seats)) if seats[j] == seat]
            assert chains.next[k] == (later[0] * B + b if later else -1)
        checked += 1
    assert checked >= B // 2


@pytest.mark.slow  # trains (pyproject.toml markers)
def test_a_tiny_training_run_writes_its_paired_curve_and_a_policy(tmp_path, capsys):
    """``--against greedy,random``: every evaluation compares the policy with each agent
    on the first ``--eval-games`` deals of the verdict's, game by game; the verdict on
    all ``--final-games`` deals; the curve's games are the verdict's first ones."""
    from uno_agents import PPOAgent
    from uno_env.evaluation.stats import paired_difference
    from uno_env.players.registry import make_agent

    ex = example()
    metrics, model = tmp_path / "curve.jsonl", tmp_path / "mine.npz"
    args = ex.parse_args([
        "--total-timesteps", "1", "--num-envs", "8", "--num-steps", "16",
        "--hidden", "16", "--eval-games", "24", "--snapshot-every", "1", "--seed", "3",
        "--final-games", "40", "--against", "greedy, random", "--metrics", str(metrics),
        "--save", str(model)])
    assert args.advice == "greedy"            # the default: a residual policy over greedy
    assert args.against == ["greedy", "random"]
    threads = torch.get_num_threads()
    try:
        returned = ex.train(args)
    finally:
        torch.set_num_threads(threads)          # train() sets --threads (1)
    out = capsys.readouterr().out
    assert sum("vs greedy: win rate" in line and "vs random: win rate" in line
               for line in out.splitlines()) == 2
    rows = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert rows == json.loads(json.dumps(returned))
    assert [r["update"] for r in rows] == [0, 1]
    # one update of 8 games x 16 steps, every seat the learner's or a past self's
    assert rows[0]["learner_steps"] == 0 and 0 < rows[1]["learner_steps"] <= 8 * 16
    for r in rows:
        assert r["chance"] == 0.25 and r["ci"][0] <= r["win_rate"] <= r["ci"][1]
        assert set(r["against"]) == {"greedy", "random"}
        assert r["win_rate"] == r["against"]["greedy"]["win_rate"]
        for a in r["against"].values():
            assert a["games"] == 24
            assert a["difference"] == pytest.approx(a["win_rate"] - a["reference_win_rate"])
            assert a["difference_ci"][0] <= a["difference"] <= a["difference_ci"][1]
    verdicts = rows[-1]["verdicts"]             # the policy and each agent, same games
    assert [v["against"] for v in verdicts] == ["greedy", "random"]
    assert rows[-1]["verdict"] == verdicts[0] and "verdict on 40 games" in out
    for v in verdicts:
        assert v["games"] == 40
        assert v["difference"] == pytest.approx(v["win_rate"] - v["reference_win_rate"])
        assert v["ci"][0] <= v["difference"] <= v["ci"][1]
    # the curve's deals are the verdict's first ones: the saved policy, replayed on the
    # verdict's seed, gives the last curve point's paired difference on its 24 games
    saved = PPOAgent.load(model)
    config = uno_env.make_config("classic", 4)
    games = {"opponents": "greedy", "preset": "classic", "num_players": 4,
             "seed": 20_000 + 3, "per_game": True}
    mine = uno_env.evaluate(saved, num_games=40, **games)["won"]
    greedy = uno_env.evaluate(make_agent("greedy", config),
                              num_games=24, **games)["won"]
    last = rows[-1]["against"]["greedy"]
    assert paired_difference(mine[:24], greedy)["difference"] == \
        pytest.approx(last["difference"])
    assert mine.mean() == pytest.approx(verdicts[0]["win_rate"])
    assert saved.meta["name"] == "selfplay_ppo" and saved.meta["advice"] == "greedy"
    assert saved.meta["trained_steps"] == rows[1]["learner_steps"]
    assert (saved.config.preset, saved.config.num_players) == ("classic", 4)


def test_bad_budgets_are_refused_with_a_reason(capsys):
    ex = example()
    with pytest.raises(SystemExit):
        ex.parse_args(["--pool-games", "1.5"])
    assert "--pool-games is a share of games" in capsys.readouterr().err
    for bad in (["--minutes", "0"], ["--total-timesteps", "0"]):
        with pytest.raises(SystemExit):
            ex.parse_args(bad)
        assert "the budget must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ex.parse_args(["--against", " ,"])
    assert "--against names at least one agent" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--against nobody: unknown agent 'nobody'"):
        ex.Judge(ex.parse_args(["--against", "nobody"]), uno_env.make_config("classic", 4))


def test_the_advised_actor_starts_as_its_adviser_and_exports_as_it_plays(tmp_path):
    """``--advice greedy``: before training the policy makes greedy's move (the advice
    weight dominates the small initial logits); the exported ``.npz`` (PPOAgent with
    ``meta["advice"]``) makes the torch actor's moves; the critic reads the other hands."""
    from uno_agents import GreedyAgent, PPOAgent
    from uno_env.integrations.scaling import config_scale

    ex = example()
    venv = EverySeatBatch(64, preset="classic", num_players=4, seed=11)
    cfg = venv.config
    greedy = GreedyAgent(cfg)
    torch.manual_seed(0)
    agent = ex.SelfPlayAgent(cfg.layout.obs_size, cfg.layout.size, config_scale(cfg), 16,
                             4, cfg.deck.num_types, advisor=greedy)
    saved = PPOAgent.load(agent.export(cfg, tmp_path / "advised.npz", name="x"))
    assert saved.meta["advice"] == "greedy"
    obs, mask, player = venv.reset()
    for _ in range(30):
        moves = agent.act_batch(obs, mask)
        np.testing.assert_array_equal(moves, greedy.act_batch(obs, mask))
        np.testing.assert_array_equal(saved.act_batch(obs, mask), moves)
        obs, mask, player, *_ = venv.step(moves)
    # the critic's input: own view, then the hands of the next seats in turn order
    hands = venv.engine_state.hands[:3]
    others = ex.other_hands(hands, np.array([0, 1, 3]))
    assert others.shape == (3, 3 * cfg.deck.num_types)
    np.testing.assert_array_equal(others[2].numpy().reshape(3, -1), hands[2, [0, 1, 2]])
    np.testing.assert_array_equal(others[1].numpy().reshape(3, -1), hands[1, [2, 3, 0]])
