"""tractor_sim.stats.dist against scipy.stats, which it stands in for (to keep scipy.stats out of
every command's start): the same numbers on a grid of arguments, the edges included."""

import numpy as np
import pytest
from scipy import stats as st

from tractor_sim.stats import dist

Q = [1e-9, 0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999]
X = [0.0, 0.3, 1.0, 1.96, 4.0, 12.0]
DF = [1, 2, 5, 29, 30, 500, 10**6]


def test_normal_and_t_and_chi_square_are_scipy_stats_numbers():
    for q in Q:
        assert dist.norm_ppf(q) == pytest.approx(st.norm.ppf(q), rel=1e-12, abs=1e-15)
        for df in DF:
            assert dist.t_ppf(q, df) == pytest.approx(st.t.ppf(q, df), rel=1e-12, abs=1e-15)
    for x in X:
        assert dist.norm_sf(x) == pytest.approx(st.norm.sf(x), rel=1e-12)
        for df in DF:
            assert dist.t_sf(x, df) == pytest.approx(st.t.sf(x, df), rel=1e-12)
            assert dist.chi2_sf(x * df, df) == pytest.approx(st.chi2.sf(x * df, df), rel=1e-10, abs=1e-300)
    assert np.allclose(dist.t_ppf(0.975, np.array([1, 4, 99])), st.t.ppf(0.975, [1, 4, 99]), rtol=1e-12)
    assert np.allclose(dist.norm_sf(np.array(X)), st.norm.sf(X), rtol=1e-12)


@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (517, 1000), (1, 10**6)])
def test_wilson_and_the_t_interval_and_sem_are_scipy_stats_numbers(k, n):
    for conf in (0.8, 0.95, 0.99):
        ci = st.binomtest(k, n).proportion_ci(confidence_level=conf, method="wilson")
        assert dist.wilson(k, n, conf) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15)
    x = np.random.default_rng(n + k).normal(0.3, 2.0, size=max(2, min(n, 500)))
    assert dist.sem(x) == pytest.approx(st.sem(x), rel=1e-12)
    lo, hi = st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=dist.sem(x))
    assert dist.t_interval(0.95, len(x) - 1, x.mean(), dist.sem(x)) == pytest.approx((lo, hi), rel=1e-12)
