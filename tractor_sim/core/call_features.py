"""What the learned player sees of one candidate set of Finding Friends calls: a short vector, compiled.

The ``learned`` call (core/strategies/learned.py) scores the candidates the
search tries (kernels.candidates.call_candidates: the base policy's calls,
then every set one call away) by a weighted sum of these and answers the
highest; ``tractor-sim train`` fits the weights to the search's values of the
same candidates (kernels.search_play, RECORD_TRAIN).  A set of calls is
described by the sum of its calls' features: what the called card is (how
high, an off-suit ace, the trump suit's, its points, the highest left of its
suit outside my hand), whether anybody else can play the called copy (my
copies and my burial's are not theirs), how many copies fall before it, and
whether I can lead its suit to reach the friend.  Only the seat's view is
read: its hand, its burial and the public scalars.
"""

from numba import njit

from .kernels.dims import BJ, CALLS, DECKS, RANKS, SUITS
from .kernels.layout import Layout
from .kernels.scoring import POINTS
from .kernels.view import M_TRUMP_RANK, M_TRUMP_SUIT, V_BURIED, V_HAND, V_META

CALL_FEATURES = Layout("call features", [
    ("K_BASE", 1, "1 for the base policy's own calls"),
    ("K_HEIGHT", 1, "the called card's rank, 0 (two) .. 1 (ace)"),
    ("K_ACE", 1, "an ace of a plain suit (its holder wins a trick with it early)"),
    ("K_TRUMP_SUIT", 1, "a card of the trump suit"),
    ("K_POINTS", 1, "the called card's points (tens)"),
    ("K_TOP", 1, "no higher card of its suit is held outside my hand and burial (the holder wins with it)"),
    ("K_MINE", 1, "the copies of it I hold, over the decks"),
    ("K_OUT", 1, "the copies of it the others hold (not mine, not buried), over the decks"),
    ("K_DEAD", 1, "nobody else holds the called copy: the call is used up by me or never played"),
    ("K_NEXT", 1, "the copy called is the one after mine (I lead mine first, the next is another's)"),
    ("K_EARLY", 1, "the copy called is one of mine or before them (I may use the call up myself)"),
    ("K_LATE", 1, "copies of others that fall before the called one, over the decks"),
    ("K_SUIT_LEN", 1, "my cards of the called card's suit, not of the trump rank (tens): I can lead it"),
    ("K_SUIT_VOID", 1, "I hold no card of its suit (I cannot lead to the friend)"),
    ("K_REPEAT", 1, "it names the same card as an earlier call"),
])
globals().update(CALL_FEATURES.constants())
N_CALL_FEATURES = CALL_FEATURES.size
CALL_NAMES = tuple(p.name[2:].lower() for p in CALL_FEATURES.pieces)
TENS = 10.0


@njit(cache=True)
def _suit_length(view, suit, rank):
    n = 0
    for r in range(RANKS):
        if r != rank:
            n += view[V_HAND, suit * RANKS + r]
    return n


@njit(cache=True)
def _top(view, card, rank):
    """Whether every copy of each higher card of the suit (the trump rank aside) is mine or buried."""
    suit = card // RANKS
    for r in range(card % RANKS + 1, RANKS):
        c = suit * RANKS + r
        if r != rank and view[V_HAND, c] + view[V_BURIED, c] < DECKS:
            return False
    return True


@njit(cache=True)
def call_features(view, cand, is_base, out):
    """Write the features of the calls ``cand`` (cand[j] the card, cand[CALLS + j] its copy, as
    kernels.candidates.call_candidates lists them) in the landlord's view into ``out``."""
    for f in range(N_CALL_FEATURES):
        out[f] = 0.0
    out[K_BASE] = 1.0 if is_base else 0.0
    rank = view[V_META, M_TRUMP_RANK]
    trump = view[V_META, M_TRUMP_SUIT]
    for j in range(CALLS):
        card = cand[j]
        copy = cand[CALLS + j]
        if card < 0 or card >= BJ:  # not a callable card (the kernels refuse it): nothing to describe
            continue
        suit = card // RANKS
        r = card % RANKS
        mine = view[V_HAND, card]
        others = DECKS - mine - view[V_BURIED, card]
        out[K_HEIGHT] += r / (RANKS - 1)
        if r == RANKS - 1 and suit != trump:
            out[K_ACE] += 1.0
        if suit == trump:
            out[K_TRUMP_SUIT] += 1.0
        out[K_POINTS] += POINTS[card] / TENS
        if _top(view, card, rank):
            out[K_TOP] += 1.0
        out[K_MINE] += mine / DECKS
        out[K_OUT] += others / DECKS
        if copy > mine + others or copy <= mine and others == 0:
            out[K_DEAD] += 1.0
        if copy == mine + 1:
            out[K_NEXT] += 1.0
        if copy <= mine:
            out[K_EARLY] += 1.0
        out[K_LATE] += max(0, copy - mine - 1) / DECKS
        length = _suit_length(view, suit, rank) if suit < SUITS else 0
        out[K_SUIT_LEN] += length / TENS
        if length == 0:
            out[K_SUIT_VOID] += 1.0
        for i in range(j):
            if cand[i] == card:
                out[K_REPEAT] += 1.0
