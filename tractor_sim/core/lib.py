"""Compiled helpers for strategy writers.

Every function here is ``@njit(cache=True)`` and works on the player view
(``tractor_sim.core.kernels.view``) or on count vectors plus a trump table ``tt``
(``tractor_sim.core.kernels.order``; ``trump_table(view)`` gives the one inside a
view).  A strategy runs about a hundred times per deal against a budget of a
few hundred nanoseconds per call, so the helpers used while playing allocate
nothing: they loop over the cards of one effective suit (the sorted rows
``V_SUITS + s``) instead of all 54, and write their answers into the
caller's ``out`` vector.

Conventions: a *position* is a card's rank inside its effective suit (higher
wins, equal positions are equal cards); *others* are the three other players
taken together, so "highest left" means that no card the others may still
hold (two copies minus my hand, everything played and what I buried) beats
it.  Functions that answer a play write counts into ``out`` (which the
kernel zeroes before each call) and return the number of cards.
"""

import numpy as np
from numba import njit

from .kernels import combos
from .kernels.combos import (  # noqa: F401
    KIND_PAIR, KIND_SINGLE, KIND_THROW, KIND_TRACTOR, MAX_UNITS, MIN_TRACTOR, TUPLE_SIZES,
)
from .kernels.declare import BJ, JOKER_PAIR, PAIR, RJ, SINGLE, declare_count_ok, declare_ok, kind_count
from .kernels.declare import kind_of, show_key
from .kernels.order import MAX_POS, META_NCARDS, TRUMP, TT_META, TT_POS, TT_ROWS, TT_SUIT
from .kernels.rng import randint, uniform
from .kernels.scoring import FIVE, KING, POINTS, TEN  # noqa: F401  (points per card id, for strategies too)
from .kernels.dims import CARDS, DECKS, EFF_SUITS, RANKS, SEATS, SUITS, partner_of, seat_after, team_of
from .kernels.dims import FRIENDS, TEAM_MODE
from .kernels.dims import PAIR as PAIR_CARDS  # cards in a pair (PAIR here: the declaration kind)
from .kernels.unowned import stack_array
from .kernels.view import (
    M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_LEAD_KIND, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_LEADER,
    M_LEVEL0, M_MY_CARDS, M_MY_PAIRS, M_NPLAYED, M_SEAT, M_TRICK, M_TRUMP_RANK, M_WINNING, M_WINNING_KEY,
    V_BURIED, V_EFF, V_HAND, V_META, V_PLAYED, V_POS, V_RULES, V_SUITS, V_TRICK, V_TRICK_LEADER, V_TTMETA,
)
from .kernels.view import M_LEAD_TUPLES, M_NDECL, V_DECL_COUNT
from .kernels.view import FV_IN_TEAM, FV_LEVEL, V_FRIENDS
from tractor_sim.rules.options import FOLLOW_SHAPE_FIRST, R_FOLLOW_TRACTOR, R_JOKER_OVERRIDE, R_PAIR_OVERRIDE, R_SELF_OVERRIDE
from tractor_sim.rules.options import R_RANK_TRUMPS_NT
RUFF = combos.WIN_TRUMP  # added to a key when a trump beats a plain suit
TRUMP_COST = 100  # card_cost: any trump costs more than any plain card
COST_PER_POS = 4  # card_cost of one position
PAIR_BREAK = 24  # card_cost units (6 positions) charged for splitting a pair
FEED_PER_POINT = 20  # card_cost taken off per point when feeding
FEED_MAX = 200  # FEED_PER_POINT times the most points of one card (10): the most feeding takes off
NOT_ADJACENT = -2  # "the last position seen" before any: not next to any position
RAISE_STEP = 1 << 10  # cheapest_tuple_follow: a card more to play costs more than any card_cost difference

# The void tracker's part of ``scratch`` (the rest is free for strategies).
S_LAST = 0  # index of the trick of my last observation, plus one (0: none)
S_MYPOS = 1  # how many plays came before mine in that trick
S_SUIT = 2  # its lead suit (-1: I led; found at the next call)
S_N = 3  # its lead size
S_SNAP = 4  # 4..23: cards of each effective suit played by each seat (seat * EFF_SUITS + suit)
S_VOID = S_SNAP + SEATS * EFF_SUITS  # 24..43: 1.0 when a seat has shown a void in a suit (seat * EFF_SUITS + suit)
SCRATCH_LIB = max(48, S_VOID + SEATS * EFF_SUITS)  # 48 with four seats, as plug-ins were told; more with more


# ---------------------------------------------------------------- basics


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


# ---------------------------------------------------------------- following


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

    With 3 and 4 decks: cheapest_tuple_follow (the tuples of decision 9.3; ``need`` unused)."""
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
        for i in range(view[V_TTMETA, META_NCARDS + s]):
            c = view[V_SUITS + s, i]
            out[c] = view[V_HAND, c]
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
def _in_pool(e, s, in_suit):
    return e == s if in_suit else e != s


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
        for i in range(view[V_TTMETA, META_NCARDS + s]):
            c = view[V_SUITS + s, i]
            out[c] = view[V_HAND, c]
        _sample(view, out, rng, s, False, n - held, 0)
    return n


@njit(cache=True)
def required_tractors(view, out):
    """Under the rule follow_tractor, add to ``out`` the tractors I must play to the current lead
    (tractors of the lead's lengths covering as many pairs as my hand allows, placed as low as
    possible: combos.tractor_cover); return their pairs (0 when nothing is required).

    The required pairs still count towards the pairs follow_need asks for.
    """
    mode = view[V_RULES, R_FOLLOW_TRACTOR]
    kind = view[V_META, M_LEAD_KIND]
    if mode == 0 or not (kind == KIND_TRACTOR or (kind == KIND_THROW and mode == FOLLOW_SHAPE_FIRST)):
        return 0
    s = view[V_META, M_LEAD_SUIT]
    if suit_len(view, s) <= view[V_META, M_LEAD_N]:
        return 0
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


# ---------------------------------------------------------------- counting cards


@njit(cache=True, inline='always')
def unseen(view, c):
    """Copies of card c the others may still hold: DECKS minus mine, played and buried."""
    n = DECKS - view[V_HAND, c] - view[V_BURIED, c]
    for seat in range(SEATS):
        n -= view[V_PLAYED + seat, c]
    return n


@njit(cache=True, inline='always')
def top_single_pos(view, s):
    """The highest position of suit s at which the others may hold a card (-1: none)."""
    for i in range(view[V_TTMETA, META_NCARDS + s] - 1, -1, -1):
        c = view[V_SUITS + s, i]
        if unseen(view, c) > 0:
            return view[V_POS, c]
    return -1


@njit(cache=True, inline='always')
def top_pair_pos(view, s):
    """The highest position of suit s at which the others may hold a pair (-1: none)."""
    for i in range(view[V_TTMETA, META_NCARDS + s] - 1, -1, -1):
        c = view[V_SUITS + s, i]
        if unseen(view, c) >= PAIR_CARDS:
            return view[V_POS, c]
    return -1


@njit(cache=True, inline='always')
def top_tractor_pos(view, s, k):
    """The highest top of a tractor of ``k`` pairs the others may hold in suit s (-1: none)."""
    best = -1
    run = 0
    last = NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + s]):
        c = view[V_SUITS + s, i]
        if unseen(view, c) < PAIR_CARDS:
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
    if k == 0:
        return top_single_pos(view, s) <= top
    if k == 1:
        return top_pair_pos(view, s) <= top
    return top_tractor_pos(view, s, k) <= top


# ---------------------------------------------------------------- the current trick


@njit(cache=True, inline='always')
def play_key_of(view, seat):
    """The key of seat's play in the current trick, by combos.play_key (the one place that says
    how plays compare, as the deal kernel does); -1 when it cannot win; a throw's leader has key 0.

    The kernel keeps the winning key in M_WINNING_KEY (current_best): no
    built-in strategy calls this.  Single and pair leads (most tricks) take
    play_key's own fast path, combos.simple_play_key, inlined; tractors and
    throws decompose the lead (_unit_play_key, not inlined).
    """
    lead_kind = view[V_META, M_LEAD_KIND]
    if lead_kind == KIND_SINGLE or lead_kind == KIND_PAIR:
        if DECKS > PAIR_CARDS:  # a single or a tuple of M_LEAD_N cards
            return combos.tuple_key(view[V_TRICK + seat], view[V_META, M_LEAD_SUIT], view[V_META, M_LEAD_N],
                                    trump_table(view))
        return combos.simple_play_key(view[V_TRICK + seat], view[V_META, M_LEAD_SUIT], lead_kind, trump_table(view))
    return _unit_play_key(view, seat)


@njit(cache=True)
def _unit_play_key(view, seat):
    """play_key_of on a tractor or throw lead."""
    lead_kind = view[V_META, M_LEAD_KIND]
    leader = view[V_META, M_LEADER]
    if lead_kind == KIND_THROW and seat == leader:
        return 0
    tt = trump_table(view)
    units, ucards = combos.stack_units()
    lunits, lucards = combos.stack_units()
    lnu = combos.decompose(view[V_TRICK + leader], tt, lunits, lucards)
    return combos.play_key(view[V_TRICK + seat], view[V_META, M_LEAD_SUIT], lead_kind, lunits, lnu, tt, units, ucards)


@njit(cache=True)
def trick_winner_seat(view):
    """The seat winning the current trick so far, from the plays themselves (-1 before the lead).

    A higher key wins, a tie stays with the earlier play.
    """
    npl = view[V_META, M_NPLAYED]
    if npl == 0:
        return -1
    leader = view[V_META, M_LEADER]
    best = 0
    best_key = play_key_of(view, leader)
    for i in range(1, npl):
        key = play_key_of(view, seat_after(leader, i))
        if key > best_key:
            best_key = key
            best = i
    return seat_after(leader, best)


@njit(cache=True, inline='always')
def current_best(view):
    """(seat winning the current trick so far, its key); (-1, -1) before the lead.

    Both kept by the kernel (M_WINNING, M_WINNING_KEY); trick_winner_seat and
    play_key_of recompute them from the plays.
    """
    if view[V_META, M_NPLAYED] == 0:
        return -1, -1
    return view[V_META, M_WINNING], view[V_META, M_WINNING_KEY]


@njit(cache=True, inline='always')
def is_partner(view, seat):
    """Whether ``seat`` is my partner: the next seat of my team; in Finding Friends another player
    on my side as my view shows the sides now (both in the landlord's team, or both outside it:
    an outsider who may still join counts as the landlord's opponent, decisions.md 9.11)."""
    me = view[V_META, M_SEAT]
    if TEAM_MODE == FRIENDS:
        return seat != me and view[V_FRIENDS, FV_IN_TEAM + seat] == view[V_FRIENDS, FV_IN_TEAM + me]
    return seat == partner_of(me)


@njit(cache=True, inline='always')
def partner_winning(view):
    """Whether my partner holds the current trick so far."""
    npl = view[V_META, M_NPLAYED]
    return npl > 0 and is_partner(view, view[V_META, M_WINNING])


@njit(cache=True, inline='always')
def opponent_after(view):
    """Whether an opponent still plays after me in the current trick."""
    me = view[V_META, M_SEAT]
    leader = view[V_META, M_LEADER]
    for i in range(view[V_META, M_NPLAYED] + 1, SEATS):
        seat = seat_after(leader, i)
        if TEAM_MODE == FRIENDS:
            if not is_partner(view, seat):
                return True
        elif team_of(seat) != team_of(me):
            return True
    return False


@njit(cache=True, inline='always')
def trick_points(view):
    """Points played to the current trick so far."""
    p = 0
    for seat in range(SEATS):
        p += points(view[V_TRICK + seat])
    return p


@njit(cache=True, inline='always')
def _lowest_unit(view, e, k, above, need_top):
    """The lowest unit of k pairs (0: a single) held in suit e with top position > ``above``.

    With ``need_top`` it must also be highest left.  Returns the top
    position, or -1.
    """
    if need_top:
        if k == 0:
            limit = top_single_pos(view, e) - 1
        elif k == 1:
            limit = top_pair_pos(view, e) - 1
        else:
            limit = top_tractor_pos(view, e, k) - 1
        if limit > above:
            above = limit
    if k <= 1:  # from the top down to ``above``: few cards when the unit must be top
        need = 1 if k == 0 else PAIR_CARDS
        best = -1
        for i in range(view[V_TTMETA, META_NCARDS + e] - 1, -1, -1):
            c = view[V_SUITS + e, i]
            p = view[V_POS, c]
            if p <= above:
                break
            if view[V_HAND, c] >= need:
                best = p
        return best
    run = 0
    last = NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        m = view[V_HAND, c]
        p = view[V_POS, c]
        if m < PAIR_CARDS or p == last:
            continue
        run = run + 1 if p == last + 1 else 1
        last = p
        if run >= k and p > above:
            return p
    return -1


@njit(cache=True, inline='always')
def put_unit(view, out, e, top, k):
    """Write into ``out`` my unit of k pairs (0: single) of suit e topped at ``top``; return its size."""
    if k == 0:
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            if view[V_POS, c] == top and view[V_HAND, c] > 0:
                out[c] += 1
                return 1
        return 0
    for q in range(top - k + 1, top + 1):
        out[pair_card_at(view[V_HAND], view, e, q)] += PAIR_CARDS
    return PAIR_CARDS * k


@njit(cache=True, inline='always')
def winning_follow(view, out, best_key, need_top):
    """The cheapest legal follow that beats ``best_key`` (single, pair or tractor leads).

    In the led suit when I can follow it, else (void in a plain suit) in
    trumps.  With ``need_top`` the unit must also be highest left in its suit.
    Writes ``out`` and returns the size, or returns 0 and leaves ``out`` alone.
    """
    return winning_follow_given(view, out, best_key, need_top, suit_len(view, view[V_META, M_LEAD_SUIT]))


@njit(cache=True, inline='always')
def winning_follow_given(view, out, best_key, need_top, held):
    """winning_follow when the caller already has ``held`` (as follow_need gives it)."""
    if view[V_META, M_LEAD_KIND] == KIND_THROW:
        return 0
    if DECKS > PAIR_CARDS:
        return winning_tuple_follow(view, out, best_key, need_top, held)
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    k = view[V_META, M_LEAD_PAIRS]
    if held >= n:
        e = s
        above = best_key
    elif held == 0 and s != TRUMP:
        e = TRUMP
        above = best_key - RUFF
    else:
        return 0
    top = _lowest_unit(view, e, k, above, need_top)
    if top < 0:
        return 0
    return put_unit(view, out, e, top, k)


# ---------------------------------------------------------------- leading


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


# ---------------------------------------------------------------- declaring


@njit(cache=True)
def suit_strength(view, s):
    """Cards of my hand that would be trumps with suit s: that suit, every trump-rank card, jokers."""
    return strength_at(view, s, view[V_META, M_TRUMP_RANK])


@njit(cache=True)
def strength_at(view, s, r):
    """suit_strength for trump rank ``r`` (under the auction the rank is known only after the bids)."""
    n = view[V_HAND, BJ] + view[V_HAND, RJ]
    for q in range(RANKS):
        n += view[V_HAND, s * RANKS + q]
    for t in range(SUITS):
        if t != s:
            n += view[V_HAND, t * RANKS + r]
    return n


@njit(cache=True)
def can_declare_now(view, kind, card):
    """can_declare for my hand against the standing declaration, under the deal's rules."""
    if card < 0 or card >= CARDS:
        return False
    return declare_ok(
        view[V_HAND, card], kind, card, view[V_META, M_SEAT], view[V_META, M_DECL_SEAT], view[V_META, M_DECL_KIND],
        view[V_META, M_DECL_CARD], view[V_META, M_TRUMP_RANK], view[V_RULES, R_SELF_OVERRIDE],
        view[V_RULES, R_PAIR_OVERRIDE], view[V_RULES, R_JOKER_OVERRIDE],
    )


@njit(cache=True)
def declare_options(view, kinds, cards):
    """Fill kinds/cards (length >= 10) with what I may declare now, strongest first; return how many.

    Order: joker pairs (RJ, BJ), then pairs, then singles, each by suit.  The
    kinds at their two-deck counts; with more decks most_copies_now says how
    many copies of a card I may show.
    """
    n = 0
    for card in (RJ, BJ):
        if can_declare_now(view, JOKER_PAIR, card):
            kinds[n] = JOKER_PAIR
            cards[n] = card
            n += 1
    r = view[V_META, M_TRUMP_RANK]
    for kind in (PAIR, SINGLE):
        for s in range(SUITS):
            if can_declare_now(view, kind, s * RANKS + r):
                kinds[n] = kind
                cards[n] = s * RANKS + r
                n += 1
    return n


@njit(cache=True)
def best_suit_option(view, min_strength):
    """The best suit declaration allowed now: (kind, card, strength), kind 0 when none qualifies.

    A pair beats a single (it resists overriding), then the suit strength;
    only options with suit_strength >= ``min_strength`` count.
    """
    r = view[V_META, M_TRUMP_RANK]
    best_kind = 0
    best_card = -1
    best_str = -1
    for s in range(SUITS):
        st = suit_strength(view, s)
        if st < min_strength:
            continue
        for kind in (PAIR, SINGLE):
            if can_declare_now(view, kind, s * RANKS + r):
                if kind > best_kind or (kind == best_kind and st > best_str):
                    best_kind = kind
                    best_card = s * RANKS + r
                    best_str = st
                break
    return best_kind, best_card, best_str


@njit(cache=True)
def joker_option(view):
    """The joker pair I may declare now (RJ preferred), or -1."""
    if can_declare_now(view, JOKER_PAIR, RJ):
        return RJ
    if can_declare_now(view, JOKER_PAIR, BJ):
        return BJ
    return -1


# Declaring with more decks (decisions.md 9.8): a declaration shows ``count`` identical cards.  The
# helpers below return counts at any size; with two decks they are the helpers above (a single
# shows 1 card, a pair 2), so the 4-player 2-deck strategies stay as they were.

@njit(cache=True, inline='always')
def standing_count(view):
    """The cards the standing declaration shows (0: none): the last declaration's, every
    declaration overriding the one before (the view's meta row has no room for it at 8 players
    with 4 decks)."""
    n = view[V_META, M_NDECL]
    if view[V_META, M_DECL_KIND] == 0 or n == 0:
        return 0
    return view[V_DECL_COUNT, min(n, CARDS) - 1]


@njit(cache=True)
def can_declare_count_now(view, kind, count, card):
    """can_declare_count for my hand against the standing declaration (its count: standing_count);
    with two decks can_declare_now, the count being the kind's."""
    if DECKS == PAIR_CARDS:
        return count == kind_count(kind) and can_declare_now(view, kind, card)
    if card < 0 or card >= CARDS:
        return False
    return declare_count_ok(
        view[V_HAND, card], kind, count, card, view[V_META, M_SEAT], view[V_META, M_DECL_SEAT],
        view[V_META, M_DECL_KIND], standing_count(view), view[V_META, M_DECL_CARD], view[V_META, M_TRUMP_RANK],
        view[V_RULES, R_SELF_OVERRIDE], view[V_RULES, R_PAIR_OVERRIDE], view[V_RULES, R_JOKER_OVERRIDE],
    )


@njit(cache=True)
def most_copies_now(view, card):
    """The most copies of ``card`` I may declare now, 0 if none.  Only the most I hold (at most
    DECKS) is tried: more copies override whatever fewer do, and strengthen my own as well."""
    n = min(view[V_HAND, card], DECKS)
    if n >= 1 and can_declare_count_now(view, kind_of(n, card), n, card):
        return n
    return 0


@njit(cache=True, inline='always')
def best_suit_declaration(view, min_strength):
    """best_suit_option with counts: (kind, count, card, strength), kind 0 when none qualifies.

    More copies first (they resist overriding), then the suit strength; each
    suit with its most copies allowed now.
    """
    if DECKS == PAIR_CARDS:
        kind, card, strength = best_suit_option(view, min_strength)
        return kind, kind, card, strength  # a single shows 1 card, a pair 2
    return best_suit_by_count(view, min_strength)


@njit(cache=True)
def best_suit_by_count(view, min_strength):
    """best_suit_declaration at any size (tests compare it with best_suit_option at two decks)."""
    r = view[V_META, M_TRUMP_RANK]
    best_n = 0
    best_card = -1
    best_str = -1
    for s in range(SUITS):
        st = suit_strength(view, s)
        if st < min_strength:
            continue
        n = most_copies_now(view, s * RANKS + r)
        if n > 0 and (n > best_n or (n == best_n and st > best_str)):
            best_n = n
            best_card = s * RANKS + r
            best_str = st
    if best_n == 0:
        return 0, 0, -1, -1
    return kind_of(best_n, best_card), best_n, best_card, best_str


@njit(cache=True, inline='always')
def joker_declaration(view):
    """(count, card) of the jokers I may declare now: the most copies, RJ preferred; (0, -1) if none."""
    if DECKS == PAIR_CARDS:
        card = joker_option(view)
        return (PAIR_CARDS if card >= 0 else 0), card
    n = most_copies_now(view, RJ)
    m = most_copies_now(view, BJ)
    if n == 0 and m == 0:
        return 0, -1
    return (n, RJ) if n >= m else (m, BJ)


@njit(cache=True)
def no_suit_strength(view):
    """suit_strength of a joker declaration (no trump suit): the jokers, and the trump-rank cards
    with ``rank_trumps_in_no_trump``."""
    n = view[V_HAND, BJ] + view[V_HAND, RJ]
    if view[V_RULES, R_RANK_TRUMPS_NT] != 0:
        r = view[V_META, M_TRUMP_RANK]
        for t in range(SUITS):
            n += view[V_HAND, t * RANKS + r]
    return n


# ---------------------------------------------------------------- voids


@njit(cache=True)
def _played_in(view, seat, e):
    """Cards of suit e that seat has played before the current trick."""
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        n += view[V_PLAYED + seat, c] - view[V_TRICK + seat, c]
    return n


@njit(cache=True)
def _count_in(view, row, e):
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        n += view[row, view[V_SUITS + e, i]]
    return n


@njit(cache=True)
def track_voids(view, scratch):
    """Update the shown voids kept in scratch[:SCRATCH_LIB]; call it at every lead and follow.

    A seat shows a void when it plays fewer cards of the led suit than were
    led.  Plays before mine in this trick are in the view; for the plays after
    mine in the previous trick the tracker compares the cards played then
    with a snapshot taken at my previous call.  So it sees everything when
    the seat's lead and follow strategies both call it, and only the current
    trick's earlier plays otherwise.
    """
    if scratch.shape[0] < SCRATCH_LIB:
        return
    t = view[V_META, M_TRICK]
    npl = view[V_META, M_NPLAYED]
    me = view[V_META, M_SEAT]
    if t > 0 and scratch[S_LAST] == t:
        pos0 = np.int64(scratch[S_MYPOS])
        s0 = np.int64(scratch[S_SUIT])
        n0 = np.int64(scratch[S_N])
        if pos0 < 0 or pos0 >= SEATS or s0 < -1 or s0 >= EFF_SUITS:  # not ours: someone else wrote there
            pos0 = SEATS - 1
        if s0 < 0:  # I led it: my own play says what was led
            for e in range(EFF_SUITS):
                d = _played_in(view, me, e) - np.int64(scratch[S_SNAP + me * EFF_SUITS + e])
                if d > 0:
                    s0 = e
                    n0 = d
        l0 = view[V_TRICK_LEADER, t - 1]
        if s0 >= 0:
            for i in range(pos0 + 1, SEATS):
                x = seat_after(l0, i)
                if _played_in(view, x, s0) - np.int64(scratch[S_SNAP + x * EFF_SUITS + s0]) < n0:
                    scratch[S_VOID + x * EFF_SUITS + s0] = 1.0
    leader = view[V_META, M_LEADER]
    scratch[S_LAST] = t + 1
    scratch[S_MYPOS] = npl
    if npl == 0:
        scratch[S_SUIT] = -1
        for x in range(SEATS):
            for e in range(EFF_SUITS):
                scratch[S_SNAP + x * EFF_SUITS + e] = _played_in(view, x, e)
        return
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    scratch[S_SUIT] = s
    scratch[S_N] = n
    for i in range(1, npl):
        x = seat_after(leader, i)
        if _count_in(view, V_TRICK + x, s) < n:
            scratch[S_VOID + x * EFF_SUITS + s] = 1.0
    for i in range(npl + 1, SEATS):
        x = seat_after(leader, i)
        scratch[S_SNAP + x * EFF_SUITS + s] = _played_in(view, x, s)


@njit(cache=True, inline='always')
def shown_void(scratch, seat, s):
    """Whether ``seat`` has shown a void in effective suit ``s`` (as tracked by track_voids)."""
    return scratch.shape[0] >= SCRATCH_LIB and scratch[S_VOID + seat * EFF_SUITS + s] > 0.0


# ---------------------------------------------------------------- the auction


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


# ---------------------------------------------------------------- tuples: 3 and 4 decks (RULES.md 9)
# Reached only through ``if DECKS > PAIR_CARDS:`` branches (pruned from the 2-deck build).  A follow
# is legal (decisions 9.3, 9.4) when it plays the cards of the led suit the suit rule asks, the
# tractors follow_tractor asks (required_tuple_tractors), and for every size m at least C(m) groups
# of m or more cards of the suit, C(m) being the tuples of size m or more the hand matches
# (tuple_need); what else is played cannot break it (more cards in a group only help).


@njit(cache=True, inline='always')
def lead_size(view):
    """The current lead's largest tuple size (1 without tuples): with (lead_size, M_LEAD_PAIRS) the
    shape (m, L) of a single, tuple or tractor lead."""
    if DECKS > PAIR_CARDS:
        for m in range(DECKS, 1, -1):
            if view[V_META, M_LEAD_TUPLES + m - PAIR_CARDS] > 0:
                return m
        return 1
    return PAIR_CARDS if view[V_META, M_LEAD_PAIRS] > 0 else 1


@njit(cache=True, inline='always')
def lead_tuples(view, m):
    """R_m: the current lead's tuples of m cards (a tractor counts its tuples; decision 9.3)."""
    if m < PAIR_CARDS or m > DECKS:
        return 0
    if DECKS > PAIR_CARDS:
        return view[V_META, M_LEAD_TUPLES + m - PAIR_CARDS]
    return view[V_META, M_LEAD_PAIRS]


@njit(cache=True)
def tuple_need(view, s, cum):
    """cum[m] = C(m), the groups of at least m cards of the led suit s a follow must hold: the
    tuples of size m or more my hand matches (combos.matched_tuples, decision 9.3); returns the
    lead's largest tuple size (0 without tuples)."""
    top = lead_size(view)
    if top < PAIR_CARDS:
        return 0
    req = stack_array(TUPLE_SIZES)
    for m in range(TUPLE_SIZES):
        req[m] = lead_tuples(view, m)
    matched = stack_array(TUPLE_SIZES)
    combos.matched_tuples(view[V_HAND], trump_table(view), s, req, top, matched)
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
    shapes I must play, covering as many cards as my hand allows (combos.tuple_tractor_cover, its
    placement replayed group by group); return their cards (0 when nothing is required)."""
    mode = view[V_RULES, R_FOLLOW_TRACTOR]
    kind = view[V_META, M_LEAD_KIND]
    if mode == 0 or not (kind == KIND_TRACTOR or (kind == KIND_THROW and mode == FOLLOW_SHAPE_FIRST)):
        return 0
    s = view[V_META, M_LEAD_SUIT]
    if suit_len(view, s) <= view[V_META, M_LEAD_N]:
        return 0
    tt = trump_table(view)
    units, ucards = combos.stack_units()
    nu = combos.decompose(view[V_TRICK + view[V_META, M_LEADER]], tt, units, ucards)
    ms = stack_array(MAX_UNITS)
    ks = stack_array(MAX_UNITS)
    nk = combos.lead_tractor_shapes(units, nu, ms, ks)
    place = stack_array(MAX_UNITS)
    combos.tuple_tractor_cover(view[V_HAND], tt, s, ms, ks, nk, place)
    avail = stack_array(CARDS)
    for c in range(CARDS):
        avail[c] = view[V_HAND, c]
    placed = 0
    for i in range(nk):
        if place[i] < 0:
            continue
        for q in range(place[i] - ks[i] + 1, place[i] + 1):
            c = combos.best_fit_at(avail, tt, s, q, ms[i])
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
        for i in range(view[V_TTMETA, META_NCARDS + s]):
            c = view[V_SUITS + s, i]
            out[c] = view[V_HAND, c]
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
        for i in range(view[V_TTMETA, META_NCARDS + s]):
            c = view[V_SUITS + s, i]
            out[c] = view[V_HAND, c]
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


@njit(cache=True, inline='always')
def top_shape_pos(view, s, m, k):
    """The highest top of k consecutive positions of suit s at each of which the others may hold m
    copies of one card (-1: none): top_single_pos, top_pair_pos, top_tractor_pos for any shape."""
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
def is_top_lead_unit(view, s, top):
    """Whether no unit of the current lead's shape that the others may hold beats mine topped at
    ``top`` in suit s (is_top_unit; with 3 and 4 decks the shape has the lead's tuple size)."""
    if DECKS > PAIR_CARDS:
        return top_shape_pos(view, s, lead_size(view), max(view[V_META, M_LEAD_PAIRS], 1)) <= top
    return is_top_unit(view, s, top, view[V_META, M_LEAD_PAIRS])


@njit(cache=True, inline='always')
def _lowest_shape(view, e, m, k, above, need_top):
    """The lowest unit of k consecutive positions each with m copies of one card in my hand, suit
    e, topped above ``above`` (with ``need_top`` also highest left); its top position, or -1."""
    if need_top:
        above = max(above, top_shape_pos(view, e, m, k) - 1)
    run = 0
    last = NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        if view[V_HAND, c] < m:
            continue
        p = view[V_POS, c]
        if p == last:
            continue
        run = run + 1 if p == last + 1 else 1
        last = p
        if run >= k and p > above:
            return p
    return -1


@njit(cache=True, inline='always')
def put_shape(view, out, e, top, m, k):
    """Write into ``out`` m copies of one card at each of the k positions of suit e up to ``top``
    (at a position of several cards the one held least often that has m left, so larger groups
    stay whole); return the cards."""
    for q in range(top - k + 1, top + 1):
        best = -1
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            x = view[V_HAND, c] - out[c]
            if view[V_POS, c] == q and x >= m and (best < 0 or x < view[V_HAND, best] - out[best]):
                best = c
        out[best] += m
    return m * k


@njit(cache=True)
def winning_tuple_follow(view, out, best_key, need_top, held):
    """winning_follow_given with tuples: one unit of the lead's shape (m, L) that beats
    ``best_key``, the lowest (9.6: only that shape competes).  It is legal: it answers every tuple
    of the lead and is a tractor of its shape (9.3, 9.4)."""
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    m = lead_size(view)
    k = max(view[V_META, M_LEAD_PAIRS], 1)
    if held >= n:
        e = s
        above = best_key
    elif held == 0 and s != TRUMP:
        e = TRUMP
        above = best_key - RUFF
    else:
        return 0
    top = _lowest_shape(view, e, m, k, above, need_top)
    if top < 0:
        return 0
    return put_shape(view, out, e, top, m, k)


@njit(cache=True)
def random_tuple_lead(view, rng, out):
    """random_lead with tuples: uniformly one of my singles, tuples (each size 2..copies of each
    card) and tractors (each size m, each top and length of a run of positions holding m copies)."""
    tt = trump_table(view)
    hi = stack_array(MAX_POS)
    total = 0
    for e in range(EFF_SUITS):
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            total += view[V_HAND, view[V_SUITS + e, i]]
        npos = combos.max_group_by_position(view[V_HAND], tt, e, hi)
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
        npos = combos.max_group_by_position(view[V_HAND], tt, e, hi)
        for m in range(PAIR_CARDS, DECKS + 1):
            run = 0
            for p in range(npos):
                run = run + 1 if hi[p] >= m else 0
                if r < run - 1:
                    return put_shape(view, out, e, p, m, r + MIN_TRACTOR)
                r -= max(run - 1, 0)
    return 0
