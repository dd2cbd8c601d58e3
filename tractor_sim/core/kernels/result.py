"""The columns of a deal's result row (int64; the engine names them, see docs/records.md)."""

from .layout import Layout
from .dims import CALLS, FRIENDS_ON, SEATS, TEAMS

LAYOUT = Layout("deal result", [
    ("D_STARTER", 1), ("D_DECL_TEAM", 1), ("D_TRUMP_RANK", 1), ("D_TRUMP_SUIT", 1), ("D_TRUMP_SOURCE", 1),
    ("D_REDEALS", 1), ("D_KITTY_POINTS", 1), ("D_TRICK_POINTS", 1), ("D_KITTY_BONUS", 1), ("D_THROW_PENALTY", 1),
    ("D_FAILED_THROWS", 1), ("D_LAST_WINNER", 1), ("D_OPP_POINTS", 1), ("D_ROW", 1), ("D_KEEP", 1), ("D_GAIN", 1),
    ("D_NEXT_STARTER", 1),
    ("D_TRICKS", SEATS, "tricks won per seat"),
    ("D_DEALER", 1, "the seat that drew first (under the auction: the dealer)"),
    ("D_BID0", TEAMS, "the bids of team 0 and team 1 under the auction (-1 without)"),
    # Finding Friends (decisions.md 9.11; absent from a tractor game's row).  D_KEEP: the landlord's
    # team won; D_GAIN: the levels each winner gains before must_defend (the row's, +1 for a short team)
    ("D_TEAM", FRIENDS_ON, "the landlord's team at the round's end, a bit mask of seats"),
    ("D_IN_TEAM", SEATS * FRIENDS_ON, "1: the seat is in it"),
    ("D_GAINS", SEATS * FRIENDS_ON, "the levels each seat gains (must_defend applied per player)"),
    ("D_JOINED", SEATS * FRIENDS_ON, "the trick in which each seat joined (-1: not joined, and the landlord)"),
    ("D_CALL_CARD", CALLS * FRIENDS_ON, "the calls: card,"),
    ("D_CALL_COPY", CALLS * FRIENDS_ON, "copy,"),
    ("D_CALL_BY", CALLS * FRIENDS_ON, "the seat that played the called copy (-1: nobody),"),
    ("D_CALL_WHEN", CALLS * FRIENDS_ON, "the trick it was played in (-1),"),
    ("D_CALL_JOINS", CALLS * FRIENDS_ON, "1: that seat joined by it, 0: the call was used up or never fired"),
])
globals().update(LAYOUT.constants())
D_FIELDS = LAYOUT.size
