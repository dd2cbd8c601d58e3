"""A run's fingerprint: everything that determines its results, and what changed between two.

The run directory keeps it in ``manifest.json`` and a short digest of it in
every part, so that a resume (or a part left by another run) with any
difference is refused by name instead of mixing two experiments in one
result: the resolved experiment and rules, the seed, every matchup's
strategies and effective parameters (and a search's settings), the project version, and a content
hash of the engine's code and of every strategy source a matchup plays
(built-in or plug-in).  ``chunk_size`` is in it too: the parts are cut by it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # tractor_sim/
# What plays a deal: the compiled package, the rules, and the Python that hands chunks to the kernels.
ENGINE_CODE = ("core/*.py", "core/kernels/*.py", "core/strategies/*.py", "rules/*.py", "play/game.py",
               "play/chunks.py", "play/stepped.py", "runs/engine.py")


def file_hash(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def of_run(exp) -> dict:
    """The fingerprint of experiment ``exp`` (experiment.Experiment) as played by this code."""
    from tractor_sim import __version__
    from tractor_sim.play import registry as S
    from tractor_sim.core.kernels.view import DECISIONS
    from tractor_sim.rules.options import as_rules

    from tractor_sim.rules import sizes

    from tractor_sim.play import packages

    game = getattr(exp, "game", sizes.STANDARD)
    package = None if game.standard else packages.compiled_package(game)  # resolved as the run resolves them
    matchups, sources = {}, {}
    for m in exp.played() if hasattr(exp, "played") else exp.matchups:
        sides = {}
        for side in ("a", "b"):
            pol = S.resolve_policy(m[side], package)
            if pol.player is not None:  # a Python policy (its module's file) or a bot (its command)
                sides[side] = {"player": pol.spec}
                sources[f"{pol.player.kind} {pol.name}"] = _player_source(pol.player)
                continue
            sides[side] = {"strategies": dict(zip(DECISIONS, pol.strategies)), "params": pol.param_dict()}
            if pol.search is not None:  # a search plays other cards than its base, by its budget
                search = dataclasses.asdict(pol.search)  # as the manifest's JSON gives it back on a resume
                sides[side]["search"] = {**search, "decisions": list(search["decisions"])}
            for d, name in zip(DECISIONS, pol.strategies):
                sources[f"{d} {name}"] = _source(S.get_strategy(d, name))
        matchups[m["name"]] = sides
    code = {p.relative_to(PACKAGE).as_posix(): file_hash(p)
            for pattern in ENGINE_CODE for p in sorted(PACKAGE.glob(pattern))}
    return {
        "tractor_sim": __version__,
        "seed": exp.seed, "mode": exp.mode, "count": exp.count, "duplicate": exp.duplicate,
        "chunk_size": exp.chunk_size, "levels": list(exp.levels), "declaring_team": exp.declaring_team,
        "rules": as_rules(exp.rules).to_dict(),
        **({} if game.standard else {"game": game.to_dict()}),
        **({"contexts": list(exp.contexts)} if getattr(exp, "contexts", None) else {}),
        "matchups": matchups,
        "strategy_sources": sources,
        "engine_code": code,
    }


def _player_source(info) -> dict:
    """A Python policy's module file and its hash; a bot's command (its program is outside the run's reach)."""
    if info.kind == "process":
        return {"command": list(info.command)}
    if info.source and Path(info.source).is_file():
        return {"file": info.source, "sha256": file_hash(Path(info.source))}
    return {"file": f"<{getattr(info.fn, '__module__', '?')}>"}


def _source(info) -> dict:
    """Where a strategy's code is, and its content hash: its module's file, or (defined in a notebook,
    no file) its compiled Python code."""
    file = getattr(sys.modules.get(info.module), "__file__", None)
    if file is None:
        fn = getattr(info.dispatcher, "py_func", info.dispatcher)
        return {"file": f"<{info.module}>", "sha256": hashlib.sha256(marshal.dumps(fn.__code__)).hexdigest()}
    path = Path(file).resolve()
    shown = path.relative_to(PACKAGE.parent).as_posix() if path.is_relative_to(PACKAGE) else str(path)
    return {"file": shown, "sha256": file_hash(path)}


def digest(fp: dict) -> str:
    """A short, stable name for a fingerprint (what every part carries)."""
    return hashlib.sha256(json.dumps(fp, sort_keys=True, default=str).encode()).hexdigest()[:16]


def differences(old: dict, new: dict) -> list[str]:
    """What changed from ``old`` to ``new``, one line per leaf ("seed: 7 -> 8"); empty when equal."""
    a, b = _flat(old), _flat(new)
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key, _NONE) == b.get(key, _NONE):
            continue
        if key.endswith(".sha256") or key.startswith("engine_code."):
            out.append(f"{key.removesuffix('.sha256')}: the source changed")
        elif key not in a:
            out.append(f"{key}: new ({b[key]!r})")
        elif key not in b:
            out.append(f"{key}: gone (was {a[key]!r})")
        else:
            out.append(f"{key}: {a[key]!r} -> {b[key]!r}")
    return out


_NONE = object()


def _flat(d, prefix="") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(_flat(v, key + "."))
        else:
            out[key] = v
    return out
