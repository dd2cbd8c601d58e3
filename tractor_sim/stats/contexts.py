"""Does a finding hold in every context?  Ratings per context and the interaction test.

A run with contexts (tractor_sim.runs.contexts) has a ``context`` column.
Each context is rated on its own (stats.ratings: one least-squares fit of
its pair scores).  The *interaction* of a pair of policies between two
contexts is the difference of their rating difference:
(r_A - r_B in context 1) - (r_A - r_B in context 2).  Every context replays
the same deal ids, so the two estimates are correlated; its variance comes
from each fit's per-deal-id influence, summed per id over both contexts
(the sandwich clustered by id, as within one fit).  Holm runs over every
interaction tested (each pair of policies rated in both, each pair of
contexts); a Wald chi-square tests all of them at once.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

from tractor_sim.stats import ratings


def names_of(deals: pd.DataFrame) -> list[str]:
    """The contexts of a deals table, in the order they were played (empty without the column)."""
    if "context" not in deals:
        return []
    return [str(c) for c in dict.fromkeys(deals["context"].astype(str))]


def _influence(pairs: pd.DataFrame, keys: np.ndarray) -> tuple[dict, np.ndarray, list[str]]:
    """(rating per policy with the first at 0, influence of each id on each rating, names): the fit of
    ratings.fit, its estimate written as a sum over deal ids so two fits' errors can be combined."""
    names = list(dict.fromkeys([*pairs["a"].astype(str), *pairs["b"].astype(str)]))
    idx = {n: i for i, n in enumerate(names)}
    m = pairs.groupby("matchup", observed=True, sort=False).agg(
        a=("a", "first"), b=("b", "first"), total=("total", "sum"), deals=("deals", "sum"))
    n_m, n_p = len(m), len(names)
    x = np.zeros((n_m, n_p))
    x[np.arange(n_m), [idx[str(v)] for v in m["a"]]] += 1
    x[np.arange(n_m), [idx[str(v)] for v in m["b"]]] -= 1
    xf = x[:, 1:]
    bread = np.linalg.inv(xf.T @ (xf * m["deals"].to_numpy(float)[:, None]))
    beta = np.concatenate([[0.0], bread @ (xf.T @ m["total"].to_numpy(float))])
    m_idx = ratings._codes(pairs["matchup"], list(m.index))
    resid = pairs["total"].to_numpy(float) - pairs["deals"].to_numpy(float) * (x @ beta)[m_idx]
    cl = np.searchsorted(keys, pairs["key"].to_numpy(np.int64))
    u = np.column_stack([np.bincount(cl, weights=resid * xf[m_idx, j], minlength=len(keys))
                         for j in range(n_p - 1)]) if n_p > 1 else np.zeros((len(keys), 0))
    infl = np.zeros((len(keys), n_p))
    infl[:, 1:] = u @ bread
    return dict(zip(names, beta)), infl, names


def by_context(deals: pd.DataFrame, confidence: float = 0.95, alpha: float = 0.05) -> dict:
    """``of_pairs`` of each context's pair table (stats.ratings.pair_table)."""
    ctx = deals["context"].astype(str).to_numpy()
    return of_pairs({c: ratings.pair_table(deals[ctx == c]) for c in names_of(deals)}, confidence, alpha)


def of_pairs(pair_tables: dict, confidence: float = 0.95, alpha: float = 0.05) -> dict:
    """Per context (``pair_tables``: context -> pair table on shared ids): ``fit`` and ``pairwise`` (as
    stats.ratings), or ``error``; and ``interaction``: one row per pair of policies and pair of contexts
    (difference of the pair's rating difference, interval, p-value, Holm over all rows, ``resolved``), and
    ``wald`` (chi2, df, p) over all of them."""
    contexts = list(pair_tables)
    per, parts = {}, {}
    for c, pairs in pair_tables.items():
        try:
            fit = ratings.fit(pairs, confidence)
        except ratings.RatingsError as e:
            per[c] = {"error": str(e)}
            continue
        per[c] = {"fit": fit, "pairwise": ratings.pairwise(fit, alpha), "pairs": pairs, "error": None}
        parts[c] = pairs
    keys = np.unique(np.concatenate([p["key"].to_numpy(np.int64) for p in parts.values()])) if parts else np.zeros(0)
    inf = {c: _influence(p, keys) for c, p in parts.items()}
    g = len(keys)
    scale = g / (g - 1) if g > 1 else math.nan
    z = dist.norm_ppf(0.5 + confidence / 2)
    rows, columns = [], []
    for c1, c2 in combinations(list(inf), 2):
        (r1, h1, n1), (r2, h2, n2) = inf[c1], inf[c2]
        common = [n for n in n1 if n in n2]
        for a, b in combinations(common, 2):
            d1, d2 = r1[a] - r1[b], r2[a] - r2[b]
            col = (h1[:, n1.index(a)] - h1[:, n1.index(b)]) - (h2[:, n2.index(a)] - h2[:, n2.index(b)])
            se = math.sqrt(scale * float(col @ col))
            diff = d1 - d2
            p = 2 * dist.norm_sf(abs(diff) / se) if se > 0 else (0.0 if diff else 1.0)
            rows.append({"a": a, "b": b, "context1": c1, "context2": c2, "difference1": d1, "difference2": d2,
                         "interaction": diff, "low": diff - z * se, "high": diff + z * se, "se": se, "p_value": p})
            columns.append(col)
    table = pd.DataFrame(rows, columns=["a", "b", "context1", "context2", "difference1", "difference2",
                                        "interaction", "low", "high", "se", "p_value"])
    table["p_holm"] = ratings.holm(table["p_value"]) if len(table) else []
    table["resolved"] = table["p_holm"] < alpha
    return {"contexts": contexts, "per": per, "interaction": table, "wald": _wald(inf, scale),
            "alpha": alpha, "confidence": confidence}


def _wald(inf: dict, scale: float) -> dict | None:
    """All contexts' ratings equal (up to the anchor) for the policies every context rated: the
    differences from the first context, against their joint clustered covariance."""
    if len(inf) < 2:
        return None
    ctxs = list(inf)
    common = [n for n in inf[ctxs[0]][2] if all(n in inf[c][2] for c in ctxs)]
    if len(common) < 2:
        return None
    ref = common[0]
    est, cols = [], []
    r0, h0, n0 = inf[ctxs[0]]
    for c in ctxs[1:]:
        r, h, n = inf[c]
        for p in common[1:]:
            est.append((r[p] - r[ref]) - (r0[p] - r0[ref]))
            cols.append((h[:, n.index(p)] - h[:, n.index(ref)]) - (h0[:, n0.index(p)] - h0[:, n0.index(ref)]))
    v = np.column_stack(cols)
    cov = scale * (v.T @ v)
    e = np.array(est)
    df = int(np.linalg.matrix_rank(cov))
    if df == 0:
        return None
    chi2 = float(e @ np.linalg.pinv(cov) @ e)
    return {"chi2": chi2, "df": df, "p_value": float(dist.chi2_sf(chi2, df)), "policies": common}


def verdicts(result: dict) -> list[dict]:
    """Per pair of policies resolved in some context: in which contexts A > B, B > A, or unresolved."""
    seen: dict[tuple, dict] = {}
    for c in result["contexts"]:
        r = result["per"][c]
        if r.get("error"):
            continue
        for row in r["pairwise"].itertuples():
            key = tuple(sorted((row.a, row.b)))
            sign = 0 if not row.resolved else (1 if (row.difference > 0) == (row.a == key[0]) else -1)
            seen.setdefault(key, {})[c] = sign
    out = []
    for (a, b), signs in seen.items():
        if not any(signs.values()):
            continue
        major = 1 if sum(s == 1 for s in signs.values()) >= sum(s == -1 for s in signs.values()) else -1
        hi, lo = (a, b) if major == 1 else (b, a)
        out.append({"better": hi, "worse": lo, "holds": [c for c, s in signs.items() if s == major],
                    "reverses": [c for c, s in signs.items() if s == -major],
                    "unresolved": [c for c, s in signs.items() if s == 0],
                    "missing": [c for c in result["contexts"] if c not in signs]})
    return out
