"""What the learned player sees of one candidate burial: a short vector of numbers, compiled.

The ``learned`` burial (core/strategies/learned.py) scores the burials the
search tries (kernels.candidates.burial_candidates: the base policy's burial,
then its neighbours one swap away) by a weighted sum of these and buries the
highest; ``tractor-sim train`` fits the weights to the search's values of the
same candidates (kernels.search_play, RECORD_TRAIN).  Only the starter's view
is read: its hand with the kitty, and the trump table.  Points are in tens.
"""

from numba import njit

from .kernels.dims import CARDS, DECKS, EFF_SUITS, PAIR, SUITS
from .kernels.layout import Layout
from .kernels.order import META_NCARDS, TRUMP, TT_EFF, TT_POS, TT_SUIT, TT_META
from .kernels.scoring import POINTS
from .kernels.unowned import stack_array
from .kernels.view import V_EFF, V_HAND

BURIAL_FEATURES = Layout("burial features", [
    ("B_BASE", 1, "1 for the base policy's own burial"),
    ("B_POINTS", 1, "points buried (tens)"),
    ("B_POINTS_STRONG", 1, "points buried (tens) times the share of the hand that is trumps"),
    ("B_TRUMPS", 1, "trumps buried"),
    ("B_HIGH", 1, "how high the buried cards are in their suits, 0..1 each, summed"),
    ("B_TOP", 1, "buried cards no card outside my hand beats"),
    ("B_BROKEN", 1, "pairs broken: a card of a pair held buried, its twin kept"),
    ("B_PAIRS", 1, "pairs buried"),
    ("B_VOIDS", 1, "plain suits the burial empties"),
    ("B_SINGLES", 1, "plain suits left with one card"),
    ("B_SHORT_POINTS", 1, "points kept in plain suits of two cards or fewer (tens)"),
    ("B_LONG", 1, "cards buried from my longest plain suit"),
])
globals().update(BURIAL_FEATURES.constants())
N_BURIAL_FEATURES = BURIAL_FEATURES.size
BURIAL_NAMES = tuple(p.name[2:].lower() for p in BURIAL_FEATURES.pieces)
TENS = 10.0
SHORT = 2  # a plain suit of this many cards or fewer is short: its points are hard to keep

# What every candidate burial of one decision shares, computed once (``burial_situation``).
BURIAL_SITUATION = Layout("burial situation", [
    ("Y_HELD", EFF_SUITS, "my cards of each effective suit (the hand and the kitty)"),
    ("Y_POINTS", EFF_SUITS, "their points"),
    ("Y_TOP_OUT", EFF_SUITS, "the highest position of a card of the suit outside my hand (-1: none)"),
    ("Y_MAX_POS", EFF_SUITS, "the highest position of the suit"),
    ("Y_HAND", 1, "my cards"),
    ("Y_LONGEST", 1, "my longest plain suit (the first of equals)"),
])
globals().update(BURIAL_SITUATION.constants())
BURIAL_SITUATION_CELLS = BURIAL_SITUATION.size


@njit(cache=True)
def burial_situation(view, sit):
    """Fill ``sit`` (BURIAL_SITUATION) from the starter's view: what the features of every burial read."""
    tt = view[V_EFF:]
    hand = 0
    for s in range(EFF_SUITS):
        n = tt[TT_META, META_NCARDS + s]
        held = 0
        pts = 0
        top = -1
        for i in range(n):
            c = tt[TT_SUIT + s, i]
            h = view[V_HAND, c]
            held += h
            pts += h * POINTS[c]
            if h < DECKS and tt[TT_POS, c] > top:
                top = tt[TT_POS, c]
        sit[Y_HELD + s] = held
        sit[Y_POINTS + s] = pts
        sit[Y_TOP_OUT + s] = top
        sit[Y_MAX_POS + s] = tt[TT_POS, tt[TT_SUIT + s, n - 1]] if n > 0 else 0
        hand += held
    sit[Y_HAND] = hand
    longest = 0
    for s in range(SUITS):
        if sit[Y_HELD + s] > sit[Y_HELD + longest]:
            longest = s
    sit[Y_LONGEST] = longest


@njit(cache=True)
def burial_features(view, cand, is_base, out):
    """Write the features of burying ``cand`` (counts) from the hand in this view (the hand and the
    kitty) into ``out``."""
    sit = stack_array(BURIAL_SITUATION_CELLS)
    burial_situation(view, sit)
    burial_features_of(view, sit, cand, is_base, out)


@njit(cache=True)
def burial_features_of(view, sit, cand, is_base, out):
    """burial_features with the situation given (``burial_situation``, once for every candidate)."""
    tt = view[V_EFF:]
    for f in range(N_BURIAL_FEATURES):
        out[f] = 0.0
    out[B_BASE] = 1.0 if is_base else 0.0
    buried = stack_array(EFF_SUITS)
    buried_points = stack_array(EFF_SUITS)
    for s in range(EFF_SUITS):
        buried[s] = 0
        buried_points[s] = 0
    pts = 0
    for c in range(CARDS):
        b = cand[c]
        if b == 0:
            continue
        s = tt[TT_EFF, c]
        buried[s] += b
        buried_points[s] += b * POINTS[c]
        pts += b * POINTS[c]
        pos = tt[TT_POS, c]
        out[B_HIGH] += b * (pos + 1.0) / max(1, sit[Y_MAX_POS + s] + 1)
        if pos >= sit[Y_TOP_OUT + s]:
            out[B_TOP] += b
        if view[V_HAND, c] >= PAIR and b % PAIR != 0:
            out[B_BROKEN] += 1.0
        out[B_PAIRS] += b // PAIR
    for s in range(SUITS):
        kept = sit[Y_HELD + s] - buried[s]
        if sit[Y_HELD + s] > 0 and kept == 0:
            out[B_VOIDS] += 1.0
        if kept == 1:
            out[B_SINGLES] += 1.0
        if 0 < kept <= SHORT:
            out[B_SHORT_POINTS] += (sit[Y_POINTS + s] - buried_points[s]) / TENS
    out[B_POINTS] = pts / TENS
    out[B_POINTS_STRONG] = pts / TENS * sit[Y_HELD + TRUMP] / max(1, sit[Y_HAND])
    out[B_TRUMPS] = buried[TRUMP]
    out[B_LONG] = buried[sit[Y_LONGEST]]
