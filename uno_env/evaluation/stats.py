"""Small statistics shared by the evaluation APIs (tournaments, ``evaluate``, notebooks)."""
from __future__ import annotations

import math

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
