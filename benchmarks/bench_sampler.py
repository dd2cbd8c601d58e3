"""Speed of the sampler of worlds (kernels.sampler) on one core: prepare, deal, whole worlds.

Run: python benchmarks/bench_sampler.py [--deals 20] [--worlds 2000]

States: the first lead (after the kitty), mid-deal (12 cards left in each
hand) and the endgame (4 cards left), of ``--deals`` deals played by the
basic policy; every seat in turn is the observer (the starter sees the
kitty: no kitty place).  For each stage prints the
median time of ``prepare`` (the counting table, once per decision), the
deals of the unseen cards per second (``deal_unseen``: the cards only) and
the whole worlds per second (``draw``: a state and four views, playable).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from tractor_sim.play.game import State
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import sampler as SM
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels.dims import CARDS, SEATS

STAGES = {"first lead": 25, "mid-deal": 12, "endgame": 4}


def states(n_deals):
    out = {k: [] for k in STAGES}
    for i in range(n_deals):
        s = State.new(seed=7, deal_id=i)
        while not s.over:
            st = s._st
            for name, left in STAGES.items():
                if (st[ST.S_PHASE] == ST.PH_LEAD and st[ST.S_REMAINING] <= left
                        and len(out[name]) <= i):
                    out[name].append(s.clone())
            s.apply(s.answer_of("basic"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=2000)
    a = ap.parse_args()
    by_stage = states(a.deals)
    work = SM.new_work()
    rng = np.array([1], dtype=np.uint64)
    s0 = by_stage["first lead"][0]
    world, wws = D.new_state(), D.new_workspace(s0._enc)
    out = np.zeros((a.worlds, SM.PLACES, CARDS), dtype=np.int64)
    SM.sample_world(s0._st, s0._ws, 0, work, rng, world, wws)  # compile
    SM.deal_many(work, rng, out[:1])
    print(f"{'stage':12} {'prepare ms':>10} {'(max)':>6} {'deals/s':>12} {'worlds/s':>10}")
    for name, sts in by_stage.items():
        prep, deals, worlds = [], [], []
        for s, seat in [(s, seat) for s in sts for seat in range(SEATS)]:
            t = time.process_time()
            for _ in range(10):
                assert SM.prepare(s._st, seat, s._ws[3], work) == 1
            prep.append((time.process_time() - t) / 10 * 1e3)
            t = time.process_time()
            SM.deal_many(work, rng, out)
            deals.append(a.worlds / (time.process_time() - t))
            t = time.process_time()
            for _ in range(a.worlds // 10):
                SM.draw(s._st, s._ws, work, rng, world, wws)
            worlds.append(a.worlds // 10 / (time.process_time() - t))
        print(f"{name:12} {statistics.median(prep):10.2f} {max(prep):6.2f} {statistics.median(deals):12,.0f} "
              f"{statistics.median(worlds):10,.0f}")


if __name__ == "__main__":
    main()
