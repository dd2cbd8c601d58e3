"""The player views, written from public events only: the one module that writes into them.

A strategy sees its view and nothing else (docs/design.md, decision 7).  Each
function here publishes one kind of event to the views: a value every seat
sees, a seat's own cards and suit counts, a trump table, a play.  The phase
functions (kernels.phases) decide what happened; this module says who may
know it.  The functions of a play (suit_counts, played, drawn, trick_done,
trick_cleared) are inlined into their caller by numba; the rest are calls
(``lean_jit``) that LLVM inlines where they are small: to_all alone was
inlined 38 times into the deal driver, 16% of its numba IR, and as a call the
cold first ``basic`` result compiles 2.5 s less at the same speed
(benchmarks/bench_compile.py, benchmarks/ab.py).
"""

from numba import njit

from .order import TT_EFF
from .dims import CARDS, EFF_SUITS, PAIR_SHIFT, SEATS
from .unowned import lean_jit
from .view import (
    M_MY_CARDS, M_MY_PAIRS, M_SEAT, V_BURIED, V_DECL_CARD, V_DECL_COUNT, V_DECL_KIND, V_DECL_SEAT, V_EFF, V_HAND,
    V_META, V_PLAYED, V_ROWS, V_TRICK, V_TRICK_LEADER, V_TRICK_POINTS, V_TRICK_WINNER,
)

TT_ROWS = V_META - V_EFF  # the trump table's rows, copied into every view


@lean_jit()
def to_all(views, m, value):
    """A public scalar (meta column m) every seat sees."""
    for v in range(SEATS):
        views[v, V_META, m] = value


@lean_jit()
def to_seat(views, seat, m, value):
    """A scalar only ``seat`` sees (or one that differs by seat)."""
    views[seat, V_META, m] = value


@njit(cache=True, inline='always')
def suit_counts(views, held, hpairs, seat, e):
    """The seat's kept counts of suit e into its view (M_MY_CARDS, M_MY_PAIRS)."""
    views[seat, V_META, M_MY_CARDS + e] = held[seat, e]
    views[seat, V_META, M_MY_PAIRS + e] = hpairs[seat, e]


@lean_jit()
def count_suits(views, hands, held, hpairs, seat, tt):
    """Count the seat's cards and pairs of each effective suit by table ``tt`` (the kernel's own
    copy, for the follow check) and publish them to its view."""
    for e in range(EFF_SUITS):
        held[seat, e] = 0
        hpairs[seat, e] = 0
    for c in range(CARDS):  # one pass over the hand: combos.suit_count/suit_pairs per suit cost the deal 14%
        held[seat, tt[TT_EFF, c]] += hands[seat, c]
        hpairs[seat, tt[TT_EFF, c]] += hands[seat, c] >> PAIR_SHIFT
    for e in range(EFF_SUITS):
        suit_counts(views, held, hpairs, seat, e)


@lean_jit()
def table(views, hands, held, hpairs, v, tt):
    """Copy trump table ``tt`` into view v's rows V_EFF.. and count seat v's suits by it.

    A plain loop that LLVM vectorizes (the slice assignment it replaces cost ~3% of a deal).
    """
    for r in range(TT_ROWS):
        for c in range(CARDS):
            views[v, V_EFF + r, c] = tt[r, c]
    count_suits(views, hands, held, hpairs, v, tt)


@njit(cache=True, inline='always')
def drawn(views, held, hpairs, seat, card, e):
    """Seat drew ``card`` (of effective suit e by the table its view shows): its hand and counts."""
    views[seat, V_HAND, card] += 1
    suit_counts(views, held, hpairs, seat, e)


@lean_jit()
def declaration(views, n, seat, kind, card, count):
    """Declaration event n (seat, kind, card, cards shown), shown to every seat."""
    for v in range(SEATS):
        views[v, V_DECL_SEAT, n] = seat
        views[v, V_DECL_KIND, n] = kind
        views[v, V_DECL_CARD, n] = card
        views[v, V_DECL_COUNT, n] = count


@lean_jit()
def hand_change(views, seat, c, x):
    """x copies of card c enter (x > 0) or leave (x < 0) the seat's hand, unseen by the others."""
    views[seat, V_HAND, c] += x


@lean_jit()
def buried(views, starter, c, x):
    """The starter buried x copies of c: only he knows."""
    views[starter, V_BURIED, c] = x


@njit(cache=True, inline='always')
def played(views, seat, c, x):
    """Seat played x copies of c: its hand, and every view's history and trick rows."""
    views[seat, V_HAND, c] -= x
    for v in range(SEATS):
        views[v, V_PLAYED + seat, c] += x
        views[v, V_TRICK + seat, c] += x


@njit(cache=True, inline='always')
def trick_done(views, t, leader, winner, points):
    """Trick t is over: its leader, winner and points for every seat."""
    for v in range(SEATS):
        views[v, V_TRICK_LEADER, t] = leader
        views[v, V_TRICK_WINNER, t] = winner
        views[v, V_TRICK_POINTS, t] = points


@njit(cache=True, inline='always')
def trick_cleared(views, seat, c):
    """The seat's cards leave the current trick's rows once the trick is over."""
    for v in range(SEATS):
        views[v, V_TRICK + seat, c] = 0


@njit(cache=True, inline='always')
def world_view(views, v, public, hands, held, hpairs, buried, buried_seat, tt):
    """Seat v's view of a sampled world (kernels.sampler): every public row as ``public`` (a view of
    the same deal, whoever's) shows it; v's own hand, suit counts, and ``buried`` when v is
    ``buried_seat`` (the starter after the exchange, else -1).  Every row a view has is public but
    V_HAND, V_BURIED, M_SEAT, M_MY_CARDS and M_MY_PAIRS."""
    for r in range(V_ROWS):
        for c in range(CARDS):
            views[v, r, c] = public[r, c]
    for c in range(CARDS):
        views[v, V_HAND, c] = hands[v, c]
        views[v, V_BURIED, c] = buried[c] if v == buried_seat else 0
    views[v, V_META, M_SEAT] = v
    count_suits(views, hands, held, hpairs, v, tt)
