"""What the learned player sees of one candidate declaration (or the pass): a short vector, compiled.

The ``learned`` declaration (core/strategies/learned.py) scores the
candidates the search tries (kernels.candidates.declare_candidates: the base
policy's answer, the pass, every declaration allowed now) by a weighted sum
of these and makes the highest; ``tractor-sim train`` fits the weights to the
search's values of the same candidates (kernels.search_play, RECORD_TRAIN).
The pass is all zeros but its base flag: a declaration's score is what it is
worth over passing.  Only the seat's view is read: its hand so far, the
standing declaration, the cards drawn, the public scalars.
"""

from numba import njit

from .kernels.declare import ANS_CARD, ANS_KIND, JOKER_PAIR, PAIR
from .kernels.dims import BJ, CARDS, DRAWN, RANKS, SUITS, partner_of, team_of
from .kernels.dims import PAIR as PAIR_CARDS  # cards in a pair (PAIR: the declaration kind)
from .kernels.layout import Layout
from .kernels.view import (
    M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_DECL_TEAM, M_DRAWN, M_ROUND1, M_SEAT, M_TRUMP_RANK, V_HAND, V_META,
    V_RULES,
)
from tractor_sim.rules.options import R_RANK_TRUMPS_NT

DECLARE_FEATURES = Layout("declaration features", [
    ("E_BASE", 1, "1 for the base policy's own answer"),
    ("E_DECLARE", 1, "1 for a declaration (0: the pass)"),
    ("E_LATE", 1, "a declaration: the share of the cards drawn so far"),
    ("E_STRENGTH", 1, "a declaration: the share of my hand that would be trumps"),
    ("E_GAIN", 1, "a declaration over a standing one: that share minus the standing declaration's"),
    ("E_TRUMP_PAIRS", 1, "a declaration: pairs of my hand that would be trumps"),
    ("E_TOP", 1, "a declaration: jokers and trump-rank cards in my hand (the highest trumps)"),
    ("E_MANY", 1, "a declaration of two cards or more of the trump rank (harder to override)"),
    ("E_JOKERS", 1, "a declaration of jokers (no trump suit)"),
    ("E_OVER_PARTNER", 1, "a declaration over my partner's"),
    ("E_OVER_OPPONENT", 1, "a declaration over an opponent's"),
    ("E_OVER_SELF", 1, "a declaration over my own (strengthening it)"),
    ("E_ROUND1", 1, "a declaration in a match's first round (it makes the declaring team)"),
    ("E_MY_TEAM", 1, "a declaration when my team is the declaring team"),
])
globals().update(DECLARE_FEATURES.constants())
N_DECLARE_FEATURES = DECLARE_FEATURES.size
DECLARE_NAMES = tuple(p.name[2:].lower() for p in DECLARE_FEATURES.pieces)
NO_SUIT = -1  # a joker declaration's trump suit: none
ACE = RANKS - 1  # the highest rank of a suit


@njit(cache=True, inline='always')
def _is_trump(c, suit, rank, rank_nt):
    """Whether card c would be a trump with trump ``suit`` (NO_SUIT: jokers declared) and ``rank``."""
    if c >= BJ:
        return True
    if c % RANKS == rank:
        return suit != NO_SUIT or rank_nt != 0
    return suit != NO_SUIT and c // RANKS == suit


@njit(cache=True)
def _trumps_under(view, suit, rank):
    """(cards, pairs) of my hand that would be trumps with ``suit`` (NO_SUIT: jokers) and ``rank``."""
    rank_nt = view[V_RULES, R_RANK_TRUMPS_NT]
    n = 0
    pairs = 0
    for c in range(CARDS):
        h = view[V_HAND, c]
        if h > 0 and _is_trump(c, suit, rank, rank_nt):
            n += h
            pairs += h // PAIR_CARDS
    return n, pairs


@njit(cache=True, inline='always')
def _suit_of(card):
    return NO_SUIT if card >= BJ else card // RANKS


@njit(cache=True)
def declare_features(view, cand, is_base, out):
    """Write the features of the declaration ``cand`` (a candidate row: ANS_KIND, ANS_CARD; the pass all
    zero) in this view into ``out``."""
    for f in range(N_DECLARE_FEATURES):
        out[f] = 0.0
    out[E_BASE] = 1.0 if is_base else 0.0
    kind = cand[ANS_KIND]
    if kind == 0:
        return
    card = cand[ANS_CARD]
    me = view[V_META, M_SEAT]
    rank = view[V_META, M_TRUMP_RANK]
    hand = 0
    top = 0
    for c in range(CARDS):
        hand += view[V_HAND, c]
        if c >= BJ or c % RANKS == rank:
            top += view[V_HAND, c]
    share = 1.0 / max(1, hand)
    n, pairs = _trumps_under(view, _suit_of(card), rank)
    out[E_DECLARE] = 1.0
    out[E_LATE] = view[V_META, M_DRAWN] / DRAWN
    out[E_STRENGTH] = n * share
    out[E_TRUMP_PAIRS] = pairs
    out[E_TOP] = top
    if kind == JOKER_PAIR:
        out[E_JOKERS] = 1.0
    elif kind == PAIR:  # two cards of the rank, or with more decks up to DECKS of them
        out[E_MANY] = 1.0
    if view[V_META, M_DECL_KIND] != 0:
        cur = view[V_META, M_DECL_SEAT]
        standing, _ = _trumps_under(view, _suit_of(view[V_META, M_DECL_CARD]), rank)
        out[E_GAIN] = (n - standing) * share
        if cur == me:
            out[E_OVER_SELF] = 1.0
        elif cur == partner_of(me):
            out[E_OVER_PARTNER] = 1.0
        else:
            out[E_OVER_OPPONENT] = 1.0
    if view[V_META, M_ROUND1] == 1:
        out[E_ROUND1] = 1.0
    if view[V_META, M_DECL_TEAM] == team_of(me):
        out[E_MY_TEAM] = 1.0
