"""Digests of whole deals and matches at other game sizes, to show that a kernel change leaves the
play unchanged (the 4/2 game has pinned digests in tests/test_variants.py; other sizes have none).

Run in each checkout and compare the lines:
    PYTHONPATH=CHECKOUT python benchmarks/sized_digests.py 8:4:friends 6:3:tractor [--deals 600]

Per size and mode: a SHA-256 prefix over the deal and match records and the event logs of two
duplicate matchups (basic-expert, random-expert), fixed levels and whole matches.
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

try:
    from tractor_sim.runs import engine as E
    from tractor_sim.core.kernels import match as M
except ImportError:  # a checkout from before the layout by role (7b7d9e1), to compare across it
    from tractor_sim import engine as E
    from tractor_sim.kernels import match as M


def digest(players, decks, teams, mode, n, seed=7):
    h = hashlib.sha256()
    specs = E.plan_chunks([("basic", "expert"), ("random", "expert")], mode=mode, n=n, seed=seed, chunk_size=300,
                          game={"players": players, "decks": decks, "teams": teams})
    for spec in specs:
        out = E.run_chunk(spec, log_id=M.LOG_ALL)
        h.update(out.deals.tobytes())
        h.update(out.matches.tobytes())
        for key in sorted(out.extra):
            h.update(key.encode())
            h.update(np.asarray(out.extra[key]).tobytes())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="+", help="players:decks:teams, for example 6:3:tractor")
    ap.add_argument("--deals", type=int, default=600, help="deals per half in fixed mode (matches: a thirtieth)")
    args = ap.parse_args()
    for size in args.sizes:
        players, decks, teams = size.split(":")
        for mode, n in (("fixed", args.deals), ("match", max(1, args.deals // 30))):
            print(size, mode, digest(int(players), int(decks), teams, mode, n), flush=True)


if __name__ == "__main__":
    main()
