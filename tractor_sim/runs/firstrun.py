"""What a first run is doing while it compiles: whether a run's kernels are in numba's disk cache,
a sentence saying what compiles and about how long, and the time it took, kept for the next one.

A cold start compiles for tens of seconds before the first chunk finishes; a
user who sees only a still bar thinks it hangs, and a rate counting the
compile understates the speed.  So the runner compiles with small chunks
first (a deal for each set of policies), under this sentence, and starts the
bar after them.  The estimate is the last compile measured on this machine
(a JSON file beside the size packages), else a typical figure.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from tractor_sim.play import packages, search
from tractor_sim.rules import sizes

TYPICAL = {"kernels": 20.0, "search": 60.0}  # seconds, a 2-core machine of 2026 (benchmarks/bench_compile.py)


def _times_file():
    return packages.cache_root().parent / "compile-seconds.json"


def _cached(source: Path, qualname: str) -> bool:
    """Whether numba's disk cache holds an index for the function ``qualname`` of the file
    ``source``, found as numba finds it (its cache locators) without importing the module: the
    search's module compiles on import.  True when there is nothing to look at (NUMBA_DISABLE_JIT,
    no locator): nothing to announce then."""
    from numba.core import caching, config

    if config.DISABLE_JIT:
        return True
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # numba 0.60 has the underscore
    for cls in impl._locator_classes:
        locator = cls.from_function(_cached, str(source))
        if locator is not None:
            return any(Path(locator.get_cache_path()).glob(f"{source.stem}.{qualname}-*.nbi"))
    return True


def _key(spec) -> tuple[str, str]:
    """(what compiles, the key of its time) for a chunk: the search kernels (of its size: each size's
    package has its own) or a size's kernels."""
    size = sizes.as_size(spec.game)
    if any(search.is_search(p) for p in spec.policies):
        return "search", "search" if size.standard else f"search {size.label}"
    return "kernels", size.label


def _size_words(size) -> str:
    return f"{size.players} players, {size.decks} decks{' (Finding Friends)' if size.teams == 'friends' else ''}"


def pending(spec) -> str | None:
    """The sentence for a chunk whose kernels are not compiled yet (None when they are cached):
    "compiling the kernels for 4 players, 2 decks (first run only, about 20 s)"."""
    kind, key = _key(spec)
    size = sizes.as_size(spec.game)
    if kind == "search":
        return search_pending(size)
    if _cached(_package_dir(size) / "kernels" / "match.py", "play_chunk"):
        return None
    return f"compiling the kernels for {_size_words(size)} (first run only, about {estimate(key, kind):.0f} s)"


def _package_dir(size) -> Path:
    """The folder of ``size``'s compiled package (tractor_sim/core itself at 4 players, 2 decks)."""
    if size.standard:
        import tractor_sim.core as core

        return core.HERE
    return Path(packages.compiled_package(size).__file__).parent


def search_pending(size=sizes.STANDARD) -> str | None:
    """The sentence for the search's kernels of ``size`` when they are not compiled yet, else None."""
    if _cached(_package_dir(size) / "kernels" / "search_play.py", "play_chunk_search"):
        return None
    what = "the search kernels" + ("" if size.standard else f" for {_size_words(size)}")
    key = "search" if size.standard else f"search {size.label}"
    return f"compiling {what} (first run only, about {estimate(key, 'search'):.0f} s)"


def estimate(key: str, kind: str = "kernels") -> float:
    """The last measured compile of ``key`` (a size's label, "search" or "search LABEL"), else the slowest
    of its kind measured here (a new size), else the typical figure."""
    times = _read()
    if key in times:
        return times[key]
    alike = [v for k, v in times.items() if k.startswith("search") == (kind == "search")]
    return max(alike) if alike else TYPICAL[kind]


def record(spec, seconds: float) -> None:
    """Keep the compile time of ``spec``'s kernels for the next estimate (best effort: a read-only
    cache only loses the estimate)."""
    times = _read()
    times[_key(spec)[1]] = round(seconds, 1)
    path = _times_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(times, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass


def _read() -> dict:
    try:
        times = json.loads(_times_file().read_text())
        return {k: float(v) for k, v in times.items()} if isinstance(times, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def first_chunks(specs) -> list:
    """A one-deal (one-match) chunk for each distinct set of policies, rules, size and modules among
    ``specs`` (the halves of a matchup swap seats: one set): together they compile what the run
    plays; their results are dropped."""
    seen, out = set(), []
    for spec in specs:
        key = json.dumps([sorted(json.dumps(p, sort_keys=True, default=str) for p in spec.policies), spec.rules,
                          list(spec.game), list(spec.modules)], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(replace(spec, count=1))
    return out
