"""Figures of a run: each function takes DataFrames and a path, writes a PNG
and returns the path.

Figures are built on the Agg canvas directly (no pyplot state), so they
work headless and from worker threads.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import rcParams
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath, text_to_path
from matplotlib.transforms import Affine2D

from tractor_sim.stats.summary import LEVEL_NAMES, level_step, row_frequencies

DPI = 100


def _figure(width: float = 7.0, height: float = 4.0, layout: str | None = "constrained") -> Figure:
    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _margins(fig: Figure, left: float, bottom: float, top: float = 0.3, right: float = 0.25) -> None:
    """Fixed margins in inches instead of the constrained layout, which lays a figure out a second time:
    a third of a simple figure's time (0.23 -> 0.15 s for the points histogram)."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height)


def _text_width(labels, size) -> float:
    """The widest of ``labels`` at font ``size``, in inches, with 5% to spare: the glyph outlines measured
    here run a little narrower than the text Agg draws (a 7-inch label by 0.03 inches)."""
    prop = FontProperties(size=size)
    return max((text_to_path.get_text_width_height_descent(str(t), prop, ismath=False)[0] for t in labels),
               default=0.0) / 72 * 1.05


def _save(fig: Figure, path) -> Path:
    """The PNG at zlib level 1: the same pixels, 3% more bytes than the default level 6 and half its
    time (80 -> 40 ms for a quick start's six figures)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None}, pil_kwargs={"compress_level": 1})
    return path


MAX_SERIES = 8  # more curves or bars than this are pooled by policy


def _label(policy: str, matchup: str, several: bool) -> str:
    return f"{policy} ({matchup})" if several else policy


def plot_opp_points(deals: pd.DataFrame, path, decks: int = 2) -> Path:
    """Distribution of the points each policy took as the declarers' opponents (``decks``: the
    game's, for the level table's boundaries and the points in the deck)."""
    opp_team = 1 - deals["declaring_team"].to_numpy()
    policy = np.where(opp_team == 0, deals["policy0"].astype(str), deals["policy1"].astype(str))
    frame = pd.DataFrame({"matchup": deals["matchup"].astype(str).to_numpy(), "policy": policy,
                          "p": deals["opp_points"].to_numpy(np.int64)})
    if frame.groupby(["matchup", "policy"]).ngroups > MAX_SERIES:
        frame["matchup"] = "all matchups"  # a tournament: one curve per policy, matchups pooled
    several = frame["matchup"].nunique() > 1
    lo = min(-10, int(frame["p"].min()) // 10 * 10 - 10)
    step = level_step(decks)
    hi = max(5 * step, int(frame["p"].max()) + 10)  # 5 S: the points in the deck
    bins = np.arange(lo, hi + 10, 10) - 2.5  # boundaries at 37.5, 77.5, ... (two decks): no bin spans two rows
    fig = _figure(layout=None)
    _margins(fig, left=0.8, bottom=0.5)
    ax = fig.add_subplot()
    for (m, p), g in frame.groupby(["matchup", "policy"], sort=False):
        ax.hist(g["p"], bins=bins, weights=np.full(len(g), 1 / len(g)), histtype="step",
                linewidth=1.5, label=_label(p, m, several))
    for edge in range(step, hi, step):
        ax.axvline(edge - 2.5, color="grey", linewidth=0.5, linestyle=":")
    ax.set_xlabel("opponents' points p (dotted: level-table boundaries)")
    ax.set_ylabel("share of deals")
    ax.set_title("Points taken as the declarers' opponents, by policy")
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_row_frequencies(deals: pd.DataFrame, path, decks: int = 2) -> Path:
    """How often each level-table row happens, by matchup and declaring policy (rows named for ``decks``)."""
    freq = row_frequencies(deals, by_declarer=True, decks=decks).drop(columns="n")
    if len(freq) > MAX_SERIES:  # a tournament: one bar per declaring policy, matchups pooled
        pooled = deals.assign(matchup="all matchups")
        freq = row_frequencies(pooled, by_declarer=True, decks=decks).drop(columns="n")
    several = len(freq.index.get_level_values(0).unique()) > 1
    fig = _figure(8, 4, layout=None)
    turned = _text_width(freq.columns, rcParams["xtick.labelsize"]) * np.sin(np.pi / 4)  # the labels at 45 degrees
    _margins(fig, left=0.75, bottom=turned + 0.6)  # under them the ticks' pad and the axis label
    ax = fig.add_subplot()
    x = np.arange(freq.shape[1])
    width = 0.8 / len(freq)
    for i, ((m, p), values) in enumerate(freq.iterrows()):
        ax.bar(x + (i - (len(freq) - 1) / 2) * width, values.to_numpy(), width,
               label=f"{_label(p, m, several)} declaring")
    ax.set_xticks(x, freq.columns, rotation=45, ha="right")
    ax.set_xlabel("opponents' points (level-table row)")
    ax.set_ylabel("share of deals")
    ax.set_title("Level-table row frequencies")
    ax.legend(fontsize="small")
    return _save(fig, path)


def _forest(labels, mean, low, high, path, xlabel: str, title: str) -> Path:
    """Points with interval bars, first label on top, a line at 0; wider than 7 inches when the labels
    would leave the plot narrower than 4 inches or than its axis label."""
    mean, labels = np.asarray(mean, float), list(labels)
    left = _text_width(labels, rcParams["ytick.labelsize"]) + 0.2  # the ticks and their pad
    plot = max(4.0, _text_width([xlabel], rcParams["axes.labelsize"]))
    fig = _figure(max(7.0, left + plot + 0.25), 1.2 + 0.4 * len(mean), layout=None)
    _margins(fig, left=left, bottom=0.5)
    ax = fig.add_subplot()
    y = np.arange(len(mean))[::-1]
    err = np.vstack([mean - np.asarray(low, float), np.asarray(high, float) - mean])
    ax.errorbar(mean, y, xerr=np.nan_to_num(err), fmt="o", capsize=3)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return _save(fig, path)


def plot_level_change(summary: pd.DataFrame, path) -> Path:
    """Forest plot: net levels per deal with its CI, per matchup and policy."""
    s = summary.reset_index(drop=True)
    return _forest([f"{p} ({m})" for m, p in zip(s["matchup"], s["policy"])], s["level_change"],
                   s["level_change_low"], s["level_change_high"], path,
                   "net levels per deal (95% CI, clustered by deal pair or match pair)", "Net levels per deal")


def plot_deals_per_match(matches: pd.DataFrame, path) -> Path:
    """Histogram of match lengths, per matchup."""
    fig = _figure()
    ax = fig.add_subplot()
    n = matches["deals"].to_numpy(np.int64)
    bins = np.arange(n.min(), n.max() + 2) - 0.5
    for m, g in matches.groupby(matches["matchup"].astype(str), sort=False):
        ax.hist(g["deals"], bins=bins, weights=np.full(len(g), 1 / len(g)), histtype="step",
                linewidth=1.5, label=m)
    ax.set_xlabel("deals in the match")
    ax.set_ylabel("share of matches")
    ax.set_title("Deals per match")
    ax.legend(fontsize="small")
    return _save(fig, path)


def _level_paths(g: pd.DataFrame) -> pd.DataFrame:
    """Levels of every (match, team) by deal_in_match, the final level carried forward."""
    g = g.reset_index(drop=True)
    key = ["half", "match_id"]
    last = g.loc[g.groupby(key, sort=False)["deal_in_match"].idxmax()]
    parts = []
    for team in (0, 1):
        before = pd.DataFrame({"half": g["half"], "match_id": g["match_id"], "t": g["deal_in_match"],
                               "policy": g[f"policy{team}"].astype(str), "level": g[f"level{team}_before"]})
        after = pd.DataFrame({"half": last["half"], "match_id": last["match_id"], "t": last["deal_in_match"] + 1,
                              "policy": last[f"policy{team}"].astype(str), "level": last[f"level{team}_after"]})
        both = pd.concat([before, after])
        both["team"] = team
        parts.append(both)
    long = pd.concat(parts)
    return long.pivot_table(index=["half", "match_id", "team", "policy"], columns="t", values="level")


def plot_level_trajectories(deals: pd.DataFrame, path) -> Path:
    """Median and 10-90% band of each policy's team level through a match."""
    d = deals[deals["match_id"].to_numpy() >= 0]
    matchups = list(dict.fromkeys(d["matchup"].astype(str)))
    fig = _figure(7, 3.2 * len(matchups))
    for i, m in enumerate(matchups):
        ax = fig.add_subplot(len(matchups), 1, i + 1)
        paths = _level_paths(d[d["matchup"].astype(str).to_numpy() == m])
        t_max = int(np.quantile(paths.notna().sum(axis=1), 0.99))  # cut the longest 1% tail
        paths = paths.ffill(axis=1).loc[:, paths.columns[:t_max]].clip(upper=13)
        for p, g in paths.groupby(level="policy", sort=False):
            q = g.quantile([0.1, 0.5, 0.9])
            x = q.columns.to_numpy()
            line, = ax.plot(x, q.loc[0.5], label=p)
            ax.fill_between(x, q.loc[0.1], q.loc[0.9], color=line.get_color(), alpha=0.2)
        ax.set_yticks(range(0, 14), list(LEVEL_NAMES) + ["win"])
        ax.set_xlabel("deal in match")
        ax.set_ylabel("level")
        ax.set_title(f"Level through the match: median and 10-90% band ({m})")
        ax.legend(fontsize="small")
    return _save(fig, path)


def _cell_labels(ax, values: np.ndarray, fontsize: float = 6) -> None:
    """``values`` written in their cells to 2 decimals, white on the dark ends of the colour scale, as one
    collection of glyph outlines centred as ax.text(ha="center", va="center") centres its text: 169
    Text artists were half a heatmap's time (their glyphs rendered one by one in Python)."""
    prop = FontProperties(size=fontsize)
    _, lp_height, lp_descent = text_to_path.get_text_width_height_descent("lp", prop, ismath=False)
    texts = [f"{v:.2f}" for v in values.flat]
    shapes = {}
    for text in set(texts):
        width, height, descent = text_to_path.get_text_width_height_descent(text, prop, ismath=False)
        line = max(height, lp_height)  # the line's box, as Text lays out one line
        shapes[text] = TextPath((0, 0), text, prop=prop).transformed(
            Affine2D().translate(-width / 2, max(descent, lp_descent) - line / 2))
    rows, cols = np.indices(values.shape)
    ax.add_collection(PathCollection(
        [shapes[text] for text in texts], offsets=np.column_stack([cols.ravel(), rows.ravel()]),
        offset_transform=ax.transData, transform=Affine2D().scale(1 / 72) + ax.figure.dpi_scale_trans,
        facecolors=np.where(np.abs(values - 0.5) > 0.3, "white", "black").ravel(), edgecolors="none"),
        autolim=False)


def plot_win_heatmap(table: pd.DataFrame, path, title: str = "Match win probability") -> Path:
    """Heatmap of a win-probability table (rows: A's starting level, columns: B's).

    Fixed margins instead of the constrained layout (which laid out the cell labels a second time: 0.37
    against 0.21 s of CPU a heatmap), and the labels as one collection (_cell_labels: 0.2 to 0.12 s)."""
    title = textwrap.fill(title, 55)  # a matchup of long policy names: lines as wide as the image
    fig = _figure(6.5, 5.5, layout=None)
    _margins(fig, left=0.6, bottom=0.5, top=0.2 + 0.2 * (title.count("\n") + 1), right=0.2)
    ax = fig.add_subplot()
    values = table.to_numpy(float)
    im = ax.imshow(values, origin="lower", cmap="RdBu", vmin=0, vmax=1)
    _cell_labels(ax, values)
    ax.set_xticks(range(values.shape[1]), table.columns)
    ax.set_yticks(range(values.shape[0]), table.index)
    ax.set_xlabel(table.columns.name or "")
    ax.set_ylabel(table.index.name or "")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, shrink=0.8)
    return _save(fig, path)


def plot_ratings(ratings: pd.DataFrame, path, anchor: str, unit: str = "deal") -> Path:
    """Ratings with their simultaneous intervals (clustered by deal id), top-rated first: the order stated."""
    r = ratings.reset_index(drop=True)
    return _forest(r["policy"].astype(str), r["rating"], r["sim_low"], r["sim_high"], path,
                   f"rating: levels per deal above {anchor} (simultaneous 95% CI, clustered by {unit} id)",
                   "Ratings from every duplicate pair at once")


def plot_trajectory(trajectory: pd.DataFrame, names: list[str], path) -> Path:
    """SPSA: each parameter through the iterations, and the measured scores."""
    fig = _figure(7, 2.2 * (len(names) + 1))
    for i, n in enumerate(names):
        ax = fig.add_subplot(len(names) + 1, 1, i + 1)
        ax.plot(trajectory["iteration"], trajectory[n], marker=".")
        ax.set_ylabel(n)
    ax = fig.add_subplot(len(names) + 1, 1, len(names) + 1)
    ax.plot(trajectory["iteration"], trajectory["score"], marker=".", linestyle="none")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_ylabel("plus - minus\n(levels / deal)")
    ax.set_xlabel("SPSA iteration")
    return _save(fig, path)


def plot_regret(by_trick: pd.DataFrame, policy: str, path) -> Path:
    """Mean regret per decision by trick (tractor-sim analyze), with 95% intervals: held-out in sampled
    worlds and the true deal side by side, and the in-sample (upper-biased) figures hollow beside them."""
    fig = _figure(8.0, 4.0)
    ax = fig.add_subplot()
    x = by_trick["trick"].to_numpy(dtype=float)
    series = ((-0.3, "sampled", "held-out, sampled worlds", "o"),
              (-0.1, "true", "held-out, true deal (omniscient)", "o"),
              (0.1, "sampled_in", "in-sample, sampled (upper-biased)", "o"),
              (0.3, "true_in", "in-sample, true deal (upper-biased)", "o"))
    for offset, label, title, marker in series:
        if f"{label}_levels" not in by_trick:
            continue
        m = by_trick[f"{label}_levels"].to_numpy(dtype=float)
        if np.isnan(m).all():
            continue
        lo = by_trick[f"{label}_levels_low"].to_numpy(dtype=float)
        hi = by_trick[f"{label}_levels_high"].to_numpy(dtype=float)
        err = np.vstack([np.nan_to_num(m - lo), np.nan_to_num(hi - m)])
        hollow = {"mfc": "none"} if label.endswith("_in") else {}
        ax.errorbar(x + offset, m, yerr=err, fmt=marker, capsize=2, label=title, **hollow)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("trick")
    ax.set_ylabel("mean regret (levels per decision)")
    ax.set_title(f"Where {policy} loses levels: regret of its leads and follows")
    ax.legend()
    return _save(fig, path)


def plot_training(log: pd.DataFrame, path) -> Path:
    """tractor-sim train by round: the loss (mean squared error of the predicted gains) per decision type,
    held-out and in-sample, and the strength against expert with its 95% interval."""
    fig = _figure(7.0, 5.0)
    x = log["round"].to_numpy() + 1
    ax = fig.add_subplot(2, 1, 1)
    for i, name in enumerate(("declare", "discard", "lead", "follow", "bid")):
        for kind, style in (("heldout", "-o"), ("train", "--")):
            col = f"{kind}_{name}_mse"
            if col in log:
                ax.plot(x, log[col], style, color=f"C{i}",
                        label=f"{name}, {'held-out' if kind == 'heldout' else 'in-sample'}")
    ax.set_yscale("log")  # the decisions' losses are of different sizes
    ax.set_ylabel("loss (mean squared\nerror, levels²)")
    ax.legend(fontsize="x-small", ncol=2)
    ax = fig.add_subplot(2, 1, 2, sharex=ax)
    if "vs_expert" in log:
        m = log["vs_expert"].to_numpy(dtype=float)
        ax.errorbar(x, m, yerr=[m - log["vs_expert_low"].to_numpy(dtype=float),
                                log["vs_expert_high"].to_numpy(dtype=float) - m], fmt="o", capsize=3)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_ylabel("learned - expert\n(levels / deal)")
    ax.set_xlabel("round")
    return _save(fig, path)
