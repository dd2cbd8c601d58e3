"""The rules of 3 and 4 decks (docs/rules.md section 9, decisions 9.2-9.7) on the unit table: decomposing into
tuples and tractors of tuples, the shape a follow must beat, the tuples a follow must answer and the
tractors follow_tractor asks for (``combos.follow_ok_tuples`` puts them together, beside follow_ok).

Reached only through ``if DECKS > PAIR:`` branches of ``combos`` (pruned from the 2-deck build,
which compiles to the pair code it always had).  A *group* is all the copies of one distinct card
in a set of cards; a unit's shape is (m, L) (UNIT_SIZE, UNIT_PAIRS): a single (1, 0 tuples), a
tuple (m, 1), a tractor (m, L).
"""

from numba import njit

from .dims import CARDS, DECKS, PAIR
from .order import MAX_POS, META_NCARDS, META_NPOS, TT_META, TT_POS, TT_SUIT
from .units import (
    MAX_UNITS, MAX_UNITS1, MIN_TRACTOR, TUPLE_SIZES, UNIT_CARDS, UNIT_FIELDS, UNIT_NCARDS, UNIT_PAIRS, UNIT_SIZE,
    UNIT_TOP, stack_filled,
)


@njit(cache=True)
def max_group_by_position(counts, tt, s, out):
    """out[p] = the largest group at position p of suit s (several distinct cards share the
    position of the off-suit trump-rank cards); returns the number of positions."""
    npos = tt[TT_META, META_NPOS + s]
    for p in range(npos):
        out[p] = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        p = tt[TT_POS, c]
        if counts[c] > out[p]:
            out[p] = counts[c]
    return npos


@njit(cache=True, inline='always')
def _fewest_at(left, tt, s, p, m):
    """The card at position p of suit s with the fewest copies left that still has m, then the
    lowest id (9.2: the card a tractor takes there); -1 if none."""
    best = -1
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if tt[TT_POS, c] == p and left[c] >= m and (best < 0 or left[c] < left[best]):
            best = c
    return best


@njit(cache=True, inline='always')
def _set_unit(units, ucards, nu, pairs, top, size, card):
    units[nu, UNIT_PAIRS] = pairs
    units[nu, UNIT_TOP] = top
    units[nu, UNIT_SIZE] = size
    units[nu, UNIT_NCARDS] = size * max(pairs, 1)
    ucards[nu, 0] = card


@njit(cache=True, inline='always')
def _tractor_first(units, ucards, a, b):
    """Whether tractor a comes before tractor b at equal (m, L, top): its cards, top down, are
    the lower ids (9.2's order, as the reference sorts them)."""
    for k in range(units[a, UNIT_PAIRS]):
        if ucards[a, k] != ucards[b, k]:
            return ucards[a, k] < ucards[b, k]
    return False


@njit(cache=True, inline='always')
def _swap_units(units, ucards, a, b):
    for f in range(UNIT_FIELDS):
        units[a, f], units[b, f] = units[b, f], units[a, f]
    for k in range(UNIT_CARDS):
        ucards[a, k], ucards[b, k] = ucards[b, k], ucards[a, k]


@njit(cache=True)
def decompose_tuples(counts, tt, s, units, ucards):
    """decompose with tuples (decision 9.2); returns the number of units.

    Greedy: repeatedly the run of at least MIN_TRACTOR consecutive positions each still holding m
    identical cards that is best by (largest m, longest, highest top), taking at each position the
    card with the fewest copies left that has m (then the lowest id); a tractor may take part of a
    group.  The tractors come out best first (taking cards never makes a better run); equal ones
    are ordered by their cards.  Then every group of 2 or more cards left is one tuple of its whole
    count (largest first, then highest), the rest singles (highest first); equal positions by id.
    """
    left = stack_filled(CARDS, 0)
    hi = stack_filled(MAX_POS, 0)
    nc = tt[TT_META, META_NCARDS + s]
    most = 0
    for i in range(nc):
        c = tt[TT_SUIT + s, i]
        left[c] = counts[c]
        most = max(most, counts[c])
    nu = 0
    while True:
        npos = max_group_by_position(left, tt, s, hi)
        best_m = 0
        best_len = 1
        best_top = -1
        for m in range(most, 1, -1):
            run = 0
            for p in range(npos):
                run = run + 1 if hi[p] >= m else 0
                if run >= MIN_TRACTOR and run >= best_len:
                    best_len = run
                    best_top = p
            if best_top >= 0:
                best_m = m
                break
        if best_top < 0:
            break
        for k in range(best_len):
            c = _fewest_at(left, tt, s, best_top - k, best_m)
            left[c] -= best_m
            ucards[nu, k] = c
        _set_unit(units, ucards, nu, best_len, best_top, best_m, ucards[nu, 0])
        j = nu  # equal (m, L, top): by the cards (insertion among the equal ones just before)
        while (j > 0 and units[j - 1, UNIT_SIZE] == best_m and units[j - 1, UNIT_PAIRS] == best_len
               and units[j - 1, UNIT_TOP] == best_top and _tractor_first(units, ucards, j, j - 1)):
            _swap_units(units, ucards, j, j - 1)
            j -= 1
        nu += 1
    for m in range(most, 0, -1):  # tuples of each size, then singles (m = 1)
        i = nc - 1
        while i >= 0:
            j = i
            while j > 0 and tt[TT_POS, tt[TT_SUIT + s, j - 1]] == tt[TT_POS, tt[TT_SUIT + s, i]]:
                j -= 1
            for g in range(j, i + 1):  # the cards of one position, by ascending id
                c = tt[TT_SUIT + s, g]
                if left[c] == m:
                    _set_unit(units, ucards, nu, 1 if m > 1 else 0, tt[TT_POS, c], m, c)
                    nu += 1
            i = j - 1
    return nu


@njit(cache=True)
def beats_shape(hand, tt, s, m, length, top, hi):
    """Whether ``hand`` holds, in suit s, a part of shape (m, length) higher than ``top`` (9.5):
    max(length, 1) consecutive positions, the top one above ``top``, each with a group of at least
    m cards (a single: m = 1).  ``hi`` is scratch of length >= MAX_POS."""
    npos = max_group_by_position(hand, tt, s, hi)
    need = max(length, 1)
    run = 0
    for p in range(npos):
        run = run + 1 if hi[p] >= m else 0
        if p > top and run >= need:
            return True
    return False


@njit(cache=True)
def lead_requirement(units, nu, req):
    """req[m] = R_m, the tuples of m cards in a lead (a tractor counts its L tuples; 9.3), for m in
    0..DECKS; returns the largest m with R_m > 0 (0 when the lead holds no tuple)."""
    for m in range(TUPLE_SIZES):
        req[m] = 0
    top = 0
    for i in range(nu):
        if units[i, UNIT_PAIRS] > 0:
            req[units[i, UNIT_SIZE]] += units[i, UNIT_PAIRS]
            top = max(top, units[i, UNIT_SIZE])
    return top


@njit(cache=True)
def matched_tuples(counts, tt, s, req, top, out):
    """The tuples the cards of suit s answer, out[m] for m = top .. PAIR (decision 9.3).

    One group, one tuple: a group of c cards answers one required tuple of any size m <= c.  From
    the largest size down: need = R_m + carry; matched = min(need, groups of at least m cards not
    matched at a larger size); carry = need - matched (an unmatched tuple asks for one a size
    smaller).  Returns the tuples matched in all.
    """
    ge = stack_filled(TUPLE_SIZES, 0)  # ge[c]: groups of exactly c cards, then of at least c
    for i in range(tt[TT_META, META_NCARDS + s]):
        ge[counts[tt[TT_SUIT + s, i]]] += 1
    for c in range(DECKS - 1, 0, -1):
        ge[c] += ge[c + 1]
    used = 0
    carry = 0
    for m in range(top, 1, -1):
        need = req[m] + carry
        matched = min(need, ge[m] - used)
        out[m] = matched
        used += matched
        carry = need - matched
    return used


@njit(cache=True)
def follow_cap(hand, s, lead_units, lead_nu, tt):
    """9.3 read backwards: ``m - 1`` for the smallest size m at which the groups of ``hand`` in suit s fell
    short of the lead's required tuples (matched_m < need_m), else 0.  Then every group of m or more
    cards was matched at size m or above, and a legal play answers as many as the hand: each card held
    m or more times is in the play m or more times, so a card not played is held at most m - 1 times."""
    req = stack_filled(TUPLE_SIZES, 0)
    top = lead_requirement(lead_units, lead_nu, req)
    if top == 0:
        return 0
    matched = stack_filled(TUPLE_SIZES, 0)
    matched_tuples(hand, tt, s, req, top, matched)
    most = 0
    carry = 0
    for m in range(top, 1, -1):
        need = req[m] + carry
        if matched[m] < need:
            most = m - 1
        carry = need - matched[m]
    return most


@njit(cache=True)
def tuples_followed(hand, play, s, lead_units, lead_nu, tt):
    """9.3's tuple rule: the play's cards of suit s answer as many tuples at every size as the
    hand's (matched_m(play) = matched_m(hand))."""
    req = stack_filled(TUPLE_SIZES, 0)
    top = lead_requirement(lead_units, lead_nu, req)
    if top == 0:
        return True
    of_hand = stack_filled(TUPLE_SIZES, 0)
    of_play = stack_filled(TUPLE_SIZES, 0)
    matched_tuples(hand, tt, s, req, top, of_hand)
    matched_tuples(play, tt, s, req, top, of_play)
    for m in range(PAIR, top + 1):
        if of_play[m] < of_hand[m]:
            return False
    return True


@njit(cache=True)
def lead_tractor_shapes(units, nu, ms, ks):
    """Write the tractor shapes (m in ``ms``, L in ``ks``) of a decomposition, in its order;
    return how many."""
    nk = 0
    for i in range(nu):
        if units[i, UNIT_PAIRS] >= MIN_TRACTOR:
            ms[nk] = units[i, UNIT_SIZE]
            ks[nk] = units[i, UNIT_PAIRS]
            nk += 1
    return nk


@njit(cache=True)
def tuple_tractors_followed(hand, play, s, lead_units, lead_nu, tt):
    """9.4's follow_tractor with tuples: the play's cards of suit s cover with the lead's tractor
    shapes as many cards as the hand's (tuple_tractor_cover)."""
    ms = stack_filled(MAX_UNITS, 0)
    ks = stack_filled(MAX_UNITS, 0)
    nk = lead_tractor_shapes(lead_units, lead_nu, ms, ks)
    if nk == 0:
        return True
    place = stack_filled(MAX_UNITS, 0)
    want = tuple_tractor_cover(hand, tt, s, ms, ks, nk, place)
    return want == 0 or tuple_tractor_cover(play, tt, s, ms, ks, nk, place) >= want


@njit(cache=True, inline='always')
def best_fit_at(avail, tt, s, p, m):
    """The unused group at position p of suit s that a tuple of m takes: the smallest with at least
    m cards, then the lowest id (-1 if none).  Taking the smallest loses nothing: any placement
    that uses a larger group there can swap the two."""
    best = -1
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if tt[TT_POS, c] == p and avail[c] >= m and (best < 0 or avail[c] < avail[best]):
            best = c
    return best


@njit(cache=True, inline='always')
def _fits_shape(avail, tt, s, top, k, m):
    if top - k + 1 < 0:
        return False
    for q in range(top - k + 1, top + 1):
        if best_fit_at(avail, tt, s, q, m) < 0:
            return False
    return True


PICK_CELLS = MAX_UNITS * MAX_POS  # tuple_tractor_cover: the group each placed tractor took at each position


@njit(cache=True)
def tuple_tractor_cover(counts, tt, s, ms, ks, nk, place):
    """The most cards that disjoint tractors of the shapes (ms[i], ks[i]), i < nk (each used at most
    once), take from the cards of suit s of ``counts`` (decision 9.4's T).

    A tractor (m, L) takes m cards of one group holding at least m at each of L consecutive
    positions; a group serves one tractor at most.  ``place[i]`` gets the top of tractor i in the
    first best placement found (tops lowest first, then left out; -1 when left out), each tractor
    taking the best_fit_at group at each position, in the order i = 0, 1, ..: replaying that order
    gives the same groups.  tractor_cover's depth-first search with a bound.
    """
    avail = stack_filled(CARDS, 0)
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        avail[c] = counts[c]
    npos = tt[TT_META, META_NPOS + s]
    pick = stack_filled(PICK_CELLS, -1)
    rest = stack_filled(MAX_UNITS1, 0)  # rest[i]: cards of tractors i.. together
    for i in range(nk - 1, -1, -1):
        rest[i] = rest[i + 1] + ms[i] * ks[i]
    top = stack_filled(MAX_UNITS1, -1)
    opt = stack_filled(MAX_UNITS1, -1)
    for i in range(nk):
        place[i] = -1
    best = 0
    covered = 0
    i = 0
    while i >= 0:
        if i == nk or covered + rest[i] <= best:
            if covered > best:
                best = covered
                for j in range(nk):
                    place[j] = top[j]
                if best == rest[0]:
                    break
            i -= 1
        else:
            k = ks[i]
            m = ms[i]
            o = opt[i] + 1
            while o < npos and not _fits_shape(avail, tt, s, o, k, m):
                o += 1
            if o <= npos:
                opt[i] = o
                if o < npos:
                    for q in range(o - k + 1, o + 1):
                        c = best_fit_at(avail, tt, s, q, m)
                        pick[i * MAX_POS + o - q] = c
                        avail[c] = 0
                    top[i] = o
                    covered += m * k
                i += 1
                opt[i] = -1
                continue
            i -= 1
        if i >= 0 and top[i] >= 0:  # back to tractor i: take it out again
            for q in range(top[i] - ks[i] + 1, top[i] + 1):
                c = pick[i * MAX_POS + top[i] - q]
                avail[c] = counts[c]
            covered -= ms[i] * ks[i]
            top[i] = -1
    return best
