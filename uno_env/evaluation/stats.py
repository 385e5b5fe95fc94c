"""Small statistics shared by the evaluation APIs (tournaments, ``evaluate``, notebooks)."""
from __future__ import annotations

import math

import numpy as np

#: the two-sided 95% quantile of the standard normal distribution
Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a binomial proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # the interval always holds p; clamping to it removes rounding (p = 0 gave a lower
    # bound of 1e-18, and a negative error bar in the tournament chart)
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def paired_difference(won, reference_won) -> dict:
    """How much more often one agent won than another on the same games (``won`` and
    ``reference_won``: the ``won`` arrays of two ``evaluate(..., per_game=True)`` runs
    with the same seed, games and opponents). Where both play alike the outcomes are
    equal, so the difference is measured far more tightly than the two rates' own
    intervals suggest. Returns ``difference`` (win rate minus the reference's), its 95%
    interval ``ci`` (normal approximation of the per-game differences), and the games
    only one of them won (``only_won``, ``only_reference_won``)."""
    won, reference_won = np.asarray(won, np.bool_), np.asarray(reference_won, np.bool_)
    if won.shape != reference_won.shape or won.ndim != 1 or not len(won):
        raise ValueError(f"won and reference_won must be two bool arrays of one length "
                         f"(the same games), got shapes {won.shape} and "
                         f"{reference_won.shape}")
    d = won.astype(np.float64) - reference_won
    half = Z95 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("inf")
    return {"difference": float(d.mean()), "ci": (float(d.mean() - half),
                                                   float(d.mean() + half)),
            "only_won": int((won & ~reference_won).sum()),
            "only_reference_won": int((reference_won & ~won).sum())}
