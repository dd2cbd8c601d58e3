"""``tune``: SPSA on a strategy's parameters, as Fishtest tunes engine parameters.

Each iteration perturbs every parameter at once by +-c_k (random signs),
plays the policy with theta + c_k Delta against the same policy with
theta - c_k Delta on fresh duplicate deal pairs, and moves theta along
Delta by a_k * (mean pair score) / (2 c_k). Gains follow the usual schedule
a_k = a / (A + k + 1)^alpha, c_k = c / (k + 1)^gamma (alpha = 0.602,
gamma = 0.101), with a = r c^2 (A + 1)^alpha per parameter, so the first
step is r * c * score / 2. The run ends with the tuned values against the
starting ones under the sequential test (compare.duel).

The tune file (TOML):

    name = "tune-expert"
    seed = 7
    [rules]                      # as in experiment files
    preset = "standard"
    [tune]
    policy = {policy = "basic", discard = "expert", lead = "expert"}
    iterations = 30
    pairs = 400                  # duplicate deal pairs per measurement
    r = 4.0                      # optional: A, alpha, gamma too
    [tune.params."discard.threshold"]
    start = 14
    c = 3
    min = 0
    max = 30
    [verify]
    pairs = 20000                # at most
    low = 0.0                    # the GSPRT's H0 and H1, levels per deal
    high = 0.03
"""

from __future__ import annotations

import json
from tractor_sim.rules import files
from pathlib import Path

import numpy as np
import pandas as pd

from tractor_sim.runs import compare

from tractor_sim.runs import engine

from tractor_sim.rules import options

from tractor_sim.stats import sprt as SP

from tractor_sim.stats import summary as stats

ALPHA, GAMMA = 0.602, 0.101
TOP = {"name", "description", "seed", "rules", "tune", "verify", "strategy_modules"}
TUNE = {"policy", "iterations", "pairs", "r", "A", "alpha", "gamma", "params"}
PARAM = {"start", "c", "min", "max"}
VERIFY = {"pairs", "low", "high"}


class TuneError(ValueError):
    """A bad tune file; the message names the field."""


def _table(data, keys: set, where: str) -> dict:
    if not isinstance(data, dict):
        raise TuneError(f"{where} must be a table")
    for k in data:
        if k not in keys:
            raise TuneError(f"{where}: unknown field {k!r}; expected some of {', '.join(sorted(keys))}")
    return data


def _number(v, where: str, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (positive and not v > 0):
        raise TuneError(f"{where} must be a {'positive ' if positive else ''}number, got {v!r}")
    return float(v)


def load(path) -> dict:
    """Read and check a tune file: every field named in its error."""
    path = Path(path)
    data = files.read_toml(path, "tune file", TuneError)
    _table(data, TOP, str(path))
    tune = _table(data.get("tune"), TUNE, "[tune]")
    if "policy" not in tune:
        raise TuneError("[tune]: missing field 'policy' (a policy table such as {policy = \"basic\", "
                        "discard = \"expert\"})")
    params = _table(tune.get("params") or {}, set(tune.get("params") or {}), "[tune.params]")
    if not params:
        raise TuneError("[tune.params]: no parameters to tune")
    spec = {}
    for name, p in params.items():
        where = f"[tune.params.{name!r}]"
        _table(p, PARAM, where)
        for k in ("start", "c"):
            if k not in p:
                raise TuneError(f"{where}: missing field {k!r}")
        lo, hi = _number(p.get("min", -1e9), f"{where} min"), _number(p.get("max", 1e9), f"{where} max")
        start = _number(p["start"], f"{where} start")
        if not lo <= start <= hi:
            raise TuneError(f"{where}: start {start:g} is outside min..max")
        spec[name] = {"start": start, "c": _number(p["c"], f"{where} c", True), "min": lo, "max": hi}
    verify = _table(data.get("verify") or {}, VERIFY, "[verify]")
    try:
        rules = options.as_rules(data.get("rules") or {})
    except options.RulesError as e:
        raise TuneError(f"[rules]: {e}") from None
    out = {
        "name": str(data.get("name") or path.stem), "description": str(data.get("description", "")),
        "seed": int(data.get("seed", 0)), "rules": rules.to_dict(), "policy": tune["policy"],
        "iterations": int(_number(tune.get("iterations", 30), "[tune] iterations", True)),
        "pairs": int(_number(tune.get("pairs", 400), "[tune] pairs", True)),
        "r": _number(tune.get("r", 4.0), "[tune] r", True),
        "alpha": _number(tune.get("alpha", ALPHA), "[tune] alpha", True),
        "gamma": _number(tune.get("gamma", GAMMA), "[tune] gamma", True),
        "params": spec, "modules": list(data.get("strategy_modules", [])),
        "verify": {"pairs": int(_number(verify.get("pairs", 20000), "[verify] pairs", True)),
                   "low": _number(verify.get("low", 0.0), "[verify] low"),
                   "high": _number(verify.get("high", 0.03), "[verify] high")},
    }
    out["A"] = _number(tune.get("A", max(1, out["iterations"] // 10)), "[tune] A")
    if not out["verify"]["low"] < out["verify"]["high"]:
        raise TuneError("[verify]: low must be below high")
    if not isinstance(out["policy"], dict):
        raise TuneError("[tune] policy must be a table such as {policy = \"basic\", discard = \"expert\"}")
    return out


def _with(policy: dict, name: str, values: dict) -> dict:
    return {**policy, "name": name, "params": {**dict(policy.get("params") or {}), **values}}


def measure(cfg: dict, plus: dict, minus: dict, seed: int) -> tuple[float, int]:
    """Mean pair score of plus against minus (levels per deal) on fresh duplicate pairs."""
    specs = engine.plan_chunks([{"name": "spsa", "a": _with(cfg["policy"], "plus", plus),
                                 "b": _with(cfg["policy"], "minus", minus)}],
                               mode="fixed", n=cfg["pairs"], seed=seed, rules=cfg["rules"], duplicate=True,
                               chunk_size=cfg["pairs"], modules=cfg["modules"])
    deals, _ = engine.to_frames([engine.run_chunk(s) for s in specs])
    c = stats.paired_comparison(deals, "plus", "minus")
    return c["mean"], c["n_pairs"]


def spsa(cfg: dict, progress=None) -> pd.DataFrame:
    """The trajectory: one row per iteration with theta before the step, c_k, a_k, the score."""
    names = list(cfg["params"])
    theta = np.array([cfg["params"][n]["start"] for n in names])
    c0 = np.array([cfg["params"][n]["c"] for n in names])
    lo = np.array([cfg["params"][n]["min"] for n in names])
    hi = np.array([cfg["params"][n]["max"] for n in names])
    a0 = cfg["r"] * c0 ** 2 * (cfg["A"] + 1) ** cfg["alpha"]
    rng = np.random.default_rng(cfg["seed"])
    rows = []
    for k in range(cfg["iterations"]):
        ck = c0 / (k + 1) ** cfg["gamma"]
        ak = a0 / (cfg["A"] + k + 1) ** cfg["alpha"]
        delta = rng.choice([-1.0, 1.0], size=len(names))
        plus = np.clip(theta + ck * delta, lo, hi)
        minus = np.clip(theta - ck * delta, lo, hi)
        y, n = measure(cfg, dict(zip(names, plus)), dict(zip(names, minus)),
                       seed=(cfg["seed"] * 1_000_003 + k + 1) % 2**63)
        rows.append({"iteration": k, **{n_: t for n_, t in zip(names, theta)}, "score": y, "pairs": n,
                     **{f"c_{n_}": c for n_, c in zip(names, ck)}, **{f"a_{n_}": a for n_, a in zip(names, ak)}})
        theta = np.clip(theta + ak * y / (2 * ck) * delta, lo, hi)
        if progress:
            progress(k, theta)
    rows.append({"iteration": cfg["iterations"], **dict(zip(names, theta))})
    return pd.DataFrame(rows)


def verify(cfg: dict, tuned: dict) -> dict:
    """Tuned against the starting values under the GSPRT (new deals: a seed of its own)."""
    start = {n: p["start"] for n, p in cfg["params"].items()}
    v = cfg["verify"]
    return compare.duel(_with(cfg["policy"], "tuned", tuned), _with(cfg["policy"], "default", start),
                        max_pairs=v["pairs"], sprt=(v["low"], v["high"]), seed=(cfg["seed"] + 1) % 2**63,
                        chunk_size=1000, modules=cfg["modules"], rules=cfg["rules"])


def write(cfg: dict, trajectory: pd.DataFrame, result: dict, out: Path, command: str) -> Path:
    """trajectory.csv, figures/trajectory.png, manifest.json and report.md in the run directory."""
    from tractor_sim.report import plots
    from tractor_sim.report.render import md_table

    out.mkdir(parents=True, exist_ok=True)
    trajectory.to_csv(out / "trajectory.csv", index=False)
    names = list(cfg["params"])
    plots.plot_trajectory(trajectory, names, out / "figures" / "trajectory.png")
    (out / "manifest.json").write_text(json.dumps({"name": cfg["name"], "tune": cfg, "command": command},
                                                  indent=2, default=str))
    final = trajectory.iloc[-1]
    t, e = result["sprt"]["test"], result["sprt"]["estimate"]
    lines = [f"# tractor-sim tuning: {cfg['name']}", "", cfg["description"], "",
             "## Result", "",
             f"**{SP.verdict(t, 'tuned', 'default')}: LLR {t.llr:.2f} in ({t.lower_bound:.2f}, "
             f"{t.upper_bound:.2f}) after {t.n:,} duplicate deal pairs; stopping-corrected estimate of tuned "
             f"minus default {SP.estimate_text(e)}.**",
             "", "| parameter | start | tuned |", "|---|---|---|"]
    lines += [f"| {n} | {cfg['params'][n]['start']:g} | {final[n]:.2f} |" for n in names]
    lines += ["", "## Method", "",
              f"SPSA: {cfg['iterations']} iterations; each plays theta + c_k Delta against theta - c_k Delta "
              f"(Delta: random signs, every parameter at once) on {cfg['pairs']:,} fresh duplicate deal pairs; "
              f"theta moves by a_k * score / (2 c_k) * Delta, a_k = a / (A + k + 1)^{cfg['alpha']:g}, "
              f"c_k = c / (k + 1)^{cfg['gamma']:g}, A = {cfg['A']:g}, a = {cfg['r']:g} c^2 (A + 1)^alpha. "
              "The score is the plus side's net levels per deal. Then tuned against the start under the GSPRT "
              f"(H0 {cfg['verify']['low']:g}, H1 {cfg['verify']['high']:g} levels per deal, alpha = beta = 0.05), "
              "on deals of their own.", "",
              "![SPSA trajectory](figures/trajectory.png)", "",
              "## Trajectory", "",
              md_table(trajectory.map(lambda v: "" if pd.isna(v) else f"{v:.4g}" if isinstance(v, float) else str(v))),
              "", "## Reproduce", "", "```sh", command, "```", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
