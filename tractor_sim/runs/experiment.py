"""Experiment files (TOML): load, validate with helpful errors, expand sweeps.

Every error names the file and the key (``matchup[2].a``) and suggests the
closest valid name, before anything runs.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from tractor_sim.rules.cards import CardError, parse_rank
from tractor_sim.rules import files
from tractor_sim.rules.fields import Whole, shown
from tractor_sim.runs import contexts as CTX
from tractor_sim.rules.options import Rules, RulesError
from tractor_sim.rules.sizes import STANDARD, GameSize, GameSizeError, check_rules
from tractor_sim.runs.engine import MAX_CHUNK, MAX_COUNT

TOP_KEYS = {"name", "description", "seed", "mode", "count", "duplicate", "chunk_size", "rules",
            "fixed", "matchup", "sweep", "strategy_modules", "game", "contexts"}
FIXED_KEYS = {"levels", "declaring_team"}
MATCHUP_KEYS = {"name", "a", "b"}
SWEEP_KEYS = {"name", "a", "b", "param", "values", "side"}


class ExperimentError(ValueError):
    """A bad experiment file; the message names the file and the key."""


# The experiment's numbers, declared once (tractor_sim.rules.fields), with the engine's limits
# (engine.MAX_COUNT, MAX_CHUNK; its check_plan adds the limits of a mode and of the whole plan).
NUMBERS = {
    "seed": Whole("seed", 0, 2**64 - 1, "the root seed of every deal's random streams",
                  "the streams are seeded by 64 bits"),
    "count": Whole("count", 1, MAX_COUNT, "deals (fixed mode) or matches (match mode) per matchup and half",
                   "deal ids per matchup and half; match-mode deal ids are match_id * 1000 + deal"),
    "chunk_size": Whole("chunk_size", 1, max(MAX_CHUNK.values()), "deals or matches per kernel call",
                        "a chunk's output rows are allocated at once"),
}


NAME_MAX = 100  # characters of an experiment's name


def check_name(name, where: str) -> str:
    """An experiment name: any printable text (Unicode: "拖拉机" is a name), 1 to 100 characters.

    The name is what the report shows; its default run directory is ``dir_name(name)``."""
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX or not name.isprintable():
        raise ExperimentError(f"{where}: field 'name' must be printable text of 1 to {NAME_MAX} characters "
                              f"(no control characters or line breaks), got {shown(name)}")
    return name


_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]')  # separators, Windows' reserved characters, controls


def dir_name(name: str) -> str:
    """The run directory's name for an experiment name: one path component under runs/, whatever
    the name. Path separators, the characters Windows reserves (``\\ / : * ? " < > |``) and control
    characters become ``_``; leading dots and spaces (hidden files, ``..``) and trailing dots and
    spaces (dropped by Windows) are removed; nothing left: ``experiment``. Letters of any script stay,
    cut to 200 bytes of UTF-8 (file systems allow 255)."""
    safe = _UNSAFE.sub("_", name).lstrip(". ")
    while len(safe.encode("utf-8")) > 200:
        safe = safe[:-1]
    return safe.rstrip(". ") or "experiment"


@dataclass
class Experiment:
    name: str
    seed: int = 0
    mode: str = "fixed"
    count: int = 1000
    duplicate: bool = True
    chunk_size: int = 10_000
    rules: dict = field(default_factory=dict)
    levels: tuple = (0, 0)
    declaring_team: int = 0
    matchups: list = field(default_factory=list)  # dicts {"name", "a", "b"}
    strategy_modules: list = field(default_factory=list)
    description: str = ""
    source: str = ""
    game: GameSize = STANDARD  # players, decks, team mode: the table [game] (tractor_sim.rules.sizes)
    contexts: list = field(default_factory=list)  # policies that complete partial tables (runs/contexts.py)

    def to_dict(self) -> dict:
        """As stored in a run's manifest; the 4-player 2-deck game says nothing (as before sizes), nor does
        an experiment without contexts."""
        out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()
               if k not in ("game", "contexts")}
        if not self.game.standard:
            out["game"] = self.game.to_dict()
        if self.contexts:  # the matchups as played, so that export replays a deal of any context
            out["contexts"] = list(self.contexts)
            out["matchups"] = self.played()
        return out

    def played(self) -> list:
        """The matchups as played: each once per context (NAME@CONTEXT), or as written without contexts."""
        return CTX.expand(self.matchups, self.contexts, self.source)


def _suggest(name, valid) -> str:
    close = difflib.get_close_matches(str(name), sorted(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_keys(table: dict, valid: set, where: str, path: str):
    for key in table:
        if key not in valid:
            raise ExperimentError(f"{path}: unknown field {where}{key!r}{_suggest(key, valid)}")


def load(path: str | Path) -> Experiment:
    """Read and validate an experiment file."""
    path = Path(path)
    return from_dict(files.read_toml(path, "experiment file", ExperimentError), str(path))


def from_dict(data: dict, source: str = "<experiment>") -> Experiment:
    """Validate an experiment given as a dict (as read from TOML)."""
    p = source
    _check_keys(data, TOP_KEYS, "", p)
    for key, kind, example in (("rules", dict, "a table [rules]"), ("fixed", dict, "a table [fixed]"),
                               ("matchup", list, "tables [[matchup]]"), ("sweep", list, "tables [[sweep]]")):
        if key in data and not isinstance(data[key], kind):
            raise ExperimentError(f"{p}: field {key!r} must be {example}, got {shown(data[key])}")
        if kind is list and not all(isinstance(t, dict) for t in data.get(key, [])):
            raise ExperimentError(f"{p}: field {key!r} must be {example} (each a table with a = .., b = ..), "
                                  f"got {shown(data[key])}")
    if "name" in data:
        name = check_name(data["name"], p)
    else:  # the file's name
        name = "".join(ch if ch.isprintable() else "_" for ch in Path(source).stem)[:NAME_MAX].strip() or "experiment"
    exp = Experiment(name=name, source=source, description=str(data.get("description", "")))
    for key, declared in NUMBERS.items():
        if key in data:
            setattr(exp, key, declared.check(data[key], f"{p}: field ", ExperimentError))
    if "mode" in data:
        if data["mode"] not in ("fixed", "match"):
            raise ExperimentError(f"{p}: field 'mode' must be \"fixed\" or \"match\", got {shown(data['mode'])}"
                                  f"{_suggest(data['mode'], ('fixed', 'match'))}")
        exp.mode = data["mode"]
    if "duplicate" in data:
        if not isinstance(data["duplicate"], bool):
            raise ExperimentError(f"{p}: field 'duplicate' must be true or false")
        exp.duplicate = data["duplicate"]
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise ExperimentError(f"{p}: [rules] must be a table")
    try:
        Rules.from_dict(rules)
    except (RulesError, TypeError) as e:
        raise ExperimentError(f"{p}: [rules]: {e}") from None
    exp.rules = dict(rules)
    game = data.get("game", {})
    if not isinstance(game, dict):
        raise ExperimentError(f"{p}: field 'game' must be a table [game] (players, decks, teams), got {shown(game)}")
    try:
        exp.game = GameSize.of(game, "[game]")
        check_rules(exp.game, Rules.from_dict(exp.rules))
    except GameSizeError as e:
        raise ExperimentError(f"{p}: {e}") from None
    fixed = data.get("fixed", {})
    _check_keys(fixed, FIXED_KEYS, "fixed.", p)
    if "levels" in fixed:
        lv = fixed["levels"]
        if not isinstance(lv, list) or len(lv) != 2:
            raise ExperimentError(f"{p}: fixed.levels must be two levels such as [\"2\", \"2\"]")
        try:
            exp.levels = tuple(parse_rank(str(x)) for x in lv)
        except CardError as e:
            raise ExperimentError(f"{p}: fixed.levels: {e}") from None
    if "declaring_team" in fixed:
        if fixed["declaring_team"] not in (0, 1):
            raise ExperimentError(f"{p}: fixed.declaring_team must be 0 or 1")
        exp.declaring_team = fixed["declaring_team"]
    mods = data.get("strategy_modules", [])
    if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
        raise ExperimentError(f"{p}: strategy_modules must be a list of file paths or module names")
    base = Path(source).parent
    exp.strategy_modules = [str((base / m).resolve()) if m.endswith(".py") else m for m in mods]
    for i, m in enumerate(data.get("matchup", [])):
        _check_keys(m, MATCHUP_KEYS, f"matchup[{i}].", p)
        for side in ("a", "b"):
            if side not in m:
                raise ExperimentError(f"{p}: matchup[{i}] needs field {side!r} (a policy)")
        exp.matchups.append({"name": m.get("name") or f"{_pname(m['a'])}-vs-{_pname(m['b'])}",
                             "a": m["a"], "b": m["b"], "key": f"matchup[{i}]"})
    for i, sw in enumerate(data.get("sweep", [])):
        _check_keys(sw, SWEEP_KEYS, f"sweep[{i}].", p)
        for key in ("a", "b", "param", "values"):
            if key not in sw:
                raise ExperimentError(f"{p}: sweep[{i}] needs field {key!r}")
        if not isinstance(sw["values"], list) or not sw["values"]:
            raise ExperimentError(f"{p}: sweep[{i}].values must be a non-empty list of numbers")
        side = sw.get("side", "a")
        if side not in ("a", "b"):
            raise ExperimentError(f"{p}: sweep[{i}].side must be \"a\" or \"b\"")
        for v in sw["values"]:
            pol = sw[side] if isinstance(sw[side], dict) else {"policy": sw[side]}
            pol = {**pol, "params": {**pol.get("params", {}), sw["param"]: v},
                   "name": f"{_pname(sw[side])}[{sw['param']}={v}]"}
            a, b = (pol, sw["b"]) if side == "a" else (sw["a"], pol)
            exp.matchups.append({"name": f"{_pname(a)}-vs-{_pname(b)}", "a": a, "b": b, "key": f"sweep[{i}]"})
    if not exp.matchups:
        raise ExperimentError(f"{p}: no [[matchup]] or [[sweep]]: nothing to run")
    names = [m["name"] for m in exp.matchups]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"{p}: matchup names must be unique; repeated: {', '.join(dup)} (give each a name)")
    if "contexts" in data:
        try:
            exp.contexts = CTX.check(data["contexts"], p)
            exp.played()  # a table a context cannot complete fails here
        except CTX.ContextError as e:
            raise ExperimentError(str(e)) from None
    return exp


def _pname(spec) -> str:
    if isinstance(spec, dict) and CTX.is_partial(spec) and not all(d in spec for d in CTX.DECISIONS[:4]):
        return CTX.partial_name(spec)  # a table a context completes ("discard=void")
    if isinstance(spec, dict):
        return spec.get("name") or spec.get("policy") or "custom"
    return str(spec)


def check_policies(exp: Experiment):
    """Resolve every policy now, so a typo fails before anything runs."""
    from tractor_sim.rules import sizes
    from tractor_sim.play import packages
    from tractor_sim.play import registry as S

    S.load_builtins()
    package = None if exp.game.standard else packages.compiled_package(exp.game)
    for m in exp.strategy_modules:
        try:
            S.load_module(m)
        except Exception as e:  # noqa: BLE001 - report any import failure with its file
            raise ExperimentError(
                f"{exp.source}: strategy_modules: cannot load {m!r}: {type(e).__name__}: {e}") from None
    for m in exp.played():
        for side in ("a", "b"):
            try:
                S.resolve_policy(m[side], package)
            except ValueError as e:
                where = f"{m['key']}.{side}" + (f" in context {m['context']!r}" if "context" in m else "")
                raise ExperimentError(f"{exp.source}: {where}: {e}") from None
