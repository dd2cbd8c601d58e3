"""The columns of a deal's result row (int64; the engine names them, see docs/records.md)."""

from tractor_sim.kernels.layout import Layout
from tractor_sim.kernels.size import SEATS, TEAMS

LAYOUT = Layout("deal result", [
    ("D_STARTER", 1), ("D_DECL_TEAM", 1), ("D_TRUMP_RANK", 1), ("D_TRUMP_SUIT", 1), ("D_TRUMP_SOURCE", 1),
    ("D_REDEALS", 1), ("D_KITTY_POINTS", 1), ("D_TRICK_POINTS", 1), ("D_KITTY_BONUS", 1), ("D_THROW_PENALTY", 1),
    ("D_FAILED_THROWS", 1), ("D_LAST_WINNER", 1), ("D_OPP_POINTS", 1), ("D_ROW", 1), ("D_KEEP", 1), ("D_GAIN", 1),
    ("D_NEXT_STARTER", 1),
    ("D_TRICKS", SEATS, "tricks won per seat"),
    ("D_DEALER", 1, "the seat that drew first (under the auction: the dealer)"),
    ("D_BID0", TEAMS, "the bids of team 0 and team 1 under the auction (-1 without)"),
])
globals().update(LAYOUT.constants())
D_FIELDS = LAYOUT.size
