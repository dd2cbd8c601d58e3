"""The rule variants (docs/rules.md section 8, docs/decisions.md "Variants"): every option of
``tractor_sim.rules.options.Rules`` beyond the standard preset.

For every option:
(a) hand-built situations where it changes the verdict, through the public
    referee (or the kernel where the referee does not reach), with the verdict
    worked out by hand and the same situation judged by the pure-Python
    reference (tests/reference.py);
(b) whole deals: the engine plays deals and matches under the option with
    the built-in policies (plus a throwing test policy); every event of the
    kernel's log is judged by the reference rules (``tests/reference_deal.py``'s
    LogReferee, or here for the auction and the must-defend levels, which it
    does not know); and the option is shown to change outcomes on fixed seeds;
(c) the standard preset's results on fixed seeds are those of the code before
    the variants existed (digests recorded then).
"""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pytest
from numba import njit

from tractor_sim.runs import engine

from tractor_sim.runs import runner
from tractor_sim.play import referee as R
from tractor_sim.play import registry as S
from tractor_sim.core import lib as sl
from tractor_sim.rules.cards import parse_cards, parse_rank
from tractor_sim.play.game import Game
from tractor_sim.runs.engine import ChunkSpec, run_chunk

DEAL_DTYPE, MATCH_DTYPE = Game.of().deal_dtype, Game.of().match_dtype  # the 4-player 2-deck game's records
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import match as M
from tractor_sim.core.kernels.rng import randint, stream_key
from tractor_sim.core.kernels.view import V_HAND, V_SUITS, V_TTMETA
from tractor_sim.core.kernels.order import META_NCARDS
from tractor_sim.rules.options import CHOICES, Rules

try:
    from tests import reference as ref
    from tests import reference_deal as RD
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref
    import reference_deal as RD

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

H2 = {"rank": "2", "suit": "H"}
NT2 = {"rank": "2", "suit": None}
REF_H2 = (0, 1)


def C(text):
    return parse_cards(text)


def follow(hand, lead, play, trump=H2, **rules):
    """The referee's verdict, checked against the reference's."""
    got = R.legal_follow(hand, lead, play, trump, rules)
    rank, suit = R.parse_trump(trump)
    assert got == ref.legal_follow(C(hand), C(lead), C(play), (rank, suit), rules), (hand, lead, play, rules)
    return got


# ===========================================================================
# (a) hand-built situations


def test_every_option_is_listed_with_its_choices():
    names = set(Rules().to_dict())
    for name in ("rank_trumps_in_no_trump", "throw_check", "throw_forced_part", "throw_penalty", "kitty_multiplier",
                 "match_end", "follow_tractor", "pair_override", "joker_pair_override", "must_defend", "declaring"):
        assert name in names
    assert CHOICES["follow_tractor"] == ("none", "tractor", "shape_first")
    assert CHOICES["pair_override"] == ("none", "suit_order")
    assert CHOICES["must_defend"] == ("none", "ace", "ace_5_10_k")
    assert CHOICES["declaring"] == ("draw", "auction")
    assert Rules.from_dict({"preset": "russian"}).declaring == "auction"


def test_rank_trumps_in_no_trump():
    # no trump suit, rank 2: a player void in spades ruffs with 2H only under the option
    plays = ["AS", "2H", "3S", "4S"]
    assert R.trick(plays, NT2)["winner"] == 0
    assert R.trick(plays, NT2, rules={"rank_trumps_in_no_trump": True})["winner"] == 1
    # and must follow a heart lead with 3H, not 2H, under the option (2H is no heart then)
    assert follow("2H 3H", "AH", "2H", NT2)
    assert not follow("2H 3H", "AH", "2H", NT2, rank_trumps_in_no_trump=True)


THROW = "AS QS QS"
THROW_HANDS = ["AS QS QS", "3S 4D 5D", "KS KS 6D", "JS JS 7D"]  # only the partner (seat 2) beats the pair


def test_throw_options_change_the_verdict():
    std = R.trick([THROW], H2, hands=THROW_HANDS)["throw"]
    opp = R.trick([THROW], H2, hands=THROW_HANDS, rules={"throw_check": "opponents_only"})["throw"]
    assert std == {"ok": False, "blocked_by": 2, "forced": ["QS", "QS"], "penalty": 10}
    assert opp == {"ok": True, "blocked_by": None, "forced": [], "penalty": 0}
    r = R.trick([THROW], H2, hands=THROW_HANDS, rules={"throw_penalty": 0})["throw"]
    assert r == {"ok": False, "blocked_by": 2, "forced": ["QS", "QS"], "penalty": 0}
    # forced part: a single and a pair both beatable: fewest/lowest pick 9S, highest the KS KS pair
    lead = "KS KS 9S"
    hands = [lead, "AS AS 2D", "10S 3D 4D", "5D 6D 7D"]
    want = {"fewest_then_lowest": ["9S"], "lowest": ["9S"], "highest": ["KS", "KS"]}
    for option, forced in want.items():
        r = R.trick([lead], H2, hands=hands, rules={"throw_forced_part": option})["throw"]
        assert r["forced"] == forced, option
        expect = ref.check_throw(C(lead), [C(h) for h in hands], 0, (0, 2), REF_H2, {"throw_forced_part": option})
        assert sorted(C(" ".join(r["forced"]))) == sorted(expect["forced"])


def test_kitty_multipliers():
    kitty = "KS 10D 5C 5H 3S 4S 6S 7S"  # 30 points
    lead = "AS QS QS 9S 9S"  # 5 cards, 2 pairs, largest unit 2 cards
    got = {m: R.kitty_bonus(kitty, lead, {"kitty_multiplier": m}, trump=H2)
           for m in ("twice_lead_size", "pow2_pairs", "twice_largest_unit")}
    assert got == {"twice_lead_size": 300, "pow2_pairs": 240, "twice_largest_unit": 120}
    for m, v in got.items():
        assert ref.kitty_bonus(C(kitty), C(lead), REF_H2, {"kitty_multiplier": m}) == v


def test_follow_tractor_to_a_tractor_lead():
    lead = "KS KS QS QS"
    hand = "3S 3S 4S 4S 9S 9S"
    assert follow(hand, lead, "3S 3S 9S 9S")  # standard: any two pairs
    for mode in ("tractor", "shape_first"):
        assert not follow(hand, lead, "3S 3S 9S 9S", follow_tractor=mode)
        assert follow(hand, lead, "4S 4S 3S 3S", follow_tractor=mode)
    # no tractor held: two pairs are enough
    assert follow("3S 3S 5S 5S 9S 9S", lead, "3S 3S 9S 9S", follow_tractor="tractor")
    # a longer tractor held: any two consecutive pairs of it
    assert follow("3S 3S 4S 4S 5S 5S", lead, "5S 5S 4S 4S", follow_tractor="tractor")
    assert not follow("3S 3S 4S 4S 5S 5S 6S", lead, "5S 5S 3S 3S", follow_tractor="tractor")
    # a shorter tractor than the lead's does not count
    lead3 = "KS KS QS QS JS JS"
    assert follow("3S 3S 4S 4S 9S 9S 10S", lead3, "3S 3S 9S 9S 4S 4S", follow_tractor="tractor")
    # exactly the lead's number of cards of the suit: all of them, the obligation is met
    assert follow("3S 3S 4S 4S", lead, "3S 3S 4S 4S", follow_tractor="tractor")
    # in trumps, across the trump rank: AH AH 2S 2S is a tractor, 2S 2S 2D 2D is not
    assert not follow("AH AH 2S 2S 2D 2D 5H", "BJ BJ RJ RJ", "2S 2S 2D 2D", follow_tractor="tractor")
    assert follow("AH AH 2S 2S 2D 2D 5H", "BJ BJ RJ RJ", "AH AH 2D 2D", follow_tractor="tractor")


def test_shape_first_obligation_for_throws():
    throw = "AS AS KS KS 9S"  # a tractor and a single
    hand = "3S 3S 4S 4S 7S 7S 8S"
    assert follow(hand, throw, "3S 3S 7S 7S 8S")  # standard: two pairs
    assert follow(hand, throw, "3S 3S 7S 7S 8S", follow_tractor="tractor")  # tractor: throws are free
    assert not follow(hand, throw, "3S 3S 7S 7S 8S", follow_tractor="shape_first")
    assert follow(hand, throw, "3S 3S 4S 4S 8S", follow_tractor="shape_first")
    # two tractors in the throw, the hand can cover both (a run of four pairs) or one
    throw2 = "AS AS KS KS 10S 10S 9S 9S"
    hand4 = "3S 3S 4S 4S 5S 5S 6S 6S QD"
    assert follow(hand4, throw2, "3S 3S 4S 4S 5S 5S 6S 6S", follow_tractor="shape_first")
    hand2 = "3S 3S 4S 4S 7S 7S JS JS QS QS 8S"  # tractors 4-3 and Q-J, and the 7 pair
    assert follow(hand2, throw2, "3S 3S 7S 7S JS JS QS QS")  # four pairs: enough by the standard rules
    assert not follow(hand2, throw2, "3S 3S 7S 7S JS JS QS QS", follow_tractor="shape_first")  # one tractor
    assert follow(hand2, throw2, "3S 3S 4S 4S JS JS QS QS", follow_tractor="shape_first")
    why = R.trick([throw, "3S 3S 7S 7S 8S"], H2, hands=[throw, hand, "2C", "3C"],
                  rules={"follow_tractor": "shape_first", "throw_check": "opponents_only"}, explain=True)
    assert why["legal"] == [True, False]
    assert why["explain"][-2].startswith("seat 1: illegal, must answer the throw's tractors")


def test_tractor_cover_searches_every_placement():
    # tractors of 3 and 2 pairs into runs of 4 and 2 pairs: the 3 goes in the run of 4, the 2 in the run of 2
    tt = R.table_for(H2, Rules())
    from tractor_sim.core.kernels import combos as K
    from tractor_sim.rules.cards import to_counts

    hand = to_counts(C("3S 3S 4S 4S 5S 5S 6S 6S 9S 9S 10S 10S"))
    ks = np.array([3, 2], dtype=np.int64)
    place = np.zeros(2, dtype=np.int64)
    assert K.tractor_cover(hand, tt, 0, ks, 2, place) == 5
    assert ref._tractor_cover(C("3S 3S 4S 4S 5S 5S 6S 6S 9S 9S 10S 10S"), [3, 2], REF_H2, None) == 5
    ks = np.array([3, 3, 2, 2], dtype=np.int64)  # runs 4 + 2: only one 3 fits, then a 2 in the run of 2
    assert K.tractor_cover(hand, tt, 0, ks, 4, np.zeros(4, dtype=np.int64)) == 5


def test_pair_and_joker_pair_overrides():
    pair_d = {"seat": 1, "kind": "pair", "card": "2D"}
    for hand, card, suit_order in (("2S 2S", "2S", True), ("2H 2H", "2H", True), ("2C 2C", "2C", False)):
        assert not R.declaration_allowed(hand, "pair", card, "2", pair_d, seat=0)
        assert R.declaration_allowed(hand, "pair", card, "2", pair_d, seat=0,
                                     rules={"pair_override": "suit_order"}) == suit_order
        assert ref.declare_allowed(C(hand), (1, 2, C("2D")[0]), 0, 0, {"pair_override": "suit_order"}) == (
            [(2, C(card)[0])] if suit_order else [])
    # one's own pair: only with self_override = any
    mine = {"seat": 0, "kind": "pair", "card": "2D"}
    assert not R.declaration_allowed("2S 2S 2D 2D", "pair", "2S", "2", mine, rules={"pair_override": "suit_order"})
    assert R.declaration_allowed("2S 2S 2D 2D", "pair", "2S", "2", mine,
                                 rules={"pair_override": "suit_order", "self_override": "any"})
    # jokers: RJ RJ over BJ BJ only with the option, never BJ over RJ
    bj = {"seat": 3, "kind": "joker_pair", "card": "BJ"}
    rj = {"seat": 3, "kind": "joker_pair", "card": "RJ"}
    assert not R.declaration_allowed("RJ RJ", "joker_pair", "RJ", "2", bj)
    assert R.declaration_allowed("RJ RJ", "joker_pair", "RJ", "2", bj, rules={"joker_pair_override": True})
    assert not R.declaration_allowed("BJ BJ", "joker_pair", "BJ", "2", rj, rules={"joker_pair_override": True})
    assert ref.declare_allowed(C("RJ RJ BJ BJ"), (3, 3, 52), 0, 0, {"joker_pair_override": True}) == [(3, 53)]
    assert ref.declare_allowed(C("RJ RJ BJ BJ"), (3, 3, 53), 0, 0, {"joker_pair_override": True}) == []


@pytest.mark.parametrize("mode, levels, team, points, after", [
    ("none", ["Q", "5"], 0, 0, [13, 3]),  # Q + 3 passes the Ace: the match is won
    ("ace", ["Q", "5"], 0, 0, [12, 3]),  # stops at the Ace
    ("ace", ["A", "5"], 0, 0, [15, 3]),  # on the Ace as declarers: passes it
    ("ace", ["A", "5"], 1, 200, [12, 3]),  # on the Ace, winning as opponents (+3): stays there
    ("ace", ["A", "5"], 1, 100, [12, 3]),  # opponents take over without gaining
    ("ace_5_10_k", ["3", "8"], 0, 0, [3, 6]),  # 3 + 3 would pass 5: stops at 5
    ("ace_5_10_k", ["5", "8"], 0, 0, [6, 6]),  # on 5 as declarers: 5 + 3 = 8
    ("ace_5_10_k", ["5", "8"], 1, 160, [3, 6]),  # team 0 on 5 wins as opponents (+2): stays on 5
    ("ace_5_10_k", ["8", "J"], 1, 0, [6, 11]),  # J + 3 would pass K: stops at K
])
def test_must_defend_levels(mode, levels, team, points, after):
    before = [parse_rank(x) for x in levels]
    r = R.level_change(points, {"must_defend": mode}, levels=levels, declaring_team=team)
    assert r["levels_after"] == after, r
    lc = ref.level_change(points)
    winners = team if lc["declarers_keep"] else 1 - team
    want = list(before)
    want[winners] = ref.level_after(before[winners], lc["levels"], lc["declarers_keep"], {"must_defend": mode})
    assert want == after


def test_must_defend_stops_at_5_10_k():
    # from 6 as declarers gaining 3: 9, no must-defend level between
    r = R.level_change(0, {"must_defend": "ace_5_10_k"}, levels=["6", "2"], declaring_team=0)
    assert r["levels_after"] == [7, 0] and not r["stopped"]
    # from 9 gaining 3 (p = 0): stops at 10
    r = R.level_change(0, {"must_defend": "ace_5_10_k"}, levels=["9", "2"], declaring_team=0)
    assert r["levels_after"] == [8, 0] and r["levels"] == 1 and r["stopped"]
    # opponents on K gaining 2: stay on K (they have not won it as declarers)
    r = R.level_change(170, {"must_defend": "ace_5_10_k"}, levels=["2", "K"], declaring_team=0)
    assert r["levels_after"] == [0, 11] and r["levels"] == 0 and r["winner"] == "opponents"
    r = R.level_change(170, {"must_defend": "none"}, levels=["2", "K"], declaring_team=0)
    assert r["levels_after"] == [0, 13]


def test_auction_verdicts():
    # dealer 1 bids for team 1, seat 2 for team 0; the higher wins, a tie the dealer's pair
    assert R.auction([60, 80], ["AS", "KH", "RJ", "3C"], dealer=1) == {
        "declaring_team": 0, "starter": 3, "next_dealer": 2}
    assert R.auction([80, 80], ["AS", "AH", "KD", "3C"], dealer=1)["declaring_team"] == 1
    # equal cards: the first shown; jokers above aces; suits do not matter
    assert R.auction([0, 0], ["KS", "AD", "AH", "BJ"], dealer=0)["starter"] == 3
    assert R.auction([0, 0], ["AD", "AS", "KH", "2C"], dealer=2)["starter"] == 2
    with pytest.raises(R.RefereeError, match="bids\\[1\\]: expected a multiple of 5"):
        R.auction([60, 62], ["AS", "KH", "RJ", "3C"])
    with pytest.raises(R.RefereeError, match="bids\\[0\\]"):
        R.auction([205, 0], ["AS", "KH", "RJ", "3C"])
    assert ref.auction_team({1: 60, 0: 80}, 1) == 0 and ref.show_winner({1: 12, 2: 25, 3: 53, 0: 41}, 1) == 3


# ===========================================================================
# (b) whole deals

def _register_test_strategies():
    """A lead that throws: the pairs and tractors of a suit and its highest card (many fail, some
    stand), so that the throw options and the shape_first obligation are reached in play."""
    try:
        return S.get_strategy("lead", "tv_thrower")
    except S.StrategyError:
        pass
    S.strategy("lead", "tv_thrower", description="test only: a suit's pairs and its top card")(
        getattr(_thrower, "py_func", _thrower))
    S.strategy("lead", "tv_tractor_thrower", description="test only: a tractor and its suit's top card")(
        _tractor_thrower)
    return S.get_strategy("lead", "tv_thrower")


def _tractor_thrower(view, params, rng, scratch, out):
    """My longest tractor (trumps first) with the highest other card of its suit; else _thrower."""
    tt = sl.trump_table(view)
    tops = np.zeros(16, dtype=np.int64)
    lens = np.zeros(16, dtype=np.int64)
    for k in range(5):
        s = (4 + k) % 5
        nt = sl.tractors(view[V_HAND], tt, s, tops, lens)
        if nt == 0:
            continue
        best = 0
        for i in range(nt):
            if lens[i] > lens[best]:
                best = i
        n = sl.put_unit(view, out, s, tops[best], lens[best])
        for i in range(sl.nsuit(view, s) - 1, -1, -1):
            c = view[V_SUITS + s, i]
            if view[V_HAND, c] - out[c] > 0:
                out[c] += 1
                return n + 1
        return n
    return _thrower(view, params, rng, scratch, out)


@njit(cache=True)
def _thrower(view, params, rng, scratch, out):
    e = randint(rng, 5)
    for k in range(5):
        s = (e + k) % 5
        n = 0
        top = -1
        for i in range(view[V_TTMETA, META_NCARDS + s]):
            c = view[V_SUITS + s, i]
            if view[V_HAND, c] >= 2:
                out[c] = 2
                n += 2
            if view[V_HAND, c] > 0:
                top = c
        if n >= 2 and out[top] == 0:
            out[top] = 1
            return n + 1
        if n > 0:
            return n
        if top >= 0:
            out[top] = 1
            return 1
    return 0


THROWER = {"name": "thrower", "policy": "random", "lead": "tv_thrower"}
THROWER_SMART = {"name": "thrower_smart", "policy": "basic", "lead": "tv_thrower"}
TRACTOR_THROWER = {"name": "tractor_thrower", "policy": "random", "lead": "tv_tractor_thrower"}
PAIRS_FIRST = {"name": "pairs_first", "policy": "basic", "lead": "pairs_first"}
MATCHUPS = [("basic", "random"), ("expert", "basic"), ("random", "random")]


def _name(p):
    return p if isinstance(p, str) else p.get("name") or p["policy"] + "+" + p.get("bid", "")


def play(pols, rules=None, mode="fixed", n=120, seed=1, levels=(0, 0), team=0, log=True):
    spec = ChunkSpec("-vs-".join(map(_name, pols)), tuple(pols), tuple(map(_name, pols)), 0, mode, 0, n, seed,
                     Rules.from_dict(rules or {}).to_dict(), tuple(levels), team)
    return spec, run_chunk(spec, M.LOG_ALL if log else -1)


def judged(pols, rules, **kw):
    """Play a chunk and judge every event with the reference rules; returns (spec, result, counts)."""
    _register_test_strategies()
    spec, res = play(pols, rules, **kw)
    lr = RD.LogReferee(spec.rules)
    lr.check_chunk(spec, res.deals, res.matches, res.extra["log"])
    return spec, res, lr.n


def records(res):
    return np.array([tuple(r) for r in res.deals[list(DEAL_DTYPE.names)]])


# options the log referee judges, each with the policies that reach it, the mode and levels
JUDGED = [
    ({"rank_trumps_in_no_trump": True}, ("random", "random"), "fixed", (0, 0)),
    ({"throw_check": "opponents_only"}, (THROWER, "basic"), "fixed", (3, 3)),
    ({"throw_forced_part": "lowest"}, (THROWER, "random"), "fixed", (3, 3)),
    ({"throw_forced_part": "highest"}, (THROWER, "random"), "fixed", (3, 3)),
    ({"throw_penalty": 0}, (THROWER, "random"), "fixed", (3, 3)),
    ({"kitty_multiplier": "pow2_pairs"}, (THROWER, "expert"), "fixed", (5, 5)),
    ({"kitty_multiplier": "twice_largest_unit"}, (THROWER, "expert"), "fixed", (5, 5)),
    ({"follow_tractor": "tractor"}, (PAIRS_FIRST, "random"), "fixed", (0, 0)),
    ({"follow_tractor": "shape_first"}, (TRACTOR_THROWER, "random"), "fixed", (0, 0)),
    ({"pair_override": "suit_order"}, ("random", "basic"), "fixed", (0, 0)),
    ({"joker_pair_override": True}, ("random", "random"), "match", (0, 0)),  # matters in round 1 only
    ({"match_end": "reach_ace"}, ("basic", "random"), "match", (0, 0)),
    ({"self_override": "any", "pair_override": "suit_order", "joker_pair_override": True,
      "follow_tractor": "shape_first", "throw_check": "opponents_only"}, (THROWER, "expert"), "match", (0, 0)),
]


@pytest.mark.parametrize("rules, pols, mode, levels", JUDGED, ids=[str(j[0]) for j in JUDGED])
def test_judged_variant_whole_deals(rules, pols, mode, levels):
    """Whole deals under the option, judged play by play by the reference; unless the option
    can change only a round 1 (tested below), the same seeds under the standard rules give
    other results."""
    n = (500 if "follow_tractor" in rules else 250) if mode == "fixed" else 4
    _, res, counts = judged(pols, rules, mode=mode, n=n, seed=21, levels=levels)
    assert counts["deals"] == len(res.deals) > 0 and counts["follows"] > 0
    if "joker_pair_override" in rules and len(rules) == 1:
        return
    _, std = play(pols, None, mode=mode, n=n, seed=21, levels=levels, log=False)
    a, b = records(res), records(std)
    changed = len(a) != len(b) or (a != b).any()
    assert changed, f"{rules}: no outcome changed in {len(a)} deals"


def _binding_follows(res, spec, option):
    """Follows in a chunk's log that are legal under the chunk's rules but not under ``option``."""
    n = Counter()
    orig = ref.legal_follow

    def spy(hand, lead, play, trump, rules=None):
        ok = orig(hand, lead, play, trump, rules)
        if ok and not orig(hand, lead, play, trump, dict(option)):
            n[ref.classify(lead, trump)["kind"]] += 1
        return ok

    RD.ref.legal_follow = spy
    try:
        RD.LogReferee(spec.rules).check_chunk(spec, res.deals, res.matches, res.extra["log"])
    finally:
        RD.ref.legal_follow = orig
    return n


def test_follow_tractor_binds_in_play():
    """Standard play makes follows that follow_tractor forbids; under the option none occur."""
    _register_test_strategies()
    for option, pols, kinds in (({"follow_tractor": "tractor"}, (PAIRS_FIRST, "random"), ("tractor",)),
                                ({"follow_tractor": "shape_first"}, (TRACTOR_THROWER, "random"), ("throw",))):
        spec, std = play(pols, None, n=600, seed=5)  # a seed whose deals reach both (rare) cases
        forbidden = _binding_follows(std, spec, option)
        for kind in kinds:
            assert forbidden[kind] > 0, (option, forbidden)
        spec, res = play(pols, option, n=600, seed=4)
        assert sum(_binding_follows(res, spec, option).values()) == 0


def _declarations(res):
    for events in RD.decode_log(res.extra["log"]):
        yield [(e[1], e[2], e[3]) for e in events if e[0] == D.LOG_DECLARE], events


def test_overrides_happen_in_round_1_and_decide_the_declarers():
    """Pair over pair and RJ pair over BJ pair occur in play, never without the options, and
    in round 1 the overriding player is the starter and his team declares."""
    for option, test in (({"pair_override": "suit_order"}, lambda a, b: a[1] == b[1] == 2),
                         ({"joker_pair_override": True}, lambda a, b: a[1] == b[1] == 3)):
        seen = round1 = 0
        for seed in range(40):
            spec, res = play(("random", "random"), option, mode="match", n=3, seed=seed)
            for (decl, events), rec in zip(_declarations(res), res.deals):
                for a, b in zip(decl, decl[1:]):
                    if test(a, b):
                        seen += 1
                        if rec["deal_in_match"] == 0 and b == decl[-1]:
                            assert rec["declaring_team"] == b[0] % 2 and rec["starter"] == b[0]
                            round1 += 1
            if round1 >= 2:
                break
            _, std = play(("random", "random"), None, mode="match", n=3, seed=seed)
            assert not any(test(a, b) for decl, _ in _declarations(std) for a, b in zip(decl, decl[1:]))
        assert seen > 0 and round1 > 0, (option, seen, round1)


# ---------------------------------------------------------------------------
# must-defend levels: the deal and match records against the reference


def _check_levels(res, rules):
    """Every deal's levels after it from the reference's level table and level_after; the match
    bookkeeping too.  Returns how many gains a must-defend level stopped."""
    stopped = 0
    deals = res.deals
    for rec in deals:
        p = int(rec["opp_points"])
        lc = ref.level_change(p)
        keep = lc["declarers_keep"]
        team = int(rec["declaring_team"]) if keep else 1 - int(rec["declaring_team"])
        before = [int(rec["level0_before"]), int(rec["level1_before"])]
        after = list(before)
        after[team] = ref.level_after(before[team], lc["levels"], keep, rules)
        assert [int(rec["level0_after"]), int(rec["level1_after"])] == after, rec
        assert int(rec["gain"]) == after[team] - before[team]
        assert int(rec["gain_team"]) == (team if after[team] > before[team] else -1)
        stopped += after[team] - before[team] < lc["levels"]
    for m in res.matches:
        rows = deals[deals["match_id"] == m["match_id"]]
        levels = [0, 0]
        for rec in rows:
            assert [int(rec["level0_before"]), int(rec["level1_before"])] == levels
            levels = [int(rec["level0_after"]), int(rec["level1_after"])]
        assert ref.match_winner(levels, rules) == int(m["winner"])
        assert all(ref.match_winner([int(r["level0_after"]), int(r["level1_after"])], rules) is None
                   for r in rows[:-1])
    return stopped


@pytest.mark.parametrize("mode", ["ace", "ace_5_10_k"])
def test_must_defend_in_matches(mode):
    rules = {"must_defend": mode}
    spec, res = play(("basic", "random"), rules, mode="match", n=12, seed=8, log=False)
    assert _check_levels(res, rules) > 0
    spec, std = play(("basic", "random"), None, mode="match", n=12, seed=8, log=False)
    assert _check_levels(std, None) == 0
    assert len(res.deals) > len(std.deals)  # matches last longer
    # fixed levels, the declarers on the Ace, the opponents on the K: the opponents stop at the Ace
    # (ace) or stay on the K (ace_5_10_k)
    spec, res = play(("random", "basic"), rules, n=200, seed=8, levels=(12, 11), log=False)
    assert _check_levels(res, rules) > 0
    assert ((res.deals["level1_after"] <= 12)).all()


# ---------------------------------------------------------------------------
# the auction: the bids, the shown cards and the whole deal against the reference


def _dealer(spec, d, i, prev):
    """The dealer of deal i (fixed) or deal d of a match (prev: the previous dealer)."""
    st = np.zeros(1, dtype=np.uint64)
    if spec.mode == "fixed":
        st[0] = stream_key(np.uint64(spec.seed), np.int64(spec.first_id + i), np.int64(0), np.int64(D.P_STARTER))
        return int(randint(st, np.int64(4)))
    if d == 0:
        st[0] = stream_key(np.uint64(spec.seed), np.int64(i), np.int64(0), np.int64(D.P_FIRST))
        return int(randint(st, np.int64(4)))
    return ref.next_dealer(prev)


def judge_auction_deal(events, rec, levels, dealer, rules, n):
    """One auction deal's events judged with the reference rules: draw, bids, shown cards,
    trump, burial, every trick and the record."""
    it = iter(events)
    ev = next(it)
    assert ev[0] == D.LOG_START
    hands = np.zeros((4, 54), dtype=np.int64)
    for k in range(100):
        ev = next(it)
        assert ev[0] == D.LOG_DRAW and ev[1] == (dealer + k) % 4, (k, ev[:4])
        hands[ev[1], ev[2]] += 1
    bids = {}
    for i in range(2):
        ev = next(it)
        assert ev[0] == D.LOG_BID and ev[1] == (dealer + i) % 4 and ref.bid_ok(ev[2]), ev[:4]
        bids[ev[1] % 2] = ev[2]
    decl_team = ref.auction_team(bids, dealer)
    shown = {}
    for i in range(4):
        ev = next(it)
        seat = (dealer + i) % 4
        assert ev[0] == D.LOG_SHOW and ev[1] == seat and hands[seat, ev[2]] > 0, ev[:4]
        shown[seat] = ev[2]
    starter = ref.show_winner(shown, dealer)
    ev = next(it)
    assert ev[0] == D.LOG_TRUMP and ev[1] == starter and 0 <= ev[2] <= 3 and ev[3] == D.SRC_NAMED, ev[:4]
    trump = (levels[decl_team], ev[2])
    for s in range(4):
        ev = next(it)
        assert ev[0] == D.LOG_HAND and np.array_equal(np.array(ev[4]), hands[s])
    ev = next(it)
    assert ev[0] == D.LOG_KITTY and ev[1] == starter
    hands[starter] += RD.counts_of(ev[4])
    ev = next(it)
    bury = np.array(ev[4])
    assert ev[0] == D.LOG_BURY and ev[1] == starter and bury.sum() == 8 and (bury <= hands[starter]).all()
    hands[starter] -= bury
    leader, t, trick_total, penalty, lead, winner = starter, 0, 0, 0, [], starter
    declarers = (decl_team, decl_team + 2)
    while hands[0].sum() > 0:
        ev = next(it)
        assert ev[0] == D.LOG_LEAD and ev[1] == leader and ev[2] == t
        lead = RD.cards_of(np.array(ev[4]))
        ev = next(it)
        if ref.classify(lead, trump, rules)["kind"] == "throw":
            res = ref.check_throw(lead, [RD.cards_of(h) for h in hands], leader, declarers, trump, rules)
            assert (ev[0] == D.LOG_FAILED_THROW) == (not res["ok"])
            if not res["ok"]:
                assert (ev[2], ev[3]) == (res["blocked_by"], res["penalty"])
                lead = sorted(res["forced"])
                penalty += res["penalty"]
                ev = next(it)
        hands[leader] -= RD.counts_of(lead)
        plays = [lead]
        for i in range(1, 4):
            seat = (leader + i) % 4
            assert ev[0] == D.LOG_FOLLOW and ev[1] == seat
            p = RD.cards_of(np.array(ev[4]))
            assert ref.legal_follow(RD.cards_of(hands[seat]), lead, p, trump, rules), (seat, p, lead)
            hands[seat] -= np.array(ev[4])
            plays.append(p)
            n["follows"] += 1
            ev = next(it)
        winner = ref.trick_winner(plays, leader, trump, rules)
        assert ev[0] == D.LOG_TRICK and ev[1] == winner and ev[3] == ref.trick_points(plays)
        if winner % 2 != decl_team:
            trick_total += ev[3]
        leader = winner
        t += 1
    bonus = ref.kitty_bonus(RD.cards_of(bury), lead, trump, rules) if winner % 2 != decl_team else 0
    p = trick_total + bonus + penalty
    lc = ref.level_change(p)
    team = decl_team if lc["declarers_keep"] else 1 - decl_team
    after = list(levels)
    after[team] = ref.level_after(levels[team], lc["levels"], lc["declarers_keep"], rules)
    want = {"starter": starter, "declaring_team": decl_team, "trump_rank": trump[0], "trump_suit": trump[1],
            "trump_source": D.SRC_NAMED, "redeals": 0, "opp_points": p, "kitty_bonus": bonus,
            "level0_after": after[0], "level1_after": after[1]}
    for k, v in want.items():
        assert int(rec[k]) == v, (k, int(rec[k]), v)
    n["deals"] += 1
    n[f"bids tie" if bids[0] == bids[1] else "bids differ"] += 1
    n["starter from the other team" if starter % 2 != decl_team else "starter a declarer"] += 1
    return after


def judge_auction_chunk(spec, res):
    rules = spec.rules
    n = Counter()
    logs = RD.decode_log(res.extra["log"])
    assert len(logs) == len(res.deals)
    if spec.mode == "fixed":
        for i, (events, rec) in enumerate(zip(logs, res.deals)):
            judge_auction_deal(events, rec, list(spec.levels), _dealer(spec, 0, i, None), rules, n)
        return n
    pos = 0
    for mi, m in enumerate(res.matches):
        levels, dealer = [0, 0], None
        for d in range(int(m["deals"])):
            dealer = _dealer(spec, d, mi, dealer)
            levels = judge_auction_deal(logs[pos], res.deals[pos], levels, dealer, rules, n)
            pos += 1
        assert ref.match_winner(levels, rules) == int(m["winner"])
    return n


@pytest.mark.parametrize("pols, mode, rules", [
    (("basic", "random"), "fixed", {"declaring": "auction"}),
    (({"policy": "expert", "bid": "max"}, {"policy": "basic", "bid": "random"}), "fixed",
     {"declaring": "auction", "follow_tractor": "shape_first"}),
    (("basic", {"policy": "random", "bid": "max"}), "match", {"preset": "russian"}),
    ((THROWER, "expert"), "match", {"declaring": "auction", "must_defend": "ace"}),
])
def test_auction_whole_deals(pols, mode, rules):
    _register_test_strategies()
    spec, res = play(pols, rules, mode=mode, n=80 if mode == "fixed" else 3, seed=17, levels=(4, 9))
    n = judge_auction_chunk(spec, res)
    assert n["deals"] == len(res.deals) > 0
    assert n["starter from the other team"] > 0 and n["starter a declarer"] > 0
    if mode == "fixed":  # both teams declare, at their own level
        assert set(res.deals["declaring_team"]) == {0, 1}
        assert set(res.deals["trump_rank"]) == {4, 9}


def test_auction_bids_decide_the_declarers():
    """A pair that always bids the maximum declares whenever it deals or the other pair bids less."""
    spec, res = play(({"policy": "basic", "bid": "max"}, "basic"), {"declaring": "auction"}, n=200, seed=2)
    n = judge_auction_chunk(spec, res)
    assert (res.deals["declaring_team"] == 0).mean() > 0.5
    spec, std = play(("basic", "basic"), {"declaring": "auction"}, n=200, seed=2)
    assert (std.deals["declaring_team"] == 0).mean() < (res.deals["declaring_team"] == 0).mean()
    assert n["deals"] == 200


# ---------------------------------------------------------------------------
# every built-in strategy plays by the variants' rules


PLAY_RULES = [{"follow_tractor": "tractor"}, {"follow_tractor": "shape_first"},
              {"pair_override": "suit_order", "joker_pair_override": True, "self_override": "any"},
              {"declaring": "auction"}, {"must_defend": "ace_5_10_k", "rank_trumps_in_no_trump": True}]


@pytest.mark.parametrize("rules", PLAY_RULES, ids=[str(r) for r in PLAY_RULES])
def test_every_strategy_plays_under_the_variants(rules):
    """Each built-in strategy, in turn put into the basic policy, plays deals and a match under
    the variant without an illegal answer (the engine stops on one)."""
    S.load_builtins()
    _register_test_strategies()
    matchups = [{"name": "tv-base", "a": THROWER_SMART, "b": "expert"}]
    for decision, name, _, _ in S.list_strategies():
        info = S.get_strategy(decision, name)
        if info.module.startswith("tractor_sim.core.strategies."):
            matchups.append({"name": f"{decision}-{name}", "a": {"policy": "basic", decision: name}, "b": "random"})
    deals, matches = runner.simulate(matchups, n=25, seed=9, rules=rules)
    assert len(deals) == 2 * 25 * len(matchups)
    deals, matches = runner.simulate(matchups[:4], mode="match", n=1, seed=9, rules=rules)
    assert len(matches) == 2 * 4


# ===========================================================================
# (c) the standard preset is unchanged


def _digest(df, names):
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode())
        h.update(np.ascontiguousarray(df[name].to_numpy().astype(np.int64)).tobytes())
    return h.hexdigest()[:16]


PINNED = [n for n in DEAL_DTYPE.names if n not in ("dealer", "bid0", "bid1")]  # the columns of then


def test_standard_results_are_unchanged():
    """Digests of fixed-seed runs, pinned when the random streams became SipHash-keyed (every result
    changed then; the digests before it were recorded with the code before the variants)."""
    d, _ = runner.simulate([("basic", "random"), ("expert", "basic")], n=500, seed=1)
    assert _digest(d, PINNED) == "87d0867422ce32d1"
    assert _digest(d, DEAL_DTYPE.names) == "39ee7250488fe5c5"
    d, m = runner.simulate([("basic", "random"), ("expert", "basic")], mode="match", n=60, seed=7)
    assert _digest(d, PINNED) == "c5b99ae32f5d8179"
    assert _digest(m, MATCH_DTYPE.names) == "c79e72e713824a04"
    d, _ = runner.simulate([("expert", "random"), ("random", "random")], n=300, seed=3, levels=(5, 9),
                           declaring_team=1)
    assert _digest(d, PINNED) == "2854669a7e552fa6"


@pytest.mark.parametrize("rules, deals, matches", [
    ("russian", "dc9e2150235018ea", "3ef0fc6f87387e25"),
    ({"follow_tractor": "shape_first", "kitty_multiplier": "pow2_pairs", "must_defend": "ace_5_10_k",
      "throw_check": "opponents_only"}, "5a8c589123240bc9", "fd8ac2c78795feb9"),
    ({"rank_trumps_in_no_trump": True, "self_override": "any", "pair_override": "suit_order",
      "joker_pair_override": True, "throw_forced_part": "highest"}, "d68d0fcce218c8fb", "18a422ed2773286d"),
])
def test_variant_results_are_unchanged(rules, deals, matches):
    """Whole matches under the variants, pinned like the standard ones: a redesign of the kernels must
    keep every record of every rule option."""
    d, m = runner.simulate([("expert", "random"), ("basic", "expert")], mode="match", n=20, seed=11, rules=rules)
    assert _digest(d, DEAL_DTYPE.names) == deals
    assert _digest(m, MATCH_DTYPE.names) == matches


# ===========================================================================
# the command line: rules listed, usable in experiment files and in judge


def test_cli_lists_the_variants_and_uses_them(tmp_path):
    import json

    from click.testing import CliRunner

    from tractor_sim.cli import main

    r = CliRunner().invoke(main, ["rules"], catch_exceptions=False)
    for text in ("follow_tractor", "shape_first", "pair_override", "suit_order", "joker_pair_override",
                 "must_defend", "ace_5_10_k", "declaring", "auction", "russian: match_end = 'reach_ace', "
                 "declaring = 'auction'"):
        assert text in r.output, text
    trick = {"trump": {"rank": "2", "suit": "H"}, "rules": {"follow_tractor": "tractor"},
             "hands": ["KS KS QS QS", "3S 3S 4S 4S 9S 9S", "5D", "6D"], "plays": ["KS KS QS QS", "3S 3S 9S 9S"]}
    r = CliRunner().invoke(main, ["judge", "-", "--explain"], input=json.dumps(trick), catch_exceptions=False)
    out = json.loads(r.output)
    assert out["legal"] == [True, False] and "holds a tractor of spades" in out["explain"][0]
    trick["rules"] = {"follow_tractor": "sideways"}
    r = CliRunner().invoke(main, ["judge", "-"], input=json.dumps(trick))
    assert r.exit_code == 2 and "follow_tractor" in r.output and "shape_first" in r.output
    exp = tmp_path / "variants.toml"
    exp.write_text("""
name = "variants"
seed = 3
mode = "match"
count = 2
chunk_size = 2

[rules]
preset = "russian"
follow_tractor = "shape_first"
must_defend = "ace"

[[matchup]]
a = { policy = "basic", bid = "max" }
b = "expert"
""")
    r = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "run"), "--quiet"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["experiment"]["rules"] == {"preset": "russian", "follow_tractor": "shape_first",
                                                "must_defend": "ace"}
    import pandas as pd

    deals = pd.read_parquet(tmp_path / "run" / "deals.parquet")
    assert (deals["trump_source"] == D.SRC_NAMED).all()  # the auction named every trump
