"""What the learned bid is worth under the auction (rule ``declaring = "auction"``), on duplicate deals.

Two head-to-head comparisons on the same pairs: ``learned`` against ``expert``,
and ``learned`` against the same model with its bid weights set to 0 (the
expert's bid: the gain of the learned bid alone).  Levels per deal, 95%
intervals (stats.summary.paired_comparison).

    python benchmarks/bench_learned_bid.py [--pairs 20000] [--seed 31] [--model learned-4x2.json]
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from tractor_sim.play import learned
from tractor_sim.runs import runner
from tractor_sim.stats.summary import paired_comparison

AUCTION = {"declaring": "auction"}


def compare(a, b, pairs, seed):
    """(A - B in levels per deal, its interval, pairs) of ``pairs`` duplicate pairs under the auction."""
    deals, _ = runner.simulate([(a, b)], n=pairs, seed=seed, rules=AUCTION, chunk_size=min(pairs, 5000))
    return paired_comparison(deals, a["name"] if isinstance(a, dict) else a, b["name"] if isinstance(b, dict) else b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--model", default="learned-4x2.json")
    args = ap.parse_args()
    data = json.loads(learned.path_of(args.model).read_text())
    data["weights"]["bid"] = [0.0] * len(data["weights"]["bid"])
    with tempfile.TemporaryDirectory() as tmp:
        zero = Path(tmp) / "bid0.json"
        zero.write_text(json.dumps(data))
        model = {"policy": "learned", "model": str(learned.path_of(args.model)), "name": "learned"}
        bid0 = {"policy": "learned", "model": str(zero), "name": "learned-bid0"}
        for b in ("expert", bid0):
            t = time.time()
            c = compare(model, b, args.pairs, args.seed)
            name = b if isinstance(b, str) else b["name"]
            print(f"learned - {name} under the auction: {c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}] "
                  f"levels per deal, {c['n_pairs']:,} pairs, seed {args.seed} ({time.time() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
