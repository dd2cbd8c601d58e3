"""Ratings from all pairs at once (tractor_sim.stats.ratings) on synthetic pair tables."""

import numpy as np
import pandas as pd
import pytest

from tractor_sim.stats import ratings as R


def shared_deal_pairs(rng, strength, matchups, n):
    """Pair tables in which every matchup replays the same n deal ids.

    A policy's result on a deal is its own draw on that deal's shared
    difficulty c (mostly 0: zero-heavy), so matchups sharing a policy are
    correlated through the deal id. E[result of p] = strength[p] * E[c];
    A's pair total is its result minus B's, over 2 deals.
    """
    c = rng.choice([0, 0, 0, 1, 2, 3], size=n)
    result = {p: c * (rng.random(n) < q) + rng.choice([-1, 0, 0, 0, 0, 0, 0, 1], size=n)
              for p, q in strength.items()}
    frames = [pd.DataFrame({"matchup": f"{a}-vs-{b}", "a": a, "b": b, "key": np.arange(n),
                            "total": result[a] - result[b], "deals": 2}) for a, b in matchups]
    out = pd.concat(frames, ignore_index=True)
    for col in ("matchup", "a", "b"):
        out[col] = out[col].astype("category")
    return out


STRENGTH = {"x": 0.9, "y": 0.6, "z": 0.5, "w": 0.2}
CHAIN = [("x", "y"), ("y", "z"), ("z", "w"), ("x", "w")]  # an incomplete round robin
MEAN_C = 1.0  # E[c] for choice([0,0,0,1,2,3])


def true_diff(a, b):
    return (STRENGTH[a] - STRENGTH[b]) * MEAN_C / 2


def test_least_squares_by_hand():
    pairs = pd.DataFrame({"matchup": ["m1"] * 2 + ["m2"] * 2, "a": ["b", "b", "e", "e"],
                          "b": ["r", "r", "b", "b"], "key": [0, 1, 0, 1],
                          "total": [3, 1, 1, 1], "deals": [2, 2, 2, 2]})
    res = R.fit(pairs)
    r = dict(zip(res["ratings"]["policy"], res["ratings"]["rating"]))
    # two matchups, three policies: the fit is exact, b - r = 1, e - b = 0.5
    assert r == pytest.approx({"e": 1.5, "b": 1.0, "r": 0.0})
    assert res["anchor"] == "r"


def test_incomplete_round_robin_not_rewarded_for_weak_opponents():
    # the quick-start shape: basic met only random, expert only basic
    rng = np.random.default_rng(1)
    strength = {"random": 0.0, "basic": 0.6, "expert": 0.8}
    pairs = shared_deal_pairs(rng, strength, [("basic", "random"), ("expert", "basic")], 4000)
    res = R.fit(pairs)
    assert list(res["ratings"]["policy"]) == ["expert", "basic", "random"]
    table = R.pairwise(res)
    assert table["resolved"].all()
    assert R.order_text(res, table) == "expert > basic > random"


def test_disconnected_pool_is_refused_with_the_parts():
    rng = np.random.default_rng(2)
    pairs = shared_deal_pairs(rng, STRENGTH, [("x", "y"), ("z", "w")], 50)
    with pytest.raises(R.RatingsError, match=r"disconnected.*\{x, y\}.*\{z, w\}"):
        R.fit(pairs)


def test_holm_by_hand():
    assert R.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert R.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])


def test_ties_are_stated_as_ties():
    rng = np.random.default_rng(5)
    pairs = shared_deal_pairs(rng, {"a": 0.5, "b": 0.5, "c": 0.0}, [("a", "b"), ("b", "c"), ("a", "c")], 3000)
    res = R.fit(pairs)
    table = R.pairwise(res)
    text = R.order_text(res, table)
    assert "≈" in text and text.endswith("> c")
    assert set(R.top_tier(res, table)) == {"a", "b"}


def coverage(reps, naive=False, n=400, seed=0):
    """Share of 95% intervals of every rating difference that cover the truth."""
    rng = np.random.default_rng(seed)
    hit = total = 0
    for _ in range(reps):
        res = R.fit(shared_deal_pairs(rng, STRENGTH, CHAIN, n))
        if naive:  # a planted bug: one cluster per pair, as if matchups were independent
            pairs = shared_deal_pairs(rng, STRENGTH, CHAIN, n)
            pairs["key"] = np.arange(len(pairs))
            res = R.fit(pairs)
        for row in R.pairwise(res).itertuples():
            total += 1
            hit += row.low <= true_diff(row.a, row.b) <= row.high
    return hit / total


@pytest.mark.slow  # a statistical run: 600 replications
def test_intervals_cover_with_shared_deals():
    # 600 replications x 6 differences; the clustered sandwich must cover 93-97%
    assert 0.93 <= coverage(600) <= 0.97


@pytest.mark.slow  # a statistical run: 300 replications
def test_independent_errors_undercover_so_the_test_can_fail():
    assert coverage(300, naive=True) < 0.93


def test_misfit_counts_matchups_off_the_model():
    rng = np.random.default_rng(4)
    pairs = shared_deal_pairs(rng, STRENGTH, CHAIN, 3000)
    pairs.loc[pairs["matchup"] == "x-vs-w", "total"] += 1  # x beats w by far more than the chain says
    bad, n, p = R.misfit(R.fit(pairs))
    assert n == 4 and bad >= 1 and p < 1e-6
