"""UNO as a PettingZoo AEC environment.

==================  =================================================================
Import              ``import uno_env; env = uno_env.env(preset="classic", num_players=4)``
Actions             Discrete; 70 ids for classic (layout: ``uno_env.rules.actions``)
Agents              ``player_0`` ... ``player_{N-1}``, N = 2 to 10
Observation shape   ``{"observation": float32[D], "action_mask": int8[A]}``
Observation values  counts and one-hots (``uno_env.engine.observe``), all >= 0
==================  =================================================================

Observation Space
    The ``observation`` vector is documented field by field in
    :mod:`uno_env.engine.observe` (own hand counts per card type, top card, colour in
    force, direction, phase, pending draw, opponents' hand sizes by relative seat, UNO
    state, draw pile size, cards in the discard pile, match scores). It holds nothing
    hidden: no other hand and no draw-pile order.

Legal Actions Mask
    ``action_mask[a] == 1`` for every legal action of the agent to move; all zeros for
    the others. Every decision has at least one legal action.

Action Space
    Blocks ``PLAY``, ``WILD`` (card x colour), ``DRAW``, ``PASS``, ``CHALLENGE``,
    ``ACCEPT``, ``UNO``, ``CATCH``, ``COLOR`` (and ``SWAP``, ``swap:+k``, only with the
    7-0 rule; ``ACE`` and ``GIVE`` only with the ``onepiece`` deck): see
    :mod:`uno_env.rules.actions`;
    ``env.unwrapped.game.move_name(a)`` gives the move string (with UNO Flip it names
    the whole card by the match's pairing, ``R5|P7``). The same agent may act
    several times in a row (``uno`` then a card; a skip in a two-player game).

Rewards
    Single round (``target_score=0``): the winner +1, every other player -1/(N-1);
    ``reward="score"`` gives round points; truncation (``max_turns``) gives 0, or with
    ``settle_cut=True`` each seat's standing (docs/rules.md section 7). In a match, "win" rewards come when the match ends and
    "score" rewards at the end of every round.

Errors
    The environment enforces turn order and legality itself (no wrapper chain, so it
    keeps the engine's speed): stepping before ``reset`` raises ``ValueError``. What an
    out-of-range or illegal action does is ``illegal_action``'s choice:

    * ``"raise"`` (the default): ``ValueError`` naming the legal moves; the game is left
      unchanged, so the caller may catch it and step again.
    * ``"lose"``: PettingZoo's classic convention (its ``TerminateIllegalWrapper``): the
      game ends for everyone (``terminations`` all True) and the mover gets the losing
      reward, -1. Where that wrapper gives the others 0, here they get what keeps the
      rewards zero-sum, as a finished game's are: +1/(N-1) each, or with ``teams`` -1
      for each of the mover's team and +1 for each of the other team (whatever
      ``reward`` is: an unfinished round has no points).
      The mover's info holds ``illegal_action: True``. In a match the whole match ends.

    A non-integer action (``"R1"``, ``None`` for an agent still playing) is a
    ``ValueError`` either way: it is a bug in the calling code, not a move.

    The default is ``"raise"`` because the action mask is exact: an agent that samples
    from it never plays an illegal move, so one that does shows a bug in the caller's
    masking, which an error surfaces at once and a quietly lost game would hide (it
    would look like a weak agent). Pass ``"lose"`` for agents that ignore the mask and
    are meant to learn legality from the reward. ``"raise"`` is also v0's behaviour.

Version History
    The environment's version (``metadata["name"] == "uno_v1"``; registered with
    PettingZoo as ``uno_env/UnoAEC-v1``) changes only when the same arguments can give a
    different game, observation, space or reward; CHANGELOG.md has the project's log.

    * v0: first release (classic rules, docs/rules.md section 2).
    * v0, house rules: docs/rules.md 3-4 flags, ``classic112`` and ``teams`` (team rewards
      shared); with every flag off the spaces and the observation are unchanged.
    * v0, UNO One Piece: preset ``onepiece`` (docs/rules.md 6); classic spaces unchanged.
    * v0, UNO Flip: preset ``flip`` (docs/rules.md 5); classic spaces unchanged.
    * v0, 0.2.0: option ``illegal_action="raise" | "lose"``; the default keeps v0's
      behaviour (raise).
    * v1 (0.2.0, ``uno_env/UnoAEC-v1``): the observation ends with two fields,
      ``shown_hand`` and ``shown_by``: the hand the agent's last challenge showed it and
      whose it was (``uno_env.engine.observe``; with ``bluff`` on, every preset's
      default). Every other field keeps its place, so v0's observation is the first
      entries of v1's; the games and rewards are v0's. ``pettingzoo.make`` of
      ``uno_env/UnoAEC-v0`` (and of 0.1's ``uno_env/Uno-v0``) still gives v0's
      observation, with a ``DeprecationWarning`` (``uno_env.envs.legacy``).
"""
from __future__ import annotations

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from uno_env.engine.dispatch import STEP_EPISODE_ENDED, STEP_ROUND_ENDED, STEP_SEAT_MASK
from uno_env.envs.game import Game
from uno_env.rules import check_seed


def env(preset: str = "classic", num_players: int = 4, render_mode: str | None = None,
        illegal_action: str = "raise", public_record: bool = False,
        **rules) -> "raw_env":
    """The AEC environment as shipped: legality and turn order are checked inside, so no
    PettingZoo wrappers are added (they would cost ~10x in speed). ``illegal_action``:
    "raise" (default) or "lose" (module docstring, Errors). ``public_record``: the
    observation ends with the public record (docs/environments.md)."""
    return raw_env(preset=preset, num_players=num_players, render_mode=render_mode,
                   illegal_action=illegal_action, public_record=public_record, **rules)


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "uno_v1",
                "is_parallelizable": False}

    #: values of ``illegal_action`` (module docstring, Errors)
    ILLEGAL_ACTIONS = ("raise", "lose")

    def __init__(self, preset: str = "classic", num_players: int = 4,
                 render_mode: str | None = None, illegal_action: str = "raise",
                 public_record: bool = False, **rules):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got "
                             f"{render_mode!r}")
        if illegal_action not in self.ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got "
                             f"{illegal_action!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.game = Game(preset, num_players, seed=0, public_record=public_record, **rules)
        self.config = self.game.config
        self.layout = self.config.layout
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict({
            "observation": self.config.observation_space_with(self.game.public_record),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.layout.size,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        act_space = self.config.action_space
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._zero_mask = np.zeros(self.layout.size, np.int8)
        self._base_seed: int | None = None
        self._episode = 0
        self._ready = False
        # reset and no agent terminated or truncated yet (every agent ends together)
        self._live = False

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. With ``seed`` the episodes that follow are reproducible: the
        k-th reset after ``reset(seed=s)`` plays game ``k`` of seed ``s``."""
        if seed is not None:
            self._base_seed = check_seed(seed)
            self._episode = 0
        elif self._base_seed is None:
            self._base_seed = int(np.random.SeedSequence().entropy % 2**63)
        self.game.reset(self._base_seed, self._episode)
        self._episode += 1
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._rewarded = False
        self.agent_selection = self.possible_agents[self.game.current_player]
        # the mask as the int8 the observation space declares (a view: always current)
        self._mask_i8 = self.game.action_mask().view(np.int8)
        self._ready = self._live = True

    def observe(self, agent):
        game = self.game
        if self._live and agent == self.agent_selection:
            # the agent to move (the loop's every step): the observation that the last
            # kernel call left, and the mask, copied (a caller may keep them)
            return {"observation": game.current_observation(),
                    "action_mask": self._mask_i8.copy()}
        if not self._ready:
            raise ValueError("call reset() before observe()")
        if not isinstance(agent, str) or agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; agents: "
                             f"{', '.join(self.possible_agents)}")
        return {"observation": game.observe(self.agent_name_mapping[agent]),
                "action_mask": self._zero_mask.copy()}

    def step(self, action) -> None:
        if not self._live:
            if not self._ready:
                raise ValueError("call reset() before step()")
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        if action is None:
            raise ValueError(f"{agent} is still playing: None is only accepted for an agent "
                             f"whose game has ended; legal moves: "
                             f"{', '.join(self.game.legal_moves())}")
        game = self.game
        if self.illegal_action == "lose" and not self._legal(action):
            self._lose(agent)
            return
        code = game.step(action)  # ValueError naming the legal moves if illegal
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        self.agent_selection = self.possible_agents[code & STEP_SEAT_MASK]
        # a round's end, or a cut (settle_cut's settlement; otherwise zeros)
        if code & (STEP_ROUND_ENDED | STEP_EPISODE_ENDED):
            for name, r in zip(self.possible_agents, game.rewards):
                self.rewards[name] = r
            self._rewarded = True
            self._accumulate_rewards()
        if code & STEP_EPISODE_ENDED:
            done = self.terminations if game.terminated else self.truncations
            for name in self.agents:
                done[name] = True
            self._live = False
        if self.render_mode == "human":
            self.render()

    def _legal(self, action) -> bool:
        """Whether ``action`` is a legal move now; a non-integer is a ValueError."""
        a = self.game.action_id(action)
        return 0 <= a < self.layout.size and bool(self.game.action_mask()[a])

    def _lose(self, agent) -> None:
        """``illegal_action="lose"``: ``agent`` loses and the game ends for everyone."""
        n, mover = len(self.possible_agents), self.agent_name_mapping[agent]
        if self.config.rules.teams:
            rewards = [-1.0 if (q - mover) % 2 == 0 else 1.0 for q in range(n)]
        else:
            rewards = [-1.0 if q == mover else 1.0 / (n - 1) for q in range(n)]
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
        for name, r in zip(self.possible_agents, rewards):
            self.rewards[name] = r
        self._rewarded = True
        self._accumulate_rewards()
        for name in self.agents:
            self.terminations[name] = True
        self._live = False
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass "
                                  "render_mode='ansi' or 'human' to env()")
            return None
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
