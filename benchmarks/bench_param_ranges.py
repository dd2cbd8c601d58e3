"""Every built-in strategy parameter swept over its declared range, ends included: deals played, illegal plays.

Run: python benchmarks/bench_param_ranges.py [--deals 200] [--points 3] [--games 4/2,6/3,5/2f] [--only lead.learned]

Each parameter of each built-in strategy is set to ``--points`` values from
its lowest to its highest declared value (tractor_sim/core/registry.py ranges,
``tractor-sim strategies``), the others at their defaults, in the policy
``expert`` against ``random``, ``--deals`` duplicate deal pairs per value (a
bid strategy under the auction rule).  The engine checks every answer and
stops a chunk at the first illegal one, so a value that plays is a value with
no illegal play; each failure is printed.
"""

from __future__ import annotations

import argparse
import time

from tractor_sim import simulate
from tractor_sim.play import registry as S

GAMES = {"4/2": None, "6/3": {"players": 6, "decks": 3}, "5/2f": {"players": 5, "teams": "friends"},
         "8/4f": {"players": 8, "decks": 4, "teams": "friends"}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--games", default="4/2")
    ap.add_argument("--only", default="", help="decision.strategy names to sweep, comma-separated (default all)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    S.load_builtins()
    played = illegal = values = 0
    t0 = time.process_time()
    for game in args.games.split(","):
        for decision, name, params, _ in S.list_strategies():
            if only and f"{decision}.{name}" not in only:
                continue
            info = S.get_strategy(decision, name)
            for param in params:
                low, high = info.ranges[param]
                for i in range(args.points):
                    value = low + (high - low) * i / max(1, args.points - 1)
                    if decision == "bid" and GAMES[game] and GAMES[game].get("teams") == "friends":
                        continue  # Finding Friends has no auction
                    pol = {"policy": "expert", decision: name, "params": {f"{decision}.{param}": value}}
                    rules = {"declaring": "auction"} if decision == "bid" else None
                    values += 1
                    try:
                        deals, _ = simulate([(pol, "random")], n=args.deals, seed=17, chunk_size=args.deals,
                                            rules=rules, game=GAMES[game])
                        played += len(deals)
                    except Exception as e:  # noqa: BLE001 - count and show every failure
                        illegal += 1
                        print(f"{game} {decision}.{name}.{param} = {value:g}: {type(e).__name__}: {e}", flush=True)
    print(f"{values} parameter values (ends included), {played:,} deals played, {illegal} stopped by an illegal "
          f"play or an error; {time.process_time() - t0:.0f} s of CPU")


if __name__ == "__main__":
    main()
