"""How fast the learned player is beside basic, expert and the search (issue 30), in one run.

Each player plays every seat (self-play: both teams the same policy) on the same
deals; the rounds alternate between the players and the medians are given, so
a noisy machine shifts them alike.  Time per decision: CPU seconds per deal
over the plays made per deal (leads and follows, 100 with 4 players and 2
decks); a search's is per searched decision (its own count), all its seats searching.
With ``--bids N``: the time of one auction step (rule ``declaring = "auction"``)
of ``strength`` (the expert's bid) and of ``learned`` (the shipped model's
weights), each called in a compiled loop on the views of every step of N
deals, medians of the rounds.

    python benchmarks/bench_learned.py [--deals 4000] [--rounds 5] [--search-deals 20] [--bids 200]
"""

import argparse
import statistics
import time

import numpy as np
from numba import njit

from tractor_sim.play.chunks import ChunkSpec
from tractor_sim.play.game import Game

PLAYS_PER_DEAL = 100  # leads and follows of a deal: 25 tricks x 4 seats


def timed(game, policy, deals, seed=7):
    """(CPU seconds, searched decisions) of ``deals`` self-play deals of ``policy``, one chunk."""
    spec = ChunkSpec("bench", (policy, policy), ("a", "b"), 0, "fixed", 0, deals, seed, {})
    t = time.process_time()
    res = game.play_chunk(spec)
    return time.process_time() - t, res.extra.get("decisions", 0)


def _looper(fn):
    """A compiled loop calling the strategy ``fn`` on every view, ``reps`` times."""
    @njit
    def loop(views, params, reps):
        out = np.zeros(views.shape[2], dtype=np.int64)
        scratch = np.zeros(256)
        rng = np.ones(1, dtype=np.uint64)
        total = 0
        for _ in range(reps):
            for i in range(views.shape[0]):
                out[:] = 0
                total += fn(views[i], params, rng, scratch, out) + out[0]
        return total
    return loop


def bid_times(deals, rounds, reps=20):
    """{strategy: µs per auction step} over the views of every step of ``deals`` deals played by expert."""
    from tractor_sim.play import registry
    from tractor_sim.play.game import State

    views = []
    for deal in range(deals):
        state = State.new(seed=7, deal_id=deal, rules={"declaring": "auction"})
        while not state.over:
            turn = state.to_act()
            if turn.decision == "bid":
                views.append(state.observation(turn.seat))
            state.apply(state.answer_of("expert"))
    views = np.ascontiguousarray(np.array(views, dtype=np.int64))
    out = {}
    for name, policy in (("strength", "expert"), ("learned", "learned")):
        pol = registry.resolve_policy(policy)
        fn = registry.get_strategy("bid", name).dispatcher
        params = np.ascontiguousarray(pol.params[4], dtype=np.float64)  # BID
        loop = _looper(fn)
        loop(views[:1], params, 1)  # compile
        times = []
        for _ in range(rounds):
            t = time.process_time()
            loop(views, params, reps)
            times.append(time.process_time() - t)
        out[name] = 1e6 * statistics.median(times) / (reps * len(views))
    return out, len(views)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--search-deals", type=int, default=20)
    ap.add_argument("--bids", type=int, default=0, help="deals whose auction steps time the bid strategies")
    args = ap.parse_args()
    if args.bids:
        us, n = bid_times(args.bids, args.rounds)
        for name, t in us.items():
            print(f"bid {name:14s} {t:8.2f} us per auction step ({n} steps of {args.bids} deals)")
        return
    game = Game.of((4, 2, "tractor"))
    players = ["basic", "expert", "learned"]
    searches = ["search:expert:16", "search:learned:16", "oracle:expert:16"]
    for p in players + searches:
        timed(game, p, 2)  # compile
    times = {p: [] for p in players}
    for _ in range(args.rounds):
        for p in players:
            times[p].append(timed(game, p, args.deals)[0])
    rate = {p: args.deals / statistics.median(times[p]) for p in players}
    print(f"{'player':18s} {'deals/s':>10s} {'x basic':>8s} {'us/decision':>12s}")
    for p in players:
        print(f"{p:18s} {rate[p]:10,.0f} {rate[p] / rate['basic']:8.3f} {1e6 / rate[p] / PLAYS_PER_DEAL:12.2f}")
    for p in searches:
        seconds, searched = timed(game, p, args.search_deals)
        print(f"{p:18s} {args.search_deals / seconds:10,.2f} {args.search_deals / seconds / rate['basic']:8.5f}"
              f" {1e6 * seconds / max(1, searched):12.0f}  (per searched decision, {searched} searched)")


if __name__ == "__main__":
    main()
