"""Nanoseconds per call of the built-in policies' strategies, on situations from real deals.

Run: python benchmarks/bench_strategies.py [--deals 20] [--repeats 5]

The views are those the reference deal player (``tests/reference_deal``)
shows while playing ``--deals`` deals of each policy against itself; each
strategy then answers all of its decision's views in a compiled loop,
``--repeats`` rounds.  Prints JSON: the median ns per call of every
(policy, decision).  The loop replays the same views, so caches and branch
predictors are warmer than in a whole deal: compare strategies with each
other, not with deals per second.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

import numpy as np  # noqa: E402
from numba import njit, types  # noqa: E402

from tractor_sim.play import registry as S  # noqa: E402
from tractor_sim.core.kernels.view import DECISIONS, STRATEGY_TYPE  # noqa: E402

POLICIES = ("basic", "expert", "random")


@njit(types.int64(STRATEGY_TYPE, types.int64[:, :, ::1], types.float64[::1], types.int64))
def _answer_all(fn, views, params, reps):
    """Call fn on every view, reps times; fresh scratch and answer buffer for each call."""
    out = np.zeros(54, dtype=np.int64)
    scratch = np.zeros(256)
    rng = np.ones(1, dtype=np.uint64)
    total = 0
    for _ in range(reps):
        for i in range(views.shape[0]):
            out[:] = 0
            scratch[:] = 0.0
            total += fn(views[i], params, rng, scratch, out)
    return total


def recorded_views(policy: str, deals: int) -> dict[int, np.ndarray]:
    """decision -> the views shown to ``policy``'s strategies in ``deals`` deals against itself."""
    from tests.reference_deal import ReferencePlayer

    seen: dict[int, list] = {}
    player = ReferencePlayer((policy, policy), on_view=lambda d, v: seen.setdefault(d, []).append(v))
    player.play_fixed(2024, 0, deals)
    return {d: np.ascontiguousarray(np.array(vs)) for d, vs in seen.items()}


def ns_per_call(policy: str, decision: int, views: np.ndarray, repeats: int) -> float:
    rp = S.resolve_policy(policy)
    fn = rp.functions[decision]
    params = rp.params[decision] if len(rp.params[decision]) else np.zeros(1)
    reps = max(1, 20000 // len(views))
    _answer_all(fn, views[:1], params, 1)
    times = []
    for _ in range(repeats):
        t = time.process_time()
        _answer_all(fn, views, params, reps)
        times.append((time.process_time() - t) / (reps * len(views)) * 1e9)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    result = {}
    for policy in POLICIES:
        rp = S.resolve_policy(policy)
        for decision, views in sorted(recorded_views(policy, args.deals).items()):
            key = f"{policy}.{DECISIONS[decision]}.{rp.strategies[decision]}"
            result[key] = {"ns_per_call": round(ns_per_call(policy, decision, views, args.repeats), 1),
                           "views": len(views)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
