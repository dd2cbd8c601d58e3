"""Which game sizes the default suite plays, and which only ``-m slow``.

Every game size is a package of its own, compiled whole from an empty cache (about a minute per
size and policy set on a CI machine), so the default suite plays two sizes beyond 4/2 in whole
deals: 6 players with 3 decks (tractor teams: tuples, declaring with 3 decks, the auction) and 5
players with 2 decks (Finding Friends), and tests single functions at 8/4 (quadruples).  ``make
test-slow`` plays every size.
"""

import pytest

DEFAULT_SIZES = {(4, 2), (6, 3), (8, 4), 5}


def sized(values, default=DEFAULT_SIZES, name=None):
    """``values`` as pytest params, those not in ``default`` marked slow."""
    name = name or (lambda v: f"{v[0]}p{v[1]}d" if isinstance(v, tuple) else str(v))
    return [pytest.param(v, id=name(v), marks=() if v in default else pytest.mark.slow) for v in values]
