"""The confidence interval of a sample's mean, shared by the league's meta-game (one per
cell) and the evaluation suites (one per metric), so both compute it the same way.

Student's t by default: mean ± t(1 − α/2, n − 1) · s / √n. ``bootstrap``: the percentiles of
``samples`` means of resamples, seeded so the answer repeats. With one value there is no
spread to measure, so there is no interval (never an invented width); values that all agree
give an interval of width 0, since neither method can see a spread the sample lacks.

    >>> found = mean_interval([1.0, 2.0, 3.0, 4.0])
    >>> found.mean, round(found.lower, 4), round(found.upper, 4)
    (2.5, 0.4457, 4.5543)
    >>> mean_interval([3.0]).lower is None
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from games.analysis.errors import AnalysisError

__all__ = ["IntervalMethod", "MeanInterval", "mean_interval"]

IntervalMethod = Literal["t", "bootstrap"]


@dataclass(frozen=True)
class MeanInterval:
    """A sample's mean and the confidence interval of it (``lower`` and ``upper`` None with
    a single value)."""

    mean: float
    count: int
    lower: float | None
    upper: float | None
    confidence: float
    method: IntervalMethod


def mean_interval(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    method: IntervalMethod = "t",
    samples: int = 2000,
    seed: int = 0,
) -> MeanInterval:
    """The mean of ``values`` and its ``confidence`` interval.

    Args:
        values: the sample (at least one value).
        confidence: the interval's level, strictly between 0 and 1.
        method: ``"t"`` (Student's t) or ``"bootstrap"`` (percentiles of resampled means).
        samples: how many resamples the bootstrap draws.
        seed: the bootstrap's seed.

    Returns:
        The mean, the count and the interval (no interval for one value).

    Raises:
        AnalysisError: no values, a level outside (0, 1), or fewer than one resample.
    """
    n = len(values)
    if n == 0:
        raise AnalysisError("a mean needs at least one value")
    if not 0 < confidence < 1 or samples < 1:
        raise AnalysisError(
            f"the confidence must be in (0, 1) and the resamples at least 1, "
            f"got {confidence} and {samples}"
        )
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if n == 1:
        return MeanInterval(mean, 1, None, None, confidence, method)
    if method == "t":
        from scipy.stats import t  # loaded only when an interval is asked for

        half = float(t.ppf((1 + confidence) / 2, n - 1)) * float(data.std(ddof=1)) / math.sqrt(n)
        return MeanInterval(mean, n, mean - half, mean + half, confidence, method)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, n, size=(samples, n))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return MeanInterval(mean, n, float(low), float(high), confidence, method)
