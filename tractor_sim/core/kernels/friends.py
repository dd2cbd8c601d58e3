"""Finding Friends in a deal (docs/rules.md section 9, "Teams"; docs/decisions.md 9.11).

The landlord's calls, the copies of each called card counted as they are
played, who joins and when, and the opponents' total as the sides stand.
The state's F_* pieces and the views' V_FRIENDS row exist only in a package
compiled for Finding Friends (kernels.dims.TEAM_MODE); the phases reach this
module only in branches of that mode, which a tractor game's compile prunes.

Sides: the landlord's team is a bit mask of seats (F_TEAM), the landlord
from the call on and each player from the play of a called copy.  Points
are kept per seat that won them and penalties per thrower (unsigned), so the
opponents' total can be taken at any moment by the sides of that moment,
and at the round's end by the final sides (9.11).
"""

from numba import njit

from .events import LOG_CALL, LOG_JOIN, log_event
from .dims import BJ, CALLS, DECKS, RANKS, SEATS
from .state import (
    F_BY, F_CALLS, F_COPIES, F_JOINED, F_JOINS, F_POINTS, F_SEEN, F_TEAM, F_THROWN, F_WHEN, S_OPP_POINTS,
    S_PENALTY, S_STARTER, S_TRICK,
)
from .view import (
    FV_CALL_CARD, FV_CALL_COPY, FV_CALL_SEAT, FV_CALL_SEEN, FV_CALL_TRICK, FV_IN_TEAM, FV_JOINED, FV_LEVEL,
    FV_MEMBERS, V_FRIENDS,
)

NOBODY = -1  # F_BY / F_WHEN / F_JOINED before anything happened


@njit(cache=True, inline='always')
def in_team(st, seat):
    """Whether the seat is in the landlord's team now."""
    return ((st[F_TEAM] >> seat) & 1) == 1


@njit(cache=True)
def members(team):
    """Seats in a team's bit mask."""
    n = 0
    for s in range(SEATS):
        n += (team >> s) & 1
    return n


@njit(cache=True, inline='always')
def _to_all(views, col, value):
    for v in range(SEATS):
        views[v, V_FRIENDS, col] = value


@njit(cache=True)
def publish_start(views, levels):
    """A deal begins: every player's level, no calls, nobody in the team (the views' rows were cleared)."""
    for s in range(SEATS):
        _to_all(views, FV_LEVEL + s, levels[s])
        _to_all(views, FV_IN_TEAM + s, 0)
        _to_all(views, FV_JOINED + s, NOBODY)
    for j in range(CALLS):
        _to_all(views, FV_CALL_CARD + j, NOBODY)
        _to_all(views, FV_CALL_COPY + j, 0)
        _to_all(views, FV_CALL_SEEN + j, 0)
        _to_all(views, FV_CALL_SEAT + j, NOBODY)
        _to_all(views, FV_CALL_TRICK + j, NOBODY)
    _to_all(views, FV_MEMBERS, 0)


@njit(cache=True)
def open_team(st, views):
    """After burying: the landlord alone is the team; the calls are open; no points yet."""
    landlord = st[S_STARTER]
    st[F_TEAM] = 1 << landlord
    for s in range(SEATS):
        st[F_JOINED + s] = NOBODY
        st[F_POINTS + s] = 0
        st[F_THROWN + s] = 0
    for j in range(CALLS):
        st[F_CALLS + j] = NOBODY
        st[F_COPIES + j] = 0
        st[F_SEEN + j] = 0
        st[F_BY + j] = NOBODY
        st[F_WHEN + j] = NOBODY
        st[F_JOINS + j] = 0
    _to_all(views, FV_IN_TEAM + landlord, 1)
    _to_all(views, FV_MEMBERS, 1)


@njit(cache=True)
def calls_ok(out, n, rank):
    """9.11: CALLS calls, each a card that is neither a joker nor of the trump rank (the landlord's
    level, even without a trump suit), and a copy 1..DECKS."""
    if n != CALLS:
        return False
    for j in range(CALLS):
        card = out[j]
        copy = out[CALLS + j]
        if card < 0 or card >= BJ or card % RANKS == rank or copy < 1 or copy > DECKS:
            return False
    return True


@njit(cache=True)
def make_calls(st, views, out, log):
    """Record the landlord's (checked) calls, tell every seat, and clear the answer buffer."""
    logging = log.shape[0] > 1
    for j in range(CALLS):
        st[F_CALLS + j] = out[j]
        st[F_COPIES + j] = out[CALLS + j]
        _to_all(views, FV_CALL_CARD + j, out[j])
        _to_all(views, FV_CALL_COPY + j, out[CALLS + j])
        if logging:
            log_event(log, LOG_CALL, st[S_STARTER], out[j], out[CALLS + j], st[0:0])
    for j in range(CALLS):
        out[j] = 0
        out[CALLS + j] = 0


@njit(cache=True)
def count_play(st, views, log, seat, ids, cnts, i, k):
    """Count the copies of called cards in play i (k distinct cards, in id order) of ``seat``: the
    copies of one play in a row, so a call whose copy falls among them fires now.  Calls of one
    card fire in the order of their copies (then of the calls); whoever plays a called copy joins,
    unless he is in the team already: then the call is used up (9.11).  Returns whether anybody
    joined."""
    joined = False
    for jj in range(k):
        c = ids[i, jj]
        x = cnts[i, jj]
        for q in range(1, DECKS + 1):
            for j in range(CALLS):
                if st[F_CALLS + j] != c or st[F_COPIES + j] != q or st[F_BY + j] != NOBODY:
                    continue
                seen = st[F_SEEN + j]
                if not seen < q <= seen + x:
                    continue
                joins = not in_team(st, seat)
                _fire(st, views, log, j, seat, joins)
                joined = joined or joins
        for j in range(CALLS):
            if st[F_CALLS + j] == c:
                st[F_SEEN + j] += x
                _to_all(views, FV_CALL_SEEN + j, st[F_SEEN + j])
    return joined


@njit(cache=True)
def _fire(st, views, log, j, seat, joins):
    t = st[S_TRICK]
    st[F_BY + j] = seat
    st[F_WHEN + j] = t
    st[F_JOINS + j] = 1 if joins else 0
    _to_all(views, FV_CALL_SEAT + j, seat)
    _to_all(views, FV_CALL_TRICK + j, t)
    if joins:
        st[F_TEAM] |= 1 << seat
        st[F_JOINED + seat] = t
        _to_all(views, FV_IN_TEAM + seat, 1)
        _to_all(views, FV_JOINED + seat, t)
        _to_all(views, FV_MEMBERS, members(st[F_TEAM]))
    if log.shape[0] > 1:
        log_event(log, LOG_JOIN, seat, j, 1 if joins else 0, st[0:0])


@njit(cache=True)
def totals(st):
    """The opponents' points and the penalties (S_OPP_POINTS, S_PENALTY) by the sides as they stand:
    the points of the tricks won by everyone outside the team, and each thrower's penalties raising
    the total if he is in the team, lowering it if not (9.11)."""
    team = st[F_TEAM]
    points = 0
    penalty = 0
    for s in range(SEATS):
        if (team >> s) & 1:
            penalty += st[F_THROWN + s]
        else:
            points += st[F_POINTS + s]
            penalty -= st[F_THROWN + s]
    st[S_OPP_POINTS] = points
    st[S_PENALTY] = penalty
