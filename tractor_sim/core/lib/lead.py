"""Leading: a uniformly random lead of my hand (a single, a pair or tuple, a tractor): the
``random`` baseline's lead, which plays by the rules and nothing else.
"""

from numba import njit

from ..kernels.combos import MIN_TRACTOR
from ..kernels.tuples import max_group_by_position
from ..kernels.dims import DECKS, EFF_SUITS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import MAX_POS, META_NCARDS
from ..kernels.rng import randint
from ..kernels.unowned import stack_array
from ..kernels.view import V_HAND, V_POS, V_SUITS, V_TTMETA
from .cards import NOT_ADJACENT, trump_table
from .trick import put_shape, put_unit


@njit(cache=True)
def random_lead(view, rng, out):
    """A uniformly random single, pair or tractor from the hand; returns its size.

    Each distinct card is a single, each card held twice a pair, each run of
    two or more consecutive pair positions a tractor (the lowest card id at
    a position shared by equal cards).  With 3 and 4 decks: random_tuple_lead.
    """
    if DECKS > PAIR_CARDS:
        return random_tuple_lead(view, rng, out)
    total = 0
    for e in range(EFF_SUITS):
        run = 0
        last = NOT_ADJACENT
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            m = view[V_HAND, c]
            if m > 0:
                total += 1
            if m >= PAIR_CARDS:
                total += 1
                p = view[V_POS, c]
                if p != last:
                    run = run + 1 if p == last + 1 else 1
                    last = p
                    total += run - 1  # tractors topped here: one per length 2..run
    r = randint(rng, total)
    for e in range(EFF_SUITS):
        run = 0
        last = NOT_ADJACENT
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            m = view[V_HAND, c]
            if m > 0:
                if r == 0:
                    out[c] = 1
                    return 1
                r -= 1
            if m >= PAIR_CARDS:
                if r == 0:
                    out[c] = PAIR_CARDS
                    return PAIR_CARDS
                r -= 1
                p = view[V_POS, c]
                if p != last:
                    run = run + 1 if p == last + 1 else 1
                    last = p
                    if r < run - 1:
                        return put_unit(view, out, e, p, r + MIN_TRACTOR)
                    r -= run - 1
    return 0


@njit(cache=True)
def random_tuple_lead(view, rng, out):
    """random_lead with tuples: uniformly one of my singles, tuples (each size 2..copies of each
    card) and tractors (each size m, each top and length of a run of positions holding m copies).

    At 2 decks it would draw from the same leads in another order (a suit's singles and tuples
    before its tractors): random_lead stays, so the random policy's 2-deck plays do not change."""
    tt = trump_table(view)
    hi = stack_array(MAX_POS)
    total = 0
    for e in range(EFF_SUITS):
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            total += view[V_HAND, view[V_SUITS + e, i]]
        npos = max_group_by_position(view[V_HAND], tt, e, hi)
        for m in range(PAIR_CARDS, DECKS + 1):
            run = 0
            for p in range(npos):
                run = run + 1 if hi[p] >= m else 0
                total += max(run - 1, 0)
    r = randint(rng, total)
    for e in range(EFF_SUITS):
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            if r < view[V_HAND, c]:
                out[c] = r + 1
                return r + 1
            r -= view[V_HAND, c]
        npos = max_group_by_position(view[V_HAND], tt, e, hi)
        for m in range(PAIR_CARDS, DECKS + 1):
            run = 0
            for p in range(npos):
                run = run + 1 if hi[p] >= m else 0
                if r < run - 1:
                    return put_shape(view, out, e, p, m, r + MIN_TRACTOR)
                r -= max(run - 1, 0)
    return 0
