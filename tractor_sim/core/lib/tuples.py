"""Following with 3 and 4 decks (docs/rules.md section 9): the legal follows when a lead holds tuples.

Reached only through ``if DECKS > PAIR_CARDS:`` branches (pruned from the 2-deck build).  A follow
is legal (decisions 9.3, 9.4) when it plays the cards of the led suit the suit rule asks, the
tractors follow_tractor asks (required_tuple_tractors), and for every size m at least C(m) groups
of m or more cards of the suit, C(m) being the tuples of size m or more the hand matches
(tuple_need); what else is played cannot break it (more cards in a group only help).  The 2-deck
builders in ``follow`` count pairs only, so these stand apart.
"""

from numba import njit

from ..kernels import combos
from ..kernels.combos import MAX_UNITS, TUPLE_SIZES
from ..kernels.tuples import best_fit_at, lead_tractor_shapes, matched_tuples, tuple_tractor_cover
from ..kernels.dims import CARDS, EFF_SUITS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import META_NCARDS
from ..kernels.rng import randint
from ..kernels.unowned import stack_array
from ..kernels.view import M_LEADER, M_LEAD_N, M_LEAD_SUIT, V_HAND, V_META, V_SUITS, V_TRICK, V_TTMETA
from .cards import _all_of_suit, _in_pool, add_cheapest, card_cost, cheapest_card, suit_len, trump_table
from .trick import lead_size, lead_tuples, tractors_asked

RAISE_STEP = 1 << 10  # cheapest_tuple_follow: a card more to play costs more than any card_cost difference


@njit(cache=True)
def tuple_need(view, s, cum):
    """cum[m] = C(m), the groups of at least m cards of the led suit s a follow must hold: the
    tuples of size m or more my hand matches (kernels.tuples.matched_tuples, decision 9.3);
    returns the lead's largest tuple size (0 without tuples)."""
    top = lead_size(view)
    if top < PAIR_CARDS:
        return 0
    req = stack_array(TUPLE_SIZES)
    for m in range(TUPLE_SIZES):
        req[m] = lead_tuples(view, m)
    matched = stack_array(TUPLE_SIZES)
    matched_tuples(view[V_HAND], trump_table(view), s, req, top, matched)
    acc = 0
    for m in range(top, 1, -1):
        acc += matched[m]
        cum[m] = acc
    return top


@njit(cache=True, inline='always')
def _groups_at_least(view, out, s, m):
    """Groups of suit s with at least m cards in ``out``."""
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        n += out[view[V_SUITS + s, i]] >= m
    return n


@njit(cache=True, inline='always')
def _cards_in(view, out, s):
    """Cards of suit s in ``out``."""
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        n += out[view[V_SUITS + s, i]]
    return n


@njit(cache=True)
def required_tuple_tractors(view, out):
    """required_tractors with tuples (decision 9.4): add to ``out`` the tractors of the lead's
    shapes I must play, covering as many cards as my hand allows (kernels.tuples.tuple_tractor_cover,
    its placement replayed group by group); return their cards (0 when nothing is required)."""
    if not tractors_asked(view):
        return 0
    s = view[V_META, M_LEAD_SUIT]
    tt = trump_table(view)
    units, ucards = combos.stack_units()
    nu = combos.decompose(view[V_TRICK + view[V_META, M_LEADER]], tt, units, ucards)
    ms = stack_array(MAX_UNITS)
    ks = stack_array(MAX_UNITS)
    nk = lead_tractor_shapes(units, nu, ms, ks)
    place = stack_array(MAX_UNITS)
    tuple_tractor_cover(view[V_HAND], tt, s, ms, ks, nk, place)
    avail = stack_array(CARDS)
    for c in range(CARDS):
        avail[c] = view[V_HAND, c]
    placed = 0
    for i in range(nk):
        if place[i] < 0:
            continue
        for q in range(place[i] - ks[i] + 1, place[i] + 1):
            c = best_fit_at(avail, tt, s, q, ms[i])
            avail[c] = 0
            out[c] += ms[i]
        placed += ms[i] * ks[i]
    return placed


@njit(cache=True)
def _raise_cheapest(view, out, s, m, feed):
    """Bring one group of suit s to m cards in ``out``: the one needing the fewest cards more,
    then the lowest card_cost."""
    best = -1
    best_key = 1 << 40
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if out[c] < m <= view[V_HAND, c]:
            key = RAISE_STEP * (m - out[c]) + card_cost(view, c, feed)
            if key < best_key:
                best_key = key
                best = c
    if best >= 0:
        out[best] = m


@njit(cache=True)
def cheapest_tuple_follow(view, out, feed):
    """cheapest_follow with tuples: the required tractors, then the cheapest groups that make the
    tuples of 9.3, then the cheapest single cards; short of the led suit, all of it and the
    cheapest others."""
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    held = suit_len(view, s)
    if held < n:
        _all_of_suit(view, out, s)
        add_cheapest(view, out, n - held, s, feed)
        return n
    required_tuple_tractors(view, out)
    cum = stack_array(TUPLE_SIZES)
    top = tuple_need(view, s, cum)
    for m in range(top, 1, -1):
        for _ in range(cum[m] - _groups_at_least(view, out, s, m)):
            _raise_cheapest(view, out, s, m, feed)
    for _ in range(n - _cards_in(view, out, s)):
        c, _cost = cheapest_card(view, out, s, feed)
        out[c] += 1
    return n


@njit(cache=True)
def _raise_random(view, out, s, m, rng):
    """Bring a group of suit s, uniformly chosen among those that can, to m cards in ``out``."""
    k = 0
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        k += out[c] < m <= view[V_HAND, c]
    if k == 0:
        return
    r = randint(rng, k)
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if out[c] < m <= view[V_HAND, c]:
            if r == 0:
                out[c] = m
                return
            r -= 1


@njit(cache=True)
def _add_random_copies(view, out, s, in_suit, k, rng):
    """Add k cards of the pool (suit s, or every suit but s) not yet in ``out``, each a uniformly
    random copy of those left (_sample's count model knows two copies at most)."""
    for _ in range(k):
        left = 0
        for e in range(EFF_SUITS):
            if _in_pool(e, s, in_suit):
                for i in range(view[V_TTMETA, META_NCARDS + e]):
                    c = view[V_SUITS + e, i]
                    left += view[V_HAND, c] - out[c]
        r = randint(rng, left)
        for e in range(EFF_SUITS):
            if not _in_pool(e, s, in_suit):
                continue
            for i in range(view[V_TTMETA, META_NCARDS + e]):
                c = view[V_SUITS + e, i]
                x = view[V_HAND, c] - out[c]
                if r < x:
                    out[c] += 1
                    r = -1
                    break
                r -= x
            if r < 0:
                break


@njit(cache=True)
def random_tuple_follow(view, rng, out):
    """random_follow with tuples: the required tractors (the lowest placement), the groups 9.3
    asks for chosen at random, then random cards of the suit; short of it, all of it and random
    others.  Every legal play can come out, not uniformly."""
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    held = suit_len(view, s)
    if held < n:
        _all_of_suit(view, out, s)
        _add_random_copies(view, out, s, False, n - held, rng)
        return n
    required_tuple_tractors(view, out)
    cum = stack_array(TUPLE_SIZES)
    top = tuple_need(view, s, cum)
    for m in range(top, 1, -1):
        for _ in range(cum[m] - _groups_at_least(view, out, s, m)):
            _raise_random(view, out, s, m, rng)
    _add_random_copies(view, out, s, True, n - _cards_in(view, out, s), rng)
    return n
