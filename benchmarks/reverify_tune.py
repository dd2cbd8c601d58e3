"""Re-run only tune's verification: the shipped tune report's final values against the starting ones
under the GSPRT, on the verification's own deals, with the current test and stopping-corrected estimate
(the SPSA part is not repeated).

Run: python benchmarks/reverify_tune.py
"""
import pandas as pd
from tractor_sim.runs import tune
from tractor_sim.stats import sprt as SP
cfg = tune.load("experiments/tune.toml")
final = pd.read_csv("reports/tune/trajectory.csv").iloc[-1]
tuned = {n: float(final[n]) for n in cfg["params"]}
r = tune.verify(cfg, tuned)
t, e = r["sprt"]["test"], r["sprt"]["estimate"]
print(tuned)
print(SP.verdict(t, "tuned", "default"))
print(f"LLR {t.llr:.2f} after {t.n} pairs ({t.nonzero} differed), mean {t.mean:+.4f}; estimate {SP.estimate_text(e)}")
