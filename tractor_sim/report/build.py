"""Turn a run directory into summary.csv, figures/*.png, report.md and a
single-file report.html (figures embedded, opens offline).

The report is a list of blocks rendered twice, to Markdown and to HTML, so
both always say the same thing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from tractor_sim.rules import files
from tractor_sim.stats import chain

from tractor_sim.stats import summary as stats
from tractor_sim.report import contexts as report_contexts
from tractor_sim.report import render, sections
from tractor_sim.report.numbers import interval, number
from tractor_sim.rules.options import RulesError, as_rules

NO_MATCHES = "no matches in this run (fixed-levels mode)"
MAX_HEATMAPS = 4  # a tournament has many matchups: keep the report readable and small


# ------------------------------------------------------------------ analysis

def _read_optional(path: Path) -> pd.DataFrame | None:
    if not path.exists():
        return None
    table = files.read_parquet(path, "matches table", ValueError)
    return table if len(table) else None


def _two_policies(d: pd.DataFrame) -> tuple[str, str] | None:
    """(A, B) of a matchup with two different policies; A is team 0 in half 0."""
    policies = {str(p) for c in ("policy0", "policy1") for p in pd.unique(d[c])}
    if len(policies) != 2:
        return None
    a = str(d["policy0"].iloc[int(np.argmax(d["half"].to_numpy() == 0))])
    return a, (policies - {a}).pop()


def _matchups(deals: pd.DataFrame):
    """(name, deals) per matchup in order of appearance, by category codes."""
    cat = pd.Categorical(deals["matchup"])
    codes = cat.codes
    for c in pd.unique(codes):
        mine = codes == c
        yield str(cat.categories[c]), deals if mine.all() else deals[mine]


def _markov(deals: pd.DataFrame, rules, first: tuple[str, str] | None,
            decks: int = 2) -> tuple[list[dict], list[tuple]]:
    """The chain for the top two policies first, then other matchups up to MAX_HEATMAPS
    (each chain's bootstrap costs seconds: a 21-matchup tournament would take minutes)."""
    done, skipped = [], []
    todo = list(_matchups(deals))
    if first is not None:
        todo.sort(key=lambda md: _two_policies(md[1]) not in (first, first[::-1]))
    for m, d in todo:
        ab = _two_policies(d)
        if ab is None:
            skipped.append((m, "not two different policies"))
            continue
        if len(done) >= MAX_HEATMAPS:
            skipped.append((m, f"only {MAX_HEATMAPS} chains per report, each bootstrap costs seconds "
                               "(tractor_sim.stats.chain.win_probability computes any)"))
            continue
        if first is not None and set(ab) == set(first):
            ab = first
        try:
            r = chain.win_probability(d, *ab, rules=rules, decks=decks)
        except ValueError as e:
            skipped.append((m, str(e)))
            continue
        r["matchup"] = m
        done.append(r)
    return done, skipped


def _game_size(manifest: dict):
    """The game size played (tractor_sim.rules.sizes): a manifest without one is the 4-player 2-deck game."""
    from tractor_sim.rules.sizes import GameSize, GameSizeError

    try:
        return GameSize.of(manifest.get("experiment", {}).get("game"))
    except GameSizeError as e:
        raise ValueError(f"manifest.json: {e}") from None


def _game_sentence(manifest: dict) -> str:
    """The game size played, in words."""
    size = _game_size(manifest)
    kind = "two teams sitting alternately" if size.teams == "tractor" else "Finding Friends"
    return (f"{size.players} players, {size.decks} decks ({kind}; kitty {size.kitty}, hands of {size.hand}, "
            f"{100 * size.decks} points, level steps of {stats.level_step(size.decks)})")


def _rules(manifest: dict):
    """The run's resolved rules (the manifest's experiment), never a default by accident."""
    exp = manifest.get("experiment") or {}
    try:
        return as_rules(exp.get("rules"))
    except RulesError as e:
        raise ValueError(f"manifest.json: the run's rules do not resolve: {e}") from None


# ------------------------------------------------------------------ text

def _headline(summary: pd.DataFrame, rated: dict) -> str:
    if not rated.get("error") or rated.get("parts"):
        return sections.headline(rated)
    s = summary.dropna(subset=["level_change"])
    if not len(s):
        return "The run recorded no deals to compare."
    best = s.loc[s["level_change"].idxmax()]
    ci = (f" (95% CI {best['level_change_low']:+.3f} to {best['level_change_high']:+.3f})"
          if not math.isnan(best["level_change_low"]) else "")
    return (f"No ratings ({rated['error']}). Policy {best['policy']} has the best level change, "
            f"{best['level_change']:+.3f} levels per deal{ci}, in {best['matchup']} (against "
            f"{_opponent(s, best)}) over {int(best['deals']):,} deals.")


def _opponent(summary: pd.DataFrame, row) -> str:
    """Whom a policy's figure was measured against: the other policy of its matchup."""
    other = summary[(summary["matchup"] == row["matchup"]) & (summary["policy"] != row["policy"])]["policy"]
    return ", ".join(map(str, other)) or "itself"


def _played_sentence(summary: pd.DataFrame) -> str:
    """Observed match result of the first matchup of two policies, if matches were played
    (interval clustered by match pair)."""
    if "win_rate" not in summary:
        return ""
    for m, g in summary.groupby("matchup", sort=False):
        if len(g) == 2 and g["matches"].notna().all():
            r = g.iloc[0]
            return (f"In the matches played{' in ' + m if summary['matchup'].nunique() > 1 else ''}, "
                    f"{r['policy']} won {int(r['wins']):,} of {int(r['matches']):,} ({r['win_rate']:.3f}, "
                    f"95% CI {r['win_low']:.3f} to {r['win_high']:.3f}).")
    return ""


def _summary_table(summary: pd.DataFrame) -> pd.DataFrame:
    s = summary
    t = pd.DataFrame({
        "matchup": s["matchup"], "policy": s["policy"], "deals": s["deals"],
        "net levels / deal [95% CI]": [interval(*v) for v in zip(s["level_change"], s["level_change_low"],
                                                             s["level_change_high"])],
        "deals declared": s["declared"],
        "hold rate as declarers [95% CI]": [interval(*v) for v in zip(s["hold_rate"], s["hold_low"], s["hold_high"])],
        "points conceded as declarers: mean (descriptive)": s["conceded_mean"].map(lambda v: number(v, 1)),
        "median [quartiles]": [f"{number(m, 0)} [{number(a, 0)}-{number(b, 0)}]" for m, a, b in
                               zip(s["conceded_q50"], s["conceded_q25"], s["conceded_q75"])],
        "points taken as defenders: mean (descriptive)": s["taken_mean"].map(lambda v: number(v, 1)),
        "median [quartiles] ": [f"{number(m, 0)} [{number(a, 0)}-{number(b, 0)}]" for m, a, b in
                                zip(s["taken_q50"], s["taken_q25"], s["taken_q75"])],
    })
    if "win_rate" in s:
        t["matches"] = s["matches"].map(lambda v: number(int(v)) if not math.isnan(v) else "")
        t["match win rate [95% CI]"] = [interval(*v) for v in zip(s["win_rate"], s["win_low"], s["win_high"])]
        t["deals / match"] = s["deals_per_match"].map(lambda v: number(v, 1))
    return t


def _markov_table(results: list[dict], summary: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in results:
        row = {"matchup": r["matchup"], "A": r["policy_a"], "B": r["policy_b"], "match end": r["match_end"],
               "P(A wins) from 2-2 [95% CI]": interval(r["win_prob"], r["low"], r["high"]),
               "expected deals (descriptive)": number(r["expected_deals"], 1),
               "deals with A / B declaring": f"{r['n_declared']['a']:,} / {r['n_declared']['b']:,}"}
        if "win_rate" in summary:
            o = summary[(summary["matchup"] == r["matchup"]) & (summary["policy"] == r["policy_a"])]
            if len(o) and not math.isnan(o["win_rate"].iloc[0]):
                o = o.iloc[0]
                row["observed A win rate [95% CI]"] = interval(o["win_rate"], o["win_low"], o["win_high"])
                # the level-independence assumption's test: chain minus observed, the two errors added as if
                # independent (they share the deals, so this interval is conservative)
                se = math.hypot((r["high"] - r["low"]) / 3.92, (o["win_high"] - o["win_low"]) / 3.92)
                diff = r["win_prob"] - o["win_rate"]
                row["chain - observed [95% CI]"] = (interval(diff, diff - 1.96 * se, diff + 1.96 * se)
                                                    if np.isfinite(se) else "")
                row["observed deals / match (descriptive)"] = number(o["deals_per_match"], 1)
        rows.append(row)
    return pd.DataFrame(rows)


def _row_table(deals: pd.DataFrame, decks: int = 2) -> pd.DataFrame:
    freq = stats.row_frequencies(deals, by_declarer=True, decks=decks)
    n = freq.pop("n")
    t = freq.map(lambda v: f"{100 * v:.1f}%")
    t["deals"] = n.map(number)
    return t.reset_index()


# ------------------------------------------------------------------ the report

def _versions(v) -> list[str]:
    if isinstance(v, dict):
        return [f"{k}: {x}" for k, x in v.items()] or ["(none recorded)"]
    return [str(v) if v else "(none recorded)"]


# The deal columns the statistics and figures read; the others stay on disk (a report over
# 10,000,000 deals read them all and peaked at 5.5 GB).
REPORT_COLUMNS = ["matchup", "policy0", "policy1", "half", "deal_id", "match_id", "deal_in_match",
                  "declaring_team", "gain", "gain_team", "opp_points", "row",
                  "level0_before", "level1_before", "level0_after", "level1_after"]


PLOT_ROWS = 400_000  # descriptive figures of bigger runs draw a systematic sample of the deals


def _plot_sample(deals: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Every k-th duplicate pair or match (both halves kept) when the run is big, with a caption note;
    the tables and every statistic always use all the deals."""
    if len(deals) <= PLOT_ROWS:
        return deals, ""
    k = -(-len(deals) // PLOT_ROWS)
    match_mode = bool((deals["match_id"].to_numpy() >= 0).any())
    key = deals["match_id" if match_mode else "deal_id"].to_numpy()
    return deals[key % k == 0], f" (every {k}th {'match' if match_mode else 'deal'} id of {len(deals):,} deals)"


def _read_columns(path: Path, columns: list[str]) -> pd.DataFrame:
    """The columns one at a time, single-threaded: reading all at once held the
    decompression buffers of every column together (1.1 GB for 10,000,000 deals)."""
    import pyarrow.parquet as pq

    files.check_file(path, "deals table")  # missing, a directory, empty: named
    try:
        f = pq.ParquetFile(path)
        names = set(f.schema_arrow.names)
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"{path}: no column {', '.join(missing)}: not a deals table of this version")
        return pd.DataFrame({c: f.read(columns=[c], use_threads=False).column(0).to_pandas() for c in columns},
                            copy=False)
    except Exception as e:  # noqa: BLE001 - pyarrow's errors for a damaged file are of many classes
        # (OSError, ArrowInvalid, a bare ArrowException for a damaged string: files.read_parquet likewise)
        if isinstance(e, ValueError) and str(e).startswith(str(path)):
            raise
        raise ValueError(f"{path}: not a readable deals table (truncated or damaged Parquet: "
                         f"{(str(e).strip().splitlines() or [type(e).__name__])[0][:200]})") from None


def build_report(run_dir) -> tuple[Path, Path]:
    """Write summary.csv, figures/*.png, report.md and report.html into run_dir
    from its manifest.json, deals.parquet and (optional) matches.parquet."""
    run_dir = Path(run_dir)
    manifest = files.read_json(run_dir / "manifest.json", "run manifest")
    if (manifest.get("experiment", {}).get("game") or {}).get("teams") == "friends":
        return _friends_report(run_dir, manifest)
    deals = _read_columns(run_dir / "deals.parquet", REPORT_COLUMNS + report_contexts.columns(manifest))
    if not len(deals):
        raise ValueError(f"{run_dir / 'deals.parquet'} has no deals to report on")
    matches = _read_optional(run_dir / "matches.parquet")
    (run_dir / "figures").mkdir(exist_ok=True)

    rules = _rules(manifest)
    decks = _game_size(manifest).decks  # the level table's rows are 20 * decks points wide
    shown, note = _plot_sample(deals)
    figures = _deal_figures(shown, note, decks, run_dir)
    summary = report_contexts.with_context(stats.matchup_summary(deals, matches), deals)
    summary.to_csv(run_dir / "summary.csv", index=False)
    rated = sections.rate(deals)
    markov, markov_skipped = _markov(deals, rules, sections.top_two(rated), decks)
    chain_text = sections.chain_sentence(markov, rated)
    match_mode = bool((deals["match_id"].to_numpy() >= 0).any())
    name = str(manifest.get("name", run_dir.name))
    matchup_names = [m for m, _ in _matchups(deals)]
    figures += _figures(shown, note, matches, summary, markov, match_mode, run_dir)  # drawn while the text is made

    b: list[tuple] = [("h", 1, f"tractor-sim report: {name}")]
    b += [("headline", _headline(summary, rated)), ("p", _measured_against(manifest, rules, match_mode))]
    b += sections.forest(rated, run_dir)
    if not rated.get("error") or rated.get("parts"):
        b += [("p", "Levels per deal: a policy's net levels (its team's gains minus the other team's) over the "
                    "deals played. ± is the half-width of the simultaneous 95% interval; a duplicate pair is one "
                    "deal (or match) played twice with the policies swapped between the teams.")]
    by_context = report_contexts.analyze(deals)
    b += report_contexts.headline(by_context)
    if chain_text:
        b += [("p", chain_text)]

    played = _played_sentence(summary)
    if played:
        b += [("p", played)]

    b += [("h", 2, "Tables")] + _tables(rated, summary, deals, matches, decks, match_mode, run_dir)
    b += _markov_blocks(markov, markov_skipped, summary, rules, match_mode)
    b += report_contexts.blocks(by_context, run_dir)
    b += figures

    from tractor_sim.report.viewer import report_blocks

    b += report_blocks(run_dir, deals)
    mode = f"{'matches' if match_mode else 'fixed levels'}; duplicate: {'no' if 'pairs' not in rated else 'yes'}"
    b += _appendix(manifest, name, deals, matches, mode, matchup_names, rules)
    return _write_report(run_dir, manifest, name, b)


def _tables(rated, summary, deals, matches, decks: int, match_mode: bool, run_dir: Path) -> list[tuple]:
    """The ratings' tables, then per matchup and policy, then the level-table rows."""
    b = sections.blocks(rated, run_dir)
    b += [("h", 3, "Per matchup and policy"),
          ("p", "Net levels / deal: the policy's team gains minus the other team's, summed over the deals and "
                "divided by them; the t interval is clustered by "
                f"{'match pair (the deals of one match, and its duplicate, are not independent)' if match_mode else 'duplicate deal pair'}. "
                f"Hold rate: share of the policy's declaring deals with p < {2 * stats.level_step(decks)} (interval "
                "clustered the same way). "
                "Points conceded as declarers: the opponents' total p in the deals this policy declared "
                "(in a discard study, what its own burial and play let through). Points taken as defenders: "
                "p in the deals the other policy declared (in a discard study, a measure of the other policy's "
                "burial, not of this one's)." + (" Match win rate: clustered by match pair." if matches is not None
                                                 else "")),
          ("table", _summary_table(summary))]
    b += [("h", 3, "Level-table rows by declaring policy"),
          ("p", "Shares of the declaring policy's deals in each row (descriptive, no intervals)."),
          ("table", _row_table(deals, decks))]
    return b


def _markov_blocks(markov: list[dict], skipped: list, summary, rules, match_mode: bool) -> list[tuple]:
    """The match win probability from the deals' row distributions, and why a matchup has none."""
    if not (markov or skipped):
        return []
    b = [("h", 3, "Match win probability (Markov chain)"),
          ("p", "Absorbing chain over (level of A, level of B, declaring team) under the run's resolved "
                f"rules (match_end = {rules.match_end}, must_defend = {rules.must_defend}, declaring = "
                f"{rules.declaring}), with the level changes from the kernels' level table; each declaring "
                "policy's row distribution is estimated from the deals and assumed independent of the "
                "levels: a deal's result is taken not to depend on the levels of the two teams (the deals "
                "were played at the levels of this run only)" + (", which the observed match results beside it "
                "test: an interval of chain - observed that excludes 0 says the levels matter" if match_mode
                else "; no matches were played here to test it") + ". "
                + ("Under the auction every deal's declarers are A's team with the observed "
                              "share. " if rules.declaring == "auction" else
                              "First declarer 50/50, then the declarers keep the deal while they hold. ")
                + "Interval: bootstrap resampling deal ids (the two policies play the same deals, so their "
                  "row counts are resampled together).")]
    if markov:
        b += [("table", _markov_table(markov, summary))]
    reasons = {}
    for m, why in skipped:
        reasons.setdefault(why, []).append(m)
    b += [("p", f"Skipped {', '.join(ms)}: {why}.") for why, ms in reasons.items()]
    return b


def _deal_figures(shown, note: str, decks: int, run_dir: Path) -> list[tuple]:
    """The figures of the deals alone (``shown``: _plot_sample's), begun first: report.drawing may draw
    them while the rest of the report is worked out."""
    b: list[tuple] = [("h", 2, "Figures")]
    render.figure(b, run_dir, "opp_points.png", "Points taken as defenders (the opponents' total p), by the defending "
                  "policy" + note, "plot_opp_points", shown, decks)
    render.figure(b, run_dir, "row_frequencies.png", "Level-table row frequencies by declaring policy" + note,
                  "plot_row_frequencies", shown, decks)
    return b


def _figures(shown, note: str, matches, summary, markov: list[dict], match_mode: bool, run_dir: Path) -> list[tuple]:
    """The other figures: level changes, deals per match, level trajectories, the win probability heatmaps."""
    b: list[tuple] = []
    render.figure(b, run_dir, "level_change.png", "Net levels per deal with 95% intervals (clustered)",
                  "plot_level_change", summary)
    if matches is not None:
        render.figure(b, run_dir, "deals_per_match.png", "Deals per match", "plot_deals_per_match", matches)
    else:
        b += [("p", f"Deals per match: skipped, {NO_MATCHES}.")]
    if match_mode:
        render.figure(b, run_dir, "level_trajectories.png", "Levels through a match" + note,
                      "plot_level_trajectories", shown)
    else:
        b += [("p", f"Level trajectories: skipped, {NO_MATCHES}.")]
    if len(markov) > MAX_HEATMAPS:
        b += [("p", f"Win probability heatmaps: the first {MAX_HEATMAPS} of {len(markov)} matchups; "
                    "the table above has them all.")]
    for i, r in enumerate(markov[:MAX_HEATMAPS]):
        title = f"P({r['policy_a']} wins) by starting levels, {r['matchup']}"
        render.figure(b, run_dir, f"win_probability_{i}.png", title, "plot_win_heatmap", r["table"], title)
    if not markov:
        b += [("p", "Win probability heatmap: skipped, no matchup of two policies with both declaring.")]
    return b


def _ranked_levels(v):
    """Level codes (0 = "2" ... 12 = "A") back as the ranks the experiment file names."""
    if isinstance(v, dict):
        return {k: ([stats.LEVEL_NAMES[x] if isinstance(x, int) and 0 <= x < len(stats.LEVEL_NAMES) else x
                     for x in x_] if "level" in k and isinstance(x_, list) else _ranked_levels(x_))
                for k, x_ in v.items()}
    if isinstance(v, list):
        return [_ranked_levels(x) for x in v]
    return v


def _measured_against(manifest: dict, rules, match_mode: bool) -> str:
    """What every figure of the report was measured in: opponents, rules, levels."""
    exp = manifest.get("experiment") or {}
    if match_mode:
        where = "whole matches from the starting levels"
    else:
        lv = _ranked_levels({"levels": exp.get("levels", [])})["levels"]
        where = (f"every deal at levels {' and '.join(map(str, lv))}" if lv else "fixed levels") + (
            f", team {exp['declaring_team']} declaring" if exp.get("declaring_team") is not None else "")
    return (f"Measured only against the opponents of each matchup listed in the tables, under these rules "
            f"(preset {(exp.get('rules') or {}).get('preset', 'standard')}; match_end {rules.match_end}, declaring "
            f"{rules.declaring}), {where}, game: {_game_sentence(manifest)}.")


def _appendix(manifest, name, deals, matches, mode: str, matchup_names, rules) -> list[tuple]:
    """What was run and the resolved experiment, at the end; lines that do not apply are left out."""
    items = [f"experiment: {name}", f"seed: {manifest.get('seed', '')}",
             f"started: {manifest.get('started', '')}, finished: {manifest.get('finished', '')}",
             f"mode: {mode}",
             f"deals: {len(deals):,}" + (f"; matches: {len(matches):,}" if matches is not None else ""),
             "matchups: " + ", ".join(matchup_names),
             "game: " + _game_sentence(manifest),
             "rules: " + ", ".join(f"{k} = {v}" for k, v in rules.to_dict().items())]
    return [("h", 2, "Appendix: what was run"), ("list", items),
            ("p", "Resolved experiment (levels as ranks):"),
            ("code", json.dumps(_ranked_levels(manifest.get("experiment", {})), indent=2, default=str), "json")]


def _friends_report(run_dir: Path, manifest: dict) -> tuple[Path, Path]:
    """The report of a Finding Friends run: what was run, levels per player and deal by policy with the
    duplicate comparison (report.friends), the deals per match, how to reproduce."""
    from tractor_sim.report import friends
    from tractor_sim.rules.sizes import GameSize

    size = GameSize.of(manifest["experiment"]["game"])
    calls = size.players // 2 - 1
    deals = _read_columns(run_dir / "deals.parquet", friends.columns(size.players, calls))
    if not len(deals):
        raise ValueError(f"{run_dir / 'deals.parquet'} has no deals to report on")
    matches = _read_optional(run_dir / "matches.parquet")
    (run_dir / "figures").mkdir(exist_ok=True)
    rules = _rules(manifest)
    name = str(manifest.get("name", run_dir.name))
    match_mode = bool((deals["match_id"].to_numpy() >= 0).any())
    body, table = friends.blocks(deals, matches, size.players, calls)
    table.to_csv(run_dir / "summary.csv", index=False)
    b: list[tuple] = [("h", 1, f"tractor-sim report: {name}")]
    b += body
    if matches is not None:
        render.figure(b, run_dir, "deals_per_match.png", "Deals per match", "plot_deals_per_match", matches)
    b += _appendix(manifest, name, deals, matches, "matches" if match_mode else
                   "fixed levels (every player at the same level)", [m for m, _ in _matchups(deals)], rules)
    return _write_report(run_dir, manifest, name, b)


def _write_report(run_dir: Path, manifest: dict, name: str, b: list) -> tuple[Path, Path]:
    """End the blocks with how to reproduce the run and write report.md and report.html."""
    b += [("h", 2, "Reproduce"),
          ("p", f"Run this command (root seed {manifest.get('seed', '')}); the same seed gives the same tables:"),
          ("code", str(manifest.get("command", "")), "sh"),
          ("p", "Rebuild this report from the run directory:"),
          ("code", f"tractor-sim report {run_dir}", "sh"),
          ("p", "Versions:"),
          ("list", _versions(manifest.get("versions")))]
    b = render.settled(b)
    md_path, html_path = run_dir / "report.md", run_dir / "report.html"
    md_path.write_text(render.markdown(b))
    html_path.write_text(render.html_page(b, f"tractor-sim report: {name}", run_dir))
    return md_path, html_path
