"""Coverage of the rating intervals (tractor_sim.stats.ratings) with shared deals.

Run: python benchmarks/bench_coverage.py [REPLICATIONS]   (default 1000)
The planted-effect design of tests/test_ratings.py: four policies, an incomplete
round robin (x-y, y-z, z-w, x-w), every matchup replaying the same 400 deal ids,
zero-heavy integer results. Prints the share of 95% intervals of all six rating
differences that cover the truth, for the clustered sandwich and for the old way
(independent matchups).
"""
import sys

sys.path.insert(0, "tests")
from test_ratings import coverage  # noqa: E402

from tractor_sim.stats import summary as stats  # noqa: E402


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    for label, naive in (("clustered by deal id", False), ("matchups as independent", True)):
        c = coverage(reps, naive=naive, seed=11)
        k = round(c * reps * 6)
        lo, hi = stats.wilson_interval(k, reps * 6)
        print(f"{label}: {k}/{reps * 6} intervals cover = {c:.4f} [{lo:.4f}, {hi:.4f}] ({reps} replications)")


if __name__ == "__main__":
    main()
