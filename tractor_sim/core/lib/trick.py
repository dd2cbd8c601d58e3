"""The current trick: its lead's shape, who is winning it and with what key, whether my partner
holds it, its points, and the cheapest follow that takes it (``winning_follow``).

The follow strategies ask these before choosing between winning, feeding and ducking.
"""

from numba import njit

from ..kernels import combos
from ..kernels.combos import KIND_PAIR, KIND_SINGLE, KIND_THROW, KIND_TRACTOR
from ..kernels.dims import DECKS, FRIENDS, SEATS, TEAM_MODE, partner_of, seat_after, team_of
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair
from ..kernels.order import META_NCARDS, TRUMP
from ..kernels.view import (
    FV_IN_TEAM, M_LEADER, M_LEAD_KIND, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_LEAD_TUPLES, M_NPLAYED, M_SEAT,
    M_WINNING, M_WINNING_KEY, V_FRIENDS, V_HAND, V_META, V_POS, V_RULES, V_SUITS, V_TRICK, V_TTMETA,
)
from tractor_sim.rules.options import FOLLOW_SHAPE_FIRST, R_FOLLOW_TRACTOR
from .cards import NOT_ADJACENT, pair_card_at, points, suit_len, trump_table
from .counting import top_shape_pos

RUFF = combos.WIN_TRUMP  # added to a key when a trump beats a plain suit


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


@njit(cache=True, inline='always')
def tractors_asked(view):
    """Whether the rule follow_tractor asks me for tractors to the current lead: it is a tractor (or
    a throw, under follow_shape_first) and I hold more cards of its suit than it has (else I play
    them all)."""
    mode = view[V_RULES, R_FOLLOW_TRACTOR]
    kind = view[V_META, M_LEAD_KIND]
    if mode == 0 or not (kind == KIND_TRACTOR or (kind == KIND_THROW and mode == FOLLOW_SHAPE_FIRST)):
        return False
    return suit_len(view, view[V_META, M_LEAD_SUIT]) > view[V_META, M_LEAD_N]


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
def is_top_lead_unit(view, s, top):
    """Whether no unit of the current lead's shape (lead_size copies at each of max(M_LEAD_PAIRS,
    1) positions) that the others may hold beats mine topped at ``top`` in suit s."""
    return top_shape_pos(view, s, lead_size(view), max(view[V_META, M_LEAD_PAIRS], 1)) <= top


@njit(cache=True, inline='always')
def put_unit(view, out, e, top, k):
    """Write into ``out`` my unit of k pairs (0: single) of suit e topped at ``top``; return its size.

    Not put_shape at m = 2: at a position of two cards (the off-suit trump-rank ones) this takes the
    lowest id, put_shape the one held least often, so a 2-deck single would change."""
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
def _lowest_shape(view, e, m, k, above, need_top):
    """The lowest unit of k consecutive positions each with m copies of one card in my hand, suit
    e, topped above ``above`` (with ``need_top`` also highest left); its top position, or -1."""
    if need_top:
        above = max(above, top_shape_pos(view, e, m, k) - 1)
    if k == 1:  # from the top down to ``above``: few cards when the unit must be top
        best = -1
        for i in range(view[V_TTMETA, META_NCARDS + e] - 1, -1, -1):
            c = view[V_SUITS + e, i]
            p = view[V_POS, c]
            if p <= above:
                break
            if view[V_HAND, c] >= m:
                best = p
        return best
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
    """winning_follow when the caller already has ``held`` (as follow_need gives it).

    One unit of the lead's shape (m, L) that beats ``best_key``, the lowest: with 3 and 4 decks
    only that shape competes (9.6), and it is legal: it answers every tuple of the lead and is a
    tractor of its shape (9.3, 9.4)."""
    if view[V_META, M_LEAD_KIND] == KIND_THROW:
        return 0
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
    if DECKS > PAIR_CARDS:
        return put_shape(view, out, e, top, m, k)
    return put_unit(view, out, e, top, view[V_META, M_LEAD_PAIRS])
