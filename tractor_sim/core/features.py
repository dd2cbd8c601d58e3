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


# What every candidate of one decision shares, computed once per decision (``situation``).
SITUATION = Layout("situation", [
    ("X_TOP_POS", EFF_SUITS, "the highest position of a card the others may hold, per effective suit (-1: none)"),
    ("X_MAX_POS", EFF_SUITS, "the highest position of the suit"),
    ("X_HELD", EFF_SUITS, "my cards of the suit"),
    ("X_UNSEEN", EFF_SUITS, "cards of the suit the others may hold"),
    ("X_HAND", 1, "my cards"),
])
globals().update(SITUATION.constants())
SITUATION_CELLS = SITUATION.size


@njit(cache=True)
def situation(view, sit):
    """Fill ``sit`` (SITUATION) from the seat's view: what the features of every candidate read."""
    tt = view[V_EFF:]
    hand = 0  # the sums in locals, stored once per suit
    for s in range(EFF_SUITS):
        top = -1
        suit_held = 0
        suit_unseen = 0
        n = tt[TT_META, META_NCARDS + s]
        sit[X_MAX_POS + s] = tt[TT_POS, tt[TT_SUIT + s, n - 1]] if n > 0 else 0
        for i in range(n):
            c = tt[TT_SUIT + s, i]
            held = view[V_HAND, c]
            unseen = DECKS - held - view[V_BURIED, c]
            for x in range(SEATS):
                unseen -= view[V_PLAYED + x, c]
            suit_held += held
            suit_unseen += unseen
            if unseen > 0 and tt[TT_POS, c] > top:
                top = tt[TT_POS, c]
        sit[X_TOP_POS + s] = top
        sit[X_HELD + s] = suit_held
        sit[X_UNSEEN + s] = suit_unseen
        hand += suit_held
    sit[X_HAND] = hand


@njit(cache=True)
def lead_units(view, lunits, lucards):
    """Decompose the trick's lead into ``lunits``/``lucards`` (fresh combos.stack_units) when a follow's
    key needs it (a tractor or a throw led); returns the units, 0 at a lead or a single or pair led.
    Once per decision: every candidate's key compares with the same units."""
    kind = view[V_META, M_LEAD_KIND]
    if view[V_META, M_NPLAYED] == 0 or kind == C.KIND_SINGLE or kind == C.KIND_PAIR:
        return 0
    return C.decompose(view[V_TRICK + view[V_META, M_LEADER]], view[V_EFF:], lunits, lucards)


@njit(cache=True)
def _follow_key(view, cand, tt, first, ncards_held, lunits, lnu):
    """The key (combos.play_key) the candidate would have in the current trick; ``first``: its lowest
    card id, ``ncards_held``: how many card ids it holds; ``lunits[:lnu]``: lead_units."""
    lead_kind = view[V_META, M_LEAD_KIND]
    suit = view[V_META, M_LEAD_SUIT]
    if lead_kind == C.KIND_SINGLE or lead_kind == C.KIND_PAIR:  # combos.tuple_key on the ids held
        if ncards_held != 1 or cand[first] != view[V_META, M_LEAD_N]:
            return -1
        return C.card_key(first, suit, tt)
    if lead_kind == C.KIND_THROW:  # play_key: only trumps on a plain suit can beat a throw
        s = C.combo_suit(cand, tt)
        if s != TRUMP or suit == TRUMP:
            return -1
    units, ucards = C.stack_units()
    return C.play_key(cand, suit, lead_kind, lunits, lnu, tt, units, ucards)


@njit(cache=True)
def candidate_features(view, scratch, sit, cand, is_base, out):
    """Write the features of playing ``cand`` (counts) at this lead or follow into ``out``; ``scratch``:
    the seat's scratch, holding the voids shown (lib.track_voids); ``sit``: ``situation`` of the view."""
    lunits, lucards = C.stack_units()
    lnu = lead_units(view, lunits, lucards)
    candidate_features_of(view, scratch, sit, cand, is_base, out, lunits, lnu)


@njit(cache=True, inline='always')
def candidate_features_of(view, scratch, sit, cand, is_base, out, lunits, lnu):
    """candidate_features with the lead's units given (``lead_units``, once for every candidate)."""
    tt = view[V_EFF:]
    me = view[V_META, M_SEAT]
    for f in range(N_FEATURES):
        out[f] = 0.0
    out[F_BASE] = 1.0 if is_base else 0.0
    k = 0
    pts = 0
    trumps = 0
    played = stack_array(EFF_SUITS)
    for s in range(EFF_SUITS):
        played[s] = 0
    ids = stack_array(CARDS)  # the card ids played, ascending
    m = 0
    for c in range(CARDS):
        if cand[c] != 0:
            ids[m] = c
            m += 1
    for j in range(m):
        c = ids[j]
        n = cand[c]
        k += n
        pts += n * POINTS[c]
        s = tt[TT_EFF, c]
        played[s] += n
        if s == TRUMP:
            trumps += n
        pos = tt[TT_POS, c]
        out[F_HIGH] += n * (pos + 1.0) / max(1, sit[X_MAX_POS + s] + 1)
        if sit[X_TOP_POS + s] <= pos:
            out[F_TOP] += n
        if view[V_HAND, c] >= PAIR and n % PAIR != 0:
            out[F_BROKEN] += 1.0
        out[F_PAIRS] += n // PAIR
    for s in range(EFF_SUITS):
        if s != TRUMP and sit[X_HELD + s] > 0 and sit[X_HELD + s] == played[s]:
            out[F_VOIDS] += 1.0
    hand_cards = sit[X_HAND]
    hand_trumps = sit[X_HELD + TRUMP]
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
        suit = tt[TT_EFF, ids[m - 1]] if m > 0 else -1
    if suit >= 0:
        out[F_SUIT_LEFT] = (sit[X_HELD + suit] - played[suit]) / TENS
        out[F_SUIT_UNSEEN] = sit[X_UNSEEN + suit] / TENS
    if npl == 0:  # a lead: the rest is of the trick so far
        if suit >= 0 and suit != TRUMP:
            for x in range(SEATS):
                if x != me and shown_void(scratch, x, suit):
                    if x == partner_of(me):
                        out[F_PARTNER_VOID] = 1.0
                    else:
                        out[F_INTO_VOID] += 1.0
        return
    key = _follow_key(view, cand, tt, ids[0] if m > 0 else 0, m, lunits, lnu)
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
