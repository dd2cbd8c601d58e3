"""The compiled kernels against the pure-Python reference, on random situations
drawn from real deals.

Each situation: a shuffled 108-card deck (numpy Generator seeded per test)
dealt one card at a time into four hands of 25 (+ the 8-card kitty), cut down
to the hand size of a random point of the deal; a random trump (rank, suit or
no trump suit, with or without ``rank_trumps_in_no_trump``); a random leader
and declaring team; a random lead (single, pair, tractor, random, top-heavy or
mostly-unbeatable subsets of one effective suit as throws).  Some lead modes
deal again until they find what they need, or make a seat void in the led suit
by swapping cards between the other hands (the deal stays a permutation of the
deck), so that ruffs of every lead kind and several ruffers occur.  Per
follower: a legal follow built by a simple generator (a ruff attempt when
void) and a random subset of the hand of the lead's size, so that both
verdicts occur.  The kernels run in batch through small @njit loops; the
reference is called per situation.

Compared: the lead's decomposition (kind, units as card multisets, in order)
and that of a "pool" (one suit's cards of several hands together: many pairs
and tractors); the throw check under every ``throw_check`` x
``throw_forced_part`` option (ok, blocked_by, forced cards, penalty); every
follow's legality; the trick winner (full and partial tricks, legal and
random plays) and points; the kitty bonus under each multiplier; the level
table for p in range(-100, 400, 5).  The default run has 5,000 situations
(1,000 under NUMBA_DISABLE_JIT=1); ``-m slow`` runs 100,000 and prints the
count of every verdict (use ``-s`` to see it).
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from numba import njit

from tractor_sim.play import referee
from tractor_sim.rules.cards import POINTS, card_str
from tractor_sim.core.kernels import combos as K
from tractor_sim.core.kernels import declare as DK
from tractor_sim.core.kernels import scoring as S
from tractor_sim.core.kernels.order import trump_table
from tractor_sim.rules.options import R_THROW_PENALTY, Rules

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"
DEFAULT_N = 1_000 if NO_JIT else 5_000  # every verdict of MUST_OCCUR occurs (the rarest twice)
SLOW_N = 100_000
CHUNK = 1_000

THROW_OPTIONS = [
    (check, forced)
    for check in ("all_others", "opponents_only")
    for forced in ("fewest_then_lowest", "lowest", "highest")
]
KITTY_OPTIONS = ("twice_lead_size", "pow2_pairs", "twice_largest_unit")
THROW_RULES = np.array(
    [Rules(throw_check=c, throw_forced_part=f).encode() for c, f in THROW_OPTIONS], dtype=np.int64
)
KITTY_RULES = np.array([Rules(kitty_multiplier=m).encode() for m in KITTY_OPTIONS], dtype=np.int64)
FOLLOW_OPTIONS = ("none", "tractor", "shape_first")
FOLLOW_RULES = np.array([Rules(follow_tractor=m).encode() for m in FOLLOW_OPTIONS], dtype=np.int64)
PENALTIES = (10, 10, 10, 0, 20, 5)
MAX_DEALS = 60

LEAD_MODES = ("single", "pair", "tractor", "ruffable_pair", "ruffable_tractor", "throw_random", "throw_top",
              "throw_standing", "throw_mixed", "throw_tractor")
LEAD_P = (0.10, 0.10, 0.10, 0.06, 0.06, 0.14, 0.12, 0.16, 0.10, 0.06)


# ---------------------------------------------------------------------------
# Batch kernels


@njit(cache=True)
def _batch_leads(tinfo, leads, hands, leaders, decl, penalties, throw_rules, units_out, ucards_out, nu_out,
                 kind_out, throw_out, pools, pool_units, pool_ucards, pool_nu):
    """Decompose every lead and check it as a throw under every option set;
    decompose every pool (a suit's cards from several hands)."""
    res = np.zeros(4, dtype=np.int64)
    for i in range(leads.shape[0]):
        tt = trump_table(tinfo[i, 0], tinfo[i, 1], tinfo[i, 2])
        units, ucards = K.new_units()
        pool_nu[i] = K.decompose(pools[i], tt, units, ucards)
        pool_units[i] = units
        pool_ucards[i] = ucards
        units, ucards = K.new_units()
        nu = K.decompose(leads[i], tt, units, ucards)
        units_out[i] = units
        ucards_out[i] = ucards
        nu_out[i] = nu
        kind_out[i] = K.kind_of(units, nu)
        for r in range(throw_rules.shape[0]):
            rules = throw_rules[r].copy()
            rules[R_THROW_PENALTY] = penalties[i]
            K.check_throw(leads[i], hands[i], leaders[i], decl[i], tt, rules, units, ucards, nu, res)
            for j in range(4):
                throw_out[i, r, j] = res[j]


@njit(cache=True)
def _batch_tricks(tinfo, leads, hands, leaders, plays, nplays, kitty, follow_rules, kitty_rules,
                  legal_out, winner_out, points_out, kitty_out):
    """Follow legality (under each follow_tractor option), trick winners, points and kitty
    bonuses for every situation.

    plays[i, g, j]: follower j's play (j = 0..2 after the leader) of generator g
    (0 legal, 1 random).  winner_out[i]: full trick with legal plays, partial
    trick (nplays[i] plays) with legal plays, full trick with random plays.
    """
    trick = np.zeros((4, 54), dtype=np.int64)
    for i in range(leads.shape[0]):
        tt = trump_table(tinfo[i, 0], tinfo[i, 1], tinfo[i, 2])
        units, ucards = K.new_units()
        nu = K.decompose(leads[i], tt, units, ucards)
        suit = K.combo_suit(leads[i], tt)
        n = K.ncards(leads[i])
        pairs = K.total_pairs(units, nu)
        largest = 0
        for u in range(nu):
            largest = max(largest, units[u, K.UNIT_NCARDS])
        for g in range(2):
            for j in range(3):
                seat = (leaders[i] + 1 + j) % 4
                for r in range(follow_rules.shape[0]):
                    legal_out[i, g, j, r] = K.legal_follow(hands[i, seat], plays[i, g, j], leads[i], tt,
                                                           follow_rules[r])
        for w in range(3):
            g = 1 if w == 2 else 0
            np_ = nplays[i] if w == 1 else 4
            trick[0] = leads[i]
            for j in range(3):
                trick[j + 1] = plays[i, g, j]
            winner_out[i, w] = K.trick_winner(trick, np_, tt)
            p = 0
            for j in range(np_):
                p += S.card_points(trick[j])
            points_out[i, w] = p
        kp = S.card_points(kitty[i])
        for m in range(kitty_rules.shape[0]):
            kitty_out[i, m] = kp * S.kitty_multiplier(n, pairs, largest, kitty_rules[m])


# ---------------------------------------------------------------------------
# Situations


def _counts(cards):
    out = np.zeros(54, dtype=np.int64)
    for c in cards:
        out[c] += 1
    return out


def _cards(counts):
    return [c for c in range(54) for _ in range(int(counts[c]))]


class Order:
    """Effective suits and positions of the 54 cards (from the reference)."""

    def __init__(self, trump, rules):
        self.eff = [ref.effective_suit(c, trump, rules) for c in range(54)]
        self.pos = [ref.position(c, trump, rules) for c in range(54)]

    def of_suit(self, cards, s):
        return [c for c in cards if self.eff[c] == s]

    def pair_cards(self, cards):
        """Distinct cards held twice (one entry per pair)."""
        cnt = Counter(cards)
        return sorted(c for c in cnt if cnt[c] >= 2)

    def tractors(self, cards, k=None):
        """Every tractor (list of distinct cards, high to low) in ``cards`` of one suit,
        of exactly k pairs (or of any length >= 2)."""
        by_pos = {}
        for c in self.pair_cards(cards):
            by_pos.setdefault(self.pos[c], []).append(c)
        out = []
        for top in by_pos:
            lengths = [k] if k else range(2, 17)
            for length in lengths:
                if all(top - d in by_pos for d in range(length)):
                    out.append([by_pos[top - d] for d in range(length)])
        return out


def _pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _sample(rng, cards, n):
    idx = rng.choice(len(cards), size=n, replace=False)
    return [cards[int(i)] for i in idx]


def _remove(pool, cards):
    pool = list(pool)
    for c in cards:
        pool.remove(c)
    return pool


def make_lead(rng, mode, hands, leader, order):
    """A lead of the mode; modes that need a structure look for a seat that has
    it (from the random leader on).  Returns (leader, cards or None)."""
    for k in range(4):
        seat = (leader + k) % 4
        lead = _lead_of_mode(rng, mode, hands, seat, order)
        if lead:
            return seat, lead
    return leader, None


def _lead_of_mode(rng, mode, hands, seat, order):
    hand = hands[seat]
    suits = [s for s in range(5) if order.of_suit(hand, s)]
    if mode == "single":
        return [_pick(rng, hand)]
    if mode == "pair":
        pairs = order.pair_cards(hand)
        return [_pick(rng, pairs)] * 2 if pairs else None
    if mode == "tractor":
        tr = [t for s in suits for t in order.tractors(order.of_suit(hand, s))]
        return _tractor_cards(rng, _pick(rng, tr)) if tr else None
    if mode.startswith("ruffable"):
        # a pair or tractor of a plain suit, and another seat, made void in that
        # suit, that holds trumps of the same shape (else None: deal again)
        units = []
        for s in suits:
            if s != 4:
                mine = order.of_suit(hand, s)
                if mode == "ruffable_pair":
                    units += [[c, c] for c in order.pair_cards(mine)]
                else:
                    units += [_tractor_cards(rng, t) for t in order.tractors(mine)]
        if not units:
            return None
        lead = _pick(rng, units)
        void = (seat + int(rng.integers(1, 4))) % 4
        if not _make_void(rng, hands, seat, void, order.eff[lead[0]], order):
            return None
        trumps = order.of_suit(hands[void], 4)
        k = len(lead) // 2
        if (k == 1 and not order.pair_cards(trumps)) or (k >= 2 and not order.tractors(trumps, k)):
            return None
        return lead
    if mode == "throw_tractor":
        # one or two tractors of a suit and a few other cards of it (for the shape_first option)
        tr = [(s, t) for s in suits for t in order.tractors(order.of_suit(hand, s))]
        if not tr:
            return None
        s, t = _pick(rng, tr)
        lead = _tractor_cards(rng, t)
        rest = _remove(order.of_suit(hand, s), lead)
        more = order.tractors(rest)
        if more and rng.random() < 0.4:
            lead += _tractor_cards(rng, _pick(rng, more))
            rest = _remove(order.of_suit(hand, s), lead)
        k = min(len(rest), int(rng.integers(1, 4)))
        return lead + _sample(rng, rest, k) if k else None
    multi = [s for s in suits if len(order.of_suit(hand, s)) >= 2]
    if not multi:
        return None
    cards = order.of_suit(hand, _pick(rng, multi))
    k = int(rng.integers(2, min(len(cards), 10) + 1))
    if mode == "throw_random":
        return _sample(rng, cards, k)
    ranked = sorted(cards, key=lambda c: (-order.pos[c], c))
    if mode == "throw_top":
        return ranked[:k]
    if mode == "throw_standing":
        # the cards no other seat can beat as singles, plus maybe an unbeaten pair
        # and maybe one stray card (so that the throw fails on it); half the time
        # another seat is first made void in the suit, to be able to ruff
        s = order.eff[cards[0]]
        if s != 4 and rng.random() < 0.5:
            first_void = (seat + int(rng.integers(1, 4))) % 4
            _make_void(rng, hands, seat, first_void, s, order)
            if rng.random() < 0.8:  # a second seat void too: several ruffers
                second = _pick(rng, [o for o in range(4) if o not in (seat, first_void)])
                _make_void(rng, hands, seat, second, s, order, keep=first_void)
        others = [c for o in range(4) if o != seat for c in order.of_suit(hands[o], s)]
        best_other = max((order.pos[c] for c in others), default=-1)
        best_pair = max((order.pos[c] for c in order.pair_cards(others)), default=-1)
        top = [c for c in cards if order.pos[c] >= best_other]
        rest = _remove(cards, top)
        lead = _sample(rng, top, int(rng.integers(1, len(top) + 1))) if top else []
        pairs = [c for c in order.pair_cards(rest) if order.pos[c] >= best_pair]
        if pairs and rng.random() < 0.6:
            c = _pick(rng, pairs)
            lead += [c, c]
            rest = _remove(rest, [c, c])
        if rest and (len(lead) < 2 or rng.random() < 0.3):
            lead += _sample(rng, rest, 1)
        return lead if len(lead) >= 2 else None
    # throw_mixed: a few top cards plus a random unit from lower down
    top = ranked[: int(rng.integers(1, 3))]
    rest = _remove(cards, top)
    if not rest:
        return top
    units = [[c, c] for c in order.pair_cards(rest)] + [_tractor_cards(rng, t) for t in order.tractors(rest)]
    extra = _pick(rng, units) if units and rng.random() < 0.8 else _sample(rng, rest, 1)
    return top + extra


def _make_void(rng, hands, seat, void, s, order, keep=-1):
    """Swap the cards of suit s held by seat ``void`` for cards (trumps first) of
    the seats other than ``seat``, ``void`` and ``keep``: the deal stays a
    permutation of the deck.  False if a swap found nothing to take."""
    givers = [o for o in range(4) if o not in (seat, void, keep)]
    for c in order.of_suit(hands[void], s):
        o = _pick(rng, givers)
        swap = order.of_suit(hands[o], 4) or [x for x in hands[o] if order.eff[x] != s]
        if not swap:
            return False
        x = _pick(rng, swap)
        hands[void].remove(c)
        hands[void].append(x)
        hands[o].remove(x)
        hands[o].append(c)
    return True


def _tractor_cards(rng, alternatives):
    """A tractor given, per position, the distinct cards that can fill it."""
    out = []
    for alts in alternatives:
        c = _pick(rng, alts)
        out += [c, c]
    return out


def legal_follow_gen(rng, hand, lead_units, suit, n, order):
    """A legal follow built directly from the rules (and, when void, a ruff attempt)."""
    in_suit = order.of_suit(hand, suit)
    lead_pairs = sum(u["pairs"] for u in lead_units)
    if len(in_suit) >= n:
        pairs = order.pair_cards(in_suit)
        take = _sample(rng, pairs, min(lead_pairs, len(pairs))) if pairs else []
        play = [c for c in take for _ in (0, 1)]
        return play + _sample(rng, _remove(in_suit, play), n - len(play))
    play = list(in_suit)
    rest = _remove(hand, play)
    need = n - len(play)
    trumps = order.of_suit(rest, 4)
    if not play and suit != 4 and len(trumps) >= n and rng.random() < 0.85:
        ruff = _ruff(rng, trumps, lead_units, order) if rng.random() < 0.8 else _sample(rng, trumps, n)
        if ruff is not None:
            return ruff
    return play + _sample(rng, rest, need)


def _ruff(rng, trumps, lead_units, order):
    """Trumps in the lead's arrangement, unit by unit (None if they run out).

    The units chosen may still join into another arrangement (two pairs that
    happen to be consecutive), which the judges must reject."""
    pool = list(trumps)
    out = []
    for u in lead_units:
        k = u["pairs"]
        if k >= 2:
            options = order.tractors(pool, k)
            if not options:
                return None
            cards = _tractor_cards(rng, _pick(rng, options))
        elif k == 1:
            options = order.pair_cards(pool)
            if not options:
                return None
            c = _pick(rng, options)
            cards = [c, c]
        else:
            cards = [_pick(rng, pool)]
        pool = _remove(pool, cards)
        out += cards
    return out


def make_chunk(rng, n):
    """n situations as arrays for the kernels and lists for the reference."""
    sit = {
        "tinfo": np.zeros((n, 3), dtype=np.int64),
        "hands": np.zeros((n, 4, 54), dtype=np.int64),
        "leads": np.zeros((n, 54), dtype=np.int64),
        "leaders": np.zeros(n, dtype=np.int64),
        "decl": np.zeros(n, dtype=np.int64),
        "penalties": np.zeros(n, dtype=np.int64),
        "kitty": np.zeros((n, 54), dtype=np.int64),
        "nplays": np.zeros(n, dtype=np.int64),
        "pools": np.zeros((n, 54), dtype=np.int64),
        "py": [],
    }
    deck0 = np.repeat(np.arange(54, dtype=np.int64), 2)
    for i in range(n):
        mode = LEAD_MODES[int(rng.choice(len(LEAD_MODES), p=LEAD_P))]
        # deal until the lead mode finds what it needs (rejection sampling; the
        # structured modes rarely need more than a few deals)
        for attempt in range(MAX_DEALS):
            deck = rng.permutation(deck0)
            first = int(rng.integers(4))
            size = 25 if rng.random() < 0.4 else int(rng.integers(1, 26))
            dealt = [[], [], [], []]
            for k in range(100):
                dealt[(first + k) % 4].append(int(deck[k]))
            hands = [h[:size] for h in dealt]  # the hands at a random point of the deal
            kitty = [int(c) for c in deck[100:]]
            rank = int(rng.integers(13))
            suit = int(rng.integers(4)) if rng.random() < 0.75 else 4
            rtnt = bool(rng.random() < 0.5)
            trump = (rank, suit)
            rules = {"rank_trumps_in_no_trump": rtnt}
            order = Order(trump, rules)
            leader, lead = make_lead(rng, mode, hands, int(rng.integers(4)), order)
            if lead is not None:
                break
        else:
            leader, lead = make_lead(rng, "single", hands, leader, order)
        sit["tinfo"][i] = (rank, suit, int(rtnt))
        for s in range(4):
            sit["hands"][i, s] = _counts(hands[s])
        sit["leads"][i] = _counts(lead)
        sit["leaders"][i] = leader
        sit["decl"][i] = int(rng.integers(2))
        sit["penalties"][i] = PENALTIES[int(rng.integers(len(PENALTIES)))]
        sit["kitty"][i] = _counts(kitty)
        # a pool: the cards of one effective suit held by one to four seats together
        # (many pairs and tractors, to stress the decomposition)
        seats = [s for s in range(4) if rng.random() < 0.6] or [leader]
        held = [c for s in seats for c in hands[s]]
        suit_ = order.eff[_pick(rng, held)]
        pool = order.of_suit(held, suit_)
        sit["pools"][i] = _counts(pool)
        sit["nplays"][i] = int(rng.integers(1, 5))
        sit["py"].append({"hands": hands, "kitty": kitty, "trump": trump, "rules": rules, "order": order,
                          "lead": lead, "leader": leader, "pool": pool})
    return sit


# ---------------------------------------------------------------------------
# The comparison


def _kernel_units(units, ucards, nu):
    out = []
    for u in range(nu):
        k = int(units[u, K.UNIT_PAIRS])
        cards = [int(ucards[u, 0])] if k == 0 else [int(ucards[u, j]) for j in range(k) for _ in (0, 1)]
        out.append((k, sorted(cards)))
    return out


def _ref_units(units):
    return [(u["pairs"], sorted(u["cards"])) for u in units]


KIND = {K.KIND_SINGLE: "single", K.KIND_PAIR: "pair", K.KIND_TRACTOR: "tractor", K.KIND_THROW: "throw"}


def run_differential(seed, n_total, counts=None):
    """Generate and compare n_total situations; return the verdict counts."""
    counts = Counter() if counts is None else counts
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_total:
        n = min(CHUNK, n_total - done)
        sit = make_chunk(rng, n)
        _compare_chunk(rng, sit, counts)
        done += n
    counts["situations"] += n_total
    return counts


def _compare_chunk(rng, sit, counts):
    n = len(sit["py"])
    units = np.zeros((n, K.MAX_UNITS, 3), dtype=np.int64)
    ucards = np.zeros((n, K.MAX_UNITS, 16), dtype=np.int64)
    nu = np.zeros(n, dtype=np.int64)
    kind = np.zeros(n, dtype=np.int64)
    throw = np.zeros((n, len(THROW_OPTIONS), 4), dtype=np.int64)
    pool_units = np.zeros((n, K.MAX_UNITS, 3), dtype=np.int64)
    pool_ucards = np.zeros((n, K.MAX_UNITS, 16), dtype=np.int64)
    pool_nu = np.zeros(n, dtype=np.int64)
    _batch_leads(sit["tinfo"], sit["leads"], sit["hands"], sit["leaders"], sit["decl"], sit["penalties"],
                 THROW_RULES, units, ucards, nu, kind, throw, sit["pools"], pool_units, pool_ucards, pool_nu)

    played_leads = np.zeros((n, 54), dtype=np.int64)
    plays = np.zeros((n, 2, 3, 54), dtype=np.int64)
    expected = []
    for i, py in enumerate(sit["py"]):
        trump, rules, lead, leader = py["trump"], py["rules"], py["lead"], py["leader"]
        declarers = (0, 2) if sit["decl"][i] == 0 else (1, 3)
        where = f"situation {i}: trump={trump} rules={rules} leader={leader} lead={sorted(lead)}"

        # decomposition
        info = ref.classify(lead, trump, rules)
        assert KIND[int(kind[i])] == info["kind"], where
        assert _kernel_units(units[i], ucards[i], nu[i]) == _ref_units(info["units"]), where
        counts["lead " + info["kind"]] += 1
        want_pool = ref.decompose(py["pool"], trump, rules)
        assert _kernel_units(pool_units[i], pool_ucards[i], pool_nu[i]) == _ref_units(want_pool), \
            f"{where} pool={sorted(py['pool'])}"
        ntr = sum(u["type"] == "tractor" for u in want_pool)
        counts["pool with 2+ tractors" if ntr >= 2 else "pool with 1 tractor" if ntr else "pool without tractor"] += 1

        # throw check under every option
        forced_default = None
        for r, (check, forced_opt) in enumerate(THROW_OPTIONS):
            opts = dict(rules, throw_check=check, throw_forced_part=forced_opt,
                        throw_penalty=int(sit["penalties"][i]))
            want = ref.check_throw(lead, py["hands"], leader, declarers, trump, opts)
            res = throw[i, r]
            got_forced = []
            if res[0] == 0:
                fc = np.zeros(54, dtype=np.int64)
                K.unit_counts(units[i], ucards[i], int(res[2]), fc)
                got_forced = _cards(fc)
            got = {"ok": bool(res[0]), "blocked_by": None if res[1] < 0 else int(res[1]),
                   "forced": got_forced, "penalty": int(res[3])}
            assert got == dict(want, forced=sorted(want["forced"])), f"{where} options={opts} hands={py['hands']}"
            if info["kind"] == "throw":
                verdict = "ok" if want["ok"] else (
                    "blocked by partner" if (want["blocked_by"] - leader) % 2 == 0 else "blocked by opponent")
                counts[f"throw {check}/{forced_opt}: {verdict}"] += 1
            if r == 0:
                forced_default = want

        # follows to the throw as thrown (whether it stands or not), under every follow option
        if info["kind"] == "throw" and any(u["type"] == "tractor" for u in info["units"]):
            for j in range(3):
                seat = (leader + 1 + j) % 4
                h = py["hands"][seat]
                play = legal_follow_gen(rng, h, info["units"], info["suit"], len(lead), py["order"])
                for r, mode in enumerate(FOLLOW_OPTIONS):
                    want = ref.legal_follow(h, lead, play, trump, dict(rules, follow_tractor=mode))
                    got = K.legal_follow(_counts(h), _counts(play), sit["leads"][i],
                                         trump_table(trump[0], trump[1], int(rules["rank_trumps_in_no_trump"])),
                                         FOLLOW_RULES[r])
                    assert bool(got) == want, f"{where} follow_tractor={mode} seat={seat} hand={sorted(h)} " \
                                              f"play={sorted(play)}"
                    if r == 0:
                        standard = want
                    elif standard and not want:
                        counts[f"follow_tractor={mode}: throw follow legal only without it"] += 1

        # the lead as played (a failed throw leads its forced part)
        played = lead if forced_default["ok"] else list(forced_default["forced"])
        played_leads[i] = _counts(played)
        pinfo = ref.classify(played, trump, rules)
        ln = len(played)
        follows = [[], []]
        for j in range(3):
            seat = (leader + 1 + j) % 4
            h = py["hands"][seat]
            legal = legal_follow_gen(rng, h, pinfo["units"], pinfo["suit"], ln, py["order"])
            rand = _sample(rng, h, ln)
            follows[0].append(legal)
            follows[1].append(rand)
            plays[i, 0, j] = _counts(legal)
            plays[i, 1, j] = _counts(rand)
        expected.append((played, follows, declarers, where))

    legal_out = np.zeros((n, 2, 3, len(FOLLOW_OPTIONS)), dtype=np.bool_)
    winner = np.zeros((n, 3), dtype=np.int64)
    points = np.zeros((n, 3), dtype=np.int64)
    kitty = np.zeros((n, len(KITTY_OPTIONS)), dtype=np.int64)
    _batch_tricks(sit["tinfo"], played_leads, sit["hands"], sit["leaders"], plays, sit["nplays"], sit["kitty"],
                  FOLLOW_RULES, KITTY_RULES, legal_out, winner, points, kitty)

    for i, py in enumerate(sit["py"]):
        played, follows, declarers, where = expected[i]
        trump, rules, leader = py["trump"], py["rules"], py["leader"]
        pkind = ref.classify(played, trump, rules)["kind"]
        for g, name in enumerate(("built", "random")):
            for j in range(3):
                seat = (leader + 1 + j) % 4
                for r, mode in enumerate(FOLLOW_OPTIONS):
                    want = ref.legal_follow(py["hands"][seat], played, follows[g][j], trump,
                                            dict(rules, follow_tractor=mode))
                    assert bool(legal_out[i, g, j, r]) == want, f"{where} follow_tractor={mode} played={played} " \
                        f"seat={seat} hand={sorted(py['hands'][seat])} play={sorted(follows[g][j])}"
                    if r == 0:
                        if g == 0:
                            assert want, f"{where}: the generator built an illegal follow {follows[g][j]}"
                        counts[f"follow {name}: {'legal' if want else 'illegal'}"] += 1
                        standard = want
                    elif standard and not want and pkind in ("tractor", "throw"):
                        counts[f"follow_tractor={mode}: {pkind} follow legal only without it"] += 1
        for w, (g, np_) in enumerate(((0, 4), (0, int(sit["nplays"][i])), (1, 4))):
            trick = [played] + follows[g][: np_ - 1]
            want = ref.trick_winner(trick, leader, trump, rules)
            got = (leader + int(winner[i, w])) % 4
            assert got == want, f"{where} trick={trick}"
            assert points[i, w] == ref.trick_points(trick), where
            if w == 0:
                pk = ref.classify(played, trump, rules)["kind"]
                counts[f"winner of {pk}: {'leader' if got == leader else 'follower'}"] += 1
                if pk == "throw" and py["order"].eff[played[0]] != 4:
                    ruffers = sum(1 for p in trick[1:] if p and all(py["order"].eff[c] == 4 for c in p))
                    if ruffers >= 2:
                        counts["throw with 2+ trump answers"] += 1
                    if got != leader and ruffers >= 2:
                        counts["throw ruffed, 2+ trump answers"] += 1
                wp = trick[(got - leader) % 4]
                if got != leader and py["order"].eff[played[0]] != 4 and all(py["order"].eff[c] == 4 for c in wp):
                    counts[f"ruff wins {pk}"] += 1
        for m, mode in enumerate(KITTY_OPTIONS):
            want = ref.kitty_bonus(py["kitty"], played, trump, dict(rules, kitty_multiplier=mode))
            assert kitty[i, m] == want, f"{where} kitty={py['kitty']} mode={mode}"
        counts["kitty bonus > 0"] += int(kitty[i, 0] > 0)


# ---------------------------------------------------------------------------
# Tests

# verdicts that must each occur in a default run (so both answers are exercised)
MUST_OCCUR = [
    "lead single", "lead pair", "lead tractor", "lead throw",
    "follow built: legal", "follow random: legal", "follow random: illegal",
    "winner of single: follower", "winner of pair: follower", "winner of tractor: follower",
    "winner of throw: leader", "winner of throw: follower",
    "ruff wins single", "ruff wins pair", "ruff wins tractor", "ruff wins throw",
    "pool with 2+ tractors", "throw with 2+ trump answers",
] + [
    f"throw {c}/{f}: {v}" for c, f in THROW_OPTIONS for v in ("ok", "blocked by opponent")
] + [f"throw all_others/{f}: blocked by partner" for _, f in THROW_OPTIONS[:3]] + [
    "follow_tractor=tractor: tractor follow legal only without it",
    "follow_tractor=shape_first: tractor follow legal only without it",
    "follow_tractor=shape_first: throw follow legal only without it",
]


def _report(counts):
    lines = [f"{k:55s} {v:8d}" for k, v in sorted(counts.items())]
    print("\n" + "\n".join(lines))


def test_differential_default():
    n = DEFAULT_N
    counts = run_differential(20240611, n)
    _report(counts)
    assert counts["situations"] == n
    missing = [k for k in MUST_OCCUR if counts[k] == 0]
    assert not missing, f"verdicts never produced: {missing}"


@pytest.mark.slow
def test_differential_slow():
    counts = run_differential(777, SLOW_N)
    _report(counts)
    assert counts["situations"] >= 100_000
    missing = [k for k in MUST_OCCUR if counts[k] == 0]
    assert not missing, f"verdicts never produced: {missing}"


def test_level_change_table():
    """Kernel, referee and reference agree on every total from -100 to 395."""
    for p in range(-100, 400, 5):
        keep, levels = S.level_change(p)
        want = ref.level_change(p)
        assert (bool(keep), int(levels)) == (want["declarers_keep"], want["levels"]), p
        verdict = referee.level_change(p)
        assert {k: verdict[k] for k in want} == want, p
        for starter in range(4):
            assert S.next_starter(starter, keep) == ref.next_starter(starter, want["declarers_keep"])


def test_match_winner_grid():
    """Every pair of levels one gain can produce (only one team passes the limit)."""
    for mode in ("pass_ace", "reach_ace"):
        enc = Rules(match_end=mode).encode()
        for a in range(0, 17):
            for b in range(0, 17):
                limit = 13 if mode == "pass_ace" else 12
                if a >= limit and b >= limit:
                    continue  # unreachable: only one team gains per deal
                assert S.match_winner(a, b, enc) == (
                    -1 if (w := ref.match_winner([a, b], {"match_end": mode})) is None else w), (mode, a, b)


def test_points_per_card():
    assert [int(S.POINTS[c]) for c in range(54)] == [int(POINTS[c]) for c in range(54)]
    for c in range(54):
        one = np.zeros(54, dtype=np.int64)
        one[c] = 1
        assert S.card_points(one) == ref.trick_points([[c]])


DECLARE_RULES = [dict(pair_override=p, joker_pair_override=j, self_override=o)
                 for p in ("none", "suit_order") for j in (False, True) for o in ("strengthen_only", "any")]


def test_declarations_under_every_override_option():
    """Kernel can_declare against reference.declare_allowed: random hands from real draws, a
    standing declaration made from another (or the same) hand, every declaration option."""
    rng = np.random.default_rng(99)
    counts = Counter()
    deck0 = np.repeat(np.arange(54), 2)
    encoded = [Rules(**r).encode() for r in DECLARE_RULES]
    for _ in range(3000):
        deck = rng.permutation(deck0)
        size = int(rng.integers(1, 26))
        hands = [[int(c) for c in deck[s:100:4][:size]] for s in range(4)]
        rank = int(rng.integers(13))
        seat, other = int(rng.integers(4)), int(rng.integers(4))
        # the standing declaration: any option of the other hand (or none)
        options = [(1, s * 13 + rank) for s in range(4)] + [(2, s * 13 + rank) for s in range(4)] + [(3, 52), (3, 53)]
        held = [(k, c) for k, c in options if hands[other].count(c) >= (1 if k == 1 else 2)]
        current = None
        if held and rng.random() < 0.8:
            k, c = held[int(rng.integers(len(held)))]
            current = (other, k, c)
        cur = current if current is not None else (-1, DK.NONE, -1)
        hand = _counts(hands[seat])
        for rules, enc in zip(DECLARE_RULES, encoded):
            want = ref.declare_allowed(hands[seat], current, seat, rank, rules)
            got = sorted((k, c) for k, c in options
                         if DK.can_declare(hand, k, c, seat, cur[0], cur[1], cur[2], rank, enc))
            assert got == want, (rules, hands[seat], current, seat, rank)
            if current is not None and current[1] == 2 and any(k == 2 for k, _ in want):
                counts[f"pair over pair ({rules['self_override']})"] += 1
            if current is not None and current[1] == 3 and want:
                counts["joker pair over joker pair"] += 1
    assert counts["pair over pair (strengthen_only)"] > 0 and counts["pair over pair (any)"] > 0
    assert counts["joker pair over joker pair"] > 0


def test_must_defend_grid():
    """Kernel defended_gain against reference.level_after on every level, gain and side."""
    for mode in ("none", "ace", "ace_5_10_k"):
        enc = Rules(must_defend=mode).encode()
        for level in range(13):
            for gain in range(0, 8):
                for as_declarers in (True, False):
                    want = ref.level_after(level, gain, as_declarers, {"must_defend": mode})
                    got = level + S.defended_gain(level, gain, as_declarers, enc)
                    assert got == want, (mode, level, gain, as_declarers)
                    if mode == "none":
                        assert want == level + gain


def test_auction_helpers():
    """Bid validity, the declaring team and the starter: referee (kernel helpers) against the reference."""
    for bid in range(-10, 215):
        assert bool(DK.valid_bid(bid)) == ref.bid_ok(bid), bid
    rng = np.random.default_rng(5)
    deck0 = np.repeat(np.arange(54), 2)
    ties = 0
    for _ in range(5000):
        dealer = int(rng.integers(4))
        cards = [int(c) for c in rng.permutation(deck0)[:4]]
        bids = [5 * int(rng.integers(0, 41)) for _ in range(2)]
        if rng.random() < 0.2:
            bids[1] = bids[0]
        got = referee.auction(bids, [card_str(c) for c in cards], dealer)
        shown = {(dealer + i) % 4: cards[i] for i in range(4)}
        team_bids = {dealer % 2: bids[0], 1 - dealer % 2: bids[1]}
        assert got["declaring_team"] == ref.auction_team(team_bids, dealer)
        assert got["starter"] == ref.show_winner(shown, dealer)
        assert got["next_dealer"] == ref.next_dealer(dealer)
        ties += bids[0] == bids[1]
    assert ties > 0
