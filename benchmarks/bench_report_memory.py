"""Peak memory and wall time of `tractor-sim report` over a big run, against the limits the README states.

Run: python benchmarks/bench_memory.py 5000000 /tmp/bigrun     (10,000,000 deals, once)
     python benchmarks/bench_report_memory.py /tmp/bigrun [MAX_GB] [MAX_S]   (default 2 GB, 60 s)
The report runs in a child process; its peak resident set size comes from the kernel (getrusage of
the children). Exits 1 when either limit is exceeded, so a change that brings the report back over
them fails here.
"""
import resource
import subprocess
import sys
import time
from pathlib import Path


def main():
    run = Path(sys.argv[1])
    max_gb = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    max_s = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    exe = Path(sys.executable).with_name("tractor-sim")
    t = time.time()
    done = subprocess.run([str(exe), "report", str(run)], capture_output=True, text=True)
    wall = time.time() - t
    if done.returncode:
        sys.exit(f"tractor-sim report failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_gb = usage.ru_maxrss * 1024 / 1e9  # Linux reports kilobytes
    print(f"report over {run}: {wall:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s CPU, "
          f"peak RSS {peak_gb:.2f} GB (limits {max_gb:g} GB, {max_s:g} s)")
    if peak_gb > max_gb or wall > max_s:
        sys.exit(1)


if __name__ == "__main__":
    main()
