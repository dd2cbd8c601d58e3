"""Replay deals from their seed and id, with the same kernel that played them: one, or a run's.

The deal comes back as a deal record (docs/records.md, "Deal records"): the
kernel's event log read into plain data, the same thing ``export`` writes.
"""

from __future__ import annotations

import json
from pathlib import Path

from tractor_sim.rules import sizes
from tractor_sim.rules.cards import RANKS, SUITS, card_str
from tractor_sim.play.chunks import ChunkSpec, policy_name
from tractor_sim.play.game import Game
from tractor_sim.play.record import FORMAT, VERSION, RecordError
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels.match import MAX_DEALS_PER_MATCH
from tractor_sim.rules.options import as_rules

SOURCES = ("a single", "a pair", "a joker pair", "the kitty flip", "the starter after the auction")
DECL_KINDS = {1: "single", 2: "pair", 3: "joker pair"}


def _cards(counts) -> list[str]:
    return [card_str(c) for c in range(53, -1, -1) for _ in range(int(counts[c]))]


def replay(seed: int, deal_id: int, policies=("basic", "basic"), mode="fixed", levels=(0, 0),
           declaring_team=0, rules=None, modules=(), game=None) -> dict:
    """The deal record of one deal (what ``replay --format json`` prints and ``export`` writes); a
    game of another size than 4 players and 2 decks (``game``, tractor_sim.rules.sizes) says its size
    in the field "game" (docs/records.md)."""
    first = deal_id if mode == "fixed" else deal_id // MAX_DEALS_PER_MATCH
    rules = as_rules(rules).to_dict()
    names = tuple(policy_name(p) for p in policies)
    size = sizes.as_size(game)
    sizes.check_rules(size, rules)
    spec = ChunkSpec(matchup="replay", policies=tuple(policies), names=names, half=0,
                     mode=mode, first_id=first, count=1, seed=int(seed), rules=rules,
                     levels=tuple(levels), declaring_team=declaring_team, modules=tuple(modules),
                     game=(size.players, size.decks, size.teams))
    game = Game.of(spec.game, spec.rules)
    res = game.play_chunk(spec, log_id=deal_id)
    rows = res.deals[res.deals["deal_id"] == deal_id]
    if not len(rows):
        raise ValueError(f"deal {deal_id} was not played (match {first} had {len(res.deals)} deals)")
    result = {name: int(rows[0][name]) for name in game.deal_dtype.names}
    holders = size.players if size.teams == "friends" else 2  # a level per player in Finding Friends
    out = {"format": FORMAT, "version": VERSION, "seed": int(seed), "deal_id": int(deal_id), "mode": mode,
           "rules": rules, "policies": list(names), "policy_specs": list(policies),
           "strategy_modules": list(modules),
           "levels": [RANKS[result[f"level{t}_before"]] for t in range(holders)],
           "declaring_team": result["declaring_team"], "dealer": result["dealer"], "redeals": 0,
           "declarations": []}
    if not size.standard:
        out["game"] = size.to_dict()
    out.update(_events(res.extra["log"], result, size))
    out["result"] = result
    return out


def _events(log, result, size=sizes.STANDARD) -> dict:
    """Read the kernel's LOG_* rows into the record's event fields."""
    out = {"declarations": [], "redeals": 0, "hands": [[] for _ in range(size.players)], "tricks": []}
    trick, drawn = None, 0
    for ev in log:
        kind, seat, a, b = (int(x) for x in ev[:4])
        cards = ev[4:]
        if kind == D.LOG_DRAW:
            drawn += 1
        elif kind == D.LOG_BID:
            out.setdefault("auction", []).append({"seat": seat, "bid": a})
        elif kind == D.LOG_SHOW:
            out.setdefault("auction", []).append({"seat": seat, "shows": card_str(a)})
        elif kind == D.LOG_DECLARE:
            decl = {"seat": seat, "kind": DECL_KINDS[a], "card": card_str(b), "drawn": drawn}
            if size.decks > 2:  # how many copies it shows (decisions.md 9.8)
                decl["count"] = int(cards[0])
            out["declarations"].append(decl)
        elif kind == D.LOG_REDEAL:
            out["redeals"] = a + 1
            out["declarations"] = []
            drawn = 0
        elif kind == D.LOG_TRUMP:
            out["trump"] = {"rank": RANKS[result["trump_rank"]], "suit": SUITS[a] if a < 4 else None,
                            "set_by": SOURCES[b]}
            out["starter"] = seat
        elif kind == D.LOG_HAND:
            out["hands"][seat] = _cards(cards)
        elif kind == D.LOG_KITTY:
            out["kitty"] = [card_str(int(c)) for c in cards[:size.kitty]]
        elif kind == D.LOG_BURY:
            out["buried"] = _cards(cards)
        elif kind == D.LOG_LEAD:
            trick = {"trick": a + 1, "leader": seat, "plays": [{"seat": seat, "cards": _cards(cards)}]}
        elif kind == D.LOG_FAILED_THROW:
            trick["failed_throw"] = {"attempted": trick["plays"][0]["cards"], "blocked_by": a, "penalty": b}
            trick["plays"][0]["cards"] = _cards(cards)
        elif kind == D.LOG_FOLLOW:
            trick["plays"].append({"seat": seat, "cards": _cards(cards)})
        elif kind == D.LOG_CALL:
            out.setdefault("calls", []).append({"card": card_str(a), "copy": b})
        elif kind == D.LOG_JOIN:
            trick.setdefault("joins", []).append({"seat": seat, "call": a, "joined": bool(b)})
        elif kind == D.LOG_TRICK:
            trick["winner"] = seat
            trick["points"] = b
            out["tricks"].append(trick)
    return out


def open_run(run_dir, columns=None):
    """(manifest, deals table) of a finished run directory; RecordError naming the file if it is not one."""
    from tractor_sim.rules import files

    run_dir = Path(run_dir)
    try:
        manifest = files.read_json(run_dir / "manifest.json", "run manifest", RecordError)
        deals = files.read_parquet(run_dir / "deals.parquet", "deals table", RecordError, columns)
    except RecordError as e:
        raise RecordError(f"{e} (not a finished run directory)") from None
    return manifest, deals


def export(run_dir, deal_ids, matchups=None, halves=None):
    """Yield the records of a run's deals (ids ``deal_ids`` of every chosen matchup and half)."""
    manifest, deals = open_run(run_dir)
    known = [m["name"] for m in manifest["experiment"]["matchups"]]
    for name in matchups or ():
        if name not in known:
            raise RecordError(f"--matchup: {name!r} is not a matchup of {run_dir}; it has {', '.join(known)}")
    names = deals["matchup"].astype(str).to_numpy()
    chosen = []
    for name in known:
        for half in (0, 1):
            if (matchups and name not in matchups) or (halves is not None and half not in halves):
                continue
            rows = deals[(names == name) & (deals["half"].to_numpy() == half)]
            if not len(rows):
                continue
            for deal_id in deal_ids:
                if deal_id not in set(rows["deal_id"]):
                    raise RecordError(f"deal {deal_id} is not in {run_dir} (matchup {name}, half {half}: "
                                      f"deal ids {rows['deal_id'].min()} to {rows['deal_id'].max()})")
                chosen.append(rows[rows["deal_id"].to_numpy() == deal_id].iloc[0])
    yield from export_rows(run_dir, manifest, chosen)


def export_rows(run_dir, manifest, rows):
    """Yield the records of stored deal rows (each with matchup, half, deal_id), replayed by seed
    with the manifest's policies and rules.

    Each replayed result is compared with the row's other columns: a deal that
    plays differently now (changed strategies or kernels) is an error, not a record.
    """
    exp = manifest["experiment"]
    by_name = {m["name"]: m for m in exp["matchups"]}
    for stored in rows:
        m, half, deal_id = by_name[str(stored["matchup"])], int(stored["half"]), int(stored["deal_id"])
        pols = (m["a"], m["b"]) if half == 0 else (m["b"], m["a"])
        rec = replay(seed=int(exp["seed"]), deal_id=deal_id, policies=pols, mode=exp["mode"],
                     levels=tuple(exp.get("levels", (0, 0))), declaring_team=exp.get("declaring_team", 0),
                     rules=exp.get("rules"), modules=tuple(exp.get("strategy_modules", ())), game=exp.get("game"))
        rec["source"] = {"run": str(run_dir), "matchup": m["name"], "half": half}
        for col, value in rec["result"].items():
            if col in stored.index and int(stored[col]) != value:
                raise RecordError(
                    f"deal {deal_id} (matchup {m['name']}, half {half}) replays differently from the run: "
                    f"{col} {value} now, {int(stored[col])} stored; the strategies or the kernels changed "
                    "since the run")
        yield rec


def replay_again(rec: dict) -> dict:
    """Play a record's deal again from its seed, policies and rules (a record from elsewhere
    without ``policy_specs`` cannot be)."""
    from tractor_sim.rules.cards import parse_rank
    if "policy_specs" not in rec:
        raise RecordError("the record has no policy_specs: it cannot be played again")
    levels = tuple(parse_rank(x) for x in rec["levels"])
    friends = rec.get("game", {}).get("teams") == "friends"
    if friends:  # a fixed-levels Finding Friends deal: everybody at one level (decisions.md)
        levels = (levels[0], levels[0])
    return replay(seed=rec["seed"], deal_id=rec["deal_id"], policies=tuple(rec["policy_specs"]), mode=rec["mode"],
                  levels=levels, declaring_team=0 if friends else rec["declaring_team"],
                  rules=rec["rules"], modules=tuple(rec.get("strategy_modules", ())), game=rec.get("game"))


def level_text(level: int) -> str:
    """A team level 0..12 as its rank; past the Ace as 'A+'."""
    return RANKS[min(12, level)] + ("+" if level > 12 else "")


def _ordinal(k: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth"}.get(k, f"copy {k}")


def _friends_text(data: dict, lines: list) -> list:
    """The calls, the joins, the final sides and every player's level of a Finding Friends deal."""
    r = data["result"]
    n = data["game"]["players"]
    calls = data.get("calls", [])
    lines.append("Calls: " + "; ".join(f"the {_ordinal(c['copy'])} {c['card']}" for c in calls))
    for tr in data["tricks"]:
        for j in tr.get("joins", []):
            c = calls[j["call"]]
            what = "joins the landlord" if j["joined"] else "is the landlord's already: the call is used up"
            lines.append(f"  trick {tr['trick']}: seat {j['seat']} plays the {_ordinal(c['copy'])} {c['card']} and "
                         f"{what}")
    team = [s for s in range(n) if r["team"] >> s & 1]
    if not any(j["joined"] for tr in data["tricks"] for j in tr.get("joins", [])):
        lines.append("  nobody joined: the landlord plays alone")
    others = [s for s in range(n) if s not in team]
    lines.append(f"Landlord's team: seats {', '.join(map(str, team))}; opponents: seats {', '.join(map(str, others))}")
    lines.append(f"Opponents: {r['trick_points']} from tricks + {r['kitty_bonus']} kitty bonus "
                 f"{r['throw_penalty']:+d} penalties = {r['opp_points']}")
    winners = "the landlord's team" if r["landlord_won"] else "the opponents"
    lines.append(f"Result: {winners} win, +{r['gain']} each; levels "
                 + ", ".join(f"seat {s} {level_text(r[f'level{s}_before'])}->{level_text(r[f'level{s}_after'])}"
                             for s in range(n)) + f"; next landlord seat {r['next_starter']}")
    return lines


def as_text(data: dict) -> str:
    """A readable trick-by-trick account of a deal record."""
    r = data["result"]
    t = data["trump"]
    friends = data.get("game", {}).get("teams") == "friends"
    sides = ("even seats", "odd seats") if friends else ("team 0", "team 1")
    lines = [f"Deal {data['deal_id']} (seed {data['seed']}, {data['mode']} mode): "
             f"{sides[0]} = {data['policies'][0]}, {sides[1]} = {data['policies'][1]}"]
    src = data.get("source")
    if src:
        lines.append(f"From run {src.get('run', '?')}, matchup {src.get('matchup', '?')}, half {src.get('half', '?')}")
    if data["redeals"]:
        lines.append(f"Redeals before this deal: {data['redeals']}")
    for d in data["declarations"]:
        lines.append(f"  seat {d['seat']} declares a {d['kind']} {d['card']}")
    for e in data.get("auction", []):
        lines.append(f"  seat {e['seat']} " + (f"bids {e['bid']}" if "bid" in e else f"shows {e['shows']}"))
    lines.append(f"Trump: rank {t['rank']}, suit {t['suit'] or 'none'} (set by {t['set_by']}); "
                 + (f"landlord seat {data['starter']}" if friends else
                    f"starter seat {data['starter']}, declaring team {r['declaring_team']}"))
    for seat, hand in enumerate(data["hands"]):
        lines.append(f"  hand {seat}: {' '.join(hand)}")
    lines.append(f"Kitty dealt: {' '.join(data['kitty'])}")
    lines.append(f"Buried:      {' '.join(data['buried'])} ({r['kitty_points']} points)")
    for tr in data["tricks"]:
        plays = "  ".join(f"{p['seat']}: {' '.join(p['cards'])}" for p in tr["plays"])
        extra = ""
        if "failed_throw" in tr:
            f = tr["failed_throw"]
            extra = (f"  [throw {' '.join(f['attempted'])} failed: seat {f['blocked_by']} can beat it; "
                     f"penalty {abs(f['penalty'])}]")
        lines.append(f"Trick {tr['trick']:2d}  {plays}  -> seat {tr['winner']} ({tr['points']} pts){extra}")
        lines += [f"          note, seat {p['seat']}: {p['note']}" for p in tr["plays"] if p.get("note")]
    if friends:
        return "\n".join(_friends_text(data, lines))
    lines.append(f"Opponents: {r['trick_points']} from tricks + {r['kitty_bonus']} kitty bonus "
                 f"{r['throw_penalty']:+d} penalties = {r['opp_points']}")
    gainer = {0: "team 0", 1: "team 1", -1: "nobody"}[r["gain_team"]]
    lines.append(f"Result: {gainer} +{r['gain']}; levels {level_text(r['level0_after'])} / "
                 f"{level_text(r['level1_after'])}")
    return "\n".join(lines)


__all__ = ["replay", "as_text", "open_run", "export", "export_rows", "replay_again", "FORMAT", "VERSION"]
