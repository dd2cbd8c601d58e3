"""Deal records on disk: JSON Lines files, checked against the packaged JSON Schema.

A record (built by ``replay.replay``, which also exports them from a run
directory) is one deal as played; this module reads, checks and writes files
of them, lists a record's decisions for the step API, and turns one trick of
a record into the referee's input.  Everything returns plain data,
so other code (the step API, the viewer) needs nothing else to load a deal.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

FORMAT = "tractor-sim-deal"  # a record's "format" field
VERSION = 1


class RecordError(ValueError):
    """A record file or a request about one that cannot be served; the message says what is wrong."""


class ImpossibleDeal(RecordError):
    """A record whose deal the rules do not allow (``check_plays``): the message names the first
    impossible event."""


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of a deal record (tractor_sim/play/schema/deal-record.schema.json)."""
    return json.loads(resources.files("tractor_sim.play").joinpath("schema/deal-record.schema.json").read_text())


@lru_cache(maxsize=1)
def _validator():
    """The schema's validator, its "integer" a JSON integer: JSON Schema also counts 1.0 as one, which
    as a seat or a trick number would reach Python as a float index (every integer field alike)."""
    import jsonschema

    integer = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=integer)(schema())


def validate(rec, where: str = "record") -> dict:
    """Check one record against the schema; RecordError names the first problem and its place."""
    import jsonschema

    if isinstance(rec, dict) and rec.get("format") == FORMAT and (rec.get("version") != VERSION
                                                                  or type(rec.get("version")) is not int):
        raise RecordError(f"{where}: version {rec.get('version')!r} of {FORMAT}; this tractor-sim reads "
                          f"version {VERSION}")
    err = jsonschema.exceptions.best_match(_validator().iter_errors(rec))
    if err is not None:
        path = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        message = err.message if len(err.message) <= 200 else err.message[:200] + "..."
        raise RecordError(f"{where}: at {path}: {message}")
    check_size(rec, where)
    return rec


def check_size(rec: dict, where: str = "record") -> None:
    """The bounds the JSON Schema cannot state: every seat, count and card list by the record's game
    size (its "game", else 4 players and 2 decks), so that nothing downstream (judge, the viewer)
    meets a seat 4 in a 4-player deal or a card held three times with two decks."""
    from collections import Counter

    from tractor_sim.rules.sizes import GameSize, GameSizeError

    try:
        size = GameSize.of(rec.get("game"), "game")
    except GameSizeError as e:
        raise RecordError(f"{where}: {e}") from None
    players, friends = size.players, size.teams == "friends"

    def seat(value, path):
        if not 0 <= value < players:
            raise RecordError(f"{where}: at {path}: seat {value} in a game of {players} players (seats 0 to "
                              f"{players - 1})")

    def count(items, wanted, path):
        if len(items) != wanted:
            raise RecordError(f"{where}: at {path}: {len(items)} entries; a game of {size.label} has {wanted}")

    count(rec["hands"], players, "hands")
    for i, hand in enumerate(rec["hands"]):
        count(hand, size.hand, f"hands/{i}")
    count(rec["kitty"], size.kitty, "kitty")
    count(rec["buried"], size.kitty, "buried")
    count(rec["levels"], players if friends else 2, "levels")
    if not friends and rec["declaring_team"] > 1:
        raise RecordError(f"{where}: at declaring_team: {rec['declaring_team']}; tractor teams are 0 and 1")
    seat(rec["declaring_team"] if friends else 0, "declaring_team")
    seat(rec["starter"], "starter")
    if "dealer" in rec:
        seat(rec["dealer"], "dealer")
    for i, d in enumerate(rec["declarations"]):
        seat(d["seat"], f"declarations/{i}/seat")
        if d.get("count", 1) > size.decks:
            raise RecordError(f"{where}: at declarations/{i}/count: {d['count']} cards shown with {size.decks} decks")
    for i, a in enumerate(rec.get("auction", [])):
        seat(a["seat"], f"auction/{i}/seat")
    for t, tr in enumerate(rec["tricks"]):
        seat(tr["leader"], f"tricks/{t}/leader")
        seat(tr["winner"], f"tricks/{t}/winner")
        if len(tr["plays"]) > players:
            raise RecordError(f"{where}: at tricks/{t}/plays: {len(tr['plays'])} plays in a game of {players} players")
        for i, p in enumerate(tr["plays"]):
            seat(p["seat"], f"tricks/{t}/plays/{i}/seat")
        if "failed_throw" in tr:
            seat(tr["failed_throw"]["blocked_by"], f"tricks/{t}/failed_throw/blocked_by")
        for i, j in enumerate(tr.get("joins", [])):
            seat(j["seat"], f"tricks/{t}/joins/{i}/seat")
    dealt = Counter(c for hand in rec["hands"] for c in hand) + Counter(rec["kitty"])
    for card, n in sorted(dealt.items()):
        if n > size.decks:
            raise RecordError(f"{where}: at hands and kitty: card {card} is dealt {n} times with {size.decks} decks")


def check_plays(rec: dict, where: str = "record") -> None:
    """Check a record's deal against the rules, or RecordError naming its first impossible event:
    the burial from the starter's cards, each trick's order of seats, each play from the seat's
    cards and legal (tractor_sim.play.referee judges it, a failed throw included), each trick's
    winner and points, the next leader. ``replay``, ``replay --html`` and ``judge --record`` call
    it unless --no-check."""
    from collections import Counter

    from tractor_sim.play import referee

    players = rec.get("game", {}).get("players", 4)
    starter_cards = Counter(rec["hands"][rec["starter"]]) + Counter(rec["kitty"])
    missing = Counter(rec["buried"]) - starter_cards
    if missing:
        raise ImpossibleDeal(f"{where}: the starter, seat {rec['starter']}, buries {' '.join(sorted(missing.elements()))}, "
                          "which is neither in the hand nor in the kitty")
    leader = rec["starter"]
    for t, tr in enumerate(rec["tricks"]):
        at = f"{where}: trick {t + 1}"
        if tr["trick"] != t + 1:
            raise ImpossibleDeal(f"{at}: numbered {tr['trick']}")
        if tr["leader"] != leader:
            raise ImpossibleDeal(f"{at}: led by seat {tr['leader']}; the rules give the lead to seat {leader}")
        for i, p in enumerate(tr["plays"]):
            if p["seat"] != (leader + i) % players:
                raise ImpossibleDeal(f"{at}: play {i + 1} is by seat {p['seat']}; seat {(leader + i) % players} plays then")
        if len(tr["plays"]) != players:
            raise ImpossibleDeal(f"{at}: {len(tr['plays'])} plays; every one of the {players} players plays once")
        try:
            verdict = referee.trick(**referee.check_json(trick_input(rec, t + 1)))
        except (referee.RefereeError, RecordError) as e:
            text = str(e)
            if "which is not in hands" in text:  # plays[i]: seat s plays C, which is not in hands[s]
                text = re.sub(r", which is not in hands\[\d+\]", ", which it does not hold", text.split(": ", 1)[1])
            raise ImpossibleDeal(f"{at}: {text}") from None
        for i, ok in enumerate(verdict["legal"]):
            if ok is False:
                p = tr["plays"][i]
                raise ImpossibleDeal(f"{at}: seat {p['seat']} plays {' '.join(p['cards'])}, which the rules do not allow "
                                  f"(it must follow the lead {' '.join(tr['plays'][0]['cards'])} as far as it can)")
        throw = verdict.get("throw")
        failed = throw is not None and throw["ok"] is False
        if failed != ("failed_throw" in tr):
            raise ImpossibleDeal(f"{at}: the record says the throw {'fails' if 'failed_throw' in tr else 'stands'}; "
                              f"the rules say it {'fails' if failed else 'stands'}")
        if failed and sorted(throw["forced"]) != sorted(tr["plays"][0]["cards"]):
            raise ImpossibleDeal(f"{at}: after the failed throw seat {leader} leads {' '.join(tr['plays'][0]['cards'])}; "
                              f"the rules force {' '.join(throw['forced'])}")
        if verdict["winner"] != tr["winner"]:
            raise ImpossibleDeal(f"{at}: the record says seat {tr['winner']} wins it; the rules say seat "
                              f"{verdict['winner']}")
        if verdict["points"] != tr["points"]:
            raise ImpossibleDeal(f"{at}: the record counts {tr['points']} points; its cards hold {verdict['points']}")
        leader = tr["winner"]


def read(path) -> list[dict]:
    """Every record of a JSON Lines file ('-' for stdin), validated."""
    import sys

    try:
        data = sys.stdin.buffer.read() if str(path) == "-" else Path(path).read_bytes()
    except IsADirectoryError:
        raise RecordError(f"{path}: a directory, not a deal record file") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None
    out = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RecordError(f"{path}, line {n}: not UTF-8 text (byte {raw[e.start]:#04x} at column {e.start + 1}); "
                              "deal records are UTF-8") from None
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{path}, line {n}: not valid JSON: {e.msg} (column {e.colno})") from None
        except RecursionError:
            raise RecordError(f"{path}, line {n}: the JSON is nested too deeply") from None
        out.append(validate(rec, f"{path}, line {n}"))
    if not out:
        raise RecordError(f"{path}: no deal records in the file")
    return out


def load(path, index: int = 0, check: bool = False) -> dict:
    """Record ``index`` (0-based) of a file: rules, seed, deal id, hands and events as plain data;
    ``check``: its plays checked against the rules too (``check_plays``)."""
    records = read(path)
    if not 0 <= index < len(records):
        raise RecordError(f"{path}: no record {index}; the file holds {len(records)} "
                          f"(indices 0 to {len(records) - 1})")
    if check:
        check_plays(records[index], f"{path}, record {index}")
    return records[index]


def write(records, out) -> int:
    """Write records as JSON Lines to a path or an open text file; returns how many."""
    n = 0
    f = open(out, "w") if isinstance(out, (str, Path)) else out
    try:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            n += 1
    finally:
        if f is not out:
            f.close()
    return n


def parse_ids(text: str) -> list[int]:
    """'0-9,42' -> [0, 1, ..., 9, 42]."""
    ids: list[int] = []
    for part in str(text).split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            a, b = int(lo), int(hi or lo)
        except ValueError:
            raise RecordError(f"--deals: expected ids and ranges such as 0-9,42, got {part.strip()!r}") from None
        if a < 0 or b < a:
            raise RecordError(f"--deals: bad range {part.strip()!r}")
        ids.extend(range(a, b + 1))
    return list(dict.fromkeys(ids))


def trick_input(rec: dict, number: int) -> dict:
    """The referee's input (``judge``) for trick ``number`` (1-based) of a record: every hand
    before the trick, and the plays (a failed throw as attempted, so the referee re-judges it); at
    another game size its players, decks and teams, and in Finding Friends the landlord's side of
    the moment (the landlord and who joined in the tricks before)."""
    from collections import Counter

    tricks = rec["tricks"]
    if not 1 <= number <= len(tricks):
        raise RecordError(f"--trick: the deal has tricks 1 to {len(tricks)}, not {number}")
    hands = [Counter(h) for h in rec["hands"]]
    hands[rec["starter"]].update(rec["kitty"])
    hands[rec["starter"]].subtract(rec["buried"])
    for tr in tricks[: number - 1]:
        for p in tr["plays"]:
            hands[p["seat"]].subtract(p["cards"])
    tr = tricks[number - 1]
    plays = [p["cards"] for p in tr["plays"]]
    if "failed_throw" in tr:
        plays[0] = tr["failed_throw"]["attempted"]
    game = rec.get("game", {"players": 4, "decks": 2, "teams": "tractor"})
    if game["teams"] == "friends":
        declarers = [rec["starter"]] + [j["seat"] for t in tricks[: number - 1] for j in t.get("joins", ())
                                        if j["joined"]]
    else:
        declarers = list(range(rec["declaring_team"], game["players"], 2))
    out = {"trump": {"rank": rec["trump"]["rank"], "suit": rec["trump"]["suit"]}, "rules": rec["rules"],
           "leader": tr["leader"], "declarers": declarers,
           "hands": [sorted(h.elements()) for h in hands], "plays": plays}
    return out if "game" not in rec else {**out, **game}


def actions(rec: dict) -> list[dict]:
    """The record's decisions in the order they were taken, for a step API to apply one by one:
    declare (with ``drawn``, the cards drawn by then, and ``count``, the cards shown), bid, show,
    name (the auction's trump suit), bury, call (Finding Friends), play (a failed throw as attempted: the rules then force its part)."""
    out = [{"type": "declare", "seat": d["seat"], "kind": d["kind"], "card": d["card"], "drawn": d.get("drawn"),
            "count": d.get("count", 1 if d["kind"] == "single" else 2)} for d in rec["declarations"]]
    for a in rec.get("auction", []):
        out.append({"type": "bid", "seat": a["seat"], "bid": a["bid"]} if "bid" in a
                   else {"type": "show", "seat": a["seat"], "card": a["shows"]})
    if rec.get("auction"):
        out.append({"type": "name", "seat": rec["starter"], "suit": rec["trump"]["suit"]})
    out.append({"type": "bury", "seat": rec["starter"], "cards": rec["buried"]})
    if "calls" in rec:  # Finding Friends: the landlord's calls, before the first lead
        out.append({"type": "call", "seat": rec["starter"], "calls": rec["calls"]})
    for tr in rec["tricks"]:
        for i, p in enumerate(tr["plays"]):
            cards = tr["failed_throw"]["attempted"] if i == 0 and "failed_throw" in tr else p["cards"]
            out.append({"type": "play", "seat": p["seat"], "cards": cards, "trick": tr["trick"]})
    return out


def differences(a: dict, b: dict) -> list[str]:
    """Where two records of one deal differ (the annotations ``note`` and ``source`` aside)."""
    def strip(rec):
        rec = json.loads(json.dumps(rec))
        rec.pop("source", None)
        for tr in rec.get("tricks", []):
            for p in tr["plays"]:
                p.pop("note", None)
        return rec

    a, b = strip(a), strip(b)
    out = [k for k in sorted(set(a) | set(b)) if k != "tricks" and a.get(k) != b.get(k)]
    ta, tb = a.get("tricks", []), b.get("tricks", [])
    out += [f"trick {i + 1}" for i in range(max(len(ta), len(tb))) if ta[i:i + 1] != tb[i:i + 1]]
    return out


__all__ = ["RecordError", "ImpossibleDeal", "FORMAT", "VERSION", "schema", "validate", "check_size", "check_plays",
           "read", "load", "write", "parse_ids", "trick_input", "actions", "differences"]
