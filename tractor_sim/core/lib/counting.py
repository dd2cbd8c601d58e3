"""Counting cards: what the others may still hold (``unseen``: the copies not in my hand, not
played and not buried), so whether my card, pair, tuple or tractor is the highest left.

The question behind every safe lead and every cheap win.
"""

from numba import njit

from ..kernels.dims import DECKS, SEATS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import META_NCARDS
from ..kernels.view import V_BURIED, V_EFF, V_HAND, V_PLAYED, V_POS, V_SUITS, V_TTMETA
from .cards import NOT_ADJACENT


@njit(cache=True, inline='always')
def unseen(view, c):
    """Copies of card c the others may still hold: DECKS minus mine, played and buried."""
    n = DECKS - view[V_HAND, c] - view[V_BURIED, c]
    for seat in range(SEATS):
        n -= view[V_PLAYED + seat, c]
    return n


@njit(cache=True, inline='always')
def top_copies_pos(view, s, m):
    """The highest position of suit s at which the others may hold m copies of one card (-1: none),
    scanned from the top: top_shape_pos of a unit of one position."""
    for i in range(view[V_TTMETA, META_NCARDS + s] - 1, -1, -1):
        c = view[V_SUITS + s, i]
        if unseen(view, c) >= m:
            return view[V_POS, c]
    return -1


@njit(cache=True, inline='always')
def top_shape_pos(view, s, m, k):
    """The highest top of k consecutive positions of suit s at each of which the others may hold m
    copies of one card (-1: none): a single (m = 1, k = 1), a pair or tuple, a tractor."""
    if k == 1:
        return top_copies_pos(view, s, m)
    best = -1
    run = 0
    last = NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if unseen(view, c) < m:
            continue
        p = view[V_POS, c]
        if p == last:
            continue
        run = run + 1 if p == last + 1 else 1
        last = p
        if run >= k:
            best = p
    return best


@njit(cache=True, inline='always')
def top_single_pos(view, s):
    """The highest position of suit s at which the others may hold a card (-1: none)."""
    return top_copies_pos(view, s, 1)


@njit(cache=True, inline='always')
def top_pair_pos(view, s):
    """The highest position of suit s at which the others may hold a pair (-1: none)."""
    return top_copies_pos(view, s, PAIR_CARDS)


@njit(cache=True, inline='always')
def top_tractor_pos(view, s, k):
    """The highest top of a tractor of ``k`` pairs the others may hold in suit s (-1: none)."""
    return top_shape_pos(view, s, PAIR_CARDS, k)


@njit(cache=True, inline='always')
def is_top_card(view, c):
    """Whether no card the others may hold beats card c in its suit."""
    return top_single_pos(view, view[V_EFF, c]) <= view[V_POS, c]


@njit(cache=True, inline='always')
def is_top_pair(view, c):
    """Whether no pair the others may hold beats the pair of c."""
    return top_pair_pos(view, view[V_EFF, c]) <= view[V_POS, c]


@njit(cache=True, inline='always')
def is_top_tractor(view, s, top, k):
    """Whether no tractor of k pairs the others may hold beats mine topped at position ``top``."""
    return top_tractor_pos(view, s, k) <= top


@njit(cache=True, inline='always')
def is_top_unit(view, s, top, k):
    """is_top_card / pair / tractor by position: k = 0 single, 1 pair, >= 2 tractor."""
    return top_shape_pos(view, s, 1 if k == 0 else PAIR_CARDS, max(k, 1)) <= top
