"""Compile time: cold and warm start, and where a cold start's compile time goes.

Run: python benchmarks/bench_compile.py [--top 25] [--skip-quickstart] [--size 6p3d] [--json FILE]

Each figure is a child process with its own NUMBA_CACHE_DIR (a new empty
directory for a cold start, the same one again for the warm start after it),
timed by its CPU time (the machines are shared: wall time is printed too, but
compare CPU) and by the wall clock:

- import: ``import tractor_sim.runs.engine`` (and the package), in the cold child;
- first basic result: from the start of the child to the rows of a first
  small chunk, ``basic`` against ``basic`` (engine.run_chunk, 10 deals), at 4 players and 2 decks
  or the game size of ``--size`` (its package copy and numba cache both empty: a new size);
- quick start: ``tractor-sim run experiments/quickstart.toml`` (what
  ``make demo`` runs), to its exit;
- warm: the same two again, the cache now filled.

The first basic result's figures come from children without the profiler
below (it costs time of its own: ``cold first basic result, profiled`` is the
same cold start with it); the breakdowns and the quick start's figures from
children with it.

The breakdown is per compiled function, from numba's event API
(``numba.core.event``, the ``numba:compile`` and ``numba:run_pass`` events)
with the LLVM stages timed around numba's CodeLibrary: CPU seconds
exclusive of the functions compiled inside it (a caller types its callees by
compiling them), split by compiler pass.  A function compiled for several
signatures is one row (``xN``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The child: a profiler installed before tractor_sim is imported, then the scenario.
PROBE = r'''
import json, os, sys, time
t0c, t0w = time.process_time(), time.perf_counter()
from collections import Counter
import numba.core.event as ev
from numba.core import codegen

pc = time.process_time
frames = []   # open compiles: [name, start, nested seconds, Counter(part -> seconds)]
passes = []   # open passes: [name, start, nested seconds]
rows = []


class Compiles(ev.Listener):
    def on_start(self, e):
        f = e.data["dispatcher"].py_func
        frames.append([f"{f.__module__}.{f.__qualname__}", pc(), 0.0, Counter()])
        passes.append(None)  # a compile boundary: passes below it belong to this compile

    def on_end(self, e):
        passes.pop()
        name, start, nested, parts = frames.pop()
        took = pc() - start
        rows.append((name, took, took - nested, dict(parts)))
        if frames:
            frames[-1][2] += took
        if passes and passes[-1] is not None:
            passes[-1][2] += took


class Passes(ev.Listener):
    def on_start(self, e):
        passes.append([e.data["name"].split(" [")[0], pc(), 0.0])

    def on_end(self, e):
        name, start, nested = passes.pop()
        if frames:
            frames[-1][3][name] += pc() - start - nested
        if passes and passes[-1] is not None:
            passes[-1][2] += pc() - start


def timed(method, part):
    plain = getattr(codegen.CPUCodeLibrary, method)

    def run(self, *a, **k):
        start = pc()
        try:
            return plain(self, *a, **k)
        finally:
            if frames:
                frames[-1][3][part] += pc() - start
    setattr(codegen.CPUCodeLibrary, method, run)


if not os.environ.get("BENCH_COMPILE_PLAIN"):  # the profiler costs time of its own
    ev.register("numba:compile", Compiles())
    ev.register("numba:run_pass", Passes())
marks = {}


def mark(what):
    marks[what] = (time.process_time() - t0c, time.perf_counter() - t0w)


def report():
    with open(os.environ["BENCH_COMPILE_OUT"], "w") as f:
        json.dump({"marks": marks, "rows": rows}, f)


scenario = sys.argv[1]
import tractor_sim.runs.engine as E  # noqa: E402
mark("import")
if not os.environ.get("BENCH_COMPILE_PLAIN"):  # timed as the package left them (it replaces one; importing compiles nothing)
    timed("_optimize_functions", "llvm: optimise functions")
    timed("_optimize_final_module", "llvm: optimise module")
    timed("_finalize_final_module", "llvm: machine code")
if scenario == "first":
    from tractor_sim.rules.options import Rules
    game = tuple(json.loads(sys.argv[2])) if len(sys.argv) > 2 else (4, 2, "tractor")
    E.run_chunk(E.ChunkSpec("bench", ("basic", "basic"), ("basic", "basic"), 0, "fixed", 0, 10, 1,
                            Rules().to_dict(), game=game))
    mark("first basic result")
    report()
else:
    from tractor_sim.cli import main
    sys.argv = ["tractor-sim", *sys.argv[2:]]
    try:
        main(prog_name="tractor-sim")
    except SystemExit as e:
        if e.code:
            raise
    finally:
        mark("quick start")
        report()
'''


def child(scenario: str, cache: str, args=(), profiled=True) -> dict:
    """Run the probe child; its marks, per-function rows (if ``profiled``), and its own CPU and
    wall seconds."""
    out = tempfile.mktemp(prefix="bench-compile-", suffix=".json")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "BENCH_COMPILE_OUT": out,
           "BENCH_COMPILE_PLAIN": "" if profiled else "1",
           "TRACTOR_SIM_CACHE": os.path.join(cache, "tractor-sim"),  # the size packages: as empty
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, scenario, *args], env=env, cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"the {scenario} child failed:\n{done.stderr[-3000:]}")
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out) as f:
        res = json.load(f)
    os.remove(out)
    res["process"] = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall)
    return res


def breakdown(rows, top: int) -> list[dict]:
    """Rows grouped by function, largest exclusive CPU first."""
    agg = defaultdict(lambda: {"n": 0, "exclusive": 0.0, "inclusive": 0.0, "parts": Counter()})
    for name, incl, excl, parts in rows:
        a = agg[name]
        a["n"] += 1
        a["exclusive"] += excl
        a["inclusive"] = max(a["inclusive"], incl)
        a["parts"].update(parts)
    out = []
    for name, a in sorted(agg.items(), key=lambda kv: -kv[1]["exclusive"])[:top]:
        llvm = sum(v for k, v in a["parts"].items() if k.startswith("llvm"))
        if "native_lowering" in a["parts"]:  # numba's lowering pass runs LLVM too: shown apart
            a["parts"]["native_lowering (numba IR to LLVM IR)"] = a["parts"].pop("native_lowering") - llvm
        parts = {k: round(v, 2) for k, v in a["parts"].most_common() if v >= 0.1}
        out.append({"function": name, "signatures": a["n"], "exclusive_cpu_s": round(a["exclusive"], 2),
                    "inclusive_cpu_s": round(a["inclusive"], 2), "parts": parts})
    return out


def by_part(rows) -> dict:
    """CPU seconds of all compiles by pass or LLVM stage (numba's lowering without the LLVM it runs)."""
    total = Counter()
    for _, _, _, parts in rows:
        total.update(parts)
    llvm = sum(v for k, v in total.items() if k.startswith("llvm"))
    total["native_lowering (numba IR to LLVM IR)"] = total.pop("native_lowering", 0.0) - llvm
    return {k: round(v, 1) for k, v in total.most_common(12)}


def first_result(cache: str) -> tuple[float, float, float, float]:
    """(CPU, wall) of a child to its first ``basic`` result, and of its import, with this cache
    directory (empty: cold; filled: warm).  bench_deals.py reports it too."""
    res = child("first", cache)
    imp, first = res["marks"]["import"], res["marks"]["first basic result"]
    return first[0], first[1], imp[0], imp[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--top", type=int, default=25, help="functions in the breakdown")
    ap.add_argument("--skip-quickstart", action="store_true")
    ap.add_argument("--json", help="also write everything here")
    ap.add_argument("--size", default="4p2d", help="the first result's game size, e.g. 6p3d, 5p2df (friends): "
                                                 "a new size from an empty cache")
    args = ap.parse_args()
    m = re.fullmatch(r"(\d)p(\d)d(f?)", args.size)
    if not m:
        sys.exit(f"--size: expected e.g. 4p2d, 6p3d or 5p2df, got {args.size!r}")
    game = [int(m[1]), int(m[2]), "friends" if m[3] else "tractor"]
    caches = [tempfile.mkdtemp(prefix="tractor-numba-cache-") for _ in range(3)]
    runs = tempfile.mkdtemp(prefix="tractor-runs-")
    out: dict = {"python": sys.executable, "checkout": str(ROOT)}
    try:
        cold = child("first", caches[0], [json.dumps(game)], profiled=False)
        warm = child("first", caches[0], [json.dumps(game)], profiled=False)
        profiled = child("first", caches[2], [json.dumps(game)])
        out["size"] = args.size
        out["cold"] = {"import": cold["marks"]["import"], "first basic result": cold["marks"]["first basic result"],
                       "process": cold["process"],
                       "first basic result, profiled": profiled["marks"]["first basic result"]}
        out["warm"] = {"import": warm["marks"]["import"], "first basic result": warm["marks"]["first basic result"],
                       "process": warm["process"]}
        out["breakdown first basic result (cold)"] = breakdown(profiled["rows"], args.top)
        out["compiled seconds (cold first basic)"] = round(sum(r[2] for r in profiled["rows"]), 1)
        out["by pass (cold first basic)"] = by_part(profiled["rows"])
        if not args.skip_quickstart:
            qs = ["run", "experiments/quickstart.toml", "--quiet"]
            cold_qs = child("quickstart", caches[1], qs + ["--out", os.path.join(runs, "cold")])
            warm_qs = child("quickstart", caches[1], qs + ["--out", os.path.join(runs, "warm")])
            out["cold"]["quick start"] = cold_qs["process"]
            out["warm"]["quick start"] = warm_qs["process"]
            out["breakdown quick start (cold)"] = breakdown(cold_qs["rows"], args.top)
            out["compiled seconds (cold quick start)"] = round(sum(r[2] for r in cold_qs["rows"]), 1)
            out["by pass (cold quick start)"] = by_part(cold_qs["rows"])
    finally:
        for d in caches + [runs]:
            shutil.rmtree(d, ignore_errors=True)
    print(f"{'':34}{'CPU s':>9}{'wall s':>9}")
    for temp in ("cold", "warm"):
        for what, (cpu, wall) in out[temp].items():
            label = {"process": "first basic result, whole process"}.get(what, what)
            print(f"{temp + ' ' + label:34}{cpu:9.2f}{wall:9.2f}")
    for key in [k for k in out if k.startswith("breakdown")]:
        print(f"\n{key}: CPU seconds exclusive of callees, by pass")
        for r in out[key]:
            parts = ", ".join(f"{k} {v}" for k, v in list(r["parts"].items())[:5])
            print(f"{r['exclusive_cpu_s']:7.2f}  x{r['signatures']:<3}{r['function']}\n{'':14}{parts}")
    for key in [k for k in out if k.startswith("compiled seconds") or k.startswith("by pass")]:
        print(f"{key}: {out[key]}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
