"""The chain the sampler falls back on where its table would not fit (kernels.pair_chain), on small
generated problems enumerated here in Python: its start is found exactly when a consistent split
exists, every sweep keeps every bound, and with two places one exchange is an exact draw."""

import itertools
import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy.stats import chisquare

from tractor_sim.core.kernels import pair_chain as PC

NO_JOINT = -1


@hs.composite
def problems(draw, max_places=4):
    """Copies per layer, bounds per layer and place, rooms that add up, and maybe a joint bound on the
    first two places (the starter's and the kitty's)."""
    layers = draw(hs.integers(1, 4))
    places = draw(hs.integers(2, max_places))
    n = np.array([draw(hs.integers(1, 3)) for _ in range(layers)], dtype=np.int64)
    least = np.zeros((layers, places), dtype=np.int64)
    most = np.zeros((layers, places), dtype=np.int64)
    for i in range(layers):
        for p in range(places):
            most[i, p] = draw(hs.integers(0, n[i]))
            least[i, p] = draw(hs.integers(0, min(1, most[i, p])))
    cut = sorted(draw(hs.lists(hs.integers(0, int(n.sum())), min_size=places - 1, max_size=places - 1)))
    room = np.diff([0, *cut, int(n.sum())]).astype(np.int64)
    joint = np.zeros(layers, dtype=np.int64)
    if draw(hs.booleans()):
        i = draw(hs.integers(0, layers - 1))
        joint[i] = draw(hs.integers(1, n[i]))
        least[i, :2] = 0
    return n, least, most, joint, room


def consistent(x, n, least, most, joint, room):
    return ((x.sum(axis=1) == n).all() and (x.sum(axis=0) == room).all() and (x >= least).all()
            and (x <= most).all() and all(j == 0 or x[i, 0] + x[i, 1] >= j for i, j in enumerate(joint)))


def every_split(n, least, most, joint, room):
    """Every consistent split matrix (as a tuple) with its weight prod_i n_i! / prod x!."""
    rows = []
    for i, k in enumerate(n):
        rows.append([s for s in itertools.product(range(k + 1), repeat=len(room)) if sum(s) == k])
    out = {}
    for pick in itertools.product(*rows):
        x = np.array(pick, dtype=np.int64)
        if consistent(x, n, least, most, joint, room):
            out[pick] = math.prod(math.factorial(k) // math.prod(math.factorial(v) for v in r)
                                  for k, r in zip(n, pick))
    return out


def _start(n, least, most, joint, room):
    x = np.zeros((len(n), len(room)), dtype=np.int64)
    return PC.start(n, least, most, joint, 0 if joint.any() else NO_JOINT, 1, room, x), x


@settings(max_examples=150, deadline=None)
@given(problems())
def test_the_start_is_found_exactly_when_a_consistent_split_exists(problem):
    n, least, most, joint, room = problem
    found, x = _start(*problem)
    assert found == bool(every_split(*problem))
    if found:
        assert consistent(x, *problem)


@settings(max_examples=150, deadline=None)
@given(problems(), hs.integers(0, 2**63))
def test_sweeps_keep_every_bound(problem, seed):
    n, least, most, joint, room = problem
    found, x = _start(*problem)
    if not found:
        return
    rng = np.array([seed], dtype=np.uint64)
    g = np.empty((len(n) + 1, int(n.sum()) + 1))
    for _ in range(3):
        PC.sweep(least, most, joint, 0 if joint.any() else NO_JOINT, 1, room, x, rng, g)
        assert consistent(x, *problem)


def test_two_places_one_exchange_is_an_exact_draw():
    """With two places an exchange deals everything again given nothing: its frequencies are the
    enumeration's (chi-square), with and without a lower bound."""
    n = np.array([2, 3, 1, 2], dtype=np.int64)
    least = np.zeros((4, 2), dtype=np.int64)
    most = np.array([[2, 2], [3, 1], [1, 1], [2, 2]], dtype=np.int64)
    room = np.array([4, 4], dtype=np.int64)
    joint = np.zeros(4, dtype=np.int64)
    for low in (0, 1):
        least[0, 1] = low
        problem = (n, least, most, joint, room)
        dist = every_split(*problem)
        assert len(dist) >= 4
        found, x = _start(*problem)
        rng = np.array([12345], dtype=np.uint64)
        g = np.empty((5, 9))
        counts = Counter()
        draws = 40_000
        for _ in range(draws):
            PC.sweep(least, most, joint, NO_JOINT, 1, room, x, rng, g)
            counts[tuple(tuple(int(v) for v in r) for r in x)] += 1
        assert set(counts) <= set(dist)
        total = sum(dist.values())
        keys = list(dist)
        p = chisquare([counts[k] for k in keys], [draws * dist[k] / total for k in keys]).pvalue
        assert p > 1e-3, (p, counts)


def test_a_chain_that_never_moves_is_rejected_by_the_same_check():
    """The check above has power: the start repeated (no exchange) is far from the enumeration."""
    n = np.array([2, 3, 1, 2], dtype=np.int64)
    least = np.zeros((4, 2), dtype=np.int64)
    most = np.array([[2, 2], [3, 1], [1, 1], [2, 2]], dtype=np.int64)
    room = np.array([4, 4], dtype=np.int64)
    joint = np.zeros(4, dtype=np.int64)
    dist = every_split(n, least, most, joint, room)
    found, x = _start(n, least, most, joint, room)
    keys = list(dist)
    total = sum(dist.values())
    observed = [4000 if k == tuple(tuple(int(v) for v in r) for r in x) else 0 for k in keys]
    assert chisquare(observed, [4000 * dist[k] / total for k in keys]).pvalue < 1e-9
