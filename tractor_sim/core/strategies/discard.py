"""Discard strategies: which 8 (KITTY) of the starter's 33 cards go back into the kitty.

Answer: ``out`` = counts of the KITTY cards, return KITTY.  The kitty's points go to
the opponents, multiplied, if they win the last trick, so burying points is
a bet on trump strength; burying a whole short suit makes a void to ruff.
Trumps are buried only when nothing else is left.
"""

from numba import njit

from .. import lib as sl
from ..kernels.order import META_NCARDS, TRUMP
from ..kernels.rng import uniform
from ..kernels.dims import BJ, CARDS, KITTY, PAIR, SUITS
from ..kernels.unowned import stack_array
from ..kernels.view import V_EFF, V_HAND, V_POS, V_SUITS, V_TTMETA
from ..registry import MAX_CARDS, MAX_POINTS, SWITCH, slots, strategy  # noqa: F401 - the ranges

LOWEST = 0  # lowest position first, fewer points on ties
KEEP_POINTS = 1  # any non-point card before any point card
POINTS_FIRST = 2  # 10s and Ks, then 5s, then the lowest
PAIR_KEEP = 500_000  # splitting a pair costs more than any plain single
POINT_KEEP = 600_000  # keep_points: a point card costs more than splitting a pair
TRUMP_KEEP = 10_000_000  # and a trump more than anything plain
NOTHING_LEFT = 1 << 50  # no copy of the card left to bury
SUIT_KEY = 100  # void_suits: a suit's key is SUIT_KEY per card plus its top position (< SUIT_KEY)


@njit(cache=True, inline='always')
def _cost(view, c, mode):
    pos = view[V_POS, c]
    pts = sl.POINTS[c]
    if mode == LOWEST:
        cost = 16 * pos + pts // 5
    elif mode == KEEP_POINTS:
        cost = pos + (POINT_KEEP + 1000 * pts if pts > 0 else 0)
    else:
        cost = pos - 1000 * pts
    if view[V_EFF, c] == TRUMP:
        cost += TRUMP_KEEP
    return cost


@njit(cache=True)
def bury(view, out, k, mode):
    """Add k more cards to ``out``, cheapest by ``mode`` first, splitting pairs last.

    Every card's cost is worked out once; a pick changes only the picked
    card's (the second copy of a split pair no longer pays PAIR_KEEP).
    """
    cost = stack_array(CARDS)
    for c in range(CARDS):
        cost[c] = _copy_cost(view, out, c, mode)
    for _ in range(k):
        best = 0
        best_cost = cost[0]
        for c in range(1, CARDS):
            if cost[c] < best_cost:
                best_cost = cost[c]
                best = c
        out[best] += 1
        cost[best] = _copy_cost(view, out, best, mode)


@njit(cache=True, inline='always')
def _copy_cost(view, out, c, mode):
    """The cost of burying one more copy of c (NOTHING_LEFT when none is left)."""
    left = view[V_HAND, c] - out[c]
    if left <= 0:
        return NOTHING_LEFT
    return _cost(view, c, mode) + (PAIR_KEEP if left == PAIR else 0)


@njit(cache=True)
def void_suits(view, out, k, skip_points):
    """Bury whole plain suits, the shortest first (then the one with the lower top card),
    while they fit in ``k`` cards; with ``skip_points`` only suits holding no points.
    Returns the cards placed."""
    placed = 0
    while True:
        best = -1
        best_key = 1 << 50
        for e in range(SUITS):
            n = 0
            pts = 0
            top = -1
            for i in range(view[V_TTMETA, META_NCARDS + e]):
                c = view[V_SUITS + e, i]
                left = view[V_HAND, c] - out[c]
                if left > 0:
                    n += left
                    pts += left * sl.POINTS[c]
                    top = view[V_POS, c]
            if n == 0 or n > k - placed or (skip_points and pts > 0):
                continue
            key = SUIT_KEY * n + top
            if key < best_key:
                best_key = key
                best = e
        if best < 0:
            return placed
        for i in range(view[V_TTMETA, META_NCARDS + best]):
            c = view[V_SUITS + best, i]
            placed += view[V_HAND, c] - out[c]
            out[c] = view[V_HAND, c]


@njit(cache=True)
def bury_point_singles(view, out, k):
    """Bury unpaired plain point cards (10s and Ks, then 5s), at most k; return how many."""
    placed = 0
    for pts in (10, 5):
        for c in range(BJ):
            if placed < k and sl.POINTS[c] == pts and view[V_EFF, c] != TRUMP and view[V_HAND, c] - out[c] == 1:
                out[c] += 1
                placed += 1
    return placed


@strategy("discard", "lowest")
def lowest(view, params, rng, scratch, out):
    """Bury the 8 lowest plain cards, keeping pairs.

    Idea: low cards win nothing, pairs are worth keeping for pair leads and
    for following pairs, trumps are worth keeping always.
    """
    bury(view, out, KITTY, LOWEST)
    return KITTY


@strategy("discard", "void")
def void(view, params, rng, scratch, out):
    """Void the shortest plain suits, then bury the lowest cards.

    Idea: a void lets me ruff that suit when it is led, winning its points
    with small trumps.
    """
    placed = void_suits(view, out, KITTY, False)
    bury(view, out, KITTY - placed, LOWEST)
    return KITTY


@strategy("discard", "keep_points")
def keep_points(view, params, rng, scratch, out):
    """Keep point cards out of the kitty: bury the lowest non-point cards, even splitting pairs.

    Idea: the kitty's points are multiplied for the opponents if they take
    the last trick; buried points are a risk I need not take.
    """
    bury(view, out, KITTY, KEEP_POINTS)
    return KITTY


BURY_POINTS_PARAMS = {"threshold": 10.0}
BURY_POINTS = slots(BURY_POINTS_PARAMS)


@strategy("discard", "bury_points", params=BURY_POINTS_PARAMS, ranges={"threshold": (0.0, MAX_CARDS)})
def bury_points(view, params, rng, scratch, out):
    """Bury point cards when strong in trumps (at least ``threshold``), else keep them.

    Idea: with many trumps I will most likely win the last trick, so the kitty
    is the safest place for points the opponents could otherwise catch in
    play; with few trumps, keep points out (as keep_points).
    """
    if sl.suit_len(view, TRUMP) >= params[BURY_POINTS.threshold]:
        bury(view, out, KITTY, POINTS_FIRST)
    else:
        bury(view, out, KITTY, KEEP_POINTS)
    return KITTY


EXPERT_PARAMS = {"threshold": 14.0}
EXPERT = slots(EXPERT_PARAMS)


@strategy("discard", "expert", params=EXPERT_PARAMS, ranges={"threshold": (0.0, MAX_CARDS)})
def expert(view, params, rng, scratch, out):
    """bury_points and void together: bury points when strong in trumps, then void short suits.

    Idea: very strong in trumps (at least ``threshold``), the kitty is safe,
    so bury the loose point cards first; then, strong or not, make voids for
    ruffing (weak: only with suits holding no points) and fill with the lowest
    (weak: non-point) cards.  Measured against basic, 14 trumps beats 10 or 12
    as the threshold.
    """
    return expert_burial(view, out, params[EXPERT.threshold])


@njit(cache=True)
def expert_burial(view, out, threshold):
    """The expert burial for its threshold (the learned burial starts from it); returns KITTY."""
    strong = sl.suit_len(view, TRUMP) >= threshold
    placed = bury_point_singles(view, out, KITTY) if strong else 0
    placed += void_suits(view, out, KITTY - placed, not strong)
    bury(view, out, KITTY - placed, LOWEST if strong else KEEP_POINTS)
    return KITTY


@strategy("discard", "random")
def random(view, params, rng, scratch, out):
    """Bury 8 cards drawn at random from the hand (every card equally likely).

    The baseline that shows what a discard policy is worth.
    """
    left = sl.hand_size(view)
    take = KITTY
    for c in range(CARDS):
        for _ in range(view[V_HAND, c]):
            if uniform(rng) * left < take:
                out[c] += 1
                take -= 1
            left -= 1
    return KITTY
