"""Bid strategies: the auction of the Russian text (rule ``declaring = "auction"``).

One strategy answers the three steps of the auction, told by ``M_BID_STEP``:
BID_STEP_BID: ``out[0]`` = the points my pair bids (a multiple of 5 from 0
to MAX_BID); BID_STEP_SHOW: ``out`` = counts of the one card I show (the
highest card shown makes the starter); BID_STEP_TRUMP (the starter):
``out[0]`` = the trump suit 0..3.  Return 1.  The higher bid makes the
declaring team (a tie: the dealer's pair).  The sources give the bid no other
effect on the score, so a high bid costs nothing: ``max`` shows what that does.
"""

from numba import njit

from .. import lib as sl
from ..kernels.rng import randint
from ..kernels.declare import BID_UNIT
from ..kernels.dims import CARDS, SUITS
from ..kernels.view import BID_STEP_BID, BID_STEP_SHOW, M_BID_STEP, M_TRUMP_RANK, MAX_BID, V_HAND, V_META
from ..registry import MAX_CARDS, MAX_POINTS, SWITCH, slots, strategy  # noqa: F401 - the ranges


STRENGTH_PARAMS = {"per_trump": 10.0, "base": 4.0}
STRENGTH = slots(STRENGTH_PARAMS)


@strategy("bid", "strength", params=STRENGTH_PARAMS,
          ranges={"per_trump": (0.0, 50.0), "base": (0.0, MAX_CARDS)})
def strength(view, params, rng, scratch, out):
    """Bid by trump length, show my highest card, name my longest trump suit.

    Idea: the pair with the stronger hands should declare.  The bid is
    ``per_trump`` points for each card beyond ``base`` that would be a trump
    in my best suit at my team's level (jokers and every card of that rank
    included), rounded down to 5 and kept within 0..MAX_BID.  As starter I
    name the suit that gives me most trumps.
    """
    return strength_answer(view, out, params[STRENGTH.per_trump], params[STRENGTH.base])


@njit(cache=True)
def strength_answer(view, out, per_trump, base):
    """The ``strength`` answer at any step (the learned bid's first candidate, with the defaults)."""
    step = view[V_META, M_BID_STEP]
    if step == BID_STEP_BID:
        _suit, st = sl.best_trump_suit(view, sl.my_level(view))
        bid = int(per_trump * (st - base))
        out[0] = max(0, min(MAX_BID, bid - bid % BID_UNIT))
        return 1
    return _show_or_name(view, out, step)


@njit(cache=True, inline='always')
def _show_or_name(view, out, step):
    """The auction's later steps as a strong hand plays them: show my highest card; as starter
    name the suit that gives me most trumps."""
    if step == BID_STEP_SHOW:
        return sl.show_highest(view, out)
    suit, _st = sl.best_trump_suit(view, view[V_META, M_TRUMP_RANK])
    out[0] = suit
    return 1


@strategy("bid", "max")
def max_bid(view, params, rng, scratch, out):
    """Always bid MAX_BID; show my highest card, name my longest trump suit.

    Idea: with no penalty for missing a bid, the highest bid is free.
    """
    step = view[V_META, M_BID_STEP]
    if step == BID_STEP_BID:
        out[0] = MAX_BID
        return 1
    return _show_or_name(view, out, step)


@strategy("bid", "random")
def random(view, params, rng, scratch, out):
    """A random bid (every multiple of 5 from 0 to MAX_BID alike), a random card, a random suit.

    The baseline.
    """
    step = view[V_META, M_BID_STEP]
    if step == BID_STEP_BID:
        out[0] = 5 * randint(rng, MAX_BID // 5 + 1)
        return 1
    if step == BID_STEP_SHOW:
        k = randint(rng, sl.hand_size(view))
        for c in range(CARDS):
            k -= view[V_HAND, c]
            if k < 0:
                out[c] = 1
                return 1
    out[0] = randint(rng, SUITS)
    return 1
