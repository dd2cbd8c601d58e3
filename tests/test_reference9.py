"""The section-9 reference (tests/reference9.py): hand-built cases from docs/rules.md section 9 and
docs/decisions.md ("More decks, more players, Finding Friends"), its equivalence with
tests/reference.py at 4 players and 2 decks on random situations, and random whole deals
(tests/reference9_deal.py) at 5/2, 6/3 and 8/4 in both team modes.

Card strings: ``7S*3`` is three copies of 7S."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from tractor_sim.rules.cards import BJ, RJ, card_str, parse_card, parse_cards, parse_rank, parse_suit

try:
    from tests import reference as ref
    from tests import reference9 as r9
    from tests import reference9_deal as rd
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref
    import reference9 as r9
    import reference9_deal as rd


def C(s):
    """Cards with ``*k`` repeats: ``"7S*3 4S"`` -> [7S, 7S, 7S, 4S]."""
    out = []
    for token in s.split():
        card, _, times = token.partition("*")
        out += parse_cards(card) * (int(times) if times else 1)
    return out


def c(s):
    return parse_card(s)


def T(rank, suit):
    return (parse_rank(rank), parse_suit(suit))


H2 = T("2", "H")  # rank 2, hearts trump: spades, diamonds, clubs are plain suits
NT2 = T("2", None)


# ---------------------------------------------------------------------------
# Size (docs/rules.md section 9 "Size")

# "Examples: 4 players 2 decks: kitty 8, hands 25; 5/2: 8, 20; 6/3: 6, 26; 8/4: 8, 26."
@pytest.mark.parametrize("players, decks, kitty, hand", [(4, 2, 8, 25), (5, 2, 8, 20), (6, 3, 6, 26), (8, 4, 8, 26)])
def test_sizes_of_the_examples(players, decks, kitty, hand):
    g = r9.Game(players, decks, "friends")
    assert (g.kitty, g.hand_size) == (kitty, hand)


# "Kitty k = 54 D mod N; if k = 0 then k = N; if k < 5 then k += N. Hands hold (54 D - k) / N cards."
# The table of decisions.md 9.1, for every N in 4..8 and D in 2..4.
SIZE_TABLE = {
    4: [(8, 25), (6, 39), (8, 52)],
    5: [(8, 20), (7, 31), (6, 42)],
    6: [(6, 17), (6, 26), (6, 35)],
    7: [(10, 14), (8, 22), (6, 30)],
    8: [(12, 12), (10, 19), (8, 26)],
}


@pytest.mark.parametrize("players", range(4, 9))
@pytest.mark.parametrize("decks", (2, 3, 4))
def test_sizes_for_every_game(players, decks):
    g = r9.Game(players, decks, "friends")
    assert (g.kitty, g.hand_size) == SIZE_TABLE[players][decks - 2]
    assert g.kitty >= 5 and g.players * g.hand_size + g.kitty == 54 * decks
    # "54 D cards, every card D times"; "Points in the deck: 100 D"
    deck = g.deck()
    assert len(deck) == 54 * decks and set(Counter(deck).values()) == {decks}
    assert g.total_points == 100 * decks == sum(r9.points([x]) for x in deck)
    # "Level table with step S = 20 D"; "F = N // 2 - 1 friends"
    assert g.level_step == 20 * decks and g.friends == players // 2 - 1


def test_game_defaults_and_refusals():
    # "D decks (2 to 4; default N // 2)"
    assert [r9.Game(n, None, "friends").decks for n in range(4, 9)] == [2, 2, 3, 3, 4]
    # "tractor (even N)"
    with pytest.raises(ValueError, match="even"):
        r9.Game(5, 2, "tractor")
    for bad in (dict(players=3), dict(players=9), dict(players=6, decks=1), dict(players=6, decks=5),
                dict(players=6, teams="pairs")):
        with pytest.raises(ValueError):
            r9.Game(**bad)


# ---------------------------------------------------------------------------
# Card order: the same as sections 1-5 ("trump order as sections 1-5")


def test_card_order_is_the_reference_one():
    """Two separate readings of sections 1-4 (reference.py and reference9.py) agree on every card."""
    for rank in range(13):
        for suit in range(5):
            for variant in (False, True):
                rules = {"rank_trumps_in_no_trump": variant}
                for x in range(54):
                    assert r9.position(x, (rank, suit), rules) == ref.position(x, (rank, suit), rules)
                    assert r9.effective_suit(x, (rank, suit), rules) == ref.effective_suit(x, (rank, suit), rules)


# ---------------------------------------------------------------------------
# Tuples and tractors (docs/rules.md section 9 "Tuples and tractors"; decisions.md 9.2)

# The decomposition cases are tests/test_tuples.py's DECOMPOSED, checked against this reference and the
# kernels there; the lead kinds are this reference's classify alone.


def test_lead_kinds_with_tuples():
    # "A tuple is m identical cards, 2 <= m <= D (pair, triple, quadruple)."
    assert r9.classify(C("AS*3"), H2)["kind"] == "tuple"
    assert r9.classify(C("2C*4"), H2)["kind"] == "tuple"
    assert r9.classify(C("BJ*3"), NT2)["kind"] == "tuple"
    # "A tractor is two or more tuples of the same size m with consecutive ranks (section 5's adjacency)."
    assert r9.classify(C("KS*3 QS*3"), H2)["kind"] == "tractor"
    # two off-suit rank triples are equal, not consecutive
    assert r9.classify(C("2S*3 2D*3"), H2)["kind"] == "throw"


def test_classify_errors():
    with pytest.raises(ValueError):
        r9.classify([], H2)
    with pytest.raises(ValueError):
        r9.classify(C("AS AS AD"), H2)


# ---------------------------------------------------------------------------
# Throws (docs/rules.md section 5 "Throw", "Failed throw"; 9: "a part is beaten by a higher part of the same shape")


def seats(n, **held):
    hands = [[] for _ in range(n)]
    for k, v in held.items():
        hands[int(k[1:])] = C(v)
    return hands


def test_throw_with_a_triple_is_decomposed_and_stands():
    lead = C("AS*3 QS*2 10S")
    assert [r9.shape(u) for u in r9.classify(lead, H2)["units"]] == [(3, 1), (2, 1), (1, 1)]
    # no higher part of the same shape anywhere: a triple of 8S is lower, a pair of 9S too,
    # 9S is lower than 10S, and the trumps of seat 3 do not count in spades
    hands = seats(6, s1="9S*2 3S", s2="8S*3", s3="2S*3 AH*3", s5="3S*2")
    assert r9.check_throw(lead, hands, 0, {0, 2, 4}, H2)["ok"]
    # a JS elsewhere beats the single 10S
    hands[4] = C("JS")
    r = r9.check_throw(lead, hands, 0, {0, 2, 4}, H2)
    assert r["forced"] == C("10S") and r["blocked_by"] == 4 and r["penalty"] == 50


def test_failed_throw_forced_part_with_tuples():
    # lead of seat 0 (a declarer in a 6-player tractor game): triple QS, pair 9S, single AS
    lead = C("QS*3 9S*2 AS")
    hands = seats(6, s2="10S*2", s3="KS*3")
    # both the triple (by KS*3 of seat 3) and the pair (by 10S 10S of seat 2) can be beaten:
    # "the one with fewest cards, then the lowest": the pair; 4 cards taken back, +10 each
    r = r9.check_throw(lead, hands, 0, {0, 2, 4}, H2)
    assert r == {"ok": False, "blocked_by": 2, "forced": C("9S 9S"), "penalty": 40, "taken_back": 4}
    r = r9.check_throw(lead, hands, 0, {0, 2, 4}, H2, {"throw_forced_part": "highest"})
    assert r == {"ok": False, "blocked_by": 3, "forced": C("QS QS QS"), "penalty": 30, "taken_back": 3}
    # an opponent thrower: the opponents' total falls
    r = r9.check_throw(lead, hands, 0, {1, 3, 5}, H2)
    assert r["penalty"] == -40
    # throws checked against opponents only: seat 2 is the thrower's partner and is not asked;
    # seat 3's triple of KS holds a pair higher than 9S 9S too, so the pair is still forced
    r = r9.check_throw(lead, hands, 0, {0, 2, 4}, H2, {"throw_check": "opponents_only"})
    assert r["forced"] == C("9S 9S") and r["blocked_by"] == 3
    hands[3] = C("8S*2 KD")  # now only the partner could beat anything
    assert r9.check_throw(lead, hands, 0, {0, 2, 4}, H2, {"throw_check": "opponents_only"})["ok"]


def test_a_larger_group_beats_a_smaller_tuple_and_tractors_need_the_size():
    lead = C("QS*3 AS")
    # a quadruple of KS holds a higher triple
    assert not r9.check_throw(lead, seats(5, s3="KS*4"), 0, {0}, H2)["ok"]
    # a pair of KS does not
    assert r9.check_throw(lead, seats(5, s3="KS*2 KD*2"), 0, {0}, H2)["ok"]
    # a tractor of triples is beaten only by a higher tractor of triples
    lead = C("9S*3 8S*3 AS")
    assert r9.check_throw(lead, seats(6, s1="JS*3 10S*2", s4="QS*2 JS"), 0, {0, 2, 4}, H2)["ok"]
    r = r9.check_throw(lead, seats(6, s1="JS*3 10S*2", s4="JS*3 10S*3"), 0, {0, 2, 4}, H2)
    assert r["forced"] == C("9S*3 8S*3") and r["blocked_by"] == 4


def test_throw_blocked_by_the_first_seat_in_playing_order_of_n_players():
    lead = C("AS QS*2")
    # leader 3 of 5: order 4, 0, 1, 2; seats 0 and 2 can beat the pair
    r = r9.check_throw(lead, seats(5, s0="KS*2", s2="KS*2"), 3, {3}, H2)
    assert r["blocked_by"] == 0 and r["forced"] == C("QS QS") and r["penalty"] == 10


# ---------------------------------------------------------------------------
# Following (docs/rules.md section 9 "Following"; decisions.md 9.3 worked examples, 3 decks unless said)


# The hand-built follow cases are tests/test_tuples.py's WORKED, checked against this reference and the
# kernels there; what only the reference answers stays here.


def test_owed_tuples_with_two_decks_is_the_pair_rule():
    """decisions.md 9.3, 4: with groups of at most 2 cards, min(P, H) pairs."""
    for hand, required, pairs in (("3S*2 5S*2 7S", {2: 1}, 1), ("3S*2 5S*2 7S", {2: 3}, 2), ("3S 7S", {2: 2}, 0)):
        assert r9.owed_tuples(C(hand), required) == {2: pairs}


def test_tractor_cover():
    """How many cards of a hand the lead's tractors can cover (the follow_tractor options' measure)."""
    hand = "7S*3 6S*3 9S*3 4S"
    assert r9.tractor_cover(C(hand), [(3, 2)], H2) == 6
    assert r9.tractor_cover(C("7S*2 6S*2 5S*3"), [(3, 2), (2, 2)], H2) == 4
    assert r9.tractor_cover(C("7S*3 6S*3 5S*2 4S*2"), [(3, 2), (2, 2)], H2) == 10


# ---------------------------------------------------------------------------
# Trick winner (docs/rules.md section 9 "Winner": "a lead is beaten only by the same shape ... all higher,
# in the suit or all in trumps; throws as in section 5, comparing the largest tuple or tractor")


def win(plays, leader=1, players=5, trump=H2):
    return r9.trick_winner([C(p) for p in plays], leader, players, trump)


def test_winner_among_triples():
    assert win(["9S*3", "JS*3", "AS AS KS", "3S*3", "10S*3"]) == 2
    assert win(["9S*3", "3H*3", "AS*3", "4H 4H 5H", "3S 4S 5S"]) == 2  # a trump triple ruffs
    assert win(["9S*3", "3H*3", "5H*3", "4H 4H 5H", "3S 4S 5S"]) == 3  # higher ruff
    assert win(["9S*3", "2S*3", "2D*3", "3S 4S 5S", "6S 7S 8S"], leader=4) == 0  # equal ruffs: earlier
    assert win(["9S*3", "AH AH 3H", "3S 4S 5S", "6S 7S 8S", "KS KD KC"]) == 1  # nothing of the shape: the leader


def test_winner_of_a_tractor_of_triples_and_a_ruff():
    lead = "5S*3 6S*3"
    assert win([lead, "8S*3 9S*3", "3H*3 4H*3", "AS*3 KS*3", "2C 3C 4C 5C 6C 7C"]) == 3
    # in-suit: the higher tractor of triples; a tractor of pairs with two more trumps does not compete
    assert win([lead, "8S*3 9S*3", "3H*2 4H*2 9H QH", "AS*3 QS*3", "2C 3C 4C 5C 6C 7C"]) == 2
    # six players
    assert win([lead, "8S*3 10S*3", "3S 4S 7S 8S 9S 10S", "3H*3 4H*3", "2S*3 2D*3", "AH*3 2C*3"],
               leader=5, players=6) == 4


def test_winner_of_a_throw_with_a_triple():
    lead = "AS*3 KS"  # a triple and a single
    assert win([lead, "3H*3 4H", "3S 4S 5S 6S", "5D 6D 7D 8D", "9D 10D JD QD"]) == 2
    assert win([lead, "3H*2 4H 5H", "3S 4S 5S 6S", "5D 6D 7D 8D", "9D 10D JD QD"]) == 1  # wrong arrangement
    # several ruffers: the largest unit, the triple, is compared (not the single)
    assert win([lead, "3H*3 RJ", "5H*3 4H", "5D 6D 7D 8D", "9D 10D JD QD"]) == 3
    assert win(["RJ AH", "BJ*2", "2H 2S", "3S 4S", "5S 6S"], leader=2, players=5) == 2  # a trump throw stands


# ---------------------------------------------------------------------------
# Declaring (docs/rules.md section 9 "Declaring")


def decl(count, card):
    return (count, c(card))


def test_declare_with_three_decks():
    # "one to D identical cards of the trump rank (or 2..D identical jokers of one colour)"
    hand = C("2H*3 2S BJ*2 RJ 5C")
    assert r9.declare_allowed(hand, None, 0, 0, 3) == [
        decl(1, "2S"), decl(1, "2H"), decl(2, "2H"), decl(2, "BJ"), decl(3, "2H")]


def test_declare_overrides_with_three_decks():
    # "More cards beat fewer; at equal counts, red jokers beat black jokers beat a suit."
    hand = C("2H*3 2S*2 BJ*2 RJ*2")
    assert r9.declare_allowed(hand, (1, 1, c("2D")), 0, 0, 3) == [
        decl(2, "2S"), decl(2, "2H"), decl(2, "BJ"), decl(2, "RJ"), decl(3, "2H")]
    assert r9.declare_allowed(hand, (1, 2, c("2D")), 0, 0, 3) == [decl(2, "BJ"), decl(2, "RJ"), decl(3, "2H")]
    assert r9.declare_allowed(hand, (1, 2, BJ), 0, 0, 3) == [decl(2, "RJ"), decl(3, "2H")]
    assert r9.declare_allowed(hand, (1, 2, RJ), 0, 0, 3) == [decl(3, "2H")]
    assert r9.declare_allowed(hand, (1, 3, c("2C")), 0, 0, 3) == []
    assert r9.declare_allowed(C("BJ*3"), (1, 3, c("2C")), 0, 0, 3) == [decl(3, "BJ")]
    # a suit never beats a suit at equal counts, unless pair_override = suit_order (S > H > D > C)
    assert r9.declare_allowed(C("2S*2"), (1, 2, c("2H")), 0, 0, 3) == []
    assert r9.declare_allowed(C("2S*2"), (1, 2, c("2H")), 0, 0, 3, {"pair_override": "suit_order"}) == [decl(2, "2S")]
    # with 2 decks a red joker pair beats a black one only with joker_pair_override (section 2 unchanged)
    assert r9.declare_allowed(C("RJ RJ"), (1, 2, BJ), 0, 0, 2) == []
    assert r9.declare_allowed(C("RJ RJ"), (1, 2, BJ), 0, 0, 2, {"joker_pair_override": True}) == [decl(2, "RJ")]


def test_declare_strengthen_own():
    # "A player may strengthen his own declaration of the same suit."
    hand = C("2H*3 2S*2 BJ*3")
    assert r9.declare_allowed(hand, (0, 1, c("2H")), 0, 0, 3) == [decl(2, "2H"), decl(3, "2H")]
    assert r9.declare_allowed(hand, (0, 2, BJ), 0, 0, 3) == [decl(3, "BJ")]
    assert r9.declare_allowed(hand, (0, 3, c("2H")), 0, 0, 3) == []
    anyone = {"self_override": "any"}
    assert r9.declare_allowed(hand, (0, 2, c("2H")), 0, 0, 3, anyone) == [decl(2, "BJ"), decl(3, "2H"), decl(3, "BJ")]
    assert r9.declared_trump(decl(3, "2H"), 0) == (0, 1)
    assert r9.declared_trump(decl(2, "RJ"), 5) == (5, 4)


def test_declare_equals_the_two_deck_reference():
    """At D = 2, (kind 1/2, card) = (count, card) and a joker pair (3, j) = (2, j), under every override option."""
    rng = np.random.default_rng(7)
    options = [dict(self_override=s, pair_override=p, joker_pair_override=j)
               for s in ("strengthen_only", "any") for p in ("none", "suit_order") for j in (False, True)]
    rank_cards = lambda rank: [s * 13 + rank for s in range(4)] + [BJ, RJ]
    for _ in range(400):
        rank = int(rng.integers(13))
        pool = [x for x in rank_cards(rank) for _ in range(2)] + [int(x) for x in rng.integers(0, 52, 4)]
        hand = [pool[int(i)] for i in rng.choice(len(pool), size=int(rng.integers(1, 9)), replace=False)]
        hand = [x for x in hand if Counter(hand)[x] <= 2]
        current = None
        if rng.random() < 0.8:
            kind = int(rng.integers(1, 4))
            card = int(rng.choice([BJ, RJ])) if kind == 3 else int(rng.choice(rank_cards(rank)[:4]))
            current = (int(rng.integers(4)), kind, card)
        seat = int(rng.integers(4))
        for rules in options:
            old = ref.declare_allowed(hand, current, seat, rank, rules)
            cur9 = None if current is None else (current[0], 2 if current[1] == 3 else current[1], current[2])
            new = r9.declare_allowed(hand, cur9, seat, rank, 2, rules)
            assert sorted((2 if k == 3 else k, x) for k, x in old) == new, (hand, current, seat, rules)


# ---------------------------------------------------------------------------
# Level table (docs/rules.md section 9 "Level table with step S = 20 D")


@pytest.mark.parametrize("p, winner, levels", [
    (-20, "declarers", 3), (0, "declarers", 3), (5, "declarers", 2), (55, "declarers", 2),
    (60, "declarers", 1), (115, "declarers", 1), (120, "opponents", 0), (175, "opponents", 0),
    (180, "opponents", 1), (235, "opponents", 1), (240, "opponents", 2), (295, "opponents", 2),
    (300, "opponents", 3), (360, "opponents", 4),
])
def test_level_table_three_decks(p, winner, levels):
    # S = 60: "p <= 0: declarers +3; 5 .. S-5: +2; S .. 2S-5: +1; 2S .. 3S-5: no change, the other
    # side takes over; 3S .. 4S-5: opponents +1; then +1 for each further S"
    assert r9.level_change(p, 3) == {"winner": winner, "levels": levels, "declarers_keep": winner == "declarers"}


def test_level_table_two_and_four_decks():
    # "(40 with two decks, as in section 6)"
    for p in range(-100, 500, 5):
        assert r9.level_change(p, 2) == ref.level_change(p)
    assert [r9.level_change(p, 4)["levels"] for p in (75, 80, 155, 160, 239, 240, 319, 320, 400)] == \
           [2, 1, 1, 0, 0, 1, 1, 2, 3]


def test_tractor_mode_six_players():
    # "tractor (even N): fixed teams of alternating seats; partner of the starter meaning the next
    # member of his team in playing order"
    g = r9.Game(6, 3, "tractor")
    r = r9.tractor_round_result([4, 7], 1, 60, g)  # starter 1 (team 1) keeps: +1
    assert r["levels"] == [4, 8] and r["next_starter"] == 3 and r["winner_team"] is None
    r = r9.tractor_round_result([4, 7], 5, 180, g)  # team 0 takes over with +1; the player to the right
    assert r["levels"] == [5, 7] and r["next_starter"] == 0
    r = r9.tractor_round_result([12, 7], 4, 0, g)  # at A, +3: passes the Ace
    assert r["winner_team"] == 0 and r["next_starter"] == 0


# ---------------------------------------------------------------------------
# Finding Friends (docs/rules.md section 9 "Teams", friends)


def test_calls_allowed():
    # "each call names a card that is neither a joker nor of the trump rank, and which of its D copies"
    assert r9.call_allowed(c("AS"), 1, 0, 3) and r9.call_allowed(c("AS"), 3, 0, 3)
    assert r9.call_allowed(c("AH"), 2, 0, 3)  # the trump suit may be called
    assert not r9.call_allowed(c("AS"), 4, 0, 3) and not r9.call_allowed(c("AS"), 0, 0, 3)
    assert not r9.call_allowed(c("2S"), 1, 0, 3) and not r9.call_allowed(BJ, 1, 0, 3)
    assert not r9.call_allowed(RJ, 2, 5, 3) and not r9.call_allowed(c("7D"), 1, 5, 3)
    g = r9.Game(6, 3, "friends")
    with pytest.raises(ValueError):
        r9.FriendTeam(0, [(c("AS"), 1)], 0, g)  # F = 2 calls
    with pytest.raises(ValueError):
        r9.FriendTeam(0, [(c("AS"), 1), (c("2S"), 1)], 0, g)


def test_friend_joins_when_the_called_copy_is_played():
    # "The player who plays that copy joins the landlord's team at that moment"
    g = r9.Game(6, 3, "friends")
    team = r9.FriendTeam(0, [(c("AS"), 2), (c("KD"), 1)], 0, g)
    assert team.play(1, C("AS")) == []  # first copy
    assert team.play(3, C("AS 5S")) == [3]  # second copy: seat 3 joins
    assert team.members == {0, 3}
    assert team.play(4, C("AS")) == []  # third copy: nothing
    # copies in one play count in a row: a pair of KD not seen before holds the first copy
    assert team.play(5, C("KD KD")) == [5]
    assert team.members == {0, 3, 5} and team.state == ["joined", "joined"]
    assert [(i, s) for i, s, _ in team.joined] == [(0, 3), (1, 5)]


def test_wasted_call():
    # "if he is already in it, the call is used up and nobody joins"
    g = r9.Game(6, 3, "friends")
    team = r9.FriendTeam(2, [(c("AS"), 1), (c("AC"), 1)], 0, g)
    assert team.play(2, C("AS")) == []  # the landlord plays his own call
    assert team.state == ["wasted", "open"] and team.members == {2}
    team = r9.FriendTeam(2, [(c("AS"), 1), (c("AC"), 1)], 0, g)
    assert team.play(4, C("AS")) == [4]
    assert team.play(4, C("AC")) == []  # a friend plays the second call: used up
    assert team.state == ["joined", "wasted"] and team.members == {2, 4}
    assert team.play(1, C("AC")) == []  # a later copy does not revive it


def test_smaller_team_bonus_and_next_landlord():
    g = r9.Game(6, 3, "friends")  # F = 2: a full team has 3 members
    levels = [0, 3, 5, 0, 2, 7]
    # "If the landlord's team wins with fewer than F + 1 members, each of them gains one more level."
    r = r9.friends_round_result(levels, 2, {2, 5}, 0, g)
    assert r["levels"] == [0, 3, 9, 0, 2, 11] and r["gain"] == 4
    # "Next landlord: the first player after the landlord, in playing order, who is on the winning side."
    assert r["next_landlord"] == 5
    r = r9.friends_round_result(levels, 2, {2, 5, 0}, 0, g)  # a full team: +3, no bonus
    assert r["levels"] == [3, 3, 8, 0, 2, 10] and r["next_landlord"] == 5
    # "Each winner moves up from his own level": the opponents win +1 at p = 180 (S = 60)
    r = r9.friends_round_result(levels, 2, {2, 5, 0}, 180, g)
    assert r["levels"] == [0, 4, 5, 1, 3, 7] and r["next_landlord"] == 3
    # the take-over row: nobody gains, the landlordship passes
    r = r9.friends_round_result(levels, 5, {5, 1}, 120, g)
    assert r["levels"] == levels and r["next_landlord"] == 0
    # a landlord who won alone stays landlord, with the bonus
    r = r9.friends_round_result(levels, 4, {4}, 60, g)
    assert r["levels"][4] == 4 and r["next_landlord"] == 4


def test_match_end_when_a_player_passes_the_ace():
    # "The match ends when a player passes the Ace."
    g = r9.Game(5, 2, "friends")  # F = 1
    levels = [11, 0, 12, 0, 4]
    r = r9.friends_round_result(levels, 0, {0, 3}, 40, g)  # +1: K -> A, not past it
    assert r["levels"][0] == 12 and not r["match_over"]
    r = r9.friends_round_result(levels, 0, {0, 3}, 5, g)  # +2: K -> past the Ace
    assert r["match_over"] and r["past_the_end"] == [0]
    r = r9.friends_round_result(levels, 1, {1, 4}, 120, g)  # opponents +1: seat 2 passes the Ace, seat 0 reaches it
    assert r["past_the_end"] == [2] and r["levels"][0] == 12
    r = r9.friends_round_result([11, 0, 10, 0, 4], 0, {0, 3}, 40, g, {"match_end": "reach_ace"})
    assert r["past_the_end"] == [0]
    # must_defend applies per player: seat 2 at A, winning as an opponent, stays on A
    r = r9.friends_round_result(levels, 1, {1, 4}, 120, g, {"must_defend": "ace"})
    assert r["levels"][2] == 12 and not r["match_over"]


def test_kitty_multipliers_count_tuples():
    kitty = C("KS 10D 5C 3S 4S 6S")  # 25 points
    lead = C("3S*3 4S*3 9S")
    assert r9.kitty_bonus(kitty, lead, H2) == 25 * 14
    assert r9.kitty_bonus(kitty, lead, H2, {"kitty_multiplier": "pow2_pairs"}) == 25 * 8
    assert r9.kitty_bonus(kitty, lead, H2, {"kitty_multiplier": "twice_largest_unit"}) == 25 * 12


# ---------------------------------------------------------------------------
# Equivalence with tests/reference.py at 4 players and 2 decks, on the random situations of
# tests/test_differential.py (its generators; no kernel is called)

EQUIVALENCE_SITUATIONS = 3000


def _ref9_units(units):
    return [("single" if u["size"] == 1 else "pair" if u["type"] == "tuple" else "tractor", u["tuples"], u["cards"])
            for u in units]


def _ref_units(units):
    return [(u["type"], u["pairs"], u["cards"]) for u in units]


def test_equivalent_to_the_two_deck_reference_on_random_situations():
    from tests.test_differential import _sample, legal_follow_gen, make_chunk

    rng = np.random.default_rng(20261201)
    verdicts = Counter()
    sit = make_chunk(rng, EQUIVALENCE_SITUATIONS)
    for s in sit["py"]:
        trump, rules, lead, hands, leader = s["trump"], s["rules"], s["lead"], s["hands"], s["leader"]
        info, info9 = ref.classify(lead, trump, rules), r9.classify(lead, trump, rules)
        assert _ref_units(info["units"]) == _ref9_units(info9["units"])
        assert info["kind"] == {"tuple": "pair"}.get(info9["kind"], info9["kind"])
        assert _ref_units(ref.decompose(s["pool"], trump, rules)) == _ref9_units(r9.decompose(s["pool"], trump, rules))
        declarers = (0, 2) if rng.random() < 0.5 else (1, 3)
        for check in ("all_others", "opponents_only"):
            for part in ("fewest_then_lowest", "lowest", "highest"):
                opts = dict(rules, throw_check=check, throw_forced_part=part)
                old = ref.check_throw(lead, hands, leader, declarers, trump, opts)
                new = r9.check_throw(lead, hands, leader, declarers, trump, opts)
                new.pop("taken_back")
                assert old == new
                verdicts[f"throw ok={old['ok']}"] += 1
        plays = [lead]
        for k in (1, 2, 3):
            seat = (leader + k) % 4
            built = legal_follow_gen(rng, hands[seat], info["units"], info["suit"], len(lead), s["order"])
            candidates = [built]
            if len(hands[seat]) >= len(lead):
                candidates.append(_sample(rng, hands[seat], len(lead)))
            for play in candidates:
                for mode in ("none", "tractor", "shape_first"):
                    opts = dict(rules, follow_tractor=mode)
                    verdict = ref.legal_follow(hands[seat], lead, play, trump, opts)
                    assert r9.legal_follow(hands[seat], lead, play, trump, opts) == verdict
                    verdicts[f"follow {mode} {verdict}"] += 1
            plays.append(built)
            assert ref.trick_winner(plays, leader, trump, rules) == r9.trick_winner(plays, leader, 4, trump, rules)
        random_plays = [lead] + [_sample(rng, hands[(leader + k) % 4], len(lead))
                                 for k in (1, 2, 3) if len(hands[(leader + k) % 4]) >= len(lead)]
        assert ref.trick_winner(random_plays, leader, trump, rules) == r9.trick_winner(random_plays, leader, 4, trump, rules)
        for mult in ("twice_lead_size", "pow2_pairs", "twice_largest_unit"):
            opts = dict(rules, kitty_multiplier=mult)
            assert ref.kitty_bonus(s["kitty"], lead, trump, opts) == r9.kitty_bonus(s["kitty"], lead, trump, opts)
    # both verdicts of every check occurred, so the comparison could have failed
    for key in ("throw ok=True", "throw ok=False", "follow none True", "follow none False",
                "follow tractor False", "follow shape_first False"):
        assert verdicts[key] > 50, (key, verdicts)


# ---------------------------------------------------------------------------
# Random whole deals (tests/reference9_deal.py)

DEAL_GAMES = [(5, 2, "friends"), (6, 3, "tractor"), (6, 3, "friends"), (8, 4, "friends"),
              (4, 2, "tractor"), (4, 2, "friends"), (8, 4, "tractor"), (7, 3, "friends")]


@pytest.mark.parametrize("players, decks, teams", DEAL_GAMES)
def test_random_deals_keep_the_invariants(players, decks, teams):
    """Every card once, points 100 D, hand sizes, every play legal by the reference (asserted inside play_deal)."""
    game = r9.Game(players, decks, teams)
    stats = Counter()
    for seed in range(12):
        for mode in ("none", "tractor", "shape_first"):
            rec = rd.play_deal(game, seed, {"follow_tractor": mode}, stats=stats, clump=0.4)
            assert sum(rec["won"]) + r9.points(rec["buried"]) == game.total_points
            assert len(rec["buried"]) == game.kitty
            if teams == "friends":
                assert 1 <= len(rec["members"]) <= game.friends + 1
            else:
                assert rec["members"] == [s for s in range(players) if s % 2 == rec["landlord"] % 2]
    # the deals reached what they are meant to exercise
    assert stats["lead tuple"] and stats["lead tractor"] and stats["failed throw"] and stats["won by a follower"]
    if decks >= 3:
        assert stats["unit (3, 1)"] > 0
    if teams == "friends" and game.friends:
        assert stats["call joined"] > 0


def test_random_deals_reach_tractors_of_triples_and_quadruples():
    stats = Counter()
    for seed in range(30):
        rd.play_deal(r9.Game(8, 4, "friends"), 1000 + seed, stats=stats, clump=0.6)
    assert stats["unit (3, 2)"] + stats["unit (4, 2)"] > 0 and stats["unit (4, 1)"] > 0
    assert stats["declared 3"] + stats["declared 4"] > 0


@pytest.mark.parametrize("players, decks, teams", [(5, 2, "friends"), (6, 3, "tractor")])
def test_random_match_ends(players, decks, teams):
    game = r9.Game(players, decks, teams)
    records = rd.play_match(game, 3, clump=0.3)
    last = records[-1]["result"]
    if teams == "friends":
        assert last["match_over"] and all(lv >= 13 for lv in (last["levels"][s] for s in last["past_the_end"]))
        for a, b in zip(records, records[1:]):
            assert b["landlord"] == a["next_starter"] and b["levels_before"] == a["levels"]
    else:
        assert last["winner_team"] is not None


# ---------------------------------------------------------------------------
# Properties on random tuple-rich situations (3 and 4 decks)


def _random_suit_cards(rng, decks, trump, suit, count):
    """``count`` cards of one effective suit, with up to ``decks`` copies of a card, copies clumped."""
    distinct = [x for x in range(54) if r9.effective_suit(x, trump) == suit]
    count = min(count, decks * len(distinct))
    out = []
    while len(out) < count:
        x = distinct[int(rng.integers(len(distinct)))]
        k = min(int(rng.integers(1, decks + 1)), decks - out.count(x), count - len(out))
        out += [x] * k
    return out


@pytest.mark.parametrize("decks", (3, 4))
def test_decomposition_partitions_the_cards(decks):
    """Units hold the cards exactly; tuples are identical cards; tractor tuples are consecutive; no tractor is left."""
    rng = np.random.default_rng(decks)
    for _ in range(400):
        trump = (int(rng.integers(13)), int(rng.integers(5)))
        suit = int(rng.integers(5))
        if not any(r9.effective_suit(x, trump) == suit for x in range(54)):
            continue
        cards = _random_suit_cards(rng, decks, trump, suit, int(rng.integers(1, 16)))
        units = r9.decompose(cards, trump)
        assert Counter(x for u in units for x in u["cards"]) == Counter(cards)
        assert [u["type"] for u in units] == sorted((u["type"] for u in units), key=["tractor", "tuple", "single"].index)
        for u in units:
            m, length = r9.shape(u)
            chunks = [u["cards"][i * m:(i + 1) * m] for i in range(length)]
            assert all(len(set(ch)) == 1 for ch in chunks)
            tops = [r9.position(ch[0], trump) for ch in chunks]
            assert [a - b for a, b in zip(tops, tops[1:])] == [1] * (length - 1)
            assert (u["type"] == "tractor") == (length >= 2) and (u["type"] == "single") == (m == 1)
        # what is left after the tractors holds no two adjacent tuples
        rest = [u for u in units if u["type"] == "tuple"]
        assert not any(a["top"] - b["top"] == 1 for a in rest for b in rest)


@pytest.mark.parametrize("decks", (3, 4))
def test_follow_rule_is_the_lexicographic_best_and_always_possible(decks):
    """Every n-card play of a small hand: legal (legal_follow) exactly when it answers, from the largest
    size down, the most tuples any play can (a second statement of the rule, by brute force); and with
    every follow_tractor option some play is legal."""
    import itertools

    rng = np.random.default_rng(10 + decks)
    trump = H2
    checked = Counter()
    for _ in range(400):
        suit = int(rng.integers(4))
        if suit == 1:
            continue  # hearts are trumps here
        lead = _random_suit_cards(rng, decks, trump, suit, int(rng.integers(2, 7)))
        hand = _random_suit_cards(rng, decks, trump, suit, int(rng.integers(len(lead), 11)))
        hand += [c("3D") if suit != 2 else c("3C")] * int(rng.integers(0, 2))
        n = len(lead)
        info = r9.classify(lead, trump)
        required = r9.required_tuples(info["units"])
        plays = {tuple(sorted(hand[i] for i in idx)) for idx in itertools.combinations(range(len(hand)), n)}
        in_suit = lambda p: [x for x in p if r9.effective_suit(x, trump) == suit]
        hand_s = in_suit(hand)
        candidates = [p for p in plays if len(in_suit(p)) == min(n, len(hand_s))]
        vector = lambda p: [r9.owed_tuples(in_suit(p), required)[m] for m in sorted(r9.owed_tuples([], required), reverse=True)]
        best = max(vector(p) for p in candidates)
        for p in plays:
            expected = p in candidates and vector(p) == best
            assert r9.legal_follow(hand, lead, list(p), trump) == expected, (hand, lead, p)
            checked[expected] += 1
            checked["fewer tuples than possible"] += p in candidates and not expected
        for mode in ("tractor", "shape_first"):
            assert any(r9.legal_follow(hand, lead, list(p), trump, {"follow_tractor": mode}) for p in candidates)
    assert checked[True] > 500 and checked["fewer tuples than possible"] > 500, checked


def test_the_reference_stands_alone():
    """reference9 and its deal player import from the package only the card helpers (no kernel, no
    rules module, not tests/reference.py): the kernels are to be checked against them."""
    import ast
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for name in ("reference9.py", "reference9_deal.py"):
        tree = ast.parse((here / name).read_text())
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        modules |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        package = {m for m in modules if m.startswith("tractor_sim")}
        assert package == {"tractor_sim.rules.cards"}, (name, package)
        assert not any(m in ("reference", "tests.reference") for m in modules), (name, modules)


@pytest.mark.slow
@pytest.mark.parametrize("players, decks, teams", DEAL_GAMES)
def test_many_random_deals(players, decks, teams):
    """-m slow: 300 deals per game size and follow option, with the counts of what happened (-s)."""
    game = r9.Game(players, decks, teams)
    stats = Counter()
    for seed in range(100):
        for mode in ("none", "tractor", "shape_first"):
            rd.play_deal(game, 10_000 + seed, {"follow_tractor": mode}, stats=stats, clump=0.3)
    print(players, decks, teams, dict(sorted(stats.items())))
