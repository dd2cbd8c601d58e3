"""Loading a user's strategies (a file, a module, installed entry points, a worker's sources) and
listing what is registered.

Apart from the declarations because loading runs other people's code: a
module's import errors, a ``sys.exit`` while loading and a worker process
loading what its parent loaded are handled here, once.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from typing import Any

from tractor_sim.play.registry.declared import _POLICIES, _SOURCES, _STRATEGIES, StrategyError, is_builtin, load_builtins
from tractor_sim.core.kernels.view import DECISIONS


ENTRY_POINT_GROUP = "tractor_sim.strategies"  # the entry-point group installed plug-ins declare


def _module_name_for(path: str) -> str:
    stem = "".join(ch if ch.isalnum() else "_" for ch in os.path.splitext(os.path.basename(path))[0])
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    return f"tractor_sim_plugin_{stem}_{digest}"


def load_module(path_or_name: str):
    """Import a user's strategy file (by path) or module (by dotted name) so it registers.

    Loading the same file again re-runs it, which replaces its strategies.
    Returns the module.
    """
    target = str(path_or_name)
    if target.endswith(".py") or os.sep in target or os.path.isfile(target):
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            raise StrategyError(f"strategy file {target!r} not found")
        name = _module_name_for(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise StrategyError(f"cannot import strategy file {target!r}")
        module = importlib.util.module_from_spec(spec)
        _SOURCES[name] = path
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SystemExit as e:
            sys.modules.pop(name, None)
            raise StrategyError(f"strategy file {target!r} called sys.exit({e.code!r}) while loading") from None
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    try:
        return importlib.import_module(target)
    except SystemExit as e:
        raise StrategyError(f"strategy module {target!r} called sys.exit({e.code!r}) while loading") from None
    except ModuleNotFoundError as e:
        if e.name and target.startswith(e.name):
            raise StrategyError(f"strategy module {target!r} not found") from None
        raise


def load_entry_points() -> list[str]:
    """Load every installed plugin of the entry-point group ``tractor_sim.core.strategies``; return their names."""
    from importlib.metadata import entry_points

    loaded = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            ep.load()
        except Exception as e:
            raise StrategyError(f"strategy plugin {ep.name!r} ({ep.value}) failed to load: {e}") from e
        loaded.append(ep.name)
    return loaded


def load_sources(sources) -> None:
    """Load the modules a ResolvedPolicy came from (for a worker process)."""
    for src in sources:
        if src in sys.modules:
            continue
        if is_builtin(src):
            load_builtins()
        else:
            load_module(src)


def list_strategies() -> list[tuple[str, str, dict[str, float], str]]:
    """Rows (decision, name, params with defaults, description), by decision then name (the ranges:
    ``get_strategy(decision, name).ranges``)."""
    load_builtins()
    return [
        (d, n, dict(info.params), info.description)
        for d in DECISIONS
        for n, info in sorted(_STRATEGIES[d].items())
    ]


def list_policies() -> list[tuple[str, str, dict[str, Any], str]]:
    """Rows ("policy", name, {decision: strategy, "decision.param": value}, description), by name."""
    load_builtins()
    rows = []
    for n, pol in sorted(_POLICIES.items()):
        table: dict[str, Any] = pol.strategies()
        for d, ps in pol.params.items():
            for p, v in ps.items():
                table[f"{d}.{p}"] = v
        rows.append(("policy", n, table, pol.description))
    return rows
