"""Voids: which seats have shown that they are out of a suit, kept across calls in the
strategy's ``scratch`` (the only memory a strategy has between tricks).
"""

import numpy as np
from numba import njit

from ..kernels.dims import EFF_SUITS, SEATS, seat_after
from ..kernels.order import META_NCARDS
from ..kernels.view import (
    M_LEADER, M_LEAD_N, M_LEAD_SUIT, M_NPLAYED, M_SEAT, M_TRICK, V_META, V_PLAYED, V_SUITS, V_TRICK,
    V_TRICK_LEADER, V_TTMETA,
)

S_LAST = 0  # index of the trick of my last observation, plus one (0: none)
S_MYPOS = 1  # how many plays came before mine in that trick
S_SUIT = 2  # its lead suit (-1: I led; found at the next call)
S_N = 3  # its lead size
S_SNAP = 4  # 4..23: cards of each effective suit played by each seat (seat * EFF_SUITS + suit)
S_VOID = S_SNAP + SEATS * EFF_SUITS  # 24..43: 1.0 when a seat has shown a void in a suit (seat * EFF_SUITS + suit)
SCRATCH_LIB = max(48, S_VOID + SEATS * EFF_SUITS)  # 48 with four seats, as plug-ins were told; more with more


@njit(cache=True)
def _played_in(view, seat, e):
    """Cards of suit e that seat has played before the current trick."""
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        c = view[V_SUITS + e, i]
        n += view[V_PLAYED + seat, c] - view[V_TRICK + seat, c]
    return n


@njit(cache=True)
def _count_in(view, row, e):
    n = 0
    for i in range(view[V_TTMETA, META_NCARDS + e]):
        n += view[row, view[V_SUITS + e, i]]
    return n


@njit(cache=True)
def track_voids(view, scratch):
    """Update the shown voids kept in scratch[:SCRATCH_LIB]; call it at every lead and follow.

    A seat shows a void when it plays fewer cards of the led suit than were
    led.  Plays before mine in this trick are in the view; for the plays after
    mine in the previous trick the tracker compares the cards played then
    with a snapshot taken at my previous call.  So it sees everything when
    the seat's lead and follow strategies both call it, and only the current
    trick's earlier plays otherwise.
    """
    if scratch.shape[0] < SCRATCH_LIB:
        return
    t = view[V_META, M_TRICK]
    npl = view[V_META, M_NPLAYED]
    me = view[V_META, M_SEAT]
    if t > 0 and scratch[S_LAST] == t:
        pos0 = np.int64(scratch[S_MYPOS])
        s0 = np.int64(scratch[S_SUIT])
        n0 = np.int64(scratch[S_N])
        if pos0 < 0 or pos0 >= SEATS or s0 < -1 or s0 >= EFF_SUITS:  # not ours: someone else wrote there
            pos0 = SEATS - 1
        if s0 < 0:  # I led it: my own play says what was led
            for e in range(EFF_SUITS):
                d = _played_in(view, me, e) - np.int64(scratch[S_SNAP + me * EFF_SUITS + e])
                if d > 0:
                    s0 = e
                    n0 = d
        l0 = view[V_TRICK_LEADER, t - 1]
        if s0 >= 0:
            for i in range(pos0 + 1, SEATS):
                x = seat_after(l0, i)
                if _played_in(view, x, s0) - np.int64(scratch[S_SNAP + x * EFF_SUITS + s0]) < n0:
                    scratch[S_VOID + x * EFF_SUITS + s0] = 1.0
    leader = view[V_META, M_LEADER]
    scratch[S_LAST] = t + 1
    scratch[S_MYPOS] = npl
    if npl == 0:
        scratch[S_SUIT] = -1
        for x in range(SEATS):
            for e in range(EFF_SUITS):
                scratch[S_SNAP + x * EFF_SUITS + e] = _played_in(view, x, e)
        return
    s = view[V_META, M_LEAD_SUIT]
    n = view[V_META, M_LEAD_N]
    scratch[S_SUIT] = s
    scratch[S_N] = n
    for i in range(1, npl):
        x = seat_after(leader, i)
        if _count_in(view, V_TRICK + x, s) < n:
            scratch[S_VOID + x * EFF_SUITS + s] = 1.0
    for i in range(npl + 1, SEATS):
        x = seat_after(leader, i)
        scratch[S_SNAP + x * EFF_SUITS + s] = _played_in(view, x, s)


@njit(cache=True, inline='always')
def shown_void(scratch, seat, s):
    """Whether ``seat`` has shown a void in effective suit ``s`` (as tracked by track_voids)."""
    return scratch.shape[0] >= SCRATCH_LIB and scratch[S_VOID + seat * EFF_SUITS + s] > 0.0
