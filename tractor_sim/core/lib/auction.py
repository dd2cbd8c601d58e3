"""The auction (the bidding variant of declaring): my level, the trump suit my hand would make
strongest at a rank, and my highest card for the show.
"""

from numba import njit

from ..kernels.declare import show_key
from ..kernels.dims import CARDS, FRIENDS, SUITS, TEAM_MODE, team_of
from ..kernels.view import FV_LEVEL, M_LEVEL0, M_SEAT, V_FRIENDS, V_HAND, V_META
from .declare import strength_at


@njit(cache=True)
def my_level(view):
    """My team's level (0..12 = 2..A): the trump rank if my team declares (Finding Friends: my own)."""
    if TEAM_MODE == FRIENDS:
        return view[V_FRIENDS, FV_LEVEL + view[V_META, M_SEAT]]
    return view[V_META, M_LEVEL0 + team_of(view[V_META, M_SEAT])]


@njit(cache=True)
def best_trump_suit(view, r):
    """(the suit with the highest strength_at for rank r, that strength); ties: the first suit."""
    best = 0
    best_st = -1
    for s in range(SUITS):
        st = strength_at(view, s, r)
        if st > best_st:
            best = s
            best_st = st
    return best, best_st


@njit(cache=True)
def show_highest(view, out):
    """Put my highest card for the auction's show (RJ > BJ > A .. 2, the lowest id among equals)
    into ``out``; return 1."""
    best = -1
    key = -1
    for c in range(CARDS):
        if view[V_HAND, c] > 0 and show_key(c) > key:
            key = show_key(c)
            best = c
    out[best] += 1
    return 1
