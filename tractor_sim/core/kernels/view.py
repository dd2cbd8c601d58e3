"""The player view: everything a strategy may see, as one int64 array.

Each seat has its own view array of shape (V_ROWS, 54), kept up to date by
the deal kernel from public events only.  The other hands and the kitty are
never written into it (the starter's own buried cards are, in V_BURIED), so a
strategy cannot see what its player could not see: it has nothing else to
read.  A strategy that writes into its view only damages its own copy; the
kernel keeps the real state elsewhere and checks every returned play.

Every strategy has one signature, ``STRATEGY_SIG``:
``f(view, params, rng, scratch, out) -> int64`` where ``params`` is the
strategy's float64 parameter vector, ``rng`` its own random stream state
(use ``tractor_sim.core.kernels.rng``), ``scratch`` float64 memory that lives for
the deal (zeroed at its start), and ``out`` an int64[54] buffer for the
answer:
- declare: ``out[0] = kind`` (1 single, 2 pair, 3 joker pair), ``out[1] =
  card``; return 1 to declare, 0 to pass.  With more than two decks
  (decisions.md 9.8) ``out[2]`` = how many identical cards are shown: a pair
  kind 2..DECKS cards of the trump rank, a joker pair kind 2..DECKS jokers
  (0: the kind's least, 1 or 2); with two decks the kind says it and
  ``out[2]`` is not read;
- discard: ``out`` = counts of the 8 cards to bury; return 8;
- lead / follow: ``out`` = counts of the cards to play; return their number;
- bid (only with the rule ``declaring = "auction"``), three steps told by
  ``M_BID_STEP``: BID_STEP_BID: ``out[0]`` = the points my pair bids (a
  multiple of 5 from 0 to MAX_BID, the points in the deck), return 1; BID_STEP_SHOW: ``out`` = counts
  of the one card I show, return 1; BID_STEP_TRUMP (the starter only):
  ``out[0]`` = the trump suit I name (0..3 = S H D C), return 1;
- call (Finding Friends only: the landlord, after burying): for each of the
  CALLS calls i, ``out[i]`` = the card (not a joker, not of the trump rank)
  and ``out[CALLS + i]`` = which copy of it, 1..DECKS; return CALLS.

Finding Friends adds the row V_FRIENDS (its columns FV_*, the same public
values in every view): every player's level, the calls, the copies of each
called card played so far, who played each called copy and when, who is in
the landlord's team and since which trick.  M_LEVEL0/M_LEVEL1 stay 0 there.

Values between the events that set them: during the draw the trump table
rows are those of (trump rank, no trump suit); M_DECL_CARD is 0 while nobody
has declared; M_LEAD_* and M_WINNING keep the previous trick's values while a
seat decides its lead (0 before the first lead), and M_WINNING_KEY is -1
then; M_LEAD_LONGEST is the lead's largest unit in pairs (1 for a pair, 0
for a single); M_BID_STEP keeps its last value after the auction.

With 3 and 4 decks (docs/rules.md section 9) a lead's units are singles, tuples
(m identical cards, m = 2..DECKS) and tractors of tuples of one size; the
"pairs" of M_LEAD_PAIRS and M_LEAD_LONGEST are then tuples of any size, a
tuple lead is KIND_PAIR, and the meta row has M_LEAD_TUPLES, the lead's
tuples of each size (strategy_lib.lead_tuples, lead_size: its largest, so
that (lead_size, M_LEAD_PAIRS) is the shape (m, L) of a one-unit lead).

The rules of the deal are in row V_RULES (``tractor_sim.rules.options.Rules.encode``,
indices ``R_*``), so a strategy can follow a variant (for example
``R_FOLLOW_TRACTOR``) without being recompiled.
"""

from numba import types

from .layout import Layout
from .dims import CALLS, CARDS, DECKS, EFF_SUITS, FRIENDS_ON, PAIR, SEATS, TEAMS

STRATEGY_SIG = types.int64(
    types.int64[:, ::1], types.float64[::1], types.uint64[::1], types.float64[::1], types.int64[::1]
)
STRATEGY_TYPE = types.FunctionType(STRATEGY_SIG)

DECLARE = 0
DISCARD = 1
LEAD = 2
FOLLOW = 3
BID = 4
CALL = 5
DECISIONS = ("declare", "discard", "lead", "follow", "bid", "call")

BID_STEP_BID = 0
BID_STEP_SHOW = 1
BID_STEP_TRUMP = 2
POINTS_PER_DECK = 100  # every 5, 10 and K of one deck
MAX_BID = POINTS_PER_DECK * DECKS  # the points in the game: 200 with two decks

# The view: rows of CARDS columns, declared in order (offsets generated: kernels.layout).
ROWS = Layout("view rows", [
    ("V_PLAYED", SEATS, "cards each seat has played so far this deal (counts), a row per seat"),
    ("V_TRICK", SEATS, "cards each seat has played in the current trick, a row per seat"),
    ("V_HAND", 1, "my hand"),
    ("V_BURIED", 1, "the cards I buried (only the starter, after the exchange)"),
    ("V_EFF", 1, "trump table: effective suit of each card (4 = trumps); the table's rows follow:"),
    ("V_POS", 1, "trump table: position in its effective suit"),
    ("V_SUITS", EFF_SUITS, "cards of effective suit s in ascending order, -1 padded"),
    ("V_TTMETA", 1, "trump table meta row (see kernels.order META_*)"),
    ("V_META", 1, "scalars, M_* below"),
    ("V_TRICK_LEADER", 1, "per finished trick: its leader"),
    ("V_TRICK_WINNER", 1, "per finished trick: its winner"),
    ("V_TRICK_POINTS", 1, "per finished trick: its points"),
    ("V_DECL_SEAT", 1, "declaration events in order: seat,"),
    ("V_DECL_KIND", 1, "kind,"),
    ("V_DECL_CARD", 1, "card,"),
    ("V_DECL_COUNT", 1, "cards shown (1..DECKS; with two decks the kind's: a single 1, else 2)"),
    ("V_RULES", 1, "the encoded rules (tractor_sim.rules.options R_* indices), the rest 0"),
    ("V_FRIENDS", FRIENDS_ON, "Finding Friends only: every player's level, the calls, who has joined (FV_*)"),
])
# The columns of the V_META row, declared in order.
META = Layout("view meta", [
    ("M_SEAT", 1, "my seat"),
    ("M_DECISION", 1, "DECLARE, DISCARD, LEAD, FOLLOW, BID or CALL"),
    ("M_TRICK", 1, "index of the current trick (0..24)"),
    ("M_LEADER", 1, "leader of the current trick"),
    ("M_NPLAYED", 1, "plays made so far in the current trick"),
    ("M_STARTER", 1, "the round's starter (-1 while unknown in round 1)"),
    ("M_DECL_TEAM", 1, "declaring team (-1 while unknown in round 1)"),
    ("M_LEVEL0", TEAMS, "each team's level (0..12 = 2..A): M_LEVEL0, M_LEVEL1"),
    ("M_TRUMP_RANK", 1, "(-1 under the auction until the bids are in)"),
    ("M_TRUMP_SUIT", 1, "0..3, 4 = no trump suit, -1 while not yet set"),
    ("M_OPP_POINTS", 1, "opponents' points so far (tricks and penalties)"),
    ("M_LEAD_N", 1, "the current lead (as played): number of cards,"),
    ("M_LEAD_SUIT", 1, "effective suit,"),
    ("M_LEAD_PAIRS", 1, "pairs,"),
    ("M_LEAD_KIND", 1, "kind (combos.KIND_*),"),
    ("M_LEAD_LONGEST", 1, "longest tractor (pairs) in it"),
    ("M_WINNING", 1, "seat winning the current trick so far"),
    ("M_DECL_SEAT", 1, "standing declaration: seat (-1 none),"),
    ("M_DECL_KIND", 1, "kind (0 none),"),
    ("M_DECL_CARD", 1, "card (its cards shown: M_DECL_COUNT)"),
    ("M_DRAWN", 1, "cards drawn so far (0..DRAWN, 100 with four players and two decks) during the deal"),
    ("M_NDECL", 1, "number of declaration events so far"),
    ("M_TRICK_POINTS", 1, "points in the current trick so far"),
    ("M_ROUND1", 1, "1 in the first round of a match (trump rank 2 for all, declarer unknown)"),
    ("M_FAILED_THROW", 1, "1 if the current trick's lead is the forced part of a failed throw"),
    ("M_TRICKS_DONE", 1, "finished tricks"),
    # The auction (rule declaring = "auction"; with the draw these stay 0).  During the draw and the bids
    # the trump table rows hold the order for my own team's level and no trump suit.
    ("M_DEALER", 1, "the dealer: he draws first, bids first for his pair, shows first"),
    ("M_BID_STEP", 1, "BID_STEP_BID, BID_STEP_SHOW or BID_STEP_TRUMP while deciding a bid"),
    ("M_BID0", TEAMS, "the bid of each team (-1 while not made)"),
    ("M_SHOWN", SEATS, "the card shown by each seat (-1 while not shown)"),
    ("M_WINNING_KEY", 1, "the key of M_WINNING's play (combos.play_key: a ruff adds WIN_TRUMP, a led throw 0), "
                         "-1 while nobody has played to the current trick; strategy_lib.play_key_of recomputes it"),
    ("M_MY_CARDS", EFF_SUITS, "cards of each effective suit in my hand, by the trump table in my view (kept up to "
                              "date at every draw, table change, the kitty and every play)"),
    ("M_MY_PAIRS", EFF_SUITS, "pairs of each effective suit in my hand, likewise (a card held c times: c // 2)"),
] + ([  # with 3 and 4 decks only (with 2 decks every tuple is a pair: M_LEAD_PAIRS says it all)
    ("M_LEAD_TUPLES", DECKS - 1, "R_m of decisions.md 9.3: the current lead's tuples of m cards at M_LEAD_TUPLES + m "
                                 "- 2, m = 2..DECKS (a tractor counts its tuples)"),
] if DECKS > PAIR else []))
# The columns of the V_FRIENDS row (Finding Friends, decisions.md 9.11): public, the same in every view.
FRIENDS_ROW = Layout("view friends row", [
    ("FV_LEVEL", SEATS, "each player's level (0..12 = 2..A)"),
    ("FV_CALL_CARD", CALLS, "the landlord's calls: the card (-1 before he calls),"),
    ("FV_CALL_COPY", CALLS, "which copy of it (1..DECKS),"),
    ("FV_CALL_SEEN", CALLS, "copies of that card played so far,"),
    ("FV_CALL_SEAT", CALLS, "the seat that played the called copy (-1 while nobody has),"),
    ("FV_CALL_TRICK", CALLS, "and the trick it was played in (-1)"),
    ("FV_IN_TEAM", SEATS, "1: the seat is in the landlord's team (the landlord and who has joined)"),
    ("FV_JOINED", SEATS, "the trick in which the seat joined (-1: not joined; the landlord's is -1)"),
    ("FV_MEMBERS", 1, "players in the landlord's team so far"),
])
if META.size > CARDS or FRIENDS_ROW.size > CARDS:
    raise ValueError("the view's meta or friends row has more columns than a row has cells")
globals().update(ROWS.constants())
globals().update(META.constants())
globals().update(FRIENDS_ROW.constants())
NO_FIELD = -1
if DECKS == PAIR:
    M_LEAD_TUPLES = NO_FIELD  # no such cells with 2 decks; the name is for code reached at 3 and 4 decks only
V_ROWS = ROWS.size
M_LEVEL1 = META.offset("M_LEVEL0") + 1
