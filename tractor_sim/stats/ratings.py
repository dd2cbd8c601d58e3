"""Ratings of a pool of policies from every duplicate pair at once.

A policy's rating r is in levels per deal; the model says A's pair score
against B is r_A - r_B (Massey's least squares, as Ordo fits all games at
once). Fitted on every pair of every matchup together, it is valid for an
incomplete round robin: nobody is rewarded for whom it happened to meet.

Every matchup replays the same deal ids (or match ids), so pair scores of
different matchups on one id are correlated: the covariance is the sandwich
clustered by that id, never the comparisons' errors added as independent.
Levels per deal is always total net levels over total deals (each pair
weighted by its deals), in fixed and in match mode alike.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

from tractor_sim.stats import summary as stats


class RatingsError(ValueError):
    """The pool cannot be rated (e.g. its comparison graph falls apart)."""


def pair_table(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per complete duplicate pair: matchup, a, b (A is team 0 in half 0),
    key (deal id, or match id in match mode), total (A's net levels over both
    halves) and deals. Grouping on integer codes: no Python object per deal."""
    lay = stats._layout(deals)
    change0 = stats.signed_change0(deals)
    a_change = np.where(lay["side"][0] == 0, change0, -change0)
    half0 = deals["half"].to_numpy() == 0
    cluster = lay["cluster"]
    n = len(lay["cluster_key"])
    total = np.bincount(cluster, weights=a_change, minlength=n)
    count = np.bincount(cluster, minlength=n)
    first = np.bincount(cluster, weights=half0, minlength=n)
    ok = (first > 0) & (count > first)  # both halves played
    m = lay["cluster_matchup"][ok]
    b_of = np.full(len(lay["matchups"]), -1, np.int64)
    b_of[lay["mc"][half0]] = lay["policy"][1][half0]
    ok_m = (lay["first"][m] != b_of[m]) & (b_of[m] >= 0)  # two different policies
    m = m[ok_m]
    return pd.DataFrame({
        "matchup": pd.Categorical.from_codes(m, lay["matchups"]),
        "a": pd.Categorical.from_codes(lay["first"][m], lay["names"]),
        "b": pd.Categorical.from_codes(b_of[m], lay["names"]),
        "key": lay["cluster_key"][ok][ok_m], "total": total[ok][ok_m], "deals": count[ok][ok_m].astype(np.int64),
    })


def _components(names: list[str], edges: list[tuple[int, int]]) -> list[list[str]]:
    parent = list(range(len(names)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        parent[root(i)] = root(j)
    groups: dict[int, list[str]] = {}
    for i, n in enumerate(names):
        groups.setdefault(root(i), []).append(n)
    return list(groups.values())


def parts(pairs: pd.DataFrame) -> list[list[str]]:
    """The connected parts of the comparison graph (policies linked by games), largest first."""
    m = pairs.groupby("matchup", observed=True, sort=False)[["a", "b"]].first()  # one edge per matchup
    names = list(dict.fromkeys([*m["a"].astype(str), *m["b"].astype(str)]))
    idx = {n: i for i, n in enumerate(names)}
    edges = [(idx[str(a)], idx[str(b)]) for a, b in zip(m["a"], m["b"])]
    return sorted(_components(names, edges), key=len, reverse=True)


def _codes(column: pd.Series, order: list) -> np.ndarray:
    """Position of each row's value in ``order``, through the category codes
    (pd.Categorical(..., categories=a CategoricalIndex) mislabels them)."""
    cat = column.astype("category").cat
    where = {str(v): i for i, v in enumerate(order)}
    lut = np.array([where.get(str(c), -1) for c in cat.categories], dtype=np.int64)
    return lut[cat.codes.to_numpy()]


def fit(pairs: pd.DataFrame, confidence: float = 0.95) -> dict:
    """Least-squares ratings of every policy in ``pairs`` (from ``pair_table``).

    Returns ``ratings`` (policy, rating, low, high, se, games: deals played),
    ``cov`` (covariance of the ratings, anchored at the lowest-rated policy,
    whose rating is 0 by definition), ``matchups`` (observed vs fitted levels
    per deal with the observed standard error) and ``clusters``.
    Raises RatingsError when some policies were never connected by games.
    """
    if not len(pairs):
        raise RatingsError("no complete duplicate pairs to rate")
    m = pairs.groupby("matchup", observed=True, sort=False).agg(
        a=("a", "first"), b=("b", "first"), total=("total", "sum"), deals=("deals", "sum"), pairs=("key", "size"))
    # one (a, b) per matchup: the names in the same order as over every pair, without iterating millions
    names = list(dict.fromkeys([*m["a"].astype(str), *m["b"].astype(str)]))
    idx = {n: i for i, n in enumerate(names)}
    ia = np.array([idx[str(x)] for x in m["a"]])
    ib = np.array([idx[str(x)] for x in m["b"]])
    parts = _components(names, list(zip(ia, ib)))
    if len(parts) > 1:
        raise RatingsError("cannot rate one pool: the comparison graph is disconnected, no games link "
                           + " and ".join("{" + ", ".join(p) + "}" for p in parts))
    n_p, n_m = len(names), len(m)
    x = np.zeros((n_m, n_p))
    x[np.arange(n_m), ia] += 1
    x[np.arange(n_m), ib] -= 1
    d = m["deals"].to_numpy(float)
    xf = x[:, 1:]  # policy 0 fixed at 0 while fitting
    bread = np.linalg.inv(xf.T @ (xf * d[:, None]))
    beta = np.concatenate([[0.0], bread @ (xf.T @ m["total"].to_numpy(float))])
    fitted = x @ beta
    # cluster-robust meat: scores summed per deal (match) id over every matchup
    m_idx = _codes(pairs["matchup"], list(m.index))
    resid = pairs["total"].to_numpy(float) - pairs["deals"].to_numpy(float) * fitted[m_idx]
    key = pairs["key"].to_numpy(np.int64)
    if len(key) and key.min() >= 0 and key.max() < 4 * len(key) + 1024:
        cl, n_cl = key, int(key.max()) + 1  # dense ids: no sort of millions of keys
    else:
        ids, cl = np.unique(key, return_inverse=True)
        n_cl = len(ids)
    u = np.column_stack([np.bincount(cl, weights=resid * xf[m_idx, j], minlength=n_cl)
                         for j in range(n_p - 1)]) if n_p > 1 else np.zeros((n_cl, 0))
    g = int((np.bincount(cl, minlength=n_cl) > 0).sum())
    meat = u.T @ u * (g / (g - 1) if g > 1 else math.nan)
    cov = np.zeros((n_p, n_p))
    cov[1:, 1:] = bread @ meat @ bread
    anchor = int(np.argmin(beta))
    c = np.eye(n_p)
    c[:, anchor] -= 1
    beta, cov = c @ beta, c @ cov @ c.T
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = dist.norm_ppf(0.5 + confidence / 2)
    games = np.bincount(np.concatenate([ia, ib]), weights=np.concatenate([d, d]), minlength=n_p)
    ratings = pd.DataFrame({"policy": names, "rating": beta, "low": beta - z * se, "high": beta + z * se,
                            "se": se, "games": games.astype(np.int64)})
    ratings = ratings.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    obs = _matchup_fit(pairs, m, fitted)
    return {"ratings": ratings, "cov": pd.DataFrame(cov, index=names, columns=names), "anchor": names[anchor],
            "matchups": obs, "clusters": g, "confidence": confidence}


def _matchup_fit(pairs: pd.DataFrame, m: pd.DataFrame, fitted: np.ndarray) -> pd.DataFrame:
    """Each matchup's observed levels per deal, its own standard error (pairs of one
    matchup are independent) and the distance of the fit from it in those errors."""
    rows = []
    for (name, g), mu in zip(pairs.groupby("matchup", observed=True, sort=False), fitted):
        tot, dl = g["total"].to_numpy(float), g["deals"].to_numpy(float)
        mean = tot.sum() / dl.sum()
        n = len(g)
        se = math.sqrt(((tot - mean * dl) ** 2).sum() * n / (n - 1)) / dl.sum() if n > 1 else math.nan
        rows.append({"matchup": str(name), "a": str(g["a"].iloc[0]), "b": str(g["b"].iloc[0]), "pairs": n,
                     "observed": mean, "se": se, "fitted": mu,
                     "z": (mean - mu) / se if se > 0 else math.nan})
    return pd.DataFrame(rows)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values: familywise error control over the set."""
    p = np.asarray(p_values, float)
    order = np.argsort(p)
    k = len(p)
    adj = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * p[order]))
    out = np.empty(k)
    out[order] = adj
    return out


def pairwise(result: dict, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of rated policies: rating difference, its interval, a two-sided
    p-value and Holm's adjustment over all pairs; ``resolved`` when the adjusted
    p-value is below alpha. Head-to-head numbers where the two met."""
    r, cov = result["ratings"], result["cov"]
    z = dist.norm_ppf(0.5 + result["confidence"] / 2)
    names = list(r["policy"])
    rating = dict(zip(r["policy"], r["rating"]))
    h2h = {}
    for row in result["matchups"].itertuples():
        h2h[(row.a, row.b)] = (row.observed, row.se, row.z)
        h2h[(row.b, row.a)] = (-row.observed, row.se, -row.z)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = rating[a] - rating[b]
            se = math.sqrt(max(0.0, cov.loc[a, a] + cov.loc[b, b] - 2 * cov.loc[a, b]))
            p = 2 * dist.norm_sf(abs(diff) / se) if se > 0 else (0.0 if diff else 1.0)
            obs, ose, oz = h2h.get((a, b), (math.nan, math.nan, math.nan))
            rows.append({"a": a, "b": b, "difference": diff, "low": diff - z * se, "high": diff + z * se,
                         "se": se, "p_value": p, "head_to_head": obs, "head_to_head_se": ose, "fit_z": oz})
    out = pd.DataFrame(rows, columns=["a", "b", "difference", "low", "high", "se", "p_value", "head_to_head",
                                      "head_to_head_se", "fit_z"])
    out["p_holm"] = holm(out["p_value"]) if len(out) else []
    out["resolved"] = out["p_holm"] < alpha
    # simultaneous intervals over all k pairs (Bonferroni): one excludes 0 only where the raw p < alpha / k,
    # which Holm's first step already resolves; so no unresolved difference has one that excludes 0
    zk = dist.norm_ppf(1 - alpha / (2 * max(1, len(out))))
    out["sim_low"], out["sim_high"] = out["difference"] - zk * out["se"], out["difference"] + zk * out["se"]
    return out


def simultaneous(result: dict, table: pd.DataFrame) -> pd.DataFrame:
    """The ratings with the simultaneous intervals of their differences from the anchor (each rating is
    that difference), beside the unadjusted ones."""
    r = result["ratings"].copy()
    anchor = result["anchor"]
    lo, hi = {anchor: 0.0}, {anchor: 0.0}
    for a, b, sl, sh in zip(table["a"], table["b"], table["sim_low"], table["sim_high"]):
        if b == anchor:
            lo[a], hi[a] = sl, sh
        elif a == anchor:
            lo[b], hi[b] = -sh, -sl
    r["sim_low"], r["sim_high"] = r["policy"].map(lo), r["policy"].map(hi)
    return r


def order_text(result: dict, pairs_table: pd.DataFrame) -> str:
    """'expert > basic ≈ void > random': '>' only where the two neighbours'
    difference is resolved (Holm), '≈' where it is not."""
    names = list(result["ratings"]["policy"])
    resolved = {(a, b): ok for a, b, ok in zip(pairs_table["a"], pairs_table["b"], pairs_table["resolved"])}
    text = names[0]
    for a, b in zip(names, names[1:]):
        text += (" > " if resolved.get((a, b), resolved.get((b, a), False)) else " ≈ ") + b
    return text


def top_tier(result: dict, pairs_table: pd.DataFrame) -> list[str]:
    """The top-rated policy and every policy not resolved below it."""
    names = list(result["ratings"]["policy"])
    lost = {b for a, b, ok in zip(pairs_table["a"], pairs_table["b"], pairs_table["resolved"])
            if a == names[0] and ok}
    return [n for n in names if n == names[0] or n not in lost]


def misfit(result: dict, threshold: float = 3.0) -> tuple[int, int, float]:
    """(matchups whose head-to-head is more than ``threshold`` standard errors
    from the fit, matchups, p-value of the chi-square goodness-of-fit)."""
    obs = result["matchups"]
    z = obs["z"].to_numpy(float)
    z = z[np.isfinite(z)]
    df = len(obs) - (len(result["ratings"]) - 1)
    p = float(dist.chi2_sf((z ** 2).sum(), df)) if df > 0 else math.nan
    return int((np.abs(z) > threshold).sum()), len(obs), p
