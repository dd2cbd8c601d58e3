"""Whether inference from the plays puts the hidden cards where they are: the share of the other hands'
cards a kept world places in the right hand, with infer (worlds resampled by expert's likelihood) and
without (uniform), on deals that expert plays at every seat (where the model is the true policy).

Run: PYTHONPATH=. python benchmarks/bench_infer_accuracy.py [--deals 20] [--worlds 16] [--seed 11]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_infer as T  # noqa: E402  (the tests' deal stepper and kernel calls)

from tractor_sim.core.kernels import deal as D  # noqa: E402
from tractor_sim.core.kernels import infer as I  # noqa: E402
from tractor_sim.core.kernels import sampler as SM  # noqa: E402
from tractor_sim.core.kernels import search as KS  # noqa: E402
from tractor_sim.core.kernels import state as ST  # noqa: E402
from tractor_sim.core.kernels.dims import CARDS, SEATS  # noqa: E402


def placed_right(state, seat, picks) -> float:
    """The mean share of the other hands' cards that the picked worlds put in the right hand."""
    st, ws = state._st, state._ws
    work, rng = SM.new_work(), np.zeros(1, np.uint64)
    wst, wws = np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc)
    assert KS.prepare_worlds(st, ws, seat, KS.WORLD_SAMPLED, work)
    index = KS.decision_index(st, int(st[ST.S_DECISION]))
    shares = []
    for j in picks:
        assert KS.make_world(st, ws, KS.WORLD_SAMPLED, j, wst, wws, work, rng, KS.SELECTION, index)
        right = total = 0
        for s in range(SEATS):
            if s == seat:
                continue
            true = st[ST.HANDS + s * CARDS:ST.HANDS + (s + 1) * CARDS]
            world = wst[ST.HANDS + s * CARDS:ST.HANDS + (s + 1) * CARDS]
            right += np.minimum(true, world).sum()
            total += true.sum()
        shares.append(right / max(total, 1))
    return float(np.mean(shares))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    print(f"{'trick':>5s} {'n':>4s} {'uniform':>8s} {'inferred':>8s} {'gain':>7s} {'95% CI':>18s}")
    for trick in (2, 4, 6, 8, 10, 14):
        diffs, plain, inferred = [], [], []
        for deal in range(args.deals):
            try:
                state, seat, history = T._observed_deal(args.seed, deal,
                                                        lambda s, seat, t, tr=trick: seat % 2 == 0 and t >= tr)
            except AssertionError:
                continue
            _, uniform_picks, _ = T._pick(state, seat, history, I.INFER_NONE, args.worlds)
            _, picks, _ = T._pick(state, seat, history, I.INFER_MODEL, args.worlds)
            a, b = placed_right(state, seat, uniform_picks), placed_right(state, seat, picks)
            plain.append(a)
            inferred.append(b)
            diffs.append(b - a)
        d = np.array(diffs)
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"{trick:5d} {len(d):4d} {np.mean(plain):8.3f} {np.mean(inferred):8.3f} {d.mean():+7.3f} "
              f"[{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]", flush=True)


if __name__ == "__main__":
    main()
