"""The card order for a trump: effective suits and positions.

A *trump table* ``tt`` is an int64 array of shape (TT_ROWS, CARDS) = (8, 54):
row 0 (TT_EFF) the effective suit of each card (0..3, or TRUMP = 4 for trumps);
row 1 (TT_POS) its position in that suit, dense, so that two pairs are
consecutive exactly when their positions differ by one and equal cards share
a position; rows 2..6 (TT_SUIT + s) the cards of effective suit s in
ascending position order (equal positions by card id), padded with -1;
row 7 (TT_META) holds the counts and the trump itself (META_*).
"""

import numpy as np
from numba import njit

from .dims import BJ, CARDS, EFF_SUITS, RANKS, RJ, SUITS

TT_EFF = 0
TT_POS = 1
TT_SUIT = 2
TT_META = TT_SUIT + EFF_SUITS  # 7
TT_ROWS = TT_META + 1  # rows of a trump table: 8
META_NCARDS = 0  # 0..4: number of distinct cards of each effective suit
META_NPOS = META_NCARDS + EFF_SUITS  # 5..9: number of positions of each effective suit
META_RANK = META_NPOS + EFF_SUITS  # 10
META_SUIT = META_RANK + 1
META_RANK_TRUMP = META_SUIT + 1  # 1 when the rank cards are trumps this round
TRUMP = SUITS  # the effective suit of trumps, after the plain suits; as a trump suit: none (no-trump)
# Positions in a suit trump, the longest effective suit: the plain ranks but the trump rank, the
# trump-rank cards of the other suits, that of the trump suit, the two jokers.
TRUMP_POSITIONS = RANKS + 3
MAX_POS = TRUMP_POSITIONS + 1  # positions in one effective suit, at most (one spare)


@njit(cache=True)
def trump_table(rank, suit, rank_trumps_in_no_trump):
    """Build the trump table for trump rank ``rank`` (0..RANKS-1) and ``suit`` (0..SUITS-1, TRUMP = none).

    Positions in a suit trump: the plain ranks below RANKS - 1, then the
    trump-rank cards of the other suits (all equal), that of the trump suit,
    the black and the red joker.
    """
    tt = np.full((TT_ROWS, CARDS), -1, dtype=np.int64)
    rank_is_trump = suit < SUITS or rank_trumps_in_no_trump != 0
    for c in range(BJ):
        s = c // RANKS
        r = c % RANKS
        if rank_is_trump and r == rank:
            tt[TT_EFF, c] = TRUMP
            if suit < SUITS:
                tt[TT_POS, c] = RANKS if s == suit else RANKS - 1
            else:
                tt[TT_POS, c] = 0
        else:
            tt[TT_EFF, c] = s if (suit == TRUMP or s != suit) else TRUMP
            tt[TT_POS, c] = r if (not rank_is_trump or r < rank) else r - 1
    if suit < SUITS:
        jb = RANKS + 1
    elif rank_is_trump:
        jb = 1
    else:
        jb = 0
    tt[TT_EFF, BJ] = TRUMP
    tt[TT_POS, BJ] = jb
    tt[TT_EFF, RJ] = TRUMP
    tt[TT_POS, RJ] = jb + 1
    for e in range(EFF_SUITS):
        n = 0
        npos = 0
        for p in range(MAX_POS):
            found = False
            for c in range(CARDS):
                if tt[TT_EFF, c] == e and tt[TT_POS, c] == p:
                    tt[TT_SUIT + e, n] = c
                    n += 1
                    found = True
            if found:
                npos = p + 1
        tt[TT_META, META_NCARDS + e] = n
        tt[TT_META, META_NPOS + e] = npos
    tt[TT_META, META_RANK] = rank
    tt[TT_META, META_SUIT] = suit
    tt[TT_META, META_RANK_TRUMP] = 1 if rank_is_trump else 0
    return tt
