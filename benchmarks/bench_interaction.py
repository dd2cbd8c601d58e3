"""Coverage of the interaction intervals (tractor_sim.stats.contexts) with deals shared by the contexts.

Run: python benchmarks/bench_interaction.py [REPLICATIONS]   (default 1000)
The design of tests/test_contexts.py: four policies in an incomplete round robin, two contexts replaying
the same 400 deal ids with each policy's draws shared by both (strongly correlated errors) and planted
strengths that differ between the contexts. Prints the share of 95% intervals of all six interactions
that cover the truth, for the clustered sandwich over both fits and for the contexts taken as independent.
"""
import sys

sys.path.insert(0, "tests")
from test_contexts import interaction_coverage  # noqa: E402

from tractor_sim.stats import summary as stats  # noqa: E402


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    hit, naive = interaction_coverage(reps, seed=11)
    for label, c in (("clustered over both contexts", hit), ("contexts as independent", naive)):
        k = round(c * reps * 6)
        lo, hi = stats.wilson_interval(k, reps * 6)
        print(f"{label}: {k}/{reps * 6} intervals cover = {c:.4f} [{lo:.4f}, {hi:.4f}] ({reps} replications)")


if __name__ == "__main__":
    main()
