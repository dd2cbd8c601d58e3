"""Deals per second of the pure-Python reference deal player against the compiled kernel.

Run: python benchmarks/bench_reference.py [--deals 200] [--kernel-deals 20000] [--repeats 5]

Both play basic vs basic in fixed-levels mode on one core: the kernel through
``engine.run_chunk`` (no event log), the reference through
``tests/reference_deal.ReferencePlayer`` (the same deals, with the compiled
strategies).  Prints JSON: the median rate of each over ``--repeats`` runs
(after a warm-up) and their ratio.  The machines are shared and noisy:
compare the ratio, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")


def kernel_rate(n: int, repeats: int, seed: int) -> list[float]:
    from tractor_sim.runs.engine import ChunkSpec, run_chunk
    from tractor_sim.rules.options import Rules

    rules = Rules().to_dict()

    def spec(first, count):
        return ChunkSpec("bench", ("basic", "basic"), ("basic", "basic"), 0, "fixed", first, count, seed, rules)

    run_chunk(spec(0, 10))  # warm: compile or load from the cache
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        run_chunk(spec(r * n, n))
        rates.append(n / (time.perf_counter() - t))
    return rates


def reference_rate(n: int, repeats: int, seed: int) -> list[float]:
    from tests.reference_deal import ReferencePlayer

    player = ReferencePlayer(("basic", "basic"))
    player.play_fixed(seed, 0, 2)  # warm
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        player.play_fixed(seed, r * n, n)
        rates.append(n / (time.perf_counter() - t))
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=200, help="deals per reference run")
    ap.add_argument("--kernel-deals", type=int, default=20_000, help="deals per kernel run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    k = kernel_rate(args.kernel_deals, args.repeats, args.seed)
    r = reference_rate(args.deals, args.repeats, args.seed)
    kernel, reference = statistics.median(k), statistics.median(r)
    print(json.dumps({
        "policies": "basic vs basic, fixed levels, standard rules",
        "repeats": args.repeats,
        "kernel_deals_per_s": round(kernel),
        "reference_deals_per_s": round(reference, 1),
        "kernel_over_reference": round(kernel / reference, 1),
        "kernel_runs": [round(x) for x in k],
        "reference_runs": [round(x, 1) for x in r],
    }, indent=2))


if __name__ == "__main__":
    main()
