"""The few distribution functions the statistics use, straight from scipy.special, as scipy.stats
computes them: importing scipy.stats loads every distribution it has, about half a second of each
command's start (a warm ``make demo`` is a few seconds in all), for six functions."""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def norm_ppf(q):
    return special.ndtri(q)


def norm_sf(x):
    return special.ndtr(-np.asarray(x, dtype=float)) if np.ndim(x) else float(special.ndtr(-x))


def t_ppf(q, df):
    return special.stdtrit(df, q)


def t_sf(x, df):
    return special.stdtr(df, -np.asarray(x, dtype=float)) if np.ndim(x) else float(special.stdtr(df, -x))


def chi2_sf(x, df):
    return special.chdtrc(df, x)


def t_interval(confidence: float, df, mean: float, se: float) -> tuple[float, float]:
    """The central t interval (scipy.stats.t.interval's quantiles, scaled and shifted)."""
    return (mean + se * float(t_ppf((1 - confidence) / 2, df)), mean + se * float(t_ppf((1 + confidence) / 2, df)))


def wilson(successes: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval without continuity correction (Newcombe 1998, as scipy's binomtest)."""
    p = successes / n
    z = float(norm_ppf(0.5 + 0.5 * confidence))
    denom = 2 * (n + z ** 2)
    center = (2 * n * p + z ** 2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z ** 2)
    return (0.0 if successes == 0 else center - delta, 1.0 if successes == n else center + delta)


def sem(x) -> float:
    """The standard error of the mean (ddof 1)."""
    x = np.asarray(x, dtype=float)
    return float(np.std(x, ddof=1) / np.sqrt(len(x)))
