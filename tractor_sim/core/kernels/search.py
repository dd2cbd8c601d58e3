"""The search decision: every candidate play rolled out in every world, the best mean chosen.

At a declaration, the burial, a lead, a follow, an auction step or a Finding Friends call of the
searching seat, ``evaluate`` lists the candidates
(kernels.candidates; the first is the base policy's own answer, already in
the state's ANSWER buffer), then for each world (``make_world``: the true
deal copied, or a deal sampled from the seat's knowledge: kernels.sampler,
or kernels.draw_worlds during the draw and the auction) and each
candidate plays the candidate and rolls the deal out to its end with the
base policy at every seat (``deal.play_from`` on a work copy).  Common
random numbers: every candidate sees the same worlds and the same rollout
streams, keyed by (seed, deal, decision index, world, rollout, seat) like
every stream of the engine (kernels.rng), so a decision is the same for any
chunking, worker or candidate order.

The value of an outcome is the searching team's net level change (its gain,
or minus the other team's), with the points as a tie-break: mean levels +
mean points / POINTS_PER_LEVEL, lexicographic in practice (a mean level
difference is at least 1 / (worlds x rollouts); the points term stays
below 0.005).  Points are the opponents' total p from the searching team's
side (minus p when it declares).  In Finding Friends, where the sides form
during the play and every player has his own level, the value is the
searching seat's own level gain, and the points are from the side it ends on.
"""

import numpy as np
from numba import njit

from .candidates import (
    MAX_CANDIDATES, bid_candidates, bid_row, burial_candidates, call_candidates, declare_candidates, follow_candidates,
    lead_candidates,
)
from .deal import _restore, play_from
from .layout import Layout
from .phases import ERR_NONE, apply
from .result import D_DECL_TEAM, D_GAIN, D_GAINS, D_IN_TEAM, D_KEEP, D_OPP_POINTS
from .rng import stream_key
from .sampler import draw, prepare
from . import draw_worlds
from .declare import ANS_COUNT, ANS_KIND, kind_count
from .dims import CALLS, CARDS, DECKS, DRAWN, FRIENDS, PAIR, SEATS, TEAM_MODE, TEAMS, TRICKS, team_of
from .state import (
    ANSWER, ARR_LEAD_UNITS, PH_AUCTION, PH_DRAW, RESULT, S_BID_STEP, S_CUR_CARD, S_CUR_COUNT, S_CUR_KIND, S_CUR_SEAT,
    S_DRAW_K, S_KEY_A, S_KEY_B, S_LEAD_KIND, S_LEAD_N, S_LEAD_NU, S_LEAD_PAIRS, S_LEAD_SUIT, S_NPLAYED, S_PHASE,
    S_RANK, S_REDEALS, S_SEED, S_SUIT, S_TRICK, HANDS, carve,
)
from .view import BID, BID_STEP_BID, BID_STEP_SHOW, BID_STEP_TRUMP, CALL, DECISIONS, DECLARE, DISCARD, LEAD

# A team's search settings: one int64 row per team (the driver's ``settings[team]``).
SETTINGS = Layout("search settings", [
    ("SS_ON", 1, "1: this team's decisions named in SS_DECISIONS are searched"),
    ("SS_WORLDS", 1, "worlds per decision"),
    ("SS_ROLLOUTS", 1, "rollouts per world and candidate"),
    ("SS_SOURCE", 1, "where worlds come from: WORLD_TRUE or WORLD_SAMPLED"),
    ("SS_MAX_CAND", 1, "candidates per decision, at most (the base policy's answer included)"),
    ("SS_RECORD", 1, "RECORD_ANALYSIS: play the policy's own answer and record its regret (tractor-sim analyze); "
                     "RECORD_TRAIN: play it and record every candidate's features and value (tractor-sim train)"),
    ("SS_DECISIONS", 1, "the decisions searched: bit 1 << d for each view decision d (DECLARE, DISCARD, LEAD, "
                        "FOLLOW, BID, CALL)"),
    ("SS_INFER", 1, "kernels.infer: INFER_NONE (uniform worlds) or INFER_MODEL (resampled by the plays' likelihood)"),
])
globals().update(SETTINGS.constants())
SS_FIELDS = SETTINGS.size
# One candidate's sums over its rollouts.
VALUE = Layout("candidate value", [
    ("CV_LEVELS", 1, "the searching team's net levels, summed"),
    ("CV_POINTS", 1, "its points (the opponents' total, signed for it), summed"),
    ("CV_N", 1, "rollouts played"),
    ("CV_BAD", 1, "1 when the candidate was refused in some world (never chosen)"),
    ("CV_GAIN", 1, "its world totals minus the base policy's answer's in the same world, summed over worlds"),
    ("CV_GAIN2", 1, "the squares of those differences, summed"),
    ("CV_WORLDS", 1, "worlds"),
])
globals().update(VALUE.constants())
CV_FIELDS = VALUE.size

RECORD_OFF = 0  # SS_RECORD: the search plays its choice
RECORD_ANALYSIS = 1
RECORD_TRAIN = 2
WORLD_TRUE = 0  # the true deal, copied: the omniscient reference (it sees every hand)
WORLD_SAMPLED = 1  # a deal sampled from the seat's knowledge (kernels.sampler)
POINTS_PER_LEVEL = 100_000.0  # the points' weight in a candidate's value: a tie-break
DEVIATE_Z = 1.0  # the search leaves the base policy's answer only for a gain this many standard errors above 0
MAX_WORLDS = 4096  # worlds per decision, at most (the stream keys leave room for these)

MAX_ROLLOUTS = 256  # rollouts per world, at most
P_SEARCH = 1 << 40  # stream purposes of the search: above every purpose of the deal itself
P_WORLD = P_SEARCH >> 1  # stream purposes of the world sampler
# Added to both purposes above for a second, independent set of worlds and rollouts: analyze values
# its selected play there (held-out), free of the selection's luck (the winner's curse).
P_HELDOUT = P_SEARCH << 1
SELECTION = 0  # the ``held`` offset of the search's own worlds (the only ones the search plays by)
DECLARE_REDEALS = 64  # declarations of redeals this far apart share their decision numbers (their streams)
DECLARE_INDEX = TRICKS * SEATS + len(DECISIONS)  # the first declaration's decision number
BID_INDEX = DECLARE_INDEX + DECLARE_REDEALS * (DRAWN + SEATS)  # the first auction step's, after every declaration's


def _guards(z: float, n: int) -> np.ndarray:
    """GUARD_Z[k]: the guard for k candidates, Bonferroni over the k - 1 alternatives of the base answer,
    each tested at the one-sided level of ``z`` standard errors."""
    from statistics import NormalDist

    tail = 1.0 - NormalDist().cdf(z)
    return np.array([z] + [NormalDist().inv_cdf(1.0 - tail / max(1, k - 1)) for k in range(1, n + 1)])


# A call's candidates (Finding Friends) are up to 96 near-equal calls: the best of them by one standard
# error was mostly the luckiest, and the search lost to its base (docs/search.md); the guard there grows
# with the candidates (about 2.5 standard errors for 31 of them).  Leads and follows keep DEVIATE_Z, measured.
GUARD_Z = _guards(DEVIATE_Z, MAX_CANDIDATES)


@njit(cache=True)
def apply_answer(st, ws, rules, err, log, decision, n):
    """phases.apply compiled once for the search and its driver (a call, not another inlined copy)."""
    return apply(st, ws, rules, err, log, decision, n)


@njit(cache=True)
def decision_index(st, decision=LEAD):
    """A decision's number within the deal, for its streams: a play's trick x seats + plays made to
    the trick; the burial after every play's (it comes first, but a number of its own); a
    declaration after those, by the draw position that asked it and the redeal (one seat is asked
    at a position); an auction step after every declaration's, by its step (the auction has no
    redeals); the call after the burial's (TRICKS x SEATS + CALL is below DECLARE_INDEX)."""
    if decision == DISCARD or decision == CALL:
        return TRICKS * SEATS + decision
    if decision == BID:
        return BID_INDEX + st[S_BID_STEP]
    if decision == DECLARE:
        return DECLARE_INDEX + (st[S_REDEALS] % DECLARE_REDEALS) * (DRAWN + SEATS) + st[S_DRAW_K]
    return st[S_TRICK] * SEATS + st[S_NPLAYED]


@njit(cache=True)
def rollout_stream(seed, key_a, key_b, index, world, rollout, seat, held):
    """The starting state of seat's strategy stream in a rollout of the search (kernels.rng);
    ``held``: SELECTION or P_HELDOUT (independent streams for analyze's held-out values)."""
    return stream_key(seed, key_a, key_b, held + P_SEARCH
                      + ((index * MAX_WORLDS + world) * MAX_ROLLOUTS + rollout) * SEATS + seat)


@njit(cache=True)
def prepare_worlds(st, ws, seat, source, sampler_work):
    """Get ready to make worlds for ``seat``'s decision: the sampler counts the deals consistent with
    the seat's knowledge (kernels.sampler.prepare; once per decision).  False when there is none."""
    if source == WORLD_TRUE:
        return True
    if st[S_PHASE] == PH_DRAW or st[S_PHASE] == PH_AUCTION:
        return draw_worlds.prepare(st, seat, sampler_work) != 0
    _, _, _, tables = ws
    return prepare(st, seat, tables, sampler_work) != 0


@njit(cache=True)
def make_world(st, ws, source, world, wst, wws, sampler_work, rng, held, index):
    """Write world number ``world`` of the current decision into (wst, wws): the one place a search
    gets its worlds.  WORLD_TRUE copies the true deal (views, scratch and streams too); WORLD_SAMPLED
    draws a deal consistent with the seat's knowledge (kernels.sampler.draw, after prepare_worlds),
    from the stream (seed, deal, held + P_WORLD + ``index`` (decision_index) x MAX_WORLDS + world)."""
    if source == WORLD_TRUE:
        _restore(wst, wws, st, ws)
        return True
    rng[0] = stream_key(np.uint64(st[S_SEED]), st[S_KEY_A], st[S_KEY_B],
                        held + P_WORLD + index * MAX_WORLDS + world)
    if st[S_PHASE] == PH_DRAW or st[S_PHASE] == PH_AUCTION:
        return draw_worlds.draw(st, ws, sampler_work, rng, wst, wws) != 0
    return draw(st, ws, sampler_work, rng, wst, wws) != 0


@njit(cache=True)
def outcome(row, seat):
    """(levels, points) of a finished deal's result row for ``seat``'s side (module docstring): its
    team's, or in Finding Friends its own."""
    if TEAM_MODE == FRIENDS:
        points = -row[D_OPP_POINTS] if row[D_IN_TEAM + seat] != 0 else row[D_OPP_POINTS]
        return row[D_GAINS + seat], points
    team = team_of(seat)
    decl = row[D_DECL_TEAM]
    gainer = decl if row[D_KEEP] != 0 else (decl + 1) % TEAMS
    levels = row[D_GAIN] if gainer == team else -row[D_GAIN]
    points = -row[D_OPP_POINTS] if decl == team else row[D_OPP_POINTS]
    return levels, points


@njit(cache=True)
def list_candidates(st, ws, rules, seat, decision, max_cand, cands):
    """cands[0] = the answer in the state's ANSWER buffer (the base policy's), then the enumerated
    candidates that differ from it; returns how many."""
    views, _, _, tables = ws
    arrs = carve(st)
    tt = tables[st[S_RANK], st[S_SUIT]]
    hand = st[HANDS + seat * CARDS:HANDS + (seat + 1) * CARDS]
    for c in range(CARDS):
        cands[0, c] = st[ANSWER + c]
    limit = min(max_cand, cands.shape[0])
    if decision == BID:
        step = bid_step(st)
        bid_row(cands[0], step)
        return bid_candidates(hand, step, cands, 1, limit)
    if decision == CALL:
        return call_candidates(st[S_RANK], cands, 1, limit)
    if decision == DECLARE:
        _declaration_row(cands[0])
        return declare_candidates(hand, seat, st[S_CUR_SEAT], st[S_CUR_KIND], st[S_CUR_COUNT], st[S_CUR_CARD],
                                  st[S_RANK], rules, cands, 1, limit)
    if decision == DISCARD:
        return burial_candidates(hand, tt, cands, 1, limit)
    if decision == LEAD:
        return lead_candidates(hand, views[seat], tt, cands, 1, limit)
    return follow_candidates(hand, views[seat], tt, st[S_LEAD_SUIT], st[S_LEAD_N], st[S_LEAD_PAIRS], st[S_LEAD_KIND],
                             arrs[ARR_LEAD_UNITS], st[S_LEAD_NU], rules, cands, 1, limit)


@njit(cache=True)
def bid_step(st):
    """The auction's pending step: BID_STEP_BID (a bid per team), BID_STEP_SHOW (a card per seat) or
    BID_STEP_TRUMP (phases._advance_auction)."""
    i = st[S_BID_STEP]
    if i < TEAMS:
        return BID_STEP_BID
    if i < TEAMS + SEATS:
        return BID_STEP_SHOW
    return BID_STEP_TRUMP


@njit(cache=True)
def answer_size(decision, row):
    """What a candidate row is applied with (phases.apply's ``n``): an auction step 1, the calls
    CALLS, a play or burial its cards, a declaration nonzero (its row's sum) or 0 for the pass."""
    if decision == BID:
        return 1
    if decision == CALL:
        return CALLS
    k = 0
    for d in range(CARDS):
        k += row[d]
    return k


@njit(cache=True)
def _declaration_row(row):
    """A declare strategy's answer as a candidate row (the pass all zero; the driver clears the buffer
    of a pass): the kind, the card, and with more decks the count (0 there means the kind's least);
    the rest zero, so that it equals its row in declare_candidates' list."""
    if row[ANS_KIND] == 0:
        row[:] = 0
        return
    if DECKS > PAIR:
        if row[ANS_COUNT] == 0:
            row[ANS_COUNT] = kind_count(row[ANS_KIND])
    else:
        row[ANS_COUNT] = 0
    row[ANS_COUNT + 1:] = 0


@njit(cache=True)
def evaluate(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, cands, ncand, values,
             wst, wws, rst, rws, sampler_work, rng, err, nolog, held):
    """Roll every candidate cands[:ncand] out in every world (module docstring): values[c] gets its
    sums (CV_*).  ``held``: SELECTION for the search's worlds, P_HELDOUT for an independent set.
    Returns the rollouts played, or -1 when a world could not be made."""
    picks = np.arange(worlds)
    return evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, cands, ncand,
                           values, wst, wws, rst, rws, sampler_work, rng, err, nolog, held, picks)


@njit(cache=True)
def evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, cands, ncand,
                    values, wst, wws, rst, rws, sampler_work, rng, err, nolog, held, picks):
    """evaluate with world w made from the world stream ``picks[w]`` (kernels.infer resamples them;
    ``evaluate`` passes 0..worlds-1).  The rollout streams stay keyed by w, so a world picked twice
    is rolled out on other streams."""
    seed = np.uint64(st[S_SEED])
    key_a = st[S_KEY_A]
    key_b = st[S_KEY_B]
    index = decision_index(st, decision)
    _, _, rngs, _ = rws
    for c in range(ncand):
        for f in range(CV_FIELDS):
            values[c, f] = 0.0
    played = 0
    if not prepare_worlds(st, ws, seat, source, sampler_work):
        return -1
    for w in range(worlds):
        if not make_world(st, ws, source, picks[w], wst, wws, sampler_work, rng, held, index):
            return -1
        base_total = 0.0  # the base policy's answer's total in this world (candidate 0 comes first)
        for c in range(ncand):
            k = answer_size(decision, cands[c])
            total = 0.0
            for r in range(rollouts):
                _restore(rst, rws, wst, wws)
                for s in range(SEATS):
                    rngs[s, 0] = rollout_stream(seed, key_a, key_b, index, w, r, s, held)
                for d in range(CARDS):
                    rst[ANSWER + d] = cands[c, d]
                code = apply_answer(rst, rws, rules, err, nolog, decision, k)
                if code == ERR_NONE:
                    code = play_from(rst, rws, rules, roll_params, roll_fns, err, nolog)
                played += 1
                if code != ERR_NONE:
                    values[c, CV_BAD] = 1.0
                    continue
                levels, points = outcome(rst[RESULT:], seat)
                values[c, CV_LEVELS] += levels
                values[c, CV_POINTS] += points
                values[c, CV_N] += 1.0
                total += levels + points / POINTS_PER_LEVEL
            if c == 0:
                base_total = total
            gain = total - base_total
            values[c, CV_GAIN] += gain
            values[c, CV_GAIN2] += gain * gain
            values[c, CV_WORLDS] += 1.0
    return played


@njit(cache=True)
def value_of(values, c):
    """The candidate's value: mean levels + mean points / POINTS_PER_LEVEL (-inf when refused)."""
    n = values[c, CV_N]
    if values[c, CV_BAD] != 0.0 or n == 0.0:
        return -np.inf
    return (values[c, CV_LEVELS] + values[c, CV_POINTS] / POINTS_PER_LEVEL) / n


@njit(cache=True)
def best_candidate(values, ncand):
    """The candidate with the highest value; ties go to the earlier (the base policy's answer first).
    What the analysis compares the policy's play with."""
    best = 0
    best_value = value_of(values, 0)
    for c in range(1, ncand):
        v = value_of(values, c)
        if v > best_value:
            best = c
            best_value = v
    return best


@njit(cache=True)
def chosen_candidate(values, ncand, z=DEVIATE_Z):
    """The play the search makes: the candidate whose gain over the base policy's answer (paired by
    world: common random numbers) has the highest lower bound, mean - ``z`` standard errors, if
    that bound is above 0; else the base policy's answer.  With few worlds the best mean is mostly
    the luckiest candidate (the winner's curse): measured, taking it made the search weaker than its
    base below 16 worlds (docs/search.md)."""
    chosen = 0
    best_bound = 0.0
    for c in range(1, ncand):
        n = values[c, CV_WORLDS]
        if values[c, CV_BAD] != 0.0 or values[0, CV_BAD] != 0.0 or n == 0.0:
            continue
        mean = values[c, CV_GAIN] / n
        spread = 0.0  # one world: no measure of the noise; the best mean is taken
        if n > 1.0:
            spread = np.sqrt(max(0.0, values[c, CV_GAIN2] - n * mean * mean) / (n - 1.0) / n)
        bound = mean - z * spread
        if bound > best_bound:
            chosen = c
            best_bound = bound
    return chosen
