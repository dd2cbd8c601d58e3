"""Follow strategies: what to play to a trick someone else led.

Answer: ``out`` = counts of exactly as many cards as were led, legal by the
following rules (``strategy_lib.follow_need``; with 3 and 4 decks the tuples of
decisions.md 9.3-9.4, built by strategy_lib's ``*_tuple_follow``), return their number.  The
lead is described by M_LEAD_* (after a failed throw: the part actually led)
and the cards played so far are in the V_TRICK rows.
"""

from numba import njit

from .. import lib as sl
from ..kernels.combos import KIND_THROW
from ..kernels.order import TRUMP
from ..kernels.dims import SEATS, seat_after, team_of
from ..kernels.view import M_LEAD_KIND, M_LEAD_N, M_LEAD_SUIT, M_NPLAYED, M_SEAT, V_META
from ..registry import MAX_CARDS, MAX_POINTS, SWITCH, slots, strategy  # noqa: F401 - the ranges

SMART_RUFF_POINTS = 10  # smart ruffs before the last seat only for this many points


@njit(cache=True, inline='always')
def partner_safe(view, key):
    """Whether my partner's play with ``key`` (currently winning) cannot be beaten in its suit:
    a ruff or a throw counts as safe, a unit of the led suit if it is top (of the lead's shape)."""
    if key >= sl.RUFF or view[V_META, M_LEAD_KIND] == KIND_THROW:
        return True
    return sl.is_top_lead_unit(view, view[V_META, M_LEAD_SUIT], key)


@njit(cache=True, inline='always')
def play_smart(view, out, ruff_points, careful, scratch):
    """The smart follow (see ``smart``); ``careful``: a ruff that an opponent after me, shown void
    in the led suit, could overruff must be top.

    Written with one call of each large helper (numba inlines a helper's whole code at every call:
    two calls each compiled the smart and expert follows about twice as long)."""
    held, need = sl.follow_need(view)
    seat, key = sl.current_best(view)
    last = view[V_META, M_NPLAYED] == SEATS - 1
    feed = False
    if sl.is_partner(view, seat):
        feed = last or partner_safe(view, key)
    elif view[V_META, M_LEAD_KIND] != KIND_THROW:
        s = view[V_META, M_LEAD_SUIT]
        win = False
        need_top = False
        if held >= view[V_META, M_LEAD_N]:
            win = True
            need_top = sl.opponent_after(view)
        elif held == 0 and s != TRUMP and (last or sl.trick_points(view) >= ruff_points):
            win = True
            need_top = careful and _overruff_risk(view, scratch, s)
        if win:
            n = sl.winning_follow_given(view, out, key, need_top, held)
            if n > 0:
                return n
    return sl.cheapest_follow_given(view, out, feed, held, need)


@njit(cache=True, inline='always')
def _overruff_risk(view, scratch, s):
    """Whether an opponent still to play has shown a void in suit s."""
    me = view[V_META, M_SEAT]
    npl = view[V_META, M_NPLAYED]
    leader = seat_after(me, -npl)
    for i in range(npl + 1, SEATS):
        x = seat_after(leader, i)
        if team_of(x) != team_of(me) and sl.shown_void(scratch, x, s):
            return True
    return False


@strategy("follow", "random")
def random(view, params, rng, scratch, out):
    """A uniformly random legal follow.

    The baseline: it plays by the rules and nothing else.
    """
    return sl.random_follow(view, rng, out)


@strategy("follow", "cheapest")
def cheapest(view, params, rng, scratch, out):
    """The cheapest legal follow: lowest positions, fewest points, pairs kept unless required.

    Idea: never try to win, give away as little as possible.
    """
    return sl.cheapest_follow(view, out, False)


@strategy("follow", "smart")
def smart(view, params, rng, scratch, out):
    """Win cheaply when possible, feed points to a partner who is winning, duck otherwise.

    Idea: if my partner holds the trick and nobody can beat him (I am last,
    or his play is top), give him my point cards; if an opponent holds it,
    beat him with my cheapest winning unit (it must be top when an opponent
    plays after me), or, void in a plain suit, ruff when I am last or the
    trick holds at least 10 points; else play the cheapest cards.
    """
    return play_smart(view, out, SMART_RUFF_POINTS, False, scratch)


RUFF_POINTS_PARAMS = {"min_points": 5.0}
RUFF_POINTS = slots(RUFF_POINTS_PARAMS)


@strategy("follow", "ruff_points", params=RUFF_POINTS_PARAMS, ranges={"min_points": (0.0, MAX_POINTS)})
def ruff_points(view, params, rng, scratch, out):
    """When void in the led plain suit, ruff a trick holding ``min_points`` with the cheapest
    winning trumps, unless my partner is winning; else the cheapest follow.

    Idea: trumps are best spent on tricks with points in them.
    """
    s = view[V_META, M_LEAD_SUIT]
    if view[V_META, M_LEAD_KIND] != KIND_THROW and s != TRUMP and sl.suit_len(view, s) == 0:
        seat, key = sl.current_best(view)
        if not sl.is_partner(view, seat) and sl.trick_points(view) >= params[RUFF_POINTS.min_points]:
            n = sl.winning_follow(view, out, key, False)
            if n > 0:
                return n
    return sl.cheapest_follow(view, out, False)


EXPERT_PARAMS = {"min_points": 5.0}
EXPERT = slots(EXPERT_PARAMS)


@strategy("follow", "expert", params=EXPERT_PARAMS, ranges={"min_points": (0.0, MAX_POINTS)})
def expert(view, params, rng, scratch, out):
    """smart with ruff_points: ruff tricks holding ``min_points``, wary of overruffs.

    Idea: as smart, but void in the led suit ruff any trick worth
    ``min_points``, with a top trump when an opponent after me has shown the
    same void (he could overruff).  Keeps the void tracker up to date for the
    expert lead.
    """
    sl.track_voids(view, scratch)
    return play_smart(view, out, params[EXPERT.min_points], True, scratch)
