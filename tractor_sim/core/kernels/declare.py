"""Declaring the trump: which declarations are allowed, the kitty flip, and the auction.

With two decks a declaration's kind says how many cards it shows
(can_declare, declare_ok: the 4-player 2-deck game's code); with more decks
(docs/rules.md section 9, decisions.md 9.8) it shows ``count`` identical cards
(can_declare_count, declare_count_ok), reached only from constant branches
``if DECKS > PAIR``.
"""

from numba import njit

from .order import TRUMP
from .dims import BJ, CARDS, DECKS, RANKS, RJ
from .dims import PAIR as PAIR_CARDS  # cards in a pair (PAIR here: the declaration kind)
from .view import MAX_BID
from tractor_sim.rules.options import R_JOKER_OVERRIDE, R_PAIR_OVERRIDE, R_SELF_OVERRIDE

# Declaration kinds, weakest first; a SINGLE or PAIR of the trump rank takes that many copies.
# With more decks (decisions.md 9.8) a declaration is ``count`` identical cards: a PAIR is 2..DECKS
# cards of the trump rank, a JOKER_PAIR 2..DECKS identical jokers; the count goes with the kind
# (the answer's out[2], the state's S_CUR_COUNT, the view's V_DECL_COUNT row: strategy_lib.standing_count).
NONE = 0
SINGLE = 1
PAIR = 2
JOKER_PAIR = 3

# Where a declare strategy's answer puts the kind, the card and the count (view.py).
ANS_KIND = 0
ANS_CARD = 1
ANS_COUNT = 2

# Colours at equal counts (9.8): red jokers > black jokers > a suit.
SUIT_COLOUR = 0
BLACK = 1
RED = 2


@njit(cache=True)
def can_declare(hand, kind, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
    """Whether ``seat`` may declare (kind, card) now over the standing declaration.

    A single is overridden by any pair of the trump rank or joker pair, a pair
    only by a joker pair, a joker pair never; with ``pair_override`` a pair
    also by a pair of a higher suit (S > H > D > C), with
    ``joker_pair_override`` a BJ pair also by an RJ pair.  A player overrides
    himself only to strengthen his single into the pair of the same card
    (unless the rules allow any self-override).  Two decks, where the kind
    says the count; the phases of more decks ask can_declare_count.
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


@njit(cache=True, inline='always')
def kind_count(kind):
    """The cards a kind stands for with two decks (a single 1, a pair or joker pair 2; NONE 0)."""
    if kind == NONE:
        return 0
    return 1 if kind == SINGLE else PAIR_CARDS


@njit(cache=True, inline='always')
def kind_of(count, card):
    """The kind of a declaration of ``count`` copies of ``card``: jokers, a single, or a tuple (PAIR)."""
    if card >= BJ:
        return JOKER_PAIR
    return SINGLE if count == 1 else PAIR


@njit(cache=True, inline='always')
def colour(card):
    """Red jokers > black jokers > a suit, at equal counts (9.8)."""
    if card == RJ:
        return RED
    return BLACK if card == BJ else SUIT_COLOUR


@njit(cache=True)
def outranks(count, card, cur_count, cur_card, pair_override, joker_override):
    """Whether ``count`` copies of ``card`` override another player's ``cur_count`` of ``cur_card``.

    More cards win; at equal counts the colour (9.8), a suit over a suit only
    with ``pair_override`` and a higher suit (S > H > D > C, a lower suit
    index) at counts of two or more.  With two decks red jokers beat black
    ones only with ``joker_pair_override`` (section 2 unchanged).
    """
    if count != cur_count:
        return count > cur_count
    a = colour(card)
    b = colour(cur_card)
    if a == RED and b == BLACK and DECKS == PAIR_CARDS:
        return joker_override != 0
    if a != b:
        return a > b
    return a == SUIT_COLOUR and count >= PAIR_CARDS and pair_override != 0 and card // RANKS < cur_card // RANKS


@njit(cache=True)
def declare_count_ok(held, kind, count, card, seat, cur_seat, cur_kind, cur_count, cur_card, rank,
                     self_override, pair_override, joker_override):
    """declare_ok with counts, for any number of decks (decisions.md 9.8): ``count`` (1..DECKS; jokers
    2..DECKS) identical cards of the trump rank or jokers, ``kind`` the one kind_of names; on his
    own standing declaration a player (``self_override`` strengthen_only) only shows more copies
    of the same card.  Equals declare_ok with two decks (tests/test_declare9.py)."""
    if count < 1 or count > DECKS or held < count or kind != kind_of(count, card):
        return False
    if card < BJ and card % RANKS != rank:
        return False
    if card >= BJ and count < PAIR_CARDS:
        return False
    if cur_kind == NONE:
        return True
    if cur_seat == seat and self_override == 0:
        return card == cur_card and count > cur_count
    return outranks(count, card, cur_count, cur_card, pair_override, joker_override)


@njit(cache=True)
def can_declare_count(hand, kind, count, card, seat, cur_seat, cur_kind, cur_count, cur_card, rank, rules):
    """can_declare with the declaration's count and the standing one's (any number of decks)."""
    if card < 0 or card >= CARDS:
        return False
    return declare_count_ok(hand[card], kind, count, card, seat, cur_seat, cur_kind, cur_count, cur_card, rank,
                            rules[R_SELF_OVERRIDE], rules[R_PAIR_OVERRIDE], rules[R_JOKER_OVERRIDE])


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


BID_UNIT = 5  # auction bids are multiples of this many points


@njit(cache=True)
def valid_bid(bid):
    """An auction bid: a multiple of BID_UNIT points from 0 to MAX_BID."""
    return 0 <= bid <= MAX_BID and bid % BID_UNIT == 0


@njit(cache=True)
def show_key(card):
    """How high a card shown in the auction is: RJ > BJ > A > K .. > 2, suits equal."""
    if card == RJ:
        return RANKS + 1
    if card == BJ:
        return RANKS
    return card % RANKS
