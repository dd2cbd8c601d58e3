"""Declaring the trump: which declarations are allowed, the kitty flip, and the auction."""

from numba import njit

from tractor_sim.kernels.order import TRUMP
from tractor_sim.kernels.size import BJ, CARDS, RANKS, RJ
from tractor_sim.kernels.size import PAIR as PAIR_CARDS  # cards in a pair (PAIR here: the declaration kind)
from tractor_sim.kernels.view import MAX_BID
from tractor_sim.rules import R_JOKER_OVERRIDE, R_PAIR_OVERRIDE, R_SELF_OVERRIDE

# Declaration kinds, weakest first; a SINGLE or PAIR of the trump rank takes that many copies.
NONE = 0
SINGLE = 1
PAIR = 2
JOKER_PAIR = 3


@njit(cache=True)
def can_declare(hand, kind, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
    """Whether ``seat`` may declare (kind, card) now over the standing declaration.

    A single is overridden by any pair of the trump rank or joker pair, a pair
    only by a joker pair, a joker pair never; with ``pair_override`` a pair
    also by a pair of a higher suit (S > H > D > C), with
    ``joker_pair_override`` a BJ pair also by an RJ pair.  A player overrides
    himself only to strengthen his single into the pair of the same card
    (unless the rules allow any self-override).
    """
    if card < 0 or card >= CARDS:
        return False
    return declare_ok(hand[card], kind, card, seat, cur_seat, cur_kind, cur_card, rank,
                      rules[R_SELF_OVERRIDE], rules[R_PAIR_OVERRIDE], rules[R_JOKER_OVERRIDE])


@njit(cache=True)
def declare_ok(held, kind, card, seat, cur_seat, cur_kind, cur_card, rank, self_override, pair_override,
               joker_override):
    """can_declare on plain numbers: ``held`` copies of ``card`` in the hand, the three rule
    options as their codes (strategies read them from their view without slicing it)."""
    if kind == SINGLE or kind == PAIR:
        if card >= BJ or card % RANKS != rank or held < kind:
            return False
    elif kind == JOKER_PAIR:
        if card < BJ or held < PAIR_CARDS:
            return False
    else:
        return False
    if cur_kind == NONE:
        return True
    if kind < cur_kind:
        return False
    if kind == cur_kind:
        if kind == SINGLE:
            return False
        if kind == PAIR and (pair_override == 0 or card // RANKS >= cur_card // RANKS):
            return False
        if kind == JOKER_PAIR and (joker_override == 0 or card != RJ or cur_card != BJ):
            return False
    if cur_seat == seat and self_override == 0:
        return kind == PAIR and cur_kind == SINGLE and card == cur_card
    return True


@njit(cache=True)
def kitty_flip_suit(kitty, nkitty, rank):
    """The trump suit set by turning up the kitty when nobody declared.

    The first card of the trump rank sets it; failing that the highest-ranking
    non-joker card, the first revealed winning ties.
    """
    best = -1
    for i in range(nkitty):
        c = kitty[i]
        if c < BJ and c % RANKS == rank:
            return c // RANKS
    for i in range(nkitty):
        c = kitty[i]
        if c < BJ and (best < 0 or c % RANKS > best % RANKS):
            best = c
    return best // RANKS if best >= 0 else TRUMP


@njit(cache=True)
def valid_bid(bid):
    """An auction bid: a multiple of 5 points from 0 to MAX_BID."""
    return 0 <= bid <= MAX_BID and bid % 5 == 0


@njit(cache=True)
def show_key(card):
    """How high a card shown in the auction is: RJ > BJ > A > K .. > 2, suits equal."""
    if card == RJ:
        return RANKS + 1
    if card == BJ:
        return RANKS
    return card % RANKS
