"""The drivers of a deal: play it whole, continue it from any state, roll it out many times.

A driver asks ``phases.to_act`` who decides what, calls that seat's strategy
(the one place a strategy is called), and hands the answer to
``phases.apply``, until the deal is scored.  The strategies arrive as a
tuple of first-class functions indexed by (team, decision): team 0's
declare, discard, lead, follow, bid, call, then team 1's (in Finding Friends
too the policies sit by seat parity: decisions.md, "Finding Friends in runs").  Everything the rules
do is in kernels.phases; the views are written by kernels.publish.

The kernel and the built-in strategies are compiled without reference
counting (numba's ``_nrt=False``, see kernels.unowned): the arrays handed
to strategies are borrowed, so a plug-in compiled with counting skips the
atomic part.
"""

import numpy as np
from numba import njit, types

from .events import LOG_COLS  # noqa: F401  (the log's shape, for callers)
from .events import (  # noqa: F401  (re-exported: the event kinds of a replay)
    LOG_BID, LOG_BURY, LOG_CALL, LOG_DECLARE, LOG_DRAW, LOG_FAILED_THROW, LOG_FOLLOW, LOG_HAND, LOG_JOIN, LOG_KITTY,
    LOG_LEAD, LOG_REDEAL, LOG_SHOW, LOG_START, LOG_TRICK, LOG_TRUMP,
)
from .order import trump_table
from .phases import (  # noqa: F401  (re-exported for the engine and tests)
    ERR_BID, ERR_CALL, ERR_DECLARE, ERR_DISCARD, ERR_FOLLOW, ERR_HEADER, ERR_LEAD, ERR_NONE, ERR_REDEALS, ERR_SIZE, ERR_STATE,
    MAX_REDEALS, P_FIRST, P_SEAT, P_SHUFFLE, P_STARTER, SRC_FLIP, SRC_JOKERS, SRC_NAMED, SRC_PAIR, SRC_SINGLE,
    START_TYPE, WS_TYPE, open_auction, apply_bid, apply_call, apply_declare, apply_discard, apply_follow, apply_lead,
    refuse_auction, refuse_bid, start, start_without_auction, to_act,
)
from .result import *  # noqa: F401,F403  (the D_* columns of a result row)
from .result import D_FIELDS
from .publish import TT_ROWS
from .rng import stream_key
from .dims import CARDS, FRIENDS, RANKS, SEATS, SUITS, TEAM_MODE, TEAMS, team_of
from .state import ARR_ANSWER, NO_SEAT, RESULT, STATE_SIZE, carve
from .unowned import borrowed, lean_jit
from .view import BID, CALL, DECISIONS, DECLARE, DISCARD, FOLLOW, LEAD, STRATEGY_TYPE, V_ROWS
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING, R_RANK_TRUMPS_NT

N_DECISIONS = len(DECISIONS)
FUNCS_TYPE = types.UniTuple(STRATEGY_TYPE, TEAMS * N_DECISIONS)
SCRATCH = 256  # float64 cells of a strategy's scratch memory
P_ROLLOUT = 20  # stream purpose of a rollout's strategy randomness: P_ROLLOUT + seat


@njit(cache=True)
def fill_trump_tables(tables, rules):
    """The trump table of every (rank, suit) for these rules into ``tables``: building one costs
    about a microsecond, a lookup nothing."""
    for r in range(RANKS):
        for s in range(SUITS + 1):
            tt = trump_table(r, s, rules[R_RANK_TRUMPS_NT])
            for i in range(TT_ROWS):  # by loops: an array assignment compiles numba's shape check and
                for c in range(CARDS):  # its message formatting (1.3 s of a cold start, bench_compile)
                    tables[r, s, i, c] = tt[i, c]


def new_workspace(rules):
    """The arrays a deal's views, strategies and rules need: (views, scratch, rngs, tables).

    rngs has a row per seat (its strategy's stream) and one for the kernel's
    own draws; tables the trump tables (fill_trump_tables).  Allocated here,
    by numpy: each np.zeros of another dtype or rank in compiled code
    compiles numba's allocator again (1.1 s of a cold start, bench_compile).
    Compiled callers use compiled_new_workspace, the same function compiled.
    """
    tables = np.zeros((RANKS, SUITS + 1, TT_ROWS, CARDS), dtype=np.int64)
    fill_trump_tables(tables, rules)
    return (
        np.zeros((SEATS, V_ROWS, CARDS), dtype=np.int64),
        np.zeros((SEATS, SCRATCH), dtype=np.float64),
        np.zeros((SEATS + 1, 1), dtype=np.uint64),
        tables,
    )


compiled_new_workspace = njit(cache=True)(new_workspace)  # for kernels.search_play's own allocations


@njit(cache=True, inline='always')
def _drive(st, ws, rules, params, fns, err, log, begin_auction, bid_phase):
    """Ask and apply until the deal is scored (or an answer is illegal: its error code).
    ``begin_auction`` and ``bid_phase`` are the auction's phases, or the phases' refusals of it in a
    driver compiled without the auction (play_from_without_auction).

    The one place strategies are called: a call site per decision, each choosing between its two
    teams' functions (which the processor predicts better than one call through a pointer that
    changes at every decision: one site for all was 5% slower, A/B), and the decision's phase
    function right after it (phases.apply would test the decision a second time).
    """
    views, scratch, rngs, _ = ws
    arrs = carve(st)  # once a deal (cheap now: state.carve)
    answer = borrowed(arrs[ARR_ANSWER])
    seat, decision = to_act(st)
    while seat != NO_SEAT:
        team = team_of(seat)
        base = team * N_DECISIONS
        v, p = borrowed(views[seat]), borrowed(params[team, decision])
        r, m = borrowed(rngs[seat]), borrowed(scratch[seat])
        if decision == FOLLOW:
            code = apply_follow(st, arrs, ws, rules, err, log, fns[base + FOLLOW](v, p, r, m, answer))
        elif decision == LEAD:
            code = apply_lead(st, arrs, ws, rules, err, log, fns[base + LEAD](v, p, r, m, answer))
        elif decision == DECLARE:
            code = apply_declare(st, arrs, ws, rules, err, log, fns[base + DECLARE](v, p, r, m, answer),
                                 begin_auction)
        elif decision == DISCARD:
            code = apply_discard(st, arrs, ws, rules, err, log, fns[base + DISCARD](v, p, r, m, answer))
        elif TEAM_MODE == FRIENDS and decision == CALL:  # pruned from a tractor game's compile
            code = apply_call(st, arrs, ws, rules, err, log, fns[base + CALL](v, p, r, m, answer))
        else:
            code = bid_phase(st, arrs, ws, rules, err, log, fns[base + BID](v, p, r, m, answer))
        if code != ERR_NONE:
            return code
        seat, decision = to_act(st)
    return ERR_NONE


PLAY_FROM_SIG = types.int64(types.int64[::1], WS_TYPE, types.int64[::1], types.float64[:, :, ::1], FUNCS_TYPE,
                            types.int64[::1], types.int64[:, ::1])
ROLLOUTS_SIG = types.int64(types.int64[::1], WS_TYPE, types.int64[::1], types.float64[:, :, ::1], FUNCS_TYPE,
                           types.uint64, types.int64, types.int64, types.int64[::1], WS_TYPE, types.int64[:, ::1],
                           types.int64[::1], types.int64[:, ::1])


@lean_jit(PLAY_FROM_SIG)
def play_from(st, ws, rules, params, fns, err, log):
    """Continue a deal from the state ``st`` (and its views, scratch and streams in ``ws``) to its
    end; its result row is then in ``st[RESULT:]``.  Returns ERR_NONE or an error code.

    The one compiled copy of the driver: play_deal and rollouts call it (a call per deal costs
    nothing measurable; a copy inlined into each tripled the cold compile), match.play_chunk
    through its address (play_deal_through)."""
    return _drive(st, ws, rules, params, fns, err, log, open_auction, apply_bid)


@lean_jit(PLAY_FROM_SIG)
def play_from_without_auction(st, ws, rules, params, fns, err, log):
    """play_from compiled without the auction's phases, for rules without it (see drivers)."""
    return _drive(st, ws, rules, params, fns, err, log, refuse_auction, refuse_bid)


def drivers(rules):
    """The (start, play_from) pair a chunk hands to match.play_chunk for these encoded rules: the
    pair compiled without the auction when the rules have none (a cold start compiles less)."""
    if rules[R_DECLARING] == DECLARING_AUCTION:
        return start, play_from
    return start_without_auction, play_from_without_auction


@lean_jit()
def play_deal(seed, key_a, key_b, round1, levels, decl_team, starter, rules, params, fns, ws, st, row, err, log):
    """Play one deal; fill ``row`` (D_* columns); return ERR_NONE, or an error code.

    ``key_a``/``key_b`` name the deal's random streams (match id and deal in
    match, or deal id and 0).  In round 1 the declaration decides the
    declaring team and the starter (``decl_team``/``starter`` are ignored).
    ``params[team, decision]`` are the strategies' parameter vectors.
    ``log`` (events.LOG_*) is filled only when it has more than one row, for replays.
    """
    code = start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter)
    if code == ERR_NONE:
        code = play_from(st, ws, rules, params, fns, err, log)
    if code == ERR_NONE:
        for k in range(D_FIELDS):
            row[k] = st[RESULT + k]
    return code


DRIVER_TYPE = types.FunctionType(PLAY_FROM_SIG)  # play_from as a first-class function


@njit(cache=True, inline='always')
def play_deal_through(begin, drive, seed, key_a, key_b, round1, levels, decl_team, starter, rules, params, fns, ws, st,
                      row, err, log):
    """``play_deal`` with its two halves handed in: match.play_chunk passes phases.start as a
    START_TYPE and play_from as a DRIVER_TYPE, called through their addresses.  A direct call links
    the callee's code into the caller's library, and numba's LLVM then optimises and emits it again
    at each level: play_deal (2 s of CPU, not compiled by a run now) and play_chunk (3.6 s, mostly
    re-optimising and emitting start and its callees; now 1.2-2.0 s), benchmarks/bench_compile.py.
    Two calls a deal through a pointer cost nothing measurable (A/B in the commits that brought them)."""
    code = begin(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter)
    if code == ERR_NONE:
        code = drive(st, ws, rules, params, fns, err, log)
    if code == ERR_NONE:
        for k in range(D_FIELDS):
            row[k] = st[RESULT + k]
    return code


@njit(cache=True, inline='always')
def _restore(st, ws, st0, ws0):
    """Copy a stored deal (state, views, scratch, streams) over the work copy, by plain loops (a
    slice assignment would need numba's runtime, which the lean driver does not have)."""
    for i in range(st.shape[0]):
        st[i] = st0[i]
    views, scratch, rngs, _ = ws
    views0, scratch0, rngs0, _ = ws0
    seats, rows, cols = views.shape
    for s in range(seats):
        for r in range(rows):
            for c in range(cols):
                views[s, r, c] = views0[s, r, c]
        for c in range(scratch.shape[1]):
            scratch[s, c] = scratch0[s, c]
    for s in range(rngs.shape[0]):
        rngs[s, 0] = rngs0[s, 0]


@lean_jit(ROLLOUTS_SIG)
def rollouts(st0, ws0, rules, params, fns, seed, first, n, st, ws, rows, err, log):
    """Play the deal standing in (st0, ws0) to its end ``n`` times, the strategies' randomness of
    rollout r drawn from the streams (seed, first + r, P_ROLLOUT + seat); row r of ``rows`` gets its
    result.  (st, ws) are the work copies; ``log`` is an event log for every rollout (one row: none).
    Returns the rollouts played, or -1 - r when rollout r
    stopped on an illegal answer (``err`` says which)."""
    _, _, rngs, _ = ws
    for r in range(n):
        _restore(st, ws, st0, ws0)
        for s in range(SEATS):
            rngs[s, 0] = stream_key(seed, first + r, 0, P_ROLLOUT + s)
        if play_from(st, ws, rules, params, fns, err, log) != ERR_NONE:
            return -1 - r
        for k in range(D_FIELDS):
            rows[r, k] = st[RESULT + k]
    return n


def new_state():
    """A zeroed deal state (kernels.state), to be started by ``phases.start``."""
    return np.zeros(STATE_SIZE, dtype=np.int64)

