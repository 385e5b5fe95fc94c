"""The record of a trained policy's file: the JSON ``meta`` entry of the ``.npz`` a
``PPOAgent`` saves (``agents.ppo``), written by every exporter (SB3's and expert
iteration's in ``agents``, RLlib's in ``uno_env.integrations.rllib``, the CleanRL
example) through :func:`policy_record`, and checked by ``PPOAgent.load``."""
from __future__ import annotations

#: the version string of the ``.npz`` policy format that the shipped models use
POLICY_FORMAT = "uno-env-ppo/1"


def policy_record(config, activation: str = "relu", **meta) -> dict:
    """The record of a policy for ``config`` (``uno_env.rules.config.Config``): the
    format, the game (preset, players, rule overrides), the sizes the network reads and
    writes, the hidden layers' ``activation``, then ``meta`` (``name``, ``trainer``,
    training counts ...), which may override none of the others."""
    record = {"format": POLICY_FORMAT, "preset": config.preset,
              "num_players": config.num_players, "rules": config.rule_overrides(),
              "obs_size": config.layout.obs_size, "num_actions": config.layout.size,
              "activation": activation}
    clash = sorted(set(meta) & set(record))
    if clash:
        raise ValueError(f"policy_record: {clash} come from the configuration; pass "
                         f"them through config, not as meta entries")
    record.update(meta)
    return record
