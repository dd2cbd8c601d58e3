"""Worlds during the draw and the auction: the cards a seat has not seen dealt again, for the search
on declaring and bidding.

kernels.sampler makes the worlds of the exchange and the play; its table is
sized for hands and a kitty.  During the draw the cards a seat has not seen
are the other hands so far and the rest of the deck (the stock still to be
drawn, then the kitty), and the one public fact about them is the
declarations: a declarer holds the cards it showed (kernels.knowledge
K_SHOWN: at least so many copies; nothing is played during the draw, so
there are no voids).  Which seat draws which position is public (the first
seat and the draw count), so a world is a deal of the unseen cards into
the places (each other seat's hand so far, with its size; the rest) and
the rest laid out in a random order on the stock and the kitty.

**Exact.**  Uniform among the deals of the unseen copies (each physical
copy a distinct card, as a shuffle deals them) that keep every shown card
in its declarer's hand.  Only the shown cards' copies are constrained: a
small table (``prepare``) counts the ways to split them between the
places, weighted by the ways to fill the room they leave with the free
copies (a multinomial); ``draw`` splits them in proportion, then deals the
free copies uniformly into the room left and shuffles the rest of the deck.
Where even that table would not fit (many declarations at 7 or 8 players)
the deals come from kernels.pair_chain over every unseen card, as in
kernels.sampler: approximate, documented there.  Nothing is inferred from
the declarations made or not made (the prior is the shuffle's), as in
kernels.sampler.

The seat's own view, scratch and stream are kept; the others' views are
built from the public rows (publish.world_view) and their scratch is empty,
as in kernels.sampler.  The work arrays are the sampler's (new_work): a
decision makes worlds of one kind only.

Under the auction (rule ``declaring = "auction"``) the draw is over when the
bids are asked: every hand is full, the rest is the kitty, and the public
facts are the cards shown in the auction (K_SHOWN, as a declaration's); the
same table serves.  Before the bids are in each seat counts its suits by
its own team's level (phases._advance_draw), after them by the declarers'.
"""

import math

import numpy as np
from numba import njit

from . import publish as P
from .layout import Layout
from .order import TT_EFF
from .rng import next_u64, shuffle, uniform
from .dims import CARDS, DECK, DECKS, DRAWN, EFF_SUITS, PAIR_SHIFT, SEATS, SUITS, TEAMS, seat_after, team_of
from .sampler import (
    MAX_SPLITS, NO_PLACE, PLAN, W_CHAIN, W_COPIES, W_JOINT, W_JOINT_PLACE, W_LEAST, W_MOST, chain_next, chain_start,
)
from .state import (
    ANSWER, BURIED, HANDS, HELD, HPAIRS, K_SHOWN, PH_AUCTION, PH_DRAW, S_BID_STEP, S_DRAW_K, S_FIRST, S_LEVELS,
    S_PHASE, S_RANK, S_SEED, SHUFFLED,
    STATE_SIZE,
)

OTHERS = SEATS - 1  # places 0..OTHERS-1: the other seats' hands, in playing order after the seat
REST = OTHERS  # the last place: the rest of the deck (the stock still to draw, then the kitty)
PLACES = SEATS

DRAW_PLAN = Layout("draw sampler plan", [
    ("DW_READY", 1, "1 when prepared and a consistent world exists"),
    ("DW_SEAT", 1, "the seat whose knowledge it is"),
    ("DW_DRAWN", 1, "cards drawn so far (deck positions 0..DW_DRAWN-1)"),
    ("DW_LAYERS", 1, "constrained card ids (some other seat showed copies of them): the table's layers"),
    ("DW_CARD", CARDS, "layer i's card"),
    ("DW_ROOM", PLACES, "cards each place receives"),
    ("DW_CAP", OTHERS, "the most constrained copies a hand place can take (its index range - 1)"),
    ("DW_STRIDE", OTHERS, "its stride in a layer's index"),
    ("DW_CELLS", 1, "cells of a layer"),
    ("DW_TIED", 1, "the constrained copies together"),
    ("DW_NSPLITS", CARDS, "layer i's allowed splits,"),
    ("DW_SPLITS", CARDS * MAX_SPLITS * PLACES, "each split: copies per place"),
])
globals().update(DRAW_PLAN.constants())
assert DRAW_PLAN.size <= PLAN.offset("W_CHAIN")  # it lives in the sampler's plan array, before the chain's pieces


@njit(cache=True)
def _log_fill(free, rooms):
    """log of the ways to deal ``free`` distinct copies into rooms of the given sizes (a multinomial)."""
    out = math.lgamma(free + 1.0)
    for p in range(rooms.shape[0]):
        out -= math.lgamma(rooms[p] + 1.0)
    return out


@njit(cache=True)
def _drawn(st):
    """Cards drawn so far at the pending declaration: the draw asks after card S_DRAW_K (or after
    the last card, for the final chances)."""
    return min(st[S_DRAW_K] + 1, DRAWN)


@njit(cache=True)
def prepare(st, seat, work):
    """Count the worlds consistent with ``seat``'s knowledge of the draw in ``st`` (module doc).
    Returns 1 when there is one (``draw`` may follow), 0 when not or outside the draw and the auction."""
    plan, ways, weights = work
    plan[DW_READY] = 0
    plan[DW_SEAT] = seat
    plan[W_CHAIN] = 0
    if st[S_PHASE] != PH_DRAW and st[S_PHASE] != PH_AUCTION:
        return 0
    drawn = _drawn(st)
    plan[DW_DRAWN] = drawn
    first = st[S_FIRST]
    sizes = np.zeros(SEATS, dtype=np.int64)
    for j in range(drawn):
        sizes[seat_after(first, j)] += 1
    own = 0
    for c in range(CARDS):
        own += st[HANDS + seat * CARDS + c]
    if own != sizes[seat]:
        return 0
    for p in range(OTHERS):
        plan[DW_ROOM + p] = sizes[seat_after(seat, p + 1)]
    plan[DW_ROOM + REST] = DECK - drawn
    # the constrained layers and their splits
    least = np.zeros(PLACES, dtype=np.int64)
    most = np.zeros(PLACES, dtype=np.int64)
    x = np.zeros(PLACES, dtype=np.int64)
    layers = 0
    tied = 0
    for c in range(CARDS):
        n = DECKS - st[HANDS + seat * CARDS + c]
        if n < 0:
            return 0
        shown = 0
        for p in range(OTHERS):
            least[p] = st[K_SHOWN + seat_after(seat, p + 1) * CARDS + c]
            shown += least[p]
        least[REST] = 0
        if n == 0 or shown == 0:
            if shown > n:
                return 0
            continue
        for p in range(PLACES):
            most[p] = min(n, plan[DW_ROOM + p])
            x[p] = 0
        k = 0
        while True:  # every split of n copies within [least, most]: an odometer
            total = 0
            ok = True
            for p in range(PLACES):
                total += x[p]
                ok = ok and least[p] <= x[p] <= most[p]
            if ok and total == n:
                w = math.lgamma(n + 1.0)
                for p in range(PLACES):
                    w -= math.lgamma(x[p] + 1.0)
                    plan[DW_SPLITS + (layers * MAX_SPLITS + k) * PLACES + p] = x[p]
                weights[layers * MAX_SPLITS + k] = math.exp(w)
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
        plan[DW_CARD + layers] = c
        plan[DW_NSPLITS + layers] = k
        layers += 1
        tied += n
    plan[DW_LAYERS] = layers
    plan[DW_TIED] = tied
    cells = 1
    for p in range(OTHERS - 1, -1, -1):
        plan[DW_CAP + p] = min(plan[DW_ROOM + p], tied)
        plan[DW_STRIDE + p] = cells
        cells *= plan[DW_CAP + p] + 1
    if (layers + 1) * cells > ways.shape[0]:
        return _prepare_chain(st, seat, plan)
    plan[DW_CELLS] = cells
    unseen = 0
    for p in range(PLACES):
        unseen += plan[DW_ROOM + p]
    free = unseen - tied
    # ways[i, j]: the weight of dealing layers i.. and the free copies, the hand places having taken
    # the constrained copies j (mixed radix by DW_STRIDE) of the layers before i
    rooms = np.zeros(PLACES, dtype=np.int64)
    base = layers * cells
    for j in range(cells):
        used = 0
        ok = True
        for p in range(OTHERS):
            u = (j // plan[DW_STRIDE + p]) % (plan[DW_CAP + p] + 1)
            used += u
            rooms[p] = plan[DW_ROOM + p] - u
            ok = ok and rooms[p] >= 0
        rooms[REST] = plan[DW_ROOM + REST] - (tied - used)
        ok = ok and rooms[REST] >= 0 and used <= tied
        ways[base + j] = math.exp(_log_fill(free, rooms)) if ok else 0.0
    for i in range(layers - 1, -1, -1):
        here = i * cells
        nxt = (i + 1) * cells
        for j in range(cells):
            acc = 0.0
            for q in range(plan[DW_NSPLITS + i]):
                off = _offset(plan, i, q, j)
                if off >= 0:
                    acc += weights[i * MAX_SPLITS + q] * ways[nxt + j + off]
            ways[here + j] = acc
    if ways[0] <= 0.0:
        return 0
    plan[DW_READY] = 1
    return 1


@njit(cache=True)
def _prepare_chain(st, seat, plan):
    """Where the table would not fit (many declarations at 7 or 8 players): kernels.pair_chain over
    every card id (layer c: card c), the shown copies bound below in their declarers' hands."""
    plan[W_JOINT_PLACE] = NO_PLACE
    for c in range(CARDS):
        n = DECKS - st[HANDS + seat * CARDS + c]
        plan[W_COPIES + c] = n
        plan[W_JOINT + c] = 0
        for p in range(PLACES):
            plan[W_LEAST + c * PLACES + p] = st[K_SHOWN + seat_after(seat, p + 1) * CARDS + c] if p < OTHERS else 0
            plan[W_MOST + c * PLACES + p] = n
    if not chain_start(plan, CARDS, plan[DW_ROOM:DW_ROOM + PLACES]):
        return 0
    plan[DW_READY] = 1
    return 1


@njit(cache=True)
def _chain_deal(plan, rng, hands_out, rest):
    """The chain's next deal: the hand places' copies, and the rest's in a random order."""
    deal = chain_next(plan, CARDS, plan[DW_ROOM:DW_ROOM + PLACES], rng)
    n = 0
    for c in range(CARDS):
        for p in range(OTHERS):
            hands_out[p, c] = deal[c, p]
        for _ in range(deal[c, REST]):
            rest[n] = c
            n += 1
    shuffle(rest[:n], rng)
    return 1


@njit(cache=True, inline='always')
def _offset(plan, i, q, j):
    """The index step of layer i's split q from cell j, or -1 when a hand place would pass its cap."""
    at = DW_SPLITS + (i * MAX_SPLITS + q) * PLACES
    off = 0
    for p in range(OTHERS):
        u = (j // plan[DW_STRIDE + p]) % (plan[DW_CAP + p] + 1)
        if u + plan[at + p] > plan[DW_CAP + p]:
            return -1
        off += plan[at + p] * plan[DW_STRIDE + p]
    return off


@njit(cache=True)
def deal_unseen(st, work, rng, hands_out, rest):
    """One uniform deal of the unseen cards by the prepared table: ``hands_out[p, c]`` copies of card c
    to hand place p, and ``rest`` (DECK - drawn card ids) the rest of the deck in a random order.
    Returns 1, or 0 when nothing is prepared."""
    plan, ways, weights = work
    if plan[DW_READY] == 0:
        return 0
    if plan[W_CHAIN]:
        return _chain_deal(plan, rng, hands_out, rest)
    seat = plan[DW_SEAT]
    cells = plan[DW_CELLS]
    hands_out[:, :] = 0
    in_rest = np.zeros(CARDS, dtype=np.int64)
    tied = np.zeros(CARDS, dtype=np.bool_)
    j = 0
    for i in range(plan[DW_LAYERS]):
        nxt = (i + 1) * cells
        target = uniform(rng) * ways[i * cells + j]
        acc = 0.0
        chosen = -1
        chosen_off = 0
        for q in range(plan[DW_NSPLITS + i]):
            off = _offset(plan, i, q, j)
            if off < 0:
                continue
            term = weights[i * MAX_SPLITS + q] * ways[nxt + j + off]
            if term <= 0.0:
                continue
            chosen = q
            chosen_off = off
            acc += term
            if acc > target:
                break
        at = DW_SPLITS + (i * MAX_SPLITS + chosen) * PLACES
        c = plan[DW_CARD + i]
        tied[c] = True
        for p in range(OTHERS):
            hands_out[p, c] = plan[at + p]
        in_rest[c] = plan[at + REST]
        j += chosen_off
    # the free copies, shuffled, fill the room left: the hands in order, then the rest
    free = np.zeros(DECK, dtype=np.int64)
    nfree = 0
    for c in range(CARDS):
        if not tied[c]:
            for _ in range(DECKS - st[HANDS + seat * CARDS + c]):
                free[nfree] = c
                nfree += 1
    shuffle(free[:nfree], rng)
    at = 0
    for p in range(OTHERS):
        left = plan[DW_ROOM + p]
        for c in range(CARDS):
            left -= hands_out[p, c]
        for _ in range(left):
            hands_out[p, free[at]] += 1
            at += 1
    n = 0
    for c in range(CARDS):
        for _ in range(in_rest[c]):
            rest[n] = c
            n += 1
    while at < nfree:
        rest[n] = free[at]
        n += 1
        at += 1
    shuffle(rest[:n], rng)
    return 1


@njit(cache=True)
def draw_counts(hands, held, hpairs, seat, tt):
    """The seat's suit counts as the draw keeps them (phases._advance_draw: a card's pairs counted
    as each copy arrives), by the draw's table ``tt``."""
    for e in range(EFF_SUITS):
        held[seat, e] = 0
        hpairs[seat, e] = 0
    for c in range(CARDS):
        e = tt[TT_EFF, c]
        held[seat, e] += hands[seat, c]
        for m in range(1, hands[seat, c] + 1):
            hpairs[seat, e] += m >> PAIR_SHIFT


@njit(cache=True)
def draw(st, ws, work, rng, world, world_ws):
    """Write into ``world`` (a state array) and ``world_ws`` (a workspace of the same rules) a world
    drawn by the table ``prepare`` made for (st, seat): playable by deal.play_from from the pending
    declaration.  Returns 1, or 0 when nothing is prepared."""
    plan = work[0]
    if plan[DW_READY] == 0:
        return 0
    seat = plan[DW_SEAT]
    drawn = plan[DW_DRAWN]
    dealt = np.zeros((OTHERS, CARDS), dtype=np.int64)
    rest = np.zeros(DECK - drawn, dtype=np.int64)
    deal_unseen(st, work, rng, dealt, rest)
    views, scratch, rngs, tables = ws
    w_views, w_scratch, w_rngs, _ = world_ws
    for i in range(STATE_SIZE):
        world[i] = st[i]
    world[S_SEED] = 0
    for c in range(CARDS):
        world[ANSWER + c] = 0
        world[BURIED + c] = 0
    for p in range(OTHERS):
        s = seat_after(seat, p + 1)
        for c in range(CARDS):
            world[HANDS + s * CARDS + c] = dealt[p, c]
    hands = world[HANDS:HANDS + SEATS * CARDS].reshape((SEATS, CARDS))
    # the deck: the drawn positions hold their seats' cards (in card order), then the rest
    left = hands.copy()
    first = st[S_FIRST]
    for k in range(drawn):
        s = seat_after(first, k)
        c = 0
        while left[s, c] == 0:
            c += 1
        left[s, c] -= 1
        world[SHUFFLED + k] = c
    for k in range(DECK - drawn):
        world[SHUFFLED + drawn + k] = rest[k]
    held = world[HELD:HELD + SEATS * EFF_SUITS].reshape((SEATS, EFF_SUITS))
    hpairs = world[HPAIRS:HPAIRS + SEATS * EFF_SUITS].reshape((SEATS, EFF_SUITS))
    buried = world[BURIED:BURIED + CARDS]
    bidding = st[S_PHASE] == PH_AUCTION and st[S_BID_STEP] < TEAMS
    public = views[seat].copy()
    for v in range(SEATS):
        tt = tables[st[S_LEVELS + team_of(v)] if bidding else st[S_RANK], SUITS]
        P.world_view(w_views, v, public, hands, held, hpairs, buried, -1, tt)
        if bidding:  # the seat's view copied the searching seat's team's order: v's own team's instead
            P.table(w_views, hands, held, hpairs, v, tt)
        draw_counts(hands, held, hpairs, v, tt)
        for e in range(EFF_SUITS):
            P.suit_counts(w_views, held, hpairs, v, e)
        for k in range(scratch.shape[1]):
            w_scratch[v, k] = scratch[seat, k] if v == seat else 0.0
    for s in range(rngs.shape[0]):
        w_rngs[s, 0] = rngs[seat, 0] if s == seat else next_u64(rng)
    return 1
