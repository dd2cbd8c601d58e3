"""How many legal answers each decision has over real deals (why the environments choose cards one at a time).

    PYTHONPATH=. python benchmarks/bench_legal_counts.py --deals 20 --policy basic --limit 20000

Per decision kind: the number of decisions, the median, 90th percentile and largest count of
``len(state.legal(limit))`` (a count equal to the limit was cut there), and the time legal() took.
"""

import argparse
import time
from collections import defaultdict

import numpy as np

from tractor_sim.play.game import State


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", default="basic")
    ap.add_argument("--rules", default=None, help="a rules preset such as russian (the auction)")
    ap.add_argument("--limit", type=int, default=20_000)
    a = ap.parse_args()
    counts, secs = defaultdict(list), defaultdict(float)
    bidder = {"name": "bidder", "policy": "random", "bid": "random"}
    for d in range(a.deals):
        s = State.new(seed=a.seed, deal_id=d, rules=a.rules)
        while not s.over:
            t = s.to_act()
            kind = t.decision + (f"/{t.step}" if t.step else "")
            t0 = time.perf_counter()
            counts[kind].append(len(s.legal(limit=a.limit)))
            secs[kind] += time.perf_counter() - t0
            s.apply(s.answer_of(bidder if t.decision == "bid" else a.policy))
    print(f"{a.deals} deals, policy {a.policy}, rules {a.rules or 'default'}, limit {a.limit}")
    print(f"{'decision':14s} {'n':>6s} {'median':>7s} {'p90':>7s} {'max':>7s} {'at limit':>8s} {'ms/call':>8s}")
    for kind, c in sorted(counts.items()):
        c = np.array(c)
        print(f"{kind:14s} {len(c):6d} {np.median(c):7.0f} {np.percentile(c, 90):7.0f} {c.max():7d} "
              f"{(c >= a.limit).sum():8d} {1000 * secs[kind] / len(c):8.2f}")


if __name__ == "__main__":
    main()
