"""Properties of the rules kernels, with hypothesis-generated deals and hands.

* a deal split (the kernels' shuffle, card k to seat (first + k) % 4, the last
  8 to the kitty) conserves the 108 cards, and every deck holds 200 points;
* a decomposition conserves the cards and its units are what they claim;
* a legal follow always exists: a simple constructive follow passes the
  kernel's check, and the reference accepts it;
* the kernels and the reference agree on hypothesis-generated hands: the
  decomposition, the throw check, the legality of arbitrary plays, the
  winner of arbitrary tricks, declaring and the kitty flip.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from tractor_sim.rules.cards import POINTS, full_deck, points
from tractor_sim.core.kernels import combos as K
from tractor_sim.core.kernels import declare as D
from tractor_sim.core.kernels import scoring as S
from tractor_sim.core.kernels.bits import lowest_bit
from tractor_sim.core.kernels.order import TT_EFF, TT_POS, trump_table
from tractor_sim.core.kernels.rng import shuffle, stream_key
from tractor_sim.rules.options import Rules

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DEFAULT = Rules().encode()
THROW_OPTIONS = [(c, f) for c in ("all_others", "opponents_only") for f in ("fewest_then_lowest", "lowest", "highest")]


def counts_of(cards):
    out = np.zeros(54, dtype=np.int64)
    for c in cards:
        out[c] += 1
    return out


def cards_of(counts):
    return [c for c in range(54) for _ in range(int(counts[c]))]


# a deck order: a permutation of the 108 physical cards
decks = st.permutations(list(range(108))).map(lambda p: [x // 2 for x in p])
trumps = st.tuples(st.integers(0, 12), st.integers(0, 4), st.booleans())


def table(trump):
    rank, suit, rtnt = trump
    return trump_table(rank, suit, int(rtnt)), (rank, suit), {"rank_trumps_in_no_trump": rtnt}


def deal(deck, first, size):
    """The hands after drawing (card k to seat (first + k) % 4), cut to ``size``."""
    hands = [[], [], [], []]
    for k in range(100):
        hands[(first + k) % 4].append(deck[k])
    return [h[:size] for h in hands], deck[100:]


# ---------------------------------------------------------------------------
# Conservation


@SETTINGS
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # uint64 wrap-around without JIT
@given(st.integers(0, 2**63 - 1), st.integers(0, 10**6), st.integers(0, 3))
def test_deal_split_conserves_cards(seed, deal_id, first):
    deck = full_deck(2)
    state = np.zeros(1, dtype=np.uint64)
    state[0] = stream_key(seed, deal_id, 0, 0)
    shuffle(deck, state)
    again = full_deck(2)
    state[0] = stream_key(seed, deal_id, 0, 0)
    shuffle(again, state)
    assert (deck == again).all()  # one key, one order
    hands, kitty = deal([int(c) for c in deck], first, 25)
    assert [len(h) for h in hands] == [25, 25, 25, 25] and len(kitty) == 8
    total = sum((counts_of(h) for h in hands), counts_of(kitty))
    assert (total == 2).all()
    assert sum(S.card_points(counts_of(h)) for h in hands) + S.card_points(counts_of(kitty)) == 200


@SETTINGS
@given(decks, st.integers(1, 25), st.integers(0, 3))
def test_points_per_deck(deck, size, first):
    hands, kitty = deal(deck, first, 25)
    assert sum(points(h) for h in hands) + points(kitty) == 200
    assert S.card_points(counts_of(deck)) == 200 == int(POINTS.sum()) * 2
    # any cut of the hands: the points held plus the points gone make 200
    held = sum(points(h[:size]) for h in hands)
    gone = sum(points(h[size:]) for h in hands) + points(kitty)
    assert held + gone == 200


# ---------------------------------------------------------------------------
# Decomposition


@st.composite
def one_suit_sets(draw):
    """A trump and a set of cards of one effective suit from the first cards of a
    shuffled deck (up to all 108: many pairs and tractors)."""
    trump = draw(trumps)
    tt, _, _ = table(trump)
    deck = draw(decks)
    size = draw(st.integers(1, 108))
    hand = deck[:size]
    suits = sorted({int(tt[TT_EFF, c]) for c in hand})
    s = draw(st.sampled_from(suits))
    cards = [c for c in hand if tt[TT_EFF, c] == s]
    keep = draw(st.lists(st.booleans(), min_size=len(cards), max_size=len(cards)))
    chosen = [c for c, k in zip(cards, keep) if k] or cards[:1]
    return trump, chosen


@SETTINGS
@given(one_suit_sets())
def test_decomposition_conserves_cards(case):
    trump, cards = case
    tt, rs, rules = table(trump)
    counts = counts_of(cards)
    units, ucards = K.new_units()
    nu = K.decompose(counts, tt, units, ucards)
    rebuilt = np.zeros(54, dtype=np.int64)
    one = np.zeros(54, dtype=np.int64)
    for i in range(nu):
        K.unit_counts(units, ucards, i, one)
        rebuilt += one
        k = units[i, K.UNIT_PAIRS]
        assert units[i, K.UNIT_NCARDS] == (1 if k == 0 else 2 * k) == one.sum()
        pos = [int(tt[TT_POS, ucards[i, j]]) for j in range(max(k, 1))]
        assert units[i, K.UNIT_TOP] == pos[0] == max(pos)
        if k >= 2:  # consecutive pairs, high to low
            assert [a - b for a, b in zip(pos, pos[1:])] == [1] * (k - 1)
    assert (rebuilt == counts).all()
    # units in order: tractors (longest first), pairs, singles
    ks = [int(units[i, K.UNIT_PAIRS]) for i in range(nu)]
    assert ks == sorted(ks, reverse=True)
    assert K.total_pairs(units, nu) == int((counts // 2).sum())
    # and the reference finds the same units in the same order
    want = ref.decompose(cards, rs, rules)
    assert [(u["pairs"], sorted(u["cards"])) for u in want] == [
        (k, sorted(cards_of(_unit(units, ucards, i)))) for i, k in enumerate(ks)]


def _unit(units, ucards, i):
    out = np.zeros(54, dtype=np.int64)
    K.unit_counts(units, ucards, i, out)
    return out


# ---------------------------------------------------------------------------
# A legal follow always exists


def constructive_follow(hand, lead_cards, tt):
    """The simplest follow: as many pairs of the led suit as owed, then the
    lowest cards of the suit, then the lowest other cards."""
    s = int(tt[TT_EFF, lead_cards[0]])
    n = len(lead_cards)
    owed = sum(c // 2 for c in counts_of(lead_cards))
    by_low = sorted(hand, key=lambda c: (int(tt[TT_POS, c]), c))
    suit = [c for c in by_low if tt[TT_EFF, c] == s]
    other = [c for c in by_low if tt[TT_EFF, c] != s]
    cnt = Counter(suit)
    pairs = [c for c in sorted(cnt, key=lambda c: (int(tt[TT_POS, c]), c)) if cnt[c] == 2][:owed]
    play = [c for c in pairs for _ in (0, 1)][:n]
    rest = list(suit)
    for c in play:
        rest.remove(c)
    play += rest[: n - len(play)]
    play += other[: n - len(play)]
    return play


@st.composite
def follow_cases(draw):
    """A trump, a lead of one effective suit from seat 0's hand, and the hands of
    seats 1-3; half the time the lead's suit is one in which seat 1 holds a pair
    and the lead keeps its pairs whole, so that the pairs obligation bites."""
    trump = draw(trumps)
    tt, _, _ = table(trump)
    deck = draw(decks)
    size = draw(st.integers(1, 25))
    hands, _ = deal(deck, 0, 25)
    leader_hand = hands[0][:size]
    hand = hands[1][:size]
    suits = sorted({int(tt[TT_EFF, c]) for c in leader_hand})
    paired = sorted({int(tt[TT_EFF, c]) for c in hand if hand.count(c) == 2} & set(suits))
    bias = draw(st.booleans())
    s = draw(st.sampled_from(paired if bias and paired else suits))
    cards = [c for c in leader_hand if tt[TT_EFF, c] == s]
    if bias:  # whole pairs: one decision per distinct card
        distinct = sorted(set(cards))
        keep = draw(st.lists(st.booleans(), min_size=len(distinct), max_size=len(distinct)))
        lead = [c for c in cards if keep[distinct.index(c)]] or cards[:1]
    else:
        keep = draw(st.lists(st.booleans(), min_size=len(cards), max_size=len(cards)))
        lead = [c for c, k in zip(cards, keep) if k] or cards[:1]
    return trump, lead, hand, hands[2][:size], hands[3][:size]


def lead_info(lead, tt):
    counts = counts_of(lead)
    units, ucards = K.new_units()
    nu = K.decompose(counts, tt, units, ucards)
    longest = max(int(units[i, K.UNIT_PAIRS]) for i in range(nu))
    return counts, units, ucards, nu, K.combo_suit(counts, tt), K.total_pairs(units, nu), longest


@SETTINGS
@given(follow_cases())
def test_a_legal_follow_always_exists(case):
    trump, lead, hand, _, _ = case
    tt, rs, rules = table(trump)
    counts, units, ucards, nu, suit, pairs, longest = lead_info(lead, tt)
    play = constructive_follow(hand, lead, tt)
    assert len(play) == len(lead)
    assert K.legal_follow(counts_of(hand), counts_of(play), counts, tt, DEFAULT)
    assert ref.legal_follow(hand, lead, play, rs, rules)


# ---------------------------------------------------------------------------
# Kernels and reference agree


@SETTINGS
@given(follow_cases(), st.data())
def test_kernels_agree_with_reference(case, data):
    trump, lead, h1, h2, h3 = case
    tt, rs, rules = table(trump)
    hands = [list(lead), h1, h2, h3]
    counts, units, ucards, nu, suit, pairs, longest = lead_info(lead, tt)
    info = ref.classify(lead, rs, rules)
    assert K.kind_of(units, nu) == ("single", "pair", "tractor", "throw").index(info["kind"])

    # throw check, every option, both declaring teams
    decl_team = data.draw(st.integers(0, 1))
    res = np.zeros(4, dtype=np.int64)
    for check, forced in THROW_OPTIONS:
        opts = dict(rules, throw_check=check, throw_forced_part=forced)
        K.check_throw(counts, np.array([counts_of(h) for h in hands]), 0, decl_team, tt,
                      Rules(throw_check=check, throw_forced_part=forced).encode(), units, ucards, nu, res)
        want = ref.check_throw(lead, hands, 0, (0, 2) if decl_team == 0 else (1, 3), rs, opts)
        got_forced = sorted(cards_of(_unit(units, ucards, int(res[2])))) if res[0] == 0 else []
        assert (bool(res[0]), None if res[1] < 0 else int(res[1]), got_forced, int(res[3])) == (
            want["ok"], want["blocked_by"], sorted(want["forced"]), want["penalty"])

    # arbitrary plays: any sub-multiset of the follower's hand, of any size, or a
    # legal follow with one card swapped for another of the hand (near misses)
    plays = []
    for h in (h1, h2, h3):
        how = data.draw(st.sampled_from(["subset", "sized", "near"]))
        if how == "near":
            play = constructive_follow(h, lead, tt)
            rest = list(h)
            for c in play:
                rest.remove(c)
            if rest:
                # break a pair of the play when there is one, else any card, and
                # put in its place another card, of the led suit when there is one
                paired = [i for i, c in enumerate(play) if play.count(c) == 2]
                i = data.draw(st.sampled_from(paired or list(range(len(play)))))
                same = [c for c in rest if tt[TT_EFF, c] == suit and c != play[i]]
                play[i] = data.draw(st.sampled_from(same or rest))
        else:
            keep = data.draw(st.lists(st.booleans(), min_size=len(h), max_size=len(h)))
            play = [c for c, k in zip(h, keep) if k]
            if how == "sized":
                play = (play + [c for c in h if c not in play])[: len(lead)]
        plays.append(play)
        got = K.legal_follow(counts_of(h), counts_of(play), counts, tt, DEFAULT)
        assert got == ref.legal_follow(h, lead, play, rs, rules), (h, play)

    # the winner of the trick, complete and partial
    trick = [lead] + plays
    arr = np.array([counts_of(p) for p in trick])
    for n in range(1, 5):
        assert int(K.trick_winner(arr, n, tt)) == ref.trick_winner(trick[:n], 0, rs, rules), trick[:n]

    # the kitty bonus under each multiplier
    kitty = data.draw(st.lists(st.integers(0, 53), min_size=8, max_size=8))
    for m, mode in enumerate(("twice_lead_size", "pow2_pairs", "twice_largest_unit")):
        largest = max(int(units[i, K.UNIT_NCARDS]) for i in range(nu))
        got = S.card_points(counts_of(kitty)) * S.kitty_multiplier(len(lead), pairs, largest,
                                                                   Rules(kitty_multiplier=mode).encode())
        assert got == ref.kitty_bonus(kitty, lead, rs, dict(rules, kitty_multiplier=mode))


DECLS = [(1, s * 13 + r) for s in range(4) for r in range(13)] + [(2, s * 13 + r) for s in range(4) for r in range(13)]
DECLS += [(3, 52), (3, 53)]


@SETTINGS
@given(decks, st.integers(1, 25), st.integers(0, 12), st.integers(0, 3), st.integers(0, 3),
       st.sampled_from([None] + DECLS), st.sampled_from(["strengthen_only", "any"]))
def test_declaring_agrees_with_reference(deck, size, rank, seat, cur_seat, current, self_override):
    hand = deck[:size]
    enc = Rules(self_override=self_override).encode()
    cur = None
    if current is not None:
        # a standing declaration must have been legal for its maker
        kind, card = current
        if kind in (1, 2) and card % 13 != rank:
            card = (card // 13) * 13 + rank
        cur = (cur_seat, kind, card)
    if cur is not None and cur_seat == seat:
        # one's own standing declaration: the cards are in the hand
        need = 2 if cur[1] >= 2 else 1
        hand = [c for c in hand if c != cur[2]] + [cur[2]] * need
    allowed = set(ref.declare_allowed(hand, cur, seat, rank, {"self_override": self_override}))
    hc = counts_of(hand)
    for kind, card in DECLS:
        got = D.can_declare(hc, kind, card, seat, *(cur if cur else (-1, D.NONE, -1)), rank, enc)
        assert got == ((kind, card) in allowed), (kind, card, cur, sorted(hand))


@SETTINGS
@given(decks, st.integers(0, 12))
def test_kitty_flip_agrees_with_reference(deck, rank):
    kitty = np.array(deck[100:], dtype=np.int64)
    assert D.kitty_flip_suit(kitty, 8, rank) == ref.kitty_flip_suit(list(deck[100:]), rank)


@njit(cache=True)
def _set_bits(m):
    """The indices of m's set bits, lowest first, as the deal kernel lists a play's cards."""
    found = []
    while m != 0:
        found.append(lowest_bit(m))
        m &= m - 1
    return found


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 53)))
def test_lowest_bit_lists_every_set_bit_in_order(bits):
    m = sum(1 << b for b in bits)
    assert _set_bits(np.int64(m)) == sorted(bits)
    assert [lowest_bit(1 << b) for b in range(54)] == list(range(54))  # the Python fallback
