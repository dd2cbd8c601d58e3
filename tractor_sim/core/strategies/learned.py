"""The learned declaration, burial, lead, follow, bid and call: the expert's answer and the search's
candidates, scored by a model.

Each candidate (kernels.candidates: the lists the search tries, with the
expert's own answer first) is scored by a weighted sum of its features
(core/features.py for a play, core/burial_features.py, core/declare_features.py,
core/bid_features.py for the auction's steps, core/call_features.py for
Finding Friends' calls)
and the highest is taken; ties go to the earlier, so with every weight 0
this plays as ``expert``.  The weights are the
strategy's parameters, one per feature by name: ``tractor-sim train``
fits them to the search's values of the same candidates (a model file,
tractor_sim.play.learned), and ``{policy = "learned", model = "PATH"}``
loads them.  Only the view is read, as by every strategy.
"""

from numba import njit

from .. import lib as sl
from ..kernels import combos as C
from ..burial_features import (
    BURIAL_NAMES, BURIAL_SITUATION_CELLS, N_BURIAL_FEATURES, burial_features_of, burial_situation,
)
from ..bid_features import BID_NAMES, N_BID_FEATURES, bid_features
from ..call_features import CALL_NAMES, N_CALL_FEATURES, call_features
from ..declare_features import DECLARE_NAMES, N_DECLARE_FEATURES, declare_features
from ..kernels.candidates import (
    JOKER_KINDS, bid_candidates, bid_row, burial_candidates, call_candidates, declare_candidates, follow_candidates,
    lead_candidates,
)
from ..kernels.combos import UNIT_FIELDS
from ..kernels.deal import SCRATCH
from ..kernels.declare import ANS_CARD, ANS_COUNT, ANS_KIND, kind_count
from ..kernels.dims import CARDS, DECKS, PAIR, SUITS
from ..features import N_FEATURES, NAMES, SITUATION_CELLS, candidate_features_of, situation
from ..kernels.unowned import rows_in, stack_array
from ..kernels.view import (
    BID, CALL, DECLARE, DISCARD, M_BID_STEP, M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_LEAD_KIND, M_LEAD_N,
    M_LEAD_PAIRS, M_LEAD_SUIT, M_LEADER, M_SEAT, M_TRUMP_RANK, V_HAND, V_META, V_RULES, V_SUITS, V_TRICK,
)
from ..registry import strategy
from .bid import STRENGTH_PARAMS, strength_answer
from .call import ace_answer
from .declare import OVERRIDE_PARAMS, override_answer
from .discard import EXPERT_PARAMS, expert_burial
from .follow import play_smart
from .lead import expert_lead

MAX_SCORED = 32  # candidates scored per decision, at most (the search's default list; 16 measured weaker: +0.138 vs +0.156)
MAX_CALLS = 16  # calls scored: the teacher's list (experiments/train-5x2f.toml); 32 measured weaker (docs/learned.md)
CAND_CELLS = MAX_SCORED * CARDS  # the candidate list's cells, on the stack
WEIGHTS = {name: 0.0 for name in NAMES}  # a weight per feature; all 0: the expert's answer
RANGES = {name: (-1000.0, 1000.0) for name in NAMES}
DECLARE_WEIGHTS = {name: 0.0 for name in DECLARE_NAMES}  # the declaration's and the burial's, likewise
DECLARE_RANGES = {name: (-1000.0, 1000.0) for name in DECLARE_NAMES}
BURIAL_WEIGHTS = {name: 0.0 for name in BURIAL_NAMES}
BURIAL_RANGES = {name: (-1000.0, 1000.0) for name in BURIAL_NAMES}
BID_WEIGHTS = {name: 0.0 for name in BID_NAMES}
BID_RANGES = {name: (-1000.0, 1000.0) for name in BID_NAMES}
CALL_WEIGHTS = {name: 0.0 for name in CALL_NAMES}
CALL_RANGES = {name: (-1000.0, 1000.0) for name in CALL_NAMES}
MAX_BIDS = 1 + CARDS  # the base answer and every bid (41 with two decks) or every card held to show
BID_CELLS = MAX_BIDS * CARDS
EXPERT_PER_TRUMP = STRENGTH_PARAMS["per_trump"]  # the expert policy's bid (strategies.bid.strength)
EXPERT_BID_BASE = STRENGTH_PARAMS["base"]
FIRST_DECLARATIONS = 2  # the base answer and the pass, before the declarations allowed
MAX_DECLARATIONS = FIRST_DECLARATIONS + DECKS * (JOKER_KINDS + SUITS)  # and every count of every card
DECL_CELLS = MAX_DECLARATIONS * CARDS
EXPERT_MIN_CARDS = OVERRIDE_PARAMS["min_cards"]  # the expert policy's declaring (strategies.declare.override)
EXPERT_MARGIN = OVERRIDE_PARAMS["margin"]
EXPERT_JOKERS = OVERRIDE_PARAMS["jokers"]
EXPERT_THRESHOLD = EXPERT_PARAMS["threshold"]  # and its burial (strategies.discard.expert)
EXPERT_MIN_TRUMPS = 8.0  # the expert policy's defaults (strategies.lead.expert, strategies.follow.expert)
EXPERT_MIN_POINTS = 5.0


@njit(cache=True, inline='always')
def _best(view, params, scratch, cands, ncand, out, lunits, lnu):
    """Score cands[:ncand] (row 0: the expert's answer), write the best into ``out``; returns its size.
    The features go through the scratch's last cells (past what the helpers keep there);
    ``lunits[:lnu]``: the lead's units as features.lead_units gives them (read at a tractor or throw led)."""
    feats = scratch[SCRATCH - N_FEATURES:SCRATCH]
    sit = stack_array(SITUATION_CELLS)
    situation(view, sit)
    best = 0
    best_score = 0.0
    for i in range(ncand):
        candidate_features_of(view, scratch, sit, cands[i], i == 0, feats, lunits, lnu)
        score = 0.0
        for f in range(N_FEATURES):
            score += params[f] * feats[f]
        if i == 0 or score > best_score:
            best = i
            best_score = score
    n = 0
    for c in range(CARDS):
        out[c] = cands[best, c]
        n += cands[best, c]
    return n


@njit(cache=True, inline='always')
def _first(cands, out):
    """Row 0 of the candidates = the expert's answer in ``out``; returns its size."""
    n = 0
    for c in range(CARDS):
        cands[0, c] = out[c]
        n += out[c]
    return n


@strategy("lead", "learned", params=WEIGHTS, ranges=RANGES)
def learned_lead(view, params, rng, scratch, out):
    """The expert lead or a lead the search would try, as the model scores them.

    Idea: distil the search into a weighted sum of a play's features, cheap
    enough to play every seat of a large study.
    """
    for c in range(CARDS):
        out[c] = 0
    expert_lead(view, out, scratch, EXPERT_MIN_TRUMPS, False, True, True)
    cands = rows_in(stack_array(CAND_CELLS), 0, MAX_SCORED, CARDS)
    n = _first(cands, out)
    ncand = lead_candidates(view[V_HAND], view, sl.trump_table(view), cands, 1, MAX_SCORED)
    if ncand <= 1:
        return n
    units = rows_in(stack_array(UNIT_FIELDS), 0, 1, UNIT_FIELDS)  # a lead reads no lead units
    return _best(view, params, scratch, cands, ncand, out, units, 0)


@strategy("follow", "learned", params=WEIGHTS, ranges=RANGES)
def learned_follow(view, params, rng, scratch, out):
    """The expert follow or a legal follow the search would try, as the model scores them.

    Idea: as the learned lead.
    """
    for c in range(CARDS):
        out[c] = 0
    sl.track_voids(view, scratch)
    play_smart(view, out, EXPERT_MIN_POINTS, True, scratch)
    if _forced(view):
        return C.ncards(out)
    cands = rows_in(stack_array(CAND_CELLS), 0, MAX_SCORED, CARDS)
    n = _first(cands, out)
    if view[V_META, M_LEAD_N] == 1:  # a single led needs no units (kernels.candidates._singles)
        units = rows_in(stack_array(UNIT_FIELDS), 0, 1, UNIT_FIELDS)
        ncand = _follows(view, units, 0, cands)
        return n if ncand <= 1 else _best(view, params, scratch, cands, ncand, out, units, 0)
    return _follow_of_units(view, params, scratch, cands, n, out)


@njit(cache=True, inline='always')
def _forced(view):
    """Whether the follow has one legal play (the expert's): the hand holds exactly as many of the
    led suit as were led, or exactly as many cards; the candidate list would hold only that play."""
    lead_n = view[V_META, M_LEAD_N]
    suit = view[V_META, M_LEAD_SUIT]
    held = 0
    for i in range(sl.nsuit(view, suit)):
        held += view[V_HAND, view[V_SUITS + suit, i]]
    if held == lead_n:
        return True
    if held > lead_n:
        return False
    total = 0
    for c in range(CARDS):
        total += view[V_HAND, c]
    return total == lead_n


@njit(cache=True)
def _follow_of_units(view, params, scratch, cands, n, out):
    """The follow of a lead of several cards: its units (their memory filled only here), the candidates,
    and the score, which reads the same units (features.lead_units' at a tractor or throw led)."""
    units, ucards = C.stack_units()
    nu = C.decompose(view[V_TRICK + view[V_META, M_LEADER]], sl.trump_table(view), units, ucards)
    ncand = _follows(view, units, nu, cands)
    return n if ncand <= 1 else _best(view, params, scratch, cands, ncand, out, units, nu)


@njit(cache=True, inline='always')
def _follows(view, units, nu, cands):
    """kernels.candidates.follow_candidates from the view, after the expert's answer in row 0."""
    return follow_candidates(view[V_HAND], view, sl.trump_table(view), view[V_META, M_LEAD_SUIT],
                             view[V_META, M_LEAD_N], view[V_META, M_LEAD_PAIRS], view[V_META, M_LEAD_KIND], units, nu,
                             view[V_RULES], cands, 1, MAX_SCORED)


@njit(cache=True, inline='always')
def _best_row(view, params, feats, cands, ncand, kind, sit):
    """The best-scored of cands[:ncand] (ties: the earlier; row 0 the expert's answer): declarations
    (``kind`` DECLARE), burials (DISCARD; ``sit``: their burial_situation), auction answers (BID) or calls (CALL);
    ``feats``: the decision's features' cells."""
    best = 0
    best_score = 0.0
    for i in range(ncand):
        if kind == DISCARD:
            burial_features_of(view, sit, cands[i], i == 0, feats)
        elif kind == BID:
            bid_features(view, cands[i], i == 0, feats)
        elif kind == CALL:
            call_features(view, cands[i], i == 0, feats)
        else:
            declare_features(view, cands[i], i == 0, feats)
        score = 0.0
        for f in range(feats.shape[0]):
            score += params[f] * feats[f]
        if i == 0 or score > best_score:
            best = i
            best_score = score
    return best


@strategy("declare", "learned", params=DECLARE_WEIGHTS, ranges=DECLARE_RANGES)
def learned_declare(view, params, rng, scratch, out):
    """The expert declaration, the pass or another declaration allowed now, as the model scores them.

    Idea: as the learned lead; the pass scores 0 but for the base flag, so a
    declaration is made when its features are worth more than passing.
    """
    n = override_answer(view, out, EXPERT_MIN_CARDS, EXPERT_MARGIN, EXPERT_JOKERS)
    rank = view[V_META, M_TRUMP_RANK]
    if rank < 0:  # no rank yet (the auction): nothing to list
        return n
    cands = rows_in(stack_array(DECL_CELLS), 0, MAX_DECLARATIONS, CARDS)
    for c in range(CARDS):
        cands[0, c] = 0
    if n != 0:  # the base answer as kernels.search._declaration_row writes it
        cands[0, ANS_KIND] = out[ANS_KIND]
        cands[0, ANS_CARD] = out[ANS_CARD]
        if DECKS > PAIR:
            cands[0, ANS_COUNT] = out[ANS_COUNT] if out[ANS_COUNT] != 0 else kind_count(out[ANS_KIND])
    ncand = declare_candidates(view[V_HAND], view[V_META, M_SEAT], view[V_META, M_DECL_SEAT],
                               view[V_META, M_DECL_KIND], sl.standing_count(view), view[V_META, M_DECL_CARD], rank,
                               view[V_RULES], cands, 1, MAX_DECLARATIONS)
    unused = stack_array(1)  # a declaration reads no burial situation
    best = _best_row(view, params, scratch[SCRATCH - N_DECLARE_FEATURES:SCRATCH], cands, ncand, DECLARE, unused)
    if best == 0:
        return n
    if cands[best, ANS_KIND] == 0:
        return 0
    out[ANS_KIND] = cands[best, ANS_KIND]
    out[ANS_CARD] = cands[best, ANS_CARD]
    if DECKS > PAIR:
        out[ANS_COUNT] = cands[best, ANS_COUNT]
    return 1


@strategy("discard", "learned", params=BURIAL_WEIGHTS, ranges=BURIAL_RANGES)
def learned_discard(view, params, rng, scratch, out):
    """The expert burial or one a swap away from it, as the model scores them.

    Idea: as the learned lead, on the burials the search tries.
    """
    n = expert_burial(view, out, EXPERT_THRESHOLD)
    cands = rows_in(stack_array(CAND_CELLS), 0, MAX_SCORED, CARDS)
    _first(cands, out)
    ncand = burial_candidates(view[V_HAND], sl.trump_table(view), cands, 1, MAX_SCORED)
    sit = stack_array(BURIAL_SITUATION_CELLS)
    burial_situation(view, sit)
    best = _best_row(view, params, scratch[SCRATCH - N_BURIAL_FEATURES:SCRATCH], cands, ncand, DISCARD, sit)
    for c in range(CARDS):
        out[c] = cands[best, c]
    return n


@strategy("bid", "learned", params=BID_WEIGHTS, ranges=BID_RANGES)
def learned_bid(view, params, rng, scratch, out):
    """The expert's bid, card shown or suit named, or another the search would try, as the model scores them.

    Idea: as the learned lead, on the auction's steps (the bid, the show, the trump).
    """
    n = strength_answer(view, out, EXPERT_PER_TRUMP, EXPERT_BID_BASE)
    step = view[V_META, M_BID_STEP]
    cands = rows_in(stack_array(BID_CELLS), 0, MAX_BIDS, CARDS)
    for c in range(CARDS):
        cands[0, c] = out[c]
    bid_row(cands[0], step)
    ncand = bid_candidates(view[V_HAND], step, cands, 1, MAX_BIDS)
    unused = stack_array(1)  # an auction step reads no burial situation
    best = _best_row(view, params, scratch[SCRATCH - N_BID_FEATURES:SCRATCH], cands, ncand, BID, unused)
    if best == 0:
        return n
    for c in range(CARDS):
        out[c] = cands[best, c]
    return 1


@strategy("call", "learned", params=CALL_WEIGHTS, ranges=CALL_RANGES)
def learned_call(view, params, rng, scratch, out):
    """The expert's calls (``ace``) or a set of calls one call away, as the model scores them (the first
    MAX_CALLS of the search's list: the calls the teacher valued).

    Idea: as the learned lead, on the calls the search tries.
    """
    n = ace_answer(view, out)
    cands = rows_in(stack_array(CAND_CELLS), 0, MAX_SCORED, CARDS)
    for c in range(CARDS):
        cands[0, c] = out[c]
    ncand = call_candidates(view[V_META, M_TRUMP_RANK], cands, 1, MAX_CALLS)
    unused = stack_array(1)  # a call reads no burial situation
    best = _best_row(view, params, scratch[SCRATCH - N_CALL_FEATURES:SCRATCH], cands, ncand, CALL, unused)
    for c in range(CARDS):
        out[c] = cands[best, c]
    return n
