"""Built-in strategy parameters (issue 28, item 2): each declared range is refused outside and
played legally at both ends.

The engine checks every answer and stops a chunk on the first illegal one
(SimulationError), so a sweep that plays its deals is a sweep with no illegal
play.  The default tier plays a few deals at each end of each range; the
slow tier many more, under the auction and the larger game sizes too
(benchmarks/bench_param_ranges.py prints the counts).
"""

from __future__ import annotations

import math

import pytest

from tractor_sim import simulate
from tractor_sim.play import registry as S

S.load_builtins()
RANGED = [(d, n, p, S.get_strategy(d, n).ranges[p]) for d, n, params, _ in S.list_strategies()
          if S.is_builtin(S.get_strategy(d, n).module) for p in params]  # the built-ins (other tests register more)


def _policy(decision, name, param, value) -> dict:
    return {"policy": "expert", decision: name, "params": {f"{decision}.{param}": value}}


def _rules(decision):
    return {"declaring": "auction"} if decision == "bid" else None


def test_every_builtin_parameter_declares_a_range_that_holds_its_default():
    assert RANGED, "no built-in parameter found"
    for d, n, p, (low, high) in RANGED:
        default = S.get_strategy(d, n).params[p]
        assert math.isfinite(low) and math.isfinite(high) and low <= default <= high, (d, n, p)


@pytest.mark.parametrize("decision,name,param,bounds", RANGED, ids=[f"{d}.{n}.{p}" for d, n, p, _ in RANGED])
def test_outside_the_range_and_not_finite_are_refused_naming_the_parameter(decision, name, param, bounds):
    low, high = bounds
    for bad in (low - 1, high + 1, math.nan, math.inf, -math.inf, "8", None, [1]):
        with pytest.raises(S.StrategyError) as e:
            S.resolve_policy(_policy(decision, name, param, bad))
        assert f"{decision}.{param}" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("decision,name,param,bounds", RANGED, ids=[f"{d}.{n}.{p}" for d, n, p, _ in RANGED])
def test_both_ends_of_the_range_play_legally(decision, name, param, bounds):
    for value in bounds:  # an illegal answer would raise SimulationError
        deals, _ = simulate([(_policy(decision, name, param, value), "basic")], n=6, seed=11, chunk_size=6,
                            rules=_rules(decision))
        assert len(deals) == 12


@pytest.mark.slow
@pytest.mark.parametrize("game", [None, {"players": 6, "decks": 3}, {"players": 5, "teams": "friends"}])
@pytest.mark.parametrize("decision,name,param,bounds", RANGED, ids=[f"{d}.{n}.{p}" for d, n, p, _ in RANGED])
def test_range_sweep_many_deals(decision, name, param, bounds, game):
    low, high = bounds
    rules = _rules(decision)
    if decision == "bid" and game is not None and game.get("teams") == "friends":
        pytest.skip("Finding Friends has no auction")
    for value in (low, (low + high) / 2, high):
        deals, _ = simulate([(_policy(decision, name, param, value), "random")], n=200, seed=5, chunk_size=100,
                            rules=rules, game=game)
        assert len(deals) == 400
