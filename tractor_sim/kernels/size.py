"""The size of the game, in one place: seats, teams, decks, cards, hand, kitty.

Every loop and index of the kernels and of strategy_lib counts with these
names, never with bare numbers, so that a game of another size (RULES.md
section 9: more players, more decks) changes this module and the few rules
that depend on it, not every loop.  Numba reads module-level integers as
compile-time constants: naming them costs nothing at run time.
"""

from numba import njit

SEATS = 4  # players, in playing order 0..SEATS-1
TEAMS = 2  # partnerships: seat s plays for team s % TEAMS
DECKS = 2  # decks shuffled together: every card exists DECKS times
PAIR = 2  # cards in a pair (two identical cards)
SUITS = 4  # S H D C
EFF_SUITS = SUITS + 1  # effective suits: the four plain suits and trumps (index SUITS)
RANKS = 13  # 2 .. A
CARDS = SUITS * RANKS + 2  # distinct cards: 52 and the two jokers
BJ = SUITS * RANKS  # the black joker's card id
RJ = BJ + 1  # the red joker's
DECK = CARDS * DECKS  # cards in the game
KITTY = 8  # cards left face down after the draw
DRAWN = DECK - KITTY  # cards drawn into the hands
HAND = DRAWN // SEATS  # cards in a hand after the draw (and after the kitty exchange)
TRICKS = HAND  # tricks in a deal, at most (a lead of several cards makes fewer)


@njit(cache=True, inline='always')
def team_of(seat):
    """The team of a seat (plain Python and numba alike)."""
    return seat % TEAMS


@njit(cache=True, inline='always')
def seat_after(seat, k):
    """The seat k places after ``seat`` in playing order."""
    return (seat + k) % SEATS
