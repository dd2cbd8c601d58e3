"""A chunk of deals (fixed levels) or of whole matches, in one compiled call.

Output rows are int64: the columns X_* below, then the deal's D_* columns.
Under the auction (rule ``declaring``) the declaring team and the starter
come out of each deal's bids and shown cards: the ``starter`` handed to a deal
is then its dealer (fixed mode: a seat from the seed; match mode: the seat
after the previous dealer, D_NEXT_STARTER).
Random streams are keyed by (seed, match id, deal in match) or (seed, deal
id, 0), so a deal is the same whatever chunk or worker plays it.
"""

import numpy as np
from numba import njit, types

from .deal import D_FIELDS, D_GAIN, D_KEEP, D_NEXT_STARTER, D_DECL_TEAM, DRIVER_TYPE, FUNCS_TYPE
from .deal import D_GAINS
from .phases import START_TYPE, WS_TYPE
from .deal import LOG_COLS, P_STARTER, new_workspace, play_deal_through
from .phases import E_DEAL_IN_MATCH, E_DONE, E_ID
from .rng import randint, stream_key
from .layout import Layout
from .scoring import match_winner, match_winners
from .dims import FRIENDS, LEVELS, SEATS, TEAM_MODE, TEAMS, team_of
from .state import STATE_SIZE
from .unowned import lazy_jit
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING

ROW = Layout("chunk deal row", [
    ("X_DEAL_ID", 1), ("X_MATCH_ID", 1), ("X_DEAL_IN_MATCH", 1),
    ("X_LEVEL0_BEFORE", LEVELS, "each team's (Finding Friends: player's) level before the deal: X_LEVEL0_BEFORE, "
                                "X_LEVEL1_BEFORE .."),
    ("X_LEVEL0_AFTER", LEVELS, "and after it"),
    ("X_GAIN_TEAM", 1, "the team that gained (-1 none); Finding Friends: the seats that gained, a bit mask"),
    ("X_D", D_FIELDS, "the deal's D_* columns"),
])
globals().update(ROW.constants())
X_LEVEL1_BEFORE = X_LEVEL0_BEFORE + 1
X_LEVEL1_AFTER = X_LEVEL0_AFTER + 1
DEAL_COLS = ROW.size
MATCH_ROW = Layout("chunk match row", [
    ("MX_MATCH_ID", 1), ("MX_WINNER", 1, "the team that won; Finding Friends: the players who won, a bit mask"),
    ("MX_DEALS", 1), ("MX_LEVEL0_FINAL", LEVELS, "each team's (Finding Friends: player's) final level"),
])
globals().update(MATCH_ROW.constants())
MATCH_COLS = MATCH_ROW.size
MAX_DEALS_PER_MATCH = 1000  # deal ids in match mode are match_id * 1000 + deal_in_match

LOG_ALL = -2  # log_id that logs every deal of the chunk into one log
MODE_FIXED = 0
MODE_MATCH = 1

CHUNK_ARGS = (  # what a chunk is told (kernels.search_play's chunk takes the same, then its own)
    types.int64,  # mode
    types.uint64,  # seed
    types.int64,  # first id (deal id or match id)
    types.int64,  # how many deals or matches
    types.int64[::1],  # fixed mode: the two levels
    types.int64,  # fixed mode: the declaring team
    types.int64[::1],  # encoded rules
    types.float64[:, :, ::1],  # params[team, decision, :]
    FUNCS_TYPE,
    types.int64[:, ::1],  # deal rows out
    types.int64[:, ::1],  # match rows out
    types.int64[::1],  # err/status out (code, seat, decision, trick, redeals, id, deal in match, done, hand, answer)
    types.int64[:, ::1],  # event log of one deal, for replays (deal.LOG_*)
    types.int64,  # the deal id to log (-1: none, LOG_ALL: every deal)
)
# the chunk's work arrays (new_chunk_work): a workspace, a state, a result row, the levels, a stream, no log,
# and the deal's own copy of the parameters
WORK_TYPE = types.Tuple((WS_TYPE, types.int64[::1], types.int64[::1], types.int64[::1], types.uint64[::1],
                         types.int64[:, ::1], types.float64[:, :, ::1]))
# and phases.start and deal.play_from, called through their addresses (see deal.play_deal_through)
CHUNK_SIG = types.int64(*CHUNK_ARGS, WORK_TYPE, START_TYPE, DRIVER_TYPE)


def new_chunk_work(rules, params, isolate=True):
    """play_chunk's work arrays, allocated by numpy (see deal.new_workspace: in compiled code each
    dtype and rank of np.zeros compiles numba's allocator again); ``params`` gives the shape of the
    deal's copy of the parameters (``fresh_params``). ``isolate`` False (only built-in strategies,
    which never write their parameters): no copy, the deals read ``params`` itself."""
    own = np.empty_like(np.ascontiguousarray(params)) if isolate else np.zeros((0, 1, 1), dtype=np.float64)
    return (new_workspace(rules), np.zeros(STATE_SIZE, dtype=np.int64), np.zeros(D_FIELDS, dtype=np.int64),
            np.zeros(LEVELS, dtype=np.int64), np.zeros(1, dtype=np.uint64), np.zeros((1, LOG_COLS), dtype=np.int64),
            own)


@njit(cache=True, inline='always')
def fresh_params(params, own):
    """Copy the parameters into the deal's own copy: a strategy that writes into its ``params``
    changes only the deal it plays, never the deals after it in the chunk (results identical for
    any chunking). By loops: the lean driver has no numba runtime for a slice copy. Costs ~50
    stores a deal."""
    teams, decisions, values = params.shape
    for t in range(teams):
        for d in range(decisions):
            for k in range(values):
                own[t, d, k] = params[t, d, k]


@njit(cache=True)
def _write(deals, i, deal_id, match_id, d, levels, row):
    deals[i, X_DEAL_ID] = deal_id
    deals[i, X_MATCH_ID] = match_id
    deals[i, X_DEAL_IN_MATCH] = d
    for k in range(D_FIELDS):
        deals[i, X_D + k] = row[k]
    if TEAM_MODE == FRIENDS:  # a level per player, each moved by his own gain (9.11)
        gained = 0
        for s in range(SEATS):
            deals[i, X_LEVEL0_BEFORE + s] = levels[s]
            deals[i, X_LEVEL0_AFTER + s] = levels[s] + row[D_GAINS + s]
            if row[D_GAINS + s] > 0:
                gained |= 1 << s
        deals[i, X_GAIN_TEAM] = gained
        return
    deals[i, X_LEVEL0_BEFORE] = levels[0]
    deals[i, X_LEVEL1_BEFORE] = levels[1]
    team = row[D_DECL_TEAM] if row[D_KEEP] else 1 - row[D_DECL_TEAM]
    gain = row[D_GAIN]
    deals[i, X_LEVEL0_AFTER] = levels[0] + (gain if team == 0 else 0)
    deals[i, X_LEVEL1_AFTER] = levels[1] + (gain if team == 1 else 0)
    deals[i, X_GAIN_TEAM] = team if gain > 0 else -1


@njit(cache=True)
def fixed_starter(seed, deal_id, team, auction, st):
    """The starter of deal ``deal_id`` at fixed levels: a seat of the declaring ``team`` drawn from the
    deal's own stream (under the auction, any seat: the dealer, the bids decide the rest).  ``st`` is
    a uint64[1] stream state to draw with.  tractor_sim.play.game starts the same deals through it."""
    st[0] = stream_key(seed, deal_id, 0, P_STARTER)
    if auction or TEAM_MODE == FRIENDS:  # Finding Friends: any seat is the landlord
        return randint(st, SEATS)
    return team + TEAMS * randint(st, SEATS // TEAMS)


@lazy_jit(CHUNK_SIG)
def play_chunk(mode, seed, first_id, n, fixed_levels, fixed_team, rules, params, fns, deals, matches, err, log, log_id,
               work, begin, driver):
    """Play ``n`` deals or matches from ``first_id``; returns the deal rows written.  ``work`` is
    new_chunk_work(rules, params); ``begin`` and ``driver`` are phases.start and deal.play_from (the
    callers pass them: a compiled function's address exists only at run time).

    ``err[E_DONE]`` counts the deals or matches completed: a match is started only
    while ``deals`` has room for MAX_DEALS_PER_MATCH more rows.  On a strategy
    error the rows written so far stay valid, ``err`` holds the situation, and
    the return value is minus one minus the rows written.
    """
    ws, state, row, levels, st, nolog, own = work
    isolate = own.shape[0] > 0
    p = own if isolate else params
    nrows = 0
    err[E_DONE] = 0
    no = n < 0  # a False that is not a compile-time constant: see the fixed-mode call
    for item in range(n):
        if nrows + (1 if mode == MODE_FIXED else MAX_DEALS_PER_MATCH) > deals.shape[0]:
            return nrows  # out of room: the caller continues from err[E_DONE]
        ident = first_id + item
        if mode == MODE_FIXED:
            if TEAM_MODE == FRIENDS:  # every player at the declaring team's level (docs/decisions.md)
                for s in range(SEATS):
                    levels[s] = fixed_levels[fixed_team]
            else:
                levels[0] = fixed_levels[0]
                levels[1] = fixed_levels[1]
            starter = fixed_starter(seed, ident, fixed_team, rules[R_DECLARING] == DECLARING_AUCTION, st)
            # key_b and round1 as run-time values: literal 0 / False would make numba compile
            # a second copy of the whole deal kernel just for this call site
            if isolate:
                fresh_params(params, own)
            code = play_deal_through(begin, driver, seed, ident, item - item, no, levels, fixed_team, starter, rules,
                                     p, fns, ws, state, row, err,
                                     log if ident == log_id or log_id == LOG_ALL else nolog)
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
            if isolate:
                fresh_params(params, own)
            code = play_deal_through(begin, driver, seed, ident, d, d == 0, levels, decl_team, starter, rules, p,
                                     fns, ws, state, row, err, log if key == log_id or log_id == LOG_ALL else nolog)
            if code != 0:
                err[E_ID] = ident
                err[E_DEAL_IN_MATCH] = d
                return -1 - nrows
            _write(deals, nrows, ident * MAX_DEALS_PER_MATCH + d, ident, d, levels, row)
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
