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


@pytest.mark.slow  # a statistical run: 900 sequential tests (the default tier checks the LLR by hand)
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


@pytest.mark.slow  # a statistical run: 200 sequential tests
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


def run_test(p, seed, values=VALUES, low=0.0, high=0.05, limit=20_000, **kw):
    rng = np.random.default_rng(seed)
    t = SP.GSPRT(low, high, **kw)
    while t.state == "continue" and t.n < limit:
        t.update(rng.choice(values, p=p, size=500))
    t.finish()
    return t


def test_llr_rows_match_one_at_a_time():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 40, size=(6, len(VALUES))).astype(float)
    counts[:, 0] += 1
    counts[:, -1] += 1
    rows = SP.llr_many(VALUES, counts, 0.0, 0.05)
    for row, c in zip(rows, counts):
        keep = c > 0
        assert row == pytest.approx(SP.llr(VALUES[keep], c[keep], 0.0, 0.05), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("truth", [-0.05, 0.35])
def test_estimate_is_median_unbiased_far_from_the_hypotheses(truth):
    # the old ordering (side, then look, no mean) put every first-look stop at the boundary:
    # at +0.35, 0% of estimates above the truth and 0.5% coverage
    p = tilted(REALISH, truth)
    above = hit = 0
    reps = 120
    for i in range(reps):
        e = SP.corrected_estimate(run_test(p, 100 + i), sims=1000, seed=i)
        assert all(math.isfinite(e[k]) for k in ("estimate", "low", "high"))
        above += e["estimate"] > truth
        hit += e["low"] <= truth <= e["high"]
    assert 0.35 < above / reps < 0.65  # binomial sd 0.046 at 0.5
    assert hit / reps > 0.88


def test_estimate_orders_stops_at_the_same_look_by_their_mean():
    # two stops for H1 at the first eligible look: the larger mean gets the larger estimate, near its mean
    hi, lo = SP.GSPRT(0, 0.05, look_every=100), SP.GSPRT(0, 0.05, look_every=100)
    hi.update(np.tile([1.0, 0.0, 0.5, 1.0], 25))
    lo.update(np.tile([1.0, 0.0, 0.5, 0.0], 25))
    assert hi.state == lo.state == "accept_high" and hi.n == lo.n == 100
    eh, el = SP.corrected_estimate(hi, sims=2000), SP.corrected_estimate(lo, sims=2000)
    assert eh["estimate"] > el["estimate"]
    assert eh["estimate"] == pytest.approx(hi.mean, abs=0.02) and el["estimate"] == pytest.approx(lo.mean, abs=0.02)


def test_all_zero_start_does_not_settle_the_test():
    # 100 zeros, then a 98%-zero shape whose mean is H1's: the old rule accepted H0 at exactly 100 pairs
    t = SP.GSPRT(0, 0.05)
    assert t.update(np.zeros(100)) == "continue"
    assert t.update(np.zeros(400)) == "continue" and t.nonzero == 0
    rng = np.random.default_rng(8)
    p = np.zeros(len(VALUES))
    p[VALUES == 0], p[VALUES == 2.0], p[VALUES == 1.5] = 0.98, 0.015, 0.005
    while t.state == "continue" and t.n < 20_000:
        t.update(rng.choice(VALUES, p=p, size=500))
    assert t.nonzero >= t.min_nonzero and t.state == "accept_high"


def test_policy_against_itself_is_finite_and_says_why_there_is_no_interval():
    # every pair scores 0: the test never decides (no pair differed) and the estimate says so in words
    t = SP.GSPRT(0, 0.05)
    t.update(np.zeros(3000))
    t.finish()
    assert t.state == "continue" and "0 pairs that differed" in SP.verdict(t)
    e = SP.corrected_estimate(t)
    assert e["estimate"] == 0 and "no interval" in SP.estimate_text(e) and "inf" not in SP.estimate_text(e)


def test_zero_heavy_power_with_the_minimum_information_rule():
    # 98% zeros and the mean at H1: the old rule lost 13% of runs to 100 straight zeros
    p = np.zeros(len(VALUES))
    p[VALUES == 0], p[VALUES == 2.0], p[VALUES == 2.5] = 0.98, 0.01, 0.01
    values = VALUES if 2.5 in VALUES else np.append(VALUES, 2.5)
    p = np.append(p, 0.0) if len(p) < len(values) else p
    p[values == 2.5] = 0.01
    p = p / p.sum()
    old = sum(run_test(p, s, values, min_nonzero=0).state == "accept_low" for s in range(60))
    new = sum(run_test(p, s, values).state == "accept_low" for s in range(60))
    assert old >= 3 and new == 0
