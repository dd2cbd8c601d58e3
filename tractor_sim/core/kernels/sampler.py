"""Worlds consistent with one seat's knowledge: the deal with the cards it cannot see dealt again.

A search player (issue 15) decides by playing out sampled worlds.  A world
is a full deal state, a copy of the true one in which the cards the seat
cannot see (the other hands; the kitty, unless the seat buried it) are
reassigned at random, consistently with everything the seat knows.

**The contract: what is read.**  From the true state ``st`` the sampler
reads only what the seat knows: its own hand (and, the starter, its buried
cards), the public scalars (phase, trump, starter, the trick: leader, plays
made, lead size, cards left per hand), and the public knowledge the phase
functions keep (kernels.knowledge: cards played by each seat, cards seen
and not played, shown voids and missing pairs).  From the workspace it
reads the seat's own view, scratch and stream (its own); the world's views
are built from the seat's view (public rows) and the world's hands.  The
world carries nothing else of ``st``: not the seed, the deck or the kitty,
nor the other seats' scratch or streams.  tests/test_sampler.py checks it:
two true states that differ only in what the seat cannot see give the same
worlds for the same stream.

**Exact.**  A world is drawn uniformly among the deals of the unseen
cards (each physical copy a distinct card, as a shuffle deals them) that
fit every kept constraint.  Every constraint bears on one card id at a
time (a void: no copy of it in that hand; a missing pair: at most one
copy, and with 3 and 4 decks a missing tuple of m: at most m - 1 copies of a
card the seat has not played; a shown card: at least so many copies, in the hand, or for the
starter in his hand and the kitty together), so the only coupling between
cards is the number of cards each hand (and the kitty) must receive.
``prepare`` counts, by dynamic programming over the unseen card ids, the
number of ways W[i][r] to deal cards i.. into the room r still left in the
places (the room of one place follows from the others: it is left out of
the table's index); ``draw`` then deals card by card, choosing how its
copies split between the places with probability proportional to
(ways to place the copies so) x W[i+1][room left].  No rejection, no
approximation: uniform given the constraints.  Not kept as constraints
(a world may contradict them; docs/search.md): the follow_tractor variant's
tractor obligation, what a failed throw says of the seats that could not
beat it, and any inference from the strategies' choices (the prior is the
shuffle's).

**Pooled places.**  The table has a dimension per place but one, so with
6 players it grows as the fourth power of a hand (3.7 million cells a card at
3 decks: seconds per decision).  Places that no kept constraint touches are
interchangeable: whichever copies they receive together, the ways to split
those among them are the same number (the multinomial of their rooms).  So
when the table would exceed POOL_ABOVE cells, such places are merged into
one of their combined room, the table is counted over the rest, and
``deal_unseen`` shuffles the merged place's copies into its places' rooms:
still uniform given the constraints, exactly.  Below POOL_ABOVE (every
4-player table) nothing is merged, so those worlds are the same draws as
before pooling.

**Where the table would not fit.**  The table is allocated at TABLE_CELLS
(every 4-player table fits whole, and 5 players with 2 decks).  With more places a pooled table
can still be too large (7 and 8 players, 6 with 4 decks: gigabytes); then
``prepare`` keeps each unseen card's bounds and ``deal_unseen`` takes its
deals from kernels.pair_chain, a Markov chain with the same target:
approximate (correlated draws), documented there and in docs/search.md.

Cost: ``prepare`` is a few milliseconds at the first trick (about 6,000
room cells by 54 cards), far less later; ``draw`` walks 54 cards or fewer.
Worlds are sampled in the phases that follow the draw: the kitty exchange,
leads and follows.
"""

import math

import numpy as np
from numba import njit

from . import pair_chain
from . import publish as P
from .layout import Layout
from .order import TT_EFF
from .rng import next_u64, shuffle, uniform
from .dims import CARDS, DECK, DECKS, EFF_SUITS, HAND, KITTY, SEATS, seat_after
from .state import (
    ANSWER, BURIED, HANDS, HELD, HPAIRS, K_MOST, K_PLAYED, K_SHOWN, K_VOID, PH_DONE, PH_FOLLOW, PH_KITTY,
    PH_LEAD, S_LEAD_N, S_LEADER, S_NPLAYED, S_PHASE, S_RANK, S_REMAINING, S_SEED, S_STARTER, S_SUIT, SHUFFLED,
    STATE_SIZE,
)

PLACES = SEATS  # where unseen cards lie: the other seats' hands (places 0.., in playing order after the seat) and
KITTY_PLACE = SEATS - 1  # the kitty
NO_PLACE = -1
# Ways to split the copies of one card between the places, at most: C(DECKS + PLACES - 1, PLACES - 1).
MAX_SPLITS = math.comb(DECKS + PLACES - 1, PLACES - 1)
OTHERS = SEATS - 1  # the other seats
# Cells of one card's layer of the table: each place but the largest hand (OTHERS - 1 hands, the kitty)
# indexes it by its room.
LAYER_CELLS = (HAND + 1) ** (OTHERS - 1) * (KITTY + 1)
WAYS_CELLS = (CARDS + 1) * LAYER_CELLS
TABLE_CELLS = min(WAYS_CELLS, 1 << 23)  # the table allocated (64 MB at most); a larger one: the chain (module doc)
POOL_ABOVE = 100_000  # cells of a layer above which unconstrained places are pooled (a 4-player layer: < 7,000)

PLAN = Layout("sampler plan", [
    ("W_READY", 1, "1 when prepared and a consistent world exists"),
    ("W_SEAT", 1, "the seat whose knowledge it is"),
    ("W_LAYERS", 1, "unseen distinct cards: the table's layers"),
    ("W_CARD", CARDS, "layer i's card"),
    ("W_TOTAL", CARDS + 1, "unseen copies of layers i.. together"),
    ("W_ROOM", PLACES, "cards each place receives"),
    ("W_PLACE_SEAT", PLACES, "its seat (NO_PLACE: the kitty, or no place)"),
    ("W_STRIDE", PLACES, "its stride in a layer's index (0: the place left out, its room follows)"),
    ("W_LEFT_OUT", 1, "the place left out"),
    ("W_POOL", 1, "the place the unconstrained places were merged into (NO_PLACE: none merged)"),
    ("W_POOL_ROOM", PLACES, "each merged place's own room (0: not merged)"),
    ("W_CELLS", 1, "cells of a layer"),
    ("W_NSPLITS", CARDS, "layer i's allowed splits,"),
    ("W_SPLITS", CARDS * MAX_SPLITS * PLACES, "each split: copies per place"),
    ("W_CHAIN", 1, "1 when the table would not fit and the deals come from kernels.pair_chain"),
    ("W_SWEPT", 1, "1 once the chain has run its burn-in"),
    ("W_COPIES", CARDS, "the chain's layer i: unseen copies"),
    ("W_LEAST", CARDS * PLACES, "the fewest copies of it each place receives"),
    ("W_MOST", CARDS * PLACES, "the most"),
    ("W_JOINT", CARDS, "the fewest in the starter's place and the kitty together (0: no such bound)"),
    ("W_JOINT_PLACE", 1, "the starter's place (NO_PLACE: no joint bound)"),
    ("W_DEAL", CARDS * PLACES, "the chain's current deal: copies of layer i per place"),
])
globals().update(PLAN.constants())
PLAN_SIZE = PLAN.size


@njit(cache=True)
def new_work():
    """The sampler's work arrays: (plan int64, ways float64, split weights float64)."""
    return (np.zeros(PLAN_SIZE, dtype=np.int64), np.zeros(TABLE_CELLS, dtype=np.float64),
            np.zeros(CARDS * MAX_SPLITS, dtype=np.float64))


@njit(cache=True, inline='always')
def hand_size(st, seat):
    """Cards in the seat's hand, from public scalars only."""
    phase = st[S_PHASE]
    if phase == PH_KITTY:
        return HAND + KITTY if seat == st[S_STARTER] else HAND
    n = st[S_REMAINING]
    if phase == PH_FOLLOW:
        for i in range(st[S_NPLAYED]):
            if seat_after(st[S_LEADER], i) == seat:
                n -= st[S_LEAD_N]
    return n


@njit(cache=True)
def _factorial(n):
    f = 1
    for k in range(1, n + 1):
        f *= k
    return f


@njit(cache=True)
def _unseen(st, seat, c, phase, starter):
    """Copies of card c the seat cannot see (-1: more seen than exist)."""
    n = DECKS - st[HANDS + seat * CARDS + c]
    for s in range(SEATS):
        n -= st[K_PLAYED + s * CARDS + c]
    if phase >= PH_LEAD and seat == starter:
        n -= st[BURIED + c]
    return n if n >= 0 else -1


@njit(cache=True)
def _bounds(st, plan, c, n, e, starter, kitty_hidden, least, most):
    """The copies of card c (n unseen, effective suit e) each place may receive, into least and most;
    returns (the starter's least in hand and kitty together, the starter's place) when the kitty is
    hidden and the starter showed c, else (0, NO_PLACE)."""
    starter_least = 0
    starter_place = NO_PLACE
    for p in range(PLACES):
        s = plan[W_PLACE_SEAT + p]
        least[p] = 0
        most[p] = n if plan[W_ROOM + p] > 0 else 0
        if s != NO_PLACE:
            if st[K_VOID + s * EFF_SUITS + e] != 0:
                most[p] = 0
            elif st[K_MOST + s * EFF_SUITS + e] != 0 and st[K_PLAYED + s * CARDS + c] == 0:
                # a card the seat has played is not bound (knowledge.K_MOST); with 2 decks at most one
                # copy of it is left anyway, so the bound would change nothing there
                most[p] = min(most[p], st[K_MOST + s * EFF_SUITS + e])
            shown = st[K_SHOWN + s * CARDS + c]
            if s == starter and kitty_hidden:
                starter_least = shown
                starter_place = p
            else:
                least[p] = shown
    return starter_least, starter_place


@njit(cache=True)
def _pool(st, seat, plan, tt, phase, starter, kitty_hidden, least, most):
    """Merge the places no constraint touches into the first of them (W_POOL, module doc)."""
    free = np.ones(PLACES, dtype=np.bool_)
    for c in range(CARDS):
        n = _unseen(st, seat, c, phase, starter)
        if n <= 0:
            continue
        starter_least, starter_place = _bounds(st, plan, c, n, tt[TT_EFF, c], starter, kitty_hidden, least, most)
        if starter_least > 0:
            free[starter_place] = False
            free[KITTY_PLACE] = False
        for p in range(PLACES):
            if least[p] > 0 or most[p] < min(n, plan[W_ROOM + p]):
                free[p] = False
    pool = NO_PLACE
    for p in range(PLACES):
        if free[p] and plan[W_ROOM + p] > 0:
            if pool == NO_PLACE:
                pool = p
                plan[W_POOL_ROOM + p] = plan[W_ROOM + p]
            else:
                plan[W_POOL_ROOM + p] = plan[W_ROOM + p]
                plan[W_ROOM + pool] += plan[W_ROOM + p]
                plan[W_ROOM + p] = 0
    plan[W_POOL] = pool


@njit(cache=True)
def _layout(plan):
    """Strides of the table's index over the places but the largest hand (left out); returns a layer's cells."""
    largest = 0
    for p in range(OTHERS):
        if plan[W_ROOM + p] > plan[W_ROOM + largest]:
            largest = p
    plan[W_LEFT_OUT] = largest
    cells = 1
    for p in range(PLACES - 1, -1, -1):
        if p == largest:
            plan[W_STRIDE + p] = 0
        else:
            plan[W_STRIDE + p] = cells
            cells *= plan[W_ROOM + p] + 1
    return cells


@njit(cache=True)
def _chain_pieces(plan, layers):
    """The chain's problem and deal as views of the plan: (copies, least, most, joint, deal)."""
    return (plan[W_COPIES:W_COPIES + layers],
            plan[W_LEAST:W_LEAST + CARDS * PLACES].reshape((CARDS, PLACES))[:layers],
            plan[W_MOST:W_MOST + CARDS * PLACES].reshape((CARDS, PLACES))[:layers],
            plan[W_JOINT:W_JOINT + layers],
            plan[W_DEAL:W_DEAL + CARDS * PLACES].reshape((CARDS, PLACES))[:layers])


@njit(cache=True)
def prepare(st, seat, tables, work, pool_above=POOL_ABOVE):
    """Count the worlds consistent with ``seat``'s knowledge of ``st`` (the contract: module doc), the
    places no constraint touches pooled when a layer would exceed ``pool_above`` cells.
    Returns 1 when there is one (``draw`` may follow), 0 when not or in a phase without worlds."""
    plan, ways, weights = work
    plan[W_READY] = 0
    plan[W_SEAT] = seat
    plan[W_POOL] = NO_PLACE
    plan[W_CHAIN] = 0
    phase = st[S_PHASE]
    if phase < PH_KITTY or phase == PH_DONE:
        return 0
    starter = st[S_STARTER]
    tt = tables[st[S_RANK], st[S_SUIT]]
    kitty_hidden = phase >= PH_LEAD and seat != starter
    # the places and their room
    for p in range(PLACES):
        plan[W_PLACE_SEAT + p] = NO_PLACE
        plan[W_ROOM + p] = 0
        plan[W_POOL_ROOM + p] = 0
    for p in range(OTHERS):
        s = seat_after(seat, p + 1)
        plan[W_PLACE_SEAT + p] = s
        plan[W_ROOM + p] = hand_size(st, s)
    if kitty_hidden:
        plan[W_ROOM + KITTY_PLACE] = KITTY
    most = np.zeros(PLACES, dtype=np.int64)
    least = np.zeros(PLACES, dtype=np.int64)
    x = np.zeros(PLACES, dtype=np.int64)
    cells = _layout(plan)
    if cells > pool_above:
        _pool(st, seat, plan, tt, phase, starter, kitty_hidden, least, most)
        cells = _layout(plan)
    largest = plan[W_LEFT_OUT]
    plan[W_CELLS] = cells
    layers = 0
    for c in range(CARDS):
        layers += _unseen(st, seat, c, phase, starter) != 0
    chain = (layers + 1) * cells > ways.shape[0]  # the table would not fit: the chain's bounds instead
    n_copies, chain_least, chain_most, chain_joint, _ = _chain_pieces(plan, CARDS)
    plan[W_JOINT_PLACE] = NO_PLACE
    # the unseen cards and how each may split
    n_layers = 0
    room_total = 0
    for p in range(PLACES):
        room_total += plan[W_ROOM + p]
    unseen_total = 0
    for c in range(CARDS):
        n = _unseen(st, seat, c, phase, starter)
        if n < 0:
            return 0
        if n == 0:
            continue
        starter_least, starter_place = _bounds(st, plan, c, n, tt[TT_EFF, c], starter, kitty_hidden, least, most)
        if chain:
            plan[W_CARD + n_layers] = c
            n_copies[n_layers] = n
            chain_least[n_layers, :] = least
            chain_most[n_layers, :] = most
            chain_joint[n_layers] = starter_least
            if starter_place != NO_PLACE:
                plan[W_JOINT_PLACE] = starter_place
            n_layers += 1
            continue
        # every split of n copies between the places within [least, most]: an odometer
        k = 0
        for p in range(PLACES):
            x[p] = 0
        while True:
            total = 0
            ok = True
            for p in range(PLACES):
                total += x[p]
                ok = ok and least[p] <= x[p] <= most[p]
            if ok and total == n and (starter_place == NO_PLACE
                                      or x[starter_place] + x[KITTY_PLACE] >= starter_least):
                w = _factorial(n)
                for p in range(PLACES):
                    w //= _factorial(x[p])
                for p in range(PLACES):
                    plan[W_SPLITS + (n_layers * MAX_SPLITS + k) * PLACES + p] = x[p]
                weights[n_layers * MAX_SPLITS + k] = w
                k += 1
            p = 0
            while p < PLACES and x[p] == n:
                x[p] = 0
                p += 1
            if p == PLACES:
                break
            x[p] += 1
        if k == 0:
            return 0
        plan[W_CARD + n_layers] = c
        plan[W_NSPLITS + n_layers] = k
        n_layers += 1
        unseen_total += n
    plan[W_LAYERS] = n_layers
    if chain:
        plan[W_READY] = chain_start(plan, n_layers, plan[W_ROOM:W_ROOM + PLACES])
        return plan[W_READY]
    if unseen_total != room_total:
        return 0
    plan[W_TOTAL + n_layers] = 0
    for i in range(n_layers - 1, -1, -1):
        c = plan[W_CARD + i]
        n = 0
        for p in range(PLACES):
            n += plan[W_SPLITS + (i * MAX_SPLITS) * PLACES + p]
        plan[W_TOTAL + i] = plan[W_TOTAL + i + 1] + n
    # the table: ways[i, r] for the room r (every place but the left-out one) still to fill with layers i..
    left_out = largest
    left_room = plan[W_ROOM + left_out]
    base = n_layers * cells
    for j in range(cells):
        ways[base + j] = 0.0
    ways[base] = 1.0
    for i in range(n_layers - 1, -1, -1):
        here = i * cells
        nxt = (i + 1) * cells
        total = plan[W_TOTAL + i]
        for j in range(cells):
            # the room of each indexed place, and so of the left-out one
            rest = j
            used = 0
            for p in range(PLACES):
                if p != left_out:
                    r = (rest // plan[W_STRIDE + p]) % (plan[W_ROOM + p] + 1)
                    x[p] = r
                    used += r
            r_left = total - used
            acc = 0.0
            if 0 <= r_left <= left_room:
                x[left_out] = r_left
                for q in range(plan[W_NSPLITS + i]):
                    at = W_SPLITS + (i * MAX_SPLITS + q) * PLACES
                    fits = True
                    off = 0
                    for p in range(PLACES):
                        fits = fits and plan[at + p] <= x[p]
                        off += plan[at + p] * plan[W_STRIDE + p]
                    if fits:
                        acc += weights[i * MAX_SPLITS + q] * ways[nxt + j - off]
            ways[here + j] = acc
    if ways[_start_cell(plan)] <= 0.0:
        return 0
    plan[W_READY] = 1
    return 1


@njit(cache=True)
def chain_start(plan, layers, room):
    """Start kernels.pair_chain on the problem in the plan's chain pieces (W_COPIES.. for ``layers``
    layers, places of ``room``); also kernels.draw_worlds'.  False when no deal is consistent."""
    n, low, high, joint, deal = _chain_pieces(plan, layers)
    if not pair_chain.start(n, low, high, joint, plan[W_JOINT_PLACE], KITTY_PLACE, room, deal):
        return False
    plan[W_CHAIN] = 1
    plan[W_SWEPT] = 0
    return True


@njit(cache=True)
def chain_next(plan, layers, room, rng):
    """The chain's next deal in W_DEAL (BURN_IN sweeps before a decision's first, BETWEEN before
    each other)."""
    n, low, high, joint, deal = _chain_pieces(plan, layers)
    scratch = np.empty((layers + 1, DECK + 1))
    for _ in range(pair_chain.BETWEEN if plan[W_SWEPT] else pair_chain.BURN_IN):
        pair_chain.sweep(low, high, joint, plan[W_JOINT_PLACE], KITTY_PLACE, room, deal, rng, scratch)
    plan[W_SWEPT] = 1
    return deal


@njit(cache=True, inline='always')
def _start_cell(plan):
    j = 0
    for p in range(PLACES):
        j += plan[W_ROOM + p] * plan[W_STRIDE + p]
    return j


@njit(cache=True)
def deal_unseen(work, rng, out):
    """One uniform deal of the unseen cards by the prepared table: ``out[p, c]`` copies of card c to
    place p (PLACES rows).  Returns 1, or 0 when nothing is prepared."""
    plan, ways, weights = work
    if plan[W_READY] == 0:
        return 0
    out[:, :] = 0
    if plan[W_CHAIN]:
        deal = chain_next(plan, plan[W_LAYERS], plan[W_ROOM:W_ROOM + PLACES], rng)
        for i in range(plan[W_LAYERS]):
            for p in range(PLACES):
                out[p, plan[W_CARD + i]] = deal[i, p]
        if plan[W_POOL] != NO_PLACE:
            _unpool(plan, rng, out)
        return 1
    cells = plan[W_CELLS]
    j = _start_cell(plan)
    for i in range(plan[W_LAYERS]):
        nxt = (i + 1) * cells
        target = uniform(rng) * ways[i * cells + j]
        acc = 0.0
        chosen = -1
        chosen_off = 0
        for q in range(plan[W_NSPLITS + i]):
            at = W_SPLITS + (i * MAX_SPLITS + q) * PLACES
            fits = True
            off = 0
            for p in range(PLACES):
                if p != plan[W_LEFT_OUT]:
                    r = (j // plan[W_STRIDE + p]) % (plan[W_ROOM + p] + 1)
                    fits = fits and plan[at + p] <= r
                    off += plan[at + p] * plan[W_STRIDE + p]
            if not fits:
                continue
            term = weights[i * MAX_SPLITS + q] * ways[nxt + j - off]
            if term <= 0.0:
                continue
            chosen = q
            chosen_off = off
            acc += term
            if acc > target:
                break
        at = W_SPLITS + (i * MAX_SPLITS + chosen) * PLACES
        c = plan[W_CARD + i]
        for p in range(PLACES):
            out[p, c] = plan[at + p]
        j -= chosen_off
    if plan[W_POOL] != NO_PLACE:
        _unpool(plan, rng, out)
    return 1


@njit(cache=True)
def _unpool(plan, rng, out):
    """The pooled place's copies shuffled, then dealt into its places' own rooms in order: every split
    of them alike (module doc)."""
    pool = plan[W_POOL]
    copies = np.empty(DECK, dtype=np.int64)
    n = 0
    for c in range(CARDS):
        for _ in range(out[pool, c]):
            copies[n] = c
            n += 1
        out[pool, c] = 0
    shuffle(copies[:n], rng)
    at = 0
    for p in range(PLACES):
        for _ in range(plan[W_POOL_ROOM + p]):
            out[p, copies[at]] += 1
            at += 1


@njit(cache=True)
def draw(st, ws, work, rng, world, world_ws):
    """Write into ``world`` (a state array) and ``world_ws`` (a workspace of the same rules) a world
    drawn by the table ``prepare`` made for (st, seat): playable by deal.play_from from where st
    stands.  Returns 1, or 0 when nothing is prepared."""
    plan = work[0]
    if plan[W_READY] == 0:
        return 0
    seat = plan[W_SEAT]
    dealt = np.zeros((PLACES, CARDS), dtype=np.int64)
    deal_unseen(work, rng, dealt)
    views, scratch, rngs, tables = ws
    w_views, w_scratch, w_rngs, _ = world_ws
    for i in range(STATE_SIZE):
        world[i] = st[i]
    world[S_SEED] = 0
    for i in range(DECK):  # the deck in card order: the shuffle is not the seat's to know
        world[SHUFFLED + i] = i // DECKS
    for c in range(CARDS):
        world[ANSWER + c] = 0
    for p in range(OTHERS):
        s = plan[W_PLACE_SEAT + p]
        for c in range(CARDS):
            world[HANDS + s * CARDS + c] = dealt[p, c]
    phase = st[S_PHASE]
    starter = st[S_STARTER]
    if phase < PH_LEAD:
        for c in range(CARDS):
            world[BURIED + c] = 0
    elif seat != starter:
        for c in range(CARDS):
            world[BURIED + c] = dealt[KITTY_PLACE, c]
    hands = world[HANDS:HANDS + SEATS * CARDS].reshape((SEATS, CARDS))
    held = world[HELD:HELD + SEATS * EFF_SUITS].reshape((SEATS, EFF_SUITS))
    hpairs = world[HPAIRS:HPAIRS + SEATS * EFF_SUITS].reshape((SEATS, EFF_SUITS))
    buried = world[BURIED:BURIED + CARDS]
    tt = tables[st[S_RANK], st[S_SUIT]]
    buried_seat = starter if phase >= PH_LEAD else -1
    public = views[seat].copy()
    for v in range(SEATS):
        P.world_view(w_views, v, public, hands, held, hpairs, buried, buried_seat, tt)
        for k in range(scratch.shape[1]):
            w_scratch[v, k] = scratch[seat, k] if v == seat else 0.0
    for s in range(rngs.shape[0]):
        w_rngs[s, 0] = rngs[seat, 0] if s == seat else next_u64(rng)
    return 1


@njit(cache=True)
def sample_world(st, ws, seat, work, rng, world, world_ws):
    """prepare then draw: one world (see both).  To draw many worlds from one state, prepare once."""
    if prepare(st, seat, ws[3], work) == 0:
        return 0
    return draw(st, ws, work, rng, world, world_ws)


@njit(cache=True)
def deal_many(work, rng, out):
    """``out.shape[0]`` deals of the unseen cards by the prepared table (rows as deal_unseen's), for
    measurements and tests.  Returns how many were dealt."""
    for k in range(out.shape[0]):
        if deal_unseen(work, rng, out[k]) == 0:
            return k
    return out.shape[0]
