"""What inference from the plays adds: ``search:expert:W`` with infer = "base" against the same search with
uniform worlds (infer = "none"), head to head on duplicate deals, and the cost per searched decision of each.

Run: PYTHONPATH=. python benchmarks/bench_infer.py [--deals 300] [--worlds 16] [--seed 1] [--out infer.jsonl] [--timing 10]
                                      [--against expert]
     python benchmarks/bench_infer.py --summary infer.jsonl   (the figures from the chunks played so far)

Both sides play every deal in both seats (duplicate): per deal id, the levels the inferring side gains minus
those its opponent gains, averaged over the two halves, is one observation; the mean per deal and its 95%
interval (t over deal ids) are printed.  With ``--against expert`` each side meets expert instead (where
the model, expert, is the opponents' true policy), and a deal's observation is the difference of the
two sides' levels against it.  Chunks are appended to ``--out`` as they finish (a long run can
be summarised at any time).  The cost: each search against ``expert`` on the same deals, the time of
the run minus the time of expert against expert, per searched decision.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy import stats

from benchmarks.bench_search_decisions import search_cost
from tractor_sim.runs import engine as E


def levels_for_team(deals, team: int) -> np.ndarray:
    """Levels gained by ``team`` minus levels gained by the other team, per deal (fixed levels)."""
    gain, gainer = deals["gain"].astype(np.int64), deals["gain_team"].astype(np.int64)
    return np.where(gainer == team, gain, np.where(gainer == 1 - team, -gain, 0))


def policy(worlds: int, infer: str) -> dict:
    return {"policy": "search", "base": "expert", "worlds": worlds, "infer": infer}


def cost(pol: dict, deals: int, seed: int) -> tuple[int, int, float]:
    """(decisions searched, worlds weighed, microseconds per searched decision) of ``pol`` against expert."""
    result, seconds = search_cost(pol, deals, seed)
    return result.extra.get("decisions", 0), result.extra.get("weighed", 0), 1e6 * seconds


def summary(path: str) -> str:
    """Head to head: per deal, the inferring side's levels over the other's (mean of the two halves).
    Against an opponent (rows with a ``side``): per deal, the inferring side's levels against it minus
    the uniform side's, each the mean of its two halves."""
    per: dict[tuple, list] = {}
    seconds = 0.0
    against = ""
    for line in open(path):
        row = json.loads(line)
        if "deal_ids" not in row:
            continue
        seconds += row["seconds"]
        against = row.get("against", "")
        for ident, levels in zip(row["deal_ids"], row["levels"]):
            per.setdefault((ident, row.get("side", "a")), []).append(levels)
    if against:
        both = np.array([np.mean(per[(i, "a")]) - np.mean(per[(i, "b")]) for (i, side) in per
                         if side == "a" and len(per[(i, "a")]) == 2 and len(per.get((i, "b"), [])) == 2])
        what = f"infer=base minus infer=none, each against {against}"
    else:
        both = np.array([np.mean(v) for v in per.values() if len(v) == 2])  # deals played in both halves
        what = "infer=base over infer=none, head to head"
    n = len(both)
    if n < 2:
        return f"{n} duplicate deals so far"
    mean = both.mean()
    half = stats.t.ppf(0.975, n - 1) * both.std(ddof=1) / np.sqrt(n)
    return (f"{what}: {mean:+.4f} levels per deal, 95% CI [{mean - half:+.4f}, "
            f"{mean + half:+.4f}] on {n} duplicate deals ({seconds:.0f} s of play)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=5)
    ap.add_argument("--timing", type=int, default=10, help="deals for the cost per decision (0: skip)")
    ap.add_argument("--out", default="infer.jsonl")
    ap.add_argument("--summary", default=None, help="print the figures of a file written by a run, and stop")
    ap.add_argument("--against", default="", help="a policy each side meets on the same deals (default: head to "
                                                  "head)")
    args = ap.parse_args()
    if args.summary:
        print(summary(args.summary))
        return
    a, b = policy(args.worlds, "base"), policy(args.worlds, "none")
    if args.timing:
        for pol in (b, a):
            n, weighed, us = cost(pol, args.timing, args.seed + 1)
            line = (f"infer={pol['infer']:5s} {n:5d} decisions searched, {weighed:7d} worlds weighed, "
                    f"{us:9.0f} us per searched decision ({args.worlds} worlds, {args.timing} deals vs expert)")
            print(line, flush=True)
            with open(args.out, "a") as f:
                f.write(json.dumps({"timing": line}) + "\n")
    if args.against:  # each side against the same opponent on the same deals
        sides = {"a": E.plan_chunks([(a, args.against)], n=args.deals, seed=args.seed, chunk_size=args.chunk),
                 "b": E.plan_chunks([(b, args.against)], n=args.deals, seed=args.seed, chunk_size=args.chunk)}
        specs = [(side, s) for side, ss in sides.items() for s in ss]
    else:
        specs = [("a", s) for s in E.plan_chunks([(a, b)], n=args.deals, seed=args.seed, chunk_size=args.chunk)]
    specs.sort(key=lambda x: (x[1].first_id, x[1].half, x[0]))  # a deal's chunks together: a cut run stays paired
    for side, spec in specs:
        t0 = time.perf_counter()
        r = E.run_chunk(spec)
        team_of_a = 0 if r.spec.half == 0 else 1
        row = {"half": r.spec.half, "side": side, "against": args.against,
               "deal_ids": r.deals["deal_id"].astype(int).tolist(),
               "levels": levels_for_team(r.deals, team_of_a).astype(int).tolist(),
               "seconds": time.perf_counter() - t0, "decisions": r.extra.get("decisions", 0),
               "weighed": r.extra.get("weighed", 0)}
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")
    print(summary(args.out))


if __name__ == "__main__":
    main()
