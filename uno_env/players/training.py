"""What a training job returns: ``TrainResult``, the one record of SB3's PPO
(``agents.train.train``, ``uno-bench train``), RLlib's self-play
(``uno_env.integrations.train_rllib``, ``uno-bench train --framework rllib``) and expert
iteration (``agents.exit.ExitResult`` adds its decisions), and the row of one
evaluation in it (``evaluation_row``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class TrainResult:
    """``out``: the job's directory (``policy.npz``, ``eval.csv``, ``summary.json``, and
    the framework's own files: ``model.zip`` for SB3, ``checkpoint/`` for RLlib);
    ``timesteps`` trained in ``seconds``; ``evaluations``: one ``evaluation_row`` per
    evaluation and opponent; ``agent``: the trained policy, where the job keeps it
    (RLlib's export); ``iterations`` and ``history`` (one row per iteration): RLlib's."""

    out: Path
    timesteps: int
    seconds: float
    evaluations: list = field(default_factory=list)
    agent: object = field(default=None, repr=False)
    iterations: int | None = None
    history: list = field(default_factory=list)

    @property
    def steps_per_second(self) -> float:
        return self.timesteps / self.seconds if self.seconds else 0.0

    @property
    def policy_path(self) -> Path:
        return self.out / "policy.npz"

    @property
    def model_path(self) -> Path:
        """SB3's whole model (``resume=``)."""
        return self.out / "model.zip"

    @property
    def checkpoint_path(self) -> Path:
        """RLlib's checkpoint (``Algorithm.from_checkpoint``)."""
        return self.out / "checkpoint"


def evaluation_row(steps: int, opponent, result: dict, **extra) -> dict:
    """One row of ``eval.csv`` and ``TrainResult.evaluations``: the win rate with its
    95% interval and the mean reward of an ``evaluate`` result (rounded to 5 places)
    against ``opponent`` after ``steps``, then ``extra`` columns."""
    return {"steps": int(steps), "opponent": str(opponent), "games": result["games"],
            "win_rate": round(result["win_rate"], 5),
            "ci_low": round(result["ci"][0], 5), "ci_high": round(result["ci"][1], 5),
            "mean_reward": round(result["mean_reward"], 5), **extra}
