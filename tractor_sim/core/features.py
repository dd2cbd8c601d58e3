"""What the learned player sees of one candidate play: a short vector of numbers, compiled.

The ``learned`` lead and follow (core/strategies/learned.py) score each
candidate (kernels.candidates, the base policy's own answer first) by a
weighted sum of these features and play the highest; ``tractor-sim train``
fits the weights to the search's values of the same candidates in the same
views (kernels.search_play, RECORD_TRAIN).  Both call ``candidate_features``
on the seat's view, so what is trained is what is played.

Only the seat's view is read (its hand, the cards played, the current
trick, the public scalars) and the voids its plays have shown, as the
strategies' shared tracker keeps them in the seat's scratch
(lib.track_voids: the expert's lead and follow, and the learned ones, call
it at every play, so it is up to date wherever the features are taken).  Points are in tens, so the weights are of
one scale.  Each feature is of the candidate and the situation together
(a feature of the situation alone would add the same to every candidate
and could not change the choice).  The lead and the follow have weights of
their own, so a feature means what it says at each.
"""

from numba import njit

from .lib import shown_void
from .kernels import combos as C
from .kernels.dims import CARDS, DECKS, EFF_SUITS, PAIR, SEATS, partner_of, seat_after, team_of
from .kernels.layout import Layout
from .kernels.order import META_NCARDS, TRUMP, TT_EFF, TT_META, TT_POS, TT_SUIT
from .kernels.scoring import POINTS
from .kernels.unowned import stack_array
from .kernels.view import (
    M_DECL_TEAM, M_LEAD_KIND, M_LEAD_N, M_LEAD_SUIT, M_LEADER, M_NPLAYED, M_SEAT, M_TRICK_POINTS,
    M_WINNING, M_WINNING_KEY, V_BURIED, V_EFF, V_HAND, V_META, V_PLAYED, V_TRICK,
)

FEATURES = Layout("candidate features", [
    ("F_BASE", 1, "1 for the base policy's own answer"),
    ("F_CARDS", 1, "cards played"),
    ("F_POINTS", 1, "points played (tens)"),
    ("F_TRUMPS", 1, "trumps played"),
    ("F_HIGH", 1, "how high the cards are in their suits, 0..1 each, summed"),
    ("F_TOP", 1, "cards no unseen card of their suit beats"),
    ("F_BROKEN", 1, "pairs of the hand broken: a card played from a pair held, its twin kept"),
    ("F_VOIDS", 1, "plain suits the play empties in the hand"),
    ("F_PAIRS", 1, "pairs played"),
    ("F_WINS", 1, "a follow that takes the lead of the trick (so far)"),
    ("F_WINS_LAST", 1, "one that wins as the last to play: the trick is mine"),
    ("F_WINS_TOP", 1, "one that wins with cards no unseen card of their suit beats"),
    ("F_WIN_POINTS", 1, "points already in the trick, when the follow wins (tens)"),
    ("F_FEED", 1, "points given to my partner winning the trick (tens)"),
    ("F_GIFT", 1, "points given to an opponent winning the trick (tens)"),
    ("F_RUFF", 1, "trumps played on a plain-suit lead"),
    ("F_OVER_PARTNER", 1, "a follow that takes the trick from my partner"),
    ("F_ALL_TRUMPS", 1, "every card played a trump"),
    ("F_ALL_TOP", 1, "every card played one no unseen card of its suit beats"),
    ("F_DEFEND_POINTS", 1, "points played by the side that does not declare (tens)"),
    ("F_LAST_TRICK_WIN", 1, "a follow that wins in the last trick (the kitty's points go with it)"),
    ("F_TRUMPS_LEFT", 1, "trumps left in the hand after the play, as a share of the hand"),
    ("F_INTO_VOID", 1, "a plain-suit lead: opponents who have shown a void in its suit (they may ruff)"),
    ("F_PARTNER_VOID", 1, "a plain-suit lead into my partner's shown void"),
    ("F_SUIT_LEFT", 1, "cards of the play's suit left in my hand after it (tens)"),
    ("F_SUIT_UNSEEN", 1, "cards of the play's suit the others may still hold (tens)"),
    ("F_RUFF_RISK", 1, "a winning follow on a plain suit before an opponent who has shown a void in it"),
])
globals().update(FEATURES.constants())
N_FEATURES = FEATURES.size
NAMES = tuple(p.name[2:].lower() for p in FEATURES.pieces)  # the features by name, as a model file lists them
TENS = 10.0


@njit(cache=True)
def _unseen(view, c):
    """Copies of card c the others may still hold."""
    n = DECKS - view[V_HAND, c] - view[V_BURIED, c]
    for s in range(SEATS):
        n -= view[V_PLAYED + s, c]
    return n


@njit(cache=True)
def _is_top(view, tt, c):
    """No unseen card of c's effective suit sits above it."""
    s = tt[TT_EFF, c]
    for i in range(tt[TT_META, META_NCARDS + s]):
        d = tt[TT_SUIT + s, i]
        if tt[TT_POS, d] > tt[TT_POS, c] and _unseen(view, d) > 0:
            return False
    return True


@njit(cache=True)
def _follow_key(view, cand, tt, me):
    """The key (combos.play_key) the candidate would have in the current trick."""
    saved = stack_array(CARDS)
    for c in range(CARDS):
        saved[c] = view[V_TRICK + me, c]
        view[V_TRICK + me, c] = cand[c]
    lead_kind = view[V_META, M_LEAD_KIND]
    suit = view[V_META, M_LEAD_SUIT]
    if lead_kind == C.KIND_SINGLE or lead_kind == C.KIND_PAIR:
        key = C.tuple_key(view[V_TRICK + me], suit, view[V_META, M_LEAD_N], tt)
    else:
        units, ucards = C.stack_units()
        lunits, lucards = C.stack_units()
        lnu = C.decompose(view[V_TRICK + view[V_META, M_LEADER]], tt, lunits, lucards)
        key = C.play_key(view[V_TRICK + me], suit, lead_kind, lunits, lnu, tt, units, ucards)
    for c in range(CARDS):
        view[V_TRICK + me, c] = saved[c]
    return key


@njit(cache=True)
def candidate_features(view, scratch, cand, is_base, out):
    """Write the features of playing ``cand`` (counts) at this lead or follow into ``out``; ``scratch``:
    the seat's scratch, holding the voids shown (lib.track_voids)."""
    tt = view[V_EFF:]
    me = view[V_META, M_SEAT]
    for f in range(N_FEATURES):
        out[f] = 0.0
    out[F_BASE] = 1.0 if is_base else 0.0
    k = 0
    pts = 0
    trumps = 0
    hand_trumps = 0
    hand_cards = 0
    for c in range(CARDS):
        h = view[V_HAND, c]
        hand_cards += h
        if tt[TT_EFF, c] == TRUMP:
            hand_trumps += h
        n = cand[c]
        if n == 0:
            continue
        k += n
        pts += n * POINTS[c]
        s = tt[TT_EFF, c]
        if s == TRUMP:
            trumps += n
        ncs = tt[TT_META, META_NCARDS + s]
        out[F_HIGH] += n * (tt[TT_POS, c] + 1.0) / max(1, tt[TT_POS, tt[TT_SUIT + s, ncs - 1]] + 1)
        if _is_top(view, tt, c):
            out[F_TOP] += n
        if h >= PAIR and n % PAIR != 0:
            out[F_BROKEN] += 1.0
        out[F_PAIRS] += n // PAIR
    for s in range(EFF_SUITS):
        if s == TRUMP:
            continue
        held = 0
        played = 0
        for i in range(tt[TT_META, META_NCARDS + s]):
            c = tt[TT_SUIT + s, i]
            held += view[V_HAND, c]
            played += cand[c]
        if held > 0 and held == played:
            out[F_VOIDS] += 1.0
    out[F_CARDS] = k
    out[F_POINTS] = pts / TENS
    out[F_TRUMPS] = trumps
    out[F_TRUMPS_LEFT] = (hand_trumps - trumps) / max(1, hand_cards - k)
    decl = view[V_META, M_DECL_TEAM]
    if decl >= 0 and team_of(me) != decl:
        out[F_DEFEND_POINTS] = pts / TENS
    out[F_ALL_TRUMPS] = 1.0 if trumps == k else 0.0
    out[F_ALL_TOP] = 1.0 if out[F_TOP] == k else 0.0
    npl = view[V_META, M_NPLAYED]
    suit = view[V_META, M_LEAD_SUIT]  # the play's effective suit: a follow's is the led suit's,
    if npl == 0:  # a lead's that of its cards (one suit)
        suit = -1
        for c in range(CARDS):
            if cand[c] > 0:
                suit = tt[TT_EFF, c]
    if suit >= 0:
        left = 0
        unseen = 0
        for i in range(tt[TT_META, META_NCARDS + suit]):
            c = tt[TT_SUIT + suit, i]
            left += view[V_HAND, c] - cand[c]
            unseen += _unseen(view, c)
        out[F_SUIT_LEFT] = left / TENS
        out[F_SUIT_UNSEEN] = unseen / TENS
    if npl == 0:  # a lead: the rest is of the trick so far
        if suit >= 0 and suit != TRUMP:
            for x in range(SEATS):
                if x != me and shown_void(scratch, x, suit):
                    if x == partner_of(me):
                        out[F_PARTNER_VOID] = 1.0
                    else:
                        out[F_INTO_VOID] += 1.0
        return
    key = _follow_key(view, cand, tt, me)
    wins = key > view[V_META, M_WINNING_KEY]
    winner = view[V_META, M_WINNING]
    partner_wins = winner == partner_of(me)
    if view[V_META, M_LEAD_SUIT] != TRUMP:
        out[F_RUFF] = trumps
    if wins:
        out[F_WINS] = 1.0
        out[F_WIN_POINTS] = view[V_META, M_TRICK_POINTS] / TENS
        if npl == SEATS - 1:
            out[F_WINS_LAST] = 1.0
        if out[F_ALL_TOP] != 0.0:
            out[F_WINS_TOP] = 1.0
        if suit != TRUMP:
            leader = view[V_META, M_LEADER]
            for i in range(npl + 1, SEATS):
                x = seat_after(leader, i)
                if team_of(x) != team_of(me) and shown_void(scratch, x, suit):
                    out[F_RUFF_RISK] = 1.0
        if partner_wins:
            out[F_OVER_PARTNER] = 1.0
        if k == hand_cards:  # the hand's last cards: the last trick
            out[F_LAST_TRICK_WIN] = 1.0
    elif partner_wins:
        out[F_FEED] = pts / TENS
    else:
        out[F_GIFT] = pts / TENS
