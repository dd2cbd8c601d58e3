"""Statistics on result tables against known answers (tractor_sim.stats.summary)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from tractor_sim.stats import summary as stats


def outcome(row, declaring_team):
    """(gain_team, gain) of a level-table row, as docs/records.md defines them."""
    row, dt = np.asarray(row), np.asarray(declaring_team)
    gain_team = np.where(row <= 2, dt, np.where(row == 3, -1, 1 - dt))
    gain = np.where(row <= 2, 3 - row, np.where(row == 3, 0, row - 3))
    return gain_team, gain


def table(rows, declaring_team, policy0="A", policy1="B", matchup="A-vs-B", half=0, deal_id=None,
          match_id=-1, opp_points=None):
    """A minimal deals table with the columns stats needs."""
    rows = np.asarray(rows)
    n = len(rows)
    dt = np.broadcast_to(declaring_team, n)
    gain_team, gain = outcome(rows, dt)
    if opp_points is None:
        opp_points = np.where(rows == 0, 0, np.where(rows == 1, 20, 40 * rows - 20))
    return pd.DataFrame({
        "matchup": matchup, "policy0": np.broadcast_to(policy0, n), "policy1": np.broadcast_to(policy1, n),
        "deal_id": np.arange(n) if deal_id is None else deal_id, "match_id": match_id, "deal_in_match": 0,
        "half": np.broadcast_to(half, n).astype(np.int8), "declaring_team": dt.astype(np.int8),
        "opp_points": opp_points, "row": rows.astype(np.int8),
        "gain_team": gain_team.astype(np.int8), "gain": gain.astype(np.int8),
    })


def deals_from_probs(pa, pb, n, rng, a="A", b="B"):
    """n deals of A against B, each side declaring half of them, rows drawn from pa / pb."""
    dt = rng.integers(0, 2, n)
    seat_a = rng.integers(0, 2, n)  # team of A
    a_declares = dt == seat_a
    rows = np.where(a_declares, rng.choice(len(pa), n, p=pa), rng.choice(len(pb), n, p=pb))
    d = table(rows, dt)
    d["policy0"] = np.where(seat_a == 0, a, b)
    d["policy1"] = np.where(seat_a == 0, b, a)
    return d


# ---------------------------------------------------------------- basics

def test_signed_gain_follows_records_definition():
    d = table([0, 3, 4, 2, 8], [0, 0, 0, 1, 1])
    assert stats.signed_gain(d, 0).tolist() == [3, 0, -1, -1, 5]
    assert stats.signed_gain(d, 1).tolist() == [-3, 0, 1, 1, -5]


def test_row_labels():
    labels = [stats.row_label(r) for r in range(9)]
    assert labels == ["p<=0", "5-35", "40-75", "80-115", "120-155", "160-195", "200-235", "240-275", "280-315"]


def test_wilson_textbook_values():
    lo, hi = stats.wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = stats.wilson_interval(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    assert all(math.isnan(v) for v in stats.wilson_interval(0, 0))


@pytest.mark.parametrize("k,n,conf", [(3, 17, 0.95), (50, 100, 0.9), (999, 1000, 0.99)])
def test_wilson_formula(k, n, conf):
    z = st.norm.ppf(1 - (1 - conf) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert stats.wilson_interval(k, n, conf) == pytest.approx((centre - half, centre + half), abs=1e-9)


def test_mean_ci_t_interval():
    m, lo, hi = stats.mean_ci([1, 2, 3, 4])
    half = st.t.ppf(0.975, 3) * np.std([1, 2, 3, 4], ddof=1) / 2
    assert (m, lo, hi) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    assert (round(lo, 4), round(hi, 4)) == (0.4457, 4.5543)
    assert stats.mean_ci([2, 2, 2]) == (2.0, 2.0, 2.0)
    assert math.isnan(stats.mean_ci([1.0])[1])


def test_mde_and_deals_needed():
    assert stats.min_detectable_effect(1.0, 100) == pytest.approx(0.28015852, abs=1e-8)
    assert stats.min_detectable_effect(2.0, 400, alpha=0.01, power=0.9) == pytest.approx(
        (st.norm.ppf(0.995) + st.norm.ppf(0.9)) * 2 / 20)
    for sd, effect in [(0.7, 0.05), (1.3, 0.2), (0.5, 0.011)]:
        n = stats.deals_needed(sd, effect)
        assert stats.min_detectable_effect(sd, n) <= effect < stats.min_detectable_effect(sd, n - 1)


# ---------------------------------------------------------------- tables

def test_matchup_summary_by_hand():
    # A is team 0: A declares rows 0 and 4, B declares rows 2 and 3
    d = table([0, 4, 2, 3], [0, 0, 1, 1], opp_points=[0, 130, 50, 90])
    matches = pd.DataFrame({"matchup": ["A-vs-B"] * 3, "policy0": ["A", "B", "A"], "policy1": ["B", "A", "B"],
                            "half": [0, 1, 0], "match_id": [0, 1, 2], "winner": [0, 0, 1], "deals": [10, 20, 30]})
    s = stats.matchup_summary(d, matches).set_index("policy")
    # A's changes: +3, -1, -1, 0
    assert s.loc["A", "level_change"] == pytest.approx(0.25)
    assert s.loc["B", "level_change"] == pytest.approx(-0.25)
    _, lo, hi = stats.mean_ci([3, -1, -1, 0])
    assert (s.loc["A", "level_change_low"], s.loc["A", "level_change_high"]) == pytest.approx((lo, hi))
    assert s.loc["A", "declared"] == 2 and s.loc["A", "hold_rate"] == 0.5
    assert s.loc["B", "hold_rate"] == 0.5
    assert s.loc["A", "taken_mean"] == 70  # points A took as defenders: 50, 90
    assert s.loc["B", "taken_mean"] == 65
    assert s.loc["A", "conceded_mean"] == 65  # points A conceded as declarers: 0, 130
    assert s.loc["A", "conceded_q50"] in (0, 130)
    assert s.loc["A", "deals"] == 4
    assert s.loc["A", "matches"] == 3 and s.loc["A", "wins"] == 1  # A won match 0 only
    assert s.loc["B", "win_rate"] == pytest.approx(2 / 3)
    assert (s.loc["B", "win_low"], s.loc["B", "win_high"]) == pytest.approx(stats.wilson_interval(2, 3))
    assert s.loc["A", "deals_per_match"] == 20


def test_a_filtered_categorical_table_codes_as_its_strings():
    # a table read back with categorical policy columns, then filtered: category "C" is unused
    plain = table([0, 4, 2, 3], [0, 0, 1, 1])
    kinds = pd.CategoricalDtype(["C", "B", "A"])
    filtered = plain.astype({"policy0": kinds, "policy1": kinds})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        names, c0, c1 = stats.policy_codes(filtered)
        summary = stats.matchup_summary(filtered)
    assert names == ["A", "B"] and c0.tolist() == [0] * 4 and c1.tolist() == [1] * 4
    pd.testing.assert_frame_equal(summary, stats.matchup_summary(plain), check_dtype=False,
                                  check_categorical=False)


def test_summary_intervals_cluster_by_match_pair():
    # every deal of a match has the same result: the deals of a match are one observation, so the
    # interval is the t interval of the per-match means (a per-deal interval is 3x narrower here)
    rng = np.random.default_rng(0)
    n_matches, per = 40, 10
    match_rows = rng.choice([0, 2, 4, 5], n_matches)
    d = table(np.repeat(match_rows, per), 0, match_id=np.repeat(np.arange(n_matches), per))
    s = stats.matchup_summary(d).set_index("policy")
    per_match = np.array([3, 1, -1, -2])[np.searchsorted([0, 2, 4, 5], match_rows)]
    mean, lo, hi = stats.mean_ci(per_match)
    assert s.loc["A", "level_change"] == pytest.approx(mean)
    assert (s.loc["A", "level_change_low"], s.loc["A", "level_change_high"]) == pytest.approx((lo, hi))


def test_row_frequencies():
    d = pd.concat([table([0, 0, 3, 8], 0, matchup="x"), table([1, 2], 1, matchup="y")])
    f = stats.row_frequencies(d)
    assert list(f.columns[:9]) == [stats.row_label(r) for r in range(9)]
    assert f.loc["x", "p<=0"] == 0.5 and f.loc["x", "280-315"] == 0.25 and f.loc["y", "5-35"] == 0.5
    assert f.drop(columns="n").sum(axis=1).tolist() == [1.0, 1.0]
    assert f["n"].tolist() == [4, 2]
    g = stats.row_frequencies(d, by_declarer=True)
    assert g.loc[("y", "B"), "40-75"] == 0.5


# ---------------------------------------------------------------- duplicate pairs

def duplicate_deals(n, effect, rng):
    """Pairs of deals: same luck in both halves, A concedes `effect` x 40 fewer points as declarer."""
    luck = rng.normal(0, 45, n)
    dt = rng.integers(0, 2, n)
    halves = []
    for half in (0, 1):
        a_declares = (dt == 0) == (half == 0)  # A is team 0 in half 0
        p = 80 + luck + np.where(a_declares, -40 * effect, 40 * effect) + rng.normal(0, 15, n)
        p = np.clip(5 * np.round(p / 5), 0, 300).astype(int)
        rows = np.where(p <= 0, 0, np.where(p < 40, 1, np.where(p < 80, 2, np.where(p < 120, 3, 4 + (p - 120) // 40))))
        pol = ("A", "B") if half == 0 else ("B", "A")
        halves.append(table(rows, dt, *pol, half=half, deal_id=np.arange(n), opp_points=p))
    return pd.concat(halves, ignore_index=True)


def test_paired_comparison_by_hand():
    # pair 0: A +3 (half 0) and A -1 (half 1); pair 1: A 0 and A +1; pair 2: A +2 and 0
    h0 = table([0, 3, 1], [0, 0, 0], "A", "B", half=0)
    h1 = table([4, 4, 3], [1, 0, 1], "B", "A", half=1)
    r = stats.paired_comparison(pd.concat([h0, h1]), "A", "B")
    scores = np.array([1.0, 0.5, 1.0])
    assert r["unit"] == "deal" and r["n_pairs"] == 3 and r["deals"] == 6
    assert r["scores"].to_numpy() == pytest.approx(scores)
    t = st.ttest_1samp(scores, 0)
    assert r["mean"] == pytest.approx(scores.mean()) and r["p_value"] == pytest.approx(t.pvalue)
    assert (r["low"], r["high"]) == pytest.approx(tuple(t.confidence_interval()))
    singles = np.array([3, 0, 2, -1, 1, 0])
    assert r["var_unpaired"] == pytest.approx(singles.var(ddof=1))
    assert r["unpaired_deals_needed"] == pytest.approx(3 * singles.var(ddof=1) / scores.var(ddof=1))


def test_paired_comparison_removes_card_luck():
    d = duplicate_deals(3000, 0.25, np.random.default_rng(1))
    r = stats.paired_comparison(d, "A", "B")
    assert r["n_pairs"] == 3000 and r["p_value"] < 1e-6
    assert r["low"] < r["mean"] < r["high"] and r["mean"] > 0
    assert r["efficiency"] > 2  # pairing is worth more than twice its deals here
    assert stats.paired_comparison(d, "B", "A")["mean"] == pytest.approx(-r["mean"])
    # unpaired pairs (one half missing) are dropped
    assert stats.paired_comparison(d.iloc[1:], "A", "B")["n_pairs"] == 2999


def test_paired_comparison_match_unit():
    h0 = table([0, 4, 2], 0, half=0, match_id=np.array([0, 0, 1]))
    h1 = table([2, 2, 2, 3], 1, "B", "A", half=1, match_id=np.array([0, 0, 0, 1]))
    r = stats.paired_comparison(pd.concat([h0, h1]), "A", "B")
    # match 0: A +3 -1, then +1 +1 +1 over 5 deals; match 1: A +1, then 0 over 2 deals
    assert r["unit"] == "match"
    assert r["scores"].to_numpy() == pytest.approx([5 / 5, 1 / 2])
