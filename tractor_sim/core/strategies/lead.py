"""Lead strategies: what to play when I start a trick.

Answer: ``out`` = counts of one or more cards of one effective suit, return
their number.  A throw (several units) that the others can beat fails and
costs points, so a throw is led only when counting cards proves it safe.
*Top* means highest left: no card the others may still hold beats it
(``strategy_lib.is_top_unit``).
"""

from numba import njit

from .. import lib as sl
from ..kernels.combos import MIN_TRACTOR
from ..kernels.order import META_NCARDS, TRUMP
from ..kernels.dims import EFF_SUITS, PAIR, SEATS, SUITS, partner_of, seat_after
from ..kernels.view import M_MY_PAIRS, M_SEAT, V_HAND, V_META, V_POS, V_SUITS, V_TTMETA
from ..registry import MAX_CARDS, MAX_POINTS, SWITCH, slots, strategy  # noqa: F401 - the ranges

MIN_UNITS_THROW = 2  # a throw is two units or more


@njit(cache=True, inline='always')
def top_unit(view, e):
    """My best top unit in suit e as (pairs, top position); (-1, -1) when none.

    My longest tractor (the highest of equal length) if it is top, else my
    highest pair if top, else my highest card if top.  The others' top
    positions are looked up only when needed: this runs for every suit at
    every lead.  With fewer than two pairs (no tractor) the suit is searched
    from the top down, and only as far as my highest card and pair.
    """
    npairs = view[V_META, M_MY_PAIRS + e]
    if sl.suit_len(view, e) == 0:
        return -1, -1
    if npairs < MIN_TRACTOR:
        hi_card, hi_pair = _highest_card_and_pair(view, e, npairs)
        best_k, best_top = 1, hi_pair  # no tractor
    else:
        hi_card, hi_pair, best_k, best_top = _pairs_and_runs(view, e)
    if hi_pair >= 0:
        tp = sl.top_pair_pos(view, e)
        if best_k >= MIN_TRACTOR and (best_top >= tp or sl.top_tractor_pos(view, e, best_k) <= best_top):
            return best_k, best_top
        if hi_pair >= tp:
            return 1, hi_pair
    if hi_card >= sl.top_single_pos(view, e):
        return 0, hi_card
    return -1, -1


@njit(cache=True, inline='always')
def _highest_card_and_pair(view, e, npairs):
    """(position of my highest card, of my highest pair or -1) in suit e, where I hold ``npairs``
    pairs: from the top down, stopping as soon as both are known."""
    hi_card = -1
    for i in range(view[V_TTMETA, META_NCARDS + e] - 1, -1, -1):
        c = view[V_SUITS + e, i]
        m = view[V_HAND, c]
        if m == 0:
            continue
        if hi_card < 0:
            hi_card = view[V_POS, c]
        if m == PAIR:
            return hi_card, view[V_POS, c]
        if npairs == 0:
            break
    return hi_card, -1


@njit(cache=True, inline='always')
def _pairs_and_runs(view, e):
    """(my highest card, my highest pair, my longest run of pairs, the top of the highest such
    run) in suit e, as positions (-1 when none); one pass from the bottom up."""
    hi_card = -1
    hi_pair = -1
    best_k = 0
    best_top = -1
    run = 0
    last = sl.NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        m = view[V_HAND, c]
        if m == 0:
            continue
        p = view[V_POS, c]
        hi_card = p
        if m < PAIR or p == last:
            continue
        hi_pair = p
        run = run + 1 if p == last + 1 else 1
        last = p
        if run >= best_k:
            best_k = run
            best_top = p
    return hi_card, hi_pair, best_k, best_top


@njit(cache=True, inline='always')
def _largest_possible(view, e):
    """An upper bound of top_unit(view, e)'s pairs: -1 without cards, 0 without pairs, 1 with one."""
    if sl.suit_len(view, e) == 0:
        return -1
    npairs = view[V_META, M_MY_PAIRS + e]
    return npairs if npairs < MIN_TRACTOR else 1 << 20


@njit(cache=True, inline='always')
def _opponent_void(view, scratch, e):
    me = view[V_META, M_SEAT]
    return sl.shown_void(scratch, seat_after(me, 1), e) or sl.shown_void(scratch, seat_after(me, SEATS - 1), e)


@njit(cache=True, inline='always')
def lead_top(view, out, scratch, careful):
    """Lead my biggest top unit of a plain suit (``careful``: one where no opponent has shown a
    void, so it cannot be ruffed), else of trumps; returns the size, 0 when there is none."""
    best_e = -1
    best_k = -1
    best_top = -1
    # the plain suits, then TRUMP when none has a top unit: one call of top_unit (numba inlines its
    # whole code at every call)
    for e in range(EFF_SUITS):
        if e == TRUMP:
            if best_e >= 0:
                break
        elif _largest_possible(view, e) <= best_k or (careful and _opponent_void(view, scratch, e)):
            continue
        k, top = top_unit(view, e)
        if k > best_k:
            best_e, best_k, best_top = e, k, top
    if best_e < 0:
        return 0
    return sl.put_unit(view, out, best_e, best_top, best_k)


@njit(cache=True, inline='always')
def lead_low(view, out):
    """Lead one cheap card, from a short plain suit (toward a void), keeping pairs; trumps last.

    The card minimizing card_cost (+ PAIR_BREAK for splitting a pair) plus 6
    per card of its suit.
    """
    best = -1
    best_cost = 1 << 50
    for e in range(EFF_SUITS):  # the plain suits, then TRUMP
        if e == TRUMP and best >= 0:
            break
        if sl.suit_len(view, e) == 0:
            continue
        n = 0
        low = -1
        low_cost = 1 << 50
        for i in range(view[V_TTMETA, META_NCARDS + e]):
            c = view[V_SUITS + e, i]
            m = view[V_HAND, c]
            if m == 0:
                continue
            n += m
            cost = sl.COST_PER_POS * view[V_POS, c] + sl.POINTS[c] + (sl.PAIR_BREAK if m == PAIR else 0)
            if cost < low_cost:
                low_cost = cost
                low = c
        if low >= 0 and low_cost + 6 * n < best_cost:
            best_cost = low_cost + 6 * n
            best = low
    out[best] = 1
    return 1


@njit(cache=True)
def _safe_take(view, c, ts, tp):
    """How many copies of c belong to the safe throw: top as singles, or a pair that is top."""
    m = view[V_HAND, c]
    p = view[V_POS, c]
    if m > 0 and p >= ts:
        return m
    if m == PAIR and p >= tp:
        return PAIR
    return 0


@njit(cache=True)
def safe_size(view, e):
    """(cards, units) of the largest throw of suit e that no one can beat.

    Its units are my cards that are top as singles and my pairs that are top
    as pairs; pairs above every pair the others may hold also make tractors
    no tractor of theirs can beat.
    """
    ts = sl.top_single_pos(view, e)
    tp = sl.top_pair_pos(view, e)
    n = 0
    units = 0
    last = sl.NOT_ADJACENT
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        t = _safe_take(view, c, ts, tp)
        if t == 0:
            continue
        n += t
        if t == 1:
            units += 1
        else:
            p = view[V_POS, c]
            if p != last + 1:
                units += 1
            last = p
    return n, units


@njit(cache=True)
def lead_safe_throw(view, out, scratch, careful):
    """Lead the biggest safe throw (two units or more), plain suits first on ties; 0 if none."""
    best_e = -1
    best_n = 1
    for e in range(EFF_SUITS):  # the plain suits, then TRUMP
        if e != TRUMP and careful and _opponent_void(view, scratch, e):
            continue
        n, units = safe_size(view, e)
        if units >= MIN_UNITS_THROW and n > best_n:
            best_e = e
            best_n = n
    if best_e < 0:
        return 0
    ts = sl.top_single_pos(view, best_e)
    tp = sl.top_pair_pos(view, best_e)
    for i in range(view[V_TTMETA, META_NCARDS + best_e]):
        c = view[V_SUITS + best_e, i]
        out[c] = _safe_take(view, c, ts, tp)
    return best_n


@njit(cache=True)
def lead_trumps(view, out, min_trumps):
    """While I hold at least ``min_trumps`` trumps and the others still may hold some, lead a
    top trump unit, else my cheapest trump; 0 otherwise."""
    n = sl.suit_len(view, TRUMP)
    if n == 0 or n < min_trumps or sl.top_single_pos(view, TRUMP) < 0:  # no trump to lead, even at min_trumps 0
        return 0
    k, top = top_unit(view, TRUMP)
    if k >= 0:
        return sl.put_unit(view, out, TRUMP, top, k)
    c, _cost = sl.cheapest_card(view, out, TRUMP, False)
    out[c] = 1
    return 1


@njit(cache=True)
def lead_partner_void(view, out, scratch):
    """Lead the richest card of a plain suit my partner has shown void in and the opponents have
    not: they must follow, he ruffs and takes the points.  0 when there is no such suit."""
    me = view[V_META, M_SEAT]
    partner = partner_of(me)
    if sl.shown_void(scratch, partner, TRUMP):
        return 0
    best = -1
    best_cost = 1 << 50
    for e in range(SUITS):
        if not sl.shown_void(scratch, partner, e) or _opponent_void(view, scratch, e):
            continue
        c, cost = sl.cheapest_card(view, out, e, True)
        if c >= 0 and cost < best_cost:
            best = c
            best_cost = cost
    if best < 0:
        return 0
    out[best] = 1
    return 1


@njit(cache=True)
def _pair_unit(view, e):
    """(pairs, top) of my longest tractor in suit e (the highest on ties), else my highest pair."""
    n = view[V_TTMETA, META_NCARDS + e]
    best_k = -1
    best_top = -1
    run = 0
    last = sl.NOT_ADJACENT
    for i in range(n):
        c = view[V_SUITS + e, i]
        if view[V_HAND, c] < PAIR:
            continue
        p = view[V_POS, c]
        if p == last:
            continue
        run = run + 1 if p == last + 1 else 1
        last = p
        if run >= best_k:
            best_k = run
            best_top = p
    return best_k, best_top


@strategy("lead", "random")
def random(view, params, rng, scratch, out):
    """A uniformly random single, pair or tractor from the hand (never a throw).

    The baseline: it plays by the rules and nothing else.
    """
    return sl.random_lead(view, rng, out)


@strategy("lead", "top_cards")
def top_cards(view, params, rng, scratch, out):
    """Lead winners: aces and cards that became top, as tractors, pairs or singles.

    Idea: a top unit takes the trick for sure (unless ruffed) and keeps the
    lead; bigger units first, plain suits before trumps.  With no winner, a
    cheap card from a short plain suit, working toward a void.
    """
    n = lead_top(view, out, scratch, False)
    return n if n > 0 else lead_low(view, out)


@njit(cache=True)
def lead_pairs(view, out):
    """Lead my longest tractor, else my highest pair, plain suits before trumps; 0 if none."""
    best_e = -1
    best_k = 0
    best_top = -1
    for e in range(SUITS):
        k, top = _pair_unit(view, e)
        if k > best_k:
            best_e, best_k, best_top = e, k, top
    if best_e < 0:
        k, top = _pair_unit(view, TRUMP)
        if k > 0:
            best_e, best_k, best_top = TRUMP, k, top
    if best_e < 0:
        return 0
    return sl.put_unit(view, out, best_e, best_top, best_k)


@strategy("lead", "pairs_first")
def pairs_first(view, params, rng, scratch, out):
    """Lead tractors and pairs first: the longest tractor, else the highest pair.

    Idea: only a pair beats a pair, so a pair lead often wins even when not
    top and forces the others to spend their pairs.  Plain suits before
    trumps; without pairs, as top_cards.
    """
    n = lead_pairs(view, out)
    if n == 0:
        n = lead_top(view, out, scratch, False)
    return n if n > 0 else lead_low(view, out)


@strategy("lead", "safe_throw")
def safe_throw(view, params, rng, scratch, out):
    """Throw every top card and top pair of a suit at once, when counting cards proves it safe.

    Idea: a throw whose every unit is unbeatable by the cards the others may
    still hold cannot fail, and takes many cards in one trick.  Else as
    top_cards.
    """
    n = lead_safe_throw(view, out, scratch, False)
    if n > 0:
        return n
    n = lead_top(view, out, scratch, False)
    return n if n > 0 else lead_low(view, out)


PULL_TRUMPS_PARAMS = {"min_trumps": 8.0}
PULL_TRUMPS = slots(PULL_TRUMPS_PARAMS)


@strategy("lead", "pull_trumps", params=PULL_TRUMPS_PARAMS, ranges={"min_trumps": (0.0, MAX_CARDS)})
def pull_trumps(view, params, rng, scratch, out):
    """Lead trumps while I hold at least ``min_trumps`` and the others may still hold any.

    Idea: drawing the opponents' trumps early makes my plain winners safe from
    ruffs later.  Top trump units first, else my cheapest trump; when done,
    as top_cards.
    """
    n = lead_trumps(view, out, params[PULL_TRUMPS.min_trumps])
    if n > 0:
        return n
    n = lead_top(view, out, scratch, False)
    return n if n > 0 else lead_low(view, out)


@strategy("lead", "partner_void")
def partner_void(view, params, rng, scratch, out):
    """Lead a suit in which my partner has shown a void and the opponents have not.

    Idea: the opponents must follow it and my partner ruffs, so lead the
    richest card of it.  Voids come from the tracker in scratch
    (strategy_lib.track_voids), which sees most when the follow strategy
    calls it too.  Otherwise as top_cards.
    """
    sl.track_voids(view, scratch)
    n = lead_partner_void(view, out, scratch)
    if n > 0:
        return n
    n = lead_top(view, out, scratch, False)
    return n if n > 0 else lead_low(view, out)


EXPERT_PARAMS = {"min_trumps": 8.0, "careful": 0.0, "feed_void": 1.0, "pairs": 1.0}
EXPERT = slots(EXPERT_PARAMS)


@strategy("lead", "expert", params=EXPERT_PARAMS,
          ranges={"min_trumps": (0.0, MAX_CARDS), "careful": SWITCH, "feed_void": SWITCH, "pairs": SWITCH})
def expert(view, params, rng, scratch, out):
    """safe_throw, top_cards, partner_void, pairs_first and pull_trumps in that order.

    Idea: cash what is safe first (a safe throw, then top units; with
    ``careful`` only in plain suits no opponent has shown void in); then (with
    ``feed_void``) feed my partner's void; then (with ``pairs``) a tractor or
    pair, which only a higher one beats; then draw trumps when long in them
    (``min_trumps``); else a cheap card.
    """
    return expert_lead(view, out, scratch, params[EXPERT.min_trumps], params[EXPERT.careful] > 0,
                       params[EXPERT.feed_void] > 0, params[EXPERT.pairs] > 0)


@njit(cache=True, inline='always')
def expert_lead(view, out, scratch, min_trumps, careful, feed_void, pairs):
    """The expert lead's answer (``expert``), for the strategies that start from it (learned)."""
    sl.track_voids(view, scratch)
    n = lead_safe_throw(view, out, scratch, careful)
    if n == 0:
        n = lead_top(view, out, scratch, careful)
    if n == 0 and feed_void:
        n = lead_partner_void(view, out, scratch)
    if n == 0 and pairs:
        n = lead_pairs(view, out)
    if n == 0:
        n = lead_trumps(view, out, min_trumps)
    if n == 0:
        n = lead_low(view, out)
    return n
