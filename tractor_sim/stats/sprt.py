"""The sequential test on duplicate pair scores: a GSPRT, as Fishtest runs it on
pentanomial game pairs.

Pair scores take few values (half-levels per deal, most of them 0), so the
test models them as a multinomial over the observed values. Under H0 the
mean pair score is ``low``, under H1 ``high``; each likelihood is maximised
over the multinomials with that mean (p_i = q_i / (1 + lam (x_i - mu)), q
the observed shares), and the LLR is their log ratio. Wald's bounds with
``alpha`` / ``beta`` stop it.

The minimum-information rule: no decision before ``min_n`` pairs AND
``min_nonzero`` pairs that differ (non-zero pair scores). The LLR's variance
comes from the non-zero pairs; on a zero-heavy shape a run of zeros at the
start makes it tiny and used to settle the test at ``min_n`` (100 straight
zeros at 98% zeros: 13% of runs accepted H0 there). A prior of one
pseudo-pair at each of -``spread`` and +``spread`` levels per deal (default:
1, or twice the larger bound) keeps the constrained likelihoods defined.

After stopping, the mean of the pairs is biased and a fixed-sample interval
does not cover. ``corrected_estimate`` uses Whitehead's stagewise ordering
of the outcomes (exit side, then the look of the exit, then the mean at that
look; the ordering of Fishtest's ``sprt.py`` analytics) and the Brownian
approximation of the test (normal pair sums with the observed sd, the normal
form of the LLR, the same looks and bounds). Each simulated path's outcome
rises with the true mean, so P_theta(outcome at least the observed one) is
the share of paths whose threshold mean is at most theta: the
median-unbiased estimate and the interval are quantiles of those thresholds,
always finite.
"""

from __future__ import annotations

import math

import numpy as np

BISECTIONS = 80  # halvings of the multiplier's bracket: far below float precision of the LLR


def _lambdas(values, shares, mu) -> np.ndarray:
    """The Lagrange multipliers of the multinomial MLE with mean ``mu``, one per row of ``shares``
    (bisection on every row at once: sum q d / (1 + lam d) decreases in lam)."""
    d = values - mu
    seen = shares > 0  # the bracket: 1 + lam d > 0 for every value seen (unseen ones have no weight)
    lo = -1 / np.where(seen, d, -np.inf).max(axis=1)
    hi = -1 / np.where(seen, d, np.inf).min(axis=1)
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            up = (shares * d / np.where(seen, 1 + mid[:, None] * d, 1.0)).sum(axis=1) > 0
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


def llr_many(values, counts, low: float, high: float) -> np.ndarray:
    """Generalised log-likelihood ratios of mean ``high`` against mean ``low``, one per row of
    ``counts`` (how often each of the sorted ``values`` was seen)."""
    values = np.asarray(values, float)
    counts = np.atleast_2d(np.asarray(counts, float))
    n = counts.sum(axis=1)
    shares = counts / n[:, None]
    if not _inside(values, shares, low, high).all():
        raise ValueError("the hypotheses must lie strictly inside the range of the pair scores")
    return n * _llr_shares(values, shares, low, high)


def _inside(values, shares, low, high) -> np.ndarray:
    seen = shares > 0
    return (np.where(seen, values, np.inf).min(axis=1) < low) & (np.where(seen, values, -np.inf).max(axis=1) > high)


def _llr_shares(values, shares, low, high) -> np.ndarray:
    """The LLR per pair of each row of ``shares``."""
    l0, l1 = _lambdas(values, shares, low), _lambdas(values, shares, high)
    seen = shares > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log1p(l0[:, None] * (values - low)) - np.log1p(l1[:, None] * (values - high))
    return np.where(seen, shares * terms, 0.0).sum(axis=1)


def mean_bounds(values, counts, looks, low: float, high: float, lower_bound: float, upper_bound: float):
    """The test's bounds in units of the mean at each look: the means at which n times the LLR per pair
    reaches each bound, on the exponential tilts of the observed shares (the likelihood profile of
    these data: on a skewed shape far from the normal form's straight line). +-inf where no tilt
    reaches a bound."""
    values = np.asarray(values, float)
    q = np.asarray(counts, float) / np.sum(counts)
    s = (values - values.mean()) / (np.ptp(values) / 2)
    t = np.sinh(np.linspace(-6.0, 6.0, 801))
    logw = np.where(q > 0, np.log(np.where(q > 0, q, 1.0)), -np.inf)[None, :] + t[:, None] * s[None, :]
    w = np.exp(logw - logw.max(axis=1, keepdims=True))
    shares = w / w.sum(axis=1, keepdims=True)
    shares[shares < 1e-300] = 0.0
    x = shares @ values
    ok = _inside(values, shares, low, high)
    g = np.full(len(t), np.nan)
    g[ok] = _llr_shares(values, shares[ok], low, high)
    ok &= np.isfinite(g)  # extreme tilts: shares too small for the multiplier's bisection
    x, g = x[ok], np.maximum.accumulate(g[ok])  # the profile rises with the mean (and levels off)
    looks = np.asarray(looks, float)

    def invert(level):
        y = level / looks
        m = np.interp(y, g, x)
        return np.where(y > g[-1], np.inf, np.where(y < g[0], -np.inf, m))
    return invert(upper_bound), invert(lower_bound)


def llr(values, counts, low: float, high: float) -> float:
    """The LLR for pair-score ``values`` seen ``counts`` times."""
    return float(llr_many(values, np.asarray(counts, float)[None, :], low, high)[0])


def support(values, spread: float):
    """The sorted values with the prior's -spread and +spread added, and the prior counts on them."""
    full = np.unique(np.concatenate([np.asarray(values, float), [-spread, spread]]))
    prior = np.where(np.isin(full, [-spread, spread]), 1.0, 0.0)
    return full, prior


class GSPRT:
    """Sequential test of H0: mean pair score = ``low`` against H1: = ``high``.

    Feed pair scores in order with ``update``; the test looks every
    ``look_every`` pairs and stops at the first eligible look (``min_n``
    pairs and ``min_nonzero`` non-zero ones seen) outside the bounds.
    """

    def __init__(self, low: float, high: float, alpha: float = 0.05, beta: float = 0.05,
                 min_n: int = 100, look_every: int = 50, spread: float | None = None, min_nonzero: int = 30):
        if not high > low:
            raise ValueError("the sequential test needs high > low")
        spread = max(1.0, 2 * abs(low), 2 * abs(high)) if spread is None else float(spread)
        if not -spread < low < high < spread:
            raise ValueError(f"low and high must lie within -{spread}..{spread} levels per deal")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ValueError("alpha and beta must be between 0 and 0.5")
        self.low, self.high, self.alpha, self.beta = float(low), float(high), alpha, beta
        self.min_n, self.look_every, self.spread = int(min_n), int(look_every), float(spread)
        self.min_nonzero = int(min_nonzero)
        self.lower_bound = math.log(beta / (1 - alpha))
        self.upper_bound = math.log((1 - beta) / alpha)
        self.counts: dict[float, int] = {}
        self.n, self.nonzero, self.sum, self.sumsq, self.llr = 0, 0, 0.0, 0.0, 0.0
        self.looks: list[int] = []
        self.eligible: list[bool] = []  # per look: could it have stopped there
        self.state = "continue"

    def _current_llr(self) -> float:
        values, prior = support(list(self.counts), self.spread)
        counts = prior + np.array([self.counts.get(v, 0) for v in values], float)
        return llr(values, counts, self.low, self.high)

    def update(self, scores) -> str:
        """Add pair scores in order; stop at the first look that crosses a bound
        (later scores are ignored, as the test would have stopped there)."""
        for x in np.asarray(scores, dtype=float).ravel():
            if self.state != "continue":
                break
            x = round(float(x), 9)
            self.counts[x] = self.counts.get(x, 0) + 1
            self.n += 1
            self.nonzero += x != 0
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
        self.eligible.append(self.n >= self.min_n and self.nonzero >= self.min_nonzero)
        self.state = decide(self.llr, self.eligible[-1], self.lower_bound, self.upper_bound)

    @property
    def mean(self) -> float:
        return self.sum / self.n if self.n else math.nan

    @property
    def prior_sd(self) -> float:
        """The sd of the pair scores with the test's two prior pseudo-pairs at -+spread."""
        return _prior_sd(self.n, self.sum, self.sumsq, self.spread)

    @property
    def sd(self) -> float:
        if self.n < 2:
            return math.nan
        return math.sqrt(max(0.0, (self.sumsq - self.n * self.mean ** 2) / (self.n - 1)))


def decide(llr_value: float, eligible: bool, lower_bound: float, upper_bound: float) -> str:
    """The state after a look: a bound crossed at an eligible look stops the test."""
    if eligible and llr_value >= upper_bound:
        return "accept_high"
    if eligible and llr_value <= lower_bound:
        return "accept_low"
    return "continue"


def _prior_sd(n, total, sumsq, spread):
    m = n + 2
    mean = total / m
    return math.sqrt(max(0.0, (sumsq + 2 * spread ** 2 - m * mean * mean) / (m - 1)))


def thresholds(state: str, looks, eligible, mean: float, sd: float, up, down, sims: int = 4000,
               seed: int = 0) -> np.ndarray:
    """For each simulated Brownian path of the test, the smallest true mean at which its outcome is at
    least the observed one in the stagewise ordering (exit side, look, mean at the look).

    Path j's sums are theta n_k + W_jk (W: normal increments with sd ``sd``); it exits up at look k when
    its mean reaches ``up``[k], i.e. theta >= u_jk, and down when theta <= d_jk (only eligible looks
    stop it). The outcome is monotone in theta, so the set of theta where it ranks at least the
    observed is a half-line, starting at the threshold returned here.
    """
    looks = np.asarray(looks, float)
    ok = np.asarray(eligible, bool)
    n_looks = len(looks)
    rng = np.random.default_rng(seed)
    steps = np.sqrt(np.diff(np.concatenate([[0.0], looks])))
    w = np.cumsum(rng.standard_normal((sims, n_looks)) * steps, axis=1) * sd
    u = np.where(ok, np.asarray(up, float) - w / looks, np.inf)
    d = np.where(ok, np.asarray(down, float) - w / looks, -np.inf)
    at_mean = mean - w[:, -1] / looks[-1]  # theta where the path's mean at the last look equals ``mean``
    if state == "accept_low":
        # below the observed: a down exit at an earlier look, or at this one with a lower mean,
        # before any up exit; the threshold is the top of that set
        e = d.copy()
        e[:, -1] = np.minimum(d[:, -1], at_mean)
        up_before = np.concatenate([np.full((sims, 1), np.inf), np.minimum.accumulate(u, axis=1)[:, :-1]], axis=1)
        return np.minimum(e, up_before).max(axis=1)
    down_before = np.concatenate([np.full((sims, 1), -np.inf), np.maximum.accumulate(d, axis=1)[:, :-1]], axis=1)
    c = u.copy()
    if state == "accept_high":
        c[:, -1] = np.maximum(u[:, -1], at_mean)  # an up exit at this look with a mean at least the observed
        return np.maximum(c, down_before).min(axis=1)
    # undecided at the last look: any up exit ranks above, or no exit and a mean at least the observed
    never_down = np.maximum(at_mean, np.maximum.accumulate(d, axis=1)[:, -1])
    return np.minimum(np.maximum(c, down_before).min(axis=1), never_down)


def stopped_estimate(state: str, looks, eligible, values, counts, prior, low: float, high: float,
                     lower_bound: float, upper_bound: float, confidence: float = 0.95, sims: int = 4000,
                     seed: int = 0) -> dict:
    """Median-unbiased estimate and ``confidence`` interval of the mean pair score from a stopped test
    whose pairs were ``values`` seen ``counts`` times, with the test's ``prior`` pseudo-counts (the
    quantiles of ``thresholds``: P_theta(outcome >= observed) is their distribution function)."""
    values, counts, prior = np.asarray(values, float), np.asarray(counts, float), np.asarray(prior, float)
    mean = counts @ values / counts.sum()
    both = counts + prior
    m = both @ values / both.sum()
    sd = math.sqrt(max(both @ (values - m) ** 2 / (both.sum() - 1), 1e-24))
    looks = np.asarray(looks, float)
    up, down = mean_bounds(values, both, looks, low, high, lower_bound, upper_bound)
    # the LLR saw the prior's pairs too (their sum is 0): a mean with them is the data's times n / (n + 2)
    up, down = up * (looks + prior.sum()) / looks, down * (looks + prior.sum()) / looks
    t = thresholds(state, looks, eligible, mean, sd, up, down, sims, seed)
    tail = (1 - confidence) / 2
    lo, est, hi = np.quantile(t, [tail, 0.5, 1 - tail])
    return {"estimate": float(est), "low": float(lo), "high": float(hi), "confidence": confidence, "sims": sims,
            "note": ""}


def corrected_estimate(test: GSPRT, confidence: float = 0.95, sims: int = 4000, seed: int = 0) -> dict:
    """The stopping-corrected estimate of ``test``'s mean pair score (``stopped_estimate``); when no pair
    differed the data give no spread, so no interval: the note says so and the bounds are NaN."""
    if test.n < 2 or not test.looks:
        raise ValueError("no pairs seen: nothing to estimate")
    if test.nonzero == 0:
        return {"estimate": 0.0, "low": math.nan, "high": math.nan, "confidence": confidence, "sims": 0,
                "note": f"every one of the {test.n:,} pairs scored 0: the data give no spread, so no interval"}
    values, prior = support(list(test.counts), test.spread)
    counts = np.array([test.counts.get(v, 0) for v in values], float)
    return stopped_estimate(test.state if test.state != "continue" else "undecided", test.looks, test.eligible,
                            values, counts, prior, test.low, test.high, test.lower_bound, test.upper_bound,
                            confidence, sims, seed)


def estimate_text(e: dict) -> str:
    """The estimate in words: with its interval, or the reason there is none."""
    if e["note"]:
        return f"{e['estimate']:+.4f} levels per deal ({e['note']})"
    return (f"{e['estimate']:+.4f} levels per deal ({100 * e['confidence']:.0f}% CI {e['low']:+.4f} .. "
            f"{e['high']:+.4f}, median-unbiased under the stagewise ordering)")


def verdict(test: GSPRT, a: str = "A", b: str = "B") -> str:
    """What the test decided, in words that say what was tested and at what error."""
    if test.state == "accept_high":
        return (f"H1 accepted: {a} is better than {b} by more than {test.low:g} levels per deal (at most alpha = "
                f"{test.alpha:g} false acceptances when the true advantage is {test.low:g} or less; "
                f"the test was designed to detect {test.high:g})")
    if test.state == "accept_low":
        return (f"H0 accepted: {a} is not better than {b} by {test.high:g} levels per deal or more (at most beta = "
                f"{test.beta:g} false acceptances when the true advantage is {test.high:g} or more)")
    if test.nonzero < test.min_nonzero:
        return (f"undecided: the pair limit came first, with {test.nonzero:,} pairs that differed (the test "
                f"decides only after {test.min_nonzero})")
    return "undecided: the pair limit came before either bound"
