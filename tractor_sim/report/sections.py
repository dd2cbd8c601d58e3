"""The report's statistical sections: ratings of the pool, the pairwise table,
head-to-head pairs, and the match chain. Each returns report blocks (see
build.py) and the sentence it contributes to the headline."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

from tractor_sim.stats import ratings

from tractor_sim.stats import summary as stats
from tractor_sim.report import render
from tractor_sim.report.numbers import interval, plus_minus, p_value


def rate(deals: pd.DataFrame, confidence: float = 0.95) -> dict:
    """Pair table, fit and pairwise table, or ``error`` saying why there are no ratings. A disconnected
    design is rated per connected part: ``parts`` holds one such result per part, and nothing compares
    across them (no games link them)."""
    pairs = ratings.pair_table(deals)
    if not len(pairs):
        return {"error": "no complete duplicate pairs: duplicate = false, or no half 1"}
    unit = "match" if (deals["match_id"].to_numpy() >= 0).any() else "deal"
    groups = ratings.parts(pairs)
    if len(groups) > 1:
        out = []
        for names in groups:
            mine = pairs["a"].isin(names).to_numpy()
            sub = pairs[mine].copy()
            for c in ("matchup", "a", "b"):
                sub[c] = sub[c].cat.remove_unused_categories()
            out.append(_rated(sub, deals, unit, confidence))
        return {"error": "the comparison graph is disconnected, no games link "
                         + " and ".join("{" + ", ".join(g) + "}" for g in groups),
                "pairs": pairs, "parts": out}
    try:
        return _rated(pairs, deals, unit, confidence)
    except ratings.RatingsError as e:
        return {"error": str(e), "pairs": pairs}


def _rated(pairs, deals, unit, confidence) -> dict:
    fit = ratings.fit(pairs, confidence)
    table = ratings.pairwise(fit)
    fit["ratings"] = ratings.simultaneous(fit, table)
    return {"pairs": pairs, "fit": fit, "pairwise": table, "error": None, "unpaired": _unpaired_variance(deals),
            "unit": unit}


def scope(r: dict) -> str:
    """What the pairs count: pairs across matchups, and the independent clusters under them."""
    n_pairs, n_m = len(r["pairs"]), r["pairs"]["matchup"].nunique()
    if n_m == 1:
        return f"{n_pairs:,} duplicate {r['unit']} pairs"
    return (f"{n_pairs:,} duplicate pairs across {n_m} matchups ({r['fit']['clusters']:,} independent {r['unit']} "
            f"clusters: every matchup replays the same {r['unit']} ids)")


def _unpaired_variance(deals: pd.DataFrame) -> dict:
    """Variance of A's single-deal change per matchup: what unpaired play would face."""
    lay = stats._layout(deals)
    change0 = stats.signed_change0(deals).astype(float)
    a = np.where(lay["side"][0] == 0, change0, -change0)
    k = len(lay["matchups"])
    n = np.bincount(lay["mc"], minlength=k)
    s = np.bincount(lay["mc"], weights=a, minlength=k)
    ss = np.bincount(lay["mc"], weights=a * a, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (ss - s * s / n) / (n - 1)
    return dict(zip(lay["matchups"], var))


def headline(r: dict) -> str:
    """Names the pool and states only the orders the pairwise table resolves, with intervals that agree."""
    if r.get("parts"):
        return (f"The pool falls into {len(r['parts'])} parts that no games link, rated separately; nothing "
                "here compares policies of different parts. " + " ".join(
                    f"Part {i + 1}: " + headline(p) for i, p in enumerate(r["parts"])))
    fit, table = r["fit"], r["pairwise"]
    rt = fit["ratings"]
    pool = ", ".join(rt["policy"])
    order = ratings.order_text(fit, table)
    top = ratings.top_tier(fit, table)
    anchor = fit["anchor"]
    best = rt.iloc[0]
    if len(top) > 1:
        lead = (f"{' and '.join([', '.join(top[:-1]), top[-1]]) if len(top) > 2 else ' and '.join(top)} "
                f"are tied at the top")
    else:
        lead = f"{best['policy']} rates highest"
    each = ", ".join(f"{p} {plus_minus(m, (hi - lo) / 2)}" for p, m, lo, hi in
                     zip(rt["policy"], rt["rating"], rt["sim_low"], rt["sim_high"]) if p != anchor)
    k = len(table)
    text = (f"In the pool of {len(rt)} policies ({pool}), on {scope(r)}: {lead}; "
            f"order {order} ('>' = resolved at 5%" + (f" familywise, Holm over the {k} pairs" if k > 1 else "")
            + "; '≈' = not resolved). "
            f"Ratings in levels per deal above {anchor}"
            + (f", simultaneous 95% intervals over the {k} pairs (Bonferroni: none that the order leaves "
               f"unresolved excludes 0): " if k > 1 else ", 95% interval: ") + f"{each}.")
    bad, n, p = ratings.misfit(fit)
    if bad:
        text += (f" The additive rating model misses {bad} of {n} head-to-head results by more than 3 standard "
                 f"errors: read the pairwise table, not the ratings alone.")
    return text


def forest(r: dict, run_dir: Path, suffix: str = "") -> list[tuple]:
    """The ratings' forest plot (simultaneous intervals, in the order stated), then the pairwise order."""
    if r.get("error") and not r.get("parts"):
        return []
    out = []
    for i, part in enumerate(r.get("parts") or [r]):
        tag = f"_{i + 1}" if r.get("parts") else ""
        fit = part["fit"]
        render.figure(out, run_dir, f"ratings{tag}.png", (f"Part {i + 1}: " if tag else "")
                      + f"Ratings with simultaneous 95% intervals (clustered by {part['unit']} id), top-rated first",
                      "plot_ratings", fit["ratings"], fit["anchor"], part["unit"])
        out.append(("p", (f"Part {i + 1} order: " if tag else "Order: ") + ratings.order_text(fit, part["pairwise"])
                    + " ('>' resolved at 5% familywise, Holm; '≈' not)."))
    return out


def blocks(r: dict, run_dir: Path, csv: str = "ratings.csv") -> list[tuple]:
    """Ratings table, ratings.csv, pairwise and head-to-head tables (per connected part when it falls apart)."""
    if r.get("parts"):
        out = []
        for i, part in enumerate(r["parts"]):
            names = ", ".join(part["fit"]["ratings"]["policy"])
            out += [("h", 3, f"Part {i + 1} of {len(r['parts'])}: {names}"),
                    ("p", "Rated on its own games only: no games link it to the other parts, so no rating or "
                          "difference here is comparable with theirs.")]
            out += blocks(part, run_dir, csv=f"ratings_{i + 1}.csv")
        return out
    if r.get("error"):
        return [("h", 3, "Ratings"), ("p", f"No ratings: {r['error']}.")]
    fit, table = r["fit"], r["pairwise"]
    rt = fit["ratings"]
    rt[["policy", "rating", "low", "high", "sim_low", "sim_high", "games"]].to_csv(run_dir / csv, index=False)
    k = len(table)
    out = [("h", 3, "Ratings"),
           ("p", f"One least-squares fit of every duplicate pair score at once (A's pair score = rating of A "
                 f"- rating of B), {fit['anchor']} fixed at 0; levels per deal is total net levels over total "
                 f"deals. Intervals from the covariance clustered by {r['unit']} id over all matchups "
                 f"({fit['clusters']:,} independent clusters), since every matchup replays the same ids. "
                 f"Simultaneous: 95% over all {k} pairwise differences at once (Bonferroni), the intervals of the "
                 f"figure and the headline; unadjusted: each difference from {fit['anchor']} alone, narrower, "
                 f"and not a test of the order. Games: deals played. Also in {csv}."),
           ("table", pd.DataFrame({
               "policy": rt["policy"], "rating (levels / deal) [simultaneous 95% CI]": [
                   interval(m, lo, hi, 4, signed=True) for m, lo, hi in zip(rt["rating"], rt["sim_low"], rt["sim_high"])],
               "[unadjusted 95% CI]": [f"[{lo:+.4f}, {hi:+.4f}]" for lo, hi in zip(rt["low"], rt["high"])],
               "deals played": rt["games"].map(lambda v: f"{int(v):,}")}))]
    bad, n, p = ratings.misfit(fit)
    out += [("h", 3, "Pairwise"),
            ("p", "Every pair of rated policies: the rating difference with its simultaneous 95% interval "
                  "(Bonferroni over all pairs) and its unadjusted one, the two-sided p-value Holm-adjusted over "
                  "all pairs (resolved: adjusted p < 0.05). An unresolved difference never has a simultaneous "
                  "interval that excludes 0; its unadjusted interval may, which is why it is labelled so. "
                  "Holm can resolve a difference whose simultaneous interval still touches 0 (Holm's later steps "
                  "are less strict than Bonferroni). Head to head: "
                  "the mean pair score where the two met; off the fit: how many of its standard errors the "
                  f"head-to-head result lies from the rating difference. Goodness of fit over {n} matchups: "
                  f"{bad} off by more than 3 standard errors, chi-square p = {p_value(p)}."),
            ("table", pd.DataFrame({
                "A": table["a"], "B": table["b"],
                "rating A - B [simultaneous 95% CI]": [interval(m, lo, hi, 4, signed=True) for m, lo, hi in
                                                       zip(table["difference"], table["sim_low"], table["sim_high"])],
                "[unadjusted 95% CI]": [f"[{lo:+.4f}, {hi:+.4f}]" for lo, hi in zip(table["low"], table["high"])],
                "p (Holm)": table["p_holm"].map(p_value),
                "resolved": table["resolved"].map(lambda v: "yes" if v else "no"),
                "head to head ± 1.96 se (unadjusted)": [plus_minus(m, 1.96 * s) if np.isfinite(m) else "did not meet"
                                           for m, s in zip(table["head_to_head"], table["head_to_head_se"])],
                "off the fit (se)": table["fit_z"].map(lambda z: f"{z:+.1f}" if np.isfinite(z) else ""),
            }))]
    out += [("h", 3, "Duplicate pairs, head to head"),
            ("p", "Per matchup: A's net levels per deal over its pairs (a pair is one deal or match played "
                  "twice with the policies swapped), t interval over pairs. 'Unpaired deals for same precision': "
                  "how many independent deals would give the same standard error."),
            ("table", head_to_head(r))]
    return out


def head_to_head(r: dict) -> pd.DataFrame:
    rows = []
    for m in r["fit"]["matchups"].itertuples():
        g = r["pairs"][(r["pairs"]["matchup"] == m.matchup).to_numpy()]
        deals = int(g["deals"].sum())
        tq = dist.t_ppf(0.975, m.pairs - 1)
        p = 2 * dist.t_sf(abs(m.observed) / m.se, m.pairs - 1) if m.se > 0 else math.nan
        var_pair = m.se ** 2 * m.pairs
        needed = m.pairs * r["unpaired"].get(m.matchup, math.nan) / var_pair if var_pair > 0 else math.inf
        rows.append({"matchup": m.matchup, "A": m.a, "B": m.b, "pairs": f"{m.pairs:,}", "deals": f"{deals:,}",
                     "A's net levels / deal [unadjusted 95% CI]": interval(m.observed, m.observed - tq * m.se,
                                                                  m.observed + tq * m.se, 4, signed=True),
                     "p-value (unadjusted)": p_value(p) if np.isfinite(p) else "",
                     "detectable effect (80% power, descriptive)": f"{stats.min_detectable_effect(math.sqrt(var_pair), m.pairs):.4f}",
                     "unpaired deals for same precision (descriptive)": f"{needed:,.0f}" if np.isfinite(needed) else "",
                     "gain over unpaired (descriptive)": f"{needed / deals:.1f}x" if np.isfinite(needed) else ""})
    return pd.DataFrame(rows)


def top_two(r: dict) -> tuple[str, str] | None:
    """The top-rated policy and the runner-up, when they played each other."""
    if r.get("error") or len(r["fit"]["ratings"]) < 2:
        return None
    a, b = list(r["fit"]["ratings"]["policy"][:2])
    met = r["fit"]["matchups"]
    if not (((met["a"] == a) & (met["b"] == b)) | ((met["a"] == b) & (met["b"] == a))).any():
        return None
    return a, b


def chain_sentence(markov: list[dict], r: dict) -> str:
    """The headline's chain: the top-rated policy against the runner-up (first in ``markov``)."""
    pair = top_two(r)
    if pair is None:
        return ""
    c = next((m for m in markov if (m["policy_a"], m["policy_b"]) == pair), None)
    if c is None:
        return f"No match chain for {pair[0]} against {pair[1]}: see the chain section."
    return (f"From the deal results alone, under these rules ({c['match_end']}, must_defend "
            f"{c['rules'].must_defend}, declaring by {c['rules'].declaring}), the top-rated {pair[0]} wins a match "
            f"against the runner-up {pair[1]} from 2-2 with probability {c['win_prob']:.3f} "
            f"(95% CI {c['low']:.3f} to {c['high']:.3f}; {c['expected_deals']:.1f} deals expected, descriptive), "
            f"assuming a deal's result does not depend on the levels.")
