"""Instructions per deal of two or more checkouts: a measure the machine's noise does not move.

Run: python benchmarks/bench_instructions.py CHECKOUT [CHECKOUT ...] [--policy basic] [--deals 2000]

Wall and CPU time on a shared machine swing by 20% from run to run, which
hides a 2-5% change.  valgrind's callgrind counts the instructions a run
executes, the same count every time for the same deals.  Each checkout is
first run natively (its numba cache filled), then under callgrind with
counting switched on only around one chunk of ``--deals`` deals
(``callgrind_control -i on/off`` from inside the child), so imports and
compiling are not counted.

Printed per checkout: the instructions per deal, and the same without libc's
memset: valgrind counts ``rep stosb`` one byte at a time, so zeroing arrays
weighs far more in the count than in time.  An instruction count is not a
time (memory stalls and branch misses are not in it): confirm a finding with
benchmarks/ab.py.  The chunk goes through engine.run_chunk, so the count includes
its per-chunk Python work (the result frames): compare checkouts at the same
``--deals`` only (2,000 deals: about 230,000 instructions a deal, 300: 276,000).
Needs valgrind (Debian: ``apt install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHILD = """
import os, subprocess, sys
from tractor_sim.runs.engine import ChunkSpec, run_chunk
from tractor_sim.rules.options import Rules
pol, n = sys.argv[1], int(sys.argv[2])
spec = lambda first, count: ChunkSpec("bench", (pol, pol), (pol, pol), 0, "fixed", first, count, 1, Rules().to_dict())
run_chunk(spec(0, 10))
counting = os.environ.get("COUNTING") == "1"
if counting:
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True, capture_output=True)
run_chunk(spec(1000, n))
if counting:
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True, capture_output=True)
"""


def count(checkout: str, policy: str, deals: int, workdir: str) -> tuple[int, int]:
    """(instructions, of them in memset) of ``deals`` deals of ``policy`` at ``checkout``."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    subprocess.run([sys.executable, "-c", CHILD, policy, "20"], env=env, check=True, capture_output=True)
    out = os.path.join(workdir, f"{abs(hash(checkout))}.callgrind")
    subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                    sys.executable, "-c", CHILD, policy, str(deals)], env={**env, "COUNTING": "1"}, check=True,
                   capture_output=True)
    text = subprocess.run(["callgrind_annotate", out], check=True, capture_output=True, text=True).stdout
    total = int(re.search(r"^([\d,]+) .*PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
    memset = sum(int(m.group(1).replace(",", "")) for m in re.finditer(r"^\s*([\d,]+) .*memset", text, re.M))
    return total, memset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="+")
    ap.add_argument("--policy", default="basic")
    ap.add_argument("--deals", type=int, default=2000)
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found: install valgrind (Debian: apt install valgrind)")
    first = None
    print(f"{'checkout':40} {'instr/deal':>12} {'ratio':>7} {'w/o memset':>12} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as work:
        for checkout in args.checkouts:
            total, memset = count(checkout, args.policy, args.deals, work)
            per, rest = total / args.deals, (total - memset) / args.deals
            first = first or (per, rest)
            print(f"{checkout:40} {per:12,.0f} {per / first[0]:7.3f} {rest:12,.0f} {rest / first[1]:7.3f}")


if __name__ == "__main__":
    main()
