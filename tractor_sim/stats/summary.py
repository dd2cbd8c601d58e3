"""Statistics on result tables.

Every function takes the deals / matches DataFrames of docs/records.md and
returns numbers, dicts or small DataFrames; nothing here knows about cards
or kernels, so it can be tested on synthetic tables.

Conventions: a *policy's signed change* in a deal is the level change of
the team it sits on (+ when that team gains, - when the other team gains).
The level-table row determines the declarers' signed change: ``3 - row``
(row 0: +3 .. row 3: 0 .. row 7: -4), and the declarers keep the deal
when ``row <= 2``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

LEVEL_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
MIN_ROWS = 8  # row tables always show rows 0..7 (p<=0 .. 240-275 with two decks)
STEP_PER_DECK = 20  # the level table's step S = 20 D points (docs/rules.md section 9)


def level_step(decks: int = 2) -> int:
    """The width of a level-table row in points: 40 with two decks (decisions.md 9.9)."""
    return STEP_PER_DECK * int(decks)


def row_label(row: int, decks: int = 2) -> str:
    """Label of a level-table row by its range of opponents' points p, with ``decks`` decks."""
    row = int(row)
    step = level_step(decks)
    if row <= 0:
        return "p<=0"
    if row == 1:
        return f"5-{step - 5}"
    return f"{step * (row - 1)}-{step * row - 5}"


def signed_gain(deals: pd.DataFrame, team: int) -> pd.Series:
    """Level change of ``team`` (0/1) per deal: + if it gained, - if the other team did."""
    c = signed_change0(deals).astype(np.int64)
    return pd.Series(c if team == 0 else -c, index=deals.index, name=f"signed_gain{team}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion: sane near 0 and 1 and for small n."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = dist.wilson(int(successes), int(n), confidence)
    return (float(ci[0]), float(ci[1]))


def mean_ci(x, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) with a t interval: the mean change per deal and its uncertainty."""
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return (m, math.nan, math.nan)
    se = float(dist.sem(x))
    if se == 0:
        return (m, m, m)
    lo, hi = dist.t_interval(confidence, n - 1, m, se)
    return (m, float(lo), float(hi))


# ---------------------------------------------------------------- summaries

def policy_codes(deals: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(policy names, code of team 0's policy, code of team 1's) per deal.  The codes are looked up in an
    index of the names: a categorical column with unused categories (a filtered table) re-coded as a
    Categorical of other categories is deprecated in pandas 3 and an error in pandas 4."""
    names = pd.unique(np.concatenate([np.asarray(pd.unique(deals[c]), dtype=object) for c in ("policy0", "policy1")]))
    index = pd.Index(names)
    c0, c1 = (index.get_indexer(deals[c]).astype(np.int16) for c in ("policy0", "policy1"))
    return [str(n) for n in names], c0, c1


def _layout(deals: pd.DataFrame) -> dict:
    """Integer codes of a deals table: no Python object per deal (10,000,000 deals
    made 40,000,000 strings otherwise). A matchup's *sides* are its policy A
    (team 0 in half 0) = side 0 and the other = side 1; a *cluster* is a
    duplicate deal pair in fixed mode, a match pair in match mode: the unit
    that is independent of the others. Cluster ids are matchup * width + id
    when that is dense (no sort of 10,000,000 keys), else ranks."""
    matchup = pd.Categorical(deals["matchup"])
    mc = matchup.codes.astype(np.int64)
    n_m = len(matchup.categories)
    names, c0, c1 = policy_codes(deals)
    first = np.full(n_m, -1, np.int64)
    h0 = deals["half"].to_numpy() == 0
    first[mc[h0]] = c0[h0]  # A: team 0's policy in half 0
    side = [(c != first[mc]).astype(np.int8) for c in (c0, c1)]
    match_mode = bool((deals["match_id"].to_numpy() >= 0).any())
    key = deals["match_id" if match_mode else "deal_id"].to_numpy(np.int64)
    width = int(key.max()) + 1 if len(key) else 1
    if n_m * width <= 4 * len(key) + 1024:
        cluster = mc * width + key
        ids = np.arange(n_m * width)
    else:
        ids, cluster = np.unique(mc * width + key, return_inverse=True)
    return {"matchups": [str(m) for m in matchup.categories], "names": names, "mc": mc, "policy": [c0, c1],
            "side": side, "first": first, "cluster": cluster, "cluster_matchup": ids // width,
            "cluster_key": ids % width, "match_mode": match_mode}


def signed_change0(deals: pd.DataFrame) -> np.ndarray:
    """Team 0's signed level change per deal, as small integers."""
    gain = deals["gain"].to_numpy(np.int8)
    gt = deals["gain_team"].to_numpy()
    return np.where(gt == 0, gain, np.where(gt == 1, -gain, 0)).astype(np.int8)


def clustered_mean(parts, cluster, cluster_matchup, n_matchups: int, confidence: float = 0.95) -> pd.DataFrame:
    """Mean of y per (matchup, side) with a t interval clustered by ``cluster``:
    a ratio estimator (sum of y over count), its variance from the cluster
    sums, so deals of one pair or one match are not taken as independent.
    ``parts``: (y, side, mask or None) per team, sharing ``cluster`` (no
    concatenated copy of 10,000,000 deals). Rows: matchup * 2 + side;
    columns n, mean, se, low, high, clusters."""
    size = 2 * len(cluster_matchup)
    s = np.zeros(size)
    c = np.zeros(size)
    for y, side, mask in parts:
        bins = cluster * 2 + side
        if mask is not None:
            bins, y = bins[mask], np.asarray(y)[mask]
        s += np.bincount(bins, weights=np.asarray(y, float), minlength=size)
        c += np.bincount(bins, minlength=size)
    group = cluster_matchup[np.arange(len(s)) // 2] * 2 + np.arange(len(s)) % 2
    k = 2 * n_matchups
    n = np.bincount(group, weights=c, minlength=k)
    total = np.bincount(group, weights=s, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        g = np.bincount(group, weights=c > 0, minlength=k)
        ss = np.bincount(group, weights=s * s, minlength=k) - 2 * mean * np.bincount(group, weights=s * c, minlength=k) \
            + mean ** 2 * np.bincount(group, weights=c * c, minlength=k)
        se = np.sqrt(np.clip(ss, 0, None) * g / (g - 1)) / n
        t = dist.t_ppf(0.5 + confidence / 2, np.maximum(g - 1, 1))
    se = np.where(g > 1, se, np.nan)
    return pd.DataFrame({"n": n, "mean": mean, "se": se, "low": mean - t * se, "high": mean + t * se,
                         "clusters": g})


def _clustered_proportion(frame: pd.DataFrame, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson intervals on the effective sample size n / design effect of the clusters."""
    lo, hi = np.full(len(frame), np.nan), np.full(len(frame), np.nan)
    for i, (n, p, se, g) in enumerate(zip(frame["n"], frame["mean"], frame["se"], frame["clusters"])):
        if not n > 0:
            continue
        binom = p * (1 - p) / n
        raw = se * se * (g - 1) / g if g > 1 else math.nan  # without the small-sample factor: n_eff = n if iid
        n_eff = n * binom / raw if binom > 0 and raw > 0 else n
        n_eff = min(n, n_eff)
        k = p * n_eff
        z = dist.norm_ppf(0.5 + confidence / 2)
        centre = (k + z * z / 2) / (n_eff + z * z)
        half = z * math.sqrt(n_eff * p * (1 - p) + z * z / 4) / (n_eff + z * z)
        lo[i], hi[i] = max(0.0, centre - half), min(1.0, centre + half)
    return lo, hi


def _quartiles(values, group, weights, k: int) -> np.ndarray:
    """25/50/75% quantiles of integer values per group, from histograms."""
    v = np.asarray(values, np.int64)
    out = np.full((k, 3), np.nan)
    if not len(v):
        return out
    lo = int(v.min())
    span = int(v.max()) - lo + 1
    hist = np.bincount(group * span + (v - lo), weights=weights, minlength=k * span).reshape(k, span)
    cum = hist.cumsum(axis=1)
    for g in range(k):
        if cum[g, -1] > 0:
            out[g] = [lo + int(np.searchsorted(cum[g], q * cum[g, -1])) for q in (0.25, 0.5, 0.75)]
    return out


def matchup_summary(deals: pd.DataFrame, matches: pd.DataFrame | None = None,
                    confidence: float = 0.95) -> pd.DataFrame:
    """One row per (matchup, policy): its level change per deal (total net levels
    over total deals, with an interval clustered by deal pair / match pair),
    its hold rate as declarers, the points it conceded as declarers and took
    as defenders, and (given matches) its match win rate, clustered by match
    pair. In a self-play matchup the mean change is 0."""
    lay = _layout(deals)
    k = 2 * len(lay["matchups"])
    change0 = signed_change0(deals)
    dt = deals["declaring_team"].to_numpy()
    held = deals["row"].to_numpy() <= 2
    p = deals["opp_points"].to_numpy()
    side, cl, cm, mc = lay["side"], lay["cluster"], lay["cluster_matchup"], lay["mc"]
    change = clustered_mean([(change0, side[0], None), (-change0, side[1], None)], cl, cm, len(lay["matchups"]),
                            confidence)
    d_side = np.where(dt == 0, side[0], side[1])  # the declaring policy's side
    f_side = np.where(dt == 0, side[1], side[0])
    hold = clustered_mean([(held, d_side, None)], cl, cm, len(lay["matchups"]), confidence)
    hold_lo, hold_hi = _clustered_proportion(hold, confidence)
    g_decl, g_def = mc * 2 + d_side, mc * 2 + f_side
    selfplay = side[0] == side[1]
    deals_n = np.bincount(mc * 2 + side[0], minlength=k) + np.bincount((mc * 2 + side[1])[~selfplay], minlength=k)
    conceded = np.bincount(g_decl, weights=p, minlength=k)
    taken = np.bincount(g_def, weights=p, minlength=k)
    n_decl, n_def = np.bincount(g_decl, minlength=k), np.bincount(g_def, minlength=k)
    q_c = _quartiles(p, g_decl, None, k)
    q_t = _quartiles(p, g_def, None, k)
    names = lay["names"]
    policy_of = np.full(k, -1)
    for t in (0, 1):
        policy_of[mc * 2 + side[t]] = lay["policy"][t]
    rows = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for g in np.flatnonzero(deals_n > 0):
            rows.append({
                "matchup": lay["matchups"][g // 2], "policy": names[policy_of[g]], "deals": int(deals_n[g]),
                "level_change": change["mean"][g], "level_change_low": change["low"][g],
                "level_change_high": change["high"][g],
                "declared": int(n_decl[g]), "hold_rate": hold["mean"][g] if n_decl[g] else math.nan,
                "hold_low": hold_lo[g], "hold_high": hold_hi[g],
                "conceded_mean": conceded[g] / n_decl[g] if n_decl[g] else math.nan,
                "conceded_q25": q_c[g, 0], "conceded_q50": q_c[g, 1], "conceded_q75": q_c[g, 2],
                "taken_mean": taken[g] / n_def[g] if n_def[g] else math.nan,
                "taken_q25": q_t[g, 0], "taken_q50": q_t[g, 1], "taken_q75": q_t[g, 2],
            })
    out = pd.DataFrame(rows)
    if matches is not None and len(matches) and len(out):
        out = out.merge(_match_summary(matches, confidence), on=["matchup", "policy"], how="left")
    return out


def _match_summary(matches: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Match win rate per (matchup, policy), clustered by match pair (the two
    halves of a duplicate match share their cards)."""
    frame = matches.assign(deal_id=matches["match_id"], gain=0, gain_team=-1)
    lay = _layout(frame)
    side, cl, cm, mc = lay["side"], lay["cluster"], lay["cluster_matchup"], lay["mc"]
    winner = matches["winner"].to_numpy(np.int64)
    won = clustered_mean([(winner == 0, side[0], None), (winner == 1, side[1], None)], cl, cm,
                         len(lay["matchups"]), confidence)
    lo, hi = _clustered_proportion(won, confidence)
    k = 2 * len(lay["matchups"])
    n_deals = matches["deals"].to_numpy(np.int64)
    per_side = np.bincount(mc * 2 + side[0], minlength=k) + np.bincount(mc * 2 + side[1], minlength=k)
    deals_sum = np.bincount(mc * 2 + side[0], weights=n_deals, minlength=k)
    n_matches = np.bincount(mc * 2 + side[0], minlength=k)
    policy_of = np.full(k, -1)
    for t in (0, 1):
        policy_of[mc * 2 + side[t]] = lay["policy"][t]
    rows = []
    for g in np.flatnonzero(per_side > 0):
        m = g // 2
        all_m = (n_matches[2 * m] + n_matches[2 * m + 1])
        rows.append({"matchup": lay["matchups"][m], "policy": lay["names"][policy_of[g]],
                     "matches": int(won["n"][g]), "wins": int(round(won["mean"][g] * won["n"][g])),
                     "win_rate": won["mean"][g], "win_low": lo[g], "win_high": hi[g],
                     "deals_per_match": (deals_sum[2 * m] + deals_sum[2 * m + 1]) / all_m})
    return pd.DataFrame(rows)


def row_frequencies(deals: pd.DataFrame, by_declarer: bool = False, decks: int = 2) -> pd.DataFrame:
    """Share of deals in every level-table row, per matchup (and per declaring
    policy with ``by_declarer``): the shape of the results behind the means.
    Columns are the row labels ("p<=0", "5-35", ... with two decks: row_label) plus ``n``."""
    rows = deals["row"].to_numpy(np.int64)
    n_rows = max(MIN_ROWS, int(rows.max()) + 1 if len(rows) else 0)
    matchup = pd.Categorical(deals["matchup"])
    group, labels = matchup.codes.astype(np.int64), [(m,) for m in matchup.categories]
    if by_declarer:
        lay = _layout(deals)
        dt = deals["declaring_team"].to_numpy()
        pol = np.where(dt == 0, lay["policy"][0], lay["policy"][1])
        k = len(lay["names"])
        group = lay["mc"] * k + pol
        labels = [(m, p) for m in lay["matchups"] for p in lay["names"]]
    counts = np.bincount(group * n_rows + rows, minlength=len(labels) * n_rows).reshape(len(labels), n_rows)
    n = counts.sum(axis=1)
    seen = pd.unique(group)  # groups in order of appearance
    index = pd.MultiIndex.from_tuples([labels[i] for i in seen], names=["matchup", "declarer"][:len(labels[0])]) \
        if by_declarer else pd.Index([labels[i][0] for i in seen], name="matchup")
    freq = pd.DataFrame(counts[seen] / n[seen, None], index=index, columns=[row_label(r, decks) for r in range(n_rows)])
    freq["n"] = n[seen]
    return freq


# ------------------------------------------------------------ duplicate pairs

def _pair_deals(deals: pd.DataFrame, a: str, b: str, matchup: str | None = None) -> pd.DataFrame:
    p0, p1 = deals["policy0"].astype(str), deals["policy1"].astype(str)
    mask = ((p0 == a) & (p1 == b)) | ((p0 == b) & (p1 == a))
    if matchup is not None:
        mask &= deals["matchup"].astype(str) == matchup
    return deals[mask.to_numpy()]


def _a_change(d: pd.DataFrame, a: str) -> np.ndarray:
    return np.where(d["policy0"].astype(str).to_numpy() == a,
                    signed_gain(d, 0).to_numpy(), signed_gain(d, 1).to_numpy())


def paired_comparison(deals: pd.DataFrame, policy_a: str, policy_b: str,
                      unit: str = "auto", matchup: str | None = None,
                      confidence: float = 0.95) -> dict:
    """Duplicate-pair analysis of A against B: the pair removes the luck of the cards.

    A's pair score is A's signed change in half 0 plus half 1 divided by the
    deals in the pair (levels per deal): per (matchup, deal_id), or per
    (matchup, match_id) in match mode (``unit="auto"`` picks match mode when
    match_id >= 0). The mean is A's total net levels over the total deals
    (pairs weighted by their deals, so a long match counts for its deals),
    with a t CI and p-value over pairs (H0: no difference), and how many *unpaired* deals (A's single-deal changes
    taken as independent draws) would give the same standard error:
    ``n_pairs * var_unpaired / var_paired``.
    """
    if policy_a == policy_b:
        raise ValueError("paired_comparison needs two different policies")
    d = _pair_deals(deals, policy_a, policy_b, matchup)
    if unit == "auto":
        unit = "match" if len(d) and (d["match_id"].to_numpy() >= 0).all() else "deal"
    key = {"deal": "deal_id", "match": "match_id"}[unit]
    frame = pd.DataFrame({"matchup": d["matchup"].astype(str).to_numpy(), "key": d[key].to_numpy(),
                          "half": d["half"].to_numpy(), "change": _a_change(d, policy_a)})
    halves = frame.groupby(["matchup", "key"], sort=False)["half"].transform("nunique")
    frame = frame[halves.to_numpy() == 2]
    g = frame.groupby(["matchup", "key"], sort=False).agg(total=("change", "sum"), deals=("change", "size"))
    scores = (g["total"] / g["deals"]).rename("score")
    n = len(scores)
    out = {"policy_a": policy_a, "policy_b": policy_b, "unit": unit, "n_pairs": n,
           "deals": int(g["deals"].sum()), "scores": scores}
    if n < 2:
        raise ValueError(f"need at least 2 complete duplicate pairs of {policy_a} and {policy_b}, got {n}")
    tot, dl = g["total"].to_numpy(float), g["deals"].to_numpy(float)
    mean = tot.sum() / dl.sum()  # levels per deal: total over total, in match mode too
    se = math.sqrt(((tot - mean * dl) ** 2).sum() * n / (n - 1)) / dl.sum()
    tq = dist.t_ppf(0.5 + confidence / 2, n - 1)
    p_value = float(2 * dist.t_sf(abs(mean) / se, n - 1)) if se > 0 else (0.0 if mean else 1.0)
    singles = frame["change"].to_numpy(float)
    var_p = se * se * n  # the variance of one pair's score (per-deal weighted)
    var_u = float(np.var(singles, ddof=1))
    needed = n * var_u / var_p if var_p > 0 else math.inf
    out.update({
        "mean": mean, "low": mean - tq * se, "high": mean + tq * se,
        "sd": math.sqrt(var_p), "se": se, "p_value": p_value,
        "var_paired": var_p, "var_unpaired": var_u,
        "unpaired_deals_needed": needed, "efficiency": needed / out["deals"],
    })
    return out


def min_detectable_effect(sd: float, n: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true mean difference a two-sided test at ``alpha`` detects with
    probability ``power`` from n units of standard deviation sd (normal approx.)."""
    z = dist.norm_ppf(1 - alpha / 2) + dist.norm_ppf(power)
    return float(z * sd / math.sqrt(n))


def deals_needed(sd: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (pairs or deals, whichever sd refers to) needed to detect ``effect``:
    the inverse of ``min_detectable_effect``."""
    z = dist.norm_ppf(1 - alpha / 2) + dist.norm_ppf(power)
    return int(math.ceil((z * sd / abs(effect)) ** 2))
