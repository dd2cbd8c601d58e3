"""Resolving a policy spec (a name, a Policy, a table, a search, a Python policy or bot) into what the
deal kernel takes: compiled functions and parameter vectors per decision.

Apart from the declarations because it is the one step between a run's
configuration and the kernels: the spec grammar, the precedence of
parameters (strategy default, policy, table, model file) and the compile
for a game size are decided here and nowhere else.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from tractor_sim.play import players, search
from tractor_sim.play.registry.declared import (
    OPTIONAL, Policy, StrategyError, _nested_params, _suggest, get_policy, get_strategy, load_builtins,
)
from tractor_sim.play.registry.plugins import load_module
from tractor_sim.rules.fields import shown
from tractor_sim.core.kernels.view import DECISIONS, STRATEGY_SIG


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
        fn = numba.njit(cache=True)(_idle)
        if not numba.config.DISABLE_JIT:  # compiled as a first-class value, and only so (numba then
            fn.get_compile_result(STRATEGY_SIG)  # types it as that function, and a tuple holding it)
            fn.disable_compile()
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
    if model:  # the weights of the decisions that play the learned strategy (a context may name another)
        for d, table in _model_params(model, name, package).items():
            if chosen[d] == "learned":
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
    if settings.infer not in (search.INFER_NONE, search.INFER_BASE):
        try:
            model = resolve_policy(settings.infer, package, idle)
        except StrategyError as e:
            raise StrategyError(f"policy {shown(name)}: field 'infer': {e}") from None
        if model.player is not None:
            raise StrategyError(f"policy {name!r}: field 'infer': the model of the opponents is replayed in "
                                f"compiled code; {model.player.describe()} is not compiled")
        settings = dataclasses.replace(settings, model=model)
    if settings.infer != search.INFER_NONE and resolved.player is not None:
        raise StrategyError(f"policy {name!r}: field 'infer' needs a compiled base (the plays are kept by the "
                            "compiled driver); a Python policy or bot as the base searches with uniform worlds")
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
    if settings.infer != search.INFER_NONE:
        spec_table["infer"] = settings.model.spec if settings.model is not None else settings.infer
    return ResolvedPolicy(name, rolled.functions, rolled.params, rolled.strategies, rolled.param_names,
                          spec_table, tuple(dict.fromkeys(resolved.sources + rolled.sources)), settings,
                          resolved.player)


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
