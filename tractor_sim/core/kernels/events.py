"""The event log of a deal, for replays: one row per event (LOG_* kinds), filled only when asked.

Row 0 holds the count of events (and log[0, 1] = 1 once an event found no
room); a log of one row records nothing, so a deal run without a replay
pays one comparison per event.
"""

from numba import njit

from .layout import Layout
from .dims import CARDS

LOG_DRAW = 1  # seat drew card a
LOG_DECLARE = 2  # seat declared kind a with card b, showing LC_DECL_COUNT cards (decisions.md 9.8)
LOG_REDEAL = 3  # nobody declared: redeal number a
LOG_TRUMP = 4  # starter (seat), suit a, source b
LOG_HAND = 5  # seat's hand after the draw (counts)
LOG_KITTY = 6  # the kitty as dealt (a list of card ids in the counts columns)
LOG_BURY = 7  # the cards the starter buried (counts)
LOG_LEAD = 8  # seat led (counts) in trick a
LOG_FAILED_THROW = 9  # the throw failed: blocked by seat a, penalty b, forced part (counts)
LOG_FOLLOW = 10  # seat followed (counts) in trick a
LOG_TRICK = 11  # seat won trick a with b points
LOG_START = 12  # a deal starts: key a (deal or match id), b (deal in match)
LOG_BID = 13  # seat bid a points (the auction)
LOG_SHOW = 14  # seat showed card a (the auction)
LOG_CALL = 15  # Finding Friends: the landlord (seat) called copy b of card a
LOG_JOIN = 16  # Finding Friends: seat played the copy of call a: joined (b = 1) or used it up (b = 0)
# The columns of an event row: its kind, seat, two values, then the cards.
LOG_ROW = Layout("event row", [("LC_KIND", 1), ("LC_SEAT", 1), ("LC_A", 1), ("LC_B", 1), ("LC_CARDS", CARDS)])
globals().update(LOG_ROW.constants())
LOG_COLS = LOG_ROW.size
LC_DECL_COUNT = LC_CARDS  # noqa: F821  (a LOG_DECLARE row's count: its first card column)


@njit(cache=True)
def log_event(log, kind, seat, a, b, cards):
    """Append an event; ``cards`` (counts or a list of ids, at most CARDS of them) fill its card columns."""
    if log.shape[0] <= 1:
        return
    i = log[0, 0] + 1
    if i >= log.shape[0]:
        log[0, 1] = 1
        return
    log[0, 0] = i
    log[i, LC_KIND] = kind
    log[i, LC_SEAT] = seat
    log[i, LC_A] = a
    log[i, LC_B] = b
    n = min(cards.shape[0], CARDS)
    for c in range(n):
        log[i, LC_CARDS + c] = cards[c]
