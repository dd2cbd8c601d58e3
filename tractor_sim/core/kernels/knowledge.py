"""Public knowledge of a deal, kept in its state: what every seat can infer from the public events.

A search player samples worlds consistent with what one seat knows
(kernels.sampler).  Besides its own hand that is the cards played and by
whom, and what the others gave away while playing; the phase functions keep
it here as the events happen, in the state's K_* pieces (flat indices: the
phases' ``carve`` tuple stays as it is):

- K_PLAYED: the cards each seat has played this deal.
- K_SHOWN: cards a seat was seen to hold and has not played since: its
  declarations (one card, or two), the card it showed in the auction, the
  cards of a failed throw it took back, the unit it beat a failed throw with
  (the lowest such unit it holds: the blocker shows one [decision: the
  engine does not name the cards]), and for the starter the kitty cards
  turned up to find the trump.  Cards are held at once, so a new sighting
  raises the count to what was seen (a maximum, not a sum); a play lowers
  it.  The starter's may have been buried: for the others they lie in his
  hand or the kitty.
- K_VOID: the seat followed the led effective suit with fewer cards of it
  than the lead had: by the follow rule it had no more, and holds none since.
- K_MOST: the most copies of any one card of the effective suit the seat
  can still hold (0: no bound).  With 2 decks 1 (no pair left): the seat
  followed with fewer pairs of the led suit than the lead had, so by the
  pair rule (combos.follow_counts_ok: ``played_pairs >= min(lead_pairs,
  held_pairs)``) it played every pair of the suit it held.  With 3 and 4
  decks ``m - 1`` for the smallest tuple size m whose required tuples its
  groups fell short of (tuples.follow_cap, 9.3 read backwards): every group
  of m or more cards then went into the play with m or more of its cards,
  so a card it has not played has at most m - 1 copies in its hand; a card
  it has played is not bound (a quadruple answering a pair leaves a pair:
  the sampler applies the bound to the cards the seat never played).  The
  variant follow_tractor adds an obligation about tractors; what it implies
  is not kept (a sample may give such a seat a tractor it would have had to
  play: docs/search.md).

The views (kernels.publish) do not show a failed throw's cards nor its
blocker's: strategies cannot read them; the sampler can.
"""

from numba import njit

from .combos import pairs_by_position
from .order import MAX_POS, META_NCARDS, TT_POS, TT_SUIT, TT_META
from .dims import BJ, CARDS, DECKS, EFF_SUITS, PAIR, RANKS, SEATS
from .state import K_MOST, K_PLAYED, K_SHOWN, K_VOID
from .tuples import best_fit_at, follow_cap, max_group_by_position
from .unowned import stack_array

K_END = K_MOST + SEATS * EFF_SUITS  # the knowledge pieces lie together, K_PLAYED .. K_END


@njit(cache=True, inline='always')
def clear(st):
    """Nothing known yet (a deal or a redeal starts)."""
    for i in range(K_PLAYED, K_END):
        st[i] = 0


@njit(cache=True, inline='always')
def played(st, seat, c, x):
    """Seat played x copies of card c."""
    st[K_PLAYED + seat * CARDS + c] += x
    i = K_SHOWN + seat * CARDS + c
    if st[i] != 0:  # seldom: a load, not a store, for every card played
        st[i] = max(st[i] - x, 0)


@njit(cache=True, inline='always')
def shown(st, seat, c, x):
    """Seat was seen to hold x copies of card c (now)."""
    i = K_SHOWN + seat * CARDS + c
    st[i] = max(st[i], x)


@njit(cache=True, inline='always')
def followed(st, seat, lead_suit, held, held_pairs, lead_n, lead_pairs, hands, lead_units, lead_nu, tt):
    """Seat, holding ``held`` cards (``held_pairs`` pairs; ``hands[seat]``: its counts before the play) of the led
    effective suit, follows a lead of ``lead_n`` cards, ``lead_pairs`` pairs (``lead_units[:lead_nu]``).  The
    follow rule makes it play min(held, lead_n) cards and min(held_pairs, lead_pairs) pairs of the suit, so
    what it holds shows when it is less than the lead: all of it goes (a void), or all its pairs (no pair
    left: each card played x // 2 pairs as held).  With 3 and 4 decks the tuples it could not answer bound
    the copies of the cards it did not play (tuples.follow_cap)."""
    i = K_MOST + seat * EFF_SUITS + lead_suit
    if held < lead_n:
        st[K_VOID + seat * EFF_SUITS + lead_suit] = 1
        if DECKS == PAIR:
            st[i] = 1
    elif DECKS == PAIR:
        if held_pairs < lead_pairs:
            st[i] = 1
    elif lead_pairs > 0:
        most = follow_cap(hands[seat], lead_suit, lead_units, lead_nu, tt)
        if most > 0 and (st[i] == 0 or most < st[i]):
            st[i] = most


@njit(cache=True)
def throw_failed(st, leader, throw, hands, blocker, suit, unit_pairs, unit_top, unit_size, tt):
    """A throw (counts ``throw``) failed: its cards were seen in the leader's hand (he takes back
    all but the forced part, which he plays next), and the blocker shows the lowest unit of
    ``unit_pairs`` pairs (a single when 0) of ``suit`` above position ``unit_top`` he holds (with 3
    and 4 decks of ``unit_pairs`` tuples of ``unit_size``: blocker_shows_tuples)."""
    for c in range(CARDS):
        if throw[c] > 0:
            shown(st, leader, c, throw[c])
    if blocker < 0:
        return
    hand = hands[blocker]
    if DECKS > PAIR:
        blocker_shows_tuples(st, blocker, hand, suit, unit_pairs, unit_top, unit_size, tt)
        return
    n = tt[TT_META, META_NCARDS + suit]
    if unit_pairs == 0:
        for j in range(n):  # ascending positions, equal positions by card id
            c = tt[TT_SUIT + suit, j]
            if hand[c] > 0 and tt[TT_POS, c] > unit_top:
                shown(st, blocker, c, 1)
                return
        return
    pa = stack_array(MAX_POS)
    npos = pairs_by_position(hand, tt, suit, pa)
    run = 0
    for p in range(npos):
        run = run + 1 if pa[p] > 0 else 0
        if p > unit_top and run >= unit_pairs:
            for q in range(p - unit_pairs + 1, p + 1):
                for j in range(n):
                    c = tt[TT_SUIT + suit, j]
                    if tt[TT_POS, c] == q and hand[c] >= PAIR:
                        shown(st, blocker, c, PAIR)
                        break
            return


@njit(cache=True)
def blocker_shows_tuples(st, blocker, hand, suit, unit_pairs, unit_top, unit_size, tt):
    """throw_failed with tuples: the blocker shows the lowest part of shape (unit_size, unit_pairs)
    above ``unit_top`` he holds (9.5), the group of each position that a tuple of that size takes
    (tuples.best_fit_at)."""
    hi = stack_array(MAX_POS)
    npos = max_group_by_position(hand, tt, suit, hi)
    need = max(unit_pairs, 1)
    run = 0
    for p in range(npos):
        run = run + 1 if hi[p] >= unit_size else 0
        if p > unit_top and run >= need:
            for q in range(p - need + 1, p + 1):
                shown(st, blocker, best_fit_at(hand, tt, suit, q, unit_size), unit_size)
            return


@njit(cache=True)
def kitty_turned_up(st, starter, kitty, nkitty, rank):
    """Nobody declared: the kitty was turned up until a card of the trump rank (declare.kitty_flip_suit),
    every card of it if none; the starter takes those cards up."""
    for i in range(nkitty):
        c = kitty[i]
        copies = 0
        for j in range(i + 1):
            copies += kitty[j] == c
        shown(st, starter, c, copies)
        if c < BJ and c % RANKS == rank:
            return
