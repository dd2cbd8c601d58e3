"""The search player's speed and strength against its budget (docs/search.md, "The search player").

Run: python benchmarks/bench_search.py [--kind oracle|search] [--base expert] [--opponent expert]
                                       [--worlds 1,4,16,32] [--rollouts 1] [--pairs 200] [--seed 0]
                                       [--out docs/figures/search_budget.png]

For each budget, KIND:BASE:W:R plays OPPONENT on PAIRS duplicate deal pairs
(fixed levels, as ``compare``); prints per budget: its advantage in levels
per deal (95% interval from the pair scores), the time per searched
decision, deals per second, rollouts per second (wall and CPU: the machine
may be shared), and writes the strength-by-budget figure.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tractor_sim.runs import engine

from tractor_sim.stats import summary as stats


def measure(kind, base, opponent, worlds, rollouts, pairs, seed, chunk_size=25):
    name = f"{kind}:{base}:{worlds}:{rollouts}"
    a = {"policy": kind, "base": base, "worlds": worlds, "rollouts": rollouts, "name": name}
    b = {"policy": opponent, "name": opponent if opponent != base else f"{opponent} "}
    specs = engine.plan_chunks([{"name": "budget", "a": a, "b": b}], n=pairs, seed=seed, chunk_size=chunk_size)
    wall, cpu = time.perf_counter(), time.process_time()
    results = [engine.run_chunk(s) for s in specs]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    deals, _ = engine.to_frames(results)
    cmp = stats.paired_comparison(deals, name, b["name"])
    decisions = sum(r.extra.get("decisions", 0) for r in results)
    rolls = sum(r.extra.get("rollouts", 0) for r in results)
    return {"budget": name, "worlds": worlds, "rollouts": rollouts, "pairs": int(cmp["n_pairs"]),
            "advantage": cmp["mean"], "low": cmp["low"], "high": cmp["high"], "decisions": decisions,
            "ms_per_decision": 1000 * wall / max(1, decisions), "deals_per_s": len(deals) / wall,
            "rollouts_per_s": rolls / wall, "rollouts_per_cpu_s": rolls / cpu, "wall_s": wall, "cpu_s": cpu}


def plot(rows, path, title):
    from tractor_sim.report.plots import _figure, _save

    fig = _figure(6.5, 4.0)
    ax = fig.add_subplot()
    w = np.array([r["worlds"] for r in rows], float)
    m = np.array([r["advantage"] for r in rows])
    err = np.vstack([m - np.array([r["low"] for r in rows]), np.array([r["high"] for r in rows]) - m])
    ax.errorbar(w, m, yerr=err, fmt="o-", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("worlds per decision (1 rollout each)")
    ax.set_ylabel("advantage, levels per deal (95% CI)")
    ax.set_title(title)
    return _save(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", default="oracle", choices=("oracle", "search"))
    ap.add_argument("--base", default="expert")
    ap.add_argument("--opponent", default="expert")
    ap.add_argument("--worlds", default="1,4,16,32")
    ap.add_argument("--rollouts", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="Write the strength-by-budget figure here.")
    args = ap.parse_args()
    rows = []
    for w in (int(x) for x in args.worlds.split(",")):
        r = measure(args.kind, args.base, args.opponent, w, args.rollouts, args.pairs, args.seed)
        rows.append(r)
        print(f"| {r['budget']} | {r['pairs']} | {r['advantage']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] | "
              f"{r['ms_per_decision']:.2f} | {r['deals_per_s']:.1f} | {r['rollouts_per_s']:,.0f} | "
              f"{r['rollouts_per_cpu_s']:,.0f} |", flush=True)
    if args.out:
        print("figure:", plot(rows, args.out, f"{args.kind}:{args.base} against {args.opponent}"))


if __name__ == "__main__":
    main()
