"""The dimensions of the game, in one place: seats, teams, decks, cards, hand, kitty.

Every loop and index of the kernels and of the strategy helpers counts with
these names, never with bare numbers.  The four numbers that make a game
size (players, decks, kitty, team mode) come from ``core/size.py``, the one
file a copy of this package for another size has of its own
(tractor_sim.play.packages); the rest follow from them here.  Numba reads
module-level integers as compile-time constants: naming them costs nothing
at run time.
"""

from numba import njit

from .. import size as _size

SEATS = _size.SEATS  # players, in playing order 0..SEATS-1
TEAMS = 2  # partnerships: seat s plays for team s % TEAMS
DECKS = _size.DECKS  # decks shuffled together: every card exists DECKS times
PAIR = 2  # cards in a pair (two identical cards)
PAIR_SHIFT = PAIR.bit_length() - 1  # pairs in x copies: x >> PAIR_SHIFT (a shift: // costs a sign fix-up)
SUITS = 4  # S H D C
EFF_SUITS = SUITS + 1  # effective suits: the four plain suits and trumps (index SUITS)
RANKS = 13  # 2 .. A
CARDS = SUITS * RANKS + 2  # distinct cards: 52 and the two jokers
BJ = SUITS * RANKS  # the black joker's card id
RJ = BJ + 1  # the red joker's
DECK = CARDS * DECKS  # cards in the game
KITTY = _size.KITTY  # cards left face down after the draw
DRAWN = DECK - KITTY  # cards drawn into the hands
HAND = DRAWN // SEATS  # cards in a hand after the draw (and after the kitty exchange)
TRICKS = HAND  # tricks in a deal, at most (a lead of several cards makes fewer)

# Team modes (docs/rules.md section 9, "Teams"): a compile-time constant of each copy of the package
# (core/size.py), so that a tractor game compiles without a branch of Finding Friends.
TRACTOR = 0  # fixed teams of alternating seats, a level per team
FRIENDS = 1  # Finding Friends: the landlord calls his friends, a level per player (decisions.md 9.11)
TEAM_MODE = FRIENDS if _size.FINDING_FRIENDS else TRACTOR
CALLS = SEATS // 2 - 1  # Finding Friends: the landlord's calls, F = N // 2 - 1 (in a tractor game: unused)
LEVELS = SEATS if TEAM_MODE == FRIENDS else TEAMS  # who holds a level: every player, or every team
FRIENDS_ON = 1 if TEAM_MODE == FRIENDS else 0  # sizes the pieces of Finding Friends (0: absent, kernels.layout)


@njit(cache=True, inline='always')
def team_of(seat):
    """The team of a seat (plain Python and numba alike)."""
    return seat % TEAMS


@njit(cache=True, inline='always')
def seat_after(seat, k):
    """The seat k places after ``seat`` in playing order."""
    return (seat + k) % SEATS


@njit(cache=True, inline='always')
def same_side(a, b, side):
    """Whether seats a and b play on one side now: by team, or in Finding Friends by ``side``, the
    landlord's team as a bit mask of seats (members: the landlord and who has joined so far, 9.5)."""
    if TEAM_MODE == FRIENDS:
        return ((side >> a) & 1) == ((side >> b) & 1)
    return team_of(a) == team_of(b)


@njit(cache=True, inline='always')
def declaring_side(seat, side):
    """Whether the seat plays for the declarers: its team is ``side`` (the declaring team), or in
    Finding Friends it is in ``side``, the landlord's team as a bit mask of seats."""
    if TEAM_MODE == FRIENDS:
        return ((side >> seat) & 1) == 1
    return team_of(seat) == side


@njit(cache=True, inline='always')
def partner_of(seat):
    """The next seat of ``seat``'s team in playing order (the partner, with two teams of two)."""
    return (seat + TEAMS) % SEATS
