"""The event log of a deal, for replays: one row per event (LOG_* kinds), filled only when asked.

Row 0 holds the count of events (and log[0, 1] = 1 once an event found no
room); a log of one row records nothing, so a deal run without a replay
pays one comparison per event.
"""

from numba import njit

from tractor_sim.kernels.size import CARDS

LOG_DRAW = 1  # seat drew card a
LOG_DECLARE = 2  # seat declared kind a with card b
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
LOG_HEAD = 4  # kind, seat, a, b; the cards follow
LOG_COLS = LOG_HEAD + CARDS


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
    log[i, 0] = kind
    log[i, 1] = seat
    log[i, 2] = a
    log[i, 3] = b
    n = min(cards.shape[0], CARDS)
    for c in range(n):
        log[i, LOG_HEAD + c] = cards[c]
