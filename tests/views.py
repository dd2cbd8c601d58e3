"""One builder of a seat's view as the deal kernel fills it, at any game size.

The strategy, helper and call tests set up a situation by hand (a hand, a
trick, earlier plays, a standing declaration, the rules) and hand its view
to compiled code; every one of them needs the rows written the way the
kernel writes them, so they share this builder (tests/conftest.py offers it
as the ``view_of`` fixture).  It uses the kernels' own trump table, suit
counts and lead decomposition, as the kernel does: it is no reference.
"""

import numpy as np

import tractor_sim.core
import tractor_sim.core.kernels.combos  # the 4/2 package's modules, read as tractor_sim.core's attributes
import tractor_sim.core.kernels.declare
import tractor_sim.core.kernels.dims
import tractor_sim.core.kernels.order
import tractor_sim.core.kernels.view
import tractor_sim.core.lib
from tractor_sim.rules.cards import parse_card, parse_cards


def ids(cards):
    """'AS 10H' or ['AS', '10H'] or [12, 21] -> list of card ids."""
    cards = parse_cards(cards) if isinstance(cards, str) else list(cards)
    return [parse_card(c) if isinstance(c, str) else int(c) for c in cards]


def counts(cards):
    """Cards (a string, a list of ids, or already a count vector) -> count vector."""
    if isinstance(cards, np.ndarray) and cards.shape == (54,):
        return cards.astype(np.int64).copy()
    v = np.zeros(54, dtype=np.int64)
    for c in ids(cards):
        v[c] += 1
    return v


def make_view(hand, rank=0, suit=0, seat=0, trick=(), leader=None, played=None, buried=None, decision=None,
              trick_index=0, *, package=None, tt=None, rules=None, declared=None, meta=None):
    """A view as the deal kernel fills it.

    ``package``: the compiled package of the game size (tractor_sim.play.packages.compiled_package;
    None: 4 players, 2 decks).  ``rank``/``suit``: the trump (suit 4 = none, -1 = not yet known:
    declaring); ``tt``: the trump table when it is not ``trump_table(rank, suit, 0)``.
    ``trick``: the plays of the current trick so far, in playing order from ``leader`` (default: the
    seat that makes me play next).  ``played``: seat -> cards played in earlier tricks.  The current
    trick counts as played too.  ``rules``: the encoded rules row.  ``declared``: the standing
    declaration (seat, copies shown, card), None for none.  ``meta``: {meta field: value} written
    last, for a situation no argument describes.
    """
    pkg = tractor_sim.core if package is None else package
    V, sl = pkg.kernels.view, pkg.lib
    seats = pkg.kernels.dims.SEATS
    v = np.zeros((V.V_ROWS, 54), dtype=np.int64)
    if tt is None:
        tt = pkg.kernels.order.trump_table(rank, 4 if suit < 0 else suit, 0)
    v[V.V_EFF:V.V_EFF + tt.shape[0]] = tt
    v[V.V_HAND] = counts(hand)
    if rules is not None:
        v[V.V_RULES, :len(rules)] = rules
    sl.refresh_suit_counts(v)
    trick = [counts(p) for p in trick]
    if leader is None:
        leader = (seat - len(trick)) % seats
    for seat_played, cards in (played or {}).items():
        v[V.V_PLAYED + seat_played] += counts(cards)
    for i, p in enumerate(trick):
        v[V.V_TRICK + (leader + i) % seats] = p
        v[V.V_PLAYED + (leader + i) % seats] += p
    if buried is not None:
        v[V.V_BURIED] = counts(buried)
    m = v[V.V_META]
    m[V.M_SEAT] = seat
    m[V.M_TRICK] = trick_index
    m[V.M_LEADER] = leader
    m[V.M_NPLAYED] = len(trick)
    m[V.M_TRUMP_RANK] = rank
    m[V.M_TRUMP_SUIT] = suit
    m[V.M_STARTER] = 0
    m[V.M_DECL_SEAT] = -1
    if declared is not None:
        m[V.M_DECL_SEAT], m[V.M_DECL_CARD] = declared[0], declared[2]
        m[V.M_DECL_KIND] = pkg.kernels.declare.kind_of(declared[1], declared[2])
        m[V.M_NDECL] = 1  # one declaration: its count is the first declaration row's (standing_count)
        v[V.V_DECL_COUNT, 0] = declared[1]
    m[V.M_DECISION] = decision if decision is not None else (V.FOLLOW if trick else V.LEAD)
    if trick:
        _lead_fields(pkg, v, tt, trick, leader)
    for field, value in (meta or {}).items():
        m[field] = value
    return v


def lead_info(lead, tt, combos=None):
    """(n, suit, pairs, kind, longest) of a lead count vector, as the kernel sets M_LEAD_* (``combos``:
    a package's kernels.combos; None: the 4/2 one)."""
    C = tractor_sim.core.kernels.combos if combos is None else combos
    units, ucards = C.new_units()
    nu = C.decompose(lead, tt, units, ucards)
    longest = max([units[i, C.UNIT_PAIRS] for i in range(nu)] + [0])
    return int(lead.sum()), C.combo_suit(lead, tt), C.total_pairs(units, nu), C.kind_of(units, nu), longest


def _lead_fields(pkg, v, tt, trick, leader):
    """The lead's fields (lead_info, and its tuples at 3 and 4 decks) and the trick's winner, as the
    kernel writes them once a trick is led."""
    V, C, sl = pkg.kernels.view, pkg.kernels.combos, pkg.lib
    seats, decks = pkg.kernels.dims.SEATS, pkg.kernels.dims.DECKS
    m = v[V.V_META]
    m[V.M_LEAD_N], m[V.M_LEAD_SUIT], m[V.M_LEAD_PAIRS], m[V.M_LEAD_KIND], m[V.M_LEAD_LONGEST] = \
        lead_info(trick[0], tt, C)
    if decks > 2:  # no tuple cells with two decks (view.M_LEAD_TUPLES)
        units, ucards = C.new_units()
        nu = C.decompose(trick[0], tt, units, ucards)
        req = np.zeros(C.TUPLE_SIZES, dtype=np.int64)
        pkg.kernels.tuples.lead_requirement(units, nu, req)
        for t in range(2, decks + 1):
            m[V.M_LEAD_TUPLES + t - 2] = req[t]
    plays = np.zeros((seats, 54), dtype=np.int64)
    plays[:len(trick)] = trick
    m[V.M_WINNING] = (leader + C.trick_winner(plays, len(trick), tt)) % seats
    m[V.M_WINNING_KEY] = sl.play_key_of(v, m[V.M_WINNING])
