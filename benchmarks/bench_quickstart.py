"""A/B wall time of the warm quick start of two checkouts, alternating runs.

Run: python benchmarks/bench_quickstart.py /path/to/checkout_a /path/to/checkout_b [--rounds 5]

Each round runs `tractor-sim run experiments/quickstart.toml` once per checkout (the order
alternates from round to round) into a new output directory, with PYTHONPATH set to the checkout,
after one warm-up run each (its Numba cache next to the sources).  Prints every run's wall (and CPU)
seconds, the medians and their ratio A/B, and the median of the round-by-round ratios (steadier when
other jobs load the machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(checkout: str, out: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one quick start."""
    env = {**os.environ, "PYTHONPATH": checkout}
    t, c = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, "-m", "tractor_sim.cli", "run", "experiments/quickstart.toml", "--out", out],
                   cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, _cpu() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    runs = {"a": [], "b": []}
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("a", "b"):
            run(getattr(args, side), os.path.join(tmp, f"warm-{side}"))
        for r in range(args.rounds):
            for side in (("a", "b") if r % 2 == 0 else ("b", "a")):
                runs[side].append(run(getattr(args, side), os.path.join(tmp, f"{side}{r}")))
            print(f"round {r + 1}: " + ", ".join(f"{side} {runs[side][-1][0]:.2f} s wall, {runs[side][-1][1]:.2f} s CPU"
                                                  for side in "ab"), flush=True)
    for i, kind in enumerate(("wall", "CPU")):
        a, b = ([x[i] for x in runs[side]] for side in "ab")
        print(f"median {kind}: a {statistics.median(a):.2f} s, b {statistics.median(b):.2f} s, "
              f"a/b {statistics.median(a) / statistics.median(b):.3f}; "
              f"paired median a/b {statistics.median(x / y for x, y in zip(a, b)):.3f}")


if __name__ == "__main__":
    main()
