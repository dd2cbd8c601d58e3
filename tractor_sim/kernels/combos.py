"""Combinations: decomposition into units, lead kinds, throws, following, winners.

A combination is a count vector over the 54 distinct cards.  Its
decomposition (docs/decisions.md) fills ``units`` (rows of UNIT_* fields) and
``ucards`` (the distinct cards of each unit, high to low; a pair or tractor
lists each of its cards once, meaning two copies).
"""

import numpy as np
from numba import njit

from tractor_sim.kernels.order import META_NCARDS, META_NPOS, TRUMP, TT_EFF, TT_POS, TT_SUIT, TT_META
from tractor_sim.rules import R_FOLLOW_TRACTOR, R_THROW_CHECK, R_THROW_FORCED, R_THROW_PENALTY

MAX_UNITS = 40
UNIT_PAIRS = 0  # 0 single, 1 pair, k >= 2 tractor of k pairs
UNIT_TOP = 1  # position of the highest card
UNIT_NCARDS = 2
KIND_SINGLE = 0
KIND_PAIR = 1
KIND_TRACTOR = 2
KIND_THROW = 3
NOT_A_LEAD = -1  # empty, or more than one effective suit
WIN_TRUMP = 1000  # added to a position when a trump beats a plain suit


@njit(cache=True)
def new_units():
    return np.zeros((MAX_UNITS, 3), dtype=np.int64), np.full((MAX_UNITS, 16), -1, dtype=np.int64)


@njit(cache=True)
def combo_suit(counts, tt):
    """The effective suit of a combination, -1 if empty, -2 if it spans suits."""
    s = -1
    for c in range(54):
        if counts[c] > 0:
            e = tt[TT_EFF, c]
            if s == -1:
                s = e
            elif s != e:
                return -2
    return s


@njit(cache=True)
def ncards(counts):
    n = 0
    for c in range(54):
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
    """How many pairs of effective suit ``s`` a hand holds (a card held k times: k // 2)."""
    n = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        n += counts[tt[TT_SUIT + s, i]] // 2
    return n


@njit(cache=True)
def pairs_by_position(counts, tt, s, out):
    """out[p] = pairs of suit s at position p; returns the number of positions."""
    npos = tt[TT_META, META_NPOS + s]
    for p in range(npos):
        out[p] = 0
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        out[tt[TT_POS, c]] += counts[c] // 2
    return npos


@njit(cache=True)
def _take_pair_at(counts, used, tt, s, p):
    """The lowest card id at position p of suit s with a pair not yet used."""
    for i in range(tt[TT_META, META_NCARDS + s]):
        c = tt[TT_SUIT + s, i]
        if tt[TT_POS, c] == p and counts[c] // 2 - used[c] > 0:
            used[c] += 1
            return c
    return -1


@njit(cache=True)
def decompose(counts, tt, units, ucards):
    """Split a one-suit combination into units; returns the number of units.

    Tractors first (longest, then highest), then pairs (high to low), then
    singles (high to low).  The caller makes sure the cards are of one suit.
    """
    s = combo_suit(counts, tt)
    if s < 0:
        return 0
    pa = np.zeros(17, dtype=np.int64)
    npos = pairs_by_position(counts, tt, s, pa)
    used = np.zeros(54, dtype=np.int64)
    nu = 0
    while True:
        best_len = 1
        best_top = -1
        run = 0
        for p in range(npos):
            run = run + 1 if pa[p] > 0 else 0
            if run >= 2 and run >= best_len:
                best_len = run
                best_top = p
        if best_top < 0:
            break
        units[nu, UNIT_PAIRS] = best_len
        units[nu, UNIT_TOP] = best_top
        units[nu, UNIT_NCARDS] = 2 * best_len
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
            units[nu, UNIT_NCARDS] = 2
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
            for _ in range(counts[c] - 2 * used[c]):
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


@njit(cache=True)
def total_pairs(units, nu):
    n = 0
    for i in range(nu):
        n += units[i, UNIT_PAIRS]
    return n


@njit(cache=True)
def unit_counts(units, ucards, i, out):
    """Write the cards of unit i into the count vector out (cleared first)."""
    for c in range(54):
        out[c] = 0
    k = units[i, UNIT_PAIRS]
    if k == 0:
        out[ucards[i, 0]] += 1
    else:
        for j in range(k):
            out[ucards[i, j]] += 2


@njit(cache=True)
def beats_unit(hand, tt, s, npairs, top, pa):
    """Whether ``hand`` holds, in suit s, a unit of ``npairs`` pairs higher than ``top``.

    ``pa`` is scratch of length >= 17.
    """
    if npairs == 0:
        for i in range(tt[TT_META, META_NCARDS + s]):
            c = tt[TT_SUIT + s, i]
            if hand[c] > 0 and tt[TT_POS, c] > top:
                return True
        return False
    npos = pairs_by_position(hand, tt, s, pa)
    run = 0
    for p in range(npos):
        run = run + 1 if pa[p] > 0 else 0
        if p > top and run >= npairs:
            return True
    return False


@njit(cache=True)
def check_throw(lead, hands, leader, declaring_team, tt, rules, units, ucards, nu, res):
    """Validate a throw against the other hands.

    res[0] = 1 if the throw stands, res[1] = blocked_by seat (-1), res[2] =
    index of the forced unit (-1), res[3] = change to the opponents' total.
    ``hands[seat]`` are the holdings of the other players (the leader's row is
    ignored).
    """
    res[0] = 1
    res[1] = -1
    res[2] = -1
    res[3] = 0
    if nu <= 1:
        return
    s = combo_suit(lead, tt)
    pa = np.zeros(17, dtype=np.int64)
    opponents_only = rules[R_THROW_CHECK] == 1
    mode = rules[R_THROW_FORCED]
    best = -1
    for i in range(nu):
        beatable = False
        for k in range(1, 4):
            seat = (leader + k) % 4
            if opponents_only and seat % 2 == leader % 2:
                continue
            if beats_unit(hands[seat], tt, s, units[i, UNIT_PAIRS], units[i, UNIT_TOP], pa):
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
    res[0] = 0
    res[2] = best
    for k in range(1, 4):
        seat = (leader + k) % 4
        if opponents_only and seat % 2 == leader % 2:
            continue
        if beats_unit(hands[seat], tt, s, units[best, UNIT_PAIRS], units[best, UNIT_TOP], pa):
            res[1] = seat
            break
    taken_back = ncards(lead) - units[best, UNIT_NCARDS]
    penalty = rules[R_THROW_PENALTY] * taken_back
    res[3] = penalty if leader % 2 == declaring_team else -penalty


@njit(cache=True)
def has_tractor(counts, tt, s, npairs):
    """Whether a hand holds a tractor of at least ``npairs`` pairs in suit s."""
    pa = np.zeros(17, dtype=np.int64)
    return beats_unit(counts, tt, s, npairs, -1, pa)


@njit(cache=True)
def legal_follow(hand, play, lead_suit, lead_n, lead_pairs, lead_max_tractor, tt, rules):
    """Whether ``play`` is a legal follow from ``hand`` (which includes it).

    The lead has ``lead_n`` cards of effective suit ``lead_suit`` with
    ``lead_pairs`` pairs; ``lead_max_tractor`` is its longest tractor (for the
    follow_tractor option).
    """
    n = 0
    for c in range(54):
        if play[c] < 0 or play[c] > hand[c]:
            return False
        n += play[c]
    return follow_ok(hand, play, n, lead_suit, lead_n, lead_pairs, lead_max_tractor, tt, rules)


@njit(cache=True)
def follow_ok(hand, play, n, lead_suit, lead_n, lead_pairs, lead_max_tractor, tt, rules):
    """legal_follow for a play already known to be ``n`` cards taken from ``hand``."""
    if n != lead_n:
        return False
    held = suit_count(hand, tt, lead_suit)
    played = suit_count(play, tt, lead_suit)
    if played < min(held, lead_n):
        return False
    need = min(lead_pairs, suit_pairs(hand, tt, lead_suit))
    if suit_pairs(play, tt, lead_suit) < need:
        return False
    if rules[R_FOLLOW_TRACTOR] != 0 and lead_max_tractor >= 2:
        k = lead_max_tractor
        if has_tractor(hand, tt, lead_suit, k) and not has_tractor(play, tt, lead_suit, k):
            return False
    return True


@njit(cache=True)
def play_key(play, lead_suit, lead_kind, lead_units, lead_nu, tt, units, ucards):
    """How strongly a play competes for the trick; -1 when it cannot win.

    Keys compare across plays of one trick: a higher key wins, ties go to the
    earlier play.  ``units``/``ucards`` are scratch.
    """
    if lead_kind == KIND_SINGLE or lead_kind == KIND_PAIR:
        # fast path: one card, or two copies of one card (and nothing else)
        want = 1 if lead_kind == KIND_SINGLE else 2
        key = -1
        for c in range(54):
            if play[c] != 0:
                if play[c] != want or key >= 0:
                    return -1
                e = tt[TT_EFF, c]
                if e == lead_suit:
                    key = tt[TT_POS, c]
                elif e == TRUMP:
                    key = WIN_TRUMP + tt[TT_POS, c]
                else:
                    return -1
        return key
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
        return bonus + units[0, UNIT_TOP]
    if nu != 1 or units[0, UNIT_PAIRS] != lead_units[0, UNIT_PAIRS]:
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
