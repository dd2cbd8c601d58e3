"""Deals and matches per second on one core, compile times, and peak memory.

Run: python benchmarks/bench_deals.py [--deals 50000] [--repeats 5] [--big 10000000]

Reports medians of several runs after a warm-up (the machines are shared and
noisy: compare ratios measured in one run, not absolute figures across runs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _child_seconds(code: str, env_extra: dict | None = None) -> float:
    env = {**os.environ, **(env_extra or {})}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def compile_times() -> dict:
    """Cold: an empty numba cache; warm: a second process that hits the cache.  The child is
    bench_compile.py's (which also breaks the cold start down by function)."""
    import shutil
    import tempfile

    from bench_compile import first_result

    cache = tempfile.mkdtemp(prefix="tractor-numba-cache-")
    try:
        cold = first_result(cache)
        warm = first_result(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {"cold_start_to_first_result_cpu_s": round(cold[0], 2),
            "cold_start_to_first_result_wall_s": round(cold[1], 2),
            "warm_start_to_first_result_cpu_s": round(warm[0], 2),
            "warm_start_to_first_result_wall_s": round(warm[1], 2)}


def rate(policy: str, n: int, repeats: int, mode: str = "fixed") -> tuple[float, float]:
    """Median deals (or matches) per second for one policy against itself: by wall clock, and by
    the process's CPU time (steadier on a shared machine)."""
    from tractor_sim.runs.engine import ChunkSpec, run_chunk
    from tractor_sim.rules.options import Rules

    rules = Rules().to_dict()

    def spec(first, count):
        return ChunkSpec("bench", (policy, policy), (policy, policy), 0, mode, first, count, 1, rules)

    run_chunk(spec(0, 10))  # warm: compile or load from cache
    wall, cpu = [], []
    for r in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        res = run_chunk(spec(r * n, n))
        done = n if mode == "fixed" else len(res.matches)
        wall.append(done / (time.perf_counter() - t))
        cpu.append(done / (time.process_time() - c))
    return statistics.median(wall), statistics.median(cpu)


def reference_rate(n: int) -> float:
    """Deals per second of the pure-Python rules (kernels run as Python, no JIT), basic vs basic."""
    code = f"""
import time
from tractor_sim.runs.engine import ChunkSpec, run_chunk
from tractor_sim.rules.options import Rules
s = ChunkSpec("bench", ("basic", "basic"), ("basic", "basic"), 0, "fixed", 0, {n}, 1, Rules().to_dict())
t = time.perf_counter(); run_chunk(s); print({n} / (time.perf_counter() - t))
"""
    return _child_seconds(code, {"NUMBA_DISABLE_JIT": "1"})


def peak_memory(n_deals: int, chunk: int) -> dict:
    """Peak RSS of a run of n_deals through the engine, results streamed per chunk."""
    code = f"""
import resource, time
from tractor_sim.runs.engine import plan_chunks
from tractor_sim.runs.runner import iter_results
specs = plan_chunks([("basic", "basic")], n={n_deals}, seed=3, duplicate=False, chunk_size={chunk})
t = time.perf_counter(); total = 0
for r in iter_results(specs):
    total += len(r.deals)
print(total, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    total, secs, mb = out.stdout.split()
    return {"deals": int(total), "seconds": round(float(secs), 1), "peak_rss_mb": round(float(mb), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-deals", type=int, default=20)
    ap.add_argument("--big", type=int, default=0, help="also measure peak memory for this many deals")
    ap.add_argument("--skip-compile", action="store_true")
    args = ap.parse_args()
    out = {}
    if not args.skip_compile:
        out.update(compile_times())
    for pol in ("basic", "expert", "random"):
        wall, cpu = rate(pol, args.deals, args.repeats)
        out[f"{pol}_deals_per_s"] = round(wall)
        out[f"{pol}_deals_per_cpu_s"] = round(cpu)
    wall, cpu = rate("basic", args.matches, args.repeats, mode="match")
    out["basic_matches_per_s"] = round(wall, 1)
    out["basic_matches_per_cpu_s"] = round(cpu, 1)
    ref = reference_rate(args.reference_deals)
    out["reference_deals_per_s"] = round(ref, 2)
    out["kernel_over_reference"] = round(out["basic_deals_per_s"] / ref)
    if args.big:
        out["memory"] = peak_memory(args.big, 100_000)
    out["self_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
