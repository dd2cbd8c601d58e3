"""The strategy registry, the strategy helpers and the built-in strategies.

Views are built by hand (``make_view``) the way the deal kernel fills them,
and a small pure-Python game loop (``play_game``) plays whole deals between
the built-ins, checking every answer against the compiled rule kernels
(combos.legal_follow, can_declare) the deal kernel uses.
"""

from __future__ import annotations

import itertools
import random as pyrandom
from collections import Counter

import numpy as np
import pytest
from numba import njit

from tractor_sim.core.strategies import lead as lead_strategies
from tests.views import counts, ids, lead_info, make_view
from tractor_sim.play import registry as S
from tractor_sim.play.registry.declared import _STRATEGIES
from tractor_sim.play.registry.variants import _lean
from tractor_sim.play.game import Game
from tractor_sim.core import lib as sl
from tractor_sim.rules.cards import parse_card
from tractor_sim.core.kernels import combos as C
from tractor_sim.core.kernels.declare import can_declare
from tractor_sim.core.kernels.order import trump_table
from tractor_sim.core.kernels.unowned import stack_array
from tractor_sim.core.kernels.view import (
    DECLARE, DISCARD, FOLLOW, LEAD, M_DECISION, M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_DRAWN,
    M_LEAD_KIND, M_LEAD_LONGEST, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_LEADER, M_MY_PAIRS, M_NPLAYED, M_ROUND1,
    M_SEAT, M_STARTER, M_TRICK, M_TRUMP_RANK, M_TRUMP_SUIT, M_WINNING, M_WINNING_KEY, V_BURIED, V_EFF,
    V_HAND, V_META, V_PLAYED, V_POS, V_ROWS, V_TRICK, V_TRICK_LEADER, V_TRICK_WINNER,
)
from tractor_sim.rules.options import Rules

RULES = Rules().encode()
S.load_builtins()


# ---------------------------------------------------------------- building views


def srt(cards):
    return sorted(ids(cards))


def call(fn, view, params=None, scratch=None, seed=1):
    out = np.zeros(54, dtype=np.int64)
    params = np.zeros(0) if params is None else np.asarray(params, dtype=np.float64)
    scratch = np.zeros(256) if scratch is None else scratch
    n = fn(view, params, np.array([seed], dtype=np.uint64), scratch, out)
    return n, out


def run(decision, name, view, params=None, scratch=None, seed=1):
    """Call a registered strategy with its default parameters (overridden by ``params``)."""
    info = S.get_strategy(decision, name)
    values = dict(info.params)
    values.update(params or {})
    return call(info.function, view, list(values.values()), scratch, seed)


def strategies_of(decision):
    """The built-in strategies of a decision (other tests register their own, some illegal on purpose)."""
    return [n for d, n, _, _ in S.list_strategies()
            if d == decision and S.get_strategy(d, n).module.startswith("tractor_sim.core.strategies.")]


def as_cards(out):
    return sorted(c for c in range(54) for _ in range(out[c]))


# ---------------------------------------------------------------- random situations


def random_lead_from(hand, tt, rs):
    """A single, pair, tractor or arbitrary one-suit set (throw) from a count vector."""
    kind = rs.random()
    lead = np.zeros(54, dtype=np.int64)
    if 0.45 < kind < 0.75:  # a tractor from any suit that has one
        tops, lens = np.zeros(20, np.int64), np.zeros(20, np.int64)
        found = [(e, tops[i], lens[i]) for e in range(5) for i in range(sl.tractors(hand, tt, e, tops, lens))]
        if found:
            e, top, length = rs.choice(found)
            k = rs.randint(2, length)
            for q in range(top - k + 1, top + 1):
                lead[min(c for c in range(54) if tt[0, c] == e and tt[1, c] == q and hand[c] == 2)] = 2
            return lead
    suits = [e for e in range(5) if C.suit_count(hand, tt, e) > 0]
    e = rs.choice(suits)
    cards = [c for c in range(54) if tt[0, c] == e for _ in range(hand[c])]
    pairs = [c for c in set(cards) if hand[c] == 2]
    if kind < 0.25 or len(cards) == 1:
        lead[rs.choice(cards)] = 1
    elif kind < 0.75 and pairs:
        lead[rs.choice(pairs)] = 2
    else:
        for c in rs.sample(cards, rs.randint(2, len(cards))):
            lead[c] += 1
    return lead


def random_situation(rs, decision=FOLLOW):
    """A random follow (or lead) situation with a consistent history: (view, rank, suit)."""
    rank, suit = rs.randrange(13), rs.randrange(5)
    tt = trump_table(rank, suit, 0)
    if rs.random() < 0.3:  # a deck in pairs: hands rich in pairs and tractors
        distinct = list(range(54)) * 2
        rs.shuffle(distinct)
        seen = set()
        deck = []
        for c in distinct:
            if c not in seen:
                seen.add(c)
                deck += [c, c]
        deck += [c for c in range(54) if c not in seen for _ in range(2)]
    else:
        deck = [c for c in range(54) for _ in range(2)]
        rs.shuffle(deck)
    k = rs.randint(1, 25)
    hands = [counts(deck[i * k:(i + 1) * k]) for i in range(4)]
    rest = deck[4 * k:]
    played = {s: [] for s in range(4)}
    for c in rest:
        if rs.random() < 0.6:
            played[rs.randrange(4)].append(c)
    leader = rs.randrange(4)
    if decision == LEAD:
        return make_view(hands[leader], rank, suit, seat=leader, leader=leader, played=played), rank, suit
    npl = rs.randint(1, 3)
    me = (leader + npl) % 4
    lead = random_lead_from(hands[leader], tt, rs)
    s = C.combo_suit(lead, tt)
    if rs.random() < 0.3 and s != 4 or rs.random() < 0.1:  # make me void (or short) in the led suit
        mine = [c for c in range(54) for _ in range(hands[me][c])]
        other = [c for c in rest if tt[0, c] != s]
        rs.shuffle(other)
        for i, c in enumerate(mine):
            if tt[0, c] == s and other:
                mine[i] = other.pop()
        hands[me] = counts(mine)
    trick = [lead]
    for i in range(1, npl):
        seat = (leader + i) % 4
        v = make_view(hands[seat], rank, suit, seat=seat, trick=trick, leader=leader)
        _, out = call(S.get_strategy("follow", "random").function, v, seed=rs.randrange(1 << 30))
        trick.append(out)
    return make_view(hands[me], rank, suit, seat=me, trick=trick, leader=leader, played=played), rank, suit


def legal(view, out):
    m = view[V_META]
    return C.legal_follow(view[V_HAND], out, view[V_TRICK + m[M_LEADER]], sl.trump_table(view), RULES)


def valid_lead(view, out):
    within = (out >= 0).all() and (out <= view[V_HAND]).all()
    return out.sum() > 0 and within and C.combo_suit(out, sl.trump_table(view)) >= 0


# ---------------------------------------------------------------- a pure-Python game loop


def play_game(policy_a, policy_b, seed, record=None, stats=None):
    """Play one deal (fixed random trump, no declaring) between two resolved policies.

    Every answer is checked, and so is every void the tracker claims;
    ``record`` collects (policy, decision, view, scratch) copies for timing,
    ``stats`` counts void claims.  Returns the number of tricks played.
    """
    stats = {"voids": 0} if stats is None else stats
    rs = pyrandom.Random(seed)
    pols = (policy_a, policy_b)
    rank, suit = rs.randrange(13), rs.randrange(5)
    tt = trump_table(rank, suit, 0)
    deck = [c for c in range(54) for _ in range(2)]
    rs.shuffle(deck)
    hands = np.array([counts(deck[i * 25:(i + 1) * 25]) for i in range(4)])
    starter = rs.randrange(4)
    views = np.zeros((4, V_ROWS, 54), dtype=np.int64)
    scratch = np.zeros((4, 256))
    rngs = [np.array([seed * 4 + s + 1], dtype=np.uint64) for s in range(4)]
    for s in range(4):
        views[s, V_EFF:V_EFF + 8] = tt
        views[s, V_HAND] = hands[s]
        m = views[s, V_META]
        m[M_SEAT], m[M_TRUMP_RANK], m[M_TRUMP_SUIT], m[M_STARTER] = s, rank, suit, starter
        m[M_DECL_SEAT] = -1

    def ask(seat, decision):
        pol = pols[seat % 2]
        views[:, V_META, M_DECISION] = decision
        sl.refresh_suit_counts(views[seat])
        if record is not None:
            record.append((pol.name, decision, views[seat].copy(), scratch[seat].copy()))
        out = np.zeros(54, dtype=np.int64)
        n = pol.functions[decision](views[seat], pol.params[decision], rngs[seat], scratch[seat], out)
        assert n == out.sum(), (pol.strategies[decision], n, out)
        for x in range(4):  # every void the tracker claims is real
            for e in range(5):
                if sl.shown_void(scratch[seat], x, e):
                    assert C.suit_count(hands[x], tt, e) == 0, ("false void", seat, x, e)
                    stats["voids"] += 1
        return out

    for c in deck[100:]:
        hands[starter, c] += 1
        views[starter, V_HAND, c] += 1
    out = ask(starter, DISCARD)
    assert out.sum() == 8 and (out >= 0).all() and (out <= hands[starter]).all(), pols[starter % 2].strategies[1]
    hands[starter] -= out
    views[starter, V_HAND] -= out
    views[starter, V_BURIED] = out
    leader = starter
    t = 0
    units, ucards = C.new_units()
    lunits, lucards = C.new_units()
    res = np.zeros(4, dtype=np.int64)
    while hands[leader].sum() > 0:
        views[:, V_META, M_TRICK] = t
        views[:, V_META, M_LEADER] = leader
        views[:, V_META, M_NPLAYED] = 0
        lead = ask(leader, LEAD)
        assert (lead >= 0).all() and (lead <= hands[leader]).all() and C.combo_suit(lead, tt) >= 0, (
            pols[leader % 2].strategies[2], as_cards(lead))
        nu = C.decompose(lead, tt, lunits, lucards)
        kind = C.kind_of(lunits, nu)
        if kind == C.KIND_THROW:
            C.check_throw(lead, hands, leader, 0, tt, RULES, lunits, lucards, nu, res)
            assert res[0] == 1, ("built-in throws are proven safe", pols[leader % 2].strategies[2], as_cards(lead))
            if res[0] == 0:
                C.unit_counts(lunits, lucards, res[2], lead)
                nu = C.decompose(lead, tt, lunits, lucards)
                kind = C.kind_of(lunits, nu)
        n, s, pairs, kind, longest = lead_info(lead, tt)
        for f, val in ((M_LEAD_N, n), (M_LEAD_SUIT, s), (M_LEAD_PAIRS, pairs), (M_LEAD_KIND, kind),
                       (M_LEAD_LONGEST, longest)):
            views[:, V_META, f] = val
        plays = [lead]
        best, best_key = 0, (0 if kind == C.KIND_THROW else lunits[0, C.UNIT_TOP])

        def put(seat, p):
            hands[seat] -= p
            views[seat, V_HAND] -= p
            views[:, V_PLAYED + seat] += p
            views[:, V_TRICK + seat] += p

        put(leader, lead)
        for i in range(1, 4):
            seat = (leader + i) % 4
            views[:, V_META, M_NPLAYED] = i
            views[:, V_META, M_WINNING] = (leader + best) % 4
            views[:, V_META, M_WINNING_KEY] = best_key
            p = ask(seat, FOLLOW)
            m = views[seat, V_META]
            assert C.legal_follow(hands[seat], p, lead, tt, RULES), (
                pols[seat % 2].strategies[3], as_cards(hands[seat]), as_cards(lead), as_cards(p))
            key = C.play_key(p, s, kind, lunits, nu, tt, units, ucards)
            if key > best_key:
                best, best_key = i, key
            plays.append(p)
            put(seat, p)
        winner = (leader + best) % 4
        assert winner == (leader + C.trick_winner(np.array(plays), 4, tt)) % 4
        views[:, V_TRICK_LEADER, t] = leader
        views[:, V_TRICK_WINNER, t] = winner
        views[:, V_TRICK:V_TRICK + 4] = 0
        leader = winner
        t += 1
    assert hands.sum() == 0
    return t


# ---------------------------------------------------------------- helpers: following


def test_random_follow_always_legal():
    rs = pyrandom.Random(7)
    kinds = Counter()
    fn = S.get_strategy("follow", "random").function
    for i in range(3000):
        view, _, _ = random_situation(rs)
        n, out = call(fn, view, seed=i)
        kinds[view[V_META, M_LEAD_KIND]] += 1
        assert n == view[V_META, M_LEAD_N] == out.sum()
        assert legal(view, out), (as_cards(view[V_HAND]), as_cards(out))
    assert min(kinds[k] for k in (C.KIND_SINGLE, C.KIND_PAIR, C.KIND_TRACTOR, C.KIND_THROW)) > 100, kinds


def _all_legal_plays(view):
    hand = view[V_HAND]
    cards = [c for c in range(54) for _ in range(hand[c])]
    plays = set()
    for combo in itertools.combinations(cards, view[V_META, M_LEAD_N]):
        if legal(view, counts(combo)):
            plays.add(tuple(sorted(combo)))
    return plays


@pytest.mark.parametrize("hand,lead,name", [
    ("3S 3S 4S 4S 7S 7S 9S KS", "5S 5S 6S 6S", "tractor lead, pairs required"),
    ("3S 3S 7S 9S 2H 2H 5D", "5S 6S 6S", "throw lead with one pair"),
    ("7S 2H 2H 5D 6D 6D", "5S 5S 8S", "short in the led suit"),
    ("2H 2H 5D 6D 6D 9C", "AS", "void"),
])
def test_random_follow_is_uniform(hand, lead, name):
    view = make_view(hand, rank=10, suit=1, seat=1, trick=[lead])
    plays = _all_legal_plays(view)
    fn = S.get_strategy("follow", "random").function
    seen = Counter()
    draws = 400 * len(plays)
    for i in range(draws):
        _, out = call(fn, view, seed=i + 1)
        seen[tuple(as_cards(out))] += 1
    assert set(seen) == plays, name
    expected = draws / len(plays)
    chi2 = sum((seen[p] - expected) ** 2 / expected for p in plays)
    assert chi2 < len(plays) + 6 * len(plays) ** 0.5 + 10, (name, chi2, len(plays))


def test_follow_need():
    view = make_view("3S 3S 4S 7S 7S 2H", rank=12, suit=1, seat=1, trick=["5S 5S 6S 6S"])
    assert sl.follow_need(view) == (4, 2)
    view = make_view("3S 2H 2H", rank=12, suit=1, seat=1, trick=["5S 5S"])
    assert sl.follow_need(view) == (1, 0)


def test_cheapest_follow_plays_lowest_and_keeps_pairs():
    view = make_view("3S 9S AS 2H", rank=12, suit=1, seat=1, trick=["QS"])
    assert as_cards(run("follow", "cheapest", view)[1]) == srt("3S")
    # a 5 is worth keeping back: the 6 goes first
    view = make_view("5S 6S AS", rank=12, suit=1, seat=1, trick=["QS"])
    assert as_cards(run("follow", "cheapest", view)[1]) == srt("6S")
    # a pair of 4s is kept, the loose 8 goes
    view = make_view("4S 4S 8S 2H", rank=12, suit=1, seat=1, trick=["QS"])
    assert as_cards(run("follow", "cheapest", view)[1]) == srt("8S")
    # a pair lead requires the pair: the lowest one
    view = make_view("4S 4S 9S 9S 3S", rank=12, suit=1, seat=1, trick=["QS QS"])
    assert as_cards(run("follow", "cheapest", view)[1]) == srt("4S 4S")
    # void: the cheapest plain card, never a trump
    view = make_view("3H 8D 8D 4C", rank=12, suit=1, seat=1, trick=["QS"])
    assert as_cards(run("follow", "cheapest", view)[1]) == srt("4C")


def test_every_follow_strategy_is_legal():
    rs = pyrandom.Random(11)
    names = strategies_of("follow")
    for i in range(800):
        view, _, _ = random_situation(rs)
        for name in names:
            scratch = np.zeros(256)
            n, out = run("follow", name, view, scratch=scratch, seed=i + 1)
            assert n == view[V_META, M_LEAD_N] == out.sum(), name
            assert legal(view, out), (name, as_cards(view[V_HAND]), as_cards(view[V_TRICK + view[V_META, M_LEADER]]),
                                      as_cards(out))


# ---------------------------------------------------------------- helpers: the trick and counting cards


def test_current_best_matches_trick_winner():
    rs = pyrandom.Random(3)
    units, ucards = C.new_units()
    lunits, lucards = C.new_units()
    for i in range(1500):
        view, rank, suit = random_situation(rs)
        tt = sl.trump_table(view)
        m = view[V_META]
        leader, npl = m[M_LEADER], m[M_NPLAYED]
        plays = np.array([view[V_TRICK + (leader + j) % 4] for j in range(npl)])
        expect = (leader + C.trick_winner(plays, npl, tt)) % 4
        assert sl.trick_winner_seat(view) == expect
        assert sl.partner_winning(view) == (expect == (m[M_SEAT] + 2) % 4)
        assert sl.trick_points(view) == sum(sl.points(p) for p in plays)
        seat, key = sl.current_best(view)
        lnu = C.decompose(plays[0], tt, lunits, lucards)
        if seat == leader:
            expect_key = 0 if m[M_LEAD_KIND] == C.KIND_THROW else lunits[0, C.UNIT_TOP]
        else:
            expect_key = C.play_key(view[V_TRICK + seat], m[M_LEAD_SUIT], m[M_LEAD_KIND], lunits, lnu, tt,
                                    units, ucards)
        assert (seat, key) == (expect, expect_key)


def _others_may_hold(view):
    return 2 - view[V_HAND] - view[V_BURIED] - view[V_PLAYED:V_PLAYED + 4].sum(axis=0)


def test_top_positions_by_brute_force():
    rs = pyrandom.Random(5)
    for i in range(400):
        view, _, _ = random_situation(rs, LEAD)
        if rs.random() < 0.5:
            view[V_BURIED] = counts(rs.sample([c for c in range(54) if _others_may_hold(view)[c] > 0], 2))
        left = _others_may_hold(view)
        eff, pos = view[V_EFF], view[V_POS]
        for e in range(5):
            cards = [c for c in range(54) if eff[c] == e]
            singles = [pos[c] for c in cards if left[c] > 0]
            pairs = sorted({pos[c] for c in cards if left[c] == 2})
            assert sl.top_single_pos(view, e) == max(singles, default=-1)
            assert sl.top_pair_pos(view, e) == max(pairs, default=-1)
            for k in (2, 3):
                tops = [p for p in pairs if all(q in pairs for q in range(p - k + 1, p + 1))]
                assert sl.top_tractor_pos(view, e, k) == max(tops, default=-1)
            for c in cards:
                assert sl.is_top_card(view, c) == all(pos[d] <= pos[c] for d in cards if left[d] > 0)


def test_points_and_suit_helpers():
    assert sl.points(counts("5S KH KH 10D 2C RJ")) == 35
    view = make_view("3S 3S 4S 4S 6S 6S 9S 2H 2H AH", rank=3, suit=1)  # 5s are trumps
    tt = sl.trump_table(view)
    out = np.zeros(54, dtype=np.int64)
    assert sl.suit_cards(view[V_HAND], tt, 0, out) == 7 and as_cards(out) == srt("3S 3S 4S 4S 6S 6S 9S")
    cards = np.zeros(20, dtype=np.int64)
    assert sl.pair_cards(view[V_HAND], tt, 0, cards) == 3
    tops, lens = np.zeros(20, dtype=np.int64), np.zeros(20, dtype=np.int64)
    # 3-4-6 of spades: the 5 became a trump, so 4 and 6 are consecutive
    assert sl.tractors(view[V_HAND], tt, 0, tops, lens) == 1 and (lens[0], tops[0]) == (3, 3)
    # in trumps 2S 2S + 2H 2H are the rank pairs: off-suit then trump-suit rank, consecutive
    view = make_view("2S 2S 2H 2H 2D 2D AH AH", rank=0, suit=1)
    assert sl.tractors(view[V_HAND], sl.trump_table(view), 4, tops, lens) == 1 and lens[0] == 3
    # my cards and pairs per effective suit (kept by the kernel; refresh_suit_counts for views built here)
    view = make_view("3S 3S 4S 5S 2H 2H AH RJ", rank=3, suit=1)  # 5s and hearts are trumps
    assert [sl.suit_len(view, e) for e in range(5)] == [3, 0, 0, 0, 5] and sl.hand_size(view) == 8
    assert view[V_META, M_MY_PAIRS:M_MY_PAIRS + 5].tolist() == [1, 0, 0, 0, 1]


def test_random_lead_is_a_single_pair_or_tractor_uniformly():
    view = make_view("3S 3S 4S 4S 5S 5S 9H", rank=12, suit=1)
    fn = S.get_strategy("lead", "random").function
    seen = Counter()
    for i in range(9000):
        n, out = call(fn, view, seed=i + 1)
        assert valid_lead(view, out) and n == out.sum()
        seen[tuple(as_cards(out))] += 1
    # 4 singles + 3 pairs + 3 tractors (3-4, 4-5, 3-4-5) = 10 leads
    assert len(seen) == 10
    assert all(600 < v < 1200 for v in seen.values()), seen


# ---------------------------------------------------------------- the voids tracker


def test_track_voids_sees_plays_before_and_after_me():
    scratch = np.zeros(256)
    # trick 0: seat 0 leads AS, I (seat 1) follow; seats 2 and 3 play after me
    view = make_view("3S 4D 5D", rank=10, suit=1, seat=1, trick=["AS"], leader=0)
    sl.track_voids(view, scratch)
    # trick 1: seat 0 leads 6D; after me in trick 0 seat 2 played a club, seat 3 a spade
    view = make_view("4D 5D", rank=10, suit=1, seat=1, trick=["6D"], leader=0, trick_index=1,
                     played={0: ["AS"], 1: ["3S"], 2: ["7C"], 3: ["9S"]})
    view[V_TRICK_LEADER, 0] = 0
    sl.track_voids(view, scratch)
    assert sl.shown_void(scratch, 2, 0) and not sl.shown_void(scratch, 3, 0) and not sl.shown_void(scratch, 0, 0)
    # trick 2: seat 3 leads 8D, seat 0 plays a club before me; seats 2 and 3 followed diamonds in trick 1
    view = make_view("5D", rank=10, suit=1, seat=1, trick=["8D", "2C"], leader=3, trick_index=2,
                     played={0: ["AS", "6D"], 1: ["3S", "4D"], 2: ["7C", "7D"], 3: ["9S", "9D"]})
    view[V_TRICK_LEADER, :2] = (0, 0)
    sl.track_voids(view, scratch)
    assert sl.shown_void(scratch, 0, 2) and not sl.shown_void(scratch, 2, 2) and not sl.shown_void(scratch, 3, 2)
    assert sl.shown_void(scratch, 2, 0)
    # too small a scratch: no tracking, no error
    small = np.zeros(8)
    sl.track_voids(view, small)
    assert not sl.shown_void(small, 0, 2)


# ---------------------------------------------------------------- built-ins: validity over many situations


def test_every_lead_strategy_is_valid():
    rs = pyrandom.Random(13)
    names = strategies_of("lead")
    for i in range(600):
        view, _, _ = random_situation(rs, LEAD)
        for name in names:
            n, out = run("lead", name, view, seed=i + 1)
            assert n == out.sum() and valid_lead(view, out), (name, as_cards(view[V_HAND]), as_cards(out))


def test_every_discard_buries_eight_cards_of_the_hand():
    rs = pyrandom.Random(17)
    for i in range(300):
        deck = [c for c in range(54) for _ in range(2)]
        rs.shuffle(deck)
        view = make_view(deck[:33], rs.randrange(13), rs.randrange(5), decision=DISCARD)
        for name in strategies_of("discard"):
            params = {"threshold": rs.choice([5, 10, 15])} if S.get_strategy("discard", name).params else None
            n, out = run("discard", name, view, params, seed=i + 1)
            assert n == 8 == out.sum() and (out >= 0).all() and (out <= view[V_HAND]).all(), name


def _declare_view(hand, rank, seat, cur=(-1, 0, -1), drawn=50, round1=1):
    return make_view(hand, rank, -1, seat=seat, decision=DECLARE, meta={
        M_DECL_SEAT: cur[0], M_DECL_KIND: cur[1], M_DECL_CARD: cur[2], M_DRAWN: drawn, M_ROUND1: round1})


def test_every_declare_is_allowed():
    rs = pyrandom.Random(19)
    declared = Counter()
    for i in range(1500):
        deck = [c for c in range(54) for _ in range(2)]
        rs.shuffle(deck)
        rank, seat = rs.randrange(13), rs.randrange(4)
        cur_seat = rs.randrange(4)
        cur = rs.choice([(-1, 0, -1), (cur_seat, 1, rs.randrange(4) * 13 + rank),
                         (cur_seat, 2, rs.randrange(4) * 13 + rank), (cur_seat, 3, rs.choice([52, 53]))])
        view = _declare_view(deck[:rs.randint(1, 25)], rank, seat, cur, rs.choice([10, 60, 100]), rs.randrange(2))
        kinds, cards = np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64)
        k = sl.declare_options(view, kinds, cards)
        expect = [(kind, card) for kind in (3, 2, 1) for card in ((53, 52) if kind == 3 else
                  [s * 13 + rank for s in range(4)]) if can_declare(view[V_HAND], kind, card, seat, *cur, rank, RULES)]
        assert list(zip(kinds[:k], cards[:k])) == expect
        for name in strategies_of("declare"):
            n, out = run("declare", name, view, seed=i + 1)
            if n:
                declared[name] += 1
                assert n == 1 and can_declare(view[V_HAND], out[0], out[1], seat, *cur, rank, RULES), (name, out[:2])
    assert declared["eager"] > declared["threshold"] > 0 and declared["never"] == 0


def test_builtin_policies_play_whole_deals():
    names = [n for _, n, _, _ in S.list_policies() if n in ("random", "basic", "expert")]
    stats = {"voids": 0}
    for a, b in itertools.product(names, names):
        pa, pb = S.resolve_policy(a), S.resolve_policy(b)
        for seed in range(6):
            assert play_game(pa, pb, seed, stats=stats) <= 25
    assert stats["voids"] > 100  # the expert tracker finds voids, and only real ones


def test_every_strategy_plays_whole_deals():
    for decision in ("discard", "lead", "follow"):
        for name in strategies_of(decision):
            pol = S.resolve_policy({"policy": "basic", decision: name})
            for seed in range(3):
                play_game(pol, S.resolve_policy("random"), 100 + seed)


# ---------------------------------------------------------------- built-ins: behaviour


def test_top_cards_leads_an_ace_and_cards_that_became_top():
    view = make_view("AS 7S 3H 9D 4C", rank=11, suit=1)  # rank K, hearts trump
    assert as_cards(run("lead", "top_cards", view)[1]) == srt("AS")
    # both aces of clubs gone: my K of clubs is top
    view = make_view("KC 7S 3H 9D", rank=0, suit=1, played={1: ["AC"], 2: ["AC"]})
    assert as_cards(run("lead", "top_cards", view)[1]) == srt("KC")
    # a pair of aces beats a single ace
    view = make_view("AD AD AS 7C", rank=0, suit=1)
    assert as_cards(run("lead", "top_cards", view)[1]) == srt("AD AD")
    # nothing top: a cheap card, not the lone king
    view = make_view("KS 3D 7D 8C 9C", rank=0, suit=1)
    assert as_cards(run("lead", "top_cards", view)[1]) == srt("3D")


def _top_unit_by_brute_force(view, e):
    """top_unit's definition from my cards' positions: the longest run of pair positions (the
    highest of equal length) if no such tractor of the others beats it, else my highest pair,
    else my highest card, each only if top."""
    hand, pos, eff = view[V_HAND], view[V_POS], view[V_EFF]
    cards = [int(pos[c]) for c in range(54) if eff[c] == e and hand[c] > 0]
    pairs = sorted({int(pos[c]) for c in range(54) if eff[c] == e and hand[c] == 2})
    if not cards:
        return -1, -1
    runs = [(k, top) for i, top in enumerate(pairs) for k in range(1, i + 2)
            if pairs[i - k + 1:i + 1] == list(range(top - k + 1, top + 1))]
    if runs:
        k, top = max(runs)
        if k >= 2 and (top >= sl.top_pair_pos(view, e) or sl.top_tractor_pos(view, e, k) <= top):
            return k, top
        if pairs[-1] >= sl.top_pair_pos(view, e):
            return 1, pairs[-1]
    return (0, max(cards)) if max(cards) >= sl.top_single_pos(view, e) else (-1, -1)


def test_top_unit_agrees_with_brute_force():
    rs = pyrandom.Random(7)
    seen = set()
    for _ in range(1500):
        view, _, _ = random_situation(rs, LEAD)
        for e in range(5):
            got = tuple(int(x) for x in lead_strategies.top_unit(view, e))
            assert got == _top_unit_by_brute_force(view, e), (e, as_cards(view[V_HAND]), got)
            seen.add(min(got[0], 2))
    assert seen == {-1, 0, 1, 2}  # none, single, pair and tractor all met


def test_pairs_first_leads_the_longest_tractor():
    view = make_view("AS 3D 3D 4D 4D 5D 5D 9C 9C", rank=0, suit=1)
    assert as_cards(run("lead", "pairs_first", view)[1]) == srt("3D 3D 4D 4D 5D 5D")


def test_safe_throw_throws_only_what_cannot_be_beaten():
    # spades: A and K top (the other A is played), QQ top as a pair (KK: one K is mine)
    view = make_view("AS KS QS QS 7S 3H", rank=0, suit=1, played={2: ["AS"]})
    n, out = run("lead", "safe_throw", view)
    assert as_cards(out) == srt("AS KS QS QS")
    # the throw must survive the real check for any placement of the other cards
    others = [c for c in range(54) for _ in range(_others_may_hold(view)[c])]
    hands = np.zeros((4, 54), dtype=np.int64)
    for i, c in enumerate(others):
        hands[1 + i % 3, c] += 1
    units, ucards = C.new_units()
    nu = C.decompose(out, sl.trump_table(view), units, ucards)
    res = np.zeros(4, dtype=np.int64)
    C.check_throw(out, hands, 0, 0, sl.trump_table(view), RULES, units, ucards, nu, res)
    assert res[0] == 1


def test_pull_trumps_leads_trumps_while_long():
    view = make_view("2H 2H 3H 4H 5H 6H 7H 8H 9H AS", rank=0, suit=1)
    n, out = run("lead", "pull_trumps", view)
    assert all(view[V_EFF, c] == 4 for c in as_cards(out))
    n, out = run("lead", "pull_trumps", view, {"min_trumps": 12})
    assert as_cards(out) == srt("AS")


def test_partner_void_leads_into_the_shown_void():
    scratch = np.zeros(256)
    # trick 0: I (seat 0) follow to seat 3's diamond lead after my partner (seat 2) played a club
    view = make_view("3D 5D KD 9S AS 4C", rank=0, suit=1, seat=0, trick=["5D", "7C", "9D"], leader=1)
    sl.track_voids(view, scratch)
    assert sl.shown_void(scratch, 2, 2) and not sl.shown_void(scratch, 3, 2)
    view = make_view("3D 5D 9S AS 4C", rank=0, suit=1, seat=0, trick_index=1,
                     played={1: ["5D"], 2: ["7C"], 3: ["9D"], 0: ["KD"]})
    view[V_TRICK_LEADER, 0] = 1
    n, out = run("lead", "partner_void", view, scratch=scratch)
    assert as_cards(out) == srt("5D")  # the richest diamond: partner ruffs it
    n, out = run("lead", "partner_void", view, scratch=np.zeros(256))
    assert as_cards(out) == srt("AS")  # no void known: as top_cards


def test_smart_feeds_points_to_a_winning_partner():
    # my partner (seat 2) led an ace, seat 3 followed, I (seat 0) play third: the ace cannot be beaten
    view = make_view("KS 3S 10H", rank=0, suit=1, seat=0, trick=["AS", "4S"], leader=2)
    assert as_cards(run("follow", "smart", view)[1]) == srt("KS")
    # partner's card can still be beaten by the opponent after me: duck cheaply
    view = make_view("KS 3S 10H", rank=0, suit=1, seat=0, trick=["QS", "4S"], leader=2)
    assert as_cards(run("follow", "smart", view)[1]) == srt("3S")


def test_smart_wins_cheaply_when_last_and_ducks_when_it_cannot():
    view = make_view("3S 10S AS KS", rank=0, suit=1, seat=3, trick=["9S", "5S", "JS"], leader=0)
    assert as_cards(run("follow", "smart", view)[1]) == srt("KS")  # the cheapest winner
    view = make_view("3S 8S", rank=0, suit=1, seat=3, trick=["9S", "5S", "JS"], leader=0)
    assert as_cards(run("follow", "smart", view)[1]) == srt("3S")
    # second to play: only a top card wins for sure
    view = make_view("QS AS 3S", rank=0, suit=1, seat=1, trick=["9S"], leader=0)
    assert as_cards(run("follow", "smart", view)[1]) == srt("AS")


def test_ruff_points_ruffs_tricks_with_points_with_the_cheapest_winning_trump():
    view = make_view("3H 9H AH 4C", rank=0, suit=1, seat=1, trick=["KS"], leader=0)
    assert as_cards(run("follow", "ruff_points", view)[1]) == srt("3H")
    view = make_view("3H 9H AH 4C", rank=0, suit=1, seat=1, trick=["9S"], leader=0)
    assert as_cards(run("follow", "ruff_points", view)[1]) == srt("4C")
    # a pair lead is ruffed only by a trump pair
    view = make_view("3H 3H 9H 4C", rank=0, suit=1, seat=1, trick=["KS KS"], leader=0)
    assert as_cards(run("follow", "ruff_points", view)[1]) == srt("3H 3H")
    # over an opponent's ruff: a higher trump
    view = make_view("3H 9H 4C", rank=0, suit=1, seat=2, trick=["10S", "5H"], leader=0)
    assert as_cards(run("follow", "ruff_points", view)[1]) == srt("9H")


def test_expert_follow_ruffs_high_when_an_opponent_after_me_could_overruff():
    view = make_view("3H 9H RJ 4C", rank=0, suit=1, seat=1, trick=["KS"], leader=0)
    assert as_cards(run("follow", "expert", view)[1]) == srt("3H")
    scratch = np.zeros(256)
    scratch[sl.S_VOID + 2 * 5 + 0] = 1.0  # seat 2, after me, has shown a void in spades
    assert as_cards(run("follow", "expert", view, scratch=scratch)[1]) == srt("RJ")


def test_expert_lead_plays_a_pair_before_a_cheap_single():
    view = make_view("9S 9S 3D 4C", rank=0, suit=1)
    assert as_cards(run("lead", "expert", view)[1]) == srt("9S 9S")
    assert as_cards(run("lead", "top_cards", view)[1]) == srt("3D")


def test_declare_behaviour():
    rank = 0  # 2s
    weak = "2S 3H 9D"
    strong = "2S 3S 5S 8S 9S JS QS 7D"
    assert run("declare", "eager", _declare_view(weak, rank, 0))[1][:2].tolist() == [1, parse_card("2S")]
    assert run("declare", "threshold", _declare_view(weak, rank, 0))[0] == 0
    assert run("declare", "threshold", _declare_view(strong, rank, 0))[1][:2].tolist() == [1, parse_card("2S")]
    assert run("declare", "threshold", _declare_view(strong, rank, 0), {"min_cards": 9})[0] == 0
    # eager prefers a joker pair; threshold does not override its partner
    assert run("declare", "eager", _declare_view("RJ RJ 2S", rank, 0))[1][:2].tolist() == [3, 53]
    assert run("declare", "threshold", _declare_view("2S 2S " + strong, rank, 0, (2, 1, parse_card("2H"))))[0] == 0
    # override strengthens its own single, and overrides an opponent with a long suit
    n, out = run("declare", "override", _declare_view("2S 2S 3D", rank, 0, (0, 1, parse_card("2S"))))
    assert (n, out[0], out[1]) == (1, 2, parse_card("2S"))
    n, out = run("declare", "override", _declare_view("2S 2S 3S 5S 8S 9S 7D", rank, 0, (1, 1, parse_card("2H"))))
    assert (n, out[0], out[1]) == (1, 2, parse_card("2S"))
    assert run("declare", "never", _declare_view("RJ RJ", rank, 0))[0] == 0


def test_discard_behaviour():
    # 33 cards: hearts trump (rank 2)
    hand = ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH "  # 10 trumps
            "3S 4S 4S 10S KS AS "
            "3D 5D 6D "
            "3C 4C 6C 7C 7C 8C 9C JC QC KC AC 10C RJ BJ")
    view = make_view(hand, rank=0, suit=1, decision=DISCARD)
    out = run("discard", "lowest", view)[1]
    assert all(view[V_EFF, c] != 4 for c in as_cards(out)) and out[parse_card("4S")] == 0  # pair kept
    out = run("discard", "keep_points", view)[1]
    assert sl.points(out) == 0
    out = run("discard", "bury_points", view)[1]  # 12 trumps >= 10: bury points
    assert sl.points(out) >= 40
    out = run("discard", "bury_points", view, {"threshold": 13})[1]
    assert sl.points(out) == 0
    out = run("discard", "void", view)[1]
    assert all(out[c] == view[V_HAND, c] for c in ids("3D 5D 6D"))  # diamonds voided


# ---------------------------------------------------------------- the registry


def test_resolve_a_policy_and_override_parameters():
    rp = S.resolve_policy("basic")
    assert rp.name == "basic" and rp.strategies == ("threshold", "lowest", "top_cards", "smart", "strength", "ace")
    assert len(rp.functions) == 6 and all(p.dtype == np.float64 and p.flags.c_contiguous for p in rp.params)
    assert rp.params[DECLARE].tolist() == [7.0, 1.0]
    rp = S.resolve_policy({"policy": "basic", "params": {"declare.min_cards": 9}})
    assert rp.params[DECLARE].tolist() == [9.0, 1.0]
    rp = S.resolve_policy({"policy": "basic", "discard": "bury_points", "params": {"discard": {"threshold": 12}}})
    assert rp.strategies[DISCARD] == "bury_points" and rp.params[DISCARD].tolist() == [12.0]
    assert rp.param_dict()["discard.threshold"] == 12.0
    assert S.resolve_policy(rp.spec).params[DISCARD].tolist() == [12.0]
    rp = S.resolve_policy({"declare": "eager", "discard": "lowest", "lead": "random", "follow": "cheapest",
                           "name": "mine"})
    assert rp.name == "mine" and rp.strategies == ("eager", "lowest", "random", "cheapest", "strength", "ace")


@pytest.mark.parametrize("spec,message", [
    ("basik", "unknown policy 'basik' (did you mean 'basic'?)"),
    ({"policy": "basic", "lead": "top_card"}, "unknown lead strategy 'top_card' (did you mean 'top_cards'?)"),
    ({"policy": "basic", "params": {"declare.min_card": 8}},
     "unknown parameter 'min_card' of declare strategy 'threshold' (did you mean 'min_cards'?)"),
    ({"policy": "basic", "params": {"discard.threshold": 8}}, "of discard strategy 'lowest' (it has no parameters)"),
    ({"policy": "basic", "params": {"declair.min_cards": 8}}, "unknown decision 'declair' (did you mean 'declare'?)"),
    ({"policy": "basic", "params": {"min_cards": 8}}, "must be written decision.name"),
    ({"policy": "basic", "params": {"declare.min_cards": "8"}}, "expected a number"),
    ({"polcy": "basic"}, "unknown policy key 'polcy' (did you mean 'policy'?)"),
    ({"declare": "eager", "lead": "random"}, "missing discard, follow"),
    (3, "a policy must be a name or a table"),
])
def test_registry_errors_name_the_problem(spec, message):
    with pytest.raises(S.StrategyError) as e:
        S.resolve_policy(spec)
    assert message in str(e.value)


def test_duplicate_names_are_errors_unless_the_same_function_comes_again():
    def a(view, params, rng, scratch, out):
        return 0

    S.strategy("declare", "test_dup")(a)
    S.strategy("declare", "test_dup")(a)  # the same module and function: replaces silently

    def b(view, params, rng, scratch, out):
        return 0

    with pytest.raises(S.StrategyError, match="registered twice: by .*test_strategies.py:[0-9]+.* and by "
                                              ".*test_strategies.py:[0-9]+"):
        S.strategy("declare", "test_dup")(b)
    with pytest.raises(S.StrategyError, match="unknown decision 'folow'"):
        S.strategy("folow", "x")
    with pytest.raises(S.StrategyError, match="registered twice"):
        S.policy("basic", "eager", "lowest", "random", "random")


def test_listing_rows():
    rows = S.list_strategies()
    assert ("discard", "bury_points", {"threshold": 10.0}) in [r[:3] for r in rows]
    assert all(r[3] for r in rows if S.is_builtin(S.get_strategy(r[0], r[1]).module))  # built-ins are described
    for decision, names in (("declare", {"never", "eager", "threshold", "override"}),
                            ("discard", {"lowest", "void", "keep_points", "bury_points", "random"}),
                            ("lead", {"random", "top_cards", "pairs_first", "safe_throw", "pull_trumps",
                                      "partner_void"}),
                            ("follow", {"random", "cheapest", "smart", "ruff_points"})):
        assert names <= set(strategies_of(decision))
    pols = {r[1]: r for r in S.list_policies()}
    assert {"random", "basic", "expert"} <= set(pols) and pols["basic"][2]["lead"] == "top_cards"


PLUGIN = '''
"""A user's strategy file."""
from tractor_sim.play.registry import strategy, policy
from tractor_sim.core import lib as sl


@strategy("follow", "plugin_high", params={"bias": 1.0})
def plugin_high(view, params, rng, scratch, out):
    """Follow with the feeding order (a test plugin)."""
    return sl.cheapest_follow(view, out, params[0] > 0)


policy("plugin_policy", declare="never", discard="lowest", lead="top_cards", follow="plugin_high",
       params={"follow.bias": 0.0}, description="a test plugin")
'''


def test_a_plugin_file_registers_a_strategy_and_a_policy(tmp_path, monkeypatch):
    path = tmp_path / "my_strats.py"
    path.write_text(PLUGIN)
    S.load_module(str(path))
    rp = S.resolve_policy("plugin_policy")
    assert rp.strategies[FOLLOW] == "plugin_high" and rp.params[FOLLOW].tolist() == [0.0]
    assert str(path) in rp.sources
    play_game(rp, S.resolve_policy("basic"), 1)
    S.load_module(str(path))  # loading it again replaces, no error
    # by module name, and through an entry point
    (tmp_path / "my_strats2.py").write_text(PLUGIN.replace("plugin_high", "plugin_high2").replace(
        "plugin_policy", "plugin_policy2"))
    monkeypatch.syspath_prepend(str(tmp_path))

    class EP:
        name, value = "mine", "my_strats2"

        def load(self):
            return S.load_module("my_strats2")

    import importlib.metadata as md
    monkeypatch.setattr(md, "entry_points", lambda group=None: [EP()] if group == S.ENTRY_POINT_GROUP else [])
    assert S.load_entry_points() == ["mine"]
    assert S.resolve_policy("plugin_policy2").strategies[FOLLOW] == "plugin_high2"
    with pytest.raises(S.StrategyError, match="not found"):
        S.load_module(str(tmp_path / "missing.py"))


def test_a_strategy_that_does_not_compile_is_named_when_first_used():
    @S.strategy("follow", "broken_for_test", description="returns text, not a card count")
    def broken(view, params, rng, scratch, out):
        return "two hearts"

    try:
        with pytest.raises(S.StrategyError, match=r"follow strategy 'broken_for_test' .*does not compile"):
            S.resolve_policy({"policy": "basic", "follow": "broken_for_test"})
    finally:
        _STRATEGIES["follow"].pop("broken_for_test")  # the other tests list every registered strategy


def test_lean_compiles_for_built_ins_and_on_request():
    """Built-ins compile without reference counting; a plug-in only when it asks (lean=True), and one
    that asks but allocates gets the ordinary compile; all play the same cards."""
    for decision in ("declare", "discard", "lead", "follow", "bid"):
        for name, info in _STRATEGIES[decision].items():
            if info.module.startswith("tractor_sim.core.strategies."):
                assert info.lean and _lean(info.dispatcher) is info.function, (decision, name)

    @S.strategy("discard", "heap_for_test")
    def heap(view, params, rng, scratch, out):
        return _bury_first(view, out, np.zeros(54, dtype=np.int64))  # a heap array: needs counting

    @S.strategy("discard", "heap_lean_for_test", lean=True)
    def heap_lean(view, params, rng, scratch, out):
        return _bury_first(view, out, np.zeros(54, dtype=np.int64))

    @S.strategy("discard", "stack_lean_for_test", lean=True)
    def stack_lean(view, params, rng, scratch, out):
        return _bury_first(view, out, stack_array(54))

    try:
        infos = [S.get_strategy("discard", n) for n in ("heap_for_test", "heap_lean_for_test", "stack_lean_for_test")]
        assert [i.function is i.dispatcher for i in infos] == [True, True, False]
        assert _lean(infos[2].dispatcher) is infos[2].function
        view = make_view("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 3H", decision=DISCARD)
        for info in infos:
            assert as_cards(call(info.function, view)[1]) == srt("3S 4S 5S 6S 7S 8S 9S 10S"), info.name
    finally:
        for n in ("heap_for_test", "heap_lean_for_test", "stack_lean_for_test"):
            _STRATEGIES["discard"].pop(n)


@njit(cache=True, inline='always')
def _bury_first(view, out, order):
    """Bury the first 8 cards of my hand by card id, listing them in ``order`` first."""
    n = 0
    for c in range(54):
        for _ in range(view[V_HAND, c]):
            order[n] = c
            n += 1
    for i in range(8):
        out[order[i]] += 1
    return 8


@njit(cache=True, _nrt=False)
def _stack_sums(k):
    """Sums of stack arrays made in a loop (one per call site, reused each pass)."""
    total = 0
    for j in range(k):
        a = stack_array(54)
        b = stack_array(7).reshape((7, 1))
        for i in range(54):
            a[i] = i + j
        b[:] = j
        total += a[53] + b[6, 0]
    return total


def test_stack_arrays_need_no_reference_counting():
    assert _stack_sums(1000) == sum(53 + 2 * j for j in range(1000))


def test_a_run_compiles_only_the_decisions_it_reaches():
    """The bid strategy without the auction and the call strategy outside Finding Friends stand in as
    the idle placeholder: named and recorded, not compiled (Game.idle_decisions)."""
    from tractor_sim.rules.sizes import GameSize

    @S.strategy("bid", "t_never_compiled_bid")
    def never(view, params, rng, scratch, answer):
        return 0

    assert Game.of(GameSize(), {}).idle_decisions == ("bid", "call")
    assert Game.of(GameSize(), {"declaring": "auction"}).idle_decisions == ("call",)
    assert Game.of(GameSize(5, 2, "friends"), {}).idle_decisions == ("bid",)
    spec = {"policy": "random", "bid": "t_never_compiled_bid"}
    pol = S.resolve_policy(spec, idle=("bid", "call"))
    info = S.get_strategy("bid", "t_never_compiled_bid")
    assert pol.functions[4] is pol.functions[5] is S.idle_function() and pol.strategies[4] == "t_never_compiled_bid"
    if hasattr(info.dispatcher, "signatures"):
        assert info.dispatcher.signatures == []
    assert S.resolve_policy(spec).functions[4] is not S.idle_function()  # the auction compiles it
