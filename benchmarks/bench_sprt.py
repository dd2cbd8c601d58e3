"""Error rates of the GSPRT (tractor_sim.stats.sprt) on real pair scores, with planted effects.

Run: python benchmarks/bench_sprt.py RUN_DIR MATCHUP HIGH [TRIALS]
The pair scores of MATCHUP in RUN_DIR give the shape (values and shares, with its
zeros); an exponential tilt plants the mean: LOW = 0 for the false-positive rate,
HIGH for the power. Each trial draws pair scores from the tilted shares until the
test stops. Prints the rates with Wilson intervals, the mean pairs used, and the
coverage of the stopping-corrected interval at a mean halfway between.
"""
import sys
import time

import numpy as np
import pandas as pd

from tractor_sim.stats import ratings

from tractor_sim.stats import sprt as SP

from tractor_sim.stats import summary as stats


def shape(run_dir, matchup):
    deals = pd.read_parquet(f"{run_dir}/deals.parquet")
    pairs = ratings.pair_table(deals)
    pairs = pairs[pairs["matchup"].astype(str) == matchup]
    if not len(pairs):
        sys.exit(f"{run_dir}: no duplicate pairs of matchup {matchup!r}")
    values, counts = np.unique(pairs["total"] / pairs["deals"], return_counts=True)
    return values, counts / counts.sum()


def tilt(values, probs, mean):
    lo, hi = -50.0, 50.0
    for _ in range(200):
        t = (lo + hi) / 2
        w = probs * np.exp(t * (values - values.mean()))
        lo, hi = (t, hi) if (w * values).sum() / w.sum() < mean else (lo, t)
    return w / w.sum()


def run(values, p, high, trials, seed, estimate=False):
    rng = np.random.default_rng(seed)
    h1, n, hit = 0, 0, 0
    truth = (values * p).sum()
    for i in range(trials):
        t = SP.GSPRT(0.0, high)
        while t.state == "continue":
            t.update(rng.choice(values, p=p, size=500))
        h1 += t.state == "accept_high"
        n += t.n
        if estimate:
            e = SP.corrected_estimate(t, sims=1000, seed=i)
            hit += e["low"] <= truth <= e["high"]
    return h1, n / trials, hit


def main():
    run_dir, matchup, high = sys.argv[1], sys.argv[2], float(sys.argv[3])
    trials = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    values, probs = shape(run_dir, matchup)
    print(f"{run_dir} {matchup}: {len(values)} distinct pair scores, share of 0: "
          f"{probs[values == 0].sum():.3f}, sd {np.sqrt((probs * values ** 2).sum() - (probs * values).sum() ** 2):.3f}")
    for label, mean in (("false positives (true mean 0)", 0.0), (f"power (true mean {high:g})", high)):
        t0 = time.time()
        k, avg, _ = run(values, tilt(values, probs, mean), high, trials, seed=1 if mean == 0 else 2)
        lo, hi = stats.wilson_interval(k, trials)
        print(f"  {label}: H1 accepted {k}/{trials} = {k / trials:.4f} [{lo:.4f}, {hi:.4f}], "
              f"mean pairs {avg:,.0f}, {time.time() - t0:.0f} s")
    reps = min(trials, 500)
    _, _, hit = run(values, tilt(values, probs, high / 2), high, reps, seed=3, estimate=True)
    lo, hi = stats.wilson_interval(hit, reps)
    print(f"  stopping-corrected 95% interval covers the true mean {high / 2:g}: {hit}/{reps} = "
          f"{hit / reps:.3f} [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()
