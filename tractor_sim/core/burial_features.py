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
from .kernels.order import META_NCARDS, TRUMP, TT_POS, TT_SUIT, TT_META
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


@njit(cache=True)
def burial_features(view, cand, is_base, out):
    """Write the features of burying ``cand`` (counts) from the hand in this view (the hand and the
    kitty) into ``out``."""
    tt = view[V_EFF:]
    for f in range(N_BURIAL_FEATURES):
        out[f] = 0.0
    out[B_BASE] = 1.0 if is_base else 0.0
    held = stack_array(EFF_SUITS)
    kept = stack_array(EFF_SUITS)
    buried = stack_array(EFF_SUITS)
    kept_points = stack_array(EFF_SUITS)
    hand = 0
    pts = 0
    for s in range(EFF_SUITS):
        held[s] = 0
        kept[s] = 0
        buried[s] = 0
        kept_points[s] = 0
        top = -1  # the highest position of a card outside my hand
        n = tt[TT_META, META_NCARDS + s]
        for i in range(n):
            c = tt[TT_SUIT + s, i]
            if view[V_HAND, c] < DECKS and tt[TT_POS, c] > top:
                top = tt[TT_POS, c]
        for i in range(n):
            c = tt[TT_SUIT + s, i]
            h = view[V_HAND, c]
            b = cand[c]
            held[s] += h
            kept[s] += h - b
            kept_points[s] += (h - b) * POINTS[c]
            if b == 0:
                continue
            buried[s] += b
            pts += b * POINTS[c]
            pos = tt[TT_POS, c]
            out[B_HIGH] += b * (pos + 1.0) / max(1, tt[TT_POS, tt[TT_SUIT + s, n - 1]] + 1)
            if pos >= top:
                out[B_TOP] += b
            if h >= PAIR and b % PAIR != 0:
                out[B_BROKEN] += 1.0
            out[B_PAIRS] += b // PAIR
        hand += held[s]
    longest = 0
    for s in range(SUITS):
        if held[s] > held[longest]:
            longest = s
        if held[s] > 0 and kept[s] == 0:
            out[B_VOIDS] += 1.0
        if kept[s] == 1:
            out[B_SINGLES] += 1.0
        if 0 < kept[s] <= SHORT:
            out[B_SHORT_POINTS] += kept_points[s] / TENS
    out[B_POINTS] = pts / TENS
    out[B_POINTS_STRONG] = pts / TENS * held[TRUMP] / max(1, hand)
    out[B_TRUMPS] = buried[TRUMP]
    out[B_LONG] = buried[longest]
