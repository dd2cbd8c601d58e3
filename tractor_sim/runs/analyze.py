"""``tractor-sim analyze POLICY``: where does a policy lose its levels?

Every seat plays POLICY on N deals (of any game size).  At every declaration, burial, lead,
follow, auction step (bid, card shown, trump named) and Finding Friends call the
compiled search (kernels.search) values the policy's own play and every
other candidate by rollouts with POLICY at every seat (a Python policy or
bot cannot run inside the kernel: its rollouts are played by a compiled
``rollout_policy``, expert by default), over the same worlds
for all of them (common random numbers), and the policy's play is the one
made, so the deals are POLICY's own and ``tractor-sim replay --a POLICY --b
POLICY`` shows them.  The *regret* of a decision is what the search's
selection gains over the policy's play, in levels and in points.  The best
candidate is selected on one set of worlds; the policy's play and that
selection are then valued on a second, independent set (held-out), and the
regret is the difference there: an unbiased estimate of the selection's true
gain (it can be below 0; it is 0 when the selection is the policy's play or
the play was forced).  The *in-sample* regret, the best mean minus the
policy's on the selecting worlds, is reported too but is biased upwards: the
maximum of many noisy means (the winner's curse) is positive even for a
policy that plays perfectly.  Two columns: from worlds sampled from the
seat's knowledge (what a player could know) and from the true deal (what an
omniscient player would gain).

The report (analyze.md, analyze.html, analyze.png and decisions.csv in the
output directory) gives the mean regret by decision type and by trick with
95% intervals clustered by deal (the decisions of one deal share its
cards), and the worst decisions with the replay command of their deal.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from tractor_sim.stats import dist

from tractor_sim.report.numbers import interval
from tractor_sim.play.game import Game
from tractor_sim.runs import engine
from tractor_sim.play import search
from tractor_sim.rules.cards import SUITS, card_str
from tractor_sim.rules.fields import Whole
from tractor_sim.core.kernels.declare import ANS_CARD, ANS_COUNT, ANS_KIND, NONE as NO_DECLARATION, kind_count
from tractor_sim.core.kernels.dims import CARDS
from tractor_sim.core.kernels.view import DECISIONS

MAX_DEALS = 100_000
CHUNK = 5  # deals per kernel call: the progress bar moves at each
DEFAULT_WORST = 10
# analyze's numbers, declared once (tractor_sim.rules.fields); the search's budget is the search's own.
NUMBERS = {
    "deals": Whole("deals", 1, MAX_DEALS, "deals played, the policy at every seat",
                   "every decision of every deal is kept in memory"),
    "worlds": search.SETTINGS["worlds"], "rollouts": search.SETTINGS["rollouts"], "max_candidates": search.SETTINGS["max_candidates"],
    "worst": Whole("worst", 0, 10_000, "the worst decisions listed with their replay command",
                   "a report lists at most this many"),
}
# The summary's columns: held-out (the headline, unbiased) and in-sample (upper-biased), per world kind.
REGRET_COLUMNS = {"sampled": ("regret_levels", "regret_points"), "true": ("true_regret_levels", "true_regret_points"),
                  "sampled_in": ("insample_regret_levels", "insample_regret_points"),
                  "true_in": ("true_insample_regret_levels", "true_insample_regret_points")}


def _cards(counts) -> str:
    return " ".join(card_str(c) for c in range(CARDS - 1, -1, -1) for _ in range(int(counts[c]))) or "(none)"


def _answer(decision: str, row, step: int = 0, calls: int = 1) -> str:
    """A recorded answer as text: a play's or burial's cards; a declaration's cards shown, or pass (its
    row holds the kind, the card, and with more decks the count: kernels.search._declaration_row); an
    auction step's "bid 40", "show AS" or "trump S" (kernels.view BID_STEP_*); the calls "AS#1"."""
    if decision == "bid":
        if step == 1:
            return f"show {card_str(int(np.argmax(row)))}"
        return f"trump {SUITS[int(row[0])]}" if step == 2 else f"bid {int(row[0])}"
    if decision == "call":
        return " ".join(f"{card_str(int(row[j]))}#{int(row[calls + j])}" for j in range(calls))
    if decision != "declare":
        return _cards(row)
    kind, card, count = (int(row[i]) for i in (ANS_KIND, ANS_CARD, ANS_COUNT))
    if kind == NO_DECLARATION:
        return "pass"
    return " ".join([card_str(card)] * (count or kind_count.py_func(kind)))  # two decks: the kind says


DEFAULT_ROLLOUT_POLICY = "expert"  # rolled out after a Python policy's or bot's decisions


def rollout_policy_of(policy, rollout_policy=None):
    """The compiled policy the search rolls out to value ``policy``'s decisions: the policy itself when it
    is compiled (the regret of its choices, it playing on); for a Python policy or bot, which cannot run
    thousands of times a decision inside the kernel, ``rollout_policy`` (default expert: the regret of
    its choices when the play goes on as expert plays).  Checked before anything compiles."""
    from tractor_sim.play import registry as strategy

    if search.is_search(policy):
        raise ValueError(f"analyze: {policy!r} is a search; give the policy to analyze, e.g. expert "
                         "(the search is what values its decisions)")
    resolved = strategy.resolve_policy(policy)
    if resolved.player is None:
        if rollout_policy is not None:
            raise ValueError(f"analyze: --rollout-policy goes with a Python policy or bot; {resolved.name!r} is "
                             "compiled and rolled out itself")
        return None
    return DEFAULT_ROLLOUT_POLICY if rollout_policy is None else rollout_policy


def run(policy, deals: int = 20, seed: int = 0, rules=None, worlds: int = 16, rollouts: int = 1,
        max_candidates: int = search.DEFAULT_MAX_CANDIDATES, source: str | None = None, levels=(0, 0),
        declaring_team: int = 0, modules=(), chunk_size: int = CHUNK, progress=None, rollout_policy=None,
        game=None) -> dict:
    """Play ``deals`` deals of POLICY at every seat and value each of its decisions (module docstring),
    at the game size ``game`` (tractor_sim.rules.sizes; default 4 players, 2 decks).

    ``source``: "sampled" (the seat's knowledge; needs the sampler) or "true" (the true deal only);
    by default sampled when the sampler is in this build.  Returns {"decisions": DataFrame, "specs",
    "seconds", "rollouts", "source", ...}.  Bad input raises ValueError naming it."""
    from tractor_sim.play import registry as strategy

    strategy.load_builtins()
    for m in modules:
        strategy.load_module(m)
    deals = NUMBERS["deals"].check(deals, "analyze: ")
    rolled = rollout_policy_of(policy, rollout_policy)
    if source is None:
        source = "sampled" if search.SAMPLER_READY else "true"
    if source not in ("sampled", "true"):
        raise ValueError(f"--source: expected sampled or true, got {source!r}")
    kind = search.SEARCH if source == "sampled" else search.ORACLE
    name = policy if isinstance(policy, str) else policy.get("name") or policy.get("policy") or "custom"
    recorder = {"policy": kind, "base": policy, "worlds": worlds, "rollouts": rollouts,
                "max_candidates": max_candidates, "record": True, "name": name}
    if rolled is not None:
        recorder["rollout_policy"] = rolled
    try:
        strategy.resolve_policy(recorder, Game.of(game).package if game is not None else None)  # before it runs
    except strategy.StrategyError as e:
        raise ValueError(f"analyze: {str(e).replace(repr(name), repr(policy), 1)}") from None
    specs = engine.plan_chunks([{"name": "analyze", "a": recorder, "b": recorder}], mode="fixed", n=deals, seed=seed,
                               rules=rules, duplicate=False, chunk_size=chunk_size, levels=levels,
                               declaring_team=declaring_team, modules=modules, game=game)
    t0 = time.perf_counter()
    parts, n_rollouts = [], 0
    for spec in specs:
        result = engine.run_chunk(spec)
        parts.append(result.extra.get("records", np.zeros((0, 1))))
        n_rollouts += result.extra.get("rollouts", 0)
        if progress is not None:
            progress(len(result.deals), result.extra.get("decisions", 0))
    seconds = time.perf_counter() - t0
    frame = decisions_frame(np.concatenate(parts) if parts else np.zeros((0, 1)), source, game)
    replay_spec = replace(specs[0], policies=(policy, policy), names=(name, name))
    frame["replay"] = [engine.replay_command(replay_spec, int(d)) for d in frame["deal_id"]]
    return {"policy": name, "rollout_policy": rolled, "decisions": frame, "source": source, "worlds": worlds,
            "rollouts": rollouts,
            "deals": deals, "seed": seed, "seconds": seconds, "total_rollouts": n_rollouts, "specs": specs}


def decisions_frame(rows: np.ndarray, source: str, game=None) -> pd.DataFrame:
    """The analysis rows (kernels.search_play RECORD) as a table, with the regrets: ``regret_*`` held-out
    (selected minus chosen on the independent worlds), ``insample_regret_*`` on the selecting worlds."""
    SPL = Game.of().kernel("search_play")  # the record's columns (the same at every size)
    calls = Game.of(game).dims.CALLS if game is not None else 1

    if rows.shape[0] == 0:
        rows = np.zeros((0, SPL.AR_FIELDS))
    f = pd.DataFrame({
        "deal_id": rows[:, SPL.AR_DEAL].astype(np.int64),
        "seat": rows[:, SPL.AR_SEAT].astype(np.int64),
        "decision": [DECISIONS[int(d)] for d in rows[:, SPL.AR_DECISION]],
        "trick": rows[:, SPL.AR_TRICK].astype(np.int64) + 1,
        "step": rows[:, SPL.AR_STEP].astype(np.int64),
        "candidates": rows[:, SPL.AR_CANDIDATES].astype(np.int64),
        "rollouts": rows[:, SPL.AR_ROLLOUTS].astype(np.int64),
    })
    blocks = {"": (SPL.AR_CHOSEN_LEVELS, SPL.AR_CHOSEN_POINTS, SPL.AR_BEST_LEVELS, SPL.AR_BEST_POINTS,
                   SPL.AR_HELD_CHOSEN_LEVELS, SPL.AR_HELD_CHOSEN_POINTS, SPL.AR_HELD_BEST_LEVELS,
                   SPL.AR_HELD_BEST_POINTS),
              "true_": (SPL.AR_TRUE_CHOSEN_LEVELS, SPL.AR_TRUE_CHOSEN_POINTS, SPL.AR_TRUE_BEST_LEVELS,
                        SPL.AR_TRUE_BEST_POINTS, SPL.AR_TRUE_HELD_CHOSEN_LEVELS, SPL.AR_TRUE_HELD_CHOSEN_POINTS,
                        SPL.AR_TRUE_HELD_BEST_LEVELS, SPL.AR_TRUE_HELD_BEST_POINTS)}
    for prefix, (cl, cp, bl, bp, hcl, hcp, hbl, hbp) in blocks.items():
        f[prefix + "chosen_levels"] = rows[:, cl]
        f[prefix + "chosen_points"] = rows[:, cp]
        f[prefix + "best_levels"] = rows[:, bl]
        f[prefix + "best_points"] = rows[:, bp]
        f[prefix + "insample_regret_levels"] = rows[:, bl] - rows[:, cl]
        f[prefix + "insample_regret_points"] = rows[:, bp] - rows[:, cp]
        f[prefix + "held_chosen_levels"] = rows[:, hcl]
        f[prefix + "held_chosen_points"] = rows[:, hcp]
        f[prefix + "held_best_levels"] = rows[:, hbl]
        f[prefix + "held_best_points"] = rows[:, hbp]
        f[prefix + "regret_levels"] = rows[:, hbl] - rows[:, hcl]
        f[prefix + "regret_points"] = rows[:, hbp] - rows[:, hcp]
    if source == "true":  # one kind of world only: the first block is the true deal's too
        for col in ("chosen_levels", "chosen_points", "best_levels", "best_points", "insample_regret_levels",
                    "insample_regret_points", "held_chosen_levels", "held_chosen_points", "held_best_levels",
                    "held_best_points", "regret_levels", "regret_points"):
            f[col] = np.nan
    f["chosen"] = [_answer(d, r[SPL.AR_CHOSEN_CARDS:SPL.AR_CHOSEN_CARDS + CARDS], k, calls)
                   for d, r, k in zip(f["decision"], rows, f["step"])]
    f["best"] = [_answer(d, r[SPL.AR_BEST_CARDS:SPL.AR_BEST_CARDS + CARDS], k, calls)
                 for d, r, k in zip(f["decision"], rows, f["step"])]
    return f


def clustered_mean(values, clusters, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of per-decision values with the sandwich variance clustered by deal: the
    decisions of one deal are not independent (the ratio estimator sum y / sum n over deals)."""
    v = np.asarray(values, dtype=float)
    keep = ~np.isnan(v)
    v, g = v[keep], np.asarray(clusters)[keep]
    if len(v) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(v.mean())
    codes, groups = np.unique(g, return_inverse=True)
    k = len(codes)
    if k < 2:
        return (mean, math.nan, math.nan)
    resid = np.bincount(groups, weights=v - mean, minlength=k)
    se = math.sqrt(k / (k - 1) * float((resid ** 2).sum())) / len(v)
    half = float(dist.t_ppf(0.5 + confidence / 2, k - 1)) * se
    return (mean, mean - half, mean + half)


def summary(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    """Mean regret (levels, points) with 95% intervals clustered by deal, per value of ``by``, both
    world kinds, held-out and in-sample (REGRET_COLUMNS), and the decisions with a choice."""
    rows = []
    for key, part in frame.groupby(by, sort=True):
        row = {by: key, "decisions": len(part), "searched": int((part["candidates"] > 1).sum())}
        for label, (lv, pt) in REGRET_COLUMNS.items():
            m, lo, hi = clustered_mean(part[lv], part["deal_id"])
            row[f"{label}_levels"], row[f"{label}_levels_low"], row[f"{label}_levels_high"] = m, lo, hi
            m, lo, hi = clustered_mean(part[pt], part["deal_id"])
            row[f"{label}_points"], row[f"{label}_points_low"], row[f"{label}_points_high"] = m, lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


TABLE_COLUMNS = (("sampled", "sampled worlds", True), ("true", "true deal", True),
                 ("sampled_in", "in-sample, sampled", False), ("true_in", "in-sample, true deal", False))


def _table(s: pd.DataFrame, by: str) -> pd.DataFrame:
    """Held-out levels and points per world kind, then the in-sample (upper-biased) levels."""
    out = pd.DataFrame({by: s[by], "decisions": s["decisions"], "searched": s["searched"]})
    for label, title, points in TABLE_COLUMNS:
        for what, decimals in (("levels", 3), ("points", 1)) if points else (("levels", 3),):
            cols = [f"{label}_{what}", f"{label}_{what}_low", f"{label}_{what}_high"]
            out[f"{what} ({title})"] = [interval(*r, decimals=decimals, missing="n/a")
                                        for r in s[cols].itertuples(index=False)]
    return out


def _rolled_name(result: dict) -> str:
    """Who plays the rollouts: the policy, or the compiled policy rolled out after a Python policy's or bot's
    decisions (its regret is then against play going on as that policy plays)."""
    from tractor_sim.play.chunks import policy_name

    rolled = result.get("rollout_policy")
    if rolled is None:
        return result["policy"]
    return f"{policy_name(rolled)} (the compiled policy rolled out after {result['policy']}'s decisions)"


def as_text(result: dict) -> str:
    """The by-type table for the terminal."""
    t = _table(summary(result["decisions"], "decision"), "decision")
    return (f"{result['policy']}: {len(result['decisions'])} decisions in {result['deals']} deals, mean regret per "
            f"decision, held-out (95% CI, clustered by deal; in-sample columns biased upwards):\n"
            + t.to_string(index=False))


def worst(frame: pd.DataFrame, k: int = DEFAULT_WORST) -> pd.DataFrame:
    """The ``k`` decisions of largest held-out regret (sampled worlds when measured, else the true deal)."""
    col = "regret_levels" if frame["regret_levels"].notna().any() else "true_regret_levels"
    pts = col.replace("levels", "points")
    return frame.sort_values([col, pts], ascending=False, kind="stable").head(k)


def write_report(result: dict, out_dir, worst_k: int = DEFAULT_WORST) -> tuple[Path, Path, Path]:
    """analyze.md, analyze.html, analyze.png and decisions.csv in ``out_dir``; returns (md, html, png)."""
    from tractor_sim.report.render import html_table, md_table
    from tractor_sim.report.plots import plot_regret

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    frame = result["decisions"]
    frame.to_csv(out / "decisions.csv", index=False)
    by_type = summary(frame, "decision")
    by_trick = summary(frame, "trick")
    png = plot_regret(by_trick, result["policy"], out / "analyze.png")
    bad = worst(frame, worst_k)
    sampled = result["source"] == "sampled"
    head = (f"# Where does {result['policy']} lose its levels?\n\n"
            f"{result['deals']} deals (seed {result['seed']}), {result['policy']} at every seat; "
            f"{len(frame)} decisions (declarations, bids, burials, calls, leads and follows), "
            f"{int((frame['candidates'] > 1).sum())} with a choice; "
            f"each candidate valued by {result['worlds']} worlds x {result['rollouts']} rollouts of "
            f"{_rolled_name(result)} to the end of the deal ({result['total_rollouts']:,} rollouts, "
            f"{result['seconds']:.1f} s). Regret (held-out, the headline) = the search's selection minus the "
            f"policy's play, both valued on a second, independent set of as many worlds and rollouts (common "
            f"to the two): the selection is the best mean on the first set. It is an unbiased estimate of "
            f"what the selection gains (it can be below 0; 0 when the selection is the policy's play). The "
            f"in-sample regret (the best mean minus the policy's on the selecting rollouts) is shown too: it "
            f"is biased upwards (the maximum of noisy means, the winner's curse), so it is an upper figure, "
            f"positive even for perfect play. Levels per decision; points as the tie-break. "
            + ("Sampled worlds: deals consistent with the seat's knowledge; true deal: rollouts of the deal "
               "itself (omniscient)." if sampled else
               "Only the true deal (omniscient) was used: this build has no world sampler, so the "
               "sampled-worlds columns are n/a.")
            + " Intervals: 95%, clustered by deal.\n")
    blocks = [("By decision type", _table(by_type, "decision")), ("By trick", _table(by_trick, "trick"))]
    show = bad[["deal_id", "seat", "trick", "decision", "chosen", "best", "regret_levels", "insample_regret_levels",
                "true_regret_levels", "true_regret_points", "replay"]]
    md = [head]
    for title, t in blocks:
        md += [f"## {title}\n", md_table(t), ""]
    md += ["## Regret by trick\n", f"![regret by trick]({png.name})\n", "## Worst decisions\n",
           md_table(show.drop(columns="replay")), "", "Replay each deal:\n"]
    md += [f"- deal {r.deal_id}, seat {r.seat}, trick {r.trick}: `{r.replay}`" for r in bad.itertuples()]
    md_path = out / "analyze.md"
    md_path.write_text("\n".join(md) + "\n")
    body = [f"<h1>{html.escape(head.splitlines()[0][2:])}</h1>", f"<p>{html.escape(head.split(chr(10), 2)[2])}</p>"]
    for title, t in blocks:
        body += [f"<h2>{html.escape(title)}</h2>", html_table(t)]
    body += ["<h2>Regret by trick</h2>", f'<img src="{png.name}" alt="regret by trick">', "<h2>Worst decisions</h2>",
             html_table(show)]
    html_path = out / "analyze.html"
    html_path.write_text("<!doctype html><meta charset='utf-8'><title>analyze</title>"
                         "<style>body{font-family:sans-serif;max-width:70em}td,th{padding:2px 8px}</style>"
                         + "\n".join(body))
    return md_path, html_path, png
