"""Following: what the rules make me play to the current lead (``follow_need``, the tractors of
follow_tractor) and the two ways to fill a legal follow, the cheapest and a uniformly random one.

Every follow strategy ends in one of these; with 3 and 4 decks they hand over to ``tuples``.
"""

from numba import njit

from ..kernels import combos
from ..kernels.combos import MAX_UNITS
from ..kernels.dims import DECKS, EFF_SUITS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import META_NCARDS
from ..kernels.rng import uniform
from ..kernels.unowned import stack_array
from ..kernels.view import (
    M_LEADER, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_MY_CARDS, M_MY_PAIRS, V_HAND, V_META, V_POS,
    V_RULES, V_SUITS, V_TRICK, V_TTMETA,
)
from tractor_sim.rules.options import R_FOLLOW_TRACTOR
from .cards import _all_of_suit, _in_pool, add_cheapest, cheapest_card, cheapest_pair, trump_table
from .trick import tractors_asked
from .tuples import cheapest_tuple_follow, random_tuple_follow


@njit(cache=True, inline='always')
def follow_need(view):
    """(cards of the led suit I must play, pairs of it I must play) for the current lead.

    With 3 and 4 decks the pairs are not the rule (decision 9.3 counts tuples of every size:
    tuple_need); the follow builders then use only the cards."""
    s = view[V_META, M_LEAD_SUIT]
    held = view[V_META, M_MY_CARDS + s]
    pairs = view[V_META, M_MY_PAIRS + s]
    return min(held, view[V_META, M_LEAD_N]), min(view[V_META, M_LEAD_PAIRS], pairs)


@njit(cache=True, inline='always')
def cheapest_follow(view, out, feed):
    """The cheapest legal follow (``feed``: the richest one, see card_cost); returns its size.

    The pairs the rules require are the cheapest pairs of the led suit; the
    other cards are the cheapest singles, splitting a pair only when that is
    clearly cheaper; when short of the led suit, all of it plus the cheapest
    other cards.
    """
    held, need = follow_need(view)
    return cheapest_follow_given(view, out, feed, held, need)


@njit(cache=True, inline='always')
def cheapest_follow_given(view, out, feed, held, need):
    """cheapest_follow when the caller already has (held, need) = follow_need(view).

    With 3 and 4 decks: cheapest_tuple_follow (the tuples of decision 9.3; ``need`` unused).  The
    2-deck build keeps its own: it reads my pairs from the view where the tuple builder counts the
    tuples of every size (tuples.matched_tuples), on the 4-player game's hottest path."""
    if DECKS > PAIR_CARDS:
        return cheapest_tuple_follow(view, out, feed)
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    if held >= n:
        placed = required_tractors(view, out) if view[V_RULES, R_FOLLOW_TRACTOR] != 0 else 0
        for _ in range(need - placed):
            out[cheapest_pair(view, out, s, feed)] += PAIR_CARDS
        for _ in range(n - PAIR_CARDS * need):
            c, _cost = cheapest_card(view, out, s, feed)
            out[c] += 1
    else:
        _all_of_suit(view, out, s)
        add_cheapest(view, out, n - held, s, feed)
    return n


@njit(cache=True)
def _binom(n, k):
    if k < 0 or k > n:
        return 0.0
    r = 1.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r


@njit(cache=True)
def _sample(view, out, rng, s, in_suit, k, need):
    """Add k cards from the pool (suit s, or every suit but s) that ``out`` does not use yet.

    Uniform over the distinct count vectors with at least ``need`` pairs: the
    number of pairs j is drawn with weight C(m2, j) C(m2 - j + m1, k - 2j)
    (m2 cards held twice, m1 once), then j cards of m2 are played twice and
    k - 2j others once, each set uniformly (selection sampling).
    """
    m1 = 0
    m2 = 0
    for e in range(EFF_SUITS):
        if not _in_pool(e, s, in_suit):
            continue
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            if out[c] == 0:
                if view[V_HAND, c] >= PAIR_CARDS:
                    m2 += 1
                elif view[V_HAND, c] == 1:
                    m1 += 1
    total = 0.0
    for j in range(need, min(m2, k // PAIR_CARDS) + 1):
        total += _binom(m2, j) * _binom(m2 - j + m1, k - PAIR_CARDS * j)
    u = uniform(rng) * total
    j = need
    for jj in range(need, min(m2, k // PAIR_CARDS) + 1):
        j = jj
        u -= _binom(m2, jj) * _binom(m2 - jj + m1, k - PAIR_CARDS * jj)
        if u < 0.0:
            break
    _select(view, out, rng, s, in_suit, PAIR_CARDS, j, m2)
    _select(view, out, rng, s, in_suit, 1, k - PAIR_CARDS * j, m2 - j + m1)


@njit(cache=True)
def _select(view, out, rng, s, in_suit, copies, take, left):
    """Selection sampling: play ``copies`` of ``take`` of the ``left`` pool cards that are held
    at least that often and not in ``out`` yet, every such set equally likely."""
    for e in range(EFF_SUITS):
        if not _in_pool(e, s, in_suit):
            continue
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            if out[c] == 0 and view[V_HAND, c] >= copies:
                if uniform(rng) * left < take:
                    out[c] = copies
                    take -= 1
                left -= 1


@njit(cache=True)
def random_follow(view, rng, out):
    """A uniformly random legal follow (over the distinct plays); returns its size.

    With enough cards of the led suit: n of them with at least the required
    pairs; otherwise all of them plus uniformly random other cards.  Under the
    rule follow_tractor the tractors it requires come first (the lowest, see
    required_tractors), the rest at random.  With 3 and 4 decks: random_tuple_follow.
    """
    if DECKS > PAIR_CARDS:
        return random_tuple_follow(view, rng, out)
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    held, need = follow_need(view)
    if held >= n:
        placed = required_tractors(view, out) if view[V_RULES, R_FOLLOW_TRACTOR] != 0 else 0
        _sample(view, out, rng, s, True, n - PAIR_CARDS * placed, need - placed)
    else:
        _all_of_suit(view, out, s)
        _sample(view, out, rng, s, False, n - held, 0)
    return n


@njit(cache=True)
def required_tractors(view, out):
    """Under the rule follow_tractor, add to ``out`` the tractors I must play to the current lead
    (tractors of the lead's lengths covering as many pairs as my hand allows, placed as low as
    possible: combos.tractor_cover); return their pairs (0 when nothing is required).
    Not required_tuple_tractors: the 2-deck unit table has no UNIT_SIZE column for its shapes.

    The required pairs still count towards the pairs follow_need asks for.
    """
    if not tractors_asked(view):
        return 0
    s = view[V_META, M_LEAD_SUIT]
    tt = trump_table(view)
    units, ucards = combos.stack_units()
    nu = combos.decompose(view[V_TRICK + view[V_META, M_LEADER]], tt, units, ucards)
    ks = stack_array(MAX_UNITS)
    nk = combos.lead_tractors(units, nu, ks)
    place = stack_array(MAX_UNITS)
    combos.tractor_cover(view[V_HAND], tt, s, ks, nk, place)
    placed = 0
    for i in range(nk):
        if place[i] < 0:
            continue
        for q in range(place[i] - ks[i] + 1, place[i] + 1):
            for j in range(view[V_TTMETA, META_NCARDS + s]):  # the lowest card with a pair left at q
                c = view[V_SUITS + s, j]
                if view[V_POS, c] == q and view[V_HAND, c] - out[c] >= PAIR_CARDS:
                    out[c] += PAIR_CARDS
                    break
        placed += ks[i]
    return placed
