"""The report of a Finding Friends run (docs/rules.md section 9, decisions.md 9.11): a level per player.

How policies sit (docs/decisions.md, "Finding Friends in runs"): policy A of
a matchup at the even seats (0, 2, 4 ..) and B at the odd seats in half 0,
swapped in half 1, as in a tractor game; the sides of a deal are found
during play and mix the two.  A policy's figure in a deal is the mean level
change of the players sitting for it (levels per player and deal); the
duplicate comparison is A's figure minus B's, averaged over the two halves of
a deal (or match) played with the same cards: with an odd number of players
A holds one seat more in half 0 and B in half 1.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

from tractor_sim.report.numbers import interval
from tractor_sim.stats import summary as stats


def columns(players: int, calls: int) -> list[str]:
    """The deal columns this report reads."""
    return (["matchup", "policy0", "policy1", "half", "deal_id", "match_id", "starter", "landlord_won",
             "opp_points", "team"]
            + [f"level{s}_{w}" for s in range(players) for w in ("before", "after")]
            + [f"call{j}_joins" for j in range(calls)])


def _changes(deals: pd.DataFrame, players: int) -> np.ndarray:
    """Level change of every seat in every deal (deals x players)."""
    return np.stack([deals[f"level{s}_after"].to_numpy(np.int64) - deals[f"level{s}_before"].to_numpy(np.int64)
                     for s in range(players)], axis=1)


def _sits_even(deals: pd.DataFrame, policy: str) -> np.ndarray:
    """Per deal: whether ``policy`` holds the even seats (it is policy0 of the deal's half)."""
    return deals["policy0"].astype(str).to_numpy() == policy


def per_player_change(deals: pd.DataFrame, players: int, policy: str) -> np.ndarray:
    """Per deal: the mean level change of the players sitting for ``policy``."""
    ch = _changes(deals, players)
    even = np.arange(players) % 2 == 0
    mine = np.where(_sits_even(deals, policy)[:, None], even[None, :], ~even[None, :])
    return (ch * mine).sum(axis=1) / mine.sum(axis=1)


def policy_table(deals: pd.DataFrame, matches: pd.DataFrame | None, players: int, calls: int) -> pd.DataFrame:
    """A row per matchup and policy: levels per player and deal, and the deals its player was landlord."""
    rows = []
    for m, d in deals.groupby("matchup", sort=False, observed=True):
        names = sorted({str(p) for c in ("policy0", "policy1") for p in pd.unique(d[c])})
        mm = None if matches is None else matches[matches["matchup"].astype(str) == str(m)]
        for pol in names:
            change = per_player_change(d, players, pol)
            even = _sits_even(d, pol)
            landlord = ((d["starter"].to_numpy() % 2 == 0) == even)
            ld = d[landlord]
            mean, low, high = stats.mean_ci(change)
            won = int(ld["landlord_won"].sum())
            wl, wh = stats.wilson_interval(won, len(ld))
            joins = sum(ld[f"call{j}_joins"].to_numpy().sum() for j in range(calls))
            row = {"matchup": str(m), "policy": pol, "deals": len(d), "level_change": mean,
                   "level_change_low": low, "level_change_high": high, "landlord_deals": len(ld),
                   "landlord_team_won": won / len(ld) if len(ld) else math.nan, "won_low": wl, "won_high": wh,
                   "opp_points_as_landlord": float(ld["opp_points"].mean()) if len(ld) else math.nan,
                   "friends_found": joins / (calls * len(ld)) if len(ld) else math.nan}
            if mm is not None and len(mm):
                wins = 0
                for _, rec in mm.iterrows():
                    seats = [s for s in range(players) if int(rec["winners"]) >> s & 1]
                    pol_even = str(rec["policy0"]) == pol
                    wins += any((s % 2 == 0) == pol_even for s in seats)
                row["matches"] = len(mm)
                row["matches_won"] = wins
            rows.append(row)
    return pd.DataFrame(rows)


def paired(deals: pd.DataFrame, players: int, a: str, b: str) -> dict:
    """The duplicate comparison of A and B: per deal (or match) pair, A's levels per player minus B's,
    summed over the pair's deals and divided by them (``scores``, their ``sd``); mean, 95% t interval
    over pairs, p-value."""
    match_mode = bool((deals["match_id"].to_numpy() >= 0).all())
    key = "match_id" if match_mode else "deal_id"
    diff = per_player_change(deals, players, a) - per_player_change(deals, players, b)
    frame = pd.DataFrame({"matchup": deals["matchup"].astype(str).to_numpy(), "key": deals[key].to_numpy(),
                          "half": deals["half"].to_numpy(), "diff": diff})
    halves = frame.groupby(["matchup", "key"], sort=False)["half"].transform("nunique")
    frame = frame[halves.to_numpy() == 2]
    g = frame.groupby(["matchup", "key"], sort=False).agg(total=("diff", "sum"), deals=("diff", "size"))
    n = len(g)
    scores = (g["total"] / g["deals"]).rename("score")
    out = {"policy_a": a, "policy_b": b, "unit": "match" if match_mode else "deal", "n_pairs": n,
           "deals": int(g["deals"].sum()), "scores": scores,
           "sd": float(scores.std(ddof=1)) if n > 1 else math.nan}
    if n < 2:
        return {**out, "mean": math.nan, "low": math.nan, "high": math.nan, "p_value": math.nan}
    tot, dl = g["total"].to_numpy(float), g["deals"].to_numpy(float)
    mean = tot.sum() / dl.sum()
    se = math.sqrt(((tot - mean * dl) ** 2).sum() * n / (n - 1)) / dl.sum()
    tq = dist.t_ppf(0.975, n - 1)
    p = float(2 * dist.t_sf(abs(mean) / se, n - 1)) if se > 0 else (0.0 if mean else 1.0)
    return {**out, "mean": mean, "low": mean - tq * se, "high": mean + tq * se, "p_value": p}


def blocks(deals: pd.DataFrame, matches: pd.DataFrame | None, players: int, calls: int) -> tuple[list, pd.DataFrame]:
    """(report blocks, the summary table) of a Finding Friends run."""
    table = policy_table(deals, matches, players, calls)
    b: list[tuple] = [("h", 2, "Finding Friends: levels per player and deal")]
    b += [("p", "Every player has his own level. Policy A of a matchup sits at the even seats (0, 2, ..) and B at "
                "the odd seats in half 0, swapped in half 1; the landlord's team is found during play and mixes "
                "them. A policy's figure in a deal is the mean level change of the players sitting for it "
                "(levels per player and deal; its interval in the table treats the deals as independent); the duplicate comparison, clustered by pair, is A's figure minus B's over the two "
                "halves of a deal (or match) played with the same cards (docs/decisions.md, \"Finding Friends in "
                "runs\").")]
    headline = []
    for m, d in deals.groupby("matchup", sort=False, observed=True):
        names = [str(d["policy0"].iloc[int(np.argmax(d["half"].to_numpy() == 0))])]
        names += sorted({str(p) for c in ("policy0", "policy1") for p in pd.unique(d[c])} - set(names))
        if len(names) != 2:
            continue
        r = paired(d, players, *names)
        if not math.isnan(r["mean"]):
            headline.append(f"{m}: {names[0]} minus {names[1]}, {r['mean']:+.3f} levels per player and deal "
                            f"(95% CI {r['low']:+.3f} to {r['high']:+.3f}, {r['n_pairs']:,} {r['unit']} pairs, "
                            f"p = {r['p_value']:.3f})")
    if headline:
        b += [("list", headline)]
    shown = pd.DataFrame({
        "matchup": table["matchup"], "policy": table["policy"], "deals": table["deals"],
        "levels per player / deal [95% CI]": [interval(*v) for v in zip(
            table["level_change"], table["level_change_low"], table["level_change_high"])],
        "deals as landlord": table["landlord_deals"],
        "landlord's team won [95% CI]": [interval(*v) for v in zip(
            table["landlord_team_won"], table["won_low"], table["won_high"])],
        "opponents' points as landlord (mean, descriptive)": table["opp_points_as_landlord"].map(lambda v: f"{v:.1f}"),
        "calls that found a friend (share, descriptive)": table["friends_found"].map(lambda v: f"{v:.3f}"),
    })
    if "matches" in table:
        shown["matches won (a player of it passed the end)"] = [
            f"{int(w)} of {int(n)}" for w, n in zip(table["matches_won"], table["matches"])]
    b += [("table", shown)]
    return b, table
