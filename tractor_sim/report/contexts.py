"""The report's section "By context": ratings and order per context, the interaction test, and a
sentence per finding saying in which contexts it holds (tractor_sim.stats.contexts)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tractor_sim.report.numbers import interval, p_value
from tractor_sim.stats import contexts as SC
from tractor_sim.stats import ratings


def _ci(mean, low, high) -> str:
    return interval(mean, low, high, decimals=4, signed=True)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def columns(manifest: dict) -> list[str]:
    """The deal columns the section reads beyond the report's: the context, in a run with contexts."""
    return ["context"] if (manifest.get("experiment") or {}).get("contexts") else []


def with_context(summary: pd.DataFrame, deals: pd.DataFrame) -> pd.DataFrame:
    """The summary table with each matchup's context as its second column (unchanged without contexts)."""
    if "context" not in deals or "matchup" not in summary:
        return summary
    of = dict(zip(deals["matchup"].astype(str), deals["context"].astype(str)))
    out = summary.copy()
    out.insert(1, "context", out["matchup"].astype(str).map(of))
    return out


def finding_sentences(result: dict) -> list[str]:
    """'void > keep_points holds in basic; reverses in expert; not resolved in ...' per finding."""
    out = []
    for v in SC.verdicts(result):
        text = f"{v['better']} > {v['worse']} holds in {_and(v['holds'])}"
        if v["reverses"]:
            text += f"; reverses ({v['worse']} > {v['better']}) in {_and(v['reverses'])}"
        if v["unresolved"]:
            text += f"; not resolved in {_and(v['unresolved'])}"
        if v["missing"]:
            text += f"; not rated in {_and(v['missing'])}"
        out.append(text + ".")
    return out


def interaction_sentence(result: dict) -> str:
    t, w = result["interaction"], result["wald"]
    if not len(t):
        return "No interaction test: no pair of policies is rated in two contexts."
    wald = (f" All at once (Wald chi-square over the ratings of {', '.join(w['policies'])}): chi2 = {w['chi2']:.1f}, "
            f"df = {w['df']}, p = {p_value(w['p_value'])}." if w else "")
    hits = t[t["resolved"]]
    if not len(hits):
        return (f"The order does not differ resolvably between contexts: none of the {len(t)} interactions "
                f"(a pair's rating difference in one context minus in another) is resolved at 5% familywise "
                f"(Holm over all {len(t)})." + wald)
    each = "; ".join(f"{r.a} - {r.b}: {r.difference1:+.4f} in {r.context1}, {r.difference2:+.4f} in {r.context2}, "
                     f"interaction {_ci(r.interaction, r.low, r.high)}, p (Holm) {p_value(r.p_holm)}"
                     for r in hits.itertuples())
    return (f"The order differs between contexts: {len(hits)} of {len(t)} interactions are resolved at 5% "
            f"familywise (Holm over all {len(t)}): {each}." + wald)


def analyze(deals: pd.DataFrame) -> dict | None:
    """stats.contexts.by_context of a run with contexts; None without."""
    return SC.by_context(deals) if "context" in deals else None


def headline(result: dict | None) -> list[tuple]:
    """Under the headline: the pooled numbers say so, and the interaction's verdict."""
    if result is None:
        return []
    return [("p", f"This run has contexts ({', '.join(result['contexts'])}): the headline and the tables pool "
                  "them (a policy's rating is its mean over the contexts, and the rating model's misses include "
                  "the differences between contexts). Each context alone: section By context. "
                  + interaction_sentence(result))]


def blocks(result: dict | None, run_dir: Path) -> list[tuple]:
    """The section's report blocks (build.py's block kinds) and interaction.csv; none for a run without
    contexts."""
    if result is None:
        return []
    result["interaction"].to_csv(Path(run_dir) / "interaction.csv", index=False)
    out = [("h", 2, "By context"),
           ("p", f"Every matchup was played once per context ({', '.join(result['contexts'])}) on the same "
                 "duplicate deals; the context plays every decision a matchup's tables do not name. The sections "
                 "above pool the contexts; here each context is rated alone (the same least-squares fit), and the "
                 "interaction of a pair of policies between two contexts is the difference of its rating "
                 "difference, with a 95% interval from both fits' influences clustered by deal id (the contexts "
                 "replay the same deals) and Holm over every pair of policies and contexts compared. "
                 "Also in interaction.csv.")]
    out += [("headline", interaction_sentence(result))]
    sentences = finding_sentences(result)
    if sentences:
        out += [("p", "In which contexts each finding holds (resolved at 5% familywise within the context):"),
                ("list", sentences)]
    for c in result["contexts"]:
        r = result["per"][c]
        out += [("h", 3, f"Context {c}")]
        if r.get("error"):
            out += [("p", f"No ratings: {r['error']}.")]
            continue
        fit, table = r["fit"], r["pairwise"]
        rt = fit["ratings"]
        out += [("p", f"Order: {ratings.order_text(fit, table)} ('>' resolved at 5% familywise, Holm; '≈' not); "
                      f"{len(r['pairs']):,} duplicate pairs, ratings above {fit['anchor']}."),
                ("table", pd.DataFrame({
                    "policy": rt["policy"],
                    "rating (levels / deal) [95% CI]": [_ci(m, lo, hi) for m, lo, hi in
                                                       zip(rt["rating"], rt["low"], rt["high"])]})),
                ("table", pd.DataFrame({
                    "A": table["a"], "B": table["b"],
                    "rating A - B [95% CI]": [_ci(m, lo, hi) for m, lo, hi in
                                              zip(table["difference"], table["low"], table["high"])],
                    "p (Holm)": table["p_holm"].map(p_value),
                    "resolved": table["resolved"].map(lambda v: "yes" if v else "no")}))]
    t = result["interaction"]
    if len(t):
        out += [("h", 3, "Interaction: does the order differ between contexts?"),
                ("table", pd.DataFrame({
                    "A": t["a"], "B": t["b"], "contexts": [f"{x} vs {y}" for x, y in zip(t["context1"], t["context2"])],
                    "A - B in first": t["difference1"].map(lambda v: f"{v:+.4f}"),
                    "A - B in second": t["difference2"].map(lambda v: f"{v:+.4f}"),
                    "interaction [95% CI]": [_ci(m, lo, hi) for m, lo, hi in zip(t["interaction"], t["low"], t["high"])],
                    "p": t["p_value"].map(p_value), "p (Holm)": t["p_holm"].map(p_value),
                    "resolved": t["resolved"].map(lambda v: "yes" if v else "no")}))]
    return out

