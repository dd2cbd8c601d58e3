"""The GSPRT on pair scores (tractor_sim.stats.sprt): the LLR by hand, the guards,
error rates on planted effects, and the stopping-corrected estimate."""

import math

import numpy as np
import pytest

from tractor_sim.stats import sprt as SP

# pair scores as the duplicate deals give them (half-levels per deal, most 0)
VALUES = np.array([-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0])
REALISH = np.array([0.01, 0.03, 0.08, 0.15, 0.46, 0.15, 0.08, 0.03, 0.01])
ZERO_HEAVY = np.array([0.001, 0.004, 0.01, 0.03, 0.91, 0.03, 0.01, 0.004, 0.001])


def tilted(probs, mean):
    """The exponential tilt of ``probs`` over VALUES with the given mean: a
    planted effect that keeps the support (and the zeros)."""
    f = lambda t: float((VALUES * probs * np.exp(t * VALUES)).sum() / (probs * np.exp(t * VALUES)).sum()) - mean
    lo, hi = -20.0, 20.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    w = probs * np.exp(lo * VALUES)
    return w / w.sum()


def test_llr_two_point_by_hand():
    # on two values the distribution with a given mean is unique: p(1) = mu
    values, counts = np.array([0.0, 1.0]), np.array([60, 40])
    expected = 60 * math.log(0.7 / 0.8) + 40 * math.log(0.3 / 0.2)
    assert SP.llr(values, counts, 0.2, 0.3) == pytest.approx(expected, rel=1e-9)


def test_llr_matches_normal_form_for_small_effects():
    rng = np.random.default_rng(0)
    x = rng.choice(VALUES, p=REALISH, size=5000)
    v, c = np.unique(x, return_counts=True)
    normal = len(x) * 0.02 * (2 * x.mean() - 0.02) / (2 * x.var())
    assert SP.llr(v, c, 0.0, 0.02) == pytest.approx(normal, rel=0.02)


def test_first_pairs_all_zero_do_not_stop_the_test():
    t = SP.GSPRT(0, 0.05, min_n=20, look_every=1)
    assert t.update(np.zeros(20)) == "continue"
    assert -3 < t.llr < 0  # the prior keeps the variance from collapsing (was about -2.5e10)


def test_no_decision_before_min_n():
    t = SP.GSPRT(0, 0.05, min_n=200, look_every=10)
    t.update(np.ones(150))
    assert t.state == "continue" and t.llr > t.upper_bound
    t.update(np.ones(50))
    assert t.state == "accept_high" and t.n == 200


def test_bad_bounds_are_clear_errors():
    with pytest.raises(ValueError, match="high > low"):
        SP.GSPRT(0.1, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        SP.GSPRT(0, 0.1, alpha=0.7)


def error_rate(probs, true_mean, trials, seed=0, low=0.0, high=0.05):
    """Share of trials accepting H1 when pair scores come from ``probs`` tilted to true_mean."""
    p = tilted(probs, true_mean)
    rng = np.random.default_rng(seed)
    h1 = 0
    for _ in range(trials):
        t = SP.GSPRT(low, high)
        while t.state == "continue":
            t.update(rng.choice(VALUES, p=p, size=500))
        h1 += t.state == "accept_high"
    return h1 / trials


def test_error_rates_quick():
    # 300 trials each: a broken LLR (e.g. the old variance floor) is far outside these
    assert error_rate(REALISH, 0.0, 300) < 0.10
    assert error_rate(REALISH, 0.05, 300) > 0.90
    assert error_rate(ZERO_HEAVY, 0.0, 300, seed=1) < 0.10


@pytest.mark.slow
@pytest.mark.parametrize("probs", [REALISH, ZERO_HEAVY], ids=["realish", "zero_heavy"])
def test_error_rates_resolve_five_from_seven_percent(probs):
    # 2000 trials: the binomial sd at 0.05 is 0.005, so 0.07 would fail
    assert error_rate(probs, 0.0, 2000, seed=2) < 0.062
    assert error_rate(probs, 0.05, 2000, seed=3) > 0.938


def test_corrected_estimate_covers_after_stopping():
    rng = np.random.default_rng(5)
    p = tilted(REALISH, 0.03)
    hit = naive_hit = 0
    est = []
    reps = 200
    for i in range(reps):
        t = SP.GSPRT(0.0, 0.05)
        while t.state == "continue":
            t.update(rng.choice(VALUES, p=p, size=500))
        e = SP.corrected_estimate(t, sims=1000, seed=i)
        hit += e["low"] <= 0.03 <= e["high"]
        half = 1.96 * t.sd / math.sqrt(t.n)
        naive_hit += t.mean - half <= 0.03 <= t.mean + half
        est.append(e["estimate"])
    assert hit / reps >= 0.90
    assert abs(np.median(est) - 0.03) < 0.01
