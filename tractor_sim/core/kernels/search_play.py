"""The driver of deals with searching seats: play_chunk's work, with a search at their plays.

The strategy signature gives a strategy its view only, so a search cannot be
a strategy: it needs the true state (the omniscient search reads it all; the
sampled one reads only the seat's knowledge from it, kernels.sampler) and
the base policy's functions for its rollouts.  This second driver is
``deal._drive`` with one step added: for a seat whose team's settings
(kernels.search SETTINGS) have SS_ON, at a decision its SS_DECISIONS names
(a declaration, the burial, a lead, a follow, an auction step, a Finding
Friends call), the base policy's answer is
taken as the first candidate, and kernels.search evaluates every candidate
and puts the best in the answer buffer (or, with SS_RECORD, keeps the
policy's answer and writes an analysis row: the policy's value against the
best, ``tractor-sim analyze``).

It is compiled only when a run uses the search; the engine's own driver and
chunk (kernels.deal, kernels.match) are untouched, so their speed and
compile time do not change.  In Finding Friends a level is kept per player
and the search's value is the searching seat's own gain (kernels.search).
Streams are keyed as in kernels.match, and the search's own streams by deal
and decision (kernels.search), so results do not depend on the chunking.
"""

import numpy as np
from numba import njit, types

from .deal import FUNCS_TYPE, N_DECISIONS, compiled_new_workspace as new_workspace
from .declare import ANS_KIND
from .events import LOG_COLS
from .layout import Layout
from .match import (
    CHUNK_ARGS, LOG_ALL, MAX_DEALS_PER_MATCH, MODE_FIXED, MX_DEALS, MX_LEVEL0_FINAL, MX_MATCH_ID, MX_WINNER,
    X_LEVEL0_AFTER, _write, fixed_starter,
)
from .phases import E_CODE, E_DEAL_IN_MATCH, E_DONE, E_ID, ERR_NONE, ERR_SIZE, WS_TYPE, start, to_act
from .result import D_DECL_TEAM, D_FIELDS, D_KEEP, D_NEXT_STARTER
from .scoring import match_winner, match_winners
from .search import (
    CV_BAD, CV_FIELDS, CV_GAIN, CV_LEVELS, CV_N, CV_POINTS, CV_WORLDS, DEVIATE_Z, GUARD_Z, MAX_WORLDS, P_HELDOUT,
    RECORD_TRAIN, SELECTION,
    SS_MAX_CAND, SS_ON, SS_RECORD, SS_ROLLOUTS, SS_DECISIONS, SS_INFER, SS_SOURCE, SS_WORLDS, WORLD_TRUE, apply_answer,
    best_candidate, bid_step, chosen_candidate, evaluate_picked, list_candidates,
)
from .infer import new_deal, new_history, observe, observed, pick_worlds
from .candidates import MAX_CANDIDATES
from ..bid_features import N_BID_FEATURES, bid_features
from ..call_features import N_CALL_FEATURES, call_features
from ..burial_features import N_BURIAL_FEATURES, burial_features
from ..declare_features import N_DECLARE_FEATURES, declare_features
from ..features import N_FEATURES, SITUATION_CELLS, candidate_features, situation
from .sampler import new_work as new_sampler_work
from .dims import CARDS, FRIENDS, LEVELS, SEATS, TEAM_MODE, TEAMS, team_of
from .state import ANSWER, NO_SEAT, RESULT, S_TRICK, STATE_SIZE
from .unowned import borrowed
from .view import BID, CALL, DECLARE, DISCARD, FOLLOW, LEAD
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING

# What a chunk counts (``counters``).
COUNTERS = Layout("search counters", [
    ("C_DECISIONS", 1, "decisions searched (more than one candidate)"),
    ("C_ROLLOUTS", 1, "rollouts played"),
    ("C_RECORDS", 1, "analysis rows written"),
    ("C_WEIGHED", 1, "worlds replayed and weighed by inference (kernels.infer)"),
])
globals().update(COUNTERS.constants())
N_COUNTERS = COUNTERS.size
ERR_NO_WORLD = 50  # error code: the search could not make a world (the sampler found no deal)
ERR_RECORDS_FULL = 51  # error code: the training rows outgrew their buffer (play/chunks.py sizes it)
HELD_PLAYS = 2  # valued on the held-out worlds: the policy's play (row 0) and the selection (row 1)
# An analysis row (float64): one decision of the analysed policy, valued by the search in two kinds
# of worlds (the settings' source, then the true deal).  In each, the best candidate is selected on
# one set of worlds (AR_*CHOSEN/BEST: in-sample, the maximum of noisy means, biased upwards) and the
# policy's play and that selection are valued again on an independent set (AR_*HELD_*: unbiased).
RECORD = Layout("analysis row", [
    ("AR_DEAL", 1, "the deal id (match mode: match id x 1000 + deal in match)"),
    ("AR_SEAT", 1), ("AR_DECISION", 1, "view.LEAD, view.FOLLOW, view.DISCARD, view.DECLARE, view.BID or view.CALL"),
    ("AR_TRICK", 1, "0-based; -1 the burial or a call, -2 a declaration or an auction step (record_trick)"),
    ("AR_STEP", 1, "an auction step's view.BID_STEP_* (0 for the other decisions)"),
    ("AR_CANDIDATES", 1, "candidates valued (1: the play was forced, nothing rolled out)"),
    ("AR_ROLLOUTS", 1, "rollouts per candidate and source"),
    ("AR_CHOSEN_LEVELS", 1, "the policy's play: mean levels, in the settings' worlds,"),
    ("AR_CHOSEN_POINTS", 1, "mean points,"),
    ("AR_BEST_LEVELS", 1, "the best candidate's mean levels,"),
    ("AR_BEST_POINTS", 1, "mean points,"),
    ("AR_BEST", 1, "and its index"),
    ("AR_TRUE_CHOSEN_LEVELS", 1, "the same in the true deal's rollouts"),
    ("AR_TRUE_CHOSEN_POINTS", 1),
    ("AR_TRUE_BEST_LEVELS", 1),
    ("AR_TRUE_BEST_POINTS", 1),
    ("AR_TRUE_BEST", 1),
    ("AR_HELD_CHOSEN_LEVELS", 1, "the policy's play: mean levels on the held-out worlds of the settings' source,"),
    ("AR_HELD_CHOSEN_POINTS", 1, "mean points,"),
    ("AR_HELD_BEST_LEVELS", 1, "the selected (best in-sample) candidate's there,"),
    ("AR_HELD_BEST_POINTS", 1, "mean points"),
    ("AR_TRUE_HELD_CHOSEN_LEVELS", 1, "the same on held-out rollouts of the true deal"),
    ("AR_TRUE_HELD_CHOSEN_POINTS", 1),
    ("AR_TRUE_HELD_BEST_LEVELS", 1),
    ("AR_TRUE_HELD_BEST_POINTS", 1),
    ("AR_CHOSEN_CARDS", CARDS, "the policy's play (counts)"),
    ("AR_BEST_CARDS", CARDS, "the best candidate in the settings' worlds (counts)"),
])
globals().update(RECORD.constants())
AR_FIELDS = RECORD.size

# A training row (float64): one candidate of one searched decision, for tractor-sim train.
TR_WIDTH = max(N_FEATURES, N_DECLARE_FEATURES, N_BURIAL_FEATURES, N_BID_FEATURES,
               N_CALL_FEATURES)  # the widest decision's features
TRAIN = Layout("training row", [
    ("TR_DEAL", 1, "the deal id (as AR_DEAL)"),
    ("TR_SEAT", 1), ("TR_DECISION", 1, "view.DECLARE, view.DISCARD, view.LEAD, view.FOLLOW, view.BID or view.CALL"),
    ("TR_TRICK", 1),
    ("TR_CANDIDATE", 1, "its index in the decision's list (0: the base policy's answer)"),
    ("TR_CANDIDATES", 1, "candidates of the decision"),
    ("TR_GAIN", 1, "its mean gain over the base policy's answer, paired by world (levels + points tie-break)"),
    ("TR_WORLDS", 1, "worlds it was valued in"),
    ("TR_FEATURES", TR_WIDTH, "the candidate's features in the seat's view, the decision's own (core/features.py "
                              "for a play, declare_features, burial_features, bid_features, call_features), the rest 0"),
])
globals().update(TRAIN.constants())
TR_FIELDS = TRAIN.size

SEARCH_CHUNK_SIG = types.int64(*CHUNK_ARGS, types.int64[:, ::1], types.int64[::1], types.float64[:, ::1], FUNCS_TYPE,
                               types.float64[:, :, ::1])


TRICK_BURIAL = -1  # a record's trick for the burial
TRICK_DECLARE = -2  # and for a declaration (before the first trick)

@njit(cache=True)
def new_search_work(rules):
    """The work memory of a search: a world and a rollout copy of (state, workspace), the candidate
    list and their values, the sampler's work arrays and stream, an error row and an empty log."""
    wws = new_workspace(rules)
    rws = new_workspace(rules)
    return (np.zeros(STATE_SIZE, dtype=np.int64), wws, np.zeros(STATE_SIZE, dtype=np.int64), rws,
            np.zeros((MAX_CANDIDATES, CARDS), dtype=np.int64), np.zeros((MAX_CANDIDATES, CV_FIELDS), dtype=np.float64),
            new_sampler_work(), np.zeros(1, dtype=np.uint64), np.zeros(ERR_SIZE, dtype=np.int64),
            np.zeros((1, LOG_COLS), dtype=np.int64))


@njit(cache=True)
def declared(answer):
    """A declare answer's return value after the search: 1 for a declaration, 0 for the pass (the
    answer buffer as kernels.search._declaration_row leaves it: a pass all zero)."""
    return 1 if answer[ANS_KIND] != 0 else 0


@njit(cache=True)
def record_trick(st, decision):
    """A decision's trick in the records: 0-based for plays, -1 for the burial and the call (after it),
    -2 for a declaration or an auction step (before the first trick)."""
    if decision == DECLARE or decision == BID:
        return TRICK_DECLARE
    if decision == DISCARD or decision == CALL:
        return TRICK_BURIAL
    return st[S_TRICK]


@njit(cache=True)
def new_infer_work():
    """The work memory of inference (kernels.infer): the deal's observed plays, the picked world
    streams and the pool's weights."""
    return new_history(), np.zeros(MAX_WORLDS, dtype=np.int64), np.zeros(MAX_WORLDS, dtype=np.float64)


@njit(cache=True)
def _picked(st, ws, rules, seat, decision, worlds, source, sets, work, inf, model_fns, model_params, held, counters):
    """The worlds' streams for evaluate_picked into inf's picks (kernels.infer.pick_worlds), the
    pool counted; -1 when a world could not be made."""
    wst, wws, rst, rws, _, _, sampler_work, rng, err, nolog = work
    history, picks, logw = inf
    weighed = pick_worlds(st, ws, rules, seat, decision, worlds, source, sets[SS_INFER], model_fns, model_params,
                          history, wst, wws, rst, rws, sampler_work, rng, err, nolog, held, picks, logw)
    if weighed > 0:
        counters[C_WEIGHED] += weighed
    return weighed


@njit(cache=True)
def _record_values(record, values, best, chosen_levels, chosen_points, best_levels, best_points, best_col):
    """The policy's play (candidate 0) and the best candidate, as means, into the record's columns."""
    n = values[0, CV_N]
    record[chosen_levels] = values[0, CV_LEVELS] / n
    record[chosen_points] = values[0, CV_POINTS] / n
    nb = values[best, CV_N]
    record[best_levels] = values[best, CV_LEVELS] / nb
    record[best_points] = values[best, CV_POINTS] / nb
    record[best_col] = best


@njit(cache=True)
def search_step(st, ws, rules, roll_params, roll_fns, seat, decision, sets, work, inf, model_fns, model_params, counters,
                records, deal_id):
    """The search at the seat's declaration, burial, lead or follow, its base answer in the ANSWER buffer: the best
    candidate replaces it (or, with SS_RECORD, it stays and an analysis row is written).  Returns
    ERR_NONE, or -1 when a world could not be made."""
    wst, wws, rst, rws, cands, values, sampler_work, rng, err, nolog = work
    ncand = list_candidates(st, ws, rules, seat, decision, sets[SS_MAX_CAND], cands)
    if sets[SS_RECORD] == RECORD_TRAIN:
        return _train_rows(st, ws, rules, roll_params, roll_fns, seat, decision, sets, work, inf, model_fns,
                           model_params, ncand, counters, records, deal_id)
    recording = sets[SS_RECORD] != 0
    row = counters[C_RECORDS]
    if recording:
        if row >= records.shape[0]:
            return ERR_RECORDS_FULL
        for f in range(AR_FIELDS):
            records[row, f] = 0.0
        records[row, AR_DEAL] = deal_id
        records[row, AR_SEAT] = seat
        records[row, AR_DECISION] = decision
        records[row, AR_TRICK] = record_trick(st, decision)
        records[row, AR_STEP] = bid_step(st) if decision == BID else 0
        records[row, AR_CANDIDATES] = ncand
        for c in range(CARDS):
            records[row, AR_CHOSEN_CARDS + c] = cands[0, c]
            records[row, AR_BEST_CARDS + c] = cands[0, c]
        counters[C_RECORDS] = row + 1
    if ncand <= 1:
        return ERR_NONE
    worlds, rollouts = sets[SS_WORLDS], sets[SS_ROLLOUTS]
    picks = inf[1]
    if _picked(st, ws, rules, seat, decision, worlds, sets[SS_SOURCE], sets, work, inf, model_fns, model_params,
               SELECTION, counters) < 0:
        return -1
    played = evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, sets[SS_SOURCE],
                             cands, ncand, values, wst, wws, rst, rws, sampler_work, rng, err, nolog, SELECTION, picks)
    if played < 0:
        return -1
    counters[C_DECISIONS] += 1
    counters[C_ROLLOUTS] += played
    if not recording:
        chosen = chosen_candidate(values, ncand, GUARD_Z[ncand] if decision == CALL else DEVIATE_Z)
        for c in range(CARDS):
            st[ANSWER + c] = cands[chosen, c]
        return ERR_NONE
    best = best_candidate(values, ncand)
    records[row, AR_ROLLOUTS] = worlds * rollouts
    _record_values(records[row], values, best, AR_CHOSEN_LEVELS, AR_CHOSEN_POINTS, AR_BEST_LEVELS, AR_BEST_POINTS,
                   AR_BEST)
    for c in range(CARDS):
        records[row, AR_BEST_CARDS + c] = cands[best, c]
    source = sets[SS_SOURCE]
    if source != WORLD_TRUE:
        held = _held_out(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, cands, best,
                         values, work, inf, model_fns, model_params, sets, counters, records[row],
                         AR_HELD_CHOSEN_LEVELS, AR_HELD_CHOSEN_POINTS, AR_HELD_BEST_LEVELS, AR_HELD_BEST_POINTS)
        if held < 0:
            return -1
        counters[C_ROLLOUTS] += held
        _picked(st, ws, rules, seat, decision, worlds, WORLD_TRUE, sets, work, inf, model_fns, model_params, SELECTION,
                counters)
        played = evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, WORLD_TRUE,
                                 cands, ncand, values, wst, wws, rst, rws, sampler_work, rng, err, nolog, SELECTION,
                                 picks)
        counters[C_ROLLOUTS] += played
        best = best_candidate(values, ncand)
    _record_values(records[row], values, best, AR_TRUE_CHOSEN_LEVELS, AR_TRUE_CHOSEN_POINTS, AR_TRUE_BEST_LEVELS,
                   AR_TRUE_BEST_POINTS, AR_TRUE_BEST)
    held = _held_out(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, WORLD_TRUE, cands, best,
                     values, work, inf, model_fns, model_params, sets, counters, records[row],
                     AR_TRUE_HELD_CHOSEN_LEVELS, AR_TRUE_HELD_CHOSEN_POINTS, AR_TRUE_HELD_BEST_LEVELS,
                     AR_TRUE_HELD_BEST_POINTS)
    if held < 0:
        return -1
    counters[C_ROLLOUTS] += held
    if source == WORLD_TRUE:  # one kind of world only: the first block is the true deal's too
        records[row, AR_HELD_CHOSEN_LEVELS] = records[row, AR_TRUE_HELD_CHOSEN_LEVELS]
        records[row, AR_HELD_CHOSEN_POINTS] = records[row, AR_TRUE_HELD_CHOSEN_POINTS]
        records[row, AR_HELD_BEST_LEVELS] = records[row, AR_TRUE_HELD_BEST_LEVELS]
        records[row, AR_HELD_BEST_POINTS] = records[row, AR_TRUE_HELD_BEST_POINTS]
    return ERR_NONE


@njit(cache=True)
def _train_rows(st, ws, rules, roll_params, roll_fns, seat, decision, sets, work, inf, model_fns, model_params, ncand,
                counters, records, deal_id):
    """RECORD_TRAIN: value the candidates as the search does and write a training row for each (TR_*);
    the base policy's answer stays in the answer buffer.  Nothing is written when the play is forced.
    Returns ERR_NONE, or -1 when a world could not be made."""
    wst, wws, rst, rws, cands, values, sampler_work, rng, err, nolog = work
    if ncand <= 1:
        return ERR_NONE
    if _picked(st, ws, rules, seat, decision, sets[SS_WORLDS], sets[SS_SOURCE], sets, work, inf, model_fns,
               model_params, SELECTION, counters) < 0:
        return -1
    played = evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, sets[SS_WORLDS], sets[SS_ROLLOUTS],
                             sets[SS_SOURCE], cands, ncand, values, wst, wws, rst, rws, sampler_work, rng, err, nolog,
                             SELECTION, inf[1])
    if played < 0:
        return -1
    counters[C_DECISIONS] += 1
    counters[C_ROLLOUTS] += played
    views = ws[0]
    if values[0, CV_BAD] != 0.0:
        return ERR_NONE
    sit = np.zeros(SITUATION_CELLS, dtype=np.int64)
    if decision == LEAD or decision == FOLLOW:
        situation(views[seat], sit)
    if counters[C_RECORDS] + ncand > records.shape[0]:
        return ERR_RECORDS_FULL
    for c in range(ncand):
        if values[c, CV_BAD] != 0.0:  # refused in some world: no value to learn from
            continue
        row = counters[C_RECORDS]
        for f in range(TR_FIELDS):
            records[row, f] = 0.0
        records[row, TR_DEAL] = deal_id
        records[row, TR_SEAT] = seat
        records[row, TR_DECISION] = decision
        records[row, TR_TRICK] = record_trick(st, decision)
        records[row, TR_CANDIDATE] = c
        records[row, TR_CANDIDATES] = ncand
        records[row, TR_WORLDS] = values[c, CV_WORLDS]
        records[row, TR_GAIN] = values[c, CV_GAIN] / max(1.0, values[c, CV_WORLDS])
        if decision == DECLARE:
            declare_features(views[seat], cands[c], c == 0, records[row, TR_FEATURES:TR_FEATURES + N_DECLARE_FEATURES])
        elif decision == DISCARD:
            burial_features(views[seat], cands[c], c == 0, records[row, TR_FEATURES:TR_FEATURES + N_BURIAL_FEATURES])
        elif decision == BID:
            bid_features(views[seat], cands[c], c == 0, records[row, TR_FEATURES:TR_FEATURES + N_BID_FEATURES])
        elif decision == CALL:
            call_features(views[seat], cands[c], c == 0, records[row, TR_FEATURES:TR_FEATURES + N_CALL_FEATURES])
        else:
            candidate_features(views[seat], ws[1][seat], sit, cands[c], c == 0,
                               records[row, TR_FEATURES:TR_FEATURES + N_FEATURES])
        counters[C_RECORDS] = row + 1
    return ERR_NONE


@njit(cache=True)
def _held_out(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, cands, best, values,
              work, inf, model_fns, model_params, sets, counters, record, chosen_levels, chosen_points, best_levels,
              best_points):
    """The policy's play (candidate 0) and the selected candidate ``best``, valued on worlds and rollouts
    independent of those that selected it (P_HELDOUT; common random numbers between the two), into the
    record: their difference is an unbiased estimate of the selection's gain, where the in-sample
    difference (the maximum of noisy means) is biased upwards.  Nothing is rolled out when the
    selection is the policy's own play (the difference is 0).  Overwrites ``values``.  Returns the
    rollouts played, or -1."""
    wst, wws, rst, rws, _, _, sampler_work, rng, err, nolog = work
    if best == 0:  # both are the policy's play: its in-sample means, a difference of exactly 0
        n = values[0, CV_N]
        record[chosen_levels] = record[best_levels] = values[0, CV_LEVELS] / n
        record[chosen_points] = record[best_points] = values[0, CV_POINTS] / n
        return 0
    pair = cands[:HELD_PLAYS].copy()
    pair[1] = cands[best]
    if _picked(st, ws, rules, seat, decision, worlds, source, sets, work, inf, model_fns, model_params, P_HELDOUT,
               counters) < 0:
        return -1
    played = evaluate_picked(st, ws, rules, roll_params, roll_fns, seat, decision, worlds, rollouts, source, pair,
                             HELD_PLAYS, values, wst, wws, rst, rws, sampler_work, rng, err, nolog, P_HELDOUT, inf[1])
    if played < 0:
        return -1
    n = values[0, CV_N]
    record[chosen_levels] = values[0, CV_LEVELS] / n
    record[chosen_points] = values[0, CV_POINTS] / n
    n = values[1, CV_N]
    record[best_levels] = values[1, CV_LEVELS] / n
    record[best_points] = values[1, CV_POINTS] / n
    return played


SEARCH_ANSWER_SIG = types.int64(types.int64[::1], WS_TYPE, types.int64[::1], types.float64[:, :, ::1], FUNCS_TYPE,
                                types.int64, types.int64, types.int64[::1], types.int64[::1], types.float64[:, ::1],
                                types.int64)


@njit(SEARCH_ANSWER_SIG, cache=True)
def search_answer(st, ws, rules, roll_params, roll_fns, seat, decision, sets, counters, records, deal_id):
    """One searched decision for a driver outside the kernel (tractor_sim.play.stepped, where a Python
    policy or bot sits): search_step on a fresh work memory (the search's streams are keyed by the deal
    and the decision, not by the work), the answer in the ANSWER buffer its first candidate, replaced
    by the best (with SS_RECORD kept, and an analysis row written at ``records[counters[C_RECORDS]]``).
    ``roll_fns`` and ``roll_params``: the team's rollouts, as drive builds them.  Returns ERR_NONE, or
    -1 when a world could not be made."""
    return search_step(st, ws, rules, roll_params, roll_fns, seat, decision, sets, new_search_work(rules),
                       new_infer_work(), roll_fns, roll_params, counters, records, deal_id)


@njit(cache=True)
def drive(st, ws, rules, params, fns, roll_params, settings, err, log, work, inf, model_fns, model_params, counters,
          records, deal_id):
    """deal._drive with the search at the plays of the seats whose team has SS_ON (module docstring);
    the deal's plays kept for inference (kernels.infer) when a team's SS_INFER asks for it."""
    track = settings[0, SS_INFER] != 0 or settings[1, SS_INFER] != 0
    views, scratch, rngs, _ = ws
    answer = borrowed(st[ANSWER:ANSWER + CARDS])
    seat, decision = to_act(st)
    while seat != NO_SEAT:
        team = team_of(seat)
        base = team * N_DECISIONS
        v, p = borrowed(views[seat]), borrowed(params[team, decision])
        r, m = borrowed(rngs[seat]), borrowed(scratch[seat])
        if decision == FOLLOW:
            n = fns[base + FOLLOW](v, p, r, m, answer)
        elif decision == LEAD:
            n = fns[base + LEAD](v, p, r, m, answer)
        elif decision == DECLARE:
            n = fns[base + DECLARE](v, p, r, m, answer)
        elif decision == DISCARD:
            n = fns[base + DISCARD](v, p, r, m, answer)
        elif decision == CALL:
            n = fns[base + CALL](v, p, r, m, answer)
        else:
            n = fns[base + BID](v, p, r, m, answer)
        if settings[team, SS_ON] != 0 and (settings[team, SS_DECISIONS] >> decision) & 1 != 0:
            roll_fns = (fns[base + DECLARE], fns[base + DISCARD], fns[base + LEAD], fns[base + FOLLOW], fns[base + BID],
                        fns[base + CALL], fns[base + DECLARE], fns[base + DISCARD], fns[base + LEAD],
                        fns[base + FOLLOW], fns[base + BID], fns[base + CALL])
            if decision == DECLARE and n == 0:
                answer[:] = 0  # a pass: the candidate row of the pass
            code = search_step(st, ws, rules, roll_params[team], roll_fns, seat, decision, settings[team], work, inf,
                               model_fns, model_params, counters, records, deal_id)
            if code != ERR_NONE:
                err[E_CODE] = ERR_RECORDS_FULL if code == ERR_RECORDS_FULL else ERR_NO_WORLD
                return err[E_CODE]
            if decision == DECLARE:
                n = declared(answer)
        if track:
            observe(st, ws, seat, decision, n, inf[0])
        code = apply_answer(st, ws, rules, err, log, decision, n)
        if code != ERR_NONE:
            return code
        if track:
            observed(st, decision, inf[0])
        seat, decision = to_act(st)
    return ERR_NONE


@njit(cache=True)
def _play_deal(seed, key_a, key_b, round1, levels, decl_team, starter, rules, params, fns, roll_params, settings, ws,
               st, row, err, log, work, inf, model_fns, model_params, counters, records, deal_id):
    """deal.play_deal with the search's driver."""
    new_deal(inf[0])
    code = start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter)
    if code == ERR_NONE:
        code = drive(st, ws, rules, params, fns, roll_params, settings, err, log, work, inf, model_fns, model_params,
                     counters, records, deal_id)
    if code == ERR_NONE:
        for k in range(D_FIELDS):
            row[k] = st[RESULT + k]
    return code


@njit(cache=True)
def _fresh(params, own, roll_params):
    """The deal's own copies of the parameters, for its seats and for the rollouts of each team
    (match.fresh_params: what a strategy writes into them stays in the deal)."""
    teams, decisions, values = params.shape
    for t in range(teams):
        for d in range(decisions):
            for k in range(values):
                own[t, d, k] = params[t, d, k]
                for u in range(TEAMS):
                    roll_params[u, t, d, k] = params[u, d, k]


@njit(SEARCH_CHUNK_SIG, cache=True)
def play_chunk_search(mode, seed, first_id, n, fixed_levels, fixed_team, rules, params, fns, deals, matches, err, log,
                      log_id, settings, counters, records, model_fns, model_params):
    """match.play_chunk with searching seats: the same arguments and rows, plus the teams'
    search ``settings`` (kernels.search SETTINGS rows), ``counters`` (C_*) and the analysis
    ``records`` (AR_* rows; room for every play of the chunk when a team records), and the model
    of the other seats for a team whose SS_INFER is on (``model_fns``, ``model_params``: as
    ``fns`` and ``params``, by team).  A team's rollouts play its own policy (``fns``, ``params``)
    at every seat."""
    ws = new_workspace(rules)
    work = new_search_work(rules)
    inf = new_infer_work()
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    row = np.zeros(D_FIELDS, dtype=np.int64)
    levels = np.zeros(LEVELS, dtype=np.int64)
    st = np.zeros(1, dtype=np.uint64)
    nolog = np.zeros((1, LOG_COLS), dtype=np.int64)
    _, n_decisions, n_params = params.shape
    roll_params = np.zeros((TEAMS, TEAMS, n_decisions, n_params), dtype=np.float64)
    own = np.empty_like(params)  # the deal's own copies (match.fresh_params): refreshed at every deal
    for k in range(N_COUNTERS):
        counters[k] = 0
    nrows = 0
    err[E_DONE] = 0
    no = n < 0  # a False that is not a compile-time constant (as in match.play_chunk)
    for item in range(n):
        if nrows + (1 if mode == MODE_FIXED else MAX_DEALS_PER_MATCH) > deals.shape[0]:
            return nrows
        ident = first_id + item
        if mode == MODE_FIXED:
            if TEAM_MODE == FRIENDS:  # every player at the declaring team's level (as match.play_chunk)
                for s in range(SEATS):
                    levels[s] = fixed_levels[fixed_team]
            else:
                levels[0] = fixed_levels[0]
                levels[1] = fixed_levels[1]
            starter = fixed_starter(seed, ident, fixed_team, rules[R_DECLARING] == DECLARING_AUCTION, st)
            _fresh(params, own, roll_params)
            code = _play_deal(seed, ident, item - item, no, levels, fixed_team, starter, rules, own, fns, roll_params,
                              settings, ws, state, row, err, log if ident == log_id or log_id == LOG_ALL else nolog, work,
                              inf, model_fns, model_params, counters, records, ident)
            if code != 0:
                err[E_ID] = ident
                return -1 - nrows
            _write(deals, nrows, ident, -1, 0, levels, row)
            nrows += 1
            err[E_DONE] = item + 1
            continue
        for t in range(LEVELS):
            levels[t] = 0
        decl_team = 0
        starter = 0
        winner = -1
        d = 0
        while d < MAX_DEALS_PER_MATCH:
            key = ident * MAX_DEALS_PER_MATCH + d
            _fresh(params, own, roll_params)
            code = _play_deal(seed, ident, d, d == 0, levels, decl_team, starter, rules, own, fns, roll_params,
                              settings, ws, state, row, err, log if key == log_id or log_id == LOG_ALL else nolog, work,
                              inf, model_fns, model_params, counters, records, key)
            if code != 0:
                err[E_ID] = ident
                err[E_DEAL_IN_MATCH] = d
                return -1 - nrows
            _write(deals, nrows, key, ident, d, levels, row)
            for t in range(LEVELS):
                levels[t] = deals[nrows, X_LEVEL0_AFTER + t]
            nrows += 1
            d += 1
            starter = row[D_NEXT_STARTER]
            if TEAM_MODE == FRIENDS:  # the next landlord; the match ends when a player passes the Ace
                decl_team = team_of(starter)
                winner = match_winners(levels, rules)
                if winner > 0:
                    break
                continue
            decl_team = row[D_DECL_TEAM] if row[D_KEEP] else 1 - row[D_DECL_TEAM]
            winner = match_winner(levels[0], levels[1], rules)
            if winner >= 0:
                break
        matches[item, MX_MATCH_ID] = ident
        matches[item, MX_WINNER] = winner
        matches[item, MX_DEALS] = d
        for t in range(LEVELS):
            matches[item, MX_LEVEL0_FINAL + t] = levels[t]
        err[E_DONE] = item + 1
    return nrows
