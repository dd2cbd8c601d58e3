"""The unit table that a decomposition fills: its columns, its sizes, and arrays for it.

Both rule modules fill and read it: the pair rules (``combos``) and the tuple rules of 3 and 4
decks (``tuples``); ``combos`` re-exports these names, as its users know them.
"""

import numpy as np
from numba import njit

from .dims import DECKS, PAIR
from .order import MAX_POS
from .unowned import stack_array

MAX_UNITS = 40
UNIT_SIZE = 3  # column of copies of the card at each position (1 single, 2..DECKS): with 3 and 4 decks only
UNIT_FIELDS = UNIT_SIZE + (DECKS > PAIR)  # columns of ``units``: UNIT_PAIRS, UNIT_TOP, UNIT_NCARDS (, UNIT_SIZE)
UNIT_CARDS = MAX_POS - 1  # columns of ``ucards``: distinct cards of one unit, at most (a tractor over a whole suit)
# Sizes of stack work arrays (kernels.unowned: numba wants them as named constants).
UNITS_CELLS = MAX_UNITS * UNIT_FIELDS
UCARDS_CELLS = MAX_UNITS * UNIT_CARDS
MAX_UNITS1 = MAX_UNITS + 1
UNIT_PAIRS = 0  # tuples in the unit: 0 single, 1 pair (any tuple), k >= MIN_TRACTOR tractor of k tuples
UNIT_TOP = 1  # position of the highest card
UNIT_NCARDS = 2
MIN_TRACTOR = 2  # pairs in the shortest tractor
TUPLE_SIZES = DECKS + 1  # cells of a vector indexed by a tuple size m (0..DECKS; 0 and 1 unused)


@njit(cache=True)
def new_units():
    return np.zeros((MAX_UNITS, UNIT_FIELDS), dtype=np.int64), np.full((MAX_UNITS, UNIT_CARDS), -1, dtype=np.int64)


@njit(cache=True, inline='always')
def stack_units():
    """new_units in the caller's stack frame (kernels.unowned): for functions that must not allocate."""
    units = stack_array(UNITS_CELLS).reshape((MAX_UNITS, UNIT_FIELDS))
    units[:] = 0
    ucards = stack_array(UCARDS_CELLS).reshape((MAX_UNITS, UNIT_CARDS))
    ucards[:] = -1
    return units, ucards


@njit(cache=True, inline='always')
def stack_filled(n, value):
    """A stack array of n (a constant) filled with ``value``."""
    a = stack_array(n)
    a[:] = value
    return a
