"""Points, the kitty bonus, the level table, the next starter, the match end."""

import numpy as np
from numba import njit

from tractor_sim.rules import R_KITTY_MULT, R_MATCH_END, R_MUST_DEFEND

POINTS = np.zeros(54, dtype=np.int64)
for _s in range(4):
    POINTS[_s * 13 + 3] = 5
    POINTS[_s * 13 + 8] = 10
    POINTS[_s * 13 + 11] = 10

ACE = 12
# The must-defend levels of each must_defend choice (none, ace, ace_5_10_k), ascending, 99 = unused.
MUST_DEFEND = np.array([[99, 99, 99, 99], [ACE, 99, 99, 99], [3, 8, 11, ACE]], dtype=np.int64)


@njit(cache=True)
def card_points(counts):
    p = 0
    for c in range(54):
        p += counts[c] * POINTS[c]
    return p


@njit(cache=True)
def kitty_multiplier(lead_n, lead_pairs, lead_largest_unit, rules):
    """How many times the kitty's points count when the opponents win the last trick."""
    mode = rules[R_KITTY_MULT]
    if mode == 0:
        return 2 * lead_n
    if mode == 1:
        return 2 ** (lead_pairs + 1)
    return 2 * lead_largest_unit


@njit(cache=True)
def level_row(p):
    """Row of the level table for the opponents' total p (0: p <= 0 ... 7+: 240+)."""
    if p <= 0:
        return 0
    if p < 40:
        return 1
    if p < 80:
        return 2
    if p < 120:
        return 3
    return 4 + (p - 120) // 40


@njit(cache=True)
def level_change(p):
    """(declarers keep, levels gained by the winners) for the opponents' total p.

    Declarers keep on rows 0..2 and gain 3, 2, 1; on row 3 the opponents take
    over with no gain; beyond, the opponents gain 1 + (p - 120) // 40.
    """
    row = level_row(p)
    if row <= 2:
        return True, 3 - row
    return False, row - 3


@njit(cache=True)
def defended_gain(level, gain, as_declarers, rules):
    """The levels a team at ``level`` really gains, with the must_defend rule.

    It stops at the first must-defend level above its own that it would pass;
    standing on a must-defend level, it moves on only by winning as declarers.
    """
    mode = rules[R_MUST_DEFEND]
    if mode == 0 or gain <= 0:
        return gain
    for j in range(4):
        d = MUST_DEFEND[mode, j]
        if d == level and not as_declarers:
            return 0
        if level < d < level + gain:
            return d - level
    return gain


@njit(cache=True)
def next_starter(starter, declarers_keep):
    return (starter + 2) % 4 if declarers_keep else (starter + 1) % 4


@njit(cache=True)
def match_winner(level0, level1, rules):
    """The team that has won the match (0 or 1), or -1; levels 0..12 are 2..A."""
    limit = ACE if rules[R_MATCH_END] == 1 else ACE + 1
    if level0 >= limit:
        return 0
    if level1 >= limit:
        return 1
    return -1


@njit(cache=True)
def round_outcome(p, levels, decl_team, starter, dealer, auction, rules):
    """The level table applied to a round: (declarers keep, levels gained by the winners, the table's
    row, the next round's starter) for the opponents' total ``p``.

    The one place the table, the must_defend rule and the next starter are put together: the deal
    kernel scores with it and the report's Markov chain takes its transitions from it.  Under the
    auction the next deal's dealer is the seat after this one's (the bids then decide the starter).
    """
    keep, gain = level_change(p)
    winners = decl_team if keep else 1 - decl_team
    gain = defended_gain(levels[winners], gain, keep, rules)
    nxt = (dealer + 1) % 4 if auction else next_starter(starter, keep)
    return keep, gain, level_row(p), nxt
