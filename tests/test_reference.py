"""Hand-built situations from docs/rules.md and docs/decisions.md that pin down
the pure-Python reference (tests/reference.py).

The cases a rule shares with the kernels are stated once, in tests/test_rules.py, and
checked there against both; this file keeps what only the reference answers."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tractor_sim.rules.cards import BJ, parse_cards, parse_rank, parse_suit

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref


def C(s):
    return parse_cards(s)


def T(rank, suit):
    return (parse_rank(rank), parse_suit(suit))


H2 = T("2", "H")  # rank 2, hearts trump
C7 = T("7", "C")  # rank 7, clubs trump


def positions(cards, trump, rules=None):
    return [ref.position(x, trump, rules) for x in C(cards)]


# ---------------------------------------------------------------------------
# Card order and effective suits


# The order cases are tests/test_rules.py's (ORDERS), checked against the reference there; the numbers
# are the reference's own (its docstring).


def test_the_reference_numbers_its_positions():
    order = "RJ BJ 2H 2S 2D 2C AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H"
    assert positions(order, H2) == [15, 14, 13, 12, 12, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert positions("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S", H2) == list(range(11, -1, -1))


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
