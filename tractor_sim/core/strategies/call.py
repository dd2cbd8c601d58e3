"""Call strategies: the landlord's friends in Finding Friends (docs/rules.md section 9, decisions.md 9.11).

After burying, the landlord makes CALLS calls: for call i, ``out[i]`` = a
card that is neither a joker nor of the trump rank (trump-suit cards are
allowed), ``out[CALLS + i]`` = which copy of it, 1..DECKS, counted in the
order the copies are played.  Return CALLS.  Whoever plays a called copy
joins the landlord's team; if the landlord plays it himself, the call is
used up.  A tractor game never asks.
"""

from numba import njit

from ..kernels.rng import randint
from ..kernels.dims import CALLS, DECKS, RANKS, SUITS
from ..kernels.view import M_TRUMP_RANK, M_TRUMP_SUIT, V_BURIED, V_HAND, V_META
from ..registry import strategy

CARDS_KEY = 1000  # ace's key: fewer copies of my own first, then a longer suit (at most a hand's cards)


@strategy("call", "ace")
def ace(view, params, rng, scratch, out):
    """Call the highest cards I lack, off-suit Aces first, each at the copy after my own.

    Idea: the holder of an off-suit Ace wins a trick with it early, so the
    friend is found soon and is strong.  Cards are taken from the highest
    rank down, off-suit before the trump suit; a card counts only if someone
    else holds a copy (my hand and my burial hold fewer than all DECKS).
    Among cards of one rank: the one I hold fewer copies of, then the suit I
    hold more cards of (I can lead it to reach the friend).  The copy called
    is the one after mine (my copies in hand + 1): leading my own copies
    first, the next one played is another player's; buried copies are never
    played, so they are not counted.  Each call names another card.
    """
    return ace_answer(view, out)


@njit(cache=True)
def ace_answer(view, out):
    """The ``ace`` calls into ``out`` (the learned call's first candidate); returns CALLS."""
    rank = view[V_META, M_TRUMP_RANK]
    trump = view[V_META, M_TRUMP_SUIT]
    made = 0
    for off in range(2):  # off-suit cards first (off = 0), then the trump suit's
        for r in range(RANKS - 1, -1, -1):
            if r == rank:
                continue
            while made < CALLS:
                best = -1
                best_key = -1
                for s in range(SUITS):
                    if (s == trump) != (off == 1):
                        continue
                    c = s * RANKS + r
                    mine = view[V_HAND, c]
                    if mine + view[V_BURIED, c] >= DECKS or _called(out, made, c):
                        continue
                    length = 0
                    for q in range(RANKS):
                        length += view[V_HAND, s * RANKS + q]
                    key = (DECKS - mine) * CARDS_KEY + length
                    if key > best_key:
                        best_key = key
                        best = c
                if best < 0:
                    break
                out[made] = best
                out[CALLS + made] = view[V_HAND, best] + 1
                made += 1
    while made < CALLS:  # every card is mine or buried: call anything allowed (the call is used up)
        out[made] = _any_allowed(rank)
        out[CALLS + made] = 1
        made += 1
    return CALLS


@njit(cache=True, inline='always')
def _called(out, made, c):
    """Whether one of the first ``made`` calls names card c."""
    for j in range(made):
        if out[j] == c:
            return True
    return False


@njit(cache=True, inline='always')
def _any_allowed(rank):
    """The first card that may be called (not a joker, not of the trump rank)."""
    return 1 if rank == 0 else 0


@strategy("call", "random")
def random(view, params, rng, scratch, out):
    """Each call a random card that may be called (every suit alike, trumps included) and a random copy.

    The baseline: two calls may name the same card, and the landlord may
    call a card he holds (9.11 allows both).
    """
    rank = view[V_META, M_TRUMP_RANK]
    for j in range(CALLS):
        r = randint(rng, RANKS - 1)
        if r >= rank:  # skip the trump rank
            r += 1
        out[j] = randint(rng, SUITS) * RANKS + r
        out[CALLS + j] = 1 + randint(rng, DECKS)
    return CALLS


