"""Declaring strategies and policies: the ``strategy``, ``policy``, ``python_policy`` and
``process_policy`` decorators, the tables they fill and the checks they make.

One module for everything that writes a name into the registry, so every
refusal of a bad name, parameter or signature is made in one place and
worded one way.  The built-ins are the tables' first entries (``load_builtins``),
loaded before any lookup, so a user's name that clashes with one is refused.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numba

from tractor_sim.play import players
from tractor_sim.play.registry.variants import _dispatcher, _lean, _module_file, _sized_dispatcher, drop_stale_cache
from tractor_sim.rules.fields import Real, shown
from tractor_sim.core.kernels.view import DECISIONS, STRATEGY_SIG


BUILTIN_PACKAGE = "tractor_sim.core.strategies"  # the built-in strategies live inside the package


def is_builtin(module: str) -> bool:
    """Whether a strategy's module is one of the built-ins (compiled lean, never sandboxed)."""
    return module == BUILTIN_PACKAGE or module.startswith(BUILTIN_PACKAGE + ".")


DEFAULT_BID = "strength"  # the bid strategy of a policy that names none
DEFAULT_CALL = "ace"  # the call strategy (Finding Friends) of a policy that names none
OPTIONAL = {"bid": DEFAULT_BID, "call": DEFAULT_CALL}  # decisions a policy may leave out, and their defaults


class StrategyError(ValueError):
    """A bad strategy, policy or parameter name or value; the message names it and suggests one."""


def _suggest(name: Any, valid) -> str:
    close = difflib.get_close_matches(str(name), sorted(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_decision(decision: Any) -> str:
    if decision not in DECISIONS:
        raise StrategyError(
            f"unknown decision {decision!r}{_suggest(decision, DECISIONS)}; expected one of {', '.join(DECISIONS)}"
        )
    return decision


@dataclass(frozen=True)
class StrategyInfo:
    """One registered strategy: the compiled function and its parameters (name -> default)."""

    decision: str
    name: str
    dispatcher: Any  # the numba dispatcher, compiled on first use (see ``function``)
    params: dict[str, float]
    description: str
    module: str
    qualname: str
    source: str  # the file or module to load again to get it (for worker processes)
    lean: bool = False  # try the compile without reference counting first (see ``_lean``)
    ranges: dict = field(default_factory=dict)  # param -> (lowest, highest) it plays legally; else any finite
    fn: Any = None  # the Python function registered (named in errors, compared on a second registration)

    def declared(self, param: str, label: str | None = None) -> Real:
        """The declaration of parameter ``param`` (tractor_sim.rules.fields.Real, named ``label``): its
        range, or any finite number when the strategy declares none."""
        low, high = self.ranges.get(param, (-1e300, 1e300))
        return Real(label or param, float(low), float(high))

    def range_text(self, param: str) -> str:
        return self.declared(param).bounds.strip() if param in self.ranges else "any finite number"

    @property
    def function(self):
        """The strategy compiled with STRATEGY_SIG (from the disk cache when it can).

        Compiled here, not at registration: a run compiles only the strategies
        it plays (each costs seconds cold, its helpers being inlined into it).
        A lean strategy that allocates after all gets the ordinary compile.
        """
        return self._compiled(self.dispatcher)

    def sized_function(self, package):
        """The strategy compiled for the game size of ``package`` (a copy of the compiled package,
        tractor_sim.play.packages): the built-in's copy there, or a plug-in's module loaded again
        inside the copy (packages.load_plugin)."""
        key = (self.decision, self.name)
        if key not in package.registry.STRATEGIES and not is_builtin(self.module):
            from tractor_sim.play.packages import load_plugin

            load_plugin(package, _module_file(self), self.module)
        dispatcher = _sized_dispatcher(package, key)
        if dispatcher is None:
            raise StrategyError(
                f"{self.decision} strategy {self.name!r} ({self.module}.{self.qualname}) has no source file to "
                f"compile for a game of another size than 4 players and 2 decks (a strategy defined in a "
                f"notebook or at the prompt): put it in a module"
            )
        return self._compiled(dispatcher)

    def _compiled(self, dispatcher):
        if not hasattr(dispatcher, "compile"):  # NUMBA_DISABLE_JIT: a plain function
            return dispatcher
        lean = _lean(dispatcher) if self.lean else None
        if lean is not None:
            return lean
        try:
            dispatcher.compile(STRATEGY_SIG)
        except numba.core.errors.NumbaError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StrategyError(
                f"{self.decision} strategy {self.name!r} ({self.module}.{self.qualname}) does not compile "
                f"with the strategy signature: {first}"
            ) from e
        return dispatcher


@dataclass(frozen=True)
class Policy:
    """A strategy name per decision, plus parameter overrides per decision."""

    name: str
    description: str
    declare: str
    discard: str
    lead: str
    follow: str
    params: dict[str, dict[str, float]] = field(default_factory=dict)  # decision -> {param: value}
    module: str = ""
    bid: str = DEFAULT_BID
    call: str = DEFAULT_CALL
    model: str = ""  # a model file whose weights are the policy's parameters (tractor_sim.play.learned)

    def strategies(self) -> dict[str, str]:
        return {d: getattr(self, d) for d in DECISIONS}


_STRATEGIES: dict[str, dict[str, StrategyInfo]] = {d: {} for d in DECISIONS}
_POLICIES: dict[str, Policy] = {}
_SOURCES: dict[str, str] = {}  # module name -> file path, for modules loaded from a path


def _params_table(params, where: str) -> dict[str, float]:
    table: dict[str, float] = {}
    for key, value in dict(params or {}).items():
        if not isinstance(key, str) or not key.isidentifier():
            raise StrategyError(f"{where}: parameter name {key!r} must be an identifier")
        table[key] = _number(value, f"{where}: parameter {key!r}")
    return table


def _number(value: Any, what: str) -> float:
    """A parameter value as a finite float (true/false count as 1/0, for switches); the strategy's
    declared range is checked when the policy is resolved (``resolve_policy``)."""
    return Real("").check(value, what, StrategyError)


def _ranges_table(ranges, table: dict, where: str) -> dict:
    """A strategy's declared ranges {param: (lowest, highest)}: finite, ordered, of its own
    parameters, holding their defaults."""
    out = {}
    if ranges is not None and not isinstance(ranges, dict):
        raise StrategyError(f"{where}: ranges must be a table {{param: (lowest, highest)}}, got {shown(ranges)}")
    for key, pair in dict(ranges or {}).items():
        if key not in table:
            raise StrategyError(f"{where}: range of {shown(key)}, which is not one of its parameters"
                                f"{_suggest(key, table)}")
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise StrategyError(f"{where}: range of {key!r} must be (lowest, highest), got {shown(pair)}")
        low, high = (_number(v, f"{where}: range of {key!r}") for v in pair)
        if low > high:
            raise StrategyError(f"{where}: range of {key!r}: lowest {low:g} above highest {high:g}")
        if not low <= table[key] <= high:
            raise StrategyError(f"{where}: the default of {key!r}, {table[key]:g}, is outside its range "
                                f"{low:g} to {high:g}")
        out[key] = (low, high)
    return out


def strategy(decision: str, name: str, params: dict[str, float] | None = None, description: str = "",
             lean: bool | None = None, boundscheck: bool | None = None, ranges: dict | None = None) -> Callable:
    """Register the decorated function as strategy ``name`` for ``decision``.

    The function is compiled with the strategy signature when a run first
    needs it (cached on disk); the decorator returns the dispatcher.  ``params`` is an
    ordered table name -> default; ``description`` defaults to the first
    line of the docstring.  ``lean``: compile it without reference counting
    (faster; only for a strategy that allocates no array and calls no helper
    returning a new one); by default on for the built-in strategies, off for
    others.  ``boundscheck``: compile with Numba's bounds checking, so that
    an index past the view, ``params``, ``scratch`` or ``out`` stops the run
    with an error naming the strategy instead of writing into another seat's
    game; by default on for a user's strategies (measured cost:
    benchmarks/bench_protection.py), off for the built-ins.  A second
    registration of a name for the same decision is an error, unless it
    comes from the same module and function (a module loaded again), which
    replaces the first.
    """
    _check_decision(decision)
    if not isinstance(name, str) or not name:
        raise StrategyError(f"strategy name must be a non-empty string, got {name!r}")
    table = _params_table(params, f"{decision} strategy {name!r}")
    declared = _ranges_table(ranges, table, f"{decision} strategy {name!r}")

    def register(fn):
        fn = _check_signature(fn, f"{decision} strategy {name!r}")
        module = getattr(fn, "__module__", "") or ""
        qualname = getattr(fn, "__qualname__", getattr(fn, "__name__", ""))
        old = _STRATEGIES[decision].get(name)
        if old is not None and not _same_definition(old.fn, fn):
            raise StrategyError(f"{decision} strategy {name!r} is registered twice: by {_where(old.fn)} "
                                f"and by {_where(fn)}; give one another name")
        builtin = is_builtin(module)
        if not builtin:
            try:
                drop_stale_cache(inspect.getsourcefile(fn) or "")
            except TypeError:  # no source file (defined interactively)
                pass
        compiled = _dispatcher(fn, builtin, boundscheck)
        doc = description or " ".join((fn.__doc__ or "").strip().split("\n\n")[0].split())
        _STRATEGIES[decision][name] = StrategyInfo(
            decision, name, compiled, table, doc, module, qualname, _SOURCES.get(module, module),
            builtin if lean is None else lean, declared, fn,
        )
        return compiled

    return register


EXPECTED = "f(view, params, rng, scratch, out) -> int"  # the strategy signature (kernels.view.STRATEGY_SIG)


def _plain(fn):
    """The Python function under a numba dispatcher (or the function itself)."""
    return getattr(fn, "py_func", fn)


def _where(fn) -> str:
    """A function as an error names it: module.qualname (file:line)."""
    fn = _plain(fn)
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', getattr(fn, '__name__', repr(fn)))}"
    code = getattr(fn, "__code__", None)
    return f"{name} ({code.co_filename}:{code.co_firstlineno})" if code is not None else name


def _same_definition(old, new) -> bool:
    """Whether a second registration is the first one again: the same function, the same ``def``
    run again (a module loaded again, a function made anew by its enclosing function), or the
    same place of a module executed anew (a file loaded again after an edit keeps its module
    name but gets new globals). Two ``def``s in one run of a module are two definitions."""
    if old is new or getattr(old, "__code__", None) is getattr(new, "__code__", 0):
        return True
    if getattr(old, "__globals__", None) is getattr(new, "__globals__", None):
        return False  # two definitions in one module run
    return (getattr(old, "__module__", None), getattr(old, "__qualname__", None)) == \
        (getattr(new, "__module__", None), getattr(new, "__qualname__", None))


def _check_signature(fn, what: str):
    """``fn`` if it can be a strategy: a Python function (or a numba dispatcher of one) of five
    positional parameters; else StrategyError naming it and the signature expected."""
    plain = _plain(fn)
    if not callable(plain) or not hasattr(plain, "__code__"):
        raise StrategyError(f"{what}: {shown(fn)} is not a Python function; a strategy is {EXPECTED}")
    try:
        sig = inspect.signature(plain)
    except (TypeError, ValueError):
        raise StrategyError(f"{what}: cannot read the signature of {_where(plain)}; a strategy is {EXPECTED}") from None
    kinds = [p.kind for p in sig.parameters.values()]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in sig.parameters.values() if p.kind in positional and p.default is p.empty]
    if (len(required) != 5 or any(k not in positional for k in kinds) or len(kinds) != 5):
        raise StrategyError(f"{what}: {_where(plain)} takes {sig}; a strategy takes five arguments: {EXPECTED}")
    return plain


def _nested_params(params: Any, where: str) -> dict[str, dict[str, float]]:
    """Accept {"discard.threshold": 9} or {"discard": {"threshold": 9}}; return decision -> table."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise StrategyError(f"{where}: params must be a table, got {type(params).__name__}")
    out: dict[str, dict[str, float]] = {}
    for key, value in params.items():
        if isinstance(value, dict):
            decision = _check_decision(key)
            for p, v in value.items():
                out.setdefault(decision, {})[str(p)] = _number(v, f"{where}: parameter {key}.{p}")
            continue
        if not isinstance(key, str) or "." not in key:
            raise StrategyError(
                f"{where}: parameter {key!r} must be written decision.name, for example 'discard.threshold'"
            )
        decision, p = key.split(".", 1)
        _check_decision(decision)
        out.setdefault(decision, {})[p] = _number(value, f"{where}: parameter {key!r}")
    return out


def policy(
    name: str,
    declare: str,
    discard: str,
    lead: str,
    follow: str,
    params: dict[str, Any] | None = None,
    description: str = "",
    bid: str = DEFAULT_BID,
    call: str = DEFAULT_CALL,
    module: str | None = None,
    model: str = "",
) -> Policy:
    """Register a policy: one strategy per decision and parameter overrides.

    ``params`` is {"decision.param": value} or {"decision": {"param": value}}.
    The names are checked when the policy is resolved, so a policy may name
    strategies of modules loaded later.
    """
    if not isinstance(name, str) or not name:
        raise StrategyError(f"policy name must be a non-empty string, got {name!r}")
    for d, s in zip(DECISIONS, (declare, discard, lead, follow, bid, call)):
        if not isinstance(s, str) or not s:
            raise StrategyError(f"policy {name!r}: the {d} strategy must be a name, got {s!r}")
    module = module or sys._getframe(1).f_globals.get("__name__", "")
    old = _POLICIES.get(name)
    if old is not None and old.module != module:
        raise StrategyError(f"policy {name!r} is registered twice: by {old.module} and by {module}; "
                            "give one another name")
    pol = Policy(name, description, declare, discard, lead, follow, _nested_params(params, f"policy {name!r}"), module,
                 bid, call, model)
    _POLICIES[name] = pol
    return pol


def get_strategy(decision: str, name: str) -> StrategyInfo:
    """The registered strategy, or a StrategyError suggesting the closest name."""
    load_builtins()
    _check_decision(decision)
    table = _STRATEGIES[decision]
    if name not in table:
        raise StrategyError(f"unknown {decision} strategy {name!r}{_suggest(name, table)}")
    return table[name]


def get_policy(name: str) -> Policy:
    load_builtins()
    if name not in _POLICIES:
        raise StrategyError(f"unknown policy {name!r}{_suggest(name, _POLICIES)}")
    return _POLICIES[name]


def python_policy(name: str, params: dict | None = None, description: str = "") -> Callable:
    """Register the decorated callable ``fn(decision) -> answer`` as policy ``name``, a Python policy
    (tractor_sim.play.players, docs/bots.md).  ``params``: name -> default, handed over as
    ``decision.params`` (a policy table's ``params = {...}`` overrides them, so ``tune`` moves them)."""
    load_builtins()
    try:
        register = players.python_policy(name, params, description, taken=_POLICIES)
    except players.PlayerError as e:
        raise StrategyError(str(e)) from None

    def checked(fn):
        try:
            return register(fn)
        except players.PlayerError as e:
            raise StrategyError(str(e)) from None

    return checked


def process_policy(name: str, command, timeout: float = 5.0, params: dict | None = None, description: str = ""):
    """Register a process bot: ``command`` (a list: the program and its arguments) speaks the protocol of
    docs/bots.md; ``timeout`` seconds per answer."""
    load_builtins()
    source = os.path.abspath(sys._getframe(1).f_globals.get("__file__", "") or "")
    try:
        return players.process_policy(name, command, timeout, params, description, taken=_POLICIES, source=source)
    except players.PlayerError as e:
        raise StrategyError(str(e)) from None


_BUILTINS_LOADED: list = []


def load_builtins() -> None:
    """Register the built-in strategies and policies: what ``tractor_sim.core.strategies``
    recorded in the compiled package's own registry (tractor_sim.core.registry)."""
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED.append(True)
    importlib.import_module(BUILTIN_PACKAGE)
    from tractor_sim.core import registry as recorded

    for (decision, name), r in recorded.STRATEGIES.items():
        strategy(decision, name, r.params, r.description, r.lean, r.boundscheck, r.ranges)(r.fn)
    for name, table in recorded.POLICIES.items():
        policy(name, **table, module=BUILTIN_PACKAGE + ".policies")
