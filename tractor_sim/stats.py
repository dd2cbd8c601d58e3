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
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import sparse
from scipy import stats as st
from scipy.sparse.linalg import spsolve

LEVEL_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
MATCH_ENDS = ("pass_ace", "reach_ace")
MIN_ROWS = 8  # row tables always show rows 0..7 (p<=0 .. 240-275)


def row_label(row: int) -> str:
    """Label of a level-table row by its range of opponents' points p."""
    row = int(row)
    if row <= 0:
        return "p<=0"
    if row == 1:
        return "5-35"
    return f"{40 * (row - 1)}-{40 * row - 5}"


def signed_gain(deals: pd.DataFrame, team: int) -> pd.Series:
    """Level change of ``team`` (0/1) per deal: + if it gained, - if the other team did."""
    gain = deals["gain"].to_numpy(np.int64)
    gt = deals["gain_team"].to_numpy(np.int64)
    out = np.where(gt == team, gain, np.where(gt == 1 - team, -gain, 0))
    return pd.Series(out, index=deals.index, name=f"signed_gain{team}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion: sane near 0 and 1 and for small n."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = st.binomtest(int(successes), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


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
    se = float(st.sem(x))
    if se == 0:
        return (m, m, m)
    lo, hi = st.t.interval(confidence, n - 1, loc=m, scale=se)
    return (m, float(lo), float(hi))


# ---------------------------------------------------------------- summaries

def _by_policy(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per (deal, team): the deal as seen by the policy of that team.

    Names as categoricals (codes, in order of appearance), never a string per
    row: 10,000,000 deals made 40,000,000 Python strings otherwise.
    """
    matchup = pd.Categorical(deals["matchup"], categories=pd.unique(deals["matchup"].astype(str)))
    names = pd.unique(np.concatenate([pd.unique(deals[f"policy{t}"].astype(str)) for t in (0, 1)]))
    parts = []
    for team in (0, 1):
        parts.append(pd.DataFrame({
            "deal_row": np.arange(len(deals)),
            "matchup": matchup,
            "policy": pd.Categorical(deals[f"policy{team}"].astype(str), categories=names),
            "change": signed_gain(deals, team).to_numpy(),
            "declaring": deals["declaring_team"].to_numpy() == team,
            "held": deals["row"].to_numpy() <= 2,
            "opp_points": deals["opp_points"].to_numpy(np.int64),
        }))
    return pd.concat(parts, ignore_index=True)


def _match_summary(matches: pd.DataFrame, confidence: float) -> pd.DataFrame:
    parts = []
    for team in (0, 1):
        parts.append(pd.DataFrame({
            "match_row": np.arange(len(matches)),
            "matchup": matches["matchup"].astype(str).to_numpy(),
            "policy": matches[f"policy{team}"].astype(str).to_numpy(),
            "won": matches["winner"].to_numpy() == team,
            "deals": matches["deals"].to_numpy(np.int64),
        }))
    long = pd.concat(parts, ignore_index=True)
    rows = []
    for (m, p), g in long.groupby(["matchup", "policy"], sort=False):
        wins, n = int(g["won"].sum()), len(g)
        lo, hi = wilson_interval(wins, n, confidence)
        rows.append({"matchup": m, "policy": p, "matches": g["match_row"].nunique(), "wins": wins,
                     "win_rate": wins / n, "win_low": lo, "win_high": hi,
                     "deals_per_match": float(g.drop_duplicates("match_row")["deals"].mean())})
    return pd.DataFrame(rows)


def matchup_summary(deals: pd.DataFrame, matches: pd.DataFrame | None = None,
                    confidence: float = 0.95) -> pd.DataFrame:
    """One row per (matchup, policy): how often it holds as declarers, how many
    points it takes as opponents, its mean level change per deal, and (given
    matches) its match win rate, each with a confidence interval.

    The level-change CI treats deals as independent (unpaired); use
    ``paired_comparison`` for the duplicate-pair analysis. In a self-play
    matchup each deal counts once per team, so the mean change is 0.
    """
    long = _by_policy(deals)
    rows = []
    for (m, p), g in long.groupby(["matchup", "policy"], sort=False, observed=True):
        mean, lo, hi = mean_ci(g["change"], confidence)
        dec = g[g["declaring"]]
        held = int(dec["held"].sum())
        hlo, hhi = wilson_interval(held, len(dec), confidence)
        opp = g.loc[~g["declaring"], "opp_points"]
        q = opp.quantile([0.25, 0.5, 0.75]) if len(opp) else pd.Series([math.nan] * 3)
        rows.append({
            "matchup": m, "policy": p, "deals": g["deal_row"].nunique(),
            "level_change": mean, "level_change_low": lo, "level_change_high": hi,
            "declared": len(dec), "hold_rate": held / len(dec) if len(dec) else math.nan,
            "hold_low": hlo, "hold_high": hhi,
            "opp_points_mean": float(opp.mean()) if len(opp) else math.nan,
            "opp_points_q25": float(q.iloc[0]), "opp_points_q50": float(q.iloc[1]),
            "opp_points_q75": float(q.iloc[2]),
        })
    out = pd.DataFrame(rows)
    if matches is not None and len(matches) and len(out):
        out = out.merge(_match_summary(matches, confidence), on=["matchup", "policy"], how="left")
    return out


def row_frequencies(deals: pd.DataFrame, by_declarer: bool = False) -> pd.DataFrame:
    """Share of deals in every level-table row, per matchup (and per declaring
    policy with ``by_declarer``): the shape of the results behind the means.
    Columns are the row labels ("p<=0", "5-35", ...) plus ``n``."""
    rows = deals["row"].to_numpy(np.int64)
    n_rows = max(MIN_ROWS, int(rows.max()) + 1 if len(rows) else 0)
    keys = {"matchup": deals["matchup"].astype(str).to_numpy()}
    if by_declarer:
        keys["declarer"] = np.where(deals["declaring_team"].to_numpy() == 0,
                                    deals["policy0"].astype(str), deals["policy1"].astype(str))
    frame = pd.DataFrame({**keys, "row": rows})
    counts = (frame.groupby(list(keys), sort=False)["row"]
              .value_counts().unstack(fill_value=0)
              .reindex(columns=range(n_rows), fill_value=0))
    n = counts.sum(axis=1)
    freq = counts.div(n, axis=0)
    freq.columns = [row_label(r) for r in range(n_rows)]
    freq["n"] = n
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
    match_id >= 0). Returns the mean with a t CI and p-value (H0: no
    difference), and how many *unpaired* deals (A's single-deal changes
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
    test = st.ttest_1samp(scores.to_numpy(float), 0.0)
    ci = test.confidence_interval(confidence)
    singles = frame["change"].to_numpy(float)
    var_p = float(scores.var(ddof=1))
    var_u = float(np.var(singles, ddof=1))
    needed = n * var_u / var_p if var_p > 0 else math.inf
    out.update({
        "mean": float(scores.mean()), "low": float(ci.low), "high": float(ci.high),
        "sd": math.sqrt(var_p), "se": math.sqrt(var_p / n), "p_value": float(test.pvalue),
        "var_paired": var_p, "var_unpaired": var_u,
        "unpaired_deals_needed": needed, "efficiency": needed / out["deals"],
    })
    return out


def min_detectable_effect(sd: float, n: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true mean difference a two-sided test at ``alpha`` detects with
    probability ``power`` from n units of standard deviation sd (normal approx.)."""
    z = st.norm.ppf(1 - alpha / 2) + st.norm.ppf(power)
    return float(z * sd / math.sqrt(n))


def deals_needed(sd: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (pairs or deals, whichever sd refers to) needed to detect ``effect``:
    the inverse of ``min_detectable_effect``."""
    z = st.norm.ppf(1 - alpha / 2) + st.norm.ppf(power)
    return int(math.ceil((z * sd / abs(effect)) ** 2))


class SPRT:
    """Sequential test on pair scores, Fishtest's GSPRT in its normal form.

    H0: mean pair score = ``low``; H1: = ``high`` (levels per deal). With the
    variance estimated from the data, LLR = n (high - low) (2 mean - low -
    high) / (2 var); stop when it leaves (log(beta/(1-alpha)),
    log((1-beta)/alpha)). This answers "is A better than B by at least
    ``high``?" with the fewest pairs. No decision before ``min_n`` scores,
    where the variance estimate is too rough.
    """

    def __init__(self, low: float, high: float, alpha: float = 0.05, beta: float = 0.05, min_n: int = 20):
        if not high > low:
            raise ValueError("SPRT needs high > low")
        self.low, self.high = float(low), float(high)
        self.alpha, self.beta, self.min_n = alpha, beta, int(min_n)
        self.lower_bound = math.log(beta / (1 - alpha))
        self.upper_bound = math.log((1 - beta) / alpha)
        self.n, self.sum, self.sumsq, self.llr = 0, 0.0, 0.0, 0.0
        self.state = "continue"

    def _llr(self, n, s, ss):
        mean = s / n
        var = np.maximum(ss / n - mean * mean, 1e-12)
        return n * (self.high - self.low) * (2 * mean - self.low - self.high) / (2 * var)

    def update(self, scores) -> str:
        """Add pair scores in order; stop at the first one that crosses a bound
        (later scores are ignored, as a test would stop there)."""
        x = np.asarray(scores, dtype=float).ravel()
        if self.state != "continue" or len(x) == 0:
            return self.state
        n = self.n + np.arange(1, len(x) + 1)
        s = self.sum + np.cumsum(x)
        ss = self.sumsq + np.cumsum(x * x)
        llr = self._llr(n, s, ss)
        crossed = (n >= self.min_n) & ((llr >= self.upper_bound) | (llr <= self.lower_bound))
        k = int(np.argmax(crossed)) if crossed.any() else len(x) - 1
        self.n, self.sum, self.sumsq, self.llr = int(n[k]), float(s[k]), float(ss[k]), float(llr[k])
        if crossed.any():
            self.state = "accept_high" if self.llr >= self.upper_bound else "accept_low"
        return self.state

    @property
    def mean(self) -> float:
        return self.sum / self.n if self.n else math.nan


# ---------------------------------------------------------- match Markov chain

@lru_cache(maxsize=None)
def _chain_targets(top: int, n_rows: int) -> np.ndarray:
    """For state (level A, level B, declarer: 0=A 1=B) and row: the next state's
    index, -1 when A wins, -2 when B wins. A team wins when its level >= top."""
    targets = np.empty((top * top * 2, n_rows), dtype=np.int64)
    for la in range(top):
        for lb in range(top):
            for d in (0, 1):
                for r in range(n_rows):
                    lv, nd = [la, lb], d
                    if r <= 2:
                        lv[d] += 3 - r
                    else:
                        nd = 1 - d
                        lv[nd] += r - 3
                    if lv[0] >= top:
                        t = -1
                    elif lv[1] >= top:
                        t = -2
                    else:
                        t = (lv[0] * top + lv[1]) * 2 + nd
                    targets[(la * top + lb) * 2 + d, r] = t
    return targets


def solve_match_chain(probs_a, probs_b, match_end: str = "pass_ace") -> tuple[np.ndarray, np.ndarray]:
    """Exact match outcome from deal-level row distributions.

    ``probs_a[r]``: probability of level-table row r when A's team declares;
    ``probs_b`` when B's declares; assumed not to depend on the levels.
    Solves the absorbing chain over (level A, level B, declarer) and returns
    (win, deals): arrays [level A, level B, declarer (0=A, 1=B)] of A's match
    win probability and the expected deals left. Levels 0..12 = 2..A
    (0..11 for ``reach_ace``, where reaching A wins).
    """
    if match_end not in MATCH_ENDS:
        raise ValueError(f"match_end must be one of {MATCH_ENDS}, got {match_end!r}")
    top = 13 if match_end == "pass_ace" else 12
    n_rows = max(len(probs_a), len(probs_b), 4)
    pa = np.zeros(n_rows)
    pb = np.zeros(n_rows)
    pa[:len(probs_a)] = probs_a
    pb[:len(probs_b)] = probs_b
    if pa[3] >= 1 and pb[3] >= 1:
        raise ValueError("the match never ends: every deal is 80-115 for both sides")
    targets = _chain_targets(top, n_rows)
    n_states = len(targets)
    probs = np.where((np.arange(n_states) % 2 == 0)[:, None], pa, pb)
    src = np.broadcast_to(np.arange(n_states)[:, None], targets.shape)
    live = targets >= 0
    q = sparse.coo_matrix((probs[live], (src[live], targets[live])), shape=(n_states, n_states))
    a_wins = (probs * (targets == -1)).sum(axis=1)
    system = (sparse.identity(n_states) - q).tocsc()
    sol = spsolve(system, np.column_stack([a_wins, np.ones(n_states)]))
    return sol[:, 0].reshape(top, top, 2), sol[:, 1].reshape(top, top, 2)


def markov_win_probability(deals: pd.DataFrame, policy_a: str, policy_b: str,
                           match_end: str = "pass_ace", matchup: str | None = None,
                           n_boot: int = 200, seed: int = 0, confidence: float = 0.95) -> dict:
    """Probability that A wins a match, from deal-level results alone.

    Estimates the row distribution for each declaring policy from the deals
    of A against B (both seatings, pooled over matchups unless ``matchup``
    is given), solves the chain (``solve_match_chain``) and starts at 2-2
    with the first declarer drawn 50/50. The interval is a seeded parametric
    bootstrap: row counts redrawn from the estimated multinomials.
    Returns win_prob, se, low, high, expected_deals, ``table`` (A's win
    probability by starting levels, first declarer 50/50), the tables for
    each first declarer, ``row_probs`` and the deal counts behind them.
    """
    d = _pair_deals(deals, policy_a, policy_b, matchup)
    rows = d["row"].to_numpy(np.int64)
    decl = np.where(d["declaring_team"].to_numpy() == 0, d["policy0"].astype(str), d["policy1"].astype(str))
    n_rows = max(MIN_ROWS, int(rows.max()) + 1 if len(rows) else 0)
    if policy_a == policy_b:
        ca = cb = np.bincount(rows, minlength=n_rows)
    else:
        ca = np.bincount(rows[decl == policy_a], minlength=n_rows)
        cb = np.bincount(rows[decl == policy_b], minlength=n_rows)
    for name, c in ((policy_a, ca), (policy_b, cb)):
        if c.sum() == 0:
            raise ValueError(f"no deals of {policy_a} against {policy_b} with {name} declaring")
    pa, pb = ca / ca.sum(), cb / cb.sum()
    win, left = solve_match_chain(pa, pb, match_end)

    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(n_boot):
        try:
            w, _ = solve_match_chain(rng.multinomial(ca.sum(), pa) / ca.sum(),
                                     rng.multinomial(cb.sum(), pb) / cb.sum(), match_end)
        except ValueError:
            continue
        boot.append(0.5 * (w[0, 0, 0] + w[0, 0, 1]))
    boot = np.array(boot)
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [tail, 1 - tail]) if len(boot) > 1 else (math.nan, math.nan)

    names = list(LEVEL_NAMES[:win.shape[0]])

    def table(values):
        return pd.DataFrame(values, index=pd.Index(names, name=f"level of {policy_a}"),
                            columns=pd.Index(names, name=f"level of {policy_b}"))

    return {
        "policy_a": policy_a, "policy_b": policy_b, "match_end": match_end,
        "win_prob": float(0.5 * (win[0, 0, 0] + win[0, 0, 1])),
        "se": float(boot.std(ddof=1)) if len(boot) > 1 else math.nan,
        "low": float(lo), "high": float(hi), "n_boot": len(boot),
        "expected_deals": float(0.5 * (left[0, 0, 0] + left[0, 0, 1])),
        "table": table(0.5 * (win[:, :, 0] + win[:, :, 1])),
        "table_a_declares": table(win[:, :, 0]), "table_b_declares": table(win[:, :, 1]),
        "row_probs": pd.DataFrame([pa, pb], index=[f"{policy_a} declares", f"{policy_b} declares"],
                                  columns=[row_label(r) for r in range(n_rows)]),
        "n_declared": {"a": int(ca.sum()), "b": int(cb.sum())},
    }


def round_robin(comparisons: list[dict], confidence: float = 0.95) -> pd.DataFrame:
    """Rank policies by their mean paired advantage over the others they met.

    ``comparisons`` are paired_comparison results (with ``policy_a``,
    ``policy_b``, ``mean``, ``se``).  A policy's score is the average of its
    signed effects against each opponent; its interval combines the
    comparisons' standard errors (they come from separate deal sets, so they
    add as independent).  Meant for tournaments of three or more policies.
    """
    rows: dict[str, list[tuple[float, float]]] = {}
    for c in comparisons:
        rows.setdefault(c["policy_a"], []).append((c["mean"], c["se"]))
        rows.setdefault(c["policy_b"], []).append((-c["mean"], c["se"]))
    z = st.norm.ppf(0.5 + confidence / 2)
    out = []
    for pol, effects in rows.items():
        means = np.array([m for m, _ in effects])
        ses = np.array([s for _, s in effects])
        k = len(effects)
        score = means.mean()
        half = z * np.sqrt((ses ** 2).sum()) / k
        out.append({"policy": pol, "opponents": k, "mean_advantage": score, "low": score - half,
                    "high": score + half, "wins": int((means - z * ses > 0).sum()),
                    "losses": int((means + z * ses < 0).sum())})
    return pd.DataFrame(out).sort_values("mean_advantage", ascending=False).reset_index(drop=True)
