"""Trained policies as ONNX files, and ONNX files played as agents (the ``onnx`` extra).

    >>> PPOAgent.load("ppo_classic_2p").export_onnx("ppo_classic_2p.onnx")
    >>> agent = make_agent("onnx:ppo_classic_2p.onnx", None)   # onnxruntime plays it

``uno-bench export MODEL --format onnx`` writes one from the command line; the agent
``onnx:PATH`` plays one anywhere an agent is named (``uno-bench tournament``, ``uno-bench
benchmark --agent onnx:PATH``), move for move as the ``.npz`` model it came from.

The graph (``export_onnx``) is written with the ``onnx`` package's helper API from the
model's numpy weights: no torch. Opset 17, IR version 8 (onnxruntime 1.19 and later).

- inputs: ``observation`` float32[N, W] (the environment's observation; the network
  reads its first ``obs_size`` entries, so ``W`` may be the observation of the env id
  the model was trained on or a later one that appends fields), ``action_mask``
  float32[N, A] (nonzero = legal), and, for a model trained with advice
  (``meta["advice"]``, e.g. ``ppo_flip_4p``, ``exit_classic_2p``), ``advice``
  float32[N, A]: the one-hot of the move the advising agent (the heuristic) makes in
  that position (``agents.ppo.advice_features``; ``OnnxAgent`` computes it with the
  numba kernel, as ``PPOAgent`` does). A graph cannot hold the heuristic, so another
  tool playing such a model must supply its move.
- outputs: ``logits`` float32[N, A], the action logits with illegal actions at
  ``-inf``; ``action`` int64[N], their argmax (the first of equal maxima, as numpy).
- ``metadata_props``: ``uno_env`` (the model's JSON record: preset, players, rules,
  ``obs_size``, ``advice``, its training ``provenance``) and ``uno_env_export`` (the
  provenance of the export).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .base import Agent, choose_from_logits, policy_batch, split_observation
from .onnx_export import META_KEY, require
from .ppo import PPOAgent, advice_features, input_size
from uno_env.rules.config import make_config

class OnnxAgent(Agent):
    """An exported policy played through onnxruntime (``onnx:PATH``): the same moves as
    the ``PPOAgent`` it was exported from (``deterministic``: the best legal logit;
    else a draw from the masked softmax)."""

    kernel = None
    check_config = PPOAgent.check_config

    def __init__(self, path, deterministic: bool = True, seed=None, name: str | None = None):
        ort = require("onnxruntime")
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"no ONNX file {str(path)!r} (write one with uno-bench "
                             f"export MODEL --format onnx)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(p), options,
                                                providers=["CPUExecutionProvider"])
            self.meta = json.loads(self.session.get_modelmeta().custom_metadata_map[META_KEY])
        except (KeyError, json.JSONDecodeError) as err:
            raise ValueError(f"{str(path)!r} is not a uno-env ONNX policy (no {META_KEY!r} "
                             f"record: {err})") from None
        except Exception as err:  # onnxruntime's own errors (a corrupt file)
            raise ValueError(f"{str(path)!r} is not a loadable ONNX file: {err}") from None
        self.path = p
        self.name = name or p.stem
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.config = make_config(self.meta["preset"], self.meta["num_players"],
                                  **self.meta.get("rules", {}))
        self.input_size = input_size(self.config, self.meta.get("obs_size"))
        self.advisor = None
        if self.meta.get("advice"):
            from .baselines import make_agent
            self.advisor = make_agent(self.meta["advice"], self.config)
        self._inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, observations, action_masks) -> np.ndarray:
        """float32[B, A]: the graph's masked logits (illegal actions at -inf)."""
        obs = np.ascontiguousarray(observations, np.float32)
        mask = np.ascontiguousarray(action_masks, np.float32)
        feed = {"observation": obs, "action_mask": mask}
        if "advice" in self._inputs:
            feed["advice"] = advice_features(self.advisor, obs, mask)
        return self.session.run(["logits"], feed)[0]

    def act_batch(self, observations, action_masks) -> np.ndarray:
        obs, mask = policy_batch(observations, action_masks, self.config, self.input_size,
                                 self.config.layout.size)
        logits = self.logits(obs, mask)
        return choose_from_logits(logits, self.deterministic, self.rng)

    def act(self, observation, action_mask=None) -> int:
        obs, mask = split_observation(observation, action_mask)
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __repr__(self) -> str:
        return (f"OnnxAgent({str(self.path)!r}, {self.config.preset!r}, "
                f"{self.config.num_players} players)")
