"""A/B speed of two checkouts: deals/s of policies against themselves, alternating runs.

Run: python benchmarks/ab.py /path/to/checkout_a /path/to/checkout_b [--rounds 5] [--deals 20000]

Each round runs one child process per checkout (the order alternates from
round to round), each child timing every policy on the same deals after a
warm-up, with PYTHONPATH set to its checkout (and its own numba cache next to
the sources).  Prints the median deals per CPU second and per wall second of
each checkout and the ratio A/B of the medians, and the median of the
round-by-round ratios (steadier when the machine's speed drifts).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
try:  # the layout by role (tractor_sim/runs, tractor_sim/rules/options.py)
    from tractor_sim.runs.engine import ChunkSpec, run_chunk
    from tractor_sim.rules.options import Rules
except ImportError:  # a checkout from before it
    from tractor_sim.engine import ChunkSpec, run_chunk
    from tractor_sim.rules import Rules
n, policies = int(sys.argv[1]), sys.argv[2].split(",")
rules = Rules().to_dict()
out = {}
for pol in policies:
    spec = lambda first, count: ChunkSpec("bench", (pol, pol), (pol, pol), 0, "fixed", first, count, 1, rules)
    run_chunk(spec(0, 10))
    t, c = time.perf_counter(), time.process_time()
    run_chunk(spec(1000, n))
    out[pol] = (n / (time.perf_counter() - t), n / (time.process_time() - c))
print(json.dumps(out))
"""


def run(checkout: str, n: int, policies: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": checkout}
    res = subprocess.run([sys.executable, "-c", CHILD, str(n), ",".join(policies)], capture_output=True, text=True,
                         env=env, check=True, cwd=checkout)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--policies", default="basic,expert,random")
    args = ap.parse_args()
    pols = args.policies.split(",")
    runs = {"a": [], "b": []}
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for side in order:
            runs[side].append(run(getattr(args, side), args.deals, pols))
        print(f"round {r + 1}: " + "  ".join(
            f"{p} a/b {runs['a'][-1][p][1] / runs['b'][-1][p][1]:.3f}" for p in pols), flush=True)
    report = {}
    for p in pols:
        cpu_a = [x[p][1] for x in runs["a"]]
        cpu_b = [x[p][1] for x in runs["b"]]
        wall_a = [x[p][0] for x in runs["a"]]
        wall_b = [x[p][0] for x in runs["b"]]
        report[p] = {
            "a_deals_per_cpu_s": round(statistics.median(cpu_a)),
            "b_deals_per_cpu_s": round(statistics.median(cpu_b)),
            "ratio_cpu_medians": round(statistics.median(cpu_a) / statistics.median(cpu_b), 3),
            "ratio_cpu_paired_median": round(statistics.median(a / b for a, b in zip(cpu_a, cpu_b)), 3),
            "ratio_wall_medians": round(statistics.median(wall_a) / statistics.median(wall_b), 3),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
