"""Layering (issue 11, item 7): no import cycle between the package's modules, the built-in strategies
inside the package, and a run directory from Python through the same function as the CLI."""

import ast
import tomllib
from pathlib import Path

import tractor_sim
from tractor_sim.play import registry as strategy

PACKAGE = Path(tractor_sim.__file__).resolve().parent


def _graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (at the top or inside a function)."""
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        parts = p.relative_to(PACKAGE.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    graph = {m: set() for m in mods}
    for m, p in mods.items():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tractor_sim"):
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            # the package's __init__ and a module's own parents are not edges of the layering
            graph[m] |= {t for t in targets
                         if t in mods and t not in (m, "tractor_sim") and not m.startswith(t + ".")}
    return graph


def _cycle(graph):
    state: dict[str, int] = {}

    def visit(v, path):
        state[v] = 1
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (found := visit(w, path + [w])):
                return found
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v, [v])):
            return found
    return None


def test_no_import_cycle_in_the_package():
    graph = _graph()
    assert "tractor_sim.runs.backends" not in graph["tractor_sim.runs.engine"]  # the old engine <-> backends cycle
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


LAYERS = ("rules", "core", "play", "stats", "report", "runs", "cli")  # lowest first: README, Layout


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else -1


def test_the_layers_import_only_downwards():
    """rules < core < play < stats < report < runs < cli: a module imports its own layer or lower ones
    (at the top or inside a function), never a higher one; the sized copies of core/ rely on it."""
    graph = _graph()
    assert {_layer(m) for m in graph} - {-1} == set(range(len(LAYERS)))  # every layer exists
    upward = sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                    if _layer(m) >= 0 and _layer(t) > _layer(m))
    assert upward == [], "imports that reach up a layer:\n" + "\n".join(upward)


def _aliases() -> dict[str, set[str]]:
    """alias -> what it names across the package, by the last part of the name: a module imported
    ``as`` an alias, and a one-letter capital name bound by assignment (``D = game.kernels.deal`` is
    ``deal``, as ``from ...kernels import deal as D`` is)."""
    names: dict[str, set[str]] = {}
    for p in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    if a.asname:
                        names.setdefault(a.asname, set()).add(a.name.rsplit(".", 1)[-1])
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and len(target.id) == 1 and target.id.isupper():
                        names.setdefault(target.id, set()).add(ast.unparse(node.value).rsplit(".", 1)[-1].strip("_"))
    return names


def test_each_alias_has_one_meaning():
    """Issue 25: ``K`` meant cards, knowledge, combos and a sized package in four modules.  A short
    alias is read without looking it up, so it must name one thing across the whole package."""
    clashes = {a: sorted(ms) for a, ms in _aliases().items() if len(ms) > 1}
    assert not clashes, clashes


def test_the_builtin_strategies_are_inside_the_package():
    strategy.load_builtins()
    mods = {strategy.get_strategy(d, n).module for d, n, _, _ in strategy.list_strategies()}
    builtin = {m for m in mods if strategy.is_builtin(m)}
    assert builtin >= {"tractor_sim.core.strategies.follow", "tractor_sim.core.strategies.lead"}
    # the top-level strategies/ folder holds examples to copy (README "Writing a strategy"), not a package
    assert not (PACKAGE.parent / "strategies" / "__init__.py").exists()
    find = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert find["include"] == ["tractor_sim*"]  # no top-level package named `strategies` is installed


def test_run_experiment_from_python_resumes(tmp_path):
    from tractor_sim.runs import experiment
    from tractor_sim.runs.runner import run_experiment

    exp = experiment.from_dict({"name": "py", "seed": 2, "count": 40, "chunk_size": 20,
                                "matchup": [{"a": "basic", "b": "random"}]})
    first = run_experiment(exp, tmp_path / "run", report=False)
    assert first.deals == 80 and first.resumed == 0 and first.chunks == 4
    again = run_experiment(exp, tmp_path / "run", report=False)
    assert again.resumed == 4 and again.deals == 80
    assert again.manifest["fingerprint"]["seed"] == 2
