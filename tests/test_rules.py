"""Hand-built situations for every rule of docs/rules.md sections 1-7.

Through the public referee (``tractor_sim.play.referee``: classify, legal_follow,
trick, kitty_bonus, level_change) and, where the referee does not reach, the
kernels directly (trump_table, can_declare, kitty_flip_suit, match_winner,
next_starter, level_change).  Every expected value is worked out by hand from
docs/rules.md and docs/decisions.md.

A rule's cases are stated once: where the pure-Python reference (tests/reference.py)
answers the same question, the same table is checked against it too (``impl``:
IMPLS), so the reference and the kernels cannot drift apart on a case only one of
them was shown.  tests/test_reference.py keeps what only the reference answers.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from tractor_sim.play import referee as R
from tractor_sim.rules.cards import (
    BJ,
    RANKS,
    RJ,
    CardError,
    card_str,
    full_deck,
    parse_card,
    parse_cards,
    parse_rank,
    parse_suit,
    points,
    to_counts,
)
from tractor_sim.core.kernels import combos as K
from tractor_sim.core.kernels import declare as D
from tractor_sim.core.kernels import scoring as S
from tractor_sim.core.kernels.order import TRUMP, TT_EFF, TT_POS, trump_table
from tractor_sim.play.referee import RefereeError
from tractor_sim.rules.options import Rules, RulesError, as_rules

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

H2 = {"rank": "2", "suit": "H"}  # rank 2, hearts trump (the docs/rules.md example)
S7 = {"rank": "7", "suit": "S"}  # rank 7, spades trump
NT2 = {"rank": "2", "suit": None}  # a joker pair was declared
NT7 = {"rank": "7", "suit": None}
C7 = {"rank": "7", "suit": "C"}  # rank 7, clubs trump
RTNT = {"rank_trumps_in_no_trump": True}


IMPLS = ("reference", "kernels")  # what a shared case table is checked against


def ref_trump(trump):
    """A trump as the referee takes it ({"rank": "2", "suit": "H"}) as the reference takes it: (rank, suit)."""
    return parse_rank(trump["rank"]), parse_suit(trump["suit"])


def U(*groups):
    """Expected units: each group a space-separated card string."""
    return [g.split() for g in groups]


def win(plays, trump=H2, leader=0, rules=None):
    return R.trick(plays, trump, leader=leader, rules=rules)["winner"]


def follow(hand, lead, play, trump=H2, rules=None):
    return R.legal_follow(hand, lead, play, trump, rules)


def positions(cards, trump, rules=None):
    rank, suit = R.parse_trump(trump)
    tt = trump_table(rank, suit, int(as_rules(rules).rank_trumps_in_no_trump))
    return [int(tt[TT_EFF, c]) for c in parse_cards(cards)], [int(tt[TT_POS, c]) for c in parse_cards(cards)]


def steps(pos):
    return [a - b for a, b in zip(pos, pos[1:])]


# ===========================================================================
# 1. Cards and deal


def test_two_decks_and_four_jokers():
    deck = full_deck(2)
    assert len(deck) == 108
    counts = Counter(int(c) for c in deck)
    assert len(counts) == 54 and set(counts.values()) == {2}
    assert counts[BJ] == 2 and counts[RJ] == 2


def test_card_points_and_200_per_deck():
    for c in range(54):
        want = {"K": 10, "10": 10, "5": 5}.get(card_str(c)[:-1], 0) if c < BJ else 0
        assert points([c]) == want, card_str(c)
        assert S.card_points(to_counts([c])) == want, card_str(c)
    assert S.card_points(to_counts(full_deck(2))) == 200
    assert points(full_deck(2)) == 200
    assert R.trick(["5S", "KS", "10S", "3S"], H2)["points"] == 25
    assert R.trick(["KD KD", "10H 10H", "5C 5C", "BJ RJ"], H2)["points"] == 50


# ---------------------------------------------------------------------------
# Notation and its errors


def test_card_notation():
    assert parse_cards("AS 10H TH bj rj 2C QD") == [12, 21, 21, BJ, RJ, 39, 36]
    assert parse_cards(["ks", " 5d "]) == [11, 29]
    assert parse_cards("AS,KS") == [12, 11]
    assert [parse_card(card_str(c)) for c in range(54)] == list(range(54))
    assert parse_rank("t") == 8 and parse_rank("A") == 12
    assert parse_suit("c") == 3 and parse_suit(None) == 4 and parse_suit("NT") == 4


@pytest.mark.parametrize("bad", ["1S", "XX", "AX", "10", "S", "", "AS7", "11S", "B J", "RR"])
def test_parser_error_names_the_token(bad):
    with pytest.raises(CardError, match=re.escape(repr(bad))):
        parse_card(bad)


def test_parser_errors_in_context():
    with pytest.raises(CardError, match=re.escape("'1S'")):
        parse_cards("AS 1S KH")
    with pytest.raises(CardError, match="bad card 5"):
        parse_card(5)
    with pytest.raises(CardError, match="bad rank '1'"):
        parse_rank("1")
    with pytest.raises(CardError, match="bad suit 'X'"):
        parse_suit("X")
    with pytest.raises(CardError, match="card AS appears more than 2 times"):
        to_counts(parse_cards("AS AS AS"))
    # the referee names the field as well as the token
    with pytest.raises(RefereeError, match=re.escape("cards: bad card 'QQ'")):
        R.classify("AS QQ", H2)
    with pytest.raises(RefereeError, match=re.escape("plays[1]: bad card 'ZZ'")):
        R.trick(["AS", "ZZ"], H2)
    with pytest.raises(RefereeError, match=re.escape("hands[2]: bad card '1D'")):
        R.trick(["AS"], H2, hands=["AS", "KS", "1D", "QS"])
    with pytest.raises(RefereeError, match=re.escape("trump: bad rank '1'")):
        R.classify("AS", {"rank": "1", "suit": "H"})
    with pytest.raises(RefereeError, match=re.escape("trump: bad suit 'X'")):
        R.classify("AS", {"rank": "2", "suit": "X"})
    with pytest.raises(RefereeError, match="trump: expected"):
        R.classify("AS", {"suit": "H"})
    with pytest.raises(RefereeError, match=re.escape("hand: card 3S appears more than 2 times")):
        R.legal_follow("3S 3S 3S", "AS", "3S", H2)
    with pytest.raises(RefereeError, match=re.escape("plays[1]: seat 1 plays KS, which is not in hands[1]")):
        R.trick(["AS", "KS"], H2, hands=["AS", "QS", "JS", "10S"])
    with pytest.raises(RefereeError, match="hands: card AS is held more than twice in all"):
        R.trick(["AS"], H2, hands=["AS AS", "AS", "JS", "10S"])


# ---------------------------------------------------------------------------
# Rule options and their errors


def test_rules_defaults_and_presets():
    r = Rules()
    assert r == as_rules(None) == as_rules("standard") == as_rules({})
    assert r.throw_check == "all_others" and r.throw_forced_part == "fewest_then_lowest"
    assert r.throw_penalty == 10 and r.kitty_multiplier == "twice_lead_size" and r.match_end == "pass_ace"
    assert as_rules("russian").match_end == "reach_ace" and as_rules("russian").declaring == "auction"
    assert as_rules({"preset": "russian", "throw_penalty": 20}) == Rules(match_end="reach_ace", declaring="auction",
                                                                         throw_penalty=20)
    assert list(r.encode()) == [0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    assert list(Rules(rank_trumps_in_no_trump=True, throw_check="opponents_only", throw_forced_part="highest",
                      throw_penalty=7, kitty_multiplier="twice_largest_unit", match_end="reach_ace",
                      self_override="any", follow_tractor="shape_first", pair_override="suit_order",
                      joker_pair_override=True, must_defend="ace_5_10_k", declaring="auction").encode()) == [
        1, 1, 2, 7, 2, 1, 1, 0, 2, 1, 1, 2, 1]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Rules.from_dict({"throw_chek": "all_others"}),
         "unknown rule option 'throw_chek' (did you mean 'throw_check'?)"),
        (lambda: Rules.from_dict({"kitty_multipler": "pow2_pairs"}),
         "unknown rule option 'kitty_multipler' (did you mean 'kitty_multiplier'?)"),
        (lambda: Rules.from_dict({}, preset="standart"),
         "unknown rules preset 'standart' (did you mean 'standard'?)"),
        (lambda: Rules(throw_check="opponent_only"),
         "rule option 'throw_check': bad value 'opponent_only'; expected one of all_others, opponents_only "
         "(did you mean 'opponents_only'?)"),
        (lambda: Rules.from_dict({"kitty_multiplier": "pow2_pair"}),
         "rule option 'kitty_multiplier': bad value 'pow2_pair'; expected one of twice_lead_size, pow2_pairs, "
         "twice_largest_unit (did you mean 'pow2_pairs'?)"),
        (lambda: Rules(match_end="reach_the_ace"),
         "rule option 'match_end': bad value 'reach_the_ace'; expected one of pass_ace, reach_ace "
         "(did you mean 'reach_ace'?)"),
        (lambda: Rules(self_override="never"),
         "rule option 'self_override': bad value 'never'; expected one of strengthen_only, any"),
        (lambda: Rules(throw_penalty=-1),
         "rule option 'throw_penalty': -1 is too small; the smallest allowed value is 0"),
        (lambda: Rules(throw_penalty=True),
         "rule option 'throw_penalty': expected a whole number from 0 to 100, got True"),
        (lambda: Rules(throw_penalty=10**30), "rule option 'throw_penalty': 1000000000000000000000000000000 is too "
                                               "large; the largest allowed value is 100 (a deal's penalties are stored in 16 "
                                               "bits: 100 points x 216 cards at most)"),
        (lambda: Rules(follow_tractor="yes"),
         "rule option 'follow_tractor': bad value 'yes'; expected one of none, tractor, shape_first"),
        (lambda: Rules(joker_pair_override="yes"),
         "rule option 'joker_pair_override': expected true or false, got 'yes'"),
        (lambda: Rules(must_defend="aces"),
         "rule option 'must_defend': bad value 'aces'; expected one of none, ace, ace_5_10_k (did you mean 'ace'?)"),
        (lambda: as_rules(3), "rules must be a preset name or a table of options, got int"),
        (lambda: R.classify("AS", H2, {"matc_end": "pass_ace"}),
         "unknown rule option 'matc_end' (did you mean 'match_end'?)"),
    ],
)
def test_rules_errors_name_the_option(make, message):
    with pytest.raises(RulesError) as e:
        make()
    assert str(e.value) == message


# ===========================================================================
# 2. Trump rank, trump suit, declaring (kernel can_declare, kitty_flip_suit)

RANK2 = 0
NO_DECL = (-1, D.NONE, -1)


SINGLE, PAIR, JOKERS = 1, 2, 3  # the kinds of a declaration, as the reference and the kernels number them
SO_ANY = "any"  # self_override = any: one's own declaration is overridden like anybody's
DECLARATIONS = [  # (my hand, the standing declaration (seat, kind, card) or None, my seat, trump rank,
    #               self_override, every declaration (kind, card) allowed, lowest kind then card id first)
    # fresh: a card of the trump rank, a pair of one, or a pair of identical jokers
    ("2S 5H", None, 0, "2", "strengthen_only", [(SINGLE, "2S")]),
    ("2S 2S", None, 0, "2", "strengthen_only", [(SINGLE, "2S"), (PAIR, "2S")]),
    ("BJ BJ", None, 0, "2", "strengthen_only", [(JOKERS, "BJ")]),  # a joker is no card of the trump rank
    ("RJ RJ", None, 0, "2", "strengthen_only", [(JOKERS, "RJ")]),
    ("BJ RJ", None, 0, "2", "strengthen_only", []),  # two jokers, not identical
    ("3S 4S BJ RJ", None, 0, "2", "strengthen_only", []),
    ("2S 2H 2H BJ BJ RJ 5C", None, 0, "2", "strengthen_only",
     [(SINGLE, "2S"), (SINGLE, "2H"), (PAIR, "2H"), (JOKERS, "BJ")]),
    ("7D 2D", None, 0, "7", "strengthen_only", [(SINGLE, "7D")]),
    ("7D 7D", None, 0, "7", "strengthen_only", [(SINGLE, "7D"), (PAIR, "7D")]),
    ("7D 7D 2S", None, 1, "7", "strengthen_only", [(SINGLE, "7D"), (PAIR, "7D")]),
    # another's single: any pair or joker pair overrides it, never a single
    ("2S 2C", (1, SINGLE, "2D"), 0, "2", "strengthen_only", []),
    ("2S 2S", (1, SINGLE, "2D"), 0, "2", "strengthen_only", [(PAIR, "2S")]),
    ("2C 2C", (1, SINGLE, "2D"), 0, "2", "strengthen_only", [(PAIR, "2C")]),
    ("BJ BJ", (1, SINGLE, "2D"), 0, "2", "strengthen_only", [(JOKERS, "BJ")]),
    ("RJ RJ", (1, SINGLE, "2D"), 0, "2", "strengthen_only", [(JOKERS, "RJ")]),
    ("2S 2H 2H BJ BJ RJ RJ 5C", (1, SINGLE, "2D"), 0, "2", "strengthen_only",
     [(PAIR, "2H"), (JOKERS, "BJ"), (JOKERS, "RJ")]),
    ("2S 2H 2H BJ BJ RJ RJ 5C", (2, SINGLE, "2H"), 0, "2", "strengthen_only",
     [(PAIR, "2H"), (JOKERS, "BJ"), (JOKERS, "RJ")]),
    # another's pair: only a joker pair
    ("2S 2S", (3, PAIR, "2D"), 0, "2", "strengthen_only", []),
    ("2S", (3, PAIR, "2D"), 0, "2", "strengthen_only", []),
    ("2S 2S 2C", (3, PAIR, "2D"), 0, "2", "strengthen_only", []),
    ("BJ BJ", (3, PAIR, "2D"), 0, "2", "strengthen_only", [(JOKERS, "BJ")]),
    ("RJ RJ", (3, PAIR, "2D"), 0, "2", "strengthen_only", [(JOKERS, "RJ")]),
    ("2S 2H 2H BJ BJ RJ RJ 5C", (3, PAIR, "2D"), 0, "2", "strengthen_only", [(JOKERS, "BJ"), (JOKERS, "RJ")]),
    # another's joker pair: never
    ("RJ RJ", (2, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    ("RJ RJ", (1, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    ("2S 2S", (2, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    ("2S", (2, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    ("BJ BJ", (2, JOKERS, "RJ"), 0, "2", "strengthen_only", []),
    ("2S 2H 2H BJ BJ RJ RJ 5C", (1, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    # my own declaration: only strengthened, a single into the pair of the same card
    ("2H 2H 2S 2S BJ BJ", (0, SINGLE, "2H"), 0, "2", "strengthen_only", [(PAIR, "2H")]),
    ("2S 2H 2H BJ BJ", (0, SINGLE, "2H"), 0, "2", "strengthen_only", [(PAIR, "2H")]),
    ("2S 2H 2H BJ BJ", (0, SINGLE, "2S"), 0, "2", "strengthen_only", []),
    ("2S 2H 2H BJ BJ", (0, PAIR, "2H"), 0, "2", "strengthen_only", []),
    ("2H 2H BJ BJ", (0, PAIR, "2H"), 0, "2", "strengthen_only", []),
    ("RJ RJ BJ BJ", (0, JOKERS, "BJ"), 0, "2", "strengthen_only", []),
    # the same hands when another seat made the declaration
    ("2H 2S 2S", (2, SINGLE, "2H"), 0, "2", "strengthen_only", [(PAIR, "2S")]),
    ("2H 2H BJ BJ", (2, PAIR, "2D"), 0, "2", "strengthen_only", [(JOKERS, "BJ")]),
    # self_override = any: one's own declaration is overridden like anybody's
    ("2H 2H 2S 2S BJ BJ", (0, SINGLE, "2H"), 0, "2", SO_ANY, [(PAIR, "2S"), (PAIR, "2H"), (JOKERS, "BJ")]),
    ("2S 2H 2H BJ BJ", (0, SINGLE, "2S"), 0, "2", SO_ANY, [(PAIR, "2H"), (JOKERS, "BJ")]),
    ("2S 2H 2H BJ BJ", (0, SINGLE, "2H"), 0, "2", SO_ANY, [(PAIR, "2H"), (JOKERS, "BJ")]),
    ("2S 2H 2H BJ BJ", (0, PAIR, "2H"), 0, "2", SO_ANY, [(JOKERS, "BJ")]),
    ("2H 2H BJ BJ", (0, PAIR, "2H"), 0, "2", SO_ANY, [(JOKERS, "BJ")]),
    ("RJ RJ BJ BJ", (0, JOKERS, "BJ"), 0, "2", SO_ANY, []),
]


def _kernel_declarations(counts, current, seat, rank, enc):
    """Every (kind, card) can_declare allows, in the reference's order."""
    cur = NO_DECL if current is None else current
    return [(kind, card) for kind in (SINGLE, PAIR, JOKERS) for card in range(54)
            if D.can_declare(counts, kind, card, seat, *cur, rank, enc)]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("hand, current, seat, rank, self_override, allowed", DECLARATIONS)
def test_declarations_allowed(impl, hand, current, seat, rank, self_override, allowed):
    cards, rank = parse_cards(hand), parse_rank(rank)
    current = None if current is None else (current[0], current[1], parse_card(current[2]))
    want = [(kind, parse_card(card)) for kind, card in allowed]
    if impl == "reference":
        assert ref.declare_allowed(cards, current, seat, rank, {"self_override": self_override}) == want
    else:
        assert (D.SINGLE, D.PAIR, D.JOKER_PAIR) == (SINGLE, PAIR, JOKERS)
        enc = Rules(self_override=self_override).encode()
        assert _kernel_declarations(to_counts(cards), current, seat, rank, enc) == want


def can(hand, kind_, card, seat=0, current=NO_DECL, rank=RANK2):
    """can_declare of one (kind, card), for requests no hand could make."""
    cur_seat, cur_kind, cur_card = current
    return bool(D.can_declare(to_counts(parse_cards(hand)), kind_, parse_card(card), seat,
                              cur_seat, cur_kind, cur_card, rank, Rules().encode()))


def test_declare_bad_requests():
    assert not can("2S 2S", 0, "2S")  # no such kind
    assert not can("2S 2S", 4, "2S")
    enc = Rules().encode()
    hand = to_counts(parse_cards("2S 2S BJ BJ"))
    assert not D.can_declare(hand, D.SINGLE, -1, 0, -1, D.NONE, -1, RANK2, enc)
    assert not D.can_declare(hand, D.JOKER_PAIR, 54, 0, -1, D.NONE, -1, RANK2, enc)


KITTY_FLIPS = [  # (kitty, trump rank, cards turned up, the suit it sets: 0..3 = S H D C)
    # the first card of the trump rank sets the suit, even below higher cards and before another rank card
    ("5S KD AC 3H 2S 9D 2C 7C", "2", 8, 0),
    ("5S KD 2C 3H 2S 9D 8C 7C", "2", 8, 3),
    ("AS AD KH QC JS 10D 3C 2H", "2", 8, 1),
    ("AS KH AD 3H 9H 9D 8C QC", "9", 8, 1),
    # no rank card: the highest-ranking card, the first revealed winning ties
    ("5S KD 3H KC 9S BJ 4D 4D", "2", 8, 2),
    ("AS KH AD 3H 8H 8D 8C QC", "9", 8, 0),
    ("3S QH AD AC 4H 5D 6C 7S", "2", 8, 2),
    # jokers never set the suit
    ("RJ BJ 3H 4C 3D 4S BJ 3S", "2", 8, 3),
    ("BJ 4S RJ 3H 3D 4C BJ 3S", "2", 8, 0),
    # only the first n cards are turned up
    ("3S 4H 5D 6C 7S 8H 9D 2C", "2", 7, 2),
    ("3S 4H 5D 6C 7S 8H 9D 2C", "2", 8, 3),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("kitty, rank, n, suit", KITTY_FLIPS)
def test_kitty_flip(impl, kitty, rank, n, suit):
    cards = parse_cards(kitty)
    if impl == "reference":
        assert ref.kitty_flip_suit(cards[:n], parse_rank(rank)) == suit
    else:
        assert int(D.kitty_flip_suit(np.array(cards, dtype=np.int64), n, parse_rank(rank))) == suit


# ===========================================================================
# 4. Card order


ORDERS = [  # (cards from high to low, trump, rules, their effective suits: one for all or one each, the
    #          steps between neighbours' positions); None: not stated
    # strictly descending, one step at a time, except that 2S = 2D = 2C
    ("RJ BJ 2H 2S 2D 2C AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H", H2, None, "trump", [1, 1, 1, 0, 0] + [1] * 12),
    ("RJ BJ 7C 7S 7H 7D AC KC QC JC 10C 9C 8C 6C 5C 4C 3C 2C", C7, None, "trump", [1, 1, 1, 0, 0] + [1] * 12),
    # the plain suits skip the trump rank
    ("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S", H2, None, "S", [1] * 11),
    ("AD KD QD JD 10D 9D 8D 6D 5D 4D 3D 2D", S7, None, "D", [1] * 11),
    ("AD KD QD JD 10D 9D 8D 6D 5D 4D 3D 2D", C7, None, "D", [1] * 11),
    ("7D 7H 7C", S7, None, "trump", None),
    ("AS KD 3C 2S 2C 2D", H2, None, ["S", "D", "C", "trump", "trump", "trump"], None),
    # no trump suit: the jokers are the trumps, the rank cards stay in their suits at their place
    ("RJ BJ AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", NT2, None, ["trump"] * 2 + ["H"] * 13, [1, None] + [1] * 12),
    ("BJ RJ 2H 2S AS 3C", NT2, None, ["trump", "trump", "H", "S", "S", "C"], None),
    ("8C 7C 6C", NT7, None, None, [1, 1]),
    # option: the rank cards stay trumps, equal, just below BJ
    ("RJ BJ 2H 2S 2D 2C", NT2, RTNT, "trump", [1, 1, 0, 0, 0]),
    ("BJ RJ 2H 2S AS 3C", NT2, RTNT, ["trump", "trump", "trump", "trump", "S", "C"], None),
    ("AH KH 3H", NT2, RTNT, "H", [1, 10]),
    ("8C 6C", NT7, RTNT, None, [1]),
    ("7C", NT7, RTNT, "trump", None),
]


def ordered(impl, cards, trump, rules):
    """(effective suits: S H D C or trump, positions) of ``cards`` by the reference or the kernels' trump table."""
    if impl == "reference":
        eff = [ref.effective_suit(c, ref_trump(trump), rules) for c in parse_cards(cards)]
        pos = [ref.position(c, ref_trump(trump), rules) for c in parse_cards(cards)]
        trump_suit = 4
    else:
        eff, pos = positions(cards, trump, rules)
        trump_suit = TRUMP
    return ["trump" if e == trump_suit else "SHDC"[e] for e in eff], pos


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("cards, trump, rules, suits, steps_", ORDERS)
def test_card_order(impl, cards, trump, rules, suits, steps_):
    eff, pos = ordered(impl, cards, trump, rules)
    if suits is not None:
        assert eff == (suits if isinstance(suits, list) else [suits] * len(eff))
    if steps_ is not None:
        assert [s if w is not None else None for s, w in zip(steps(pos), steps_)] == steps_


# the order through tricks (checked with WINNERS): each card of the trump order beats the next lower one,
# equal cards go to the earlier
_TRUMP_ORDER = ORDERS[0][0].split()
ORDER_WINNERS = [([lo, hi], 0, H2, None, 0 if hi[0] == lo[0] == "2" and "H" not in (hi[1], lo[1]) else 1)
                 for hi, lo in zip(_TRUMP_ORDER, _TRUMP_ORDER[1:])]
ORDER_WINNERS += [([hi, lo], 0, H2, None, 0) for hi, lo in zip(_TRUMP_ORDER, _TRUMP_ORDER[1:])]
ORDER_WINNERS += [
    # a trump, even the lowest, beats the best card of a plain suit
    (["AS", "3H"], 0, H2, None, 1),
    (["AD", "2S"], 0, S7, None, 1),  # 2S is a spade, the trump suit: a trump
    (["AD", "7C"], 0, S7, None, 1),
    # no trump suit
    (["3H", "2H"], 0, NT2, None, 0),  # the 2 is the lowest heart, not a trump
    (["AH", "2S", "BJ", "RJ"], 0, NT2, None, 3),
    (["AH", "RJ", "BJ"], 0, NT2, None, 1),
    (["3H", "2H"], 0, NT2, RTNT, 1),
    (["3H", "2H", "2D", "BJ"], 0, NT2, RTNT, 3),
    (["3H", "2H", "2D"], 0, NT2, RTNT, 1),
]
# an off-suit card of the trump rank follows as a trump (checked with FOLLOWS)
ORDER_FOLLOWS = [
    ("2S 5S", "AS", "5S", H2, None, True),
    ("2S 5S", "AS", "2S", H2, None, False),  # 2S is no spade: the 5S must be played
    ("2S 5D", "AH", "2S", H2, None, True),  # and it follows a trump lead
    ("2S 5D", "AH", "5D", H2, None, False),
]


# ===========================================================================
# 5. Leads


CLASSIFIED = [  # (cards, trump, rules, kind, effective suit, units high to low); None: not stated
    # singles, pairs, a tractor, throws
    ("AS", H2, None, "single", "S", ["AS"]),
    ("AS AS", H2, None, "pair", "S", ["AS AS"]),
    ("3S 3S 4S 4S", H2, None, "tractor", "S", ["4S 4S 3S 3S"]),
    ("AS KS", H2, None, "throw", "S", ["AS", "KS"]),
    ("2S 2D", H2, None, "throw", "trump", ["2S", "2D"]),  # equal, not identical: no pair
    # an off-suit card of the trump rank is a trump; with no trump suit it stays in its suit
    ("2S", H2, None, None, "trump", None),
    ("2S", NT2, None, None, "S", None),
    ("2H", NT2, None, None, "H", None),
    # tractors across the trump rank
    ("AH AH 2S 2S 2H 2H BJ BJ", H2, None, "tractor", "trump", ["BJ BJ 2H 2H 2S 2S AH AH"]),
    ("AH AH 2C 2C", H2, None, "tractor", None, None),
    ("2D 2D 2H 2H", H2, None, "tractor", None, None),
    ("BJ BJ RJ RJ", H2, None, "tractor", None, None),
    ("BJ RJ BJ RJ", H2, None, "tractor", None, ["RJ RJ BJ BJ"]),
    ("BJ RJ BJ RJ", NT2, None, "tractor", None, ["RJ RJ BJ BJ"]),
    ("2H 2H BJ BJ RJ RJ", H2, None, "tractor", None, None),
    ("KH KH 2S 2S", H2, None, "throw", "trump", ["2S 2S", "KH KH"]),
    ("AH AH BJ BJ", H2, None, "throw", None, None),  # 2s in between
    # rank A: K of the trump suit, the off-suit aces, the ace of the suit, jokers
    ("KH KH AS AS AH AH BJ BJ", {"rank": "A", "suit": "H"}, None, "tractor", None, None),
    # two off-suit pairs of the trump rank are equal: no tractor; with AH below, one of them joins the
    # tractor and the other stays a pair (the lowest card id)
    ("2S 2S 2D 2D", H2, None, "throw", "trump", ["2S 2S", "2D 2D"]),
    ("AH AH 2S 2S 2D 2D 2H 2H", H2, None, None, None, ["2H 2H 2S 2S AH AH", "2D 2D"]),
    ("AH AH 2S 2S 2D 2D", H2, None, None, None, ["2S 2S AH AH", "2D 2D"]),
    ("AH AH 2D 2D 2S 2S 2H 2H BJ", H2, None, None, None, ["2H 2H 2S 2S AH AH", "2D 2D", "BJ"]),
    ("2C 2C 2D 2D 2H 2H", H2, None, None, None, ["2H 2H 2D 2D", "2C 2C"]),
    ("2C 2C 2D 2D", H2, None, None, None, ["2D 2D", "2C 2C"]),
    ("2C 2D 2S", H2, None, None, None, ["2S", "2D", "2C"]),
    # a tractor skips the trump rank, in a plain suit and in trumps
    ("6C 6C 8C 8C", S7, None, "tractor", "C", ["8C 8C 6C 6C"]),
    ("6C 6C 8C 8C", C7, None, "tractor", "trump", ["8C 8C 6C 6C"]),
    ("6C 6C 8C 8C", H2, None, "throw", "C", ["8C 8C", "6C 6C"]),
    ("AS AS QS QS", {"rank": "K", "suit": "H"}, None, "tractor", None, None),
    # no trump suit: the rank stays in its suit; option: its cards stay trumps
    ("6C 6C 8C 8C", NT7, None, "throw", None, None),
    ("6C 6C 7C 7C", NT7, None, "tractor", None, None),
    ("6C 6C 7C 7C 8C 8C", NT7, None, "tractor", "C", ["8C 8C 7C 7C 6C 6C"]),
    ("2H 2H 3H 3H", NT2, None, "tractor", None, None),
    ("BJ BJ RJ RJ", NT2, None, "tractor", None, None),
    ("6C 6C 8C 8C", NT7, RTNT, "tractor", None, None),
    ("2S 2S BJ BJ", NT2, RTNT, "tractor", None, None),
    ("2H 2H BJ BJ", NT2, RTNT, "tractor", None, None),
    ("2S 2S 2D 2D", NT2, RTNT, "throw", None, None),
    ("2H 2H 2S 2S", NT2, RTNT, "throw", None, None),
    # decomposition: tractors first, longest then highest, then pairs high to low, then singles high to low
    ("3S 3S 4S 4S 5S 5S 9S 9S 10S 10S AS", H2, None, None, None, ["5S 5S 4S 4S 3S 3S", "10S 10S 9S 9S", "AS"]),
    ("3S 3S 4S 4S 9S 9S 10S 10S", H2, None, None, None, ["10S 10S 9S 9S", "4S 4S 3S 3S"]),
    ("4S 4S 5S 5S JS JS QS QS", H2, None, None, None, ["QS QS JS JS", "5S 5S 4S 4S"]),
    ("5D 5D 6D 6D 7D 7D QD QD KD KD", H2, None, None, None, ["7D 7D 6D 6D 5D 5D", "KD KD QD QD"]),
    ("3S QS 8S 9S AS KS 10S 3S AS 7S 9S KS 10S 8S", H2, None, None, None,
     ["10S 10S 9S 9S 8S 8S", "AS AS KS KS", "3S 3S", "QS", "7S"]),
    ("AS KS KS 7S 7S 3S", H2, None, None, None, ["KS KS", "7S 7S", "AS", "3S"]),
    ("KH KH AH AH 2S 2S 2D 2D 2H 2H BJ BJ 3H", H2, None, None, None,
     ["BJ BJ 2H 2H 2S 2S AH AH KH KH", "2D 2D", "3H"]),
    ("2C 2S 2D 2H 5H", H2, None, None, None, ["2H", "2S", "2D", "2C", "5H"]),
]
TWO_SUITS = [("AS 2S", H2, None), ("6C 6C 7C 7C", S7, None), ("2H 2H BJ BJ", NT2, None)]  # no combination


def classified(impl, cards, trump, rules):
    """(kind, effective suit: S H D C or trump, units as card strings) by the reference or the referee."""
    if impl == "kernels":
        got = R.classify(cards, trump, rules)
        return got["kind"], got["suit"], [" ".join(u) for u in got["units"]]
    got = ref.classify(parse_cards(cards), ref_trump(trump), rules)
    suit = "trump" if got["suit"] == 4 else "SHDC"[got["suit"]]
    return got["kind"], suit, [" ".join(card_str(x) for x in u["cards"]) for u in got["units"]]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("cards, trump, rules, kind_, suit, units_", CLASSIFIED)
def test_classification(impl, cards, trump, rules, kind_, suit, units_):
    got = classified(impl, cards, trump, rules)
    want = (kind_, suit, units_)
    assert tuple(g if w is not None else None for g, w in zip(got, want)) == want


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("cards, trump, rules", TWO_SUITS)
def test_a_combination_of_two_effective_suits_is_refused(impl, cards, trump, rules):
    with pytest.raises(RefereeError if impl == "kernels" else ValueError, match="one effective suit"
                       if impl == "kernels" else None):
        classified(impl, cards, trump, rules)


# ---------------------------------------------------------------------------
# Throws

THROW_HANDS = ["AS KS KS 4D", "AS QS QS 3H", "JS JS 5C 6C", "2S 2S BJ 7C"]
BLOCK_HANDS = ["AS QS QS", "3S 4D 5D", "JS JS 6D", "KS KS 7D"]
# tractor 4-3, pair Q, singles K and 9: seat 1 beats K, 9 and the pair; seat 3 beats the tractor and 9
FORCED_LEAD = "KS QS QS 4S 4S 3S 3S 9S"
FORCED_HANDS = [FORCED_LEAD, "AS AS 2H 3D 3D 4D 4D 5D", "8D 9D 10D JD QD KD AD 6C", "6S 6S 5S 5S 10S 7C 8C 9C"]
FORCED_PARTS = [  # (throw_forced_part, the part forced, the blocking seat, cards taken back)
    ("fewest_then_lowest", "9S", 1, 7),
    ("lowest", "4S 4S 3S 3S", 3, 4),
    ("highest", "KS", 1, 7),
]
THROWS = [  # (lead, hands by seat, leader, declarers, rules, verdict: None if the throw stands, else
    #          (the blocking seat, the part forced, the penalty to the opponents' points)), hearts trump, rank 2
    # nobody beats a unit: the throw stands (an equal card is not higher)
    ("AS KS KS", THROW_HANDS, 0, (0, 2), None, None),
    ("AS KS KS", ["AS KS KS", "AS QS QS 3H 3H", "JS JS", "2S 2S BJ"], 0, (0, 2), None, None),
    # a unit beaten: the smallest beaten part is forced, the penalty by the thrower's side
    ("AS QS QS", BLOCK_HANDS, 0, (0, 2), None, (3, "QS QS", 10)),
    ("AS QS QS", BLOCK_HANDS, 0, (1, 3), None, (3, "QS QS", -10)),
    # the partner blocks too, unless throw_check = opponents_only
    ("AS QS QS", ["AS QS QS", "3S 4D 5D", "KS KS 6D", "JS JS 7D"], 0, (0, 2), None, (2, "QS QS", 10)),
    ("AS QS QS", ["AS QS QS", "3S 4D 5D", "KS KS 6D", "JS JS 7D"],
     0, (0, 2), {"throw_check": "opponents_only"}, None),
    ("AS QS QS", ["KS KS 6D", "AS QS QS", "3S 4D 5D", "JS JS 7D"],
     1, (0, 2), {"throw_check": "opponents_only"}, (0, "QS QS", -10)),
    ("AS QS QS", ["AS QS QS", "3S 4D", "KS KS", "JS JS"], 0, (1, 3), None, (2, "QS QS", -10)),
    ("AS QS QS", ["AS QS QS", "3S 4D", "KS KS", "JS JS"], 0, (1, 3), {"throw_check": "opponents_only"}, None),
    # the first seat in playing order that beats a unit blocks
    ("KS 9S 9S", ["AS 3C 4C", "AS 5C 6C", "KS 9S 9S", "3D 4D 5D"], 2, (0, 2), None, (0, "KS", 20)),
    ("KS 9S 9S", ["AS 3C 4C", "AS 5C 6C", "KS 9S 9S", "3D 4D 5D"],
     2, (0, 2), {"throw_check": "opponents_only"}, (1, "KS", 20)),
    # which part is forced (throw_forced_part) and the penalty per card taken back
    (FORCED_LEAD, FORCED_HANDS, 0, (0, 2), None, (1, "9S", 70)),
    (FORCED_LEAD, FORCED_HANDS, 0, (0, 2), {"throw_forced_part": "lowest"}, (3, "4S 4S 3S 3S", 40)),
    ("AS QS QS 4S 4S 3S 3S", ["AS QS QS 4S 4S 3S 3S", "KS KS", "8D", "6S 6S 5S 5S"],
     0, (0, 2), None, (1, "QS QS", 50)),
    ("AS QS QS 4S 4S 3S 3S", ["AS QS QS 4S 4S 3S 3S", "KS KS", "8D", "6S 6S 5S 5S"],
     0, (0, 2), {"throw_forced_part": "lowest"}, (3, "4S 4S 3S 3S", 30)),
    ("AS QS QS 4S 4S 3S 3S", ["AS QS QS 4S 4S 3S 3S", "KS KS", "8D", "6S 6S 5S 5S"],
     0, (0, 2), {"throw_forced_part": "highest"}, (1, "QS QS", 50)),
    (FORCED_LEAD, FORCED_HANDS, 0, (0, 2), {"throw_penalty": 0}, (1, "9S", 0)),
    # a tractor is beaten only by as many pairs in a row
    ("10S 10S 9S 9S AS", ["10S 10S 9S 9S AS", "KS KS 3S", "QS JS", "7S 7S 6S 6S"], 0, (0, 2), None, None),
    ("10S 10S 9S 9S AS", ["10S 10S 9S 9S AS", "KS KS 3S", "8D", "QS QS JS JS"],
     0, (0, 2), None, (3, "10S 10S 9S 9S", 10)),
    ("9S 9S 8S 8S 7S 7S AS", ["9S 9S 8S 8S 7S 7S AS", "KS KS QS QS", "8D", "JS JS"], 0, (0, 2), None, None),
    # trumps do not beat a plain-suit throw; a trump throw is checked within trumps
    ("AS KS", ["AS KS", "RJ RJ 2H", "3H", "QS"], 0, (0, 2), None, None),
    ("RJ AH", ["RJ AH", "KH KH", "5S", "QH"], 0, (0, 2), None, None),
    ("RJ AH", ["RJ AH", "KH KH", "2C", "QH"], 0, (1, 3), None, (2, "AH", -10)),
    ("RJ 2S", ["RJ 2S", "2D", "2C", "BJ"], 0, (0, 2), None, (3, "2S", 10)),
    ("RJ 2S", ["RJ 2S", "2D", "2C", "AH"], 0, (0, 2), None, None),
    # parts of equal rank: the pair before the tractor, the first single of the decomposition
    ("AH AH 2S 2S 2D 2D", ["AH AH 2S 2S 2D 2D", "2H 2H BJ BJ", "3D", "4D"],
     0, (0, 2), {"throw_forced_part": "fewest_then_lowest"}, (1, "2D 2D", 40)),
    ("AH AH 2S 2S 2D 2D", ["AH AH 2S 2S 2D 2D", "2H 2H BJ BJ", "3D", "4D"],
     0, (0, 2), {"throw_forced_part": "lowest"}, (1, "2D 2D", 40)),
    ("AH AH 2S 2S 2D 2D", ["AH AH 2S 2S 2D 2D", "2H 2H BJ BJ", "3D", "4D"],
     0, (0, 2), {"throw_forced_part": "highest"}, (1, "2D 2D", 40)),
    ("RJ 2S 2D", ["RJ 2S 2D", "3D", "2H", "4D"],
     0, (0, 2), {"throw_forced_part": "fewest_then_lowest"}, (2, "2S", 20)),
    ("RJ 2S 2D", ["RJ 2S 2D", "3D", "2H", "4D"], 0, (0, 2), {"throw_forced_part": "lowest"}, (2, "2S", 20)),
    ("RJ 2S 2D", ["RJ 2S 2D", "3D", "2H", "4D"], 0, (0, 2), {"throw_forced_part": "highest"}, (2, "2S", 20)),
    # equal units do not beat (the off-suit 2s are equal)
    ("RJ 2S 2S", ["RJ 2S 2S", "2D 2D", "2C 2C", "3S"], 0, (0, 2), None, None),
    ("AH AH 2S 2S 3H", ["AH AH 2S 2S 3H", "2D 2D KH KH", "4H", "5H"], 0, (0, 2), None, (1, "3H", 40)),
    ("AH AH 2S 2S 3H", ["AH AH 2S 2S 3H", "2D 2D 2H 2H", "4H", "5H"], 0, (0, 2), None, (1, "3H", 40)),
    ("AH AH 2S 2S 3H", ["AH AH 2S 2S 3H", "2D 2D 2H 2H", "4H", "5H"],
     0, (0, 2), {"throw_forced_part": "highest"}, (1, "2S 2S AH AH", 10)),
]
THROWS += [(FORCED_LEAD, FORCED_HANDS, 0, declarers, {"throw_forced_part": option, "throw_penalty": penalty},
            (blocked, forced, sign * penalty * taken_back))
           for option, forced, blocked, taken_back in FORCED_PARTS
           for declarers, sign in (((0, 2), 1), ((1, 3), -1)) for penalty in (10, 20)]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("lead, hands, leader, declarers, rules, verdict", THROWS)
def test_throw_check(impl, lead, hands, leader, declarers, rules, verdict):
    if impl == "reference":
        got = ref.check_throw(parse_cards(lead), [parse_cards(h) for h in hands], leader, declarers, ref_trump(H2),
                              rules)
        got = {**got, "forced": [card_str(c) for c in got["forced"]]}
    else:
        got = R.trick([lead], H2, hands=hands, leader=leader, declarers=declarers, rules=rules)["throw"]
    if verdict is None:
        assert got == {"ok": True, "blocked_by": None, "forced": [], "penalty": 0}
    else:
        assert got == {"ok": False, "blocked_by": verdict[0], "forced": verdict[1].split(), "penalty": verdict[2]}


def test_throw_stands_and_is_ruffed():
    r = R.trick(["AS KS KS", "AS QS QS", "JS JS 6C", "2S 2S BJ"], H2, hands=THROW_HANDS)
    assert r["lead"] == {"kind": "throw", "units": U("KS KS", "AS")}
    assert r["legal"] == [True, True, True, True]
    assert r["winner"] == 3  # void in spades, a pair and a single in trumps
    assert r["points"] == 20
    # nobody ruffs: the leader wins although seat 1 plays an equal ace
    r = R.trick(["AS KS KS", "AS QS QS", "JS JS 5C", "2S BJ 7C"], H2, hands=THROW_HANDS)
    assert r["winner"] == 0


def test_a_blocked_throw_is_answered_as_its_forced_part():
    r = R.trick(["AS QS QS", "3S 4D", "JS JS", "KS KS"], H2, hands=BLOCK_HANDS, declarers=(0, 2))
    assert r["lead"] == {"kind": "pair", "units": U("QS QS")}
    assert r["legal"] == [True, True, True, True]  # the followers answer the pair
    assert r["winner"] == 3 and r["points"] == 20
    # answering the whole throw instead of the forced pair is illegal
    r = R.trick(["AS QS QS", "3S 4D 5D"], H2, hands=BLOCK_HANDS)
    assert r["legal"] == [True, False]
    # throw_check = opponents_only: the partner's higher pair does not block, the throw is played
    plays = ["AS QS QS", "3S 4D 5D", "KS KS 6D", "JS JS 7D"]
    r = R.trick(plays, H2, hands=plays, rules={"throw_check": "opponents_only"})
    assert r["lead"]["kind"] == "throw" and r["legal"] == [True, True, True, True]
    assert r["winner"] == 0 and r["points"] == 25


@pytest.mark.parametrize("option, forced, blocked, taken_back", FORCED_PARTS)
def test_failed_throw_forced_part(option, forced, blocked, taken_back):
    """The lead becomes the forced part (the verdicts: THROWS)."""
    for declarers in ((0, 2), (1, 3)):
        for penalty in (10, 20):
            rules = {"throw_forced_part": option, "throw_penalty": penalty}
            r = R.trick([FORCED_LEAD], H2, hands=FORCED_HANDS, declarers=declarers, rules=rules)
            assert r["lead"]["units"] == [forced.split()]


def test_failed_throw_is_answered_as_its_forced_part():
    r = R.trick([FORCED_LEAD, "AS", "8D", "10S"], H2, hands=FORCED_HANDS)
    assert r["throw"]["forced"] == ["9S"] and r["lead"]["kind"] == "single"
    assert r["legal"] == [True, True, True, True] and r["winner"] == 1 and r["points"] == 10
    r = R.trick([FORCED_LEAD, "AS AS 3D 3D", "8D 9D 10D JD", "6S 6S 5S 5S"], H2, hands=FORCED_HANDS,
                rules={"throw_forced_part": "lowest"})
    assert r["lead"] == {"kind": "tractor", "units": U("4S 4S 3S 3S")}
    assert r["legal"] == [True, True, True, True] and r["winner"] == 3 and r["points"] == 20
    # seat 1 owes its only spade pair
    r = R.trick([FORCED_LEAD, "AS 3D 3D 4D"], H2, hands=FORCED_HANDS, rules={"throw_forced_part": "lowest"})
    assert r["legal"] == [True, False]


def test_non_throw_leads_are_not_checked():
    hands = ["3S 3S 4S 4S", "AS AS KS KS QS QS", "8D", "9D"]
    for lead, kind_, unit in (("3S", "single", "3S"), ("3S 3S", "pair", "3S 3S"),
                              ("3S 3S 4S 4S", "tractor", "4S 4S 3S 3S")):
        r = R.trick([lead], H2, hands=hands)
        assert "throw" not in r and r["lead"] == {"kind": kind_, "units": U(unit)}


# ---------------------------------------------------------------------------
# Following


FOLLOW_TRACTOR = {"follow_tractor": "tractor"}
FOLLOWS = [  # (hand, lead, play, trump, rules, legal)
    # follow the led suit (trumps are one suit); void in it: anything
    ("3S 4H 5D", "AS", "3S", H2, None, True),
    ("3S 4H 5D", "AS", "4H", H2, None, False),
    ("4H 5D", "AS", "5D", H2, None, True),  # void: anything
    ("4H 5D", "AS", "4H", H2, None, True),
    ("5H 5S", "BJ", "5H", H2, None, True),  # hearts are trumps
    ("5H 5S", "BJ", "5S", H2, None, False),
    ("3S 4H 5D", "AS", "5D", H2, None, False),
    ("2D 5S", "2S", "2D", H2, None, True),
    ("2D 5S", "2S", "5S", H2, None, False),
    # fewer cards of the suit than the lead: all of them
    ("3S 9D 9D 4C 7H", "KS KS QS QS", "3S 9D 9D 4C", H2, None, True),
    ("3S 9D 9D 4C 7H", "KS KS QS QS", "3S 9D 7H 4C", H2, None, True),
    ("3S 9D 9D 4C 7H", "KS KS QS QS", "9D 9D 4C 7H", H2, None, False),
    ("3S 5S 9D 9D 4C", "KS KS QS QS", "3S 5S 9D 4C", H2, None, True),
    ("3S 5S 9D 9D 4C", "KS KS QS QS", "3S 9D 9D 4C", H2, None, False),
    # a pair lead owes a pair if one is held (equal off-suit rank cards are no pair)
    ("3S 3S 5S 6D", "KS KS", "3S 3S", H2, None, True),
    ("3S 3S 5S 6D", "KS KS", "5S 3S", H2, None, False),
    ("3S 5S 7S 6D", "KS KS", "7S 3S", H2, None, True),  # no pair held: any two
    ("3S 5S 6D", "KS KS", "3S 5S", H2, None, True),
    ("2S 2D 3C 4C", "AH AH", "2S 2D", H2, None, True),
    ("2S 2D 3C 4C", "AH AH", "2S 3C", H2, None, False),
    ("2S 2S 2D 3C", "AH AH", "2S 2D", H2, None, False),
    ("2S 2S 2D 3C", "AH AH", "2S 2S", H2, None, True),
    ("3S 5S 6D", "KS KS", "3S 6D", H2, None, False),
    # a tractor of k pairs owes k pairs, not a tractor (unless follow_tractor)
    ("3S 3S 7S 7S 9S 10S", "KS KS QS QS", "3S 3S 7S 7S", H2, None, True),  # the pairs need not be consecutive
    ("3S 3S 7S 7S 9S 10S", "KS KS QS QS", "3S 3S 9S 10S", H2, None, False),
    ("3S 3S 7S 9S 10S", "KS KS QS QS", "3S 3S 9S 10S", H2, None, True),  # one pair held: one owed
    ("3S 3S 7S 9S 10S", "KS KS QS QS", "3S 7S 9S 10S", H2, None, False),
    ("3S 3S 5S 5S 7S 7S 9S", "KS KS QS QS JS JS", "3S 3S 5S 5S 7S 7S", H2, None, True),
    ("3S 3S 5S 5S 7S 7S 9S", "KS KS QS QS JS JS", "3S 3S 5S 5S 7S 9S", H2, None, False),
    ("3S 3S 4S 4S 9S 9S", "KS KS QS QS", "3S 3S 9S 9S", H2, None, True),
    ("3S 3S 4S 4S 9S 9S", "KS KS QS QS", "3S 3S 9S 9S", H2, FOLLOW_TRACTOR, False),
    ("3S 3S 4S 4S 9S 9S", "KS KS QS QS", "4S 4S 3S 3S", H2, FOLLOW_TRACTOR, True),
    ("3S 3S 5S 5S 9S 9S", "KS KS QS QS", "3S 3S 9S 9S", H2, FOLLOW_TRACTOR, True),
    # a throw owes all its pairs
    ("3S 3S 5S 5S 6S 8S", "AS QS QS 9S 9S", "3S 3S 5S 5S 6S", H2, None, True),
    ("3S 3S 5S 5S 6S 8S", "AS QS QS 9S 9S", "3S 3S 5S 6S 8S", H2, None, False),
    ("3S 3S 5S 6S 8S 7D", "AS QS QS 9S 9S", "3S 3S 5S 6S 8S", H2, None, True),
    ("3S 3S 5S 5S 6S 8S", "AS KS QS QS", "3S 3S 5S 6S", H2, None, True),  # one pair in the lead
    ("3S 3S 5S 5S 6S 8S", "AS KS QS JS", "8S 6S 5S 3S", H2, None, True),  # no pair in the lead
    # no follow at all: cards not held, the wrong number
    ("3S 4S", "AS", "5S", H2, None, False),  # not in the hand
    ("3S 4S", "AS", "3S 4S", H2, None, False),  # too many
    ("3S 4S", "AS AS", "3S", H2, None, False),  # too few
    ("3S 4S", "AS AS", "3S 3S", H2, None, False),  # one 3S only
    ("3S 3S 4S", "AS AS", "3S 3S", H2, None, True),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("hand, lead, play, trump, rules, legal", FOLLOWS + ORDER_FOLLOWS)
def test_follow(impl, hand, lead, play, trump, rules, legal):
    if impl == "reference":
        got = ref.legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), ref_trump(trump), rules)
    else:
        got = follow(hand, lead, play, trump, rules)
    assert bool(got) is legal


# ---------------------------------------------------------------------------
# Winners


WINNERS = [  # (plays in playing order, leader's seat, trump, rules, the winner's seat)
    # a single lead
    (["AS", "KS", "3S", "4S"], 0, H2, None, 0),
    (["5S", "AD", "3S", "6S"], 0, H2, None, 3),  # off-suit aces never win
    (["AS", "3H", "KS", "4S"], 0, H2, None, 1),  # ruff
    (["AS", "3H", "5H", "4S"], 0, H2, None, 2),  # over-ruff
    (["AS", "5H", "2C", "KS"], 0, H2, None, 2),  # an off-suit rank card is a higher trump
    (["5S", "AD", "BJ", "RJ"], 0, H2, None, 3),
    (["AS", "3H", "5H", "KS"], 1, H2, None, 3),  # higher ruff
    (["AS", "5H", "3H", "2C"], 1, H2, None, 0),  # 2C trump beats 5H
    (["AS", "2S", "2D", "3S"], 3, H2, None, 0),  # equal trumps: earlier
    (["KS", "KS", "QS", "3S"], 2, H2, None, 2),
    # a pair lead
    (["5S 5S", "AS KS", "6S 6S", "3H 4H"], 0, H2, None, 2),  # only pairs compete: 3H 4H is no pair
    (["5S 5S", "3H 3H", "6S 6S", "AD AD"], 0, H2, None, 1),  # pair ruff
    (["5S 5S", "2S 2D", "3S 4S", "6D 6D"], 0, H2, None, 0),  # 2S 2D: equal, not identical: no pair
    (["5S 5S", "RJ BJ", "6S 6S", "3D 4D"], 0, H2, None, 2),
    (["5S 5S", "3H 3H", "2S 2S", "2H 2H"], 0, H2, None, 3),
    (["KS KS", "AS 3H", "QS QS", "AS AS"], 0, H2, None, 3),
    (["5S 5S", "3H 3H", "2S 2S", "2D 2D"], 1, H2, None, 3),  # 2D pair = 2S pair: earlier
    (["5S 5S", "RJ RJ", "2H 2H", "AS AS"], 1, H2, None, 2),
    # a tractor lead
    (["5S 5S 6S 6S", "3H 3H 4H 4H", "8S 8S 9S 9S", "AS AS KS 3S"], 0, H2, None, 1),  # tractor ruff
    # the ruff is no tractor: the higher tractor in suit
    (["5S 5S 6S 6S", "3H 3H 5H 5H", "8S 8S 9S 9S", "AS AS KS KS"], 0, H2, None, 3),
    (["5S 5S 6S 6S", "3H 3H 5H 5H", "8S 8S 10S 10S", "AS AS 3S 4S"], 0, H2, None, 0),  # no other tractor at all
    (["5S 5S 6S 6S", "AH AH 2S 2S", "2D 2D 2H 2H", "3H 3H 4H 4H"], 0, H2, None, 2),  # across the rank
    (["5S 5S 6S 6S", "2D 2D 2S 2S", "3H 3H 4H 4H"], 0, H2, None, 2),  # two off-suit 2 pairs: no tractor
    (["5S 5S 6S 6S 7S 7S", "8S 8S 9S 9S 10S 10S", "3H 3H 4H 4H 6H 6H"], 0, H2, None, 1),
    (["5S 5S 6S 6S 7S 7S", "8S 8S 9S 9S JS JS", "3H 3H 4H 4H 5H 5H"], 0, H2, None, 2),
    (["5S 5S 6S 6S 7S 7S", "RJ RJ BJ BJ 3H 3H", "KS KS QS QS 3S 3S"], 0, H2, None, 0),
    (["AH AH 2S 2S 2H 2H BJ BJ", "3H 3H 4H 4H 5H 5H 6H 6H", "KH KH QH QH JH JH 10H 10H"], 0, H2, None, 0),
    (["5S 5S 6S 6S", "3H 3H 4H 4H", "AH AH 2S 2S", "2D 2D 2C 2C"], 1, H2, None, 3),
    (["5S 5S 6S 6S", "AH AH 2S 2S", "AH AH 2D 2D", "3H 3H 4H 4H"], 1, H2, None, 2),  # tie: earlier
    (["5S 5S 6S 6S 7S 7S", "8S 8S 9S 9S JS JS", "AH AH KH KH 3H 3H"], 1, H2, None, 1),
    # a throw: only a ruff of the same arrangement, all trumps, beats it
    (["AS KS KS", "3H 4H 4H", "3S 4S 5S", "6S 7S 8S"], 0, H2, None, 1),
    (["AS KS KS", "3H 4H 5H", "3S 4S 5S", "6S 7S 8S"], 0, H2, None, 0),  # three singles: the wrong arrangement
    (["AS KS KS", "3H 4H 4C", "3S 4S 5S", "6S 7S 8S"], 0, H2, None, 0),  # not all trumps
    (["AS KS KS", "3H 4H 4H", "5H 9H 9H", "AH 6H 6H"], 0, H2, None, 2),  # several ruffers: the highest pair
    (["AS KS KS", "3H 2S 2S", "AH 2D 2D", "5C 6C 7C"], 0, H2, None, 1),  # equal pairs: the earlier, whatever the single
    (["AS KS", "3H 9H", "4H 8H", "RJ 3H"], 0, H2, None, 3),  # no pairs: the highest single
    (["AS QS QS 10S 10S", "3H 5H 5H 6H 6H", "3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D"], 0, H2, None, 0),  # tractor: wrong
    (["AS QS QS 10S 10S", "3H 5H 5H 8H 8H", "3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D"], 0, H2, None, 1),
    (["AS AS KS KS 3S", "5H 3H 3H 4H 4H", "AH 5H 5H 6H 6H", "9H JH JH 10H 10H"], 0, H2, None, 3),
    (["AS AS KS KS 3S", "BJ 3H 3H 4H 4H", "AH 5H 5H 6H 6H", "3S 4S 5S 6S 7S"], 0, H2, None, 2),
    (["AS AS JS JS 8S 8S", "3H 3H 4H 4H 7H 9H", "3D 4D 5D 6D 7D 8D"], 0, H2, None, 0),
    (["AS AS JS JS 8S 8S", "3H 3H 5H 5H 9H 9H", "3D 4D 5D 6D 7D 8D"], 0, H2, None, 1),
    (["RJ AH", "BJ BJ", "2H 2S", "3S 4S"], 0, H2, None, 0),
    (["AS KS KS", "3H 9H 9H", "5H 9H 9H", "AH 6H 6H"], 1, H2, None, 2),  # tie: earlier
    (["AS QS QS 10S 10S", "3H 5H 5H 8H 8H", "2S 2S 2D 2D 4H", "3D 4D 5D 6D 7D"], 1, H2, None, 3),
    (["AS AS KS KS 3S", "5H 3H 3H 4H 4H", "AH 5H 5H 6H 6H", "3S 4S 5S 6S 7S"], 0, H2, None, 2),
    (["AS AS KS KS 3S", "AH 3H 3H 5H 5H", "3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D"], 0, H2, None, 0),
    (["RJ AH", "BJ BJ", "2H 2S", "3S 4S"], 2, H2, None, 2),
    # ties go to the earlier play, whoever leads
    (["KS", "KS", "QS", "3S"], 0, H2, None, 0),
    (["AS", "2S", "2D", "3S"], 0, H2, None, 1),
    (["AS", "2S", "2D", "3S"], 2, H2, None, 3),
    (["5S 5S", "2S 2S", "2D 2D", "2C 2C"], 0, H2, None, 1),
    (["AS", "3H", "3H"], 1, H2, None, 2),
    (["AS", "3H", "3H", "2C"], 1, H2, None, 0),
    # a single lead with no trump suit (option: rank cards stay trumps)
    (["AS", "2H", "3S", "4S"], 1, NT2, None, 1),
    (["AS", "2H", "BJ", "4S"], 1, NT2, None, 3),
    (["AS", "2H", "BJ", "4S"], 1, NT2, RTNT, 3),
    (["AS", "2H", "3S", "4S"], 1, NT2, RTNT, 2),
    # a trick not yet complete
    (["AS"], 3, H2, None, 3),
    (["AS", "3H"], 3, H2, None, 0),
    (["5S 5S", "6S 6S", "3H 4H"], 2, H2, None, 3),
    (["AS KS KS", "3H 4H 4H"], 1, H2, None, 2),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("plays, leader, trump, rules, winner", WINNERS + ORDER_WINNERS)
def test_trick_winner(impl, plays, leader, trump, rules, winner):
    if impl == "reference":
        assert ref.trick_winner([parse_cards(p) for p in plays], leader, ref_trump(trump), rules) == winner
    else:
        assert win(plays, trump, leader, rules) == winner


def test_partial_tricks():
    """A trick not yet complete: its points and legality (its winners are WINNERS')."""
    r = R.trick(["AS"], H2, leader=3)
    assert r["points"] == 0 and r["legal"] == [None]
    assert R.trick(["5S 5S", "6S 6S", "3H 4H"], H2, leader=2)["points"] == 10
    assert R.trick(["AS KS KS", "3H 4H 4H"], H2, leader=1)["points"] == 20
    r = R.trick(["KS", "AS KS"], H2)  # a play of the wrong size is illegal and never wins
    assert r["legal"] == [None, False] and r["winner"] == 0
    assert win(["7H", "10H QH"]) == 0
    assert win(["5S 5S", "3H 3H 4H"]) == 0


# ===========================================================================
# 6. Scoring: points, kitty, level table

KITTY = "KS 10D 5C 5H 3S 4S 6S 7S"  # 30 points


NO_POINTS = "3S 4S 6S 7S 8S 9S JS QS"
KITTY_BONUS = [  # (kitty, last lead, {kitty_multiplier: bonus}; None: the default), hearts trump, rank 2
    (KITTY, "3S", {None: 60, "twice_lead_size": 60, "pow2_pairs": 60, "twice_largest_unit": 60}),
    (KITTY, "3S 3S", {None: 120, "twice_lead_size": 120, "pow2_pairs": 120, "twice_largest_unit": 120}),
    (KITTY, "3S 3S 4S 4S 5S 5S", {None: 360, "twice_lead_size": 360, "pow2_pairs": 480, "twice_largest_unit": 360}),
    (KITTY, "AS QS QS 9S 9S", {None: 300, "twice_lead_size": 300, "pow2_pairs": 240, "twice_largest_unit": 120}),
    (KITTY, "AS KS", {None: 120, "twice_lead_size": 120, "pow2_pairs": 60, "twice_largest_unit": 60}),
    # docs/rules.md: a lead of 5 cards, x10
    (KITTY, "AS KS 9S 8S 7S", {None: 300, "twice_lead_size": 300, "pow2_pairs": 60, "twice_largest_unit": 60}),
    (NO_POINTS, "AS", {None: 0}),
    (NO_POINTS, "AS AS KS KS", {None: 0}),
    ("KS KS 10S 10S 5S 5S 5D 5D", "AS", {None: 2 * 60}),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("kitty, lead, bonus", KITTY_BONUS)
def test_kitty_bonus(impl, kitty, lead, bonus):
    for mode, want in bonus.items():
        rules = None if mode is None else {"kitty_multiplier": mode}
        if impl == "reference":
            got = ref.kitty_bonus(parse_cards(kitty), parse_cards(lead), ref_trump(H2), rules)
        elif mode == "twice_largest_unit":  # the referee needs the trump for this one only
            got = R.kitty_bonus(kitty, lead, rules, trump=H2)
        else:
            got = R.kitty_bonus(kitty, lead, rules)
        assert got == want, mode


def test_kitty_bonus_largest_unit_depends_on_the_trump():
    mode = {"kitty_multiplier": "twice_largest_unit"}
    assert R.kitty_bonus(KITTY, "3S 3S 5S 5S", mode, trump={"rank": "4", "suit": "H"}) == 240  # a tractor
    assert R.kitty_bonus(KITTY, "3S 3S 5S 5S", mode, trump=H2) == 120  # two pairs
    assert R.kitty_bonus(KITTY, "2S 2S 2D 2D", {"kitty_multiplier": "pow2_pairs"}) == 240
    assert R.kitty_bonus(KITTY, "2S 2D", {"kitty_multiplier": "pow2_pairs"}) == 60  # no pair
    with pytest.raises(RefereeError, match="trump: needed"):
        R.kitty_bonus(KITTY, "3S", mode)
    with pytest.raises(RefereeError, match="last_lead: no cards"):
        R.kitty_bonus(KITTY, "")


LEVEL_EDGES = [
    (-40, "p<=0", "declarers", 3),
    (-10, "p<=0", "declarers", 3),
    (-5, "p<=0", "declarers", 3),
    (0, "p<=0", "declarers", 3),
    (5, "5-35", "declarers", 2),
    (35, "5-35", "declarers", 2),
    (40, "40-75", "declarers", 1),
    (75, "40-75", "declarers", 1),
    (80, "80-115", "opponents", 0),
    (115, "80-115", "opponents", 0),
    (120, "120-155", "opponents", 1),
    (155, "120-155", "opponents", 1),
    (160, "160-195", "opponents", 2),
    (195, "160-195", "opponents", 2),
    (200, "200-235", "opponents", 3),
    (235, "200-235", "opponents", 3),
    (240, "240-275", "opponents", 4),
    (275, "240-275", "opponents", 4),
    (280, "280-315", "opponents", 5),
    (315, "280-315", "opponents", 5),
    (320, "320-355", "opponents", 6),
    (600, "600-635", "opponents", 13),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("p, row, winner, levels", LEVEL_EDGES)
def test_level_table(impl, p, row, winner, levels):
    keep = winner == "declarers"
    if impl == "reference":
        assert ref.level_change(p) == {"winner": winner, "levels": levels, "declarers_keep": keep}
        return
    assert R.level_change(p) == {
        "row": row,
        "winner": winner,
        "levels": levels,
        "declarers_keep": keep,
        "next_starter": "partner of the starter" if keep else "player to the starter's right",
    }
    assert tuple(S.level_change(p)) == (keep, levels)


def test_level_change_input_errors():
    for bad in ("80", 80.0, True, None):
        with pytest.raises(RefereeError, match="opponents_points"):
            R.level_change(bad)


# ===========================================================================
# 7. Match: next starter, match end


NEXT_STARTERS = [  # (starter, the declarers keep, the next starter)
    (0, True, 2), (1, True, 3), (2, True, 0), (3, True, 1),  # the partner
    (0, False, 1), (1, False, 2), (2, False, 3), (3, False, 0),  # the player to the right: next to act
]
STARTERS_AFTER = [(1, 75, 3), (1, 80, 2), (2, 75, 0), (2, 80, 3)]  # (starter, opponents' points, next starter)


@pytest.mark.parametrize("impl", IMPLS)
def test_next_starter(impl):
    if impl == "reference":
        after, keeps = ref.next_starter, lambda p: ref.level_change(p)["declarers_keep"]
    else:
        after, keeps = S.next_starter, lambda p: S.level_change(p)[0]
    assert [after(starter, keep) for starter, keep, _ in NEXT_STARTERS] == [n for _, _, n in NEXT_STARTERS]
    assert [after(starter, keeps(p)) for starter, p, _ in STARTERS_AFTER] == [n for _, _, n in STARTERS_AFTER]


def test_levels_2_to_ace():
    assert [RANKS[i] for i in range(13)] == "2 3 4 5 6 7 8 9 10 J Q K A".split()


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(
    "mode, levels, winner",  # winner None: the match goes on
    [
        ("pass_ace", (11 + 2, 5), 0),  # a team at K gaining 2 passes the Ace
        ("pass_ace", (12 + 1, 5), 0),  # at A gaining 1
        ("pass_ace", (11 + 3, 5), 0),
        ("pass_ace", (12, 5), None),  # at the Ace: not yet
        ("pass_ace", (10 + 2, 12), None),
        ("pass_ace", (12, 12), None),
        ("pass_ace", (3, 13), 1),
        ("pass_ace", (3, 14), 1),
        ("pass_ace", (0, 0), None),
        ("reach_ace", (12, 5), 0),  # reaching the Ace ends it
        ("reach_ace", (11, 5), None),
        ("reach_ace", (4, 12), 1),
        ("reach_ace", (4, 13), 1),
        ("reach_ace", (11, 11), None),
    ],
)
def test_match_end(impl, mode, levels, winner):
    if impl == "reference":
        assert ref.match_winner(list(levels), {"match_end": mode}) == winner
    else:
        got = S.match_winner(levels[0], levels[1], Rules(match_end=mode).encode())
        assert got == (-1 if winner is None else winner)


# ===========================================================================
# The referee's explanations


def test_trick_explanations():
    r = R.trick(["AS QS QS", "3S 4D", "JS JS", "KS KS"], H2, hands=BLOCK_HANDS, explain=True)
    notes = r["explain"]
    assert notes[0] == "seat 0's throw fails: seat 3 can beat QS QS, which must be led instead; penalty 10 points"
    assert notes[1] == "seat 1: legal, plays all 1 spades held and fills up"
    assert notes[2] == "seat 2: legal, follows with spades, 1 pair(s) as required"
    assert notes[-1].startswith("seat 3 wins: plays the highest pair (KS KS)")
    r = R.trick(["AS", "3H", "5D", "4S"], H2, hands=["AS", "3H 4D", "5D 6D", "4S 5S"], explain=True)
    assert r["explain"][0] == "seat 1: legal, void in spades, free to play anything"
    assert r["explain"][-1].startswith("seat 1 wins: ruffs with trumps (3H)")
    r = R.trick(["5S 5S", "3S 4S"], H2, hands=["5S 5S", "3S 3S 4S", "KS 9S", "4C"], explain=True)
    assert r["legal"] == [True, False]
    assert r["explain"][0] == "seat 1: illegal, must play 1 pair(s) of spades but plays 0"
    assert r["explain"][-1].startswith("seat 0 wins")
    r = R.trick(["5S 5S 6S 6S", "3S 3S 9S 9S"], H2, hands=["5S 5S 6S 6S", "3S 3S 4S 4S 9S 9S", "KS", "4C"],
                rules={"follow_tractor": "tractor"}, explain=True)
    assert r["legal"] == [True, False]
    assert r["explain"][0] == "seat 1: illegal, holds a tractor of spades and must play it"
    r = R.trick(["5S", "6S 7S"], H2, explain=True)
    assert r["legal"] == [None, False] and r["explain"][0] == "seat 1: illegal, wrong number of cards"


def test_empty_combination_is_no_lead():
    tt = trump_table(0, 1, 0)
    units_, ucards = K.new_units()
    empty = np.zeros(54, dtype=np.int64)
    assert K.decompose(empty, tt, units_, ucards) == 0
    assert K.kind_of(units_, 0) == K.NOT_A_LEAD
    assert K.combo_suit(empty, tt) == -1
    with pytest.raises(RefereeError, match="cards: no cards"):
        R.classify("", H2)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(plays=[]), "field 'plays': 0 items; expected 1 to 4 (card lists in playing order)"),
        (dict(plays=["AS"] * 5), "field 'plays': 5 items; expected 1 to 4 (card lists in playing order)"),
        (dict(plays="AS"), "field 'plays': expected card lists in playing order, got 'AS'"),
        (dict(plays=["AS"], leader=4), "field 'leader': 4 is too large; the largest allowed value is 3"),
        (dict(plays=["AS"], declarers=(0, 1)), "declarers: expected [0, 2] or [1, 3], got (0, 1)"),
        (dict(plays=["AS"], declarers=2), "declarers: expected [0, 2] or [1, 3], got 2"),
        (dict(plays=["AS"], hands=["AS", "KS"]), "field 'hands': 2 items; expected 4 (a card list per seat"),
        (dict(plays=["AS 2S"]), "plays[0]: a lead must be of one effective suit"),
    ],
)
def test_trick_input_errors(kwargs, message):
    with pytest.raises(RefereeError) as e:
        R.trick(trump=H2, **kwargs)
    assert str(e.value).startswith(message)


def test_throw_explanation_when_nobody_ruffs():
    r = R.trick(["AS KS KS", "AS QS QS", "JS JS 6C", "2S BJ 7C"], H2, hands=THROW_HANDS, explain=True)
    assert r["winner"] == 0
    assert r["explain"][-1] == "seat 0 wins: nobody ruffed the throw with the same arrangement in trumps"
