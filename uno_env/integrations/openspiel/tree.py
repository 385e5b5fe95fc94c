"""Exact game theory on a small deck: the whole tree of a ``python_uno`` game with
explicit chance, written once as an OpenSpiel extensive-form game (Gambit's ``.efg``
text, ``pyspiel.load_efg_game``), so that OpenSpiel's C++ solvers (CFR+,
``nash_conv``, ``exploitability``) run on it at C++ speed. docs/game-theory.md.

    >>> import uno_env.integrations.openspiel.tree as ot                  # doctest: +SKIP
    >>> tree = ot.export(ot.load(ot.TINY))
    >>> solver, curve = ot.cfr_plus(tree, iterations=200)
    >>> tree.exploitability(tree.agent_policy("heuristic"))

The exported game is the same tree as ``python_uno``'s: the same chance outcomes with
the same probabilities, the same moves, the same returns, and one information set per
information-state string (``Tree.infosets`` maps each string to its ``(player,
number)``; OpenSpiel names it ``f"{p}-{p}-{number}-"``). A policy of one game is a
policy of the other (``Tree.efg_policy``, ``Tree.uno_policy``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pyspiel

import uno_env.integrations.openspiel.game  # noqa: F401  (registers python_uno)

#: the smallest configuration with an action card and a wild: the 7-card deck
#: R0 R1 RS Y0 Y1 YS W, two cards each, two players, four turns (docs/game-theory.md)
TINY = dict(players=2, colors=2, numbers=2, copies=1, action_cards="S", wilds=1,
            wild_draw_fours=0, hand_size=2, uno_call=False, bluff=False, max_turns=4)


#: the 8-card deck R0 R1 RS Y0 Y1 YS W W4 with bluffing: a Wild Draw Four may be played
#: illegally and challenged (docs/rules.md 2.5), two cards each, three turns (at four
#: the tree has more than 3.6 million nodes)
BLUFF = dict(TINY, wild_draw_fours=1, bluff=True, max_turns=3)
#: the configurations of docs/game-theory.md by name; the "short" ones (two turns) are
#: for tests and quick runs
CONFIGS = {"tiny": TINY, "bluff": BLUFF, "short": dict(TINY, max_turns=2),
           "bluff-short": dict(BLUFF, max_turns=2)}


def load(params: dict) -> pyspiel.Game:
    """``python_uno`` with explicit chance (a small deck, docs/rules.md 8)."""
    game = pyspiel.load_game("python_uno", {"chance": "explicit", **params})
    return game


@dataclass
class Tree:
    """A ``python_uno`` game's whole tree as an OpenSpiel EFG game."""

    uno_game: pyspiel.Game
    efg: str = field(repr=False)
    #: information-state string -> (player, number)
    infosets: dict = field(repr=False)
    #: (player, number) -> (observation, legal uno actions) of that information set
    views: dict = field(repr=False)
    #: player's uno action -> EFG action id
    action_ids: dict = field(repr=False)
    nodes: int = 0
    player_nodes: int = 0
    seconds: float = 0.0
    game: pyspiel.Game = field(default=None, repr=False)

    def __post_init__(self):
        if self.game is None:
            self.game = pyspiel.load_efg_game(self.efg)

    @property
    def num_infosets(self) -> int:
        return len(self.infosets)

    def key(self, player: int, number: int) -> str:
        """OpenSpiel's information-state string of an EFG information set."""
        return f"{player}-{player}-{number}-"

    def efg_policy(self, uno_policy: dict) -> pyspiel.TabularPolicy:
        """A policy of the EFG game from ``{(player, number): {uno action: prob}}``."""
        table = {}
        for (p, n), probs in uno_policy.items():
            legal = self.views[(p, n)][1]
            table[self.key(p, n)] = [(self.action_ids[a], float(probs.get(a, 0.0)))
                                     for a in legal]
        return pyspiel.TabularPolicy(table)

    def uno_policy(self, policy) -> dict:
        """``{(player, number): {uno action: prob}}`` of an EFG game's policy (an
        OpenSpiel policy object, e.g. a CFR solver's average policy)."""
        back = {v: k for k, v in self.action_ids.items()}
        out = {}
        for (p, n), (_, legal) in self.views.items():
            probs = policy.policy_table()[self.key(p, n)] if hasattr(
                policy, "policy_table") else dict(policy.get_state_policy(self.key(p, n)))
            if isinstance(probs, list):
                probs = dict(probs)
            out[(p, n)] = {back[a]: float(q) for a, q in probs.items()}
        return out

    def agent_policy(self, agent, config=None) -> dict:
        """``{(player, number): {uno action: prob}}`` of a uno-env agent (a name of the
        agent registry or an object with ``act(observation, action_mask)``) acting on
        each information set's observation and mask. ``"random"`` is uniform over the
        legal moves (the random agent's distribution)."""
        out = {}
        if agent == "random":
            for key, (_, legal) in self.views.items():
                out[key] = {a: 1.0 / len(legal) for a in legal}
            return out
        if isinstance(agent, str):
            from uno_env.players.registry import make_agent
            agent = make_agent(agent, config or self.uno_game.config, seed=0)
        size = self.uno_game.config.layout.size
        for key, (obs, legal) in self.views.items():
            mask = np.zeros(size, np.uint8)
            mask[list(legal)] = 1
            dist = getattr(agent, "action_probabilities", None)
            if dist is not None:
                probs = np.asarray(dist(obs, mask), float)
                out[key] = {a: float(probs[a]) for a in legal}
            else:
                out[key] = {int(agent.act(obs, mask)): 1.0}
        return out

    def returns(self, uno_policy: dict | None = None) -> list[float]:
        """Each player's expected return when every player follows ``uno_policy``
        (default: uniform over the legal moves), computed over the whole tree."""
        policy = self.efg_policy(uno_policy if uno_policy is not None
                                 else self.agent_policy("random"))
        return list(pyspiel.expected_returns(self.game.new_initial_state(), policy, -1,
                                             True))

    def nash_conv(self, uno_policy: dict) -> float:
        return float(pyspiel.nash_conv(self.game, self.efg_policy(uno_policy)))

    def exploitability(self, uno_policy: dict) -> float:
        """NashConv / players: how much a best response gains, on average over the
        players, against ``uno_policy`` (0 at a Nash equilibrium)."""
        return float(pyspiel.exploitability(self.game, self.efg_policy(uno_policy)))


class _Names:
    """Action names -> ids in order of first appearance, as the EFG parser numbers them
    (``efg_game.cc``: it sorts each node's ids, so each node must list its actions in
    increasing id order)."""

    def __init__(self):
        self.ids: dict[int, int] = {}

    def order(self, actions):
        known = sorted((a for a in actions if a in self.ids), key=self.ids.get)
        new = [a for a in actions if a not in self.ids]
        for a in new:
            self.ids[a] = len(self.ids)
        return known + new


def export(game: pyspiel.Game, progress: bool = False) -> Tree:
    """Walk the whole tree of ``game`` (``python_uno`` with explicit chance) and load
    it as an EFG game. Minutes for a few hundred thousand nodes (Python speed)."""
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
        raise ValueError("export needs python_uno with explicit chance (a small deck, "
                         "docs/rules.md 8)")
    n = game.num_players()
    lines: list[str] = []
    infosets: dict[str, tuple[int, int]] = {}
    views: dict[tuple[int, int], tuple] = {}
    counts = [0] * n
    players, chances = _Names(), _Names()
    outcomes: dict[tuple, int] = {}
    stats = {"nodes": 0, "player": 0, "chance": 0}
    start = time.perf_counter()

    def visit(state, depth):
        stats["nodes"] += 1
        if progress and stats["nodes"] % 50_000 == 0:
            print(f"  {stats['nodes']:,} nodes, {time.perf_counter() - start:.0f} s",
                  flush=True)
        pad = " " * min(depth, 40)
        if state.is_terminal():
            payoff = tuple(round(float(r), 9) for r in state.returns())
            number = outcomes.setdefault(payoff, len(outcomes) + 1)
            lines.append(f'{pad}t "" {number} "" {{ {" ".join(map(repr, payoff))} }}')
            return
        if state.is_chance_node():
            stats["chance"] += 1
            probs = dict(state.chance_outcomes())
            order = chances.order(list(probs))
            body = " ".join(f'"{a}" {probs[a]!r}' for a in order)
            lines.append(f'{pad}c "" {stats["chance"]} "" {{ {body} }} 0')
            for a in order:
                child = state.clone()
                child.apply_action(a)
                visit(child, depth + 1)
            return
        stats["player"] += 1
        p = state.current_player()
        info = state.information_state_string(p)
        key = infosets.get(info)
        if key is None:
            counts[p] += 1
            key = infosets[info] = (p, counts[p])
            legal = tuple(state.legal_actions())
            views[key] = (state.uno.observe(p), legal)
        order = players.order(state.legal_actions())
        body = " ".join(f'"{a}"' for a in order)
        lines.append(f'{pad}p "" {p + 1} {key[1]} "" {{ {body} }} 0')
        for a in order:
            child = state.clone()
            child.apply_action(a)
            visit(child, depth + 1)

    visit(game.new_initial_state(), 0)
    names = " ".join(f'"Player {i + 1}"' for i in range(n))
    header = f'EFG 2 R "python_uno" {{ {names} }}\n""\n\n'
    text = header + "\n".join(lines) + "\n"
    return Tree(game, text, infosets, views, dict(players.ids), stats["nodes"],
                stats["player"], time.perf_counter() - start)


def position(uno) -> tuple:
    """What tells two positions of one deal apart: every hand (counts per type), the
    discard pile, the draw pile's cards (counts: with explicit chance its order is
    unfixed) and the seat to move."""
    n = uno.num_players
    pile = np.bincount(uno.draw_pile_types(), minlength=uno.config.deck.num_types)
    return (tuple(tuple(uno.hand_counts(q).tolist()) for q in range(n)),
            tuple(uno.engine_state.discard[0, :len(uno.discard)].tolist()),
            tuple(pile.tolist()), uno.current_player)


def infoset_positions(game: pyspiel.Game) -> tuple[dict, int]:
    """Every information set of ``game``'s whole tree (explicit chance): ``({(player,
    information-state string): {position(...)}}, nodes)``, the positions of the
    decision nodes of each set (``position``). Python speed: about a millisecond a
    node."""
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
        raise ValueError("infoset_positions needs python_uno with explicit chance")
    sets: dict = {}
    stack, nodes = [game.new_initial_state()], 0
    while stack:
        state = stack.pop()
        nodes += 1
        if state.is_terminal():
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            p = state.current_player()
            sets.setdefault((p, state.information_state_string(p)), set()).add(
                position(state.uno))
            actions = state.legal_actions()
        for a in actions:
            child = state.clone()
            child.apply_action(a)
            stack.append(child)
    return sets, nodes


def check_resamples(game: pyspiel.Game, sets: dict, games: int, per: int,
                    rng: np.random.Generator) -> dict:
    """Random games of ``game`` (challenging a Wild Draw Four whenever it can), ``per``
    resamples for the player to move at every decision, each checked against ``sets``
    (``infoset_positions`` of the same rules). Returns the counts: ``resamples``,
    ``outside`` (a position not of the set, or another information-state string) and
    ``challenges``. The enumeration must hold every position the games reach."""
    resamples = outside = challenges = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            p = state.current_player()
            key = (p, state.information_state_string(p))
            if position(state.uno) not in sets[key]:
                raise ValueError("the enumeration misses a position the game reached: "
                                 "sets must be infoset_positions of the same rules")
            for _ in range(per):
                sample = state.resample_from_infostate(p, rng.uniform)
                resamples += 1
                outside += (position(sample.uno) not in sets[key]
                            or sample.information_state_string(p) != key[1])
            legal = state.legal_actions()
            challenge = state.uno.layout.CHALLENGE
            challenges += challenge in legal
            state.apply_action(challenge if challenge in legal else int(rng.choice(legal)))
    return {"resamples": resamples, "outside": outside, "challenges": challenges}


def cfr_plus(tree: Tree, iterations: int, every: int = 10, seconds: float | None = None,
             target: float | None = None):
    """OpenSpiel's C++ ``CFRPlusSolver`` on the tree: ``(solver, curve)`` with ``curve``
    a list of ``(iterations, NashConv of the average policy, seconds)`` every ``every``
    iterations (and at the end); stops early after ``seconds`` or once NashConv is at
    most ``target``."""
    solver = pyspiel.CFRPlusSolver(tree.game)
    curve = []
    start = time.perf_counter()
    for i in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if i % every == 0 or i == iterations:
            conv = float(pyspiel.nash_conv(tree.game, solver.average_policy()))
            curve.append((i, conv, time.perf_counter() - start))
            if (target is not None and conv <= target) or \
                    (seconds is not None and time.perf_counter() - start > seconds):
                break
    return solver, curve


@dataclass
class Study:
    """One configuration solved: its tree, OpenSpiel's CFR+ solver and its curve."""

    name: str
    params: dict
    tree: Tree
    solver: object
    #: (iterations, NashConv of the average policy, seconds of solving)
    curve: list
    cfr_policy: dict = field(default_factory=dict, repr=False)

    @property
    def nash_conv(self) -> float:
        return self.curve[-1][1]

    def summary(self) -> dict:
        t = self.tree
        return {"config": self.name, "cards": t.uno_game.config.deck.num_cards,
                "nodes": t.nodes, "decision nodes": t.player_nodes,
                "information sets": t.num_infosets, "export s": round(t.seconds, 1),
                "CFR+ iterations": self.curve[-1][0],
                "NashConv": self.nash_conv, "CFR+ s": round(self.curve[-1][2], 1)}


def solve(name: str, params: dict | None = None, seconds: float = 600,
          target: float | None = None, every: int = 10, iterations: int = 1_000_000,
          progress: bool = False) -> Study:
    """Export configuration ``name`` (``CONFIGS``, or ``params``) and run CFR+ for at
    most ``seconds`` (or until NashConv is at most ``target``)."""
    params = dict(CONFIGS[name] if params is None else params)
    tree = export(load(params), progress=progress)
    solver, curve = cfr_plus(tree, iterations, every=every, seconds=seconds,
                             target=target)
    study = Study(name, params, tree, solver, curve)
    study.cfr_policy = tree.uno_policy(solver.average_policy())
    return study


def exploitability_table(study: Study, agents: dict) -> list[dict]:
    """One row per agent: ``agents`` maps a name to a registry name, an agent object
    or a policy (``{(player, number): {action: prob}}``); CFR+'s average policy is
    added last. Exploitability is NashConv / players; "against CFR+" the agent's
    expected return with CFR+'s policy in the other seats, the mean over its seats."""
    rows = []
    tree, cfr = study.tree, study.cfr_policy
    players = tree.uno_game.num_players()
    items = list(agents.items()) + [("CFR+", cfr)]
    for name, agent in items:
        policy = agent if isinstance(agent, dict) else tree.agent_policy(agent)
        # the agent in each seat in turn, CFR+ in the others: its mean return
        against = [tree.returns({k: (policy if k[0] == seat else cfr)[k]
                                 for k in tree.views})[seat] for seat in range(players)]
        rows.append({"config": study.name, "agent": name,
                     "exploitability": tree.exploitability(policy),
                     "against CFR+": float(np.mean(against))})
    return rows


def train_learned(params: dict, out, timesteps: int = 300_000, seed: int = 0):
    """A small PPO agent trained on configuration ``params`` by ``agents.train``
    (against the heuristic and a self-play pool); returns the ``PPOAgent``."""
    from uno_env.players.registry import make_agent, trainer

    train = trainer("ppo")  # the agents package's job (uno_env never imports agents)
    flags = {k: v for k, v in params.items() if k not in ("players", "chance")}
    result = train(out=out, progress=False, preset="classic",
                   num_players=params.get("players", 2), timesteps=timesteps,
                   opponents=[["heuristic"], ["self"]], seed=seed, num_envs=64,
                   eval_every=10 * timesteps, eval_games=200,
                   checkpoint_every=10 * timesteps, snapshot_every=timesteps // 5,
                   **flags)
    agent = make_agent(str(result.policy_path), None)
    agent.name = "ppo"
    return agent
