"""The card order for a trump: effective suits and positions.

A *trump table* ``tt`` is an int64 array of shape (8, 54):
row 0 (TT_EFF) the effective suit of each card (0..3, or 4 for trumps);
row 1 (TT_POS) its position in that suit, dense, so that two pairs are
consecutive exactly when their positions differ by one and equal cards share
a position; rows 2..6 (TT_SUIT + s) the cards of effective suit s in
ascending position order (equal positions by card id), padded with -1;
row 7 (TT_META) holds the counts and the trump itself (META_*).
"""

import numpy as np
from numba import njit

TT_EFF = 0
TT_POS = 1
TT_SUIT = 2
TT_META = 7
META_NCARDS = 0  # 0..4: number of distinct cards of each effective suit
META_NPOS = 5  # 5..9: number of positions of each effective suit
META_RANK = 10
META_SUIT = 11
META_RANK_TRUMP = 12  # 1 when the rank cards are trumps this round
TRUMP = 4


@njit(cache=True)
def trump_table(rank, suit, rank_trumps_in_no_trump):
    """Build the trump table for trump rank ``rank`` (0..12) and ``suit`` (0..3, 4 = none)."""
    tt = np.full((8, 54), -1, dtype=np.int64)
    rank_is_trump = suit < 4 or rank_trumps_in_no_trump != 0
    for c in range(52):
        s = c // 13
        r = c % 13
        if rank_is_trump and r == rank:
            tt[TT_EFF, c] = TRUMP
            if suit < 4:
                tt[TT_POS, c] = 13 if s == suit else 12
            else:
                tt[TT_POS, c] = 0
        else:
            tt[TT_EFF, c] = s if (suit == 4 or s != suit) else TRUMP
            tt[TT_POS, c] = r if (not rank_is_trump or r < rank) else r - 1
    if suit < 4:
        jb = 14
    elif rank_is_trump:
        jb = 1
    else:
        jb = 0
    tt[TT_EFF, 52] = TRUMP
    tt[TT_POS, 52] = jb
    tt[TT_EFF, 53] = TRUMP
    tt[TT_POS, 53] = jb + 1
    for e in range(5):
        n = 0
        npos = 0
        for p in range(17):
            found = False
            for c in range(54):
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
