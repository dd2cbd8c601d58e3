"""The sequential test on duplicate pair scores: a GSPRT, as Fishtest runs it on
pentanomial game pairs.

Pair scores take few values (half-levels per deal, most of them 0), so the
test models them as a multinomial over the observed values. Under H0 the
mean pair score is ``low``, under H1 ``high``; each likelihood is maximised
over the multinomials with that mean (p_i = q_i / (1 + lam (x_i - mu)), q
the observed shares), and the LLR is their log ratio. Wald's bounds with
``alpha`` / ``beta`` stop it.

Guards against a degenerate variance (the first pairs all 0): no decision
before ``min_n`` pairs, and a prior of one pseudo-pair at each of -``spread``
and +``spread`` levels per deal (default: 1, or twice the larger bound),
so the constrained likelihoods always exist.

After stopping, the mean of the pairs is biased and a fixed-sample interval
does not cover. ``corrected_estimate`` inverts the test's own outcome
ordering (exit side, then how early; Siegmund's ordering, as Fishtest's
``sprt.py`` analytics do with a Brownian approximation) by simulation of the
same looks under a normal model: a median-unbiased estimate and an
interval with the stated coverage.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq


def _lambda(values, shares, mu) -> float:
    """The Lagrange multiplier of the multinomial MLE with mean ``mu``."""
    d = values - mu
    lo, hi = -1 / d.max(), -1 / d.min()  # 1 + lam d > 0 for every value
    span = hi - lo
    f = lambda lam: float((shares * d / (1 + lam * d)).sum())  # noqa: E731 - decreasing in lam
    return brentq(f, lo + 1e-10 * span, hi - 1e-10 * span, xtol=1e-14)


def llr(values, counts, low: float, high: float) -> float:
    """Generalised log-likelihood ratio of mean ``high`` against mean ``low``
    for pair-score ``values`` seen ``counts`` times."""
    values = np.asarray(values, float)
    counts = np.asarray(counts, float)
    n = counts.sum()
    shares = counts / n
    if not values.min() < low < high < values.max():
        raise ValueError("the hypotheses must lie strictly inside the range of the pair scores")
    l0, l1 = _lambda(values, shares, low), _lambda(values, shares, high)
    return float(n * (shares * (np.log1p(l0 * (values - low)) - np.log1p(l1 * (values - high)))).sum())


class GSPRT:
    """Sequential test of H0: mean pair score = ``low`` against H1: = ``high``.

    Feed pair scores in order with ``update``; the test looks every
    ``look_every`` pairs and stops at the first look outside the bounds.
    """

    def __init__(self, low: float, high: float, alpha: float = 0.05, beta: float = 0.05,
                 min_n: int = 100, look_every: int = 50, spread: float | None = None):
        if not high > low:
            raise ValueError("the sequential test needs high > low")
        spread = max(1.0, 2 * abs(low), 2 * abs(high)) if spread is None else float(spread)
        if not -spread < low < high < spread:
            raise ValueError(f"low and high must lie within -{spread}..{spread} levels per deal")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ValueError("alpha and beta must be between 0 and 0.5")
        self.low, self.high, self.alpha, self.beta = float(low), float(high), alpha, beta
        self.min_n, self.look_every, self.spread = int(min_n), int(look_every), float(spread)
        self.lower_bound = math.log(beta / (1 - alpha))
        self.upper_bound = math.log((1 - beta) / alpha)
        self.counts: dict[float, int] = {}
        self.n, self.sum, self.sumsq, self.llr = 0, 0.0, 0.0, 0.0
        self.looks: list[int] = []
        self.state = "continue"
        self._pending: list[float] = []

    def _current_llr(self) -> float:
        values = np.array([-self.spread, self.spread, *self.counts], float)
        counts = np.array([1.0, 1.0, *self.counts.values()])
        order = np.argsort(values)
        values, counts = values[order], counts[order]
        keep = np.concatenate([[True], np.diff(values) > 0])  # merge an observed value equal to a prior point
        return llr(values[keep], np.add.reduceat(counts, np.flatnonzero(keep)), self.low, self.high)

    def update(self, scores) -> str:
        """Add pair scores in order; stop at the first look that crosses a bound
        (later scores are ignored, as the test would have stopped there)."""
        for x in np.asarray(scores, dtype=float).ravel():
            if self.state != "continue":
                break
            x = round(float(x), 9)
            self.counts[x] = self.counts.get(x, 0) + 1
            self.n += 1
            self.sum += x
            self.sumsq += x * x
            if self.n % self.look_every == 0:
                self._look()
        return self.state

    def finish(self) -> str:
        """A last look at the pairs since the previous one (the pair limit came first)."""
        if self.state == "continue" and self.n and (not self.looks or self.looks[-1] != self.n):
            self._look()
        return self.state

    def _look(self) -> None:
        self.looks.append(self.n)
        self.llr = self._current_llr()
        if self.n >= self.min_n:
            if self.llr >= self.upper_bound:
                self.state = "accept_high"
            elif self.llr <= self.lower_bound:
                self.state = "accept_low"

    @property
    def mean(self) -> float:
        return self.sum / self.n if self.n else math.nan

    @property
    def prior_sd(self) -> float:
        """The sd of the pair scores with the test's two prior pseudo-pairs at -+spread."""
        n = self.n + 2
        mean = self.sum / n
        return math.sqrt(max(0.0, (self.sumsq + 2 * self.spread ** 2 - n * mean * mean) / (n - 1)))

    @property
    def sd(self) -> float:
        if self.n < 2:
            return math.nan
        return math.sqrt(max(0.0, (self.sumsq - self.n * self.mean ** 2) / (self.n - 1)))


def _order_value(state: str, look: int, mean: float) -> float:
    """Siegmund's ordering as one number: H1 exits above everything (earlier is
    higher), H0 exits below (earlier is lower), undecided in between by mean."""
    if state == "accept_high":
        return 1e9 - look
    if state == "accept_low":
        return -1e9 + look
    return mean


GRID_HALF_WIDTH = 8.0  # the estimate's grid of candidate means: +- this many standard errors at first,
GRID_POINTS = 161
GRID_WIDEN = 4.0  # widened by this factor while it does not bracket the interval,
MAX_GRID_HALF_WIDTH = 8.0 * 4.0 ** 5  # up to this


def corrected_estimate(test: GSPRT, confidence: float = 0.95, sims: int = 4000, seed: int = 0) -> dict:
    """Median-unbiased estimate and interval of the mean pair score after the test.

    For each candidate mean theta, simulate the test's own looks (normal pair
    sums with the observed sd, the normal form of the LLR, the same bounds
    and ``min_n``) and compute P_theta(outcome at least as high as observed in
    Siegmund's ordering). That probability rises with theta; the estimate is
    where it is 1/2 and the interval where it is (1 -+ confidence) / 2.
    """
    if test.n < 2 or not test.looks:
        raise ValueError("no pairs seen: nothing to estimate")
    sd = test.prior_sd  # the spread the test itself used, with its prior pseudo-pairs
    looks = np.array(test.looks, float)
    observed = _order_value(test.state, len(looks), test.mean)
    se = sd / math.sqrt(test.n) if sd > 0 else 1e-6
    rng = np.random.default_rng(seed)
    steps = np.sqrt(np.diff(np.concatenate([[0.0], looks])))
    noise = np.cumsum(rng.standard_normal((sims, len(looks))) * steps, axis=1) * sd
    scale = (test.high - test.low) / max(sd * sd, 1e-12)
    eligible = looks >= test.min_n
    tail = (1 - confidence) / 2

    def probabilities(grid):
        prob = np.empty(len(grid))
        for i, theta in enumerate(grid):
            s = theta * looks + noise
            lr = scale * (s - looks * (test.low + test.high) / 2)
            up = (lr >= test.upper_bound) & eligible
            down = (lr <= test.lower_bound) & eligible
            stop = up | down
            first = np.where(stop.any(axis=1), stop.argmax(axis=1), -1)
            rows = np.arange(sims)
            value = np.where(first < 0, s[:, -1] / looks[-1],
                             np.where(up[rows, first], 1e9 - (first + 1), -1e9 + (first + 1)))
            prob[i] = (value >= observed).mean()
        return prob

    # +-8 standard errors around the mean, widened when that does not bracket the interval: a test that
    # stops at its first eligible look on a large effect is as likely under means far below the observed one
    width = GRID_HALF_WIDTH
    while True:
        grid = test.mean + se * np.linspace(-width, width, GRID_POINTS)
        prob = probabilities(grid)
        if (prob[0] <= tail and prob[-1] >= 1 - tail) or width >= MAX_GRID_HALF_WIDTH:
            break
        width *= GRID_WIDEN

    def solve(target):
        above = np.flatnonzero(prob >= target)
        if not len(above):
            return math.inf
        j = above[0]
        if j == 0:
            return -math.inf
        p0, p1 = prob[j - 1], prob[j]
        return float(grid[j - 1] + (grid[j] - grid[j - 1]) * (target - p0) / (p1 - p0))

    return {"estimate": solve(0.5), "low": solve(tail), "high": solve(1 - tail), "confidence": confidence,
            "sims": sims}


def verdict(test: GSPRT, a: str = "A", b: str = "B") -> str:
    """What the test decided, in words that say what was tested and at what error."""
    if test.state == "accept_high":
        return (f"H1 accepted: {a} is better than {b} by more than {test.low:g} levels per deal (at most alpha = "
                f"{test.alpha:g} false acceptances when the true advantage is {test.low:g} or less; "
                f"the test was designed to detect {test.high:g})")
    if test.state == "accept_low":
        return (f"H0 accepted: {a} is not better than {b} by {test.high:g} levels per deal or more (at most beta = "
                f"{test.beta:g} false acceptances when the true advantage is {test.high:g} or more)")
    return "undecided: the pair limit came before either bound"
