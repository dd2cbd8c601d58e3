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
(use ``tractor_sim.kernels.rng``), ``scratch`` float64 memory that lives for
the deal (zeroed at its start), and ``out`` an int64[54] buffer for the
answer:
- declare: ``out[0] = kind`` (1 single, 2 pair, 3 joker pair), ``out[1] =
  card``; return 1 to declare, 0 to pass;
- discard: ``out`` = counts of the 8 cards to bury; return 8;
- lead / follow: ``out`` = counts of the cards to play; return their number;
- bid (only with the rule ``declaring = "auction"``), three steps told by
  ``M_BID_STEP``: BID_STEP_BID: ``out[0]`` = the points my pair bids (a
  multiple of 5 from 0 to MAX_BID), return 1; BID_STEP_SHOW: ``out`` = counts
  of the one card I show, return 1; BID_STEP_TRUMP (the starter only):
  ``out[0]`` = the trump suit I name (0..3 = S H D C), return 1.

Values between the events that set them: during the draw the trump table
rows are those of (trump rank, no trump suit); M_DECL_CARD is 0 while nobody
has declared; M_LEAD_* and M_WINNING keep the previous trick's values while a
seat decides its lead (0 before the first lead), and M_WINNING_KEY is -1
then; M_LEAD_LONGEST is the lead's largest unit in pairs (1 for a pair, 0
for a single); M_BID_STEP keeps its last value after the auction.

The rules of the deal are in row V_RULES (``tractor_sim.rules.Rules.encode``,
indices ``R_*``), so a strategy can follow a variant (for example
``R_FOLLOW_TRACTOR``) without being recompiled.
"""

from numba import types

STRATEGY_SIG = types.int64(
    types.int64[:, ::1], types.float64[::1], types.uint64[::1], types.float64[::1], types.int64[::1]
)
STRATEGY_TYPE = types.FunctionType(STRATEGY_SIG)

DECLARE = 0
DISCARD = 1
LEAD = 2
FOLLOW = 3
BID = 4
DECISIONS = ("declare", "discard", "lead", "follow", "bid")

BID_STEP_BID = 0
BID_STEP_SHOW = 1
BID_STEP_TRUMP = 2
MAX_BID = 200

# Rows of the view.
V_PLAYED = 0  # rows 0..3: cards each seat has played so far this deal (counts)
V_TRICK = 4  # rows 4..7: cards each seat has played in the current trick
V_HAND = 8  # my hand
V_BURIED = 9  # the cards I buried (only the starter, after the exchange)
V_EFF = 10  # trump table: effective suit of each card (4 = trumps)
V_POS = 11  # trump table: position in its effective suit
V_SUITS = 12  # rows 12..16: cards of effective suit s in ascending order, -1 padded
V_TTMETA = 17  # trump table meta row (see kernels.order META_*)
V_META = 18  # scalars, M_* below
V_TRICK_LEADER = 19  # per finished trick: its leader
V_TRICK_WINNER = 20  # per finished trick: its winner
V_TRICK_POINTS = 21  # per finished trick: its points
V_DECL_SEAT = 22  # declaration events in order: seat,
V_DECL_KIND = 23  # kind,
V_DECL_CARD = 24  # card
V_RULES = 25  # the encoded rules (tractor_sim.rules R_* indices), the rest 0
V_ROWS = 26

# Columns of the V_META row.
M_SEAT = 0  # my seat
M_DECISION = 1  # DECLARE, DISCARD, LEAD, FOLLOW or BID
M_TRICK = 2  # index of the current trick (0..24)
M_LEADER = 3  # leader of the current trick
M_NPLAYED = 4  # plays made so far in the current trick
M_STARTER = 5  # the round's starter (-1 while unknown in round 1)
M_DECL_TEAM = 6  # declaring team (-1 while unknown in round 1)
M_LEVEL0 = 7  # team 0's level (0..12 = 2..A)
M_LEVEL1 = 8
M_TRUMP_RANK = 9  # (-1 under the auction until the bids are in)
M_TRUMP_SUIT = 10  # 0..3, 4 = no trump suit, -1 while not yet set
M_OPP_POINTS = 11  # opponents' points so far (tricks and penalties)
M_LEAD_N = 12  # the current lead (as played): number of cards,
M_LEAD_SUIT = 13  # effective suit,
M_LEAD_PAIRS = 14  # pairs,
M_LEAD_KIND = 15  # kind (combos.KIND_*),
M_LEAD_LONGEST = 16  # longest tractor (pairs) in it
M_WINNING = 17  # seat winning the current trick so far
M_DECL_SEAT = 18  # standing declaration: seat (-1 none),
M_DECL_KIND = 19  # kind (0 none),
M_DECL_CARD = 20  # card
M_DRAWN = 21  # cards drawn so far (0..100) during the deal
M_NDECL = 22  # number of declaration events so far
M_TRICK_POINTS = 23  # points in the current trick so far
M_ROUND1 = 24  # 1 in the first round of a match (trump rank 2 for all, declarer unknown)
M_FAILED_THROW = 25  # 1 if the current trick's lead is the forced part of a failed throw
M_TRICKS_DONE = 26  # finished tricks
# The auction (rule declaring = "auction"; with the draw these stay 0).  During the draw
# and the bids the trump table rows hold the order for my own team's level and
# no trump suit (the trump rank if my team declares).
M_DEALER = 27  # the dealer: he draws first, bids first for his pair, shows first
M_BID_STEP = 28  # BID_STEP_BID, BID_STEP_SHOW or BID_STEP_TRUMP while deciding a bid
M_BID0 = 29  # 29, 30: the bid of team 0 and team 1 (-1 while not made)
M_SHOWN = 31  # 31..34: the card shown by each seat (-1 while not shown)
M_WINNING_KEY = 35  # the key of M_WINNING's play (as combos.play_key: a ruff adds WIN_TRUMP, a led
# throw 0), -1 while nobody has played to the current trick; strategy_lib.play_key_of recomputes it
M_MY_CARDS = 36  # 36..40: cards of each effective suit in my hand, by the trump table in my view (kept up to date
# at every draw, table change, the kitty and every play; strategy_lib.suit_len reads it)
M_MY_PAIRS = 41  # 41..45: pairs of each effective suit in my hand, likewise
