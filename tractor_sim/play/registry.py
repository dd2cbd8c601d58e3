"""The strategy registry: named compiled strategies, and policies that bundle one per decision.

A *strategy* answers one decision (declare, discard, lead, follow, bid
under the auction rule, or call in Finding Friends).  It is
a plain Python function with the one signature of ``kernels.view``
(``f(view, params, rng, scratch, out) -> int64``), registered with the
``@strategy`` decorator, which compiles it with that exact signature so the
deal kernel takes it as a first-class function and never recompiles for a
new matchup (docs/design.md, decision 1).  Its tunable numbers are a named,
ordered parameter list; the kernel sees them as a float64 vector in that
order.

A *policy* names one strategy per decision plus parameter overrides; it is
what an experiment puts at a seat.  ``resolve_policy`` turns a policy name,
or an ad-hoc table, into the compiled functions and parameter vectors.  A
policy that names no bid strategy gets ``DEFAULT_BID``, and one that names
no call strategy ``DEFAULT_CALL``, so the policies written for the four
decisions of the draw play the auction and Finding Friends too.

Strategies come from the built-in ``tractor_sim.core.strategies`` package (``load_builtins``),
a user's file or module (``load_module``) or installed packages declaring the
entry-point group ``tractor_sim.core.strategies`` (``load_entry_points``).
"""

from __future__ import annotations

import difflib
import glob
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numba
import numpy as np

from tractor_sim.play import players, search
from tractor_sim.rules.fields import Real, shown
from tractor_sim.core.kernels.view import DECISIONS, STRATEGY_SIG

ENTRY_POINT_GROUP = "tractor_sim.strategies"  # the entry-point group installed plug-ins declare
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


_LEAN: dict[Any, Any] = {}


def _lean(dispatcher):
    """The strategy compiled without reference counting (numba's ``_nrt=False``), or None if it
    cannot be (it allocates arrays: use ``kernels.unowned.stack_array`` for work arrays).

    Numba counts references at every array passed to an inlined helper, even
    when, as here, every array a strategy gets has no owner: without them the
    built-in follow and lead strategies run 2.5x faster per call (smart: 103 ->
    37 ns), a deal ~5% faster.  Only for strategies registered ``lean``: one
    calling a helper that returns a new array would leak it, and numba cannot
    tell when that helper was compiled before.  Compiled from a copy of the
    function under its own name, so the two versions keep separate disk cache
    entries (numba's cache key ignores compile options).
    """
    if dispatcher not in _LEAN:
        try:
            checked = {"boundscheck": True} if dispatcher.targetoptions.get("boundscheck") else {}
            lean = numba.njit(cache=True, _nrt=False, **checked)(_renamed(dispatcher.py_func, "_lean"))
            lean.compile(STRATEGY_SIG)
        except Exception:  # it needs reference counting (or this numba lacks the option): the ordinary compile
            lean = None
        _LEAN[dispatcher] = lean
    return _LEAN[dispatcher]


def _renamed(fn, suffix: str):
    """A copy of ``fn`` under its own qualified name: its own numba disk cache entries.

    numba's cache key ignores compile options, so a function compiled two
    ways (lean, bounds-checked) must be two functions to the cache.
    """
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return copy


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


_SIZED: dict = {}


def _sized_dispatcher(package, key):
    """The dispatcher of what ``package``'s registry recorded under ``key`` (decision, name), made
    as ``strategy`` makes it (a plug-in bounds-checked unless it says otherwise); None if nothing."""
    recorded = package.registry.STRATEGIES.get(key)
    if recorded is None:
        return None
    if (package.__name__, key) not in _SIZED:
        builtin = recorded.fn.__module__.startswith(package.__name__ + ".strategies")
        _SIZED[package.__name__, key] = _dispatcher(recorded.fn, builtin, recorded.boundscheck)
    return _SIZED[package.__name__, key]


def _dispatcher(fn, builtin: bool, boundscheck):
    """``fn`` under numba, compiled on first use; bounds-checked (under its own cache name) unless a
    built-in, or as ``boundscheck`` says."""
    checked = (not builtin) if boundscheck is None else bool(boundscheck)
    cache = _cacheable(fn)
    return numba.njit(cache=cache, boundscheck=True)(_renamed(fn, "_checked")) if checked \
        else numba.njit(cache=cache)(fn)


def _cacheable(fn) -> bool:
    """Whether numba may cache ``fn`` on disk: only a function of a real module, whose globals are
    that module's. numba names a cache entry by module, name and line, not by globals, so a copy of
    a function bound to another size's kernels (``types.FunctionType`` with new globals) would load
    the first copy's machine code."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    return module is not None and getattr(module, "__dict__", None) is fn.__globals__ \
        and getattr(module, "__file__", None) is not None


def _module_file(info) -> str | None:
    """The file of a strategy's module (a file loaded by path, or an importable module)."""
    if os.path.isfile(info.source):
        return info.source
    return getattr(sys.modules.get(info.module), "__file__", None)


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


@dataclass(frozen=True)
class ResolvedPolicy:
    """What the kernel needs for one side: compiled functions and their parameter vectors.

    ``functions`` and ``params`` are in DECLARE, DISCARD, LEAD, FOLLOW, BID, CALL order.
    ``spec`` is the plain table that resolves to it again (for a manifest or
    a worker process) and ``sources`` the modules that must be loaded first.
    """

    name: str
    functions: tuple
    params: tuple
    strategies: tuple[str, ...]
    param_names: tuple[tuple[str, ...], ...]
    spec: dict[str, Any]
    sources: tuple[str, ...]
    search: Any = None  # a search policy's settings (tractor_sim.play.search.SearchSettings); None: no search
    player: Any = None  # a Python policy or process bot (tractor_sim.play.players.PlayerInfo); None: compiled

    @property
    def strategy_names(self) -> tuple[str, ...]:
        return self.strategies

    def param_dict(self) -> dict[str, float]:
        """The effective parameters as {"decision.name": value}."""
        return {
            f"{d}.{p}": float(v)
            for d, names, values in zip(DECISIONS, self.param_names, self.params)
            for p, v in zip(names, values)
        }


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


_CHECKED: set[str] = set()


def drop_stale_cache(module_file: str) -> None:
    """Delete a user's module's numba cache files older than the compiled package's cache digest.

    numba's cache checks only the file of the cached function itself: after an
    edit of a helper or a kernel (inlined into the strategy), a strategy would
    keep running the old code from its cache.  The package's digest stamp
    (tractor_sim.core.STAMP) is rewritten whenever any of its sources change;
    a cache file older than it is stale.  The built-ins are the package's own
    and are dropped with it.
    """
    from tractor_sim import core

    module_file = os.path.abspath(module_file)
    if module_file in _CHECKED:
        return
    _CHECKED.add(module_file)
    try:
        newest = os.path.getmtime(core.STAMP)
    except OSError:
        return
    cache_dir = os.path.join(os.path.dirname(module_file), "__pycache__")
    stem = os.path.splitext(os.path.basename(module_file))[0]
    for index in glob.glob(os.path.join(glob.escape(cache_dir), glob.escape(stem) + ".*.nbi")):
        try:
            if os.path.getmtime(index) < newest:
                for f in [index, *glob.glob(glob.escape(index[:-4]) + ".*.nbc")]:
                    os.remove(f)
        except OSError:  # another process got there first
            pass


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


_SPEC_KEYS = ("policy", "name", "params", "description", "model") + DECISIONS


def _idle(view, params, rng, scratch, answer):
    """What a seat plays for a decision the run never reaches (``idle``): an answer of no cards,
    which a kernel that did reach it refuses as an illegal play naming the policy."""
    return 0


_IDLE: list = []


def idle_function():
    """``_idle`` compiled with the strategy signature (once, a fraction of a second): it stands in for
    the bid strategy of rules without the auction and the call strategy outside Finding Friends, so a
    run compiles only the strategies it plays."""
    if not _IDLE:
        fn = numba.njit(STRATEGY_SIG, cache=True)(_idle) if not numba.config.DISABLE_JIT else _idle
        _IDLE.append(fn)
    return _IDLE[0]


def resolve_policy(spec: str | dict | Policy, package=None, idle=()) -> ResolvedPolicy:
    """Turn a policy name, a Policy, or a table into compiled functions and parameter vectors
    (compiled for the game size of ``package``, tractor_sim.rules.sizes.kernels_for, if given).
    ``idle``: decisions the run never reaches ("bid", "call"), whose functions are ``idle_function``
    (the strategies are still named, checked and recorded; they are not compiled).

    Tables: {"policy": "basic", "params": {"discard.threshold": 9}} (a
    registered policy with overrides; a decision key such as "follow":
    "cheapest" swaps that strategy and drops the policy's parameters for it),
    or {"declare": .., "discard": .., "lead": .., "follow": .., "params": ..}
    for an ad-hoc bundle (all four needed; "bid" and "call" may be left out:
    DEFAULT_BID, DEFAULT_CALL).  Parameters start at the
    strategy's defaults, then the policy's values, then the table's.
    """
    load_builtins()
    if players.is_player(spec):
        return _resolve_player(spec)
    if search.is_search(spec):
        if package is not None and package.size.FINDING_FRIENDS:
            raise StrategyError("the search plays tractor games (two fixed teams); in Finding Friends, with a "
                                "level per player, its driver is not built")
        return _resolve_search(spec, package, idle)
    if isinstance(spec, Policy):
        base, extra, name = spec, {}, spec.name
    elif isinstance(spec, str):
        base, extra, name = get_policy(spec), {}, spec
    elif isinstance(spec, dict):
        for key in spec:
            if key not in _SPEC_KEYS:
                raise StrategyError(f"unknown policy key {key!r}{_suggest(key, _SPEC_KEYS)}")
        if "policy" in spec:
            base = get_policy(spec["policy"])
        else:
            missing = [d for d in DECISIONS if d not in spec and d not in OPTIONAL]
            if missing:
                raise StrategyError(
                    f"a policy table needs 'policy' or all four strategies; missing {', '.join(missing)}"
                )
            base = None
        extra = spec
        name = spec.get("name") or (spec["policy"] if base is not None else "custom")
    else:
        raise StrategyError(f"a policy must be a name or a table, got {type(spec).__name__}")

    chosen = {}
    params: dict[str, dict[str, float]] = {}
    for d in DECISIONS:
        if d in extra:
            chosen[d] = extra[d]
        elif base is None:  # an ad-hoc table without a bid or call strategy
            chosen[d] = OPTIONAL[d]
        else:
            chosen[d] = getattr(base, d)
            params[d] = dict(base.params.get(d, {}))
    model = extra.get("model") or (base.model if base is not None else "")
    if model:
        for d, table in _model_params(model, name, package).items():
            params.setdefault(d, {}).update(table)
    for d, table in _nested_params(extra.get("params"), f"policy {name!r}").items():
        params.setdefault(d, {}).update(table)

    functions, vectors, names, sources = [], [], [], []
    for d in DECISIONS:
        if not isinstance(chosen[d], str):
            raise StrategyError(f"policy {name!r}: the {d} strategy must be a name, got {chosen[d]!r}")
        try:
            info = get_strategy(d, chosen[d])
        except StrategyError as e:
            raise StrategyError(f"policy {name!r}: {e}") from None
        values = dict(info.params)
        for p, v in params.get(d, {}).items():
            if p not in values:
                hint = _suggest(p, values) if values else " (it has no parameters)"
                raise StrategyError(f"policy {name!r}: parameter {d}.{p}: unknown parameter {p!r} of {d} strategy "
                                    f"{info.name!r}{hint}")
            values[p] = info.declared(p, f"{d}.{p}").check(v, f"policy {name!r}: parameter ", StrategyError)
        functions.append(idle_function() if d in idle else info.function if package is None
                         else info.sized_function(package))
        vectors.append(np.ascontiguousarray(np.array(list(values.values()), dtype=np.float64)))
        names.append(tuple(values))
        if info.source not in sources:
            sources.append(info.source)
    flat = {f"{d}.{p}": v for d in DECISIONS for p, v in params.get(d, {}).items()}
    resolved_spec = {"name": name, **chosen, "params": flat}
    return ResolvedPolicy(
        name, tuple(functions), tuple(vectors), tuple(chosen[d] for d in DECISIONS), tuple(names),
        resolved_spec, tuple(sources),
    )


def _model_params(model, name: str, package) -> dict[str, dict[str, float]]:
    """A model file's weights as parameters (tractor_sim.play.learned); StrategyError naming it."""
    from tractor_sim.play import learned

    if not isinstance(model, str):
        raise StrategyError(f"policy {name!r}: model must be a file path, got {model!r}")
    try:
        return learned.load(model, package)
    except learned.ModelError as e:
        raise StrategyError(f"policy {name!r}: {e}") from None


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


def _resolve_player(spec) -> ResolvedPolicy:
    """A Python policy or process bot (tractor_sim.play.players): no compiled functions; a chunk that
    plays one is stepped deal by deal (tractor_sim.play.stepped)."""
    try:
        name, info = players.lookup(spec)
    except players.PlayerError as e:
        raise StrategyError(str(e)) from None
    table = {"policy": info.kind, "name": name, "params": dict(info.params)}
    if info.kind == "process":
        table.update(command=list(info.command), timeout=info.timeout)
    else:
        table["function"] = f"{getattr(info.fn, '__module__', '?')}.{getattr(info.fn, '__qualname__', '?')}"
    return ResolvedPolicy(name, (), tuple(np.zeros(0) for _ in DECISIONS), (f"{info.kind}:{name}",) * len(DECISIONS),
                          ((),) * len(DECISIONS), table, (info.source,) if info.source else (), player=info)


def _resolve_search(spec, package=None, idle=()) -> ResolvedPolicy:
    """A search policy (tractor_sim.play.search): its base policy's functions (compiled for ``package``'s
    size; ``idle`` as resolve_policy's), with the search's settings."""
    try:
        base, settings, name = search.parse(spec)
    except search.SearchSpecError as e:
        raise StrategyError(str(e)) from None
    try:
        resolved = resolve_policy(base, package, idle)
    except StrategyError as e:
        raise StrategyError(f"policy {shown(name)}: field 'base': {e}") from None
    rolled = resolved
    if settings.rollout_policy is not None:
        if resolved.player is None:
            raise StrategyError(f"policy {name!r}: field 'rollout_policy' goes with a Python policy or bot as the "
                                "base; a compiled base is rolled out itself")
        try:
            rolled = resolve_policy(settings.rollout_policy, package, idle)
        except StrategyError as e:
            raise StrategyError(f"policy {shown(name)}: field 'rollout_policy': {e}") from None
    if rolled.player is not None:
        raise StrategyError(f"policy {name!r}: a search rolls out a policy in compiled code; "
                            f"{rolled.player.describe()} is not compiled (give rollout_policy, a compiled policy, "
                            "e.g. {policy = \"search\", base = ..., rollout_policy = \"expert\"})")
    if settings.source == "sampled" and not search.SAMPLER_READY:
        raise StrategyError(f"policy {name!r} samples worlds from a seat's knowledge, and this build has no sampler "
                            f"yet (kernels.sampler); the omniscient reference is 'oracle' (it sees every hand)")
    spec_table = {"policy": settings.kind, "base": resolved.spec, "worlds": settings.worlds,
                  "rollouts": settings.rollouts, "max_candidates": settings.max_candidates, "name": name}
    if settings.record:
        spec_table["record"] = True
    if settings.train:
        spec_table["train"] = True
    if settings.decisions != search.SEARCHABLE:
        spec_table["decisions"] = list(settings.decisions)
    if rolled is not resolved:
        spec_table["rollout_policy"] = rolled.spec
    return ResolvedPolicy(name, rolled.functions, rolled.params, rolled.strategies, rolled.param_names,
                          spec_table, tuple(dict.fromkeys(resolved.sources + rolled.sources)), settings,
                          resolved.player)


# ---------------------------------------------------------------- loading


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


# ---------------------------------------------------------------- listing


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


def resolve_policies(policies, modules=(), package=None, idle=()):
    """(resolved policies, params[team, decision, :], the kernel's tuple of strategy functions) for
    team 0's and team 1's policy specs, compiled for the size of ``package`` (None: 4/2); the ``idle``
    decisions' functions a placeholder (resolve_policy)."""
    load_builtins()
    for mod in modules:
        load_module(mod)
    pols = [resolve_policy(p, package, idle) for p in policies]
    plen = max(1, max(len(p) for pol in pols for p in pol.params))
    params = np.zeros((2, len(DECISIONS), plen), dtype=np.float64)
    for team, pol in enumerate(pols):
        for d in range(len(DECISIONS)):
            params[team, d, : len(pol.params[d])] = pol.params[d]
    fns = tuple(f for pol in pols for f in pol.functions)
    return pols, params, fns
