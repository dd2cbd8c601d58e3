"""Declaring the trump: which declarations are allowed, and the kitty flip."""

from numba import njit

from tractor_sim.rules import R_SELF_OVERRIDE

NONE = 0
SINGLE = 1
PAIR = 2
JOKER_PAIR = 3
BJ = 52
RJ = 53


@njit(cache=True)
def can_declare(hand, kind, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
    """Whether ``seat`` may declare (kind, card) now over the standing declaration.

    A single is overridden by any pair of the trump rank or joker pair, a pair
    only by a joker pair, a joker pair never; a player overrides himself only
    to strengthen his single into the pair of the same card (unless the rules
    allow any self-override).
    """
    if card < 0 or card > 53:
        return False
    if kind == SINGLE or kind == PAIR:
        if card >= BJ or card % 13 != rank or hand[card] < kind:
            return False
    elif kind == JOKER_PAIR:
        if card < BJ or hand[card] < 2:
            return False
    else:
        return False
    if cur_kind == NONE:
        return True
    if kind <= cur_kind:
        return False
    if cur_kind == JOKER_PAIR:
        return False
    if cur_seat == seat and rules[R_SELF_OVERRIDE] == 0:
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
        if c < BJ and c % 13 == rank:
            return c // 13
    for i in range(nkitty):
        c = kitty[i]
        if c < BJ and (best < 0 or c % 13 > best % 13):
            best = c
    return best // 13 if best >= 0 else 4
