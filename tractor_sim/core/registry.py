"""What the built-in strategies and policies of this package registered, for the registry to compile.

The decorators here only record: compiling (lean, bounds-checked, with the
strategy signature) is the job of ``tractor_sim.play.registry``, which reads
these tables for the 4-player 2-deck game and for each copy of the package
compiled for another size.  So this package depends on nothing above it.
"""

from collections import namedtuple
from dataclasses import dataclass, field

# The largest card count and points of any game size (8 players, 4 decks: 216 cards, 400 points):
# the ends of the built-ins' parameter ranges that count cards or points.
MAX_CARDS = 216
MAX_POINTS = 400
SWITCH = (0.0, 1.0)  # a parameter that is off (0) or on (1)

STRATEGIES: dict = {}  # (decision, name) -> Recorded
POLICIES: dict = {}  # name -> {decision: strategy name, "params": .., "description": ..}


@dataclass(frozen=True)
class Recorded:
    """A strategy as its decorator gave it: the plain function and how to compile it."""

    fn: object
    params: dict = field(default_factory=dict)
    description: str = ""
    lean: bool | None = None
    boundscheck: bool | None = None
    ranges: dict = field(default_factory=dict)  # param -> (lowest, highest): the values it plays legally


def slots(params: dict):
    """Each parameter's place in the ``params`` vector a strategy receives, by name: ``P = slots(TABLE)``,
    then ``params[P.min_cards]``.  The vector holds the declared parameters in declaration order;
    numba reads a module's named tuple of integers as constants, so a name costs nothing."""
    return namedtuple("Slots", list(params))(*range(len(params)))


def strategy(decision, name, params=None, description="", lean=None, boundscheck=None, ranges=None):
    """Record ``fn`` as strategy ``name`` of ``decision`` (tractor_sim.play.registry.strategy's arguments)."""
    def record(fn):
        STRATEGIES[(decision, name)] = Recorded(fn, dict(params or {}), description, lean, boundscheck,
                                                dict(ranges or {}))
        return fn
    return record


def policy(name, **table):
    """Record policy ``name``: a strategy per decision, ``params``, ``description``."""
    POLICIES[name] = table
