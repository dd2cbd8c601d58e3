"""Declaring trumps during the draw: the strength a suit would give my hand, and what I may
declare now against the standing declaration, as kinds (2 decks) or as counts of copies (any size).
"""

from numba import njit

from ..kernels.declare import BJ, JOKER_PAIR, PAIR, RJ, SINGLE, declare_count_ok, declare_ok, kind_count, kind_of
from ..kernels.dims import CARDS, DECKS, RANKS, SUITS
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair (PAIR: a declaration kind in kernels.declare)
from ..kernels.view import (
    M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_NDECL, M_SEAT, M_TRUMP_RANK, V_DECL_COUNT, V_HAND, V_META,
    V_RULES,
)
from tractor_sim.rules.options import R_JOKER_OVERRIDE, R_PAIR_OVERRIDE, R_RANK_TRUMPS_NT, R_SELF_OVERRIDE


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
