"""How fast the learned player is beside basic, expert and the search (issue 30), in one run.

Each player plays every seat (self-play: both teams the same policy) on the same
deals; the rounds alternate between the players and the medians are given, so
a noisy machine shifts them alike.  Time per decision: CPU seconds per deal
over the plays made per deal (leads and follows, 100 with 4 players and 2
decks); a search's is per searched decision (its own count), all its seats searching.

    python benchmarks/bench_learned.py [--deals 4000] [--rounds 5] [--search-deals 20]
"""

import argparse
import statistics
import time

from tractor_sim.play.chunks import ChunkSpec
from tractor_sim.play.game import Game

PLAYS_PER_DEAL = 100  # leads and follows of a deal: 25 tricks x 4 seats


def timed(game, policy, deals, seed=7):
    """(CPU seconds, searched decisions) of ``deals`` self-play deals of ``policy``, one chunk."""
    spec = ChunkSpec("bench", (policy, policy), ("a", "b"), 0, "fixed", 0, deals, seed, {})
    t = time.process_time()
    res = game.play_chunk(spec)
    return time.process_time() - t, res.extra.get("decisions", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--search-deals", type=int, default=20)
    args = ap.parse_args()
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
