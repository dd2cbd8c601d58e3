"""Deal records on disk: JSON Lines files, checked against the packaged JSON Schema.

A record (built by ``replay.replay``, which also exports them from a run
directory) is one deal as played; this module reads, checks and writes files
of them, lists a record's decisions for the step API, and turns one trick of
a record into the referee's input.  Everything returns plain data,
so other code (the step API, the viewer) needs nothing else to load a deal.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

FORMAT = "tractor-sim-deal"  # a record's "format" field
VERSION = 1


class RecordError(ValueError):
    """A record file or a request about one that cannot be served; the message says what is wrong."""


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of a deal record (tractor_sim/play/schema/deal-record.schema.json)."""
    return json.loads(resources.files("tractor_sim.play").joinpath("schema/deal-record.schema.json").read_text())


def validate(rec, where: str = "record") -> dict:
    """Check one record against the schema; RecordError names the first problem and its place."""
    import jsonschema

    if isinstance(rec, dict) and rec.get("format") == FORMAT and rec.get("version") != VERSION:
        raise RecordError(f"{where}: version {rec.get('version')!r} of {FORMAT}; this tractor-sim reads "
                          f"version {VERSION}")
    err = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema()).iter_errors(rec))
    if err is not None:
        path = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise RecordError(f"{where}: at {path}: {err.message}")
    return rec


def read(path) -> list[dict]:
    """Every record of a JSON Lines file ('-' for stdin), validated."""
    import sys

    try:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text()
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{path}, line {n}: not valid JSON: {e.msg} (column {e.colno})") from None
        out.append(validate(rec, f"{path}, line {n}"))
    if not out:
        raise RecordError(f"{path}: no deal records in the file")
    return out


def load(path, index: int = 0) -> dict:
    """Record ``index`` (0-based) of a file: rules, seed, deal id, hands and events as plain data."""
    records = read(path)
    if not 0 <= index < len(records):
        raise RecordError(f"{path}: no record {index}; the file holds {len(records)} "
                          f"(indices 0 to {len(records) - 1})")
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


__all__ = ["RecordError", "FORMAT", "VERSION", "schema", "validate", "read", "load", "write", "parse_ids",
           "trick_input", "actions", "differences"]
