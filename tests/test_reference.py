"""Hand-built situations from RULES.md and docs/decisions.md that pin down
the pure-Python reference (tests/reference.py).

The cases a rule shares with the kernels are stated once, in tests/test_rules.py, and
checked there against both; this file keeps what only the reference answers."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tractor_sim.rules.cards import BJ, parse_card, parse_cards, parse_rank, parse_suit

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref


def C(s):
    return parse_cards(s)


def c(s):
    return parse_card(s)


def T(rank, suit):
    return (parse_rank(rank), parse_suit(suit))


H2 = T("2", "H")  # rank 2, hearts trump
C7 = T("7", "C")  # rank 7, clubs trump
NT2 = T("2", None)  # rank 2, no trump suit
NT7 = T("7", None)
VAR = {"rank_trumps_in_no_trump": True}


def positions(cards, trump, rules=None):
    return [ref.position(x, trump, rules) for x in C(cards)]


# ---------------------------------------------------------------------------
# Card order and effective suits


def test_order_rank2_hearts_example():
    order = "RJ BJ 2H 2S 2D 2C AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H"
    pos = positions(order, H2)
    steps = [a - b for a, b in zip(pos, pos[1:])]
    # strictly one step down each time except the three equal off-suit 2s
    assert steps == [1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert all(ref.effective_suit(x, H2) == 4 for x in C(order))
    assert pos == [15, 14, 13, 12, 12, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]


def test_order_rank2_hearts_plain_suits():
    pos = positions("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S", H2)
    assert pos == list(range(11, -1, -1))
    assert [ref.effective_suit(x, H2) for x in C("AS KD 3C 2S 2C 2D")] == [0, 2, 3, 4, 4, 4]


def test_order_rank7_clubs():
    trumps = "RJ BJ 7C 7S 7H 7D AC KC QC JC 10C 9C 8C 6C 5C 4C 3C 2C"
    pos = positions(trumps, C7)
    steps = [a - b for a, b in zip(pos, pos[1:])]
    assert steps == [1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert all(ref.effective_suit(x, C7) == 4 for x in C(trumps))
    # plain diamonds: 8D and 6D one step apart, 7D is a trump
    pos_d = positions("AD KD QD JD 10D 9D 8D 6D 5D 4D 3D 2D", C7)
    assert [a - b for a, b in zip(pos_d, pos_d[1:])] == [1] * 11
    assert ref.effective_suit(c("6D"), C7) == 2
    assert ref.effective_suit(c("7D"), C7) == 4
    assert ref.position(c("7D"), C7) > ref.position(c("AC"), C7)


def test_no_trump_order_default():
    # only jokers are trumps; rank cards stay in their suits at their place
    assert [ref.effective_suit(x, NT2) for x in C("BJ RJ 2H 2S AS 3C")] == [4, 4, 1, 0, 0, 3]
    assert ref.position(c("RJ"), NT2) == ref.position(c("BJ"), NT2) + 1
    pos = positions("AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", NT2)
    assert [a - b for a, b in zip(pos, pos[1:])] == [1] * 12
    pos7 = positions("8C 7C 6C", NT7)
    assert pos7[0] - pos7[1] == 1 and pos7[1] - pos7[2] == 1


def test_no_trump_order_variant():
    assert [ref.effective_suit(x, NT2, VAR) for x in C("BJ RJ 2H 2S AS 3C")] == [4, 4, 4, 4, 0, 3]
    p = positions("RJ BJ 2H 2S 2D 2C", NT2, VAR)
    assert [a - b for a, b in zip(p, p[1:])] == [1, 1, 0, 0, 0]
    p7 = positions("8C 6C", NT7, VAR)
    assert p7[0] - p7[1] == 1
    assert ref.effective_suit(c("7C"), NT7, VAR) == 4


# ---------------------------------------------------------------------------
# Decomposition and lead kinds


# The classification and decomposition cases are tests/test_rules.py's (CLASSIFIED), checked against the
# reference there; the fields only the reference's units have are checked here.


def test_the_units_pairs_and_top():
    assert ref.classify(C("6C 6C 8C 8C"), C7)["units"][0]["pairs"] == 2
    info = ref.classify(C("AH AH 2S 2S 2H 2H BJ BJ"), H2)
    assert info["units"][0]["pairs"] == 4
    assert info["units"][0]["top"] == ref.position(BJ, H2)
    assert [u["pairs"] for u in ref.classify(C("2S 2S 2D 2D"), H2)["units"]] == [1, 1]
    u = ref.classify(C("AS AS"), H2)["units"][0]
    assert u == {"type": "pair", "cards": C("AS AS"), "top": 11, "pairs": 2 // 2}
    u = ref.classify(C("3S"), H2)["units"][0]
    assert u == {"type": "single", "cards": C("3S"), "top": 0, "pairs": 0}


def test_decompose_errors():
    with pytest.raises(ValueError):
        ref.decompose([], H2)
    with pytest.raises(ValueError):
        ref.decompose(C("AS AH"), H2)


# ---------------------------------------------------------------------------
# Throws

EMPTY = [[], [], [], []]


def hands(**seats):
    h = [[], [], [], []]
    for k, v in seats.items():
        h[int(k[1:])] = C(v)
    return h


# The throw cases are tests/test_rules.py's (THROWS), checked against the reference there; what only the
# reference is shown stays here.


def test_throw_blocked_by_first_seat_in_order():
    """Hands no deal holds (four KS): the reference's order of seats alone (THROWS has the legal case)."""
    lead = C("AS QS QS")
    # leader 2: order 3, 0, 1; both 0 and 1 can beat the pair
    r = ref.check_throw(lead, hands(s0="KS KS", s1="KS KS", s3="3D"), 2, (0, 2), H2)
    assert r == {"ok": False, "blocked_by": 0, "forced": C("QS QS"), "penalty": 10}


def test_non_throw_leads_are_ok():
    for lead in ("3S", "3S 3S", "3S 3S 4S 4S"):
        r = ref.check_throw(C(lead), hands(s1="AS AS KS KS QS QS"), 0, (0, 2), H2)
        assert r == {"ok": True, "blocked_by": None, "forced": [], "penalty": 0}


# ---------------------------------------------------------------------------
# Following and trick winners: the cases are tests/test_rules.py's (FOLLOWS, WINNERS), checked against
# the reference there.


def test_trick_points():
    assert ref.trick_points([C("5S KD"), C("10H 3C"), C("BJ 5C"), C("2S 4S")]) == 30
    assert ref.trick_points([C("KS KS 10S 10S 5S 5S")]) == 50
    assert ref.trick_points([]) == 0


# ---------------------------------------------------------------------------
# Kitty, level table, match: their cases are tests/test_rules.py's, checked against the reference
# there too; what only the reference answers stays here.


def test_match_winner_when_both_pass_the_ace():
    # both past the Ace (unreachable in a match): the higher level, team 0 on a tie
    assert ref.match_winner([13, 14]) == 1
    assert ref.match_winner([14, 14]) == 0


# Declaring: the cases are tests/test_rules.py's (DECLARATIONS), checked against the reference there.


# ---------------------------------------------------------------------------
# Options and invariants


def test_bad_options_rejected():
    with pytest.raises(ValueError):
        ref.check_throw(C("AS KS"), EMPTY, 0, (0, 2), H2, {"throw_check": "nobody"})
    with pytest.raises(ValueError):
        ref.legal_follow(C("3S"), C("AS"), C("3S"), H2, {"follow_tractor": True})
    with pytest.raises(ValueError):
        ref.declare_allowed(C("2S"), None, 0, 0, {"self_override": "never"})


TRUMPS = [(r, s) for r in range(13) for s in range(5)]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(TRUMPS),
    st.booleans(),
    st.lists(st.integers(0, 53), min_size=1, max_size=30),
    st.integers(0, 4),
)
def test_decompose_partitions_one_suit(trump, variant, raw, want_suit):
    rules = {"rank_trumps_in_no_trump": variant}
    counts = Counter(raw)
    cards = [x for x in counts for _ in range(min(2, counts[x])) if ref.effective_suit(x, trump, rules) == want_suit]
    if not cards:
        return
    units = ref.decompose(cards, trump, rules)
    assert Counter(x for u in units for x in u["cards"]) == Counter(cards)
    kinds = [u["type"] for u in units]
    assert kinds == sorted(kinds, key=["tractor", "pair", "single"].index)
    for u in units:
        pos = [ref.position(x, trump, rules) for x in u["cards"]]
        assert u["top"] == pos[0] == max(pos)
        if u["type"] == "pair":
            assert len(set(u["cards"])) == 1 and len(u["cards"]) == 2
        if u["type"] == "tractor":
            tops = pos[::2]
            assert [a - b for a, b in zip(tops, tops[1:])] == [1] * (u["pairs"] - 1)
            assert u["pairs"] >= 2
    # no two remaining pairs are consecutive, no remaining single is part of a pair
    pair_tops = [u["top"] for u in units if u["type"] == "pair"]
    assert not any(a - b == 1 for a in pair_tops for b in pair_tops)
    singles = [u["cards"][0] for u in units if u["type"] == "single"]
    assert len(singles) == len(set(singles))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TRUMPS), st.booleans())
def test_positions_dense(trump, variant):
    rules = {"rank_trumps_in_no_trump": variant}
    for s in range(5):
        pos = sorted({ref.position(x, trump, rules) for x in range(54) if ref.effective_suit(x, trump, rules) == s})
        if pos:
            assert pos == list(range(pos[0], pos[0] + len(pos)))
