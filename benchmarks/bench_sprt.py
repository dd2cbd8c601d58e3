"""The sequential test (tractor_sim.stats.sprt) over true effects: decisions, pairs used, and the
stopping-corrected estimate's coverage and median bias.

Run: python benchmarks/bench_sprt.py [--min-nonzero N] [TRIALS] [RUN_DIR MATCHUP]   (default 1000 trials)
Bounds [0, 0.05], alpha = beta = 0.05, the package's defaults otherwise (--min-nonzero 0: the rule
before the minimum-information rule). Two shapes:
- "expert-vs-basic": the quick start's expert-vs-basic pair scores (2,000 pairs of
  `tractor-sim run experiments/quickstart.toml`, 33% zeros, sd 0.50; or those of RUN_DIR MATCHUP),
  shifted to the true effect;
- "zero-heavy": 0 with probability ZERO_SHARE, else that shape shifted to mean effect / (1 - ZERO_SHARE).
Every trial draws look_every pairs per look as multinomial counts, all trials at once, and runs the
package's LLR (llr_many), stopping rule (decide) and estimate (stopped_estimate). Prints per effect:
the share accepting H1 (Wilson 95%), the mean pairs, the coverage of the 95% interval, the share of
estimates above the truth, and the number of non-finite estimates or bounds.
"""
import sys
import time

import numpy as np

from tractor_sim.stats import sprt as SP
from tractor_sim.stats import summary as stats

QUICKSTART = {-1.5: 3, -1.0: 23, -0.5: 169, 0.0: 662, 0.5: 789, 1.0: 287, 1.5: 59, 2.0: 5, 2.5: 3}
EFFECTS = (-0.05, 0.0, 0.025, 0.05, 0.10, 0.35)
LOW, HIGH = 0.0, 0.05
ZERO_SHARE = 0.98
MIN_NONZERO = None  # the package's default unless --min-nonzero
MAX_PAIRS = 20_000  # compare's default pair limit
SIMS = 2000  # Brownian paths per estimate


def base_shape(argv):
    if len(argv) < 2:
        v = np.array(list(QUICKSTART), float)
        c = np.array(list(QUICKSTART.values()), float)
        return v, c / c.sum()
    import pandas as pd

    from tractor_sim.stats import ratings
    pairs = ratings.pair_table(pd.read_parquet(f"{argv[0]}/deals.parquet"))
    pairs = pairs[pairs["matchup"].astype(str) == argv[1]]
    v, c = np.unique(pairs["total"] / pairs["deals"], return_counts=True)
    return v.astype(float), c / c.sum()


def shifted(values, probs, effect):
    return np.round(values - (values * probs).sum() + effect, 9), probs


def zero_heavy(values, probs, effect):
    v, p = shifted(values, probs, effect / (1 - ZERO_SHARE))
    return np.round(np.concatenate([[0.0], v]), 9), np.concatenate([[ZERO_SHARE], (1 - ZERO_SHARE) * p])


def run_trials(values, probs, trials, seed):
    """Every trial of the test on draws from (values, probs): state, looks and eligibility, sums."""
    test = SP.GSPRT(LOW, HIGH) if MIN_NONZERO is None else SP.GSPRT(LOW, HIGH, min_nonzero=MIN_NONZERO)
    full, prior = SP.support(values, test.spread)
    where = np.searchsorted(full, values)
    rng = np.random.default_rng(seed)
    counts = np.zeros((trials, len(full)))
    state = np.zeros(trials, int)  # 0 running, 1 H1, -1 H0, 2 undecided at the pair limit
    eligible = np.zeros((trials, MAX_PAIRS // test.look_every), bool)
    n_looks = np.zeros(trials, int)
    nonzero_col = full != 0
    for k in range(MAX_PAIRS // test.look_every):
        run = np.flatnonzero(state == 0)
        if not len(run):
            break
        np.add.at(counts, (run[:, None], where[None, :]), rng.multinomial(test.look_every, probs, size=len(run)))
        c = counts[run]
        n = (k + 1) * test.look_every
        ok = (n >= test.min_n) & (c[:, nonzero_col].sum(axis=1) >= test.min_nonzero)
        lr = SP.llr_many(full, c + prior, LOW, HIGH)
        eligible[run, k] = ok
        n_looks[run] = k + 1
        state[run] = np.where(ok & (lr >= test.upper_bound), 1, np.where(ok & (lr <= test.lower_bound), -1, 0))
    state[state == 0] = 2
    return test, full, counts, state, eligible, n_looks


def evaluate(values, probs, effect, trials, seed):
    test, full, counts, state, eligible, n_looks = run_trials(values, probs, trials, seed)
    n = counts.sum(axis=1)
    prior = SP.support(full, test.spread)[1]
    names = {1: "accept_high", -1: "accept_low", 2: "undecided"}
    est, cover, none = [], 0, 0
    for i in range(trials):
        looks = test.look_every * np.arange(1, n_looks[i] + 1)
        if not counts[i, full != 0].sum():
            none += 1
            continue
        e = SP.stopped_estimate(names[state[i]], looks, eligible[i, :n_looks[i]], full, counts[i], prior,
                                LOW, HIGH, test.lower_bound, test.upper_bound, sims=SIMS, seed=i)
        est.append((e["estimate"], e["low"], e["high"]))
    est = np.array(est)
    finite = np.isfinite(est).all(axis=1)
    cover = ((est[:, 1] <= effect) & (effect <= est[:, 2])).sum()
    h1 = int((state == 1).sum())
    return {"h1": h1, "h0": int((state == -1).sum()), "pairs": n.mean(), "cover": cover, "estimated": len(est),
            "above": int((est[:, 0] > effect).sum()), "nonfinite": int((~finite).sum()), "no_interval": none}


def main():
    global MIN_NONZERO
    argv = sys.argv[1:]
    if argv[:1] == ["--min-nonzero"]:
        MIN_NONZERO, argv = int(argv[1]), argv[2:]
    trials = int(argv[0]) if argv else 1000
    values, probs = base_shape(argv[1:])
    t = SP.GSPRT(LOW, HIGH) if MIN_NONZERO is None else SP.GSPRT(LOW, HIGH, min_nonzero=MIN_NONZERO)
    print(f"GSPRT [{LOW:g}, {HIGH:g}], alpha = beta = 0.05, min_n {t.min_n}, min_nonzero {t.min_nonzero}, "
          f"looks every {t.look_every} pairs, "
          f"pair limit {MAX_PAIRS:,}; {trials:,} trials per row; 95% intervals from {SIMS:,} Brownian paths")
    for label, shape in (("expert-vs-basic shifted", shifted), (f"zero-heavy ({ZERO_SHARE:.0%} zeros)", zero_heavy)):
        print(f"\n{label}")
        print("  effect | H1 accepted [95%]        | H0 acc. | mean pairs | coverage [95%]       | above truth | "
              "non-finite | no interval | s")
        for j, effect in enumerate(EFFECTS):
            t0 = time.time()
            v, p = shape(values, probs, effect)
            r = evaluate(v, p, effect, trials, seed=1000 * j + (label[0] == "z"))
            lo, hi = stats.wilson_interval(r["h1"], trials)
            clo, chi = stats.wilson_interval(r["cover"], r["estimated"])
            print(f"  {effect:+.3f} | {r['h1'] / trials:.3f} [{lo:.3f}, {hi:.3f}] | {r['h0'] / trials:.3f}   | "
                  f"{r['pairs']:10,.0f} | {r['cover'] / r['estimated']:.3f} [{clo:.3f}, {chi:.3f}] | "
                  f"{r['above'] / r['estimated']:.3f}       | {r['nonfinite']:10d} | {r['no_interval']:11d} | "
                  f"{time.time() - t0:.0f}")


if __name__ == "__main__":
    main()
