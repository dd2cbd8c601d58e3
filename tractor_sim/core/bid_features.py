"""What the learned player sees of one candidate answer to an auction step: a short vector, compiled.

The ``learned`` bid (core/strategies/learned.py) scores the candidates the
search tries (kernels.candidates.bid_candidates: the base policy's answer,
then the other bids, the cards to show, or the suits to name) by a weighted
sum of these and answers the highest; ``tractor-sim train`` fits the weights
to the search's values of the same candidates (kernels.search_play,
RECORD_TRAIN).  Each step has features of its own (the others' are 0), so
one weight vector serves the three steps.  A bid's features are its level
(0..1 of MAX_BID) alone and times what makes a hand worth declaring: the
bid costs nothing but decides who declares.  Only the seat's view is read:
its hand, the bids and the cards shown so far, the public scalars.
"""

from numba import njit

from .kernels.declare import show_key
from .kernels.dims import BJ, CARDS, PAIR, RANKS, SEATS, SUITS, team_of
from .kernels.layout import Layout
from .kernels.scoring import POINTS
from .kernels.view import (
    BID_STEP_BID, BID_STEP_SHOW, M_BID0, M_BID_STEP, M_DEALER, M_DECL_TEAM, M_SEAT, M_SHOWN, M_TRUMP_RANK, MAX_BID,
    V_HAND, V_META,
)
from .lib.auction import best_trump_suit, my_level

BID_FEATURES = Layout("bid features", [
    ("A_BASE", 1, "1 for the base policy's own answer"),
    ("A_BID", 1, "a bid: its level, the points bid over MAX_BID (0..1)"),
    ("A_PASS", 1, "a bid of 0"),
    ("A_BID_TRUMPS", 1, "a bid: its level times the share of my hand that would be trumps in my best suit at my level"),
    ("A_BID_TOP", 1, "a bid: its level times my jokers and cards of my level's rank (the highest trumps)"),
    ("A_BID_PAIRS", 1, "a bid: its level times my pairs that would be trumps in my best suit at my level"),
    ("A_BID_POINTS", 1, "a bid: its level times the points in my hand (tens)"),
    ("A_BID_WINS", 1, "a bid after the other pair's: 1 if it makes my pair the declaring team"),
    ("A_SHOW_HIGH", 1, "a card shown: how high (declare.show_key over its highest, the red joker's)"),
    ("A_SHOW_STARTS", 1, "a card shown: 1 if it is the highest shown so far (it would make me the starter)"),
    ("A_SHOW_STARTS_MINE", 1, "the same when my pair declares"),
    ("A_SHOW_TRUMP", 1, "a card shown: 1 if it is a trump whatever the suit (a joker or of the trump rank)"),
    ("A_SHOW_SUIT", 1, "a card shown of a plain suit: the share of my hand in that suit (it tells the others)"),
    ("A_SUIT_TRUMPS", 1, "a suit named: the share of my hand that would be trumps"),
    ("A_SUIT_PAIRS", 1, "a suit named: my pairs of that suit (not of the trump rank)"),
    ("A_SUIT_HIGH", 1, "a suit named: my aces and kings of that suit"),
    ("A_SUIT_POINTS", 1, "a suit named: the points of that suit in my hand (tens)"),
])
globals().update(BID_FEATURES.constants())
N_BID_FEATURES = BID_FEATURES.size
BID_NAMES = tuple(p.name[2:].lower() for p in BID_FEATURES.pieces)
TENS = 10.0
ACE = RANKS - 1
KING = RANKS - 2
TOP_KEY = RANKS + 1  # show_key of the red joker


@njit(cache=True)
def _hand_size(view):
    n = 0
    for c in range(CARDS):
        n += view[V_HAND, c]
    return n


@njit(cache=True)
def _trump_pairs(view, suit, rank):
    """My pairs that would be trumps with trump ``suit`` and ``rank``: jokers, the rank, the suit."""
    pairs = 0
    for c in range(CARDS):
        if c >= BJ or c % RANKS == rank or c // RANKS == suit:
            pairs += view[V_HAND, c] // PAIR
    return pairs


@njit(cache=True)
def _bid(view, bid, out):
    """A bid's features (BID_STEP_BID)."""
    level = bid / MAX_BID
    out[A_BID] = level
    out[A_PASS] = 1.0 if bid == 0 else 0.0
    me = view[V_META, M_SEAT]
    rank = my_level(view)
    suit, strength = best_trump_suit(view, rank)
    top = 0
    points = 0
    for c in range(CARDS):
        h = view[V_HAND, c]
        if c >= BJ or c % RANKS == rank:
            top += h
        points += h * POINTS[c]
    out[A_BID_TRUMPS] = level * strength / max(1, _hand_size(view))
    out[A_BID_TOP] = level * top
    out[A_BID_PAIRS] = level * _trump_pairs(view, suit, rank)
    out[A_BID_POINTS] = level * points / TENS
    other = view[V_META, M_BID0 + 1 - team_of(me)]
    if other >= 0:  # the other pair has bid: the higher bid declares, a tie the dealer's pair
        dealer_mine = team_of(view[V_META, M_DEALER]) == team_of(me)
        out[A_BID_WINS] = 1.0 if bid > other or (bid == other and dealer_mine) else 0.0


@njit(cache=True)
def _show(view, cand, out):
    """A shown card's features (BID_STEP_SHOW): ``cand`` holds its count."""
    card = 0
    for c in range(CARDS):
        if cand[c] > 0:
            card = c
    me = view[V_META, M_SEAT]
    key = show_key(card)
    out[A_SHOW_HIGH] = key / TOP_KEY
    starts = True
    for s in range(SEATS):
        shown = view[V_META, M_SHOWN + s]
        if s != me and shown >= 0 and show_key(shown) >= key:  # a tie: the earlier shown starts
            starts = False
    if starts:
        out[A_SHOW_STARTS] = 1.0
        if view[V_META, M_DECL_TEAM] == team_of(me):
            out[A_SHOW_STARTS_MINE] = 1.0
    if card >= BJ or card % RANKS == view[V_META, M_TRUMP_RANK]:
        out[A_SHOW_TRUMP] = 1.0
    else:
        held = 0
        for r in range(RANKS):
            held += view[V_HAND, (card // RANKS) * RANKS + r]
        out[A_SHOW_SUIT] = held / max(1, _hand_size(view))


@njit(cache=True)
def _suit(view, suit, out):
    """A named suit's features (BID_STEP_TRUMP)."""
    rank = view[V_META, M_TRUMP_RANK]
    n = view[V_HAND, BJ] + view[V_HAND, BJ + 1]
    pairs = 0
    points = 0
    for r in range(RANKS):
        for s in range(SUITS):
            h = view[V_HAND, s * RANKS + r]
            if r == rank or s == suit:
                n += h
            if s == suit and r != rank:
                pairs += h // PAIR
                points += h * POINTS[s * RANKS + r]
                if r == ACE or r == KING:
                    out[A_SUIT_HIGH] += h
    out[A_SUIT_TRUMPS] = n / max(1, _hand_size(view))
    out[A_SUIT_PAIRS] = pairs
    out[A_SUIT_POINTS] = points / TENS


@njit(cache=True)
def bid_features(view, cand, is_base, out):
    """Write the features of the auction answer ``cand`` (a candidate row as kernels.candidates.bid_candidates
    lists it: a bid or a suit in cand[0], a card shown as its count) in this view into ``out``."""
    for f in range(N_BID_FEATURES):
        out[f] = 0.0
    out[A_BASE] = 1.0 if is_base else 0.0
    step = view[V_META, M_BID_STEP]
    if step == BID_STEP_BID:
        _bid(view, cand[0], out)
    elif step == BID_STEP_SHOW:
        _show(view, cand, out)
    else:
        _suit(view, cand[0], out)
