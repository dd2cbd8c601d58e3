"""OpenSpiel's ISMCTS against search:expert:16 at an equal time per decision (issue 31).

    python benchmarks/bench_ismcts.py [--calibrate 4] [--pairs 100] [--seed 31]

1. Calibration: both players sit beside a Python seat (the stepped table, where the search plays
   through kernels.search_play.search_answer) on the same deals; the CPU time of each lead and
   follow is measured, the search's and ISMCTS's at several simulation counts.
2. The simulation count whose time per decision is nearest the search's (the time is linear in
   the simulations: a least-squares line through the measured counts) plays ``tractor-sim compare``
   against search:expert:16 on duplicate deals: the result and its 95% interval.
Needs the optional extra openspiel (pip install open_spiel).
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tractor_sim.openspiel import ismcts_policy
from tractor_sim.play import stepped
from tractor_sim.play.registry import python_policy
from tractor_sim.runs import runner

SEARCH = "search:expert:16"
TIMES: dict[str, list[float]] = {}


def _timed(name, play):
    """Register ``name``: ``play`` with the CPU time of each lead and follow kept in TIMES[name]."""
    TIMES[name] = []

    @python_policy(name)
    def timed(decision):
        if decision.decision not in ("lead", "follow"):
            return play(decision)
        t = time.process_time()
        answer = play(decision)
        TIMES[name].append(time.process_time() - t)
        return answer


def _time_the_search():
    """Time the stepped table's search answers of leads and follows into TIMES[SEARCH]."""
    TIMES[SEARCH] = []
    answer = stepped._Search.answer

    def timed(self, state, seat, decision, deal_id):
        if decision not in self.decisions or decision == state._k.view.DISCARD:
            return answer(self, state, seat, decision, deal_id)
        t = time.process_time()
        code = answer(self, state, seat, decision, deal_id)
        TIMES[SEARCH].append(time.process_time() - t)
        return code

    stepped._Search.answer = timed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calibrate", type=int, default=4, help="deals per player for the timing")
    ap.add_argument("--sims", default="2,4,8", help="ISMCTS simulation counts timed (2 at least: its first builds the root)")
    ap.add_argument("--pairs", type=int, default=100, help="duplicate deal pairs of the match")
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args()
    sims = [int(s) for s in args.sims.split(",")]
    _timed("bench_expert", lambda d: d.ask("expert"))
    for s in sims:
        _timed(f"bench_ismcts{s}", ismcts_policy(f"bench_raw_ismcts{s}", simulations=s))
    _time_the_search()
    kw = dict(n=args.calibrate, seed=args.seed + 1, duplicate=False, chunk_size=args.calibrate)
    runner.simulate([(SEARCH, "bench_expert")], n=1, seed=0, duplicate=False)  # compile outside the timing
    for s in sims:
        runner.simulate([(f"bench_ismcts{s}", "expert")], n=1, seed=0, duplicate=False)
    for t in TIMES.values():
        t.clear()
    runner.simulate([(SEARCH, "bench_expert")], **kw)
    target = float(np.mean(TIMES[SEARCH]))
    print(f"{SEARCH:18s} {len(TIMES[SEARCH]):5d} leads and follows  {1000 * target:8.2f} ms CPU each")
    means = []
    for s in sims:
        runner.simulate([(f"bench_ismcts{s}", "expert")], **kw)
        means.append(float(np.mean(TIMES[f"bench_ismcts{s}"])))
        print(f"ISMCTS {s:3d} sims     {len(TIMES[f'bench_ismcts{s}']):5d} leads and follows  "
              f"{1000 * means[-1]:8.2f} ms CPU each")
    slope, intercept = np.polyfit(sims, means, 1)
    equal = max(2, int(round((target - intercept) / slope)))
    print(f"equal time: {equal} simulations (line {1000 * intercept:.2f} ms + {1000 * slope:.2f} ms per simulation)")
    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp) / "ismcts_equal_time.py"
        module.write_text("from tractor_sim.openspiel import ismcts_policy\n\n"
                          f"ismcts_policy('ismcts_equal_time', simulations={equal}, base='expert')\n")
        cmd = ["tractor-sim", "compare", "ismcts_equal_time", SEARCH, "--module", str(module), "--deals",
               str(args.pairs), "--seed", str(args.seed), "--chunk-size", "5"]
        print("$", " ".join(cmd), flush=True)
        t = time.perf_counter()
        subprocess.run([Path(sys.executable).with_name("tractor-sim"), *cmd[1:]], check=True)
        print(f"match: {time.perf_counter() - t:.0f} s wall")


if __name__ == "__main__":
    main()
