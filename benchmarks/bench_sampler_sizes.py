"""How the sampler makes its worlds at each game size: the exact table, the pooled table or the chain.

Run: python benchmarks/bench_sampler_sizes.py [--deals 4] [--worlds 16] [--sizes 4:2 6:3 8:4 7:3:friends]

Deals played by ``expert``; at every kitty exchange, lead and follow the seat
to act is the observer.  For each size prints the decisions seen, the share
prepared by the exact table (pooled or not) and by the chain
(kernels.pair_chain, where the table would not fit), the median and largest
time of ``prepare`` and of one world (``draw``: the chain's sweeps included)
by mode, in milliseconds of CPU, and the table allocated.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

import numpy as np

from tractor_sim.play.game import Game, State


def _size(text):
    parts = text.split(":")
    return {"players": int(parts[0]), "decks": int(parts[1]), "teams": parts[2] if len(parts) > 2 else "tractor"}


def _observe(game, SM, work, deal_id, worlds, prep, draw):
    """Prepare and draw at every kitty exchange, lead and follow of one deal, timed by mode."""
    ST = game.kernels.state
    rng = np.array([1], dtype=np.uint64)
    s = State.new(seed=5, deal_id=deal_id, game=game)
    world, wws = game.kernels.deal.new_state(), game.kernels.deal.new_workspace(s._enc)
    while not s.over:
        st = s._st
        if st[ST.S_PHASE] in (ST.PH_KITTY, ST.PH_LEAD, ST.PH_FOLLOW):
            seat = int(st[ST.S_TO_ACT])
            t = time.process_time()
            assert SM.prepare(st, seat, s._ws[3], work) == 1
            took = time.process_time() - t
            plan = work[0]
            mode = "chain" if plan[SM.W_CHAIN] else "pooled" if plan[SM.W_POOL] != SM.NO_PLACE else "exact"
            prep[mode].append(took * 1e3)
            t = time.process_time()
            for _ in range(worlds):
                assert SM.draw(st, s._ws, work, rng, world, wws) == 1
            draw[mode].append((time.process_time() - t) / worlds * 1e3)
        s.apply(s.answer_of("expert"))


def measure(size, n_deals, worlds):
    game = Game.of(size)
    SM = game.kernel("sampler")
    work = SM.new_work()
    prep, draw = defaultdict(list), defaultdict(list)
    _observe(game, SM, work, 0, 1, defaultdict(list), defaultdict(list))  # compiles (not timed)
    for deal_id in range(n_deals):
        _observe(game, SM, work, deal_id, worlds, prep, draw)
    return game, SM, prep, draw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--sizes", nargs="+", default=["4:2", "5:2:friends", "6:3", "6:4", "7:3:friends", "8:4"])
    a = ap.parse_args()
    print(f"{'size':14} {'mode':7} {'decisions':>9} {'share':>6} {'prepare ms':>10} {'(max)':>8} "
          f"{'world ms':>9} {'(max)':>7}  table")
    for text in a.sizes:
        game, SM, prep, draw = measure(_size(text), a.deals, a.worlds)
        total = sum(len(v) for v in prep.values())
        table = f"{SM.TABLE_CELLS * 8 / 2**20:.0f} MB"
        for mode in ("exact", "pooled", "chain"):
            if prep[mode]:
                print(f"{game.size.label:14} {mode:7} {len(prep[mode]):9} {len(prep[mode]) / total:6.1%} "
                      f"{statistics.median(prep[mode]):10.2f} {max(prep[mode]):8.1f} "
                      f"{statistics.median(draw[mode]):9.3f} {max(draw[mode]):7.2f}  {table}")


if __name__ == "__main__":
    main()
