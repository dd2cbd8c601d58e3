"""The report layer on synthetic run directories (tractor_sim.report)."""

import html
import json
import re

import numpy as np
import pandas as pd
import pytest

from tractor_sim.report import build_report, plots

PNG = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- synthetic runs

def level_row(p):
    p = np.asarray(p)
    return np.where(p <= 0, 0, np.where(p < 40, 1, np.where(p < 80, 2, np.where(p < 120, 3, 4 + (p - 120) // 40))))


def deal_columns(rng, p, declaring_team, levels_before, policy0, policy1):
    """Every deals column of docs/records.md for deals with opponents' points p."""
    n = len(p)
    dt = np.asarray(declaring_team)
    row = level_row(p)
    gain_team = np.where(row <= 2, dt, np.where(row == 3, -1, 1 - dt))
    gain = np.where(row <= 2, 3 - row, np.where(row == 3, 0, row - 3))
    l0, l1 = levels_before
    kitty = 5 * rng.integers(0, 6, n)
    opp_last = rng.random(n) < 0.3
    bonus = np.where(opp_last & (p >= 2 * kitty), 2 * kitty, 0)
    tricks = rng.multinomial(25, [0.25] * 4, n)
    return {
        "policy0": policy0, "policy1": policy1,
        "starter": (dt + 2 * rng.integers(0, 2, n)).astype(np.int8), "declaring_team": dt.astype(np.int8),
        "trump_rank": np.where(dt == 0, l0, l1).clip(0, 12).astype(np.int8),
        "trump_suit": rng.integers(0, 5, n).astype(np.int8), "trump_source": rng.integers(0, 4, n).astype(np.int8),
        "redeals": np.zeros(n, np.int16), "kitty_points": kitty.astype(np.int16),
        "trick_points": (p - bonus).astype(np.int16), "kitty_bonus": bonus.astype(np.int16),
        "throw_penalty": np.zeros(n, np.int16), "failed_throws": np.zeros(n, np.int8),
        "last_winner": np.where(opp_last, 1 - dt, dt).astype(np.int8), "opp_points": p.astype(np.int16),
        "row": row.astype(np.int8),
        "level0_before": np.asarray(l0, np.int8), "level1_before": np.asarray(l1, np.int8),
        "level0_after": (l0 + np.where(gain_team == 0, gain, 0)).astype(np.int8),
        "level1_after": (l1 + np.where(gain_team == 1, gain, 0)).astype(np.int8),
        "gain_team": gain_team.astype(np.int8), "gain": gain.astype(np.int8),
        **{f"tricks{s}": tricks[:, s].astype(np.int8) for s in range(4)},
    }


def points(rng, luck, a_declares, skill):
    """Opponents' points: card luck shared by both halves, the better policy concedes fewer."""
    p = 80 + luck + np.where(a_declares, -skill, skill) + rng.normal(0, 12, len(luck))
    return np.clip(5 * np.round(p / 5), 0, 300).astype(int)


def fixed_deals(n, a="basic", b="random", skill=6.0, seed=0, duplicate=True):
    """Fixed-levels deals (both teams at 2); with duplicate, each deal replayed with policies swapped."""
    rng = np.random.default_rng(seed)
    luck, dt = rng.normal(0, 45, n), rng.integers(0, 2, n)
    parts = []
    for half in (0, 1) if duplicate else (0,):
        pol = (a, b) if half == 0 else (b, a)
        p = points(rng, luck, (dt == 0) == (half == 0), skill)
        cols = deal_columns(rng, p, dt, (np.zeros(n, int), np.zeros(n, int)), *pol)
        parts.append(pd.DataFrame({"matchup": f"{a}-vs-{b}", "deal_id": np.arange(n), "match_id": -1,
                                   "deal_in_match": np.zeros(n, np.int32), "seed": np.uint64(seed),
                                   "half": np.int8(half), **cols}))
    deals = pd.concat(parts, ignore_index=True)
    deals["matchup"] = deals["matchup"].astype("category")
    return deals


def match_run(n_matches, a="basic", b="random", skill=6.0, seed=0):
    """Duplicate matches played to the end (pass the Ace): deals and matches tables."""
    rng = np.random.default_rng(seed)
    deal_rows, match_rows, deal_id = [], [], 0
    for m in range(n_matches):
        first = rng.integers(0, 2)
        lucks = rng.normal(0, 45, 200)  # the cards of deal t, the same in both halves
        for half in (0, 1):
            pol = (a, b) if half == 0 else (b, a)
            lv, dt, t = [0, 0], first, 0
            while max(lv) <= 12:
                p = points(rng, lucks[t:t + 1], np.array([(dt == 0) == (half == 0)]), skill)
                cols = deal_columns(rng, p, np.array([dt]), (np.array([lv[0]]), np.array([lv[1]])), *pol)
                deal_rows.append({"matchup": f"{a}-vs-{b}", "deal_id": deal_id, "match_id": m, "deal_in_match": t,
                                  "seed": seed, "half": half, **{k: v[0] if np.ndim(v) else v
                                                                 for k, v in cols.items()}})
                lv = [cols["level0_after"][0], cols["level1_after"][0]]
                dt = dt if cols["row"][0] <= 2 else 1 - dt
                deal_id, t = deal_id + 1, t + 1
            match_rows.append({"matchup": f"{a}-vs-{b}", "policy0": pol[0], "policy1": pol[1], "seed": seed,
                               "half": half, "match_id": m, "winner": int(lv[1] > 12), "deals": t,
                               "level0_final": lv[0], "level1_final": lv[1]})
    return pd.DataFrame(deal_rows), pd.DataFrame(match_rows)


def write_run(path, deals, matches=None, name="synthetic"):
    path.mkdir(parents=True, exist_ok=True)
    manifest = {"name": name, "experiment": {"name": name, "deals": int(deals["deal_id"].nunique()),
                                             "rules": {"preset": "standard", "match_end": "pass_ace"}},
                "seed": 12345, "command": f"tractor-sim run experiments/{name}.toml --seed 12345",
                "started": "2026-11-29T14:00:00", "finished": "2026-11-29T14:01:00",
                "versions": {"tractor_sim": "0.1", "numba": "0.68.1"}}
    (path / "manifest.json").write_text(json.dumps(manifest))
    deals.to_parquet(path / "deals.parquet")
    if matches is not None:
        matches.to_parquet(path / "matches.parquet")
    return path


def figures_in(md):
    return re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", md)


def check_common(run, md_path, html_path):
    md, page = md_path.read_text(), html_path.read_text()
    assert (run / "summary.csv").stat().st_size > 0
    figs = figures_in(md)
    assert figs
    for f in figs:
        data = (run / f).read_bytes()
        assert data.startswith(PNG) and len(data) > 1000
    # single file: every figure embedded, nothing fetched from elsewhere
    assert page.count('src="data:image/png;base64,') == len(figs)
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<link" not in page and "<script" not in page
    assert "skipped, the plot failed" not in md
    for text in (md, page):
        assert "Appendix: what was run" in text and "Reproduce" in text and "--seed 12345" in text
        # the first screen: headline first, the appendix after every table
        assert text.index("In the pool" if "In the pool" in text else "No ratings") < text.index("<table" if
                                                                                              "<table" in text else "|")
        assert text.index("Appendix: what was run") > text.rindex("Per matchup and policy")
    assert "| matchup | policy | deals |" in md and "<th>matchup</th>" in page
    return md, page


# ---------------------------------------------------------------- tests

def test_fixed_levels_duplicate_report(tmp_path):
    run = write_run(tmp_path / "fixed", fixed_deals(3000))
    md_path, html_path = build_report(run)
    md, page = check_common(run, md_path, html_path)
    headline = re.search(r"\*\*(In the pool .*)\*\*", md).group(1)
    assert re.fullmatch(r"In the pool of 2 policies \(basic, random\), on 3,000 duplicate deal pairs: basic rates "
                        r"highest; order basic > random \('>' = resolved at 5%; '≈' = not "
                        r"resolved\)\. Ratings in levels per deal above random, 95% interval: "
                        r"basic \+[0-9.]+ ± [0-9.]+\.", headline)
    assert "matches: " not in md  # a fixed-level run has none: the line is left out
    assert html.escape(headline) in page
    assert "Duplicate pairs" in md and "unpaired deals for same precision" in md
    ratings = pd.read_csv(run / "ratings.csv")
    assert list(ratings.columns) == ["policy", "rating", "low", "high", "sim_low", "sim_high", "games"]
    assert ratings["policy"].tolist() == ["basic", "random"] and ratings["games"].tolist() == [6000, 6000]
    assert "p (Holm)" in md and "ratings.png" in md
    assert "Match win probability" in md and "P(A wins) from 2-2" in page
    assert "Deals per match: skipped" in md and "Level trajectories: skipped" in md
    assert {"opp_points.png", "row_frequencies.png", "level_change.png", "win_probability_0.png"} <= {
        p.name for p in (run / "figures").iterdir()}
    summary = pd.read_csv(run / "summary.csv")
    assert set(summary["policy"]) == {"basic", "random"}
    assert summary.set_index("policy").loc["basic", "level_change"] > 0


def test_match_mode_report(tmp_path):
    deals, matches = match_run(60)
    run = write_run(tmp_path / "matches", deals, matches)
    md_path, html_path = build_report(run)
    md, page = check_common(run, md_path, html_path)
    assert "clustered by match pair" in md
    assert {"deals_per_match.png", "level_trajectories.png"} <= {p.name for p in (run / "figures").iterdir()}
    assert "observed A win rate" in md and "match win rate" in md
    assert "chain - observed [95% CI]" in md and "which the observed match results beside it test" in md
    assert "skipped" not in md
    summary = pd.read_csv(run / "summary.csv")
    assert summary["matches"].tolist() == [120, 120]


def test_report_without_duplicates_or_matches(tmp_path):
    deals = pd.concat([fixed_deals(500, duplicate=False),
                       fixed_deals(300, a="greedy", b="greedy", seed=1, duplicate=False)])
    run = write_run(tmp_path / "plain", deals)
    md_path, html_path = build_report(run)
    md, page = check_common(run, md_path, html_path)
    assert re.search(r"\*\*No ratings \(no complete duplicate pairs[^)]*\)\. Policy basic has the best level change, "
                     r"\+[0-9.]+ levels per deal \(95% CI [-+][0-9.]+ to [-+][0-9.]+\), in basic-vs-random "
                     r"\(against random\) over 500 deals\.\*\*", md)
    assert "Duplicate pairs" not in md
    assert "Skipped greedy-vs-greedy: not two different policies" in md  # self-play has no win-probability chain


def test_plots_write_pngs(tmp_path):
    from tractor_sim.stats import chain
    from tractor_sim.stats import ratings
    from tractor_sim.stats import summary as stats
    deals, matches = match_run(10, seed=3)
    summary = stats.matchup_summary(deals, matches)
    table = chain.win_probability(deals, "basic", "random", n_boot=5)["table"]
    fit = ratings.fit(ratings.pair_table(deals))
    outputs = [plots.plot_opp_points(deals, tmp_path / "a.png"),
               plots.plot_row_frequencies(deals, tmp_path / "b.png"),
               plots.plot_level_change(summary, tmp_path / "c.png"),
               plots.plot_deals_per_match(matches, tmp_path / "d.png"),
               plots.plot_level_trajectories(deals, tmp_path / "e.png"),
               plots.plot_win_heatmap(table, tmp_path / "sub" / "f.png"),
               plots.plot_ratings(ratings.simultaneous(fit, ratings.pairwise(fit)), tmp_path / "g.png", fit["anchor"])]
    for out in outputs:
        assert out.read_bytes().startswith(PNG)


@pytest.mark.parametrize("decks", [2, 3, 4])
def test_figures_with_fixed_margins_keep_every_label_inside(tmp_path, monkeypatch, decks):
    """The figures laid out by fixed margins (plots._margins and the heatmap's, not the constrained
    layout) hold every tick label, axis label, title and legend inside the image, with long policy
    names and at each deck count's level-table row names."""
    from tractor_sim.stats import chain, ratings
    from tractor_sim.stats import summary as stats

    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig) or path)
    long_a, long_b = "a-policy-with-a-rather-long-name", "another.policy:with-params"
    deals = fixed_deals(400, a=long_a, b=long_b)
    summary = stats.matchup_summary(deals, None)
    plots.plot_opp_points(deals, tmp_path / "a.png", decks)
    plots.plot_row_frequencies(deals, tmp_path / "b.png", decks)
    plots.plot_level_change(summary, tmp_path / "c.png")
    fit = ratings.fit(ratings.pair_table(deals))
    plots.plot_ratings(ratings.simultaneous(fit, ratings.pairwise(fit)), tmp_path / "d.png", fit["anchor"])
    plots.plot_win_heatmap(chain.win_probability(deals, long_a, long_b, n_boot=5)["table"], tmp_path / "e.png",
                           f"P({long_a} wins) by starting levels, {long_a}-vs-{long_b}")  # as the report titles it
    assert len(drawn) == 5
    for fig in drawn:
        drawn_box = fig.get_tightbbox(fig.canvas.get_renderer())  # everything drawn, in inches
        width, height = fig.get_size_inches()
        assert drawn_box.x0 >= 0 and drawn_box.y0 >= 0 and drawn_box.x1 <= width and drawn_box.y1 <= height, \
            (fig.axes[0].get_title(), drawn_box.bounds, width, height)


def test_disconnected_pool_is_not_ranked(tmp_path):
    deals = pd.concat([fixed_deals(300), fixed_deals(300, a="greedy", b="expert", seed=1)])
    run = write_run(tmp_path / "two_pools", deals)
    md = build_report(run)[0].read_text()
    headline = re.search(r"\*\*(.*)\*\*", md).group(1)
    assert headline.startswith("The pool falls into 2 parts that no games link, rated separately")
    assert "Part 1: In the pool of 2 policies" in headline and "Part 2: In the pool of 2 policies" in headline
    assert "best level change" not in md  # the old fallback ranked across the parts
    assert {frozenset(pd.read_csv(run / f"ratings_{i}.csv")["policy"]) for i in (1, 2)} == {
        frozenset({"basic", "random"}), frozenset({"greedy", "expert"})}
    assert not (run / "ratings.csv").exists()


def test_bad_rules_in_manifest_are_a_clear_error(tmp_path):
    run = write_run(tmp_path / "bad", fixed_deals(50))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["experiment"]["rules"] = {"preset": "klingon"}
    (run / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="klingon"):
        build_report(run)


def test_empty_deals_is_a_clear_error(tmp_path):
    run = write_run(tmp_path / "empty", fixed_deals(10).iloc[:0])
    with pytest.raises(ValueError, match="no deals"):
        build_report(run)


def test_cli_report_bad_run_is_a_clear_error(tmp_path):
    from click.testing import CliRunner

    from tractor_sim.cli import main

    run = write_run(tmp_path / "bad", fixed_deals(50))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["experiment"]["rules"] = {"preset": "klingon"}
    (run / "manifest.json").write_text(json.dumps(manifest))
    r = CliRunner().invoke(main, ["report", str(run)])
    assert r.exit_code == 2 and "klingon" in r.output and "Traceback" not in r.output


def test_levels_shown_as_ranks(tmp_path):
    run = write_run(tmp_path / "ranks", fixed_deals(200))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["experiment"]["levels"] = [0, 12]
    (run / "manifest.json").write_text(json.dumps(manifest))
    md = build_report(run)[0].read_text()
    assert '"levels": [\n    "2",\n    "A"\n  ]' in md and "every deal at levels 2 and A" in md
