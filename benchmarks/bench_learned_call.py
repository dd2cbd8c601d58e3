"""What the learned player is worth in Finding Friends, and its call alone, on duplicate deals.

Three head-to-head comparisons at one game (default 5 players, Finding
Friends), each on the same pairs: the model against ``expert``; the model
against itself with its call weights set to 0 (the expert's call: what the
learned call adds to the rest of the model); and the model's call alone (every
other weight 0, so the rest is the expert's play) against ``expert``.  Levels
per player sitting and deal, 95% intervals, as ``tractor-sim compare`` reports
Finding Friends (runs.compare.duel).

    python benchmarks/bench_learned_call.py [--pairs 20000] [--seed 41] [--model learned-5x2f.json]
        [--players 5] [--decks 2]
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from tractor_sim.play import learned
from tractor_sim.runs import compare


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--model", default="learned-5x2f.json")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--decks", type=int, default=2)
    args = ap.parse_args()
    game = {"players": args.players, "decks": args.decks, "teams": "friends"}
    path = learned.path_of(args.model)
    data = json.loads(path.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        def variant(name, keep):
            """The model with the weights of the decisions ``keep`` does not accept set to 0."""
            changed = json.loads(json.dumps(data))
            for d, w in changed["weights"].items():
                if not keep(d):
                    changed["weights"][d] = [0.0] * len(w)
            out = Path(tmp) / f"{name}.json"
            out.write_text(json.dumps(changed))
            return {"policy": "learned", "model": str(out), "name": name}

        model = {"policy": "learned", "model": str(path), "name": "learned"}
        runs = [(model, {"policy": "expert", "name": "expert"}),
                (model, variant("learned-call0", lambda d: d != "call")),
                (variant("call-only", lambda d: d == "call"), {"policy": "expert", "name": "expert"})]
        for a, b in runs:
            t = time.time()
            c = compare.duel(a, b, max_pairs=args.pairs, seed=args.seed, chunk_size=min(args.pairs, 5000),
                             game=game)["comparison"]
            print(f"{a['name']} - {b['name']} at {args.players}/{args.decks} friends: {c['mean']:+.4f} "
                  f"[{c['low']:+.4f}, {c['high']:+.4f}] levels per player and deal, {c['n_pairs']:,} pairs, "
                  f"seed {args.seed} ({time.time() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
