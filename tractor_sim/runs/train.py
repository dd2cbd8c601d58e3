"""tractor-sim train: fit the learned player's weights to the search's values, in rounds that resume.

Each round plays ``deals`` new deals with the teacher (a search, every seat,
in the mode that plays the base policy's answers and records every
candidate's features and value: kernels.search_play RECORD_TRAIN), adds them
to the data, refits, and measures the model against ``expert`` on fixed
duplicate deals of their own seed.  Bids happen only under the rule
``declaring = "auction"``: ``auction_deals`` more deals per round are played
under it, the teacher searching the bids only, and only their bid rows are
kept (the other decisions' data and weights stay those of the standard
deals).  In Finding Friends (a ``[game]`` table, as in an experiment: any
size) the teacher searches the landlord's calls too.  The fit is ridge
regression, per decision (declare, discard, lead, follow, bid, call), of
each candidate's gain over the base policy's
answer (paired by world) on its features minus the base answer's: the
weights then rank the candidates of a decision as the search's values do.

Reproducible: the deals of round r are ids r x deals .. of the seed, the
teacher's streams are keyed by deal and decision, and the fit is a linear
solve, so the same file gives the same model (digest) however often it is
stopped and resumed.  The run directory keeps each round's data
(``data/round-NNN.npz``), one line per round (``rounds.csv``), the model
after each round (``models/``), and at the end ``model.json``, the report
and its figure.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tractor_sim.play import learned
from tractor_sim.play.chunks import ChunkSpec
from tractor_sim.play.game import Game
from tractor_sim.rules import files
from tractor_sim.rules.fields import Real, Whole
from tractor_sim.rules.sizes import GameSize, GameSizeError

TOP = {"name", "description", "seed", "game", "train"}
FIELDS = {  # the [train] table: each number declared once
    "rounds": Whole("rounds", 1, 1000, "rounds of new data, each followed by a fit and a measurement"),
    "deals": Whole("deals", 1, 1_000_000, "deals the teacher plays per round"),
    "chunk": Whole("chunk", 1, 10_000, "deals per kernel call (memory: a row per candidate)"),
    "worlds": Whole("worlds", 1, 4096, "the teacher's worlds per decision"),
    "max_candidates": Whole("max_candidates", 2, 32, "candidates the teacher values per decision"),
    "ridge": Real("ridge", 0.0, 1e9, "the fit's ridge penalty (per row)"),
    "eval_pairs": Whole("eval_pairs", 0, 1_000_000, "duplicate deal pairs against expert after each round"),
    "auction_deals": Whole("auction_deals", 0, 1_000_000, "deals per round under declaring = \"auction\" whose "
                           "bids only the teacher searches and the data keeps"),
    "call_deals": Whole("call_deals", 0, 1_000_000, "Finding Friends: deals per round whose calls only the teacher "
                        "searches and the data keeps"),
}
NEEDS = {  # fields that only a team mode plays: (the mode, why)
    "auction_deals": ("tractor", "Finding Friends has no auction (the sides form during the play)"),
    "call_deals": ("friends", "a tractor game has no calls (they are Finding Friends')"),
}
DEFAULTS = {"rounds": 8, "deals": 500, "chunk": 100, "worlds": 8, "max_candidates": 16, "ridge": 1e-3,
            "eval_pairs": 2000, "auction_deals": 0, "call_deals": 0}
BASE = "expert"  # the base policy: the teacher's rollouts, the learned player's first candidate
EVAL_SEED_OFFSET = 1_000_003  # the measurement's deals: a seed of their own, never trained on
AUCTION_SEED_OFFSET = 2_000_003  # the auction deals' seed: other deals than the standard ones
AUCTION = {"declaring": "auction"}  # the rules of the auction deals
CALL_SEED_OFFSET = 3_000_017  # the call deals' seed: other deals again
DECISION_NAMES = {0: "declare", 1: "discard", 2: "lead", 3: "follow", 4: "bid", 5: "call"}  # kernels.view codes
PLAY_DECISIONS = ("declare", "discard", "lead", "follow")  # the teacher's searches in the standard deals
BID_CODE = 4  # kernels.view.BID
CALL_CODE = 5  # kernels.view.CALL


class TrainError(ValueError):
    """A bad training file; the message names the field."""


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    seed: int
    rounds: int
    deals: int
    chunk: int
    worlds: int
    max_candidates: int
    ridge: float
    eval_pairs: int
    auction_deals: int = 0
    call_deals: int = 0
    game: GameSize = GameSize()

    def fingerprint(self) -> str:
        """What makes the data and the model: every field but the name and the description, and the
        features each decision records (a directory of data with other columns is not resumed).  The
        fields added after the first trainings (call_deals, a game other than 4 players 2 decks) enter only
        when used, so adding such a field leaves the fingerprints of the files that do not use it."""
        body = {k: v for k, v in self.__dict__.items() if k not in ("name", "description", "game", "call_deals")}
        if self.call_deals:
            body["call_deals"] = self.call_deals
        if not self.game.standard:
            body["game"] = self.game.to_dict()
        body["features"] = learned.feature_names(self.package)
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def package(self):
        """The compiled package of the game (None: the 4-player 2-deck core's)."""
        return None if self.game.standard else Game.of(self.game).package

    def teacher(self, decisions=None) -> dict:
        """The teacher's policy: the search in the mode that records, on ``decisions`` (default: every
        decision of a deal, the call in Finding Friends)."""
        if decisions is None:
            decisions = PLAY_DECISIONS + (("call",) if self.game.teams == "friends" else ())
        return {"policy": "search", "base": BASE, "worlds": self.worlds, "max_candidates": self.max_candidates,
                "train": True, "decisions": list(decisions)}


def load(path) -> Config:
    """The training file (docs/learned.md), every field checked; TrainError naming the first bad one."""
    return from_dict(files.read_toml(path, "training file", TrainError), path)


def from_dict(data: dict, path) -> Config:
    """A training file's table (as read from ``path``), every field checked; TrainError naming the first bad one."""
    where = f"{path}: "
    for key in data:
        if key not in TOP:
            raise TrainError(f"{where}unknown key {key!r}; expected {', '.join(sorted(TOP))}")
    table = data.get("train", {})
    if not isinstance(table, dict):
        raise TrainError(f"{where}[train] must be a table")
    for key in table:
        if key not in FIELDS:
            raise TrainError(f"{where}[train]: unknown key {key!r}; expected {', '.join(FIELDS)}")
    values = {k: FIELDS[k].check(table.get(k, DEFAULTS[k]), f"{where}[train] ", TrainError) for k in FIELDS}
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str) or not name.strip():
        raise TrainError(f"{where}name: expected a non-empty text, got {name!r}")
    seed = Whole("seed", 0, 2**63 - 1).check(data.get("seed", 0), where, TrainError)
    try:
        game = GameSize.of(data.get("game"), f"{where}[game]")
    except GameSizeError as e:
        raise TrainError(str(e)) from None
    for key, (teams, why) in NEEDS.items():
        if values[key] and game.teams != teams:
            raise TrainError(f"{where}[train] {key}: {why}; write {key} = 0 or [game] teams = \"{teams}\"")
    return Config(name=name, description=str(data.get("description", "")), seed=seed, game=game, **values)


def play_round(cfg: Config, r: int, advance=None) -> np.ndarray:
    """The teacher's training rows (kernels.search_play TR_*) of round ``r``'s deals, as float32: the
    standard deals', then the bid rows of the auction deals, then the call rows of the call deals."""
    parts = _rows(cfg, r, cfg.deals, cfg.teacher(), cfg.seed, {}, advance)
    if cfg.auction_deals:
        bids = _rows(cfg, r, cfg.auction_deals, cfg.teacher(("bid",)), (cfg.seed + AUCTION_SEED_OFFSET) % 2**63,
                     AUCTION)
        parts += [p[p[:, _columns(cfg.game)[0].TR_DECISION] == BID_CODE] for p in bids]
    if cfg.call_deals:
        calls = _rows(cfg, r, cfg.call_deals, cfg.teacher(("call",)), (cfg.seed + CALL_SEED_OFFSET) % 2**63, {})
        parts += [p[p[:, _columns(cfg.game)[0].TR_DECISION] == CALL_CODE] for p in calls]
    return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)


def _rows(cfg: Config, r: int, deals: int, teacher: dict, seed: int, rules: dict, advance=None) -> list:
    """The non-empty training row blocks of round ``r``'s ``deals`` deals (ids r x deals ..), chunk by chunk."""
    game = Game.of(cfg.game, rules)
    parts = []
    for first in range(r * deals, (r + 1) * deals, cfg.chunk):
        count = min(cfg.chunk, (r + 1) * deals - first)
        spec = ChunkSpec(f"train round {r}", (teacher, teacher), ("teacher", "teacher"), 0, "fixed", first, count,
                         seed, rules)
        rows = game.play_chunk(spec).extra.get("records", np.zeros((0, 0))).astype(np.float32)
        if len(rows):
            parts.append(rows)
        if advance:
            advance(count)
    return parts


def _columns(game=None, decision: int = 2):
    """The search_play kernels of ``game`` (default 4 players, 2 decks) and the feature columns of a
    decision code's rows (its own features)."""
    g = Game.of(game)
    SPL = g.kernel("search_play")
    names = learned.feature_names(None if g.size.standard else g.package)[DECISION_NAMES[decision]]
    return SPL, slice(SPL.TR_FEATURES, SPL.TR_FEATURES + len(names))


def differences(rows: np.ndarray, decision: int, game=None):
    """(group, candidate features minus the base answer's, gain) of one decision type's rows; a decision's
    rows are consecutive, its base answer (candidate 0) first."""
    SPL, feats = _columns(game, decision)
    rows = rows[rows[:, SPL.TR_DECISION] == decision]
    first = rows[:, SPL.TR_CANDIDATE] == 0
    group = np.cumsum(first) - 1
    base = rows[first][:, feats].astype(np.float64)
    x = rows[:, feats].astype(np.float64) - base[group]
    return group, x, rows[:, SPL.TR_GAIN].astype(np.float64)


def fit(rows: np.ndarray, ridge: float, game=None) -> dict:
    """The weights per decision name: ridge least squares of gain on feature differences (normal equations:
    a deterministic solve)."""
    out = {}
    for code, name in DECISION_NAMES.items():
        _, x, y = differences(rows, code, game)
        k = x.shape[1]
        a = x.T @ x + ridge * max(1, len(x)) * np.eye(k)
        out[name] = np.linalg.solve(a, x.T @ y) if len(x) else np.zeros(k)
    return out


def scores(rows: np.ndarray, weights: dict, game=None) -> dict:
    """How a model ranks held-out rows: per decision name, the mean squared error of the predicted gains,
    and the mean regret (the best candidate's gain minus the chosen one's, as the teacher valued them)
    and how often the choice is the teacher's best."""
    out = {}
    for code, name in DECISION_NAMES.items():
        group, x, y = differences(rows, code, game)
        if not len(y):
            continue
        pred = x @ weights[name]
        frame = pd.DataFrame({"g": group, "pred": pred, "y": y})
        chosen = frame.loc[frame.groupby("g")["pred"].idxmax(), "y"].to_numpy()  # first maximum: the base on ties
        best = frame.groupby("g")["y"].max().to_numpy()
        out[f"{name}_mse"] = float(np.mean((pred - y) ** 2))
        out[f"{name}_regret"] = float(np.mean(best - chosen))
        out[f"{name}_agree"] = float(np.mean(best == chosen))
        out[f"{name}_decisions"] = int(len(best))
    return out


def strength(cfg: Config, model_path: Path) -> dict:
    """The model against expert on eval_pairs duplicate pairs (levels per deal, 95% interval; in Finding
    Friends per player sitting, as compare reports it)."""
    from tractor_sim.runs import compare, runner
    from tractor_sim.stats.summary import paired_comparison

    if cfg.eval_pairs == 0:
        return {}
    model = {"policy": "learned", "model": str(model_path), "name": "learned"}
    seed = (cfg.seed + EVAL_SEED_OFFSET) % 2**63
    if cfg.game.standard:
        deals, _ = runner.simulate([(model, BASE)], n=cfg.eval_pairs, seed=seed, chunk_size=min(cfg.eval_pairs, 5000))
        c = paired_comparison(deals, "learned", BASE)
    else:
        c = compare.duel(model, {"policy": BASE, "name": BASE}, max_pairs=cfg.eval_pairs, seed=seed,
                         chunk_size=min(cfg.eval_pairs, 5000), game=cfg.game)["comparison"]
    return {"vs_expert": c["mean"], "vs_expert_low": c["low"], "vs_expert_high": c["high"],
            "eval_pairs": c["n_pairs"]}


def _atomic(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def run(cfg: Config, out: Path, command: str, advance=None, say=print) -> Path:
    """Train into run directory ``out`` (resuming the rounds it holds); returns the model file."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    (out / "models").mkdir(exist_ok=True)
    stamp = out / "config.json"
    if stamp.exists():
        old = files.read_json(stamp, "training stamp", TrainError)
        if old.get("fingerprint") != cfg.fingerprint():
            raise TrainError(f"{out}: holds a training of other settings (fingerprint {old.get('fingerprint')}, "
                             f"this file's {cfg.fingerprint()}); give another --out")
    else:
        config = {**cfg.__dict__, "game": cfg.game.to_dict()}
        stamp.write_text(json.dumps({"fingerprint": cfg.fingerprint(), "config": config}, indent=1))
    log_path = out / "rounds.csv"
    log = pd.read_csv(log_path) if log_path.exists() else pd.DataFrame()
    rows, weights = [], {n: np.zeros(len(v)) for n, v in learned.feature_names(cfg.package).items()}
    for r in range(cfg.rounds):
        data_path = out / "data" / f"round-{r:03d}.npz"
        model_path = out / "models" / f"round-{r:03d}.json"
        if data_path.exists():
            new = np.load(data_path)["rows"]
            if advance:
                advance(cfg.deals)
        else:
            t0 = time.process_time()
            new = play_round(cfg, r, advance)
            _atomic(data_path, lambda p: np.savez_compressed(open(p, "wb"), rows=new))
            say(f"round {r + 1}: {len(new):,} candidate rows in {time.process_time() - t0:.0f} s CPU")
        logged = len(log) and r in set(log["round"])
        held = {} if logged or not len(new) else scores(new, weights, cfg.game)  # the previous model, unseen data
        rows.append(new)
        weights = fit(np.concatenate(rows), cfg.ridge, cfg.game)
        if not logged:
            digest = learned.write(model_path, weights, _training(cfg, r), cfg.package)
            entry = {"round": r, "deals": (r + 1) * cfg.deals, "rows": sum(map(len, rows)),
                     **{f"heldout_{k}": v for k, v in held.items()},
                     **{f"train_{k}": v for k, v in scores(np.concatenate(rows), weights, cfg.game).items()},
                     **strength(cfg, model_path), "digest": digest}
            log = pd.concat([log, pd.DataFrame([entry])], ignore_index=True)
            _atomic(log_path, lambda p: log.to_csv(p, index=False))
            say(_line(entry))
    final = out / "model.json"
    learned.write(final, weights, _training(cfg, cfg.rounds - 1), cfg.package)
    report(cfg, log, out, command)
    return final


def _training(cfg: Config, r: int) -> dict:
    return {"name": cfg.name, "seed": cfg.seed, "fingerprint": cfg.fingerprint(), "rounds": r + 1,
            "deals": (r + 1) * cfg.deals, "teacher": cfg.teacher(), "ridge": cfg.ridge}


def _line(e: dict) -> str:
    text = f"round {e['round'] + 1}: {e['rows']:,} rows"
    if "vs_expert" in e:
        text += f"; vs expert {e['vs_expert']:+.3f} [{e['vs_expert_low']:+.3f}, {e['vs_expert_high']:+.3f}]"
    return text


def report(cfg: Config, log: pd.DataFrame, out: Path, command: str) -> Path:
    """report.md and figures/training.png: the held-out losses and the strength against expert by round."""
    from tractor_sim.report import plots

    fig = plots.plot_training(log, out / "figures" / "training.png")
    last = log.iloc[-1]
    lines = [f"# tractor-sim training: {cfg.name}", "", cfg.description, "",
             f"Command: `{command}`", "",
             f"Game: {cfg.game.label}. Teacher: `search:{BASE}:{cfg.worlds}` (max {cfg.max_candidates} candidates) "
             "at every seat, playing "
             f"{BASE}'s answers and valuing every candidate; {cfg.rounds} rounds of {cfg.deals:,} deals, seed "
             f"{cfg.seed}; ridge {cfg.ridge:g}. Fingerprint {cfg.fingerprint()}.", ""]
    if "vs_expert" in log:
        per = " per player" if cfg.game.teams == "friends" else ""
        lines += [f"**Final model against {BASE}: {last['vs_expert']:+.3f} levels{per} per deal "
                  f"[{last['vs_expert_low']:+.3f}, {last['vs_expert_high']:+.3f}] (95%) on {int(last['eval_pairs']):,} "
                  f"duplicate deal pairs of their own seed.**", ""]
    names = list(DECISION_NAMES.values())
    lines += [f"| round | deals | rows | held-out loss: {' | '.join(names)} | held-out regret: {' | '.join(names)} "
              "| vs expert | 95% |", "|---" * (3 + 2 * len(names) + 2) + "|"]
    for _, e in log.iterrows():
        vs = f"{e['vs_expert']:+.3f} | [{e['vs_expert_low']:+.3f}, {e['vs_expert_high']:+.3f}]" \
            if "vs_expert" in e and pd.notna(e["vs_expert"]) else "- | -"
        cells = " | ".join(f"{e.get(f'heldout_{d}_{m}', float('nan')):.4f}" for m in ("mse", "regret")
                           for d in DECISION_NAMES.values())
        lines.append(f"| {int(e['round']) + 1} | {int(e['deals']):,} | {int(e['rows']):,} | {cells} | {vs} |")
    lines += ["", "Held-out: each round's new data scored by the model fitted before it (round 1: all weights 0, "
              "the expert's answers). Loss: the mean squared error of the predicted gains over the expert's answer "
              "(levels squared). Regret: the teacher's best candidate's gain minus the chosen one's, in levels per "
              "decision; the teacher's values are means of a few worlds, so its best is partly luck and the regret "
              "stays high for any model. The in-sample figures are in rounds.csv.", "",
              f"![training]({fig.relative_to(out)})", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
