"""Deals of the unseen cards by a Markov chain, where the sampler's exact table would not fit.

kernels.sampler counts the consistent deals in a table with a dimension per
place; with 7 or 8 players, or 6 with 4 decks, a table over the places that
carry constraints can take gigabytes (and seconds to fill).  There the
sampler hands the same problem to this chain: the copies ``n[i]`` of each
unseen card (layer i) split between the places, each split within the
card's bounds (``least``, ``most``; and for the starter's shown cards while
the kitty is hidden, ``joint[i]`` copies at least in his place and the
kitty together), each place receiving exactly its ``room``.

The target is the sampler's: every deal of the physical copies alike, so a
split matrix x weighs prod_i n_i! / prod_p x[i,p]!.  The chain starts from a
consistent deal found as a feasible flow (``start``: bounded edges
card -> place, Edmonds-Karp on the circulation with lower bounds), then
moves by exchanges between two places (``sweep``): given everything else,
the cards of places p and q are dealt again between them exactly (a small
table over the room of p), which leaves the target unchanged (a Gibbs step
on the pair).

**Approximate.**  The worlds are correlated draws of a chain that has run
BURN_IN sweeps from its start and BETWEEN sweeps between worlds, not
independent exact draws; tests/test_pair_chain.py measures their
frequencies against the exact table's.  Exchanges between two places
connect the consistent deals except where a three-way exchange is the only
way between them (three places each barred from the card the next gives
it); such deals are not reached from the start.
"""

import numpy as np
from numba import njit

from .rng import uniform

BURN_IN = 20  # sweeps from the flow's start to the first world
BETWEEN = 3  # sweeps between worlds
BIG = 1 << 40
# the flow's nodes: the source and sink of the circulation, the super source and sink of its lower
# bounds, then a node per layer, a joint node per layer (the starter's place and the kitty), a node per place
SOURCE = 0
SINK = 1
SUPER_SOURCE = 2
SUPER_SINK = 3
FIRST_LAYER = 4
NODES_PER_LAYER = 2  # the layer's own and its joint node


@njit(cache=True, inline='always')
def _joint_node(layers, i):
    return FIRST_LAYER + layers + i


@njit(cache=True, inline='always')
def _place_node(layers, p):
    return FIRST_LAYER + NODES_PER_LAYER * layers + p


@njit(cache=True)
def _add(cap, excess, u, v, low, high):
    """An edge u -> v carrying between low and high: its free capacity, and low moved to the excesses."""
    cap[u, v] += high - low
    excess[v] += low
    excess[u] -= low


@njit(cache=True)
def _max_flow(cap, s, t):
    """Edmonds-Karp from s to t in place (cap becomes the residual); returns the flow."""
    n = cap.shape[0]
    parent = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    total = 0
    while True:
        parent[:] = -1
        parent[s] = s
        head = 0
        tail = 1
        queue[0] = s
        while head < tail and parent[t] < 0:
            u = queue[head]
            head += 1
            for v in range(n):
                if parent[v] < 0 and cap[u, v] > 0:
                    parent[v] = u
                    queue[tail] = v
                    tail += 1
        if parent[t] < 0:
            return total
        push = BIG
        v = t
        while v != s:
            push = min(push, cap[parent[v], v])
            v = parent[v]
        v = t
        while v != s:
            cap[parent[v], v] -= push
            cap[v, parent[v]] += push
            v = parent[v]
        total += push


@njit(cache=True)
def start(n, least, most, joint, joint_place, kitty_place, room, x):
    """A consistent split matrix into ``x`` (layers by places); False when there is none.
    ``joint_place`` is the starter's place (-1: no joint bound)."""
    layers = n.shape[0]
    places = room.shape[0]
    for i in range(layers):
        for p in range(places):
            if least[i, p] > most[i, p]:
                return False
    size = _place_node(layers, places)
    cap = np.zeros((size, size), dtype=np.int64)
    excess = np.zeros(size, dtype=np.int64)
    for i in range(layers):
        card = FIRST_LAYER + i
        _add(cap, excess, SOURCE, card, n[i], n[i])
        for p in range(places):
            if joint[i] > 0 and (p == joint_place or p == kitty_place):
                continue
            if most[i, p] > 0:
                _add(cap, excess, card, _place_node(layers, p), least[i, p], most[i, p])
        if joint[i] > 0:
            both = _joint_node(layers, i)
            _add(cap, excess, card, both, joint[i], n[i])
            for p in (joint_place, kitty_place):
                if most[i, p] > 0:
                    _add(cap, excess, both, _place_node(layers, p), least[i, p], most[i, p])
    for p in range(places):
        _add(cap, excess, _place_node(layers, p), SINK, room[p], room[p])
    _add(cap, excess, SINK, SOURCE, 0, BIG)
    need = 0
    for v in range(size):
        if excess[v] > 0:
            cap[SUPER_SOURCE, v] += excess[v]
            need += excess[v]
        elif excess[v] < 0:
            cap[v, SUPER_SINK] -= excess[v]
    free = cap.copy()
    if _max_flow(cap, SUPER_SOURCE, SUPER_SINK) != need:
        return False
    for i in range(layers):
        for p in range(places):
            via_joint = joint[i] > 0 and (p == joint_place or p == kitty_place)
            u = _joint_node(layers, i) if via_joint else FIRST_LAYER + i
            v = _place_node(layers, p)
            x[i, p] = least[i, p] + free[u, v] - cap[u, v] if most[i, p] > 0 else 0
    return True


@njit(cache=True, inline='always')
def _choose(t, a):
    """C(t, a): the pair's weight for a copies in p and t - a in q, up to a factor of the layer's."""
    w = 1.0
    for k in range(a):
        w = w * (t - k) / (k + 1)
    return w


@njit(cache=True)
def _allowed(least, most, joint, joint_place, kitty_place, x, i, p, q, a, b):
    """Whether layer i may hold a copies in p and b in q, the other places as in x."""
    if a < least[i, p] or a > most[i, p] or b < least[i, q] or b > most[i, q]:
        return False
    if joint[i] > 0:
        both = 0
        for r in (joint_place, kitty_place):
            both += a if r == p else (b if r == q else x[i, r])
        return both >= joint[i]
    return True


@njit(cache=True)
def _exchange(least, most, joint, joint_place, kitty_place, x, p, q, rng, g):
    """Deal the copies in places p and q again between them, exactly, given the rest (module doc)."""
    layers = x.shape[0]
    need = 0
    for i in range(layers):
        need += x[i, p]
    for r in range(need + 1):
        g[layers, r] = 0.0
    g[layers, 0] = 1.0
    # g[i, r]: the weight of dealing layers i.. with r copies still to go to p
    for i in range(layers - 1, -1, -1):
        t = x[i, p] + x[i, q]
        for r in range(need + 1):
            acc = 0.0
            for a in range(min(t, r) + 1):
                if _allowed(least, most, joint, joint_place, kitty_place, x, i, p, q, a, t - a):
                    acc += g[i + 1, r - a] * _choose(t, a)
            g[i, r] = acc
    if g[0, need] <= 0.0:
        return
    r = need
    for i in range(layers):
        t = x[i, p] + x[i, q]
        target = uniform(rng) * g[i, r] * (1.0 - 1e-12)
        acc = 0.0
        chosen = -1
        for a in range(min(t, r) + 1):
            if _allowed(least, most, joint, joint_place, kitty_place, x, i, p, q, a, t - a):
                term = g[i + 1, r - a] * _choose(t, a)
                if term > 0.0:
                    chosen = a
                    acc += term
                    if acc > target:
                        break
        x[i, p] = chosen
        x[i, q] = t - chosen
        r -= chosen


@njit(cache=True)
def sweep(least, most, joint, joint_place, kitty_place, room, x, rng, g):
    """One exchange between every two places that receive cards (a systematic scan)."""
    places = room.shape[0]
    for p in range(places):
        if room[p] == 0:
            continue
        for q in range(p + 1, places):
            if room[q] > 0:
                _exchange(least, most, joint, joint_place, kitty_place, x, p, q, rng, g)
