"""Deals per second at each playable game size (tractor_sim.rules.sizes), with plays and cards per deal.

Run: python benchmarks/bench_sizes.py [--deals 20000] [--repeats 5] [--policies basic random]
                                      [--sizes 4/2 6/2 8/2 5/2f] [--json FILE]

One process plays every size in turn, round after round (so the load of the
machine falls on every size alike), after a warm-up that compiles each; it
reports the median deals per CPU second of each size and policy, the plays
per deal (from the tricks) and the deals/s relative to 4/2 beside the cards
per deal relative to 4/2, so a cost beyond "more cards" shows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _size(text: str):
    """'6/2' (tractor teams) or '5/2f' (Finding Friends)."""
    from tractor_sim.rules.sizes import GameSize

    friends = text.endswith("f")
    players, decks = (int(x) for x in text.rstrip("f").split("/"))
    return GameSize.of({"players": players, "decks": decks, "teams": "friends" if friends else "tractor"})


def _play(size, policy: str, deals: int, seed: int):
    from tractor_sim.runs import engine as E

    spec = E.plan_chunks([(policy, policy)], n=deals, seed=seed, game=size, duplicate=False,
                         chunk_size=deals)[0]
    t0 = time.process_time()
    result = E.run_chunk(spec)
    return time.process_time() - t0, result.deals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--policies", nargs="+", default=["basic", "random"])
    ap.add_argument("--sizes", nargs="+", default=["4/2", "6/2", "8/2"])
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()
    sizes = [_size(s) for s in args.sizes]
    rates: dict = {(s, p): [] for s in sizes for p in args.policies}
    tricks: dict = {}
    for s in sizes:  # warm-up: compile (or load) each size's kernels and strategies
        for p in args.policies:
            _, recs = _play(s, p, min(args.deals, 2000), 1)
            tricks[s, p] = float(sum(recs[f"tricks{k}"].astype("int64") for k in range(s.players)).mean())
    for r in range(args.repeats):
        for s in sizes:
            for p in args.policies:
                seconds, recs = _play(s, p, args.deals, 100 + r)
                rates[s, p].append(len(recs) / seconds)
    base = sizes[0]
    rows = []
    for s in sizes:
        for p in args.policies:
            rate = statistics.median(rates[s, p])
            rows.append({
                "size": f"{s.players}/{s.decks}" + ("f" if s.teams == "friends" else ""), "teams": s.teams, "policy": p, "deals_per_s": round(rate),
                "plays_per_deal": round(tricks[s, p] * s.players, 1),
                "cards_per_deal": s.players * s.hand + s.kitty,
                "speed_vs_first": round(rate / statistics.median(rates[base, p]), 3),
                "cards_vs_first": round((s.players * s.hand) / (base.players * base.hand), 3),
                "rounds": [round(x) for x in rates[s, p]],
            })
    print(f"{'size':6} {'policy':8} {'deals/s':>9} {'plays/deal':>10} {'speed vs ' + args.sizes[0]:>14} "
          f"{'cards vs ' + args.sizes[0]:>14}")
    for row in rows:
        print(f"{row['size']:6} {row['policy']:8} {row['deals_per_s']:>9,} {row['plays_per_deal']:>10} "
              f"{row['speed_vs_first']:>14} {row['cards_vs_first']:>14}")
    if args.json:
        Path(args.json).write_text(json.dumps({"deals": args.deals, "repeats": args.repeats, "rows": rows},
                                              indent=2))


if __name__ == "__main__":
    main()
