"""The match chain against simulated matches, per rules preset.

Run: python benchmarks/bench_chain.py [MATCHES]   (matches per half; default 400)
Plays A = basic with the expert discard against B = basic with the lowest discard in
duplicate matches, solves the chain from those deals' rows under the preset's rules,
and prints the chain's P(A wins) and expected deals next to the observed ones
(observed intervals clustered by match pair).
"""
import sys
import time

from tractor_sim.runs import runner
from tractor_sim.stats import chain
from tractor_sim.runs import engine
from tractor_sim.stats import summary as stats

A = {"policy": "basic", "discard": "expert", "name": "expert_discard"}
B = {"policy": "basic", "discard": "lowest", "name": "lowest_discard"}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for preset in ("standard", "russian"):
        t = time.time()
        deals, matches = runner.simulate([(A, B)], mode="match", n=n, seed=31, rules=preset, chunk_size=100)
        c = chain.win_probability(deals, A["name"], B["name"], rules=preset)
        s = stats.matchup_summary(deals, matches).set_index("policy").loc[A["name"]]
        se_deals = matches["deals"].std() / (len(matches) / 2) ** 0.5  # pairs of matches: conservative
        print(f"{preset}: {len(matches)} matches, {len(deals)} deals, {time.time() - t:.0f} s")
        print(f"  chain    P(A wins) {c['win_prob']:.3f} [{c['low']:.3f}, {c['high']:.3f}], "
              f"expected deals {c['expected_deals']:.2f}")
        print(f"  observed A win rate {s['win_rate']:.3f} [{s['win_low']:.3f}, {s['win_high']:.3f}], "
              f"deals per match {s['deals_per_match']:.2f} ± {1.96 * se_deals:.2f}")
        wrong = chain.win_probability(deals, A["name"], B["name"], rules="standard" if preset == "russian"
                                      else "russian", n_boot=20)
        print(f"  the chain under the other preset's rules: P {wrong['win_prob']:.3f}, "
              f"expected deals {wrong['expected_deals']:.2f}")


if __name__ == "__main__":
    main()
