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

One module per idea, lowest first: ``variants`` (compiling a strategy's
variants, stale caches), ``declared`` (the decorators, the tables and their
checks), ``plugins`` (loading users' modules, listing), ``resolve`` (a policy
spec into compiled functions).  This package is the one name users import
(``from tractor_sim.play.registry import strategy, policy``), so the split
changes no import.
"""

from tractor_sim.play.registry.variants import drop_stale_cache
from tractor_sim.play.registry.declared import (
    BUILTIN_PACKAGE, DEFAULT_BID, DEFAULT_CALL, EXPECTED, OPTIONAL, Policy, StrategyError, StrategyInfo,
    get_policy, get_strategy, is_builtin, load_builtins, policy, process_policy, python_policy, strategy,
)
from tractor_sim.play.registry.plugins import (
    ENTRY_POINT_GROUP, list_policies, list_strategies, load_entry_points, load_module, load_sources,
)
from tractor_sim.play.registry.resolve import ResolvedPolicy, idle_function, resolve_policies, resolve_policy

__all__ = [
    "BUILTIN_PACKAGE", "DEFAULT_BID", "DEFAULT_CALL", "ENTRY_POINT_GROUP", "EXPECTED", "OPTIONAL", "Policy",
    "ResolvedPolicy", "StrategyError", "StrategyInfo", "drop_stale_cache", "get_policy", "get_strategy",
    "idle_function", "is_builtin", "list_policies", "list_strategies", "load_builtins", "load_entry_points",
    "load_module", "load_sources", "policy", "process_policy", "python_policy", "resolve_policies",
    "resolve_policy", "strategy",
]
