"""Scaling of the backends: deals per second against worker count, start-up, and overhead per chunk.

Run: python benchmarks/bench_scaling.py [--deals 40000] [--chunk 2500] [--workers 1,2,4]
                                        [--backends local,dask] [--cold] [--json]

* Throughput: the same run (basic against random, fixed mode, one half) in
  this process, on a local process pool and on a Dask LocalCluster of 1, 2, 4
  single-threaded workers.  Start-up (spawning and warming the workers) is
  timed apart from the run; the run is timed from the first submit to the
  last result, the way the CLI sees it; the best of ``--repeats`` runs counts
  (other work on a shared machine only ever slows a run down).
* Overhead per chunk: the same deals cut into many small chunks and into a
  few big ones, on one worker; (t_small - t_big) / (chunks_small -
  chunks_big) is what a chunk costs beyond its deals (a kernel call, the
  pickling of the spec and records, a round trip).  Plus what the driver
  spends storing one chunk (records to DataFrame, two Parquet parts).
* Warm-up: a fresh process with the numba cache in place, to its first
  result; with ``--cold``, the same with an empty cache (compiling everything,
  about 80 s).

Honest note: this machine has 2 vCPUs shared with other work, and gives
about one core of real throughput (two busy processes each run at half
speed), so the table cannot show a speed-up.  What it shows is the cost of
each backend: start-up, per-chunk overhead, and no loss of throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST_RESULT = """
import time
t = time.perf_counter()
from tractor_sim.runs.backends import warm_up
warm_up()
print(time.perf_counter() - t)
"""


def _specs(n, chunk):
    from tractor_sim.runs.engine import plan_chunks

    return plan_chunks([("basic", "random")], n=n, seed=1, chunk_size=chunk, duplicate=False)


def _drain(specs, executor) -> tuple[float, int]:
    from tractor_sim.runs.runner import iter_results

    t = time.perf_counter()
    n = sum(len(r.deals) for r in iter_results(specs, executor))
    return time.perf_counter() - t, n


def _start_pool(workers):
    """A ProcessPoolBackend with every worker spawned and warmed; returns (backend, seconds)."""
    from tractor_sim.runs.backends import ProcessPoolBackend

    t = time.perf_counter()
    be = ProcessPoolBackend(workers, _specs(1, 1)[0])
    pids = set()
    while len(pids) < workers:  # each submit spawns a worker while none is idle; the initializer warms it
        pids |= set(f.result() for f in [be.executor.submit(os.getpid) for _ in range(workers)])
    return be, time.perf_counter() - t


def _start_dask(workers):
    from tractor_sim.runs.backends.dask_backend import DaskBackend

    t = time.perf_counter()
    be = DaskBackend.start(workers=workers, warm_spec=_specs(1, 1)[0])
    return be, time.perf_counter() - t


def _best(specs, executor, repeats) -> tuple[float, int]:
    return min(_drain(specs, executor) for _ in range(repeats))


def throughput(backends, workers_list, n, chunk, repeats=2) -> list[dict]:
    from tractor_sim.runs.backends import warm_up

    specs = _specs(n, chunk)
    warm_up(specs[0])
    rows = []
    secs, deals = _best(specs, None, repeats)
    base = deals / secs
    rows.append({"backend": "in-process", "workers": 1, "start_s": 0.0, "deals_per_s": base, "speedup": 1.0})
    for backend in backends:
        for w in workers_list:
            if backend == "local":
                be, start = _start_pool(w)
            else:
                be, start = _start_dask(w)
            try:
                secs, deals = _best(specs, be, repeats)
            finally:
                be.close()
            assert deals == n
            rows.append({"backend": backend, "workers": w, "start_s": start, "deals_per_s": deals / secs,
                         "speedup": deals / secs / base})
    return rows


def chunk_overhead(backends, n_small_chunks=200, small=10, big=1000) -> list[dict]:
    """Seconds per chunk beyond its deals, on one worker of each backend."""
    total = n_small_chunks * small
    many, few = _specs(total, small), _specs(total, big)
    rows = []
    runs = [("in-process", None)]
    opened = []
    if "local" in backends:
        be, _ = _start_pool(1)
        opened.append(be)
        runs.append(("local", be))
    if "dask" in backends:
        be, _ = _start_dask(1)
        opened.append(be)
        runs.append(("dask", be))
    try:
        for name, be in runs:
            _drain(few, be)  # warm
            t_many = min(_drain(many, be)[0] for _ in range(2))
            t_few = min(_drain(few, be)[0] for _ in range(2))
            per = (t_many - t_few) / (len(many) - len(few))
            rows.append({"backend": name, "chunks": f"{len(many)}x{small} vs {len(few)}x{big}",
                         "overhead_ms_per_chunk": per * 1e3, "deals_per_s_big_chunks": total / t_few})
    finally:
        for be in opened:
            be.close()
    return rows


def store_cost(chunk=10_000, repeats=5) -> dict:
    """What the driver spends per chunk to store it (records -> DataFrame -> two Parquet parts)."""
    from tractor_sim.runs.engine import run_chunk
    from tractor_sim.runs.store import RunStore

    spec = _specs(chunk, chunk)[0]
    result = run_chunk(spec)
    with tempfile.TemporaryDirectory() as d:
        store = RunStore(Path(d) / "run", {"name": "bench", "seed": 1}, "bench")
        store.open()
        index = {spec.matchup: 0}
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            store.write(result, index)
            times.append(time.perf_counter() - t)
    return {"deals_per_chunk": chunk, "store_write_ms": min(times) * 1e3}


def first_result(cold: bool) -> dict:
    """A fresh process to its first result: with the numba cache as it is, and (cold) with an empty one."""
    out = {}
    env = dict(os.environ)
    t = subprocess.run([sys.executable, "-c", FIRST_RESULT], capture_output=True, text=True, env=env, check=True)
    out["warm_cache_process_to_first_result_s"] = float(t.stdout.split()[-1])
    if cold:
        cache = tempfile.mkdtemp(prefix="tractor-numba-cache-")
        try:
            env["NUMBA_CACHE_DIR"] = cache
            t = subprocess.run([sys.executable, "-c", FIRST_RESULT], capture_output=True, text=True, env=env,
                               check=True)
            out["cold_cache_process_to_first_result_s"] = float(t.stdout.split()[-1])
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=40_000, help="deals per throughput measurement")
    ap.add_argument("--chunk", type=int, default=2_500, help="deals per chunk for throughput")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--repeats", type=int, default=2, help="runs per measurement; the best counts (shared machine)")
    ap.add_argument("--backends", default="local,dask")
    ap.add_argument("--cold", action="store_true", help="also time a start with an empty numba cache (~80 s)")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    if "dask" in backends:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("dask[distributed] is not installed: measuring local only (pip install 'tractor-sim[dask]')")
            backends.remove("dask")
    workers_list = [int(w) for w in args.workers.split(",")]

    print(f"machine: {os.cpu_count()} CPUs reported, {len(os.sched_getaffinity(0))} usable; "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = throughput(backends, workers_list, args.deals, args.chunk, args.repeats)
    print(f"\nThroughput: basic vs random, {args.deals} deals in chunks of {args.chunk}, best of {args.repeats}")
    print(f"{'backend':<11} {'workers':>7} {'start s':>8} {'deals/s':>9} {'vs in-process':>14}")
    for r in rows:
        print(f"{r['backend']:<11} {r['workers']:>7} {r['start_s']:>8.2f} {r['deals_per_s']:>9,.0f} "
              f"{r['speedup']:>13.2f}x")
    over = chunk_overhead(backends)
    print("\nOverhead per chunk (one worker; the same deals in many small or a few big chunks)")
    print(f"{'backend':<11} {'chunks':>18} {'ms/chunk':>9} {'deals/s (big)':>14}")
    for r in over:
        print(f"{r['backend']:<11} {r['chunks']:>18} {r['overhead_ms_per_chunk']:>9.2f} "
              f"{r['deals_per_s_big_chunks']:>14,.0f}")
    store = [store_cost(c) for c in (1_000, 10_000, 50_000)]
    print("\nDriver, storing one chunk (records -> DataFrame -> Parquet parts): "
          + ", ".join(f"{x['deals_per_chunk']} deals {x['store_write_ms']:.1f} ms" for x in store))
    per_deal = (store[2]["store_write_ms"] - store[0]["store_write_ms"]) / 49_000
    print(f"  about {store[0]['store_write_ms'] - 1000 * per_deal:.1f} ms a chunk + {per_deal * 1e3:.2f} us a deal: "
          f"one driver stores at most ~{10_000 / (store[1]['store_write_ms'] / 1e3):,.0f} deals/s "
          "in chunks of 10000")
    warm = first_result(args.cold)
    print("\nWarm-up: a fresh process to its first result")
    for k, v in warm.items():
        print(f"  {k}: {v:.2f} s")
    print("\nNote: this machine gives about one core of real throughput (2 vCPUs, shared), so more workers "
          "cannot run faster here;\nthe numbers above are the cost of each backend, not its speed-up.")
    if args.json:
        print(json.dumps({"throughput": rows, "overhead": over, "store": store, "warm_up": warm}, indent=2))


if __name__ == "__main__":
    main()
