"""What a cold test suite compiles, in which process, and what two processes compiled twice.

Numba compiles a kernel set the first time a process calls it; the disk cache shares it only once
it is written.  Two xdist workers that start the same set at once both pay (tests/conftest.py
groups the test files by kernel set for that reason).  This finds what they still pay twice.

As a pytest plugin it logs every compile (numba's ``numba:compile`` event: process, function,
nesting depth, CPU seconds including the callees it compiled) to ``$TRACTOR_SIM_COMPILE_LOG``;
as a script it sums the log:

    rm -rf /tmp/cache && TRACTOR_SIM_CACHE=/tmp/cache NUMBA_CACHE_DIR=/tmp/cache/numba \\
        TRACTOR_SIM_COMPILE_LOG=/tmp/compiles.tsv PYTHONPATH=. \\
        python -m pytest -q -n auto --dist loadgroup -p benchmarks.bench_suite_compiles
    python benchmarks/bench_suite_compiles.py /tmp/compiles.tsv [--top 25]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict


def pytest_configure(config):
    path = os.environ.get("TRACTOR_SIM_COMPILE_LOG")
    if not path:
        return
    from numba.core import event as ev

    depth = [0]
    started: list[float] = []

    class Compiles(ev.Listener):
        def on_start(self, e):
            depth[0] += 1
            started.append(time.process_time())

        def on_end(self, e):
            depth[0] -= 1
            f = e.data["dispatcher"].py_func
            with open(path, "a") as out:
                out.write(f"{os.getpid()}\t{f.__module__}.{f.__qualname__}\t{depth[0]}\t"
                          f"{time.process_time() - started.pop():.3f}\n")

    ev.register("numba:compile", Compiles())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in open(args.log)]
    top = [(pid, name, float(cpu)) for pid, name, d, cpu in rows if d == "0"]
    by_pid = defaultdict(float)
    for pid, _, cpu in top:
        by_pid[pid] += cpu
    print(f"top-level compiles: {len(top)} in {len(by_pid)} processes, {sum(by_pid.values()):.1f} s CPU")
    for pid, cpu in sorted(by_pid.items(), key=lambda kv: -kv[1]):
        print(f"  process {pid}: {cpu:.1f} s")
    runs = defaultdict(list)
    for pid, name, cpu in top:
        runs[name].append((pid, cpu))
    twice = {n: r for n, r in runs.items() if len({p for p, _ in r}) > 1}
    wasted = {n: sum(c for _, c in r) - max(c for _, c in r) for n, r in twice.items()}
    print(f"compiled at the top level in more than one process: {len(twice)} functions, "
          f"{sum(wasted.values()):.1f} s CPU beyond the first compile")
    for n in sorted(wasted, key=wasted.get, reverse=True)[:args.top]:
        print(f"  {wasted[n]:7.1f} s  x{len(twice[n])}  {n}")


if __name__ == "__main__":
    main()
