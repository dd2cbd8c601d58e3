"""The kernels' rules of play with tuples (3 and 4 decks: docs/rules.md section 9, decisions.md 9.2-9.7),
checked against the independent reference ``tests/reference9.py``.

Every size is compiled by ``tractor_sim.play.packages.compiled_package`` (4/3, 6/3, 8/4 and 4/4).  On random
situations, the kernels and the reference must agree on:

* the decomposition of a one-suit set (units, their shapes, tops and cards, in order) and the lead
  kind (9.2), and the kitty multipliers of a last lead (9.7); and 9.2's hand-built cases (DECOMPOSED),
  stated once and checked against both;
* follow legality (``combos.legal_follow``: the suit rule, 9.3's tuples, 9.4's ``follow_tractor``)
  on random plays, and every worked example of decisions 9.3 and 9.4;
* the throw check (stands, the forced part, the blocking seat, the penalty; 9.5) under the throw
  options;
* the trick winner (9.6);
* the built-in follow strategies' plays (random, cheapest, smart, ruff_points, expert: legal by the
  reference in every situation, under every ``follow_tractor``).

Then whole deals at 6/3 and 8/4 (fixed levels and matches; random, basic, expert, and ``rash``, a
test lead that throws at random so that throws fail) are played by the engine, which stops at an
illegal play; the triples, quadruples, tractors of triples or more, throws and failed throws that
occurred are counted, and each must occur.  When the section-9 referee ``tests/referee9.py`` is
present, it judges every event of those deals too.

``-m slow`` runs ten times as many situations (``TRACTOR_TUPLE_FACTOR``) and more deals.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import random
import types
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from tractor_sim.runs import engine as E
from tractor_sim.play import referee
from tractor_sim.rules import sizes
from tractor_sim.play import packages
from tractor_sim.play import registry as S
from tractor_sim.rules.cards import RANKS, card_str, parse_cards
from tractor_sim.cli import main
from tractor_sim.rules.options import Rules

try:
    from tests import reference9 as r9
    from tests import reference_deal as RD
    from tests.sized_params import sized
except ImportError:  # tests/ on sys.path instead of the project root
    import reference9 as r9
    import reference_deal as RD
    from sized_params import sized

try:
    from tests import referee9 as RF
except ImportError:
    try:
        import referee9 as RF
    except ImportError:
        RF = None

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

SIZES = [(4, 3), (6, 3), (8, 4), (4, 4)]
SIZE_IDS = [f"{p}p{d}d" for p, d in SIZES]
FACTOR = int(os.environ.get("TRACTOR_TUPLE_FACTOR", 10))
FOLLOW_MODES = ("none", "tractor", "shape_first")
KIND_NAMES = ("single", "tuple", "tractor", "throw")  # combos.KIND_* 0..3


@functools.lru_cache(maxsize=None)
def package(size):
    return packages.compiled_package(sizes.GameSize(*size))


def kernels(size):
    return package(size).kernels


def counts(cards):
    v = np.zeros(54, dtype=np.int64)
    for c in cards:
        v[c] += 1
    return v


def listed(vec):
    return [c for c in range(54) for _ in range(int(vec[c]))]


def C(s):
    """Cards with ``*k`` repeats: ``"7S*3 4S"`` -> [7S, 7S, 7S, 4S]."""
    out = []
    for token in s.split():
        card, _, times = token.partition("*")
        out += parse_cards(card) * (int(times) if times else 1)
    return out


def encode(rules):
    return Rules.from_dict(rules or {}).encode()


# ---------------------------------------------------------------------------
# random situations


class Table:
    """A trump (rank, suit: 4 = none) and rank_trumps_in_no_trump, as the reference reads them."""

    def __init__(self, rank, suit, rank_trumps):
        self.trump = (rank, suit)
        self.rules = {"rank_trumps_in_no_trump": rank_trumps}
        self.flag = int(rank_trumps)
        self.eff = [r9.effective_suit(c, self.trump, self.rules) for c in range(54)]
        self.pos = [r9.position(c, self.trump, self.rules) for c in range(54)]
        self.suit = {e: sorted((c for c in range(54) if self.eff[c] == e), key=lambda c: (self.pos[c], c))
                     for e in range(5)}
        self.at = {e: {} for e in range(5)}
        for c in range(54):
            self.at[self.eff[c]].setdefault(self.pos[c], []).append(c)

    def tt(self, K):
        return K.order.trump_table(self.trump[0], self.trump[1], self.flag)

    def rules_with(self, **options):
        return {**self.rules, **options}


def random_table(rng):
    return Table(rng.randrange(13), rng.choice((0, 1, 2, 3, 4, 4)), rng.random() < 0.5)


def pool_of(decks):
    return Counter({c: decks for c in range(54)})


def take(pool, cards):
    for c in cards:
        pool[c] -= 1
        assert pool[c] >= 0
    return cards


def holding(rng, pool, cards, density, decks):
    """Random copies of ``cards`` from the pool: each card with probability ``density``, 1..decks
    copies (as many as the pool has)."""
    out = []
    for c in cards:
        if pool[c] and rng.random() < density:
            k = min(pool[c], rng.randint(1, decks))
            out += take(pool, [c] * k)
    return out


def build_unit(rng, pool, tab, e, m, length):
    """A unit of shape (m, length) of suit e from the pool (None when the pool has none)."""
    held = {p for p, cs in tab.at[e].items() if any(pool[c] >= m for c in cs)}
    tops = [p for p in held if all(p - d in held for d in range(length))]
    if not tops:
        return None
    top = rng.choice(sorted(tops))
    out = []
    for q in range(top - length + 1, top + 1):
        c = rng.choice([c for c in tab.at[e][q] if pool[c] >= m])
        out += take(pool, [c] * m)
    return out


def random_lead(rng, pool, tab, e, decks):
    """A lead of suit e: a single, a tuple, a tractor of tuples, or a throw (several units)."""
    r = rng.random()
    if r < 0.2:
        shapes = [(1, 1)]
    elif r < 0.45:
        shapes = [(rng.randint(2, decks), 1)]
    elif r < 0.65:
        shapes = [(rng.randint(2, decks), rng.choice((2, 2, 3)))]
    else:
        shapes = [(rng.randint(1, decks), rng.choice((1, 1, 2))) for _ in range(rng.randint(2, 4))]
    lead = []
    for m, length in shapes:
        lead += build_unit(rng, pool, tab, e, m, 1 if m == 1 else length) or []
    if not lead:
        lead = take(pool, [rng.choice([c for c in tab.suit[e] if pool[c]])])
    return lead


def led_suit(rng, tab, pool, decks):
    """A suit with cards in the pool, trumps and plain suits alike."""
    return rng.choice([e for e in range(5) if sum(pool[c] for c in tab.suit[e]) >= 2 * decks])


def random_hand(rng, pool, tab, e, decks, size):
    """A hand of about ``size`` cards, rich in suit e (or short of it)."""
    dense = rng.choice((0.15, 0.5, 0.8, 1.0))
    hand = holding(rng, pool, tab.suit[e], dense, decks)
    others = [c for c in range(54) if tab.eff[c] != e]
    rng.shuffle(others)
    for c in others:
        if len(hand) >= size:
            break
        if pool[c]:
            hand += take(pool, [c] * min(pool[c], rng.choice((1, 1, 2, decks))))
    return hand


def random_play(rng, hand, n, tab, e):
    """n cards of the hand: mostly as many of suit e as it allows, taken group by group."""
    left = Counter(hand)
    suit_held = sum(k for c, k in left.items() if tab.eff[c] == e)
    want = min(suit_held, n) if rng.random() < 0.85 else rng.randint(0, min(suit_held, n))
    play = []
    while len(play) < want:
        c = rng.choice([c for c, k in left.items() if k and tab.eff[c] == e])
        k = rng.randint(1, min(left[c], want - len(play)))
        play += [c] * k
        left[c] -= k
    while len(play) < n:
        rest = [c for c, k in left.items() if k and (tab.eff[c] != e or len(play) >= want)]
        if not rest:
            rest = [c for c, k in left.items() if k]
        c = rng.choice(rest)
        play.append(c)
        left[c] -= 1
    return play


def kernel_units(K, tt, cards):
    C_ = K.combos
    units, ucards = C_.new_units()
    nu = C_.decompose(counts(cards), tt, units, ucards)
    return units, ucards, nu


def unit_rows(K, units, ucards, nu):
    """The kernel's units as (m, L, top, cards of each position top down)."""
    C_ = K.combos
    out = []
    for i in range(nu):
        length = max(int(units[i, C_.UNIT_PAIRS]), 1)
        out.append((int(units[i, C_.UNIT_SIZE]), length, int(units[i, C_.UNIT_TOP]),
                    [int(ucards[i, k]) for k in range(length)]))
    return out


def reference_rows(ref_units):
    rows = []
    for u in ref_units:
        cards = u["cards"][::u["size"]]  # one card per position, top down
        rows.append((u["size"], u["length"], u["top"], cards))
    return rows


# ---------------------------------------------------------------------------
# decomposition, kind, kitty multipliers (9.2, 9.7)


@pytest.mark.parametrize("size", sized(SIZES))
def test_decomposition_kind_and_kitty_multiplier(size, n=1500):
    K = kernels(size)
    decks = size[1]
    rng = random.Random(9200 + size[0] * 10 + decks)
    kinds = Counter()
    shapes = Counter()
    for trial in range(n):
        tab = random_table(rng)
        tt = tab.tt(K)
        pool = pool_of(decks)
        e = led_suit(rng, tab, pool, decks)
        cards = (holding(rng, pool, tab.suit[e], rng.choice((0.2, 0.5, 0.9)), decks) if trial % 2
                 else random_lead(rng, pool, tab, e, decks))
        if not cards:
            continue
        info = r9.classify(cards, tab.trump, tab.rules)
        units, ucards, nu = kernel_units(K, tt, cards)
        assert unit_rows(K, units, ucards, nu) == reference_rows(info["units"]), (cards, tab.trump)
        kind = K.combos.kind_of(units, nu)
        assert KIND_NAMES[kind] == info["kind"], (cards, tab.trump)
        kinds[info["kind"]] += 1
        shapes.update(r9.shape(u) for u in info["units"])
        largest = max(int(units[i, K.combos.UNIT_NCARDS]) for i in range(nu))
        pairs = int(K.combos.total_pairs(units, nu))
        for mode in ("twice_lead_size", "pow2_pairs", "twice_largest_unit"):
            rules = {"kitty_multiplier": mode}
            mult = K.scoring.kitty_multiplier(len(cards), pairs, largest, encode(rules))
            assert 10 * mult == r9.kitty_bonus(C("KS"), cards, tab.trump, tab.rules_with(**rules)), (cards, mode)
    assert min(kinds[k] for k in KIND_NAMES) > n // 20, kinds
    assert shapes[(decks, 1)] and shapes[(3, 2)] and shapes[(decks, 2)], shapes


H2, S7, C7 = (0, 1), (5, 0), (5, 3)  # trumps (rank, suit): 2 of hearts, 7 of spades, 7 of clubs
DECOMPOSED = [  # (cards, trump, units in order: (tuple size m, length L, cards)): docs/rules.md section 9 "Tuples and
    #           tractors", decisions 9.2; checked against the reference and the kernels (3 decks: 6/3, 4: 8/4)
    # "A tuple is m identical cards, 2 <= m <= D"; two different off-suit rank cards are equal, never a tuple
    ("AS*3", H2, [(3, 1, "AS AS AS")]),
    ("2C*4", H2, [(4, 1, "2C 2C 2C 2C")]),
    ("2S 2S 2D", H2, [(2, 1, "2S 2S"), (1, 1, "2D")]),
    # "A tractor is two or more tuples of the same size m with consecutive ranks"
    ("KS*3 QS*3", H2, [(3, 2, "KS KS KS QS QS QS")]),
    ("8C*3 6C*3", S7, [(3, 2, "8C 8C 8C 6C 6C 6C")]),  # the trump rank is skipped in its printed suit
    ("8C*3 6C*3", C7, [(3, 2, "8C 8C 8C 6C 6C 6C")]),  # in trumps too
    # in trumps: A of the suit, an off-suit rank card, the rank card of the suit, BJ, RJ
    ("AH*3 2S*3 2H*3 BJ*3 RJ*3", H2, [(3, 5, "RJ RJ RJ BJ BJ BJ 2H 2H 2H 2S 2S 2S AH AH AH")]),
    ("KS*3 QS*2", H2, [(2, 2, "KS KS QS QS"), (1, 1, "KS")]),  # tuples of two sizes: the pair part
    ("5D*4 6D*4 7D*4", H2, [(4, 3, "7D 7D 7D 7D 6D 6D 6D 6D 5D 5D 5D 5D")]),
    # "tractors (largest tuple size, then longest, then highest), then tuples (largest first), then singles"
    ("3S*2 4S*2 5S*2 9S*3 10S*3 AS*3 QS", H2,
     [(3, 2, "10S 10S 10S 9S 9S 9S"), (2, 3, "5S 5S 4S 4S 3S 3S"), (3, 1, "AS AS AS"), (1, 1, "QS")]),
    ("3S*2 4S*2 5S*2 6S*2 JS*3 QS*3", H2,  # the largest size first, even when a tractor of pairs is longer
     [(3, 2, "QS QS QS JS JS JS"), (2, 4, "6S 6S 5S 5S 4S 4S 3S 3S")]),
    ("3S*2 5S*4 9S*3 JS*2 KS", H2,
     [(4, 1, "5S 5S 5S 5S"), (3, 1, "9S 9S 9S"), (2, 1, "JS JS"), (2, 1, "3S 3S"), (1, 1, "KS")]),
    # decisions 9.2: a tractor may take part of a group; what is left is one tuple of its count
    ("AS*4 KS*2", H2, [(2, 2, "AS AS KS KS"), (2, 1, "AS AS")]),
    ("AS*3 KS*2", H2, [(2, 2, "AS AS KS KS"), (1, 1, "AS")]),
    # at a position with several distinct cards (the off-suit rank cards, equal): the fewest copies
    # that still fit, then the lowest id
    ("AH*2 2S*3 2D*2", H2, [(2, 2, "2D 2D AH AH"), (3, 1, "2S 2S 2S")]),
    ("AH*2 2S*2 2D*2", H2, [(2, 2, "2S 2S AH AH"), (2, 1, "2D 2D")]),
    ("2S*3 2C*2 AH*2", H2, [(2, 2, "2C 2C AH AH"), (3, 1, "2S 2S 2S")]),
]


@pytest.mark.parametrize("impl", ("reference", "kernels"))
@pytest.mark.parametrize("cards, trump, units", DECOMPOSED)
def test_decomposition_examples(impl, cards, trump, units):
    if impl == "reference":
        got = [(u["size"], u["length"], " ".join(card_str(c) for c in u["cards"]))
               for u in r9.decompose(C(cards), trump)]
    else:
        K = kernels((6, 3) if max(Counter(C(cards)).values()) <= 3 else (8, 4))
        tt = Table(trump[0], trump[1], False).tt(K)
        got = [(m, length, " ".join(card_str(c) for c in top_down for _ in range(m)))
               for m, length, _, top_down in unit_rows(K, *kernel_units(K, tt, C(cards)))]
    assert got == units


# ---------------------------------------------------------------------------
# following (9.3, 9.4)

# (decks, hand, lead, play, follow_tractor, legal): decisions 9.3 and 9.4's worked examples, rank 2
# and hearts trump, spades led; checked against the reference (tests/reference9.py) and the kernels,
# the only statement of these cases
WORKED = [
    # triple led
    (3, "7S*3 4S 9S", "KS*3", "7S*3", "none", True),
    (3, "7S*3 4S 9S", "KS*3", "7S 7S 4S", "none", False),
    (3, "7S*3 4S 9S", "KS*3", "7S 4S 9S", "none", False),
    (3, "7S*2 4S 9S", "KS*3", "7S 7S 4S", "none", True),
    (3, "7S*2 4S 9S", "KS*3", "7S 7S 9S", "none", True),
    (3, "7S*2 4S 9S", "KS*3", "7S 4S 9S", "none", False),
    (3, "7S*2 4S 9S 3D", "KS*3", "7S 7S 4S", "none", True),  # a triple not held asks for a pair
    (3, "7S*2 4S 9S 3D", "KS*3", "7S 7S 9S", "none", True),
    (3, "7S*2 4S 9S 3D", "KS*3", "7S 4S 9S", "none", False),
    (3, "7S*2 4S 9S 3D", "KS*3", "7S 7S 3D", "none", False),  # the suit first
    (3, "4S 7S 9S 10S", "KS*3", "4S 9S 10S", "none", True),
    (3, "4S 7S 9S 10S", "KS*3", "7S 9S 10S", "none", True),
    (3, "4S 7S 9S 10S 3D", "KS*3", "4S 7S 9S", "none", True),
    (3, "4S 7S 9S 10S 3D", "KS*3", "10S 7S 9S", "none", True),
    (3, "4S 7S 9S 10S 3D", "KS*3", "4S 7S 3D", "none", False),
    (4, "7S*4 4S", "KS*3", "7S*3", "none", True),
    (4, "7S*4 4S", "KS*3", "7S 7S 4S", "none", False),
    # pair led, a triple held
    (3, "7S*3 4S", "KS*2", "7S 7S", "none", True),
    (3, "7S*3 4S", "KS*2", "7S 4S", "none", False),
    # quadruple led: a triple, then a pair
    (4, "7S*3 5S*2 4S", "KS*4", "7S*3 4S", "none", True),
    (4, "7S*3 5S*2 4S", "KS*4", "7S*3 5S", "none", True),
    (4, "7S*3 5S*2 4S", "KS*4", "7S 5S 5S 4S", "none", False),
    (4, "5S*2 4S 3S 9S", "KS*4", "5S 5S 3S 9S", "none", True),
    (4, "5S*2 4S 3S 9S", "KS*4", "5S 4S 3S 9S", "none", False),
    # tractor of triples led
    (3, "7S*3 5S*3 9S", "KS*3 QS*3", "7S*3 5S*3", "none", True),
    (3, "7S*3 5S*3 9S", "KS*3 QS*3", "7S*3 5S 5S 9S", "none", False),
    (3, "7S*3 9S*2 5S*2 4S", "KS*3 QS*3", "7S*3 9S 9S 4S", "none", True),
    (3, "7S*3 9S*2 5S*2 4S", "KS*3 QS*3", "7S*3 5S 5S 9S", "none", True),
    (3, "7S*3 9S*2 5S*2 4S", "KS*3 QS*3", "7S*3 9S 5S 4S", "none", False),
    (3, "7S*3 9S*2 5S*2 4S", "KS*3 QS*3", "7S 9S 9S 5S 5S 4S", "none", False),
    (3, "9S*2 5S*2 4S*2 3S", "KS*3 QS*3", "9S 9S 4S 4S 5S 3S", "none", True),
    (3, "9S*2 5S*2 4S*2 3S", "KS*3 QS*3", "9S 9S 5S 4S 3S 5S", "none", True),
    (3, "9S*2 5S*2 4S*2 3S 6S", "KS*3 QS*3", "9S 9S 4S 4S 5S 3S", "none", True),
    (3, "9S*2 5S*2 4S*2 3S 6S", "KS*3 QS*3", "9S 9S 5S 4S 3S 6S", "none", False),
    # tractor of pairs led, a quadruple held: one group, one pair
    (4, "7S*4 3S 4S 5S", "KS*2 QS*2", "7S 7S 3S 4S", "none", True),
    (4, "7S*4 3S 4S 5S", "KS*2 QS*2", "7S*4", "none", True),
    (4, "7S*4 3S 4S 5S", "KS*2 QS*2", "7S 3S 4S 5S", "none", False),
    # a throw: a triple, a pair, a single
    (3, "QS*3 JS*2 4S 3S", "AS*3 9S*2 5S", "QS*3 JS JS 4S", "none", True),
    (3, "QS*3 JS*2 4S 3S", "AS*3 9S*2 5S", "QS*3 JS 4S 3S", "none", False),
    (3, "QS*2 JS*2 4S 3S 6S", "AS*3 9S*2 5S", "QS QS JS JS 4S 6S", "none", True),
    (3, "QS*2 JS*2 4S 3S 6S", "AS*3 9S*2 5S", "QS QS JS 4S 3S 6S", "none", False),
    # the suit rule
    (3, "7S 7S 3D 4D 5D", "KS*3", "7S 7S 3D", "none", True),
    (3, "7S 7S 3D 4D 5D", "KS*3", "7S 3D 4D", "none", False),
    (3, "2S*3 BJ 5S", "AH*3", "2S*3", "none", True),
    (3, "2S*3 BJ 5S", "AH*3", "2S 2S BJ", "none", False),
    # no follow at all: cards not held, the wrong number
    (3, "7S*2 4S", "KS*3", "7S*3", "none", False),
    (3, "7S*3 4S", "KS*3", "7S 7S", "none", False),
    # 9.4 follow_tractor = tractor
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3", "7S*3 6S*3", "tractor", True),
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3", "7S*3 9S*3", "tractor", False),
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3", "7S*3 9S*3", "none", True),
    (3, "7S*2 6S*2 9S*3 4S", "KS*3 QS*3", "9S*3 7S 7S 4S", "tractor", True),
    (3, "7S*2 6S*2 9S*3 4S", "KS*3 QS*3", "7S 7S 6S 6S 9S 4S", "tractor", False),
    (3, "7S*3 6S*3 JS 4S", "KS*2 QS*2", "7S 7S 6S 6S", "tractor", True),
    (3, "7S*3 6S*3 JS 4S", "KS*2 QS*2", "7S 6S 6S 6S", "tractor", False),
    (3, "7S*3 6S*3 JS*2 4S", "KS*2 QS*2", "7S 7S JS JS", "tractor", False),
    (3, "7S*3 6S*3 JS*2 4S", "KS*2 QS*2", "7S 7S JS JS", "none", True),
    # 9.4 shape_first
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3 AS", "7S*3 6S*3 4S", "shape_first", True),
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3 AS", "7S*3 9S*3 4S", "shape_first", False),
    (3, "7S*3 6S*3 9S*3 4S", "KS*3 QS*3 AS", "7S*3 9S*3 4S", "tractor", True),
]


@pytest.mark.parametrize("case", range(len(WORKED)))
def test_worked_follow_examples(case):
    decks, hand, lead, play, mode, legal = WORKED[case]
    tab = Table(0, 1, False)
    rules = {"follow_tractor": mode}
    assert r9.legal_follow(C(hand), C(lead), C(play), tab.trump, rules) == legal
    for size in ((6, 3), (8, 4)) if decks == 3 else ((8, 4),):
        K = kernels(size)
        got = K.combos.legal_follow(counts(C(hand)), counts(C(play)), counts(C(lead)), tab.tt(K), encode(rules))
        assert got == legal, (size, WORKED[case])


def follow_situation(rng, size, tab):
    """(lead, hand) of a random follow: the lead from one seat, the hand from the same cards."""
    decks = size[1]
    pool = pool_of(decks)
    e = led_suit(rng, tab, pool, decks)
    lead = random_lead(rng, pool, tab, e, decks)
    hand = random_hand(rng, pool, tab, e, decks, rng.randint(len(lead), len(lead) + 20))
    return e, lead, hand


@pytest.mark.parametrize("size", sized(SIZES))
def test_follow_legality(size, n=700, plays=6):
    K = kernels(size)
    rng = random.Random(9300 + size[0] * 10 + size[1])
    verdicts = Counter()
    for _ in range(n):
        tab = random_table(rng)
        tt = tab.tt(K)
        e, lead, hand = follow_situation(rng, size, tab)
        mode = rng.choice(FOLLOW_MODES)
        rules = tab.rules_with(follow_tractor=mode)
        code = encode(rules)
        for _ in range(plays):
            play = random_play(rng, hand, len(lead), tab, e)
            want = r9.legal_follow(hand, lead, play, tab.trump, rules)
            got = K.combos.legal_follow(counts(hand), counts(play), counts(lead), tt, code)
            assert got == want, (size, tab.trump, mode, lead, hand, play)
            verdicts[(mode, want)] += 1
    for mode in FOLLOW_MODES:
        assert verdicts[(mode, True)] > n // 10 and verdicts[(mode, False)] > n // 10, verdicts


# ---------------------------------------------------------------------------
# what a follow shows of the hand (9.3 read backwards: knowledge.K_MOST, the sampler's bound)


def reference_most(hand, lead, tab):
    """The reference's counting read backwards: m - 1 for the smallest size m at which the hand's cards
    of the led suit answer fewer tuples than the lead asks for (``owed_tuples``, with the carry from the
    sizes above), else 0."""
    e = tab.eff[lead[0]]
    req = r9.required_tuples(r9.decompose(lead, tab.trump, tab.rules))
    owed = r9.owed_tuples([c for c in hand if tab.eff[c] == e], req)
    most = carry = 0
    for m in sorted(owed, reverse=True):
        need = req.get(m, 0) + carry
        most = m - 1 if owed[m] < need else most
        carry = need - owed[m]
    return most


@pytest.mark.parametrize("size", sized(SIZES))
def test_a_follow_short_of_a_tuple_bounds_the_cards_it_did_not_play(size, n=600):
    """tuples.follow_cap equals the reference's counting read backwards; and after every legal play of the
    situation (the reference's judgement) each card of the suit the seat did not play is held at most that
    many times: what the sampler assumes of the hand."""
    K = kernels(size)
    rng = random.Random(9330 + size[0] * 10 + size[1])
    seen = Counter()
    for _ in range(n):
        tab = random_table(rng)
        tt = tab.tt(K)
        e, lead, hand = follow_situation(rng, size, tab)
        units, _, nu = kernel_units(K, tt, lead)
        most = reference_most(hand, lead, tab)
        assert K.tuples.follow_cap(counts(hand), e, units, nu, tt) == most, (tab.trump, lead, hand)
        seen[most] += 1
        for _ in range(20):
            play = random_play(rng, hand, len(lead), tab, e)
            if most and r9.legal_follow(hand, lead, play, tab.trump, tab.rules):
                left = Counter(hand) - Counter(play)
                assert all(left[c] <= most for c in set(hand) if tab.eff[c] == e and c not in play), (lead, hand, play)
                seen["legal plays checked"] += 1
    assert seen[0] and seen[1] and seen[2] and seen["legal plays checked"] > n // 4, seen


def test_the_true_deal_keeps_every_bound_and_so_do_the_worlds():
    """Whole 6/3 deals through the step API: after every step the true hands keep each seat's K_MOST (on
    the cards it has not played) and its voids, bounds of 1 and 2 both occur, and worlds sampled for a
    seat give the others no more (kernels.sampler reads the bound)."""
    from tractor_sim.play.game import Game

    game = Game.of((6, 3, "tractor"))
    layout, players, suits = game.kernels.state.LAYOUT, game.players, game.dims.EFF_SUITS

    def piece(st, name, width):
        return st[layout[name].offset:layout[name].end].reshape((players, width))

    def check(st, tt):
        hands, played = piece(st, "HANDS", 54), piece(st, "K_PLAYED", 54)
        most, void = piece(st, "K_MOST", suits), piece(st, "K_VOID", suits)
        eff = tt[game.kernels.order.TT_EFF][:54]
        bound = most[:, eff]  # each seat's bound on each card, by the card's effective suit
        assert not ((void[:, eff] != 0) & (hands > 0)).any()
        kept = (bound == 0) | (played > 0) | (hands <= bound)
        assert kept.all(), np.argwhere(~kept)
        return most

    bounds, worlds = Counter(), 0
    for deal_id in range(40):
        state = game.new_initial_state(93, deal_id)
        while not state.over:
            state.apply(state.answer_of("random" if deal_id % 2 else "expert"))
            st = state._st
            tt = state._ws[3][st[game.kernels.state.S_RANK], st[game.kernels.state.S_SUIT]]
            most = check(st, tt)
            bounds.update(int(b) for b in most.ravel() if b)
            turn = state.to_act()
            late = piece(st, "HANDS", 54).sum() < 60  # a world of the first tricks at 6/3 costs 7 s, here 1 s
            if (most == 2).any() and turn is not None and late and worlds < 2:
                check(state.sample_world(turn.seat, deal_id)._st, tt)
                worlds += 1
    assert bounds[1] and bounds[2] and worlds, (bounds, worlds)


# ---------------------------------------------------------------------------
# the throw check (9.5)


@pytest.mark.parametrize("size", sized(SIZES))
def test_throw_check(size, n=800):
    K = kernels(size)
    C_ = K.combos
    players, decks = size
    rng = random.Random(9500 + players * 10 + decks)
    seen = Counter()
    res = np.zeros(C_.THROW_FIELDS, dtype=np.int64)
    for _ in range(n):
        tab = random_table(rng)
        tt = tab.tt(K)
        pool = pool_of(decks)
        e = led_suit(rng, tab, pool, decks)
        leader = rng.randrange(players)
        lead = []
        while (len(r9.decompose(lead, tab.trump, tab.rules)) if lead else 0) < 2 and any(pool[c] for c in tab.suit[e]):
            lead += random_lead(rng, pool, tab, e, decks)
        if len(r9.decompose(lead, tab.trump, tab.rules)) < 2:
            continue
        share = rng.choice((0.1, 0.3, 0.6))  # of the cards left, held by the others
        hands = [[] for _ in range(players)]
        for c in range(54):
            for _ in range(pool[c]):
                if rng.random() < share:
                    hands[rng.randrange(players)].append(c)
        hands[leader] = list(lead)
        rules = tab.rules_with(throw_check=rng.choice(("all_others", "opponents_only")),
                               throw_forced_part=rng.choice(("fewest_then_lowest", "lowest", "highest")),
                               throw_penalty=rng.choice((0, 10, 15)))
        team = rng.randrange(2)
        want = r9.check_throw(lead, hands, leader, {s for s in range(players) if s % 2 == team}, tab.trump, rules)
        units, ucards, nu = kernel_units(K, tt, lead)
        harr = np.array([counts(h) for h in hands], dtype=np.int64)
        C_.check_throw(counts(lead), harr, leader, team, tt, encode(rules), units, ucards, nu, res)
        assert bool(res[C_.RES_STANDS]) == want["ok"], (lead, hands, rules)
        seen[want["ok"]] += 1
        if want["ok"]:
            continue
        forced = np.zeros(54, dtype=np.int64)
        C_.unit_counts(units, ucards, res[C_.RES_FORCED], forced)
        assert listed(forced) == sorted(want["forced"]), (lead, hands, rules)
        assert res[C_.RES_BLOCKED_BY] == want["blocked_by"] and res[C_.RES_PENALTY] == want["penalty"]
        seen[("forced", len(want["forced"]) > 1)] += 1
    assert seen[True] > n // 10 and seen[False] > n // 10 and seen[("forced", True)] > n // 50, seen


# ---------------------------------------------------------------------------
# the trick winner (9.6)


def competing_play(rng, pool, tab, lead_units, n, e, decks):
    """A play of n cards that may compete: the lead's shape in the led suit or in trumps, the
    lead's arrangement in trumps, or random cards of the suit, of trumps, or mixed."""
    r = rng.random()
    where = e if rng.random() < 0.5 else 4
    play = []
    if r < 0.6:
        for u in lead_units:
            play += build_unit(rng, pool, tab, where, u["size"], u["length"]) or []
    if len(play) != n:
        take_from = [c for c in range(54) if pool[c] and (r > 0.9 or tab.eff[c] == where)]
        for c in play:
            pool[c] += 1
        play = []
        while len(play) < n and take_from:
            c = rng.choice(take_from)
            play += take(pool, [c])
            take_from = [c for c in take_from if pool[c]]
        while len(play) < n:
            play += take(pool, [rng.choice([c for c in range(54) if pool[c]])])
    return play


@pytest.mark.parametrize("size", sized(SIZES))
def test_trick_winner(size, n=700):
    K = kernels(size)
    players, decks = size
    rng = random.Random(9600 + players * 10 + decks)
    winners = Counter()
    for _ in range(n):
        tab = random_table(rng)
        tt = tab.tt(K)
        pool = pool_of(decks)
        e = led_suit(rng, tab, pool, decks)
        lead = random_lead(rng, pool, tab, e, decks)
        units = r9.decompose(lead, tab.trump, tab.rules)
        nplays = players if rng.random() < 0.8 else rng.randint(1, players)
        plays = [lead] + [competing_play(rng, pool, tab, units, len(lead), e, decks) for _ in range(nplays - 1)]
        leader = rng.randrange(players)
        want = r9.trick_winner(plays, leader, players, tab.trump, tab.rules)
        parr = np.zeros((players, 54), dtype=np.int64)
        for i, p in enumerate(plays):
            parr[i] = counts(p)
        got = (leader + K.combos.trick_winner(parr, nplays, tt)) % players
        assert got == want, (tab.trump, plays, leader)
        winners[(len(units) > 1, want != leader)] += 1
    assert winners[(False, True)] > n // 10 and winners[(True, True)] > 0 and winners[(True, False)] > 0, winners


# ---------------------------------------------------------------------------
# the public referee (``tractor-sim judge``) at the size


def _trump_json(tab):
    rank, suit = tab.trump
    return {"rank": RANKS[rank], "suit": None if suit == 4 else "SHDC"[suit]}


def _strings(cards):
    return [card_str(c) for c in cards]


def _reference_kind(info):
    """reference9's kind as the referee names it (a one-tuple lead by its size)."""
    return r9.unit_names(info)[0] if info["kind"] == "tuple" else info["kind"]


@pytest.mark.parametrize("size", sized(SIZES))
def test_the_referee_judges_whole_tricks_at_the_size(size, n=250):
    """referee.trick with ``game`` (what ``tractor-sim judge`` runs) on random whole tricks with the
    hands of every seat, against reference9: the lead's kind and units, the throw check (who blocks,
    the forced part, the penalty), each follow's legality after a failed throw, the winner."""
    players, decks = size
    game = {"players": players, "decks": decks}
    rng = random.Random(9700 + players * 10 + decks)
    seen = Counter()
    for _ in range(n):
        tab = random_table(rng)
        pool = pool_of(decks)
        e = led_suit(rng, tab, pool, decks)
        lead = random_lead(rng, pool, tab, e, decks)
        if rng.random() < 0.5 and any(pool[c] for c in tab.suit[e]):  # a second part while the suit lasts
            lead += random_lead(rng, pool, tab, e, decks)
        leader = rng.randrange(players)
        hands = [[] for _ in range(players)]
        hands[leader] = list(lead)
        for k in range(1, players):
            hands[(leader + k) % players] = random_hand(rng, pool, tab, e, decks, rng.randint(len(lead), len(lead) + 8))
        if min(len(h) for h in hands) < len(lead):  # the pool ran short
            continue
        rules = tab.rules_with(throw_check=rng.choice(("all_others", "opponents_only")),
                               throw_forced_part=rng.choice(("fewest_then_lowest", "lowest", "highest")),
                               follow_tractor=rng.choice(FOLLOW_MODES))
        team = rng.randrange(2)
        declarers = [s for s in range(players) if s % 2 == team]
        info = r9.classify(lead, tab.trump, rules)
        played = lead
        want_throw = None
        if info["kind"] == "throw":
            want_throw = r9.check_throw(lead, hands, leader, set(declarers), tab.trump, rules)
            if not want_throw["ok"]:
                played = sorted(want_throw["forced"])
        follows = [random_play(rng, hands[(leader + k) % players], len(played), tab, e) for k in range(1, players)]
        got = referee.trick([_strings(lead)] + [_strings(f) for f in follows], _trump_json(tab),
                            hands=[_strings(h) for h in hands], leader=leader, declarers=declarers, rules=rules,
                            game=game, explain=True)
        where = (size, tab.trump, rules, lead, hands, follows)
        if want_throw is not None:
            assert got["throw"]["ok"] == want_throw["ok"], where
            if not want_throw["ok"]:
                assert (got["throw"]["blocked_by"], got["throw"]["penalty"]) == (
                    want_throw["blocked_by"], want_throw["penalty"]), where
                assert sorted(parse_cards(got["throw"]["forced"])) == sorted(want_throw["forced"]), where
            seen[("throw", want_throw["ok"])] += 1
        want_kind = _reference_kind(r9.classify(played, tab.trump, rules))
        assert got["lead"]["kind"] == want_kind, where
        assert sorted(parse_cards(sum(got["lead"]["units"], []))) == sorted(played), where
        for k, f in enumerate(follows, 1):
            legal = r9.legal_follow(hands[(leader + k) % players], played, f, tab.trump, rules)
            assert got["legal"][k] == legal, (where, k)
            seen[("follow", legal)] += 1
        assert got["winner"] == r9.trick_winner([played] + follows, leader, players, tab.trump, rules), where
        assert len(got["explain"]) == players + (want_throw is not None and not want_throw["ok"])
        seen[want_kind] += 1
    assert seen[("throw", True)] and seen[("throw", False)] and seen["triple"] and seen["tractor"], seen
    assert seen[("follow", True)] > n and seen[("follow", False)] > n // 5, seen


def test_judge_reads_the_game_size_from_the_json():
    """``tractor-sim judge`` with players/decks: a triple led at 6/3, answered by a triple, a pair and a
    single, and errors that name the field."""
    trick = {"players": 6, "decks": 3, "trump": {"rank": "2", "suit": "H"}, "leader": 1,
             "hands": [["3C", "3C", "8D"], ["AS", "AS", "AS"], ["KS", "KS", "KS"], ["QS", "QS", "4D"],
                       ["5S", "6C", "7C"], ["2H", "2H", "2H"]],
             "plays": [["AS", "AS", "AS"], ["KS", "KS", "KS"], ["QS", "QS", "4D"], ["5S", "6C", "7C"],
                       ["2H", "2H", "2H"], ["3C", "3C", "8D"]]}
    bad_len = dict(trick, plays=trick["plays"][:5] + [["3C", "3C"]])
    r = CliRunner().invoke(main, ["judge", "-", "--explain"], input=json.dumps(trick))
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["lead"] == {"kind": "triple", "units": [["AS", "AS", "AS"]]}
    assert out["legal"] == [True] * 6 and out["winner"] == 5 and out["points"] == 35
    assert "seat 5 wins: ruffs with trumps" in out["explain"][-1]
    assert "field 'hands': 4 items; expected 6" in CliRunner().invoke(main, ["judge", "-"], input=json.dumps(
        dict(trick, hands=trick["hands"][:4]))).output
    for data, words in [
        (dict(trick, players=7), "even number of players"),
        (dict(trick, decks=2), "plays[0]: card AS appears more than 2 times"),
        (dict(trick, declarers=[0, 1]), "declarers: expected [0, 2, 4] or [1, 3, 5]"),
        (dict(trick, leader=6), "field 'leader': 6 is too large; the largest allowed value is 5"),
        (dict(trick, plays=[["AS", "AS"], ["AS", "AS"]]), "played 4 times in one trick; the 3 decks hold it 3 times"),
        (dict(trick, teams="friends", declarers=[0, 1, 2, 3]), "1 to 3 distinct seats"),
        (bad_len, "seat 0: illegal"),
    ]:
        r = CliRunner().invoke(main, ["judge", "-", "--explain"], input=json.dumps(data))
        assert words in r.output and "Traceback" not in r.output, (data, r.output)


# ---------------------------------------------------------------------------
# the built-in follow strategies (strategy_lib's builders at 3 and 4 decks)

FOLLOWS = ("random", "cheapest", "smart", "ruff_points", "expert")


@pytest.mark.parametrize("size", sized(SIZES, {(6, 3)}))
def test_follow_strategies_play_legally(size, view_of, n=300):
    """Every built-in follow strategy, in random situations (a lead, maybe other plays, my hand),
    under every follow_tractor: a play the reference finds legal."""
    pkg = package(size)
    players, decks = size
    S.load_builtins()
    fns = [(name, S.get_strategy("follow", name).sized_function(pkg), np.array(list(S.get_strategy("follow", name).params.values()),
                                                                       dtype=np.float64)) for name in FOLLOWS]
    rng = random.Random(9400 + players * 10 + decks)
    shapes = Counter()
    for trial in range(n):
        tab = random_table(rng)
        pool = pool_of(decks)
        e = led_suit(rng, tab, pool, decks)
        lead = random_lead(rng, pool, tab, e, decks)
        units = r9.decompose(lead, tab.trump, tab.rules)
        before = rng.randrange(players - 1)
        plays = [lead] + [competing_play(rng, pool, tab, units, len(lead), e, decks) for _ in range(before)]
        hand = random_hand(rng, pool, tab, e, decks, rng.randint(len(lead), len(lead) + 20))
        if len(hand) < len(lead):  # the pool ran dry: no deal has a hand shorter than the lead
            continue
        leader = rng.randrange(players)
        seat = (leader + len(plays)) % players
        rules = tab.rules_with(follow_tractor=FOLLOW_MODES[trial % len(FOLLOW_MODES)])
        view = view_of(hand, *tab.trump, seat=seat, trick=plays, leader=leader, package=pkg, tt=tab.tt(pkg.kernels),
                       rules=encode(rules))
        for name, fn, params in fns:
            out = np.zeros(54, dtype=np.int64)
            got = fn(view.copy(), params, np.array([trial + 1], dtype=np.uint64), np.zeros(256), out)
            play = listed(out)
            assert got == len(lead) and r9.legal_follow(hand, lead, play, tab.trump, rules), (
                name, size, tab.trump, rules, lead, hand, play)
            shapes[(name, max(Counter(play).values()))] += 1
    for name in FOLLOWS:
        assert shapes[(name, 3)] > 0, shapes


# ---------------------------------------------------------------------------
# whole deals


def _big_lead(view, params, rng, scratch, out):
    """Test lead strategy ``tuples_big``: with probability ``p`` my largest shape (the largest tuple
    size, then the longest run of positions holding it), else strategy_lib.random_lead."""
    if _uniform(rng) < params[0]:
        best_e = -1
        best_m = 0
        best_len = 0
        best_top = -1
        for e in range(5):
            for m in range(2, DECKS + 1):
                run = 0
                last = -2
                for i in range(view[V.V_TTMETA, e]):
                    c = view[V.V_SUITS + e, i]
                    if view[V.V_HAND, c] < m:
                        continue
                    p = view[V.V_POS, c]
                    if p == last:
                        continue
                    run = run + 1 if p == last + 1 else 1
                    last = p
                    if m > best_m or (m == best_m and run > best_len):
                        best_e, best_m, best_len, best_top = e, m, run, p
        if best_e >= 0:
            return sl.put_shape(view, out, best_e, best_top, best_m, best_len)
    return sl.random_lead(view, rng, out)


def register_test_leads():
    """``refdeal_rash`` (tests/reference_deal) and ``tuples_big`` in the main registry (their names)."""
    RD.register_test_policies()
    if ("lead", "tuples_big") not in {(d, n) for d, n, _, _ in S.list_strategies()}:
        from tractor_sim.core import lib as strategy_lib
        from tractor_sim.core.kernels import rng as rng_module, view as view_module
        from tractor_sim.core.kernels.dims import DECKS

        glob = dict(_big_lead.__globals__)
        glob.update(sl=strategy_lib, V=view_module, _uniform=rng_module.uniform, DECKS=DECKS)
        fn = types.FunctionType(_big_lead.__code__, glob, "_big_lead")
        fn.__module__, fn.__qualname__ = __name__, "_big_lead"
        S.strategy("lead", "tuples_big", params={"p": 0.7},
                   description="test only: my largest tuple or tractor of tuples")(fn)


def register_sized(size, name, fn):
    """A test lead at a size other than 4/2: compiled against that size's view and strategy
    library, in the size's registry (games of other sizes play built-in strategies only)."""
    pkg = package(size)
    key = ("lead", name)
    if key in pkg.registry.STRATEGIES:
        return
    import numba

    base = pkg.__name__
    rng = importlib.import_module(base + ".kernels.rng")
    glob = dict(fn.__globals__)
    glob.update(sl=importlib.import_module(base + ".lib"), V=importlib.import_module(base + ".kernels.view"),
                randint=rng.randint, _uniform=rng.uniform, DECKS=importlib.import_module(base + ".kernels.dims").DECKS)
    pkg.registry.strategy(*key)(types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__))


def _name(p):
    return p if isinstance(p, str) else p["name"]


def play_deals(size, policies, mode, count, seed, rules=None):
    """Run a chunk with the full event log (the engine stops at an illegal play); judged by
    referee9 when present.  Returns (deals, counters of what the leads and follows held)."""
    from tractor_sim.core.kernels import match as M

    register_test_leads()
    register_sized(size, "refdeal_rash", RD._rash_lead)
    register_sized(size, "tuples_big", _big_lead)
    names = tuple(_name(p) for p in policies)
    spec = E.ChunkSpec(matchup="-vs-".join(names), policies=tuple(policies), names=names, half=0, mode=mode,
                       first_id=0, count=count, seed=seed, rules=Rules.from_dict(rules or {}).to_dict(),
                       levels=(3, 5), declaring_team=seed % 2, game=(size[0], size[1], "tractor"))
    res = E.run_chunk(spec, M.LOG_ALL)
    log = res.extra["log"]
    if RF is not None:
        RF.LogReferee9(size[0], size[1], rules).check_chunk(spec, res.deals, res.matches, log)
    return res.deals, count_shapes(log, res.deals, rules)


def count_shapes(log, deals, rules):
    """Triples and quadruples played (leads and follows), tractors of triples or more led, leads by
    kind, throws and failed throws, from the event log."""
    from tractor_sim.core.kernels import events as EV

    n = Counter()
    deal = -1
    trump = None
    opts = {"rank_trumps_in_no_trump": bool((rules or {}).get("rank_trumps_in_no_trump", False))}
    for row in log:  # the events, as run_chunk returns them
        kind = row[EV.LC_KIND]
        cards = row[EV.LC_CARDS:]
        if kind == EV.LOG_START:
            deal += 1
        elif kind == EV.LOG_TRUMP:
            trump = (int(deals["trump_rank"][deal]), int(row[EV.LC_A]))
        elif kind in (EV.LOG_LEAD, EV.LOG_FOLLOW):
            most = int(cards.max())
            n["triples"] += most == 3
            n["quadruples"] += most == 4
            play = listed(cards)
            if kind == EV.LOG_LEAD:
                info = r9.classify(play, trump, opts)
                n["lead " + info["kind"]] += 1
                units = info["units"]
            elif len({r9.effective_suit(c, trump, opts) for c in play}) == 1:
                units = r9.decompose(play, trump, opts)
            else:
                units = []
            n["tuple tractors"] += sum(1 for u in units if u["size"] >= 3 and u["length"] >= 2)
        elif kind == EV.LOG_FAILED_THROW:
            n["failed throws"] += 1
    n["throws"] = n["lead throw"]
    return n


RASH = RD.RASH
BIG = {"name": "big", "declare": "eager", "discard": "random", "lead": "tuples_big", "follow": "expert"}
VARIANT = {"follow_tractor": "shape_first", "kitty_multiplier": "pow2_pairs", "throw_forced_part": "highest"}
VARIANT_T = {"follow_tractor": "tractor", "throw_check": "opponents_only", "rank_trumps_in_no_trump": True,
             "kitty_multiplier": "twice_largest_unit"}
DEAL_CASES = [  # (policies, mode, count, rules)
    (("random", "random"), "fixed", 150, None),
    (("basic", "expert"), "fixed", 150, None),
    (("expert", "basic"), "match", 1, None),
    (("random", "random"), "match", 1, VARIANT),
    ((RASH, "expert"), "fixed", 100, VARIANT),
    (("basic", RASH), "fixed", 100, VARIANT_T),
    ((BIG, "random"), "fixed", 200, VARIANT_T),
    (("basic", BIG), "fixed", 200, None),
]


DEAL_SIZES = [(6, 3), (8, 4), (4, 3), (4, 4)]


@pytest.mark.parametrize("size", sized(DEAL_SIZES, {(6, 3)}))
def test_whole_deals(size, factor=1):
    """Deals of every case played without an illegal play (and judged by referee9 when present);
    triples, quadruples (4 decks), tuple and tractor leads, throws and failed throws occur.  A
    tractor of triples needs six cards in one hand: with 6 and 8 players (26-card hands) it is
    rare, so it must occur with 4 players (39 and 52 cards)."""
    total = Counter()
    for i, (pols, mode, count, rules) in enumerate(DEAL_CASES):
        deals, n = play_deals(size, pols, mode, count * factor, 30 + i, rules)
        assert len(deals) >= count * factor
        total.update(n)
        total["deals"] += len(deals)
    print(f"\n{size[0]} players {size[1]} decks: {dict(sorted(total.items()))}"
          f"{'' if RF is None else ' (every event judged by referee9)'}")
    wanted = ["triples", "lead tuple", "lead tractor", "throws", "failed throws"]
    if size[1] >= 4:
        wanted.append("quadruples")
    if size[0] == 4:
        wanted.append("tuple tractors")
    missing = [k for k in wanted if total[k] == 0]
    assert not missing, f"never played: {missing}; {dict(total)}"


# ---------------------------------------------------------------------------
# the long runs


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_long_differential(size, view_of):
    test_decomposition_kind_and_kitty_multiplier(size, n=1500 * FACTOR)
    test_follow_legality(size, n=700 * FACTOR)
    test_throw_check(size, n=800 * FACTOR)
    test_trick_winner(size, n=700 * FACTOR)
    test_follow_strategies_play_legally(size, view_of, n=300 * FACTOR)


@pytest.mark.slow
@pytest.mark.parametrize("size", DEAL_SIZES, ids=[f"{p}p{d}d" for p, d in DEAL_SIZES])
def test_long_deals(size):
    test_whole_deals(size, factor=FACTOR)
