"""Deals per second of each kind of player against compiled seats (docs/bots.md, issue 31): the
compiled policy, a Python policy answering with the compiled one's answers, the python_example
policy, and the reference bot in Python and in JavaScript, on the same duplicate deals.

    python benchmarks/bench_players.py [--deals 200]
"""

import argparse
import shutil
import time
from pathlib import Path

from tractor_sim.play.registry import python_policy
from tractor_sim.runs import runner

ROOT = Path(__file__).resolve().parent.parent
MODULES = (str(ROOT / "strategies" / "python_example.py"), str(ROOT / "strategies" / "process_example.py"))


@python_policy("bench_wrap_expert")
def _wrap(decision):
    return decision.ask("expert")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200, help="deal pairs per player")
    args = ap.parse_args()
    players = ["expert", "bench_wrap_expert", "python_example", "process_example"]
    if shutil.which("node"):
        players.append("process_example_js")
    runner.simulate([("expert", "basic"), ("bench_wrap_expert", "basic")], n=2, seed=1, modules=MODULES)  # warm
    for p in players:
        t = time.perf_counter()
        deals, _ = runner.simulate([(p, "expert")], n=args.deals, seed=99, modules=MODULES, chunk_size=args.deals)
        dt = time.perf_counter() - t
        print(f"{p:22s} {len(deals):6d} deals  {len(deals) / dt:10.1f} deals/s")


if __name__ == "__main__":
    main()
