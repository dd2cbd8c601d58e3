"""The basics: my hand by effective suit (the trump table, suit lengths, the pairs and tractors
held) and what a card costs to give away (``card_cost``, the cheapest cards and pairs).

Every other helper module reads the hand through these; they allocate nothing and scan one
effective suit at a time.
"""

from numba import njit

from ..kernels import combos
from ..kernels.combos import MIN_TRACTOR
from ..kernels.dims import EFF_SUITS, RANKS, SUITS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import META_NCARDS, TRUMP, TT_META, TT_POS, TT_ROWS, TT_SUIT
from ..kernels.scoring import FIVE, KING, POINTS, TEN
from ..kernels.view import M_MY_CARDS, M_MY_PAIRS, V_EFF, V_HAND, V_META, V_POS, V_SUITS, V_TTMETA

TRUMP_COST = 100  # card_cost: any trump costs more than any plain card
COST_PER_POS = 4  # card_cost of one position
PAIR_BREAK = 24  # card_cost units (6 positions) charged for splitting a pair
FEED_PER_POINT = 20  # card_cost taken off per point when feeding
FEED_MAX = 200  # FEED_PER_POINT times the most points of one card (10): the most feeding takes off
NOT_ADJACENT = -2  # "the last position seen" before any: not next to any position


@njit(cache=True, inline='always')
def trump_table(view):
    """The trump table inside a view: usable as ``tt`` by every combos function."""
    return view[V_EFF:V_EFF + TT_ROWS]


@njit(cache=True, inline='always')
def nsuit(view, s):
    """Number of distinct cards of effective suit ``s`` (they are view[V_SUITS + s, :n])."""
    return view[V_TTMETA, META_NCARDS + s]


@njit(cache=True, inline='always')
def points(counts):
    """Points in a count vector (5s: 5, 10s and Ks: 10)."""
    p = 0
    for s in range(SUITS):
        b = s * RANKS
        p += 5 * counts[b + FIVE] + 10 * counts[b + TEN] + 10 * counts[b + KING]
    return p


@njit(cache=True)
def suit_cards(hand, tt, s, out):
    """Add the cards of effective suit ``s`` in ``hand`` to ``out``; return how many."""
    n = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        out[c] += hand[c]
        n += hand[c]
    return n


@njit(cache=True, inline='always')
def hand_size(view):
    """Cards in my hand."""
    n = 0
    for e in range(EFF_SUITS):
        n += view[V_META, M_MY_CARDS + e]
    return n


@njit(cache=True, inline='always')
def suit_len(view, s):
    """Cards of effective suit ``s`` in my hand (kept by the kernel in M_MY_CARDS)."""
    return view[V_META, M_MY_CARDS + s]


@njit(cache=True)
def refresh_suit_counts(view):
    """Count my cards and pairs of each effective suit into M_MY_CARDS / M_MY_PAIRS.

    The kernel keeps them up to date; call this after building or changing a
    view's hand by hand (tests, notebooks).
    """
    tt = trump_table(view)
    for e in range(EFF_SUITS):
        view[V_META, M_MY_CARDS + e] = combos.suit_count(view[V_HAND], tt, e)
        view[V_META, M_MY_PAIRS + e] = combos.suit_pairs(view[V_HAND], tt, e)


@njit(cache=True)
def pair_cards(hand, tt, s, cards):
    """Write the cards held as pairs in suit ``s`` (ascending) into ``cards``; return how many."""
    n = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if hand[c] >= PAIR_CARDS:
            cards[n] = c
            n += 1
    return n


@njit(cache=True)
def tractors(hand, tt, s, tops, lens):
    """The maximal tractors held in suit ``s``: top positions and lengths (pairs); returns how many.

    Pairs at one position (two off-suit trump-rank pairs) are equal, not
    consecutive, so they count once in a run.
    """
    n = 0
    run = 0
    last = NOT_ADJACENT
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if hand[c] < PAIR_CARDS:
            continue
        p = tt[TT_POS, c]
        if p == last:
            continue
        if p == last + 1:
            run += 1
        else:
            if run >= MIN_TRACTOR:
                tops[n] = last
                lens[n] = run
                n += 1
            run = 1
        last = p
    if run >= MIN_TRACTOR:
        tops[n] = last
        lens[n] = run
        n += 1
    return n


@njit(cache=True, inline='always')
def pair_card_at(hand, view, s, p):
    """The lowest card id held as a pair at position ``p`` of suit ``s`` (-1 if none)."""
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if view[V_POS, c] == p and hand[c] >= PAIR_CARDS:
            return c
    return -1


@njit(cache=True, inline='always')
def _all_of_suit(view, out, s):
    """Write all my cards of suit s into ``out``: a follow short of the led suit plays all of it."""
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        out[c] = view[V_HAND, c]


@njit(cache=True, inline='always')
def card_cost(view, c, feed):
    """What playing card ``c`` gives away: 4 per position (COST_PER_POS) plus its points, trumps +100.

    With ``feed`` the points count against the cost instead (20 per point), so
    the cheapest card is the richest one: for giving points to a partner.
    """
    cost = COST_PER_POS * view[V_POS, c]
    if feed:
        cost -= FEED_PER_POINT * POINTS[c]
    else:
        cost += POINTS[c]
    if view[V_EFF, c] == TRUMP:
        cost += TRUMP_COST
    return cost


@njit(cache=True, inline='always')
def _cheapest_card(view, out, s, feed, bound):
    """cheapest_card among costs below ``bound``; the scan stops once positions rise past it
    (a card costs at least 4 per position, less 200 when feeding)."""
    best = -1
    best_cost = bound
    if view[V_META, M_MY_CARDS + s] == 0:
        return best, best_cost
    base = (TRUMP_COST if s == TRUMP else 0) - (FEED_MAX if feed else 0)
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        left = view[V_HAND, c] - out[c]
        if left <= 0:
            continue
        cost = COST_PER_POS * view[V_POS, c] + base
        if cost >= best_cost:
            break
        cost += FEED_MAX - FEED_PER_POINT * POINTS[c] if feed else POINTS[c]
        if left == PAIR_CARDS:
            cost += PAIR_BREAK
        if cost < best_cost:
            best_cost = cost
            best = c
    return best, best_cost


@njit(cache=True, inline='always')
def cheapest_card(view, out, s, feed):
    """The card of suit s still in hand (minus ``out``) cheapest to give (card_cost, splitting a
    pair charged PAIR_BREAK); returns (card, cost), card -1 when none."""
    return _cheapest_card(view, out, s, feed, 1 << 40)


@njit(cache=True, inline='always')
def cheapest_pair(view, out, s, feed):
    """The cheapest pair of suit s still whole in hand (-1 if none)."""
    best = -1
    best_cost = 1 << 40
    if view[V_META, M_MY_PAIRS + s] == 0:
        return best
    base = (TRUMP_COST if s == TRUMP else 0) - (FEED_MAX if feed else 0)
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if view[V_HAND, c] - out[c] >= PAIR_CARDS:
            if COST_PER_POS * view[V_POS, c] + base >= best_cost:
                break
            cost = card_cost(view, c, feed)
            if cost < best_cost:
                best_cost = cost
                best = c
    return best


@njit(cache=True, inline='always')
def add_cheapest(view, out, k, skip, feed):
    """Add the ``k`` cards cheapest to give, from every suit but ``skip``; return how many added."""
    for j in range(k):
        best = -1
        best_cost = 1 << 40
        for e in range(EFF_SUITS):
            if e == skip:
                continue
            c, cost = _cheapest_card(view, out, e, feed, best_cost)
            if c >= 0 and cost < best_cost:
                best = c
                best_cost = cost
        if best < 0:
            return j
        out[best] += 1
    return k


@njit(cache=True)
def _in_pool(e, s, in_suit):
    return e == s if in_suit else e != s
