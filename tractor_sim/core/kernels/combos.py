"""Combinations: decomposition into units, lead kinds, throws, following, winners.

A combination is a count vector over the 54 distinct cards.  Its
decomposition (docs/decisions.md) fills ``units`` (rows of UNIT_* fields) and
``ucards`` (the distinct cards of each unit, high to low; a tuple or tractor
lists each of its cards once, meaning UNIT_SIZE copies).

With 3 and 4 decks (docs/rules.md section 9) a unit is a single, a tuple of m
identical cards (pair, triple, quadruple) or a tractor of tuples of one size;
its shape is (UNIT_SIZE, UNIT_PAIRS) = (m, L).  The rules of decisions 9.2-9.7
live in ``tuples``, reached only through branches on ``DECKS > PAIR`` here:
numba prunes them from the 2-deck build, which compiles to the pair code it
always had.  The unit table's columns and sizes are ``units``' (re-exported).
"""

from numba import njit

from .order import MAX_POS, META_NCARDS, META_NPOS, TRUMP, TT_EFF, TT_POS, TT_SUIT, TT_META
from .dims import CARDS, DECKS, PAIR, SEATS, declaring_side, same_side, seat_after
from .tuples import beats_shape, decompose_tuples, tuple_tractors_followed, tuples_followed
from .units import (  # noqa: F401  (the unit table, known to this module's users as combos.X)
    MAX_UNITS, MAX_UNITS1, MIN_TRACTOR, TUPLE_SIZES, UNIT_CARDS, UNIT_FIELDS, UNIT_NCARDS, UNIT_PAIRS, UNIT_SIZE,
    UNIT_TOP, new_units, stack_filled, stack_units,
)
from tractor_sim.rules.options import FOLLOW_SHAPE_FIRST, R_FOLLOW_TRACTOR, R_THROW_CHECK, R_THROW_FORCED, R_THROW_PENALTY

KIND_SINGLE = 0
KIND_PAIR = 1
KIND_TRACTOR = 2
KIND_THROW = 3
NOT_A_LEAD = -1  # empty, or more than one effective suit
MIXED_SUITS = -2  # combo_suit of cards of more than one effective suit
# check_throw's answer: res[RES_STANDS] 1 if the throw stands, res[RES_BLOCKED_BY] the seat that
# blocks it (-1), res[RES_FORCED] the index of the forced unit (-1), res[RES_PENALTY] the change to
# the opponents' total.
RES_STANDS = 0
RES_BLOCKED_BY = 1
RES_FORCED = 2
RES_PENALTY = 3
THROW_FIELDS = RES_PENALTY + 1  # the cells of check_throw's answer
WIN_TRUMP = 1000  # added to a position when a trump beats a plain suit


@njit(cache=True)
def combo_suit(counts, tt):
    """The effective suit of a combination, -1 if empty, MIXED_SUITS (-2) if it spans suits."""
    s = -1
    for c in range(CARDS):
        if counts[c] > 0:
            e = tt[TT_EFF, c]
            if s == -1:
                s = e
            elif s != e:
                return MIXED_SUITS
    return s


@njit(cache=True)
def ncards(counts):
    n = 0
    for c in range(CARDS):
        n += counts[c]
    return n


@njit(cache=True)
def suit_count(counts, tt, s):
    """How many cards of effective suit ``s`` a hand holds."""
    n = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        n += counts[tt[TT_SUIT + s, i]]
    return n


@njit(cache=True)
def suit_pairs(counts, tt, s):
    """How many pairs of effective suit ``s`` a hand holds (a card held k times: k // PAIR)."""
    n = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        n += counts[tt[TT_SUIT + s, i]] // PAIR
    return n


@njit(cache=True)
def pairs_by_position(counts, tt, s, out):
    """out[p] = pairs of suit s at position p; returns the number of positions."""
    npos = tt[TT_META, META_NPOS + s]
    for p in range(npos):
        out[p] = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        out[tt[TT_POS, c]] += counts[c] // PAIR
    return npos


@njit(cache=True)
def _take_pair_at(counts, used, tt, s, p):
    """The lowest card id at position p of suit s with a pair not yet used."""
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if tt[TT_POS, c] == p and counts[c] // PAIR - used[c] > 0:
            used[c] += 1
            return c
    return -1


@njit(cache=True)
def decompose(counts, tt, units, ucards):
    """Split a one-suit combination into units; returns the number of units.

    Tractors first (longest, then highest), then pairs (high to low), then
    singles (high to low).  The caller makes sure the cards are of one suit.
    With 3 and 4 decks: decompose_tuples (decision 9.2).
    """
    s = combo_suit(counts, tt)
    if s < 0:
        return 0
    if DECKS > PAIR:
        return decompose_tuples(counts, tt, s, units, ucards)
    pa = stack_filled(MAX_POS, 0)
    npos = pairs_by_position(counts, tt, s, pa)
    used = stack_filled(CARDS, 0)
    nu = 0
    while True:
        best_len = 1
        best_top = -1
        run = 0
        for p in range(npos):
            run = run + 1 if pa[p] > 0 else 0
            if run >= MIN_TRACTOR and run >= best_len:
                best_len = run
                best_top = p
        if best_top < 0:
            break
        units[nu, UNIT_PAIRS] = best_len
        units[nu, UNIT_TOP] = best_top
        units[nu, UNIT_NCARDS] = PAIR * best_len
        for k in range(best_len):
            p = best_top - k
            pa[p] -= 1
            ucards[nu, k] = _take_pair_at(counts, used, tt, s, p)
        nu += 1
    for p in range(npos - 1, -1, -1):
        while pa[p] > 0:
            pa[p] -= 1
            units[nu, UNIT_PAIRS] = 1
            units[nu, UNIT_TOP] = p
            units[nu, UNIT_NCARDS] = PAIR
            ucards[nu, 0] = _take_pair_at(counts, used, tt, s, p)
            nu += 1
    # singles: positions high to low, equal cards by ascending id
    i = tt[TT_META, META_NCARDS + s] - 1
    while i >= 0:
        j = i
        while j > 0 and tt[TT_POS, tt[TT_SUIT + s, j - 1]] == tt[TT_POS, tt[TT_SUIT + s, i]]:
            j -= 1
        for g in range(j, i + 1):
            c = tt[TT_SUIT + s, g]
            for _ in range(counts[c] - PAIR * used[c]):
                units[nu, UNIT_PAIRS] = 0
                units[nu, UNIT_TOP] = tt[TT_POS, c]
                units[nu, UNIT_NCARDS] = 1
                ucards[nu, 0] = c
                nu += 1
        i = j - 1
    return nu


@njit(cache=True)
def kind_of(units, nu):
    """The lead kind of a decomposition with nu units."""
    if nu == 0:
        return NOT_A_LEAD
    if nu > 1:
        return KIND_THROW
    if units[0, UNIT_PAIRS] == 0:
        return KIND_SINGLE
    if units[0, UNIT_PAIRS] == 1:
        return KIND_PAIR
    return KIND_TRACTOR


@njit(cache=True, inline='always')
def unit_size(units, i):
    """Copies of the card at each position of unit i: 1 for a single; with 2 decks PAIR for the
    rest (the UNIT_SIZE column exists with 3 and 4 decks only)."""
    if DECKS > PAIR:
        return units[i, UNIT_SIZE]
    return PAIR if units[i, UNIT_PAIRS] > 0 else 1


@njit(cache=True)
def total_pairs(units, nu):
    n = 0
    for i in range(nu):
        n += units[i, UNIT_PAIRS]
    return n


@njit(cache=True)
def unit_counts(units, ucards, i, out):
    """Write the cards of unit i into the count vector out (cleared first)."""
    for c in range(CARDS):
        out[c] = 0
    k = units[i, UNIT_PAIRS]
    if k == 0:
        out[ucards[i, 0]] += 1
    else:
        m = units[i, UNIT_SIZE] if DECKS > PAIR else PAIR
        for j in range(k):
            out[ucards[i, j]] += m


@njit(cache=True, inline='always')
def pairs_run_above(pa, npos, top, npairs):
    """Whether ``npairs`` consecutive positions holding a pair (``pa[:npos]``, pairs by position) end above
    position ``top``: a unit of that many pairs that beats one topped at ``top``."""
    run = 0
    for p in range(npos):
        run = run + 1 if pa[p] > 0 else 0
        if p > top and run >= npairs:
            return True
    return False


@njit(cache=True)
def beats_unit(hand, tt, s, npairs, top, pa):
    """Whether ``hand`` holds, in suit s, a unit of ``npairs`` pairs higher than ``top``.

    ``pa`` is scratch of length >= MAX_POS.
    """
    if npairs == 0:
        for i in range(tt[TT_META, META_NCARDS + s]):
            c = tt[TT_SUIT + s, i]
            if hand[c] > 0 and tt[TT_POS, c] > top:
                return True
        return False
    return pairs_run_above(pa, pairs_by_position(hand, tt, s, pa), top, npairs)


@njit(cache=True, inline='always')
def _beats(hand, tt, s, units, i, pa):
    """Whether ``hand`` holds in suit s a higher part of unit i's shape (beats_unit; 9.5 with tuples)."""
    if DECKS > PAIR:
        return beats_shape(hand, tt, s, units[i, UNIT_SIZE], units[i, UNIT_PAIRS], units[i, UNIT_TOP], pa)
    return beats_unit(hand, tt, s, units[i, UNIT_PAIRS], units[i, UNIT_TOP], pa)


@njit(cache=True)
def check_throw(lead, hands, leader, declaring_team, tt, rules, units, ucards, nu, res):
    """Validate a throw against the other hands.

    res[RES_STANDS] = 1 if the throw stands, res[RES_BLOCKED_BY] = blocked_by seat
    (-1), res[RES_FORCED] = index of the forced unit (-1), res[RES_PENALTY] =
    change to the opponents' total.  ``hands[seat]`` are the holdings of the
    other players (the leader's row is ignored).  ``declaring_team``: the
    declaring team, or in Finding Friends the landlord's team now as a bit
    mask of seats (kernels.dims.same_side, decisions.md 9.5).
    """
    res[RES_STANDS] = 1
    res[RES_BLOCKED_BY] = -1
    res[RES_FORCED] = -1
    res[RES_PENALTY] = 0
    if nu <= 1:
        return
    s = combo_suit(lead, tt)
    pa = stack_filled(MAX_POS, 0)
    opponents_only = rules[R_THROW_CHECK] == 1
    mode = rules[R_THROW_FORCED]
    best = -1
    for i in range(nu):
        beatable = False
        for k in range(1, SEATS):
            seat = seat_after(leader, k)
            if opponents_only and same_side(seat, leader, declaring_team):
                continue
            if _beats(hands[seat], tt, s, units, i, pa):
                beatable = True
                break
        if not beatable:
            continue
        if best < 0:
            best = i
            continue
        n_i = units[i, UNIT_NCARDS]
        n_b = units[best, UNIT_NCARDS]
        t_i = units[i, UNIT_TOP]
        t_b = units[best, UNIT_TOP]
        if mode == 0:
            better = n_i < n_b or (n_i == n_b and t_i < t_b)
        elif mode == 1:
            better = t_i < t_b or (t_i == t_b and n_i < n_b)
        else:
            better = t_i > t_b or (t_i == t_b and n_i < n_b)
        if better:
            best = i
    if best < 0:
        return
    res[RES_STANDS] = 0
    res[RES_FORCED] = best
    for k in range(1, SEATS):
        seat = seat_after(leader, k)
        if opponents_only and same_side(seat, leader, declaring_team):
            continue
        if _beats(hands[seat], tt, s, units, best, pa):
            res[RES_BLOCKED_BY] = seat
            break
    taken_back = ncards(lead) - units[best, UNIT_NCARDS]
    penalty = rules[R_THROW_PENALTY] * taken_back
    res[RES_PENALTY] = penalty if declaring_side(leader, declaring_team) else -penalty


@njit(cache=True)
def legal_follow(hand, play, lead, tt, rules):
    """Whether ``play`` is a legal follow to the lead ``lead`` from ``hand`` (which includes it)."""
    n = 0
    for c in range(CARDS):
        if play[c] < 0 or play[c] > hand[c]:
            return False
        n += play[c]
    s = combo_suit(lead, tt)
    if s < 0:
        return False
    units, ucards = new_units()
    nu = decompose(lead, tt, units, ucards)
    return follow_ok(hand, play, n, s, ncards(lead), total_pairs(units, nu), kind_of(units, nu), units, nu, tt,
                     rules)


@njit(cache=True)
def follow_ok(hand, play, n, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt, rules):
    """legal_follow for a play already known to be ``n`` cards taken from ``hand``.

    The lead has ``lead_n`` cards of effective suit ``lead_suit``, ``lead_pairs``
    pairs, kind ``lead_kind`` and the decomposition ``lead_units[:lead_nu]``.
    With 3 and 4 decks: follow_ok_tuples (decisions 9.3, 9.4).
    """
    if DECKS > PAIR:
        return follow_ok_tuples(hand, play, n, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt,
                                rules)
    if n != lead_n:
        return False
    verdict = follow_counts_ok(n, suit_count(hand, tt, lead_suit), suit_count(play, tt, lead_suit),
                               suit_pairs(hand, tt, lead_suit), suit_pairs(play, tt, lead_suit), lead_n, lead_pairs,
                               lead_kind, rules)
    if verdict == FOLLOW_CHECK_TRACTORS:
        return tractors_followed(hand, play, lead_suit, lead_units, lead_nu, tt)
    return verdict == FOLLOW_LEGAL


@njit(cache=True)
def follow_ok_tuples(hand, play, n, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt, rules):
    """follow_ok with tuples: section 5's suit rule, 9.3's tuples, 9.4's follow_tractor."""
    if n != lead_n:
        return False
    held = suit_count(hand, tt, lead_suit)
    if suit_count(play, tt, lead_suit) < min(held, lead_n):
        return False
    if lead_pairs > 0 and not tuples_followed(hand, play, lead_suit, lead_units, lead_nu, tt):
        return False
    mode = rules[R_FOLLOW_TRACTOR]
    if mode != 0 and held > lead_n and (
            lead_kind == KIND_TRACTOR or (lead_kind == KIND_THROW and mode == FOLLOW_SHAPE_FIRST)):
        return tuple_tractors_followed(hand, play, lead_suit, lead_units, lead_nu, tt)
    return True


FOLLOW_ILLEGAL = 0
FOLLOW_LEGAL = 1
FOLLOW_CHECK_TRACTORS = 2  # legal by the counts; the rule follow_tractor must still be checked


@njit(cache=True, inline='always')
def follow_counts_ok(n, held, played, held_pairs, played_pairs, lead_n, lead_pairs, lead_kind, rules):
    """The follow rules on counts: a play of ``n`` cards, ``played`` of them (``played_pairs``
    pairs) in the led suit, from a hand holding ``held`` of it (``held_pairs`` pairs).

    Returns FOLLOW_ILLEGAL, FOLLOW_LEGAL, or FOLLOW_CHECK_TRACTORS when the
    variant follow_tractor applies (tractors_followed then decides).
    """
    if n != lead_n or played < min(held, lead_n) or played_pairs < min(lead_pairs, held_pairs):
        return FOLLOW_ILLEGAL
    mode = rules[R_FOLLOW_TRACTOR]
    if mode != 0 and held > lead_n and (
            lead_kind == KIND_TRACTOR or (lead_kind == KIND_THROW and mode == FOLLOW_SHAPE_FIRST)):
        return FOLLOW_CHECK_TRACTORS
    return FOLLOW_LEGAL


@njit(cache=True)
def lead_tractors(units, nu, ks):
    """Write the tractor lengths of a decomposition (longest first) into ``ks``; return how many."""
    nk = 0
    for i in range(nu):
        if units[i, UNIT_PAIRS] >= MIN_TRACTOR:
            ks[nk] = units[i, UNIT_PAIRS]
            nk += 1
    return nk


@njit(cache=True)
def tractors_followed(hand, play, s, lead_units, lead_nu, tt):
    """The follow_tractor obligation: the play's cards of suit s cover with the lead's tractors
    as many pairs as the hand's do (tractor_cover)."""
    ks = stack_filled(MAX_UNITS, 0)
    nk = lead_tractors(lead_units, lead_nu, ks)
    if nk == 0:
        return True
    place = stack_filled(MAX_UNITS, 0)
    want = tractor_cover(hand, tt, s, ks, nk, place)
    return want == 0 or tractor_cover(play, tt, s, ks, nk, place) >= want


@njit(cache=True)
def _fits(pa, top, k):
    if top - k + 1 < 0:
        return False
    for q in range(top - k + 1, top + 1):
        if pa[q] <= 0:
            return False
    return True


@njit(cache=True)
def tractor_cover(counts, tt, s, ks, nk, place):
    """The most pairs that disjoint tractors of the lengths ``ks[:nk]`` (each used at most
    once) cover in the cards of suit s of ``counts``.

    A tractor of k pairs takes one pair at each of k consecutive positions.
    ``place[i]`` gets the top position of tractor i in the first best placement
    found (tops tried lowest first, then leaving it out), -1 when left out.  An
    exhaustive depth-first search with a bound: a lead holds few tractors.
    """
    pa = stack_filled(MAX_POS, 0)
    npos = pairs_by_position(counts, tt, s, pa)
    rest = stack_filled(MAX_UNITS1, 0)  # rest[i]: pairs of tractors i.. together
    for i in range(nk - 1, -1, -1):
        rest[i] = rest[i + 1] + ks[i]
    top = stack_filled(MAX_UNITS1, -1)  # the current placement
    opt = stack_filled(MAX_UNITS1, -1)  # option last tried: a top 0..npos-1, npos = left out
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
            o = opt[i] + 1
            while o < npos and not _fits(pa, o, k):
                o += 1
            if o <= npos:
                opt[i] = o
                if o < npos:
                    for q in range(o - k + 1, o + 1):
                        pa[q] -= 1
                    top[i] = o
                    covered += k
                i += 1
                opt[i] = -1
                continue
            i -= 1
        if i >= 0 and top[i] >= 0:  # back to tractor i: take it out again
            for q in range(top[i] - ks[i] + 1, top[i] + 1):
                pa[q] += 1
            covered -= ks[i]
            top[i] = -1
    return best


@njit(cache=True, inline='always')
def card_key(c, lead_suit, tt):
    """The key of a single card, or of a unit whose top card is c, on a lead in ``lead_suit``: its
    position in the led suit, WIN_TRUMP above that for a trump on a plain lead, -1 for another suit.
    The one place that says how plays compare; play_key and the deal kernel use it."""
    e = tt[TT_EFF, c]
    if e == lead_suit:
        return tt[TT_POS, c]
    if e == TRUMP:
        return WIN_TRUMP + tt[TT_POS, c]
    return -1


@njit(cache=True, inline='always')
def simple_play_key(play, lead_suit, lead_kind, tt):
    """play_key on a lead of one card or one pair (KIND_SINGLE, KIND_PAIR): the play must be one
    card, or two copies of one card, and nothing else.  Needs no decomposition (play_key's fast path)."""
    return tuple_key(play, lead_suit, 1 if lead_kind == KIND_SINGLE else PAIR, tt)


@njit(cache=True, inline='always')
def tuple_key(play, lead_suit, want, tt):
    """play_key on a lead of one card or one tuple of ``want`` cards: the play must be ``want``
    copies of one card and nothing else (9.6; with two decks simple_play_key)."""
    key = -1
    for c in range(CARDS):
        if play[c] != 0:
            if play[c] != want or key >= 0:
                return -1
            key = card_key(c, lead_suit, tt)
            if key < 0:
                return -1
    return key


@njit(cache=True)
def play_key(play, lead_suit, lead_kind, lead_units, lead_nu, tt, units, ucards):
    """How strongly a play competes for the trick; -1 when it cannot win.

    Keys compare across plays of one trick: a higher key wins, ties go to the
    earlier play.  ``units``/``ucards`` are scratch.
    """
    if lead_kind == KIND_SINGLE or lead_kind == KIND_PAIR:
        if DECKS > PAIR:  # a single or a tuple of m: beaten by m copies of one card (9.6)
            return tuple_key(play, lead_suit, lead_units[0, UNIT_NCARDS], tt)
        return simple_play_key(play, lead_suit, lead_kind, tt)
    s = combo_suit(play, tt)
    if s < 0:
        return -1
    if s != lead_suit and s != TRUMP:
        return -1
    bonus = WIN_TRUMP if (s == TRUMP and lead_suit != TRUMP) else 0
    nu = decompose(play, tt, units, ucards)
    if lead_kind == KIND_THROW:
        if bonus == 0 or nu != lead_nu:
            return -1
        for i in range(nu):
            if units[i, UNIT_PAIRS] != lead_units[i, UNIT_PAIRS]:
                return -1
            if DECKS > PAIR and units[i, UNIT_SIZE] != lead_units[i, UNIT_SIZE]:
                return -1  # the same arrangement: the units' shapes (m, L) in the canonical order of 9.2
        return bonus + units[0, UNIT_TOP]
    if nu != 1 or units[0, UNIT_PAIRS] != lead_units[0, UNIT_PAIRS]:
        return -1
    if DECKS > PAIR and units[0, UNIT_SIZE] != lead_units[0, UNIT_SIZE]:
        return -1
    return bonus + units[0, UNIT_TOP]


@njit(cache=True)
def trick_winner(plays, nplays, tt):
    """Index (in playing order) of the play that wins; plays[0] is the lead."""
    units, ucards = new_units()
    lead_units, lead_ucards = new_units()
    lead_nu = decompose(plays[0], tt, lead_units, lead_ucards)
    lead_kind = kind_of(lead_units, lead_nu)
    lead_suit = combo_suit(plays[0], tt)
    best = 0
    best_key = 0 if lead_kind == KIND_THROW else lead_units[0, UNIT_TOP]
    for i in range(1, nplays):
        key = play_key(plays[i], lead_suit, lead_kind, lead_units, lead_nu, tt, units, ucards)
        if key > best_key:
            best_key = key
            best = i
    return best
