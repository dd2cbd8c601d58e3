"""The true state of one deal, as one int64 array with declared pieces.

Everything a deal needs to go on from where it stands lives here (or in the
per-seat views, scratch memory and random streams, which have other dtypes):
the hands, the deck and kitty, the draw's position and the standing
declaration, the auction's step, the trick in progress and its lead, the
points and penalties so far, and whose decision is next.  So a deal can be
stopped at any decision, copied, and continued (a rollout), by the compiled
driver or from Python (``tractor_sim.play.game``).  Offsets are generated
(kernels.layout); ``S_*`` are the scalars' indices and the arrays are carved
out by ``carve``.
"""

import numpy as np
from numba import njit

from .combos import MAX_UNITS, THROW_FIELDS, UNIT_CARDS, UNIT_FIELDS
from .layout import Layout
from .result import D_FIELDS
from .dims import CALLS, CARDS, DECK, EFF_SUITS, FRIENDS_ON, LEVELS, SEATS, TEAMS
from .unowned import rows_in

# Phases (S_PHASE): which rule applies next.
PH_DRAW = 0  # cards go round; a seat that may declare is asked
PH_AUCTION = 1  # bids, shown cards, the trump named (rule declaring = "auction")
PH_KITTY = 2  # the starter buries
PH_LEAD = 3  # the trick's leader leads
PH_FOLLOW = 4  # the others follow in turn
PH_DONE = 5  # scored; the result row is filled
PH_CALL = 6  # Finding Friends: the landlord calls his friends, after burying (decisions.md 9.11)
NO_SEAT = -1

LAYOUT = Layout("deal state", [
    # what the deal is
    ("S_SEED", 1, "the run's root seed (its 64 bits)"),
    ("S_KEY_A", 1, "the deal's stream name: deal id (fixed) or match id"),
    ("S_KEY_B", 1, "0 (fixed) or the deal in the match"),
    ("S_ROUND1", 1, "1 in a match's first round"),
    ("S_AUCTION", 1, "1 under the auction"),
    ("S_LEVELS", LEVELS, "the teams' levels before the deal (Finding Friends: every player's)"),
    # where it stands
    ("S_PHASE", 1, "PH_*"),
    ("S_TO_ACT", 1, "the seat whose decision is next (NO_SEAT when done)"),
    ("S_DECISION", 1, "the decision asked of it (view.DECLARE ...)"),
    ("S_REDEALS", 1, "redeals so far (round 1: nobody declared)"),
    ("S_FIRST", 1, "the seat that draws first (under the auction: the dealer)"),
    ("S_DRAW_K", 1, "the draw's step: card k goes to seat FIRST + k; after DRAWN, the final chances"),
    ("S_CUR_SEAT", 1, "the standing declaration: seat,"),
    ("S_CUR_KIND", 1, "kind (declare.NONE ...),"),
    ("S_CUR_CARD", 1, "card,"),
    ("S_CUR_COUNT", 1, "cards shown (declare.kind_count's with two decks; 9.8)"),
    ("S_NDECL", 1, "declaration events so far"),
    ("S_BID_STEP", 1, "the auction's step 0..6: two bids, four shown cards, the trump named"),
    ("S_BEST_SHOW", 1, "the highest shown card's key so far"),
    ("S_BIDS", TEAMS, "each team's bid (-1 without)"),
    ("S_RANK", 1, "the trump rank (0..12)"),
    ("S_SUIT", 1, "the trump suit (0..3, 4 none)"),
    ("S_SOURCE", 1, "how the trump was set (deal.SRC_*)"),
    ("S_STARTER", 1, "the starter (landlord)"),
    ("S_DECL_TEAM", 1, "the declaring team"),
    # the tricks
    ("S_TRICK", 1, "the current trick's index"),
    ("S_LEADER", 1, "its leader"),
    ("S_NPLAYED", 1, "plays made to it"),
    ("S_LEAD_SUIT", 1, "its lead (as played): effective suit,"),
    ("S_LEAD_KIND", 1, "kind (combos.KIND_*),"),
    ("S_LEAD_N", 1, "cards,"),
    ("S_LEAD_PAIRS", 1, "pairs,"),
    ("S_LEAD_LARGEST", 1, "cards in its largest unit,"),
    ("S_LEAD_NU", 1, "units (rows of LEAD_UNITS)"),
    ("S_BEST", 1, "the play (index in the trick) winning so far"),
    ("S_BEST_KEY", 1, "its key"),
    ("S_POINTS", 1, "points in the trick so far"),
    ("S_WINNER", 1, "the last finished trick's winner"),
    ("S_REMAINING", 1, "cards left in each hand"),
    ("S_OPP_POINTS", 1, "points the opponents took in tricks"),
    ("S_PENALTY", 1, "throw penalties (added to the opponents' total)"),
    ("S_FAILED", 1, "failed throws"),
    ("S_TRICKS_WON", SEATS, "tricks won by each seat"),
    # Finding Friends (decisions.md 9.11; absent from a tractor game's state)
    ("F_CALLS", CALLS * FRIENDS_ON, "the calls: card,"),
    ("F_COPIES", CALLS * FRIENDS_ON, "which copy (1..DECKS),"),
    ("F_SEEN", CALLS * FRIENDS_ON, "copies of the card played so far,"),
    ("F_BY", CALLS * FRIENDS_ON, "the seat that played the called copy (-1 while nobody has),"),
    ("F_WHEN", CALLS * FRIENDS_ON, "the trick it was played in (-1),"),
    ("F_JOINS", CALLS * FRIENDS_ON, "1: that seat joined by it, 0: it was used up (he was in the team already)"),
    ("F_TEAM", FRIENDS_ON, "the landlord's team now, a bit mask of seats"),
    ("F_JOINED", SEATS * FRIENDS_ON, "the trick in which each seat joined (-1: not joined, and the landlord)"),
    ("F_POINTS", SEATS * FRIENDS_ON, "points of the tricks each seat won"),
    ("F_THROWN", SEATS * FRIENDS_ON, "throw penalties each seat paid, unsigned (the side is the round's end's)"),
    # the cards
    ("HANDS", SEATS * CARDS, "each seat's hand (counts)"),
    ("SHUFFLED", DECK, "the shuffled deck: DRAWN cards drawn in order, then the kitty"),
    ("BURIED", CARDS, "the cards the starter buried (counts)"),
    ("PID", SEATS * CARDS, "each play of the trick as a list: card ids,"),
    ("PCNT", SEATS * CARDS, "their counts,"),
    ("PK", SEATS, "and its length"),
    ("LEAD_UNITS", MAX_UNITS * UNIT_FIELDS, "the lead's decomposition (combos units),"),
    ("LEAD_UCARDS", MAX_UNITS * UNIT_CARDS, "and its cards"),
    ("HELD", SEATS * EFF_SUITS, "cards of each effective suit per seat, kept up to date"),
    ("HPAIRS", SEATS * EFF_SUITS, "pairs of each effective suit per seat"),
    # public knowledge, what every seat can infer from the public events (kernels.knowledge)
    ("K_PLAYED", SEATS * CARDS, "cards each seat has played this deal (counts)"),
    ("K_SHOWN", SEATS * CARDS, "cards each seat was seen to hold and has not played since (the starter's may be "
                               "buried)"),
    ("K_VOID", SEATS * EFF_SUITS, "1: the seat showed it holds no card of the effective suit"),
    ("K_MOST", SEATS * EFF_SUITS, "the most copies of a card of the effective suit the seat can hold (0: no bound)"),
    ("RESULT", D_FIELDS, "the deal's result row (deal.D_* columns), filled when it is scored"),
    # work memory of the current step, not part of what the deal is: a strategy's answer, the
    # decomposition of a play, the verdict on a throw
    ("ANSWER", CARDS, "the answer of the strategy asked (counts or values, view.py)"),
    ("UNITS", MAX_UNITS * UNIT_FIELDS, "a play's decomposition,"),
    ("UCARDS", MAX_UNITS * UNIT_CARDS, "and its cards"),
    ("THROW", THROW_FIELDS, "combos.check_throw's verdict"),
])
globals().update(LAYOUT.constants())
STATE_SIZE = LAYOUT.size
# The pieces a deal reads before it writes them, cleared when it starts (the rest: each use writes first).
SCALARS_END = LAYOUT.offset("HANDS")


def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int64)


# The order of carve's arrays.
(ARR_HANDS, ARR_DECK, ARR_BURIED, ARR_PID, ARR_PCNT, ARR_PK, ARR_LEAD_UNITS, ARR_LEAD_UCARDS, ARR_HELD, ARR_HPAIRS,
 ARR_RESULT, ARR_ANSWER, ARR_UNITS, ARR_UCARDS, ARR_THROW) = range(15)


@njit(cache=True, inline='always')
def carve(st):
    """The state's arrays as shaped views of ``st`` (no copies; the matrices without numba's reshape:
    unowned.rows_in)."""
    return (
        rows_in(st, HANDS, SEATS, CARDS),
        st[SHUFFLED:SHUFFLED + DECK],
        st[BURIED:BURIED + CARDS],
        rows_in(st, PID, SEATS, CARDS),
        rows_in(st, PCNT, SEATS, CARDS),
        st[PK:PK + SEATS],
        rows_in(st, LEAD_UNITS, MAX_UNITS, UNIT_FIELDS),
        rows_in(st, LEAD_UCARDS, MAX_UNITS, UNIT_CARDS),
        rows_in(st, HELD, SEATS, EFF_SUITS),
        rows_in(st, HPAIRS, SEATS, EFF_SUITS),
        st[RESULT:RESULT + D_FIELDS],
        st[ANSWER:ANSWER + CARDS],
        rows_in(st, UNITS, MAX_UNITS, UNIT_FIELDS),
        rows_in(st, UCARDS, MAX_UNITS, UNIT_CARDS),
        st[THROW:THROW + THROW_FIELDS],
    )

