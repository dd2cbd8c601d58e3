"""Points, the kitty bonus, the level table, the next starter, the match end."""

import numpy as np
from numba import njit

from .dims import CALLS, CARDS, DECKS, RANKS, SEATS, SUITS, TEAMS, seat_after
from tractor_sim.rules.options import R_KITTY_MULT, R_MATCH_END, R_MUST_DEFEND

# Ranks by index in a suit (0..RANKS-1 = 2..A).
FIVE = 3
TEN = 8
KING = 11
ACE = RANKS - 1

POINTS = np.zeros(CARDS, dtype=np.int64)
for _s in range(SUITS):
    POINTS[_s * RANKS + FIVE] = 5
    POINTS[_s * RANKS + TEN] = 10
    POINTS[_s * RANKS + KING] = 10
DECK_POINTS = int(POINTS.sum()) * DECKS  # 200 with two decks

# The level table (docs/rules.md sections 6 and 9): its rows are LEVEL_STEP points wide (40 with two
# decks, the step S = 20 D): row 0 for a total p <= 0, row 1 + p // LEVEL_STEP beyond.  The
# declarers keep on rows below TAKEOVER_ROW and gain TAKEOVER_ROW - row levels; from it on the
# opponents take over and gain row - TAKEOVER_ROW.
LEVEL_STEP = 20 * DECKS
TAKEOVER_ROW = 3

# The kitty multiplier's factor in the rules twice_lead_size and twice_largest_unit.
TWICE = 2

# The must-defend levels of each must_defend choice (none, ace, ace_5_10_k), ascending, padded
# with UNUSED (above every level).
UNUSED = 99
_DEFEND = ((), (ACE,), (FIVE, TEN, KING, ACE))
DEFEND_SLOTS = max(len(levels) for levels in _DEFEND)
MUST_DEFEND = np.array([list(levels) + [UNUSED] * (DEFEND_SLOTS - len(levels)) for levels in _DEFEND],
                       dtype=np.int64)


@njit(cache=True)
def card_points(counts):
    p = 0
    for c in range(CARDS):
        p += counts[c] * POINTS[c]
    return p


@njit(cache=True)
def kitty_multiplier(lead_n, lead_pairs, lead_largest_unit, rules):
    """How many times the kitty's points count when the opponents win the last trick."""
    mode = rules[R_KITTY_MULT]
    if mode == 0:
        return TWICE * lead_n
    if mode == 1:
        return 1 << (lead_pairs + 1)  # a power of two: 2 ** (lead_pairs + 1)
    return TWICE * lead_largest_unit


@njit(cache=True)
def level_row(p):
    """Row of the level table for the opponents' total p: 0 for p <= 0, then one row per
    LEVEL_STEP points (with two decks: 1 for 5..35, 2 for 40..75, .. 7 for 240..275)."""
    if p <= 0:
        return 0
    return 1 + p // LEVEL_STEP


@njit(cache=True)
def level_change(p):
    """(declarers keep, levels gained by the winners) for the opponents' total p: row_change of its row."""
    return row_change(level_row(p))


@njit(cache=True)
def row_change(row):
    """(declarers keep, levels gained by the winners) on a row of the level table, the same with
    any number of decks (only the rows' width LEVEL_STEP changes: decisions.md 9.9).

    Declarers keep on rows 0..2 and gain 3, 2, 1; on row 3 (TAKEOVER_ROW) the
    opponents take over with no gain; beyond, they gain one more per row.
    """
    if row < TAKEOVER_ROW:
        return True, TAKEOVER_ROW - row
    return False, row - TAKEOVER_ROW


@njit(cache=True)
def defended_gain(level, gain, as_declarers, rules):
    """The levels a team at ``level`` really gains, with the must_defend rule.

    It stops at the first must-defend level above its own that it would pass;
    standing on a must-defend level, it moves on only by winning as declarers.
    """
    mode = rules[R_MUST_DEFEND]
    if mode == 0 or gain <= 0:
        return gain
    for j in range(DEFEND_SLOTS):
        d = MUST_DEFEND[mode, j]
        if d == level and not as_declarers:
            return 0
        if level < d < level + gain:
            return d - level
    return gain


@njit(cache=True)
def next_starter(starter, declarers_keep):
    """The starter's partner (the next seat of his team) when the declarers keep, else the next seat."""
    return seat_after(starter, TEAMS) if declarers_keep else seat_after(starter, 1)


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
    nxt = seat_after(dealer, 1) if auction else next_starter(starter, keep)
    return keep, gain, level_row(p), nxt


@njit(cache=True)
def friends_outcome(p, levels, team, landlord, rules, gains):
    """Finding Friends (decisions.md 9.11): the level table with a level per player.  Returns (the
    landlord's team won, the levels each winner gains before must_defend, the table's row, the next
    landlord); ``gains[s]`` gets what seat s really gains.

    ``team`` is the landlord's team at the round's end (a bit mask of seats): it wins on the
    declarers' rows, one level more if it has fewer than CALLS + 1 members; else everyone outside
    it gains the row's levels.  Each winner moves up from his own level (must_defend per player, as
    a declarer if the team won).  Next landlord: the first seat after the landlord on the winning side.
    """
    keep, gain = level_change(p)
    size = 0
    for s in range(SEATS):
        size += (team >> s) & 1
    if keep and size < CALLS + 1:
        gain += 1
    for s in range(SEATS):
        won = ((team >> s) & 1) == (1 if keep else 0)
        gains[s] = defended_gain(levels[s], gain, keep, rules) if won else 0
    nxt = landlord
    for k in range(1, SEATS + 1):
        s = seat_after(landlord, k)
        if ((team >> s) & 1) == (1 if keep else 0):
            nxt = s
            break
    return keep, gain, level_row(p), nxt


@njit(cache=True)
def match_winners(levels, rules):
    """Finding Friends: the players who have won the match, as a bit mask of seats (0: nobody yet)."""
    limit = ACE if rules[R_MATCH_END] == 1 else ACE + 1
    out = 0
    for s in range(SEATS):
        if levels[s] >= limit:
            out |= 1 << s
    return out
