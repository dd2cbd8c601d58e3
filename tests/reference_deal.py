"""Pure-Python reference deal and match player, and a referee for kernel event logs.

Written from ``docs/rules.md``, ``docs/decisions.md``, ``docs/records.md``
and the view contract of ``tractor_sim/core/kernels/view.py``.  Every rule comes
from ``tests/reference.py`` (decompose/classify, check_throw, legal_follow,
trick_winner, trick_points, kitty_bonus, level_change, level_after,
next_starter, match_winner, declare_allowed, kitty_flip_suit, and for the
auction bid_ok, auction_team, show_winner, next_dealer); none of the kernels'
rule functions is used.  From the package it takes only what is not a rule:

* the random stream primitives (``kernels.rng``: stream_key, randint), so that
  the cards and the strategies' streams are the kernel's;
* the view layout constants (``kernels.view``) and the lead-kind numbers the
  view documents (``combos.KIND_*``), the record dtypes (``engine``), the
  encoded rules the view carries in row V_RULES (``Rules.encode``);
* the strategies themselves (``strategy.resolve_policy``: the compiled
  functions, or their ``py_func``).

Two parts:

``ReferencePlayer`` plays deals (fixed levels) or whole matches exactly as
the engine's chunk kernel is specified to: deck = every distinct card twice
in id order, Fisher-Yates with the stream (seed, key_a, key_b, P_SHUFFLE +
100 * redeals); round 1's first drawer from P_FIRST; the fixed-mode starter
from (seed, deal id, 0, P_STARTER); seat s's strategy stream from P_SEAT + s
+ 100 * redeals; a strategy is asked to declare only when it has a legal
declaration.  Under the auction (``declaring = "auction"``) the dealer comes
from the same streams (match round 1: P_FIRST; fixed mode: P_STARTER, any of
the four seats) and passes to the next seat after each deal.  It builds each seat's view afresh from its own state at every
decision, checks every answer with the reference rules (IllegalPlay
otherwise) and returns DEAL_DTYPE / MATCH_DTYPE records and the event list
of the kernel log (``LOG_*`` below).

``LogReferee`` replays a kernel event log (``run_chunk(spec, LOG_ALL)``) and
judges every event with the reference rules: draws, declarations, the
auction's bids and shown cards, trump, kitty, burial, every lead (throws: blocked or not, forced part, penalty),
every follow, every trick's winner and points, each deal's record (levels
with must_defend) and the match bookkeeping.

View fields that view.py leaves open are filled as the kernel documents or
does (see ``_Deal.view``): during the draw the trump table is the one of
(trump rank, no trump suit); M_DECL_CARD is 0 while nobody has declared;
M_LEAD_* and M_WINNING keep the previous trick's values while a seat decides
its lead (0 before the first lead); M_LEAD_LONGEST is the largest unit in
pairs (1 for a pair); M_BID_STEP keeps its last value after the auction.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np

try:
    from tests import reference as ref
except ImportError:  # tests/ on sys.path instead of the project root
    import reference as ref

from tractor_sim.rules.cards import BJ, RJ, card_id, points as card_points
from tractor_sim.core.kernels.combos import KIND_PAIR, KIND_SINGLE, KIND_THROW, KIND_TRACTOR
from tractor_sim.core.kernels.rng import randint, stream_key
from tractor_sim.core.kernels.rng import uniform as _uniform
from tractor_sim.core import lib as sl
from tractor_sim.core.kernels import view as V
from tractor_sim.rules.options import Rules, as_rules

warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

# Stream purposes (the last part of a stream key), as the kernel documents them.
P_SHUFFLE = 0
P_FIRST = 1
P_STARTER = 2
P_SEAT = 10
SCRATCH = 256  # float64 scratch per seat, zeroed at the start of a deal (and of each redeal)
MAX_REDEALS = 1000
MAX_DEALS_PER_MATCH = 1000  # deal ids in match mode: match_id * 1000 + deal_in_match

# Event kinds of the kernel log (kernels.deal LOG_*).
LOG_DRAW = 1  # seat drew card a
LOG_DECLARE = 2  # seat declared kind a with card b
LOG_REDEAL = 3  # nobody declared: redeal number a
LOG_TRUMP = 4  # starter (seat), suit a, source b
LOG_HAND = 5  # seat's hand after the draw (counts)
LOG_KITTY = 6  # the kitty as dealt (8 card ids)
LOG_BURY = 7  # the cards the starter buried (counts)
LOG_LEAD = 8  # seat led (counts, as the strategy answered) in trick a
LOG_FAILED_THROW = 9  # the throw failed: blocked by seat a, penalty b, forced part (counts)
LOG_FOLLOW = 10  # seat followed (counts) in trick a
LOG_TRICK = 11  # seat won trick a with b points
LOG_START = 12  # a deal starts: key a (deal or match id), b (deal in match)
LOG_BID = 13  # seat bid a points (the auction)
LOG_SHOW = 14  # seat showed card a (the auction)
COUNT_EVENTS = (LOG_HAND, LOG_BURY, LOG_LEAD, LOG_FAILED_THROW, LOG_FOLLOW)
LOG_NAMES = {LOG_DRAW: "draw", LOG_DECLARE: "declare", LOG_REDEAL: "redeal", LOG_TRUMP: "trump",
             LOG_HAND: "hand", LOG_KITTY: "kitty", LOG_BURY: "bury", LOG_LEAD: "lead",
             LOG_FAILED_THROW: "failed_throw", LOG_FOLLOW: "follow", LOG_TRICK: "trick", LOG_START: "start",
             LOG_BID: "bid", LOG_SHOW: "show"}

# trump_source values (docs/records.md)
SRC_SINGLE, SRC_PAIR, SRC_JOKERS, SRC_FLIP, SRC_NAMED = 0, 1, 2, 3, 4
KIND_CODE = {"single": KIND_SINGLE, "pair": KIND_PAIR, "tractor": KIND_TRACTOR, "throw": KIND_THROW}
TRUMP = ref.TRUMP


def reference_rules(rules):
    """The rule set for tests/reference.py: None for the standard one (its defaults, and faster)."""
    rules = as_rules(rules)
    return None if rules == Rules() else rules


def is_auction(rules):
    return getattr(as_rules(rules), "declaring", "draw") == "auction"


class IllegalPlay(RuntimeError):
    """A strategy's answer broke a rule (the kernel would stop the deal with an error code)."""


# ---------------------------------------------------------------------------
# small helpers


def counts_of(cards):
    out = np.zeros(54, dtype=np.int64)
    for c in cards:
        out[c] += 1
    return out


_IDS = np.arange(54)


def cards_of(counts):
    """Count vector -> sorted list of card ids (each repeated by its count)."""
    return np.repeat(_IDS, counts).tolist()


def _u64(x):
    return np.uint64(int(x) % (1 << 64))


def stream(seed, a, b, purpose):
    """A fresh random stream state (uint64[1]) for the key (seed, a, b, purpose), as the kernel types it."""
    st = np.zeros(1, dtype=np.uint64)
    st[0] = stream_key(_u64(seed), np.int64(a), np.int64(b), np.int64(purpose))
    return st


def shuffled_deck(seed, key_a, key_b, redeals):
    """Each distinct card twice in id order, then Fisher-Yates with the deal's shuffle stream."""
    deck = [c for c in range(54) for _ in range(2)]
    st = stream(seed, key_a, key_b, P_SHUFFLE + 100 * redeals)
    for i in range(len(deck) - 1, 0, -1):
        j = int(randint(st, np.int64(i + 1)))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_drawer(seed, key_a, key_b, redeals):
    """Round 1: the seat that draws first, from the seed."""
    return int(randint(stream(seed, key_a, key_b, P_FIRST + 100 * redeals), np.int64(4)))


def fixed_starter(seed, deal_id, declaring_team, auction=False):
    """Fixed-levels mode: the starter is one of the declaring team's two seats, from the seed.

    Under the auction this stream gives the dealer instead, any of the four seats.
    """
    st = stream(seed, deal_id, 0, P_STARTER)
    if auction:
        return int(randint(st, np.int64(4)))
    return declaring_team + 2 * int(randint(st, np.int64(2)))


_TABLES: dict = {}


def trump_table(rank, suit, rules):
    """The (8, 54) trump table of kernels.order's documented format, built from the reference's
    effective suits and positions: eff, pos, the cards of each effective suit in ascending
    position (equal positions by card id, -1 padded), and the meta row."""
    rtnt = bool(getattr(rules, "rank_trumps_in_no_trump", False))
    key = (rank, suit, rtnt)
    tt = _TABLES.get(key)
    if tt is not None:
        return tt
    trump = (rank, suit)
    tt = np.full((8, 54), -1, dtype=np.int64)
    for c in range(54):
        tt[0, c] = ref.effective_suit(c, trump, rules)
        tt[1, c] = ref.position(c, trump, rules)
    for e in range(5):
        cards = sorted((c for c in range(54) if tt[0, c] == e), key=lambda c: (tt[1, c], c))
        tt[2 + e, : len(cards)] = cards
        tt[7, e] = len(cards)
        tt[7, 5 + e] = (max(tt[1, c] for c in cards) + 1) if cards else 0
    other = 1 if suit == 0 else 0  # a suit that is not the trump suit
    tt[7, 10] = rank
    tt[7, 11] = suit
    tt[7, 12] = 1 if ref.effective_suit(card_id(other, rank), trump, rules) == TRUMP else 0
    tt.setflags(write=False)
    _TABLES[key] = tt
    return tt


def level_row(p, rules=None):
    """Row of the level table (docs/records.md) from reference.level_change."""
    lc = ref.level_change(p, rules)
    return 3 - lc["levels"] if lc["declarers_keep"] else 3 + lc["levels"]


def deal_record(fields):
    dtype = _deal_dtype()
    rec = np.zeros(1, dtype=dtype)
    for k, v in fields.items():
        if k in dtype.names:
            rec[k] = v
    return rec[0]


def _deal_dtype():
    from tractor_sim.play.game import Game

    return Game.of().deal_dtype


def _match_dtype():
    from tractor_sim.play.game import Game

    return Game.of().match_dtype


# ---------------------------------------------------------------------------
# strategies


class Sides:
    """The two teams' strategies: functions[team][decision], params[team, decision] (padded as the engine does)."""

    def __init__(self, policies, python=False):
        from tractor_sim.play import registry as S

        S.load_builtins()
        pols = [S.resolve_policy(p) for p in policies]
        plen = max(1, max(len(v) for pol in pols for v in pol.params))
        self.params = np.zeros((2, len(V.DECISIONS), plen), dtype=np.float64)
        for team, pol in enumerate(pols):
            for d in range(len(pol.params)):
                self.params[team, d, : len(pol.params[d])] = pol.params[d]
        self.functions = [[(f.py_func if python else f) for f in pol.functions] for pol in pols]
        self.names = tuple(pol.name for pol in pols)


def _rash_lead(view, params, rng, scratch, out):
    """Test lead strategy (see register_test_policies)."""
    if _uniform(rng) >= params[0]:
        return sl.random_lead(view, rng, out)
    nsuits = 0
    for e in range(5):
        if sl.suit_len(view, e) >= 2:
            nsuits += 1
    if nsuits == 0:
        return sl.random_lead(view, rng, out)
    pick = randint(rng, nsuits)
    e = 0
    for s in range(5):
        if sl.suit_len(view, s) >= 2:
            if pick == 0:
                e = s
                break
            pick -= 1
    n = 0
    for i in range(view[V.V_TTMETA, e]):
        c = view[V.V_SUITS + e, i]
        for _ in range(view[V.V_HAND, c]):
            if _uniform(rng) < 0.5:
                out[c] += 1
                n += 1
    if n < 2:  # too few drawn: throw the whole suit
        n = 0
        for i in range(view[V.V_TTMETA, e]):
            c = view[V.V_SUITS + e, i]
            out[c] = view[V.V_HAND, c]
            n += out[c]
    return n


_TEST_POLICIES_DONE = []
RASH = {"name": "rash", "declare": "eager", "discard": "random", "lead": "refdeal_rash", "follow": "random"}
SHY = {"name": "shy", "policy": "basic", "params": {"declare.min_cards": 12, "declare.jokers": 0}}


def register_test_policies():
    """Register the extra strategies and policies the deal tests use (once per process).

    The built-in policies never make a throw that can fail and nearly always
    declare in time, so two test policies reach the rest of the rules:

    * lead strategy ``refdeal_rash``: with probability ``p`` a random subset
      (two cards or more) of a random effective suit held: mostly throws, many
      of them failing (penalties, forced parts, and the kitty multiplier of a
      forced last lead); otherwise a random single, pair or tractor.
      Policy table ``RASH`` = random with this lead.
    * policy table ``SHY`` = basic declaring only with 12 trumps and never with
      jokers alone: redeals in round 1, kitty flips later.
    (Tables, not registered policies, so the registry's policy list stays as it is.)
    """
    if _TEST_POLICIES_DONE:
        return
    from tractor_sim.play import registry as S

    S.load_builtins()
    S.strategy("lead", "refdeal_rash", params={"p": 0.5},
               description="test only: random throws of a random suit, many of them failing")(_rash_lead)
    _TEST_POLICIES_DONE.append(True)


# ---------------------------------------------------------------------------
# one deal


class _Deal:
    """The whole state of one deal attempt, and the view builder."""

    def __init__(self, player, seed, key_a, key_b, round1, levels, decl_team, starter, redeals, first):
        self.p = player
        self.rules = player.rules
        self.round1 = round1
        self.levels = tuple(int(x) for x in levels)
        self.rank = 0 if round1 else self.levels[decl_team]
        self.decl_team = -1 if round1 else decl_team
        self.starter = -1 if round1 else starter
        self.suit = -1
        self.tt = trump_table(self.rank, 4, self.rules)  # during the draw: no trump suit yet
        self.seat_tables = None
        self.auction = player.auction
        self.dealer = 0
        self.bid_step = 0
        self.bids = [0, 0]
        self.shown = [0, 0, 0, 0]
        if self.auction:  # nothing known before the bids; each seat sees the order at its team's level
            self.rank = self.decl_team = self.starter = -1
            self.seat_tables = [trump_table(self.levels[t], 4, self.rules) for t in (0, 1)]
            self.dealer = first
            self.bids = [-1, -1]
            self.shown = [-1, -1, -1, -1]
        self.hands = np.zeros((4, 54), dtype=np.int64)
        self.played = np.zeros((4, 54), dtype=np.int64)
        self.trick = np.zeros((4, 54), dtype=np.int64)
        self.buried = None
        self.rngs = [stream(seed, key_a, key_b, P_SEAT + s + 100 * redeals) for s in range(4)]
        self.scratch = np.zeros((4, SCRATCH), dtype=np.float64)
        self.drawn = 0
        self.decls = []  # (seat, kind, card) in order
        self.current = None  # standing declaration (seat, kind, card)
        self.t = 0
        self.leader = 0
        self.nplayed = 0
        self.lead_meta = (0, 0, 0, 0, 0)  # n, suit, pairs, kind, longest of the latest lead as played
        self.winning = 0
        self.trick_pts = 0
        self.failed_now = 0
        self.opp_points = 0  # opponents' points so far: tricks and penalties
        self.history = []  # finished tricks: (leader, winner, points)

    # -- the view -----------------------------------------------------------
    def view(self, seat, decision):
        v = np.zeros((V.V_ROWS, 54), dtype=np.int64)
        v[V.V_PLAYED:V.V_PLAYED + 4] = self.played
        v[V.V_TRICK:V.V_TRICK + 4] = self.trick
        v[V.V_HAND] = self.hands[seat]
        if self.buried is not None and seat == self.starter:
            v[V.V_BURIED] = self.buried
        v[V.V_EFF:V.V_EFF + 8] = self.tt if self.seat_tables is None else self.seat_tables[seat % 2]
        v[V.V_RULES, : len(self.p.encoded)] = self.p.encoded
        m = v[V.V_META]
        m[V.M_SEAT] = seat
        m[V.M_DECISION] = decision
        m[V.M_TRICK] = self.t
        m[V.M_LEADER] = self.leader
        m[V.M_NPLAYED] = self.nplayed
        m[V.M_STARTER] = self.starter
        m[V.M_DECL_TEAM] = self.decl_team
        m[V.M_LEVEL0] = self.levels[0]
        m[V.M_LEVEL1] = self.levels[1]
        m[V.M_TRUMP_RANK] = self.rank
        m[V.M_TRUMP_SUIT] = self.suit
        m[V.M_OPP_POINTS] = self.opp_points
        (m[V.M_LEAD_N], m[V.M_LEAD_SUIT], m[V.M_LEAD_PAIRS], m[V.M_LEAD_KIND],
         m[V.M_LEAD_LONGEST]) = self.lead_meta
        m[V.M_WINNING] = self.winning
        if self.current is None:
            m[V.M_DECL_SEAT], m[V.M_DECL_KIND], m[V.M_DECL_CARD] = -1, 0, 0
        else:
            m[V.M_DECL_SEAT], m[V.M_DECL_KIND], m[V.M_DECL_CARD] = self.current
        m[V.M_DRAWN] = self.drawn
        nd = min(54, len(self.decls))
        m[V.M_NDECL] = nd
        m[V.M_TRICK_POINTS] = self.trick_pts
        m[V.M_ROUND1] = 1 if self.round1 else 0
        m[V.M_FAILED_THROW] = self.failed_now
        m[V.M_TRICKS_DONE] = len(self.history)
        m[V.M_DEALER] = self.dealer
        m[V.M_BID_STEP] = self.bid_step
        m[V.M_BID0], m[V.M_BID0 + 1] = self.bids
        m[V.M_SHOWN:V.M_SHOWN + 4] = self.shown
        for i, (s, k, c) in enumerate(self.decls[:nd]):
            v[V.V_DECL_SEAT, i] = s
            v[V.V_DECL_KIND, i] = k
            v[V.V_DECL_CARD, i] = c
            v[V.V_DECL_COUNT, i] = 1 if k == 1 else 2
        for i, (ld, w, pts) in enumerate(self.history):
            v[V.V_TRICK_LEADER, i] = ld
            v[V.V_TRICK_WINNER, i] = w
            v[V.V_TRICK_POINTS, i] = pts
        m[V.M_WINNING_KEY] = sl.play_key_of(v, self.winning) if self.nplayed > 0 else -1
        hand, eff = v[V.V_HAND], v[V.V_EFF]  # my suit counts, by the table I see
        m[V.M_MY_CARDS:V.M_MY_CARDS + 5] = np.bincount(eff, weights=hand, minlength=5)
        m[V.M_MY_PAIRS:V.M_MY_PAIRS + 5] = np.bincount(eff, weights=hand // 2, minlength=5)
        return v

    def ask(self, seat, decision):
        """Call the seat's strategy for ``decision``; return (answer, out)."""
        team = seat % 2
        view = self.view(seat, decision)
        if self.p.on_view is not None:
            self.p.on_view(decision, view.copy())
        out = np.zeros(54, dtype=np.int64)
        fn = self.p.sides.functions[team][decision]
        ans = fn(view, self.p.sides.params[team, decision], self.rngs[seat], self.scratch[seat], out)
        return int(ans), out


class ReferencePlayer:
    """Plays deals and matches with the reference rules and the given policies.

    ``policies``: (team 0's, team 1's) policy specs as in ``strategy.resolve_policy``.
    ``python=True`` calls the strategies' Python versions (``py_func``).
    ``on_view(decision, view)``: optional hook that sees a copy of every view shown.
    """

    def __init__(self, policies, rules=None, python=False, on_view=None):
        self.rules = reference_rules(rules)
        self.auction = is_auction(rules)
        self.encoded = as_rules(rules).encode()
        self.sides = Sides(policies, python=python)
        self.on_view = on_view

    # -- one deal -------------------------------------------------------------
    def play_deal(self, seed, key_a, key_b, round1, levels, decl_team, starter):
        """Play one deal.

        Returns (record fields of the deal itself, declarers keep, next starter, events).
        In round 1 ``decl_team``/``starter`` are ignored (the declaration decides them).
        """
        rules = self.rules
        events = [(LOG_START, -1, int(key_a), int(key_b), None)]
        redeals = 0
        auction = self.auction
        while True:
            deck = shuffled_deck(seed, key_a, key_b, redeals)
            first = first_drawer(seed, key_a, key_b, redeals) if round1 else starter
            d = _Deal(self, seed, key_a, key_b, round1, levels, decl_team, starter, redeals, first)
            rank = d.rank
            for k in range(104):
                seat = (first + k) % 4
                if k < 100:
                    card = deck[k]
                    d.hands[seat, card] += 1
                    d.drawn = k + 1
                    events.append((LOG_DRAW, seat, card, 0, None))
                if auction or not self._may_declare(d, seat):
                    continue
                options = ref.declare_allowed(cards_of(d.hands[seat]), d.current, seat, rank, rules)
                if not options:
                    continue
                ans, out = d.ask(seat, V.DECLARE)
                if ans == 0:
                    continue
                choice = (int(out[0]), int(out[1]))
                if choice not in options:
                    raise IllegalPlay(f"seat {seat} declared {choice}, allowed: {options}")
                d.current = (seat, choice[0], choice[1])
                d.decls.append(d.current)
                events.append((LOG_DECLARE, seat, choice[0], choice[1], None))
            if d.current is not None or not round1 or auction:
                break
            events.append((LOG_REDEAL, -1, redeals, 0, None))
            redeals += 1
            if redeals >= MAX_REDEALS:
                raise IllegalPlay("too many redeals")

        # ---- the auction: two bids, four shown cards, the trump named ----
        bids = [-1, -1]
        if auction:
            dealer = first
            for seat in (dealer, (dealer + 1) % 4):  # the dealer bids for his pair, the next seat for the other
                d.bid_step = V.BID_STEP_BID
                ans, out = d.ask(seat, V.BID)
                bid = int(out[0])
                if ans != 1 or not ref.bid_ok(bid):
                    raise IllegalPlay(f"seat {seat} bid {bid} (answer {ans})")
                bids[seat % 2] = d.bids[seat % 2] = bid
                events.append((LOG_BID, seat, bid, 0, None))
            decl_team = ref.auction_team({0: bids[0], 1: bids[1]}, dealer)
            rank = levels[decl_team]
            d.decl_team, d.rank, d.seat_tables = decl_team, rank, None
            d.tt = trump_table(rank, 4, rules)
            shown = {}
            for j in range(4):  # every player shows a card, from the dealer on
                seat = (dealer + j) % 4
                d.bid_step = V.BID_STEP_SHOW
                ans, out = d.ask(seat, V.BID)
                if ans != 1 or out.sum() != 1 or (out < 0).any() or (out > d.hands[seat]).any():
                    raise IllegalPlay(f"seat {seat} showed {out.tolist()} (answer {ans})")
                card = int(np.argmax(out))
                shown[seat] = d.shown[seat] = card
                events.append((LOG_SHOW, seat, card, 0, None))
            starter = ref.show_winner(shown, dealer)
            d.starter = starter
            d.bid_step = V.BID_STEP_TRUMP
            ans, out = d.ask(starter, V.BID)
            if ans != 1 or not 0 <= out[0] <= 3:
                raise IllegalPlay(f"seat {starter} named trump suit {out[0]} (answer {ans})")

        # ---- the trump ----
        kitty = deck[100:108]
        if auction:
            suit, source = int(out[0]), SRC_NAMED
        elif d.current is None:
            suit = ref.kitty_flip_suit(kitty, rank)
            source = SRC_FLIP
        else:
            dseat, dkind, dcard = d.current
            if dkind == 3:
                suit, source = 4, SRC_JOKERS
            else:
                suit = dcard // 13
                source = SRC_SINGLE if dkind == 1 else SRC_PAIR
            if round1:
                starter = dseat
                decl_team = dseat % 2
        d.starter, d.decl_team, d.suit = starter, decl_team, suit
        trump = (rank, suit)
        d.tt = trump_table(rank, suit, rules)
        events.append((LOG_TRUMP, starter, suit, source, None))
        for s in range(4):
            events.append((LOG_HAND, s, 0, 0, tuple(d.hands[s].tolist())))
        events.append((LOG_KITTY, starter, 0, 0, tuple(kitty)))

        # ---- kitty exchange ----
        for c in kitty:
            d.hands[starter, c] += 1
        _, out = d.ask(starter, V.DISCARD)
        if out.sum() != 8 or (out < 0).any() or (out > d.hands[starter]).any():
            raise IllegalPlay(f"seat {starter} buried {out.tolist()}")
        events.append((LOG_BURY, starter, 0, 0, tuple(out.tolist())))
        d.hands[starter] -= out
        d.buried = out.copy()
        buried = cards_of(out)

        # ---- tricks until the hands are empty ----
        declarers = (decl_team, decl_team + 2)
        trick_total = 0
        penalty_total = 0
        failed = 0
        tricks = [0, 0, 0, 0]
        leader = starter
        t = 0
        winner = leader
        lead = []
        while d.hands[0].sum() > 0:
            d.t, d.leader, d.nplayed, d.trick_pts, d.failed_now = t, leader, 0, 0, 0
            _, out = d.ask(leader, V.LEAD)
            hand = d.hands[leader]
            if (out < 0).any() or (out > hand).any() or out.sum() == 0:
                raise IllegalPlay(f"seat {leader} led {out.tolist()} from {hand.tolist()}")
            lead = cards_of(out)
            try:
                info = ref.classify(lead, trump, rules)
            except ValueError as e:
                raise IllegalPlay(f"seat {leader} led {lead}: {e}") from None
            events.append((LOG_LEAD, leader, t, 0, tuple(out.tolist())))
            if info["kind"] == "throw":
                others = [cards_of(d.hands[s]) for s in range(4)]
                res = ref.check_throw(lead, others, leader, declarers, trump, rules)
                if not res["ok"]:
                    failed += 1
                    penalty_total += res["penalty"]
                    d.opp_points += res["penalty"]
                    lead = sorted(res["forced"])
                    events.append((LOG_FAILED_THROW, leader, res["blocked_by"], res["penalty"],
                                   tuple(counts_of(lead).tolist())))
                    info = ref.classify(lead, trump, rules)
                    d.failed_now = 1
            units = info["units"]
            d.lead_meta = (len(lead), info["suit"], sum(u["pairs"] for u in units), KIND_CODE[info["kind"]],
                           max(u["pairs"] for u in units))
            plays = [lead]
            self._play(d, leader, lead)
            d.winning = leader
            d.trick_pts = ref.trick_points(plays)
            for i in range(1, 4):
                seat = (leader + i) % 4
                d.nplayed = i
                _, out = d.ask(seat, V.FOLLOW)
                hand_cards = cards_of(d.hands[seat])
                play = cards_of(np.maximum(out, 0))
                if (out < 0).any() or not ref.legal_follow(hand_cards, lead, play, trump, rules):
                    raise IllegalPlay(f"seat {seat} followed {out.tolist()} to {lead} from {hand_cards}")
                events.append((LOG_FOLLOW, seat, t, 0, tuple(out.tolist())))
                plays.append(play)
                self._play(d, seat, play)
                d.winning = ref.trick_winner(plays, leader, trump, rules)
                d.trick_pts = ref.trick_points(plays)
            winner = d.winning
            pts = d.trick_pts
            tricks[winner] += 1
            events.append((LOG_TRICK, winner, t, pts, None))
            if winner % 2 != decl_team:
                trick_total += pts
                d.opp_points += pts
            d.history.append((leader, winner, pts))
            d.trick[:] = 0
            leader = winner
            t += 1

        # ---- scoring ----
        kitty_pts = card_points(buried)
        bonus = ref.kitty_bonus(buried, lead, trump, rules) if winner % 2 != decl_team else 0
        p = trick_total + bonus + penalty_total
        lc = ref.level_change(p, rules)
        keep = lc["declarers_keep"]
        team = decl_team if keep else 1 - decl_team
        gain = ref.level_after(levels[team], lc["levels"], keep, rules) - levels[team]  # must_defend
        fields = {
            "starter": starter, "declaring_team": decl_team, "trump_rank": rank, "trump_suit": suit,
            "trump_source": source, "redeals": redeals, "kitty_points": kitty_pts, "trick_points": trick_total,
            "kitty_bonus": bonus, "throw_penalty": penalty_total, "failed_throws": failed, "last_winner": winner,
            "opp_points": p, "row": level_row(p, rules), "gain": gain,
            **{f"tricks{s}": tricks[s] for s in range(4)},
            "dealer": first, "bid0": bids[0], "bid1": bids[1],  # recorded if the engine has these columns
        }
        nxt = ref.next_dealer(first) if auction else ref.next_starter(starter, keep)
        return fields, keep, nxt, events

    @staticmethod
    def _may_declare(d, seat):
        """A cheap pre-check: declare_allowed offers only trump-rank cards and joker pairs held."""
        h = d.hands[seat]
        r = d.rank
        return bool(h[r] or h[13 + r] or h[26 + r] or h[39 + r] or h[BJ] >= 2 or h[RJ] >= 2)

    @staticmethod
    def _play(d, seat, cards):
        cnt = counts_of(cards)
        d.hands[seat] -= cnt
        d.played[seat] += cnt
        d.trick[seat] += cnt

    # -- records ---------------------------------------------------------------
    @staticmethod
    def _result(fields, keep, levels):
        team = fields["declaring_team"] if keep else 1 - fields["declaring_team"]
        after = list(levels)
        after[team] += fields["gain"]
        return after, (team if fields["gain"] > 0 else -1), team

    def play_fixed(self, seed, first_id, count, levels=(0, 0), declaring_team=0):
        """Fixed-levels mode: deals first_id .. first_id+count-1; returns (DEAL_DTYPE array, events per deal)."""
        recs, logs = [], []
        for deal_id in range(first_id, first_id + count):
            starter = fixed_starter(seed, deal_id, declaring_team, self.auction)
            fields, keep, _, events = self.play_deal(seed, deal_id, 0, False, levels, declaring_team, starter)
            after, gain_team, _ = self._result(fields, keep, levels)
            recs.append(deal_record({
                "deal_id": deal_id, "match_id": -1, "deal_in_match": 0,
                "level0_before": levels[0], "level1_before": levels[1],
                "level0_after": after[0], "level1_after": after[1], "gain_team": gain_team, **fields}))
            logs.append(events)
        return np.array(recs, dtype=_deal_dtype()), logs

    def play_matches(self, seed, first_id, count):
        """Match mode: matches first_id .. first_id+count-1; returns (deal records, match records, events per deal)."""
        recs, mrecs, logs = [], [], []
        for match_id in range(first_id, first_id + count):
            levels = [0, 0]
            decl_team = 0
            starter = 0
            winner = None
            d = 0
            while d < MAX_DEALS_PER_MATCH:
                fields, keep, nxt, events = self.play_deal(seed, match_id, d, d == 0, levels, decl_team, starter)
                after, gain_team, team = self._result(fields, keep, levels)
                recs.append(deal_record({
                    "deal_id": match_id * MAX_DEALS_PER_MATCH + d, "match_id": match_id, "deal_in_match": d,
                    "level0_before": levels[0], "level1_before": levels[1],
                    "level0_after": after[0], "level1_after": after[1], "gain_team": gain_team, **fields}))
                logs.append(events)
                levels = after
                d += 1
                decl_team = team
                starter = nxt
                winner = ref.match_winner(levels, self.rules)
                if winner is not None:
                    break
            m = np.zeros(1, dtype=_match_dtype())[0]
            m["match_id"], m["winner"], m["deals"] = match_id, -1 if winner is None else winner, d
            m["level0_final"], m["level1_final"] = levels
            mrecs.append(m)
        return np.array(recs, dtype=_deal_dtype()), np.array(mrecs, dtype=_match_dtype()), logs

    def play_spec(self, spec):
        """Play an engine ChunkSpec: (deal records, match records, events per deal)."""
        if spec.mode == "fixed":
            recs, logs = self.play_fixed(spec.seed, spec.first_id, spec.count, spec.levels, spec.declaring_team)
            return recs, np.zeros(0, dtype=_match_dtype()), logs
        return self.play_matches(spec.seed, spec.first_id, spec.count)


# ---------------------------------------------------------------------------
# the kernel's event log


def decode_log(log, tuples=True):
    """Kernel LOG_* rows -> list of deals, each a list of events (kind, seat, a, b, payload).

    The payload is the 54 counts for HAND, BURY, LEAD, FAILED_THROW and FOLLOW,
    the 8 card ids for KITTY, else None (the kernel leaves unrelated numbers
    in the card columns of the other events).  ``tuples=False`` leaves the
    payloads as views of the log rows (faster, for the referee).
    """
    heads = log[:, :4].tolist()
    deals = []
    cur = None
    for i, (kind, seat, a, b) in enumerate(heads):
        if kind in COUNT_EVENTS:
            payload = log[i, 4:58]
            if tuples:
                payload = tuple(payload.tolist())
        elif kind == LOG_KITTY:
            payload = tuple(log[i, 4:12].tolist())
        else:
            payload = None
        if kind == LOG_START:
            cur = []
            deals.append(cur)
        cur.append((kind, seat, a, b, payload))
    return deals


def describe_event(ev):
    kind, seat, a, b, payload = ev
    text = f"{LOG_NAMES.get(kind, kind)} seat={seat} a={a} b={b}"
    if payload is not None:
        cards = list(payload) if kind == LOG_KITTY else cards_of(np.array(payload))
        text += f" cards={cards}"
    return text


class RefereeError(AssertionError):
    pass


class LogReferee:
    """Judges kernel event logs with the reference rules, deal by deal.

    ``check(events, record, spec_info)`` for one deal; ``check_chunk`` for a
    chunk's log and records (in match mode also the match bookkeeping).
    Counters: deals, leads, throws, failed_throws, follows, tricks, declarations.
    """

    def __init__(self, rules=None):
        self.rules = reference_rules(rules)
        self.auction = is_auction(rules)
        self.n = Counter()

    def fail(self, where, msg):
        raise RefereeError(f"{where}: {msg}")

    def check(self, events, rec, *, round1, levels, decl_team, starter, where="", seed=None):
        """One deal's events against its record.  For round 1 ``decl_team``/``starter`` are ignored;
        under the auction ``starter`` is the dealer and ``decl_team`` is ignored.  With ``seed``,
        round 1's first drawer is checked against the seed's stream.

        Returns (declarers keep, next starter, declaring team of the next deal, levels after).
        """
        try:
            return self._check(events, rec, round1, levels, decl_team, starter, where, seed)
        except StopIteration:
            self.fail(where, "the log ends in the middle of the deal")

    def _check(self, events, rec, round1, levels, decl_team, starter, where, seed):
        rules = self.rules
        auction = self.auction
        R = self.fail
        it = iter(events)
        ev = next(it)
        if ev[0] != LOG_START:
            R(where, f"first event is not a start: {describe_event(ev)}")
        key_a, key_b = ev[2], ev[3]
        rank = None if auction else 0 if round1 else levels[decl_team]
        if rank is not None and int(rec["trump_rank"]) != rank:
            R(where, f"trump rank {rec['trump_rank']} != {rank}")
        redeals = 0
        ev = next(it)
        # ---- draw and declare (possibly several attempts) ----
        while True:
            hands = [[0] * 54 for _ in range(4)]
            copies = [0] * 54
            drawn = 0
            first = None
            current = None
            # declaration opportunities after all 100 cards: the last drawer (k=99), then the
            # final chances k=100..103 (seat first+k); a declaration uses the earliest one left
            final_ptr = 0
            while ev[0] in (LOG_DRAW, LOG_DECLARE):
                kind, seat = ev[0], ev[1]
                if kind == LOG_DRAW:
                    if drawn == 0:
                        first = seat
                        if not round1 and seat != starter:
                            R(where, f"first drawer {seat}, starter (or dealer) {starter}")
                        if round1 and seed is not None and seat != first_drawer(seed, key_a, key_b, redeals):
                            R(where, f"first drawer {seat} is not the seed's")
                    card = ev[2]
                    if drawn >= 100 or seat != (first + drawn) % 4 or not 0 <= card < 54:
                        R(where, f"draw {drawn} of card {card} by seat {seat} (first drawer {first})")
                    hands[seat][card] += 1
                    copies[card] += 1
                    if copies[card] > 2:
                        R(where, f"card {card} drawn a third time")
                    drawn += 1
                else:
                    if drawn == 0 or auction:
                        R(where, "declaration before the first draw, or under the auction")
                    if drawn < 100:
                        if seat != (first + drawn - 1) % 4:
                            R(where, f"seat {seat} declared after draw {drawn} by seat {(first + drawn - 1) % 4}")
                    else:
                        chances = [(first + 99) % 4] + [(first + k) % 4 for k in range(100, 104)]
                        j = final_ptr
                        while j < len(chances) and chances[j] != seat:
                            j += 1
                        if j == len(chances):
                            R(where, f"seat {seat} declared with no chance left")
                        final_ptr = j + 1
                    allowed = ref.declare_allowed(cards_of(hands[seat]), current, seat, rank, rules)
                    if (ev[2], ev[3]) not in allowed:
                        R(where, f"illegal declaration {describe_event(ev)}; allowed {allowed}")
                    current = (seat, ev[2], ev[3])
                    self.n["declarations"] += 1
                ev = next(it)
            if drawn != 100:
                R(where, f"{drawn} cards drawn")
            if ev[0] != LOG_REDEAL:
                break
            if not round1 or current is not None or ev[2] != redeals:
                R(where, f"unexpected redeal {describe_event(ev)}")
            self.n["redeals"] += 1
            redeals += 1
            ev = next(it)
        hands = np.array(hands, dtype=np.int64)
        if int(rec["redeals"]) != redeals:
            R(where, f"record redeals {rec['redeals']} != {redeals}")
        if round1 and current is None and not auction:
            R(where, "round 1 played without a declaration")
        # ---- the auction ----
        if auction:
            dealer = first
            bids = {}
            for seat in (dealer, (dealer + 1) % 4):
                if ev[0] != LOG_BID or ev[1] != seat or not ref.bid_ok(ev[2]):
                    R(where, f"expected seat {seat}'s bid, got {describe_event(ev)}")
                bids[seat % 2] = ev[2]
                ev = next(it)
            decl_team = ref.auction_team(bids, dealer)
            rank = levels[decl_team]
            shown = {}
            for j in range(4):
                seat = (dealer + j) % 4
                if ev[0] != LOG_SHOW or ev[1] != seat or not 0 <= ev[2] < 54 or hands[seat, ev[2]] < 1:
                    R(where, f"expected seat {seat} to show a card of his hand, got {describe_event(ev)}")
                shown[seat] = ev[2]
                ev = next(it)
            starter = ref.show_winner(shown, dealer)
            for name, want in (("trump_rank", rank), ("dealer", dealer), ("bid0", bids[0]), ("bid1", bids[1])):
                if name in rec.dtype.names and int(rec[name]) != want:
                    R(where, f"record {name} {rec[name]} != {want}")
            self.n["auctions"] += 1
        elif ev[0] in (LOG_BID, LOG_SHOW):
            R(where, f"an auction event without the auction: {describe_event(ev)}")
        # ---- trump, hands, kitty ----
        if ev[0] != LOG_TRUMP:
            R(where, f"expected the trump, got {describe_event(ev)}")
        if auction:
            suit = ev[2] if 0 <= ev[2] <= 3 else -1
            source = SRC_NAMED
        elif current is not None:
            dseat, dkind, dcard = current
            suit = 4 if dkind == 3 else dcard // 13
            source = dkind - 1
            if round1:
                starter, decl_team = dseat, dseat % 2
        else:
            suit = None
            source = SRC_FLIP
        if ev[1] != starter or ev[3] != source or (suit is not None and ev[2] != suit):
            R(where, f"trump event {describe_event(ev)}; expected starter {starter} suit {suit} source {source}")
        suit = ev[2]
        for s in range(4):
            ev = next(it)
            if ev[0] != LOG_HAND or ev[1] != s or not np.array_equal(hands[s], ev[4]):
                R(where, f"hand {s} event {describe_event(ev)} != drawn hand")
            if hands[s].sum() != 25:
                R(where, f"seat {s} holds {hands[s].sum()} cards")
        ev = next(it)
        if ev[0] != LOG_KITTY or ev[1] != starter:
            R(where, f"expected the kitty, got {describe_event(ev)}")
        kitty = list(ev[4])
        if (hands.sum(axis=0) + counts_of(kitty) != 2).any():
            R(where, "hands and kitty are not two full decks")
        if source == SRC_FLIP:
            flip = ref.kitty_flip_suit(kitty, rank)
            if suit != flip:
                R(where, f"kitty flip gave suit {suit}, reference {flip}")
        trump = (rank, suit)
        for name, want in (("starter", starter), ("declaring_team", decl_team), ("trump_suit", suit),
                           ("trump_source", source)):
            if int(rec[name]) != want:
                R(where, f"record {name} {rec[name]} != {want}")
        # ---- kitty exchange ----
        hands[starter] += counts_of(kitty)
        ev = next(it)
        if ev[0] != LOG_BURY or ev[1] != starter:
            R(where, f"expected the burial, got {describe_event(ev)}")
        bury = np.array(ev[4], dtype=np.int64)
        if bury.sum() != 8 or (bury < 0).any() or (bury > hands[starter]).any():
            R(where, f"illegal burial {describe_event(ev)}")
        hands[starter] -= bury
        buried = cards_of(bury)
        # ---- tricks ----
        declarers = (decl_team, decl_team + 2)
        leader = starter
        trick_total = penalty_total = failed = 0
        tricks = [0, 0, 0, 0]
        t = 0
        winner = leader
        lead = []
        while hands[0].sum() > 0:
            ev = next(it)
            if ev[0] != LOG_LEAD or ev[1] != leader or ev[2] != t:
                R(where, f"trick {t}: expected seat {leader}'s lead, got {describe_event(ev)}")
            out = np.array(ev[4], dtype=np.int64)
            if (out < 0).any() or (out > hands[leader]).any() or out.sum() == 0:
                R(where, f"trick {t}: lead not from the hand: {describe_event(ev)}")
            lead = cards_of(out)
            try:
                info = ref.classify(lead, trump, rules)
            except ValueError as e:
                R(where, f"trick {t}: illegal lead {lead}: {e}")
            self.n["leads"] += 1
            ev = next(it)
            if info["kind"] == "throw":
                self.n["throws"] += 1
                res = ref.check_throw(lead, [cards_of(h) for h in hands], leader, declarers, trump, rules)
                if res["ok"]:
                    if ev[0] == LOG_FAILED_THROW:
                        R(where, f"trick {t}: throw {lead} stands by the reference but failed: {describe_event(ev)}")
                else:
                    forced = tuple(counts_of(res["forced"]).tolist())
                    if ev[0] != LOG_FAILED_THROW or (ev[1], ev[2], ev[3], tuple(ev[4].tolist())) != (
                            leader, res["blocked_by"], res["penalty"], forced):
                        R(where, f"trick {t}: throw {lead} fails by the reference (blocked by "
                                 f"{res['blocked_by']}, forced {res['forced']}, penalty {res['penalty']}); "
                                 f"kernel: {describe_event(ev)}")
                    failed += 1
                    penalty_total += res["penalty"]
                    lead = cards_of(np.array(forced))
                    self.n["failed_throws"] += 1
                    ev = next(it)
            elif ev[0] == LOG_FAILED_THROW:
                R(where, f"trick {t}: a {info['kind']} lead failed as a throw")
            hands[leader] -= counts_of(lead)
            plays = [lead]
            for i in range(1, 4):
                seat = (leader + i) % 4
                if ev[0] != LOG_FOLLOW or ev[1] != seat or ev[2] != t:
                    R(where, f"trick {t}: expected seat {seat}'s follow, got {describe_event(ev)}")
                out = np.array(ev[4], dtype=np.int64)
                if (out < 0).any():
                    R(where, f"trick {t}: negative counts {describe_event(ev)}")
                play = cards_of(out)
                if not ref.legal_follow(cards_of(hands[seat]), lead, play, trump, rules):
                    R(where, f"trick {t}: illegal follow by seat {seat}: {play} to {lead} "
                             f"from {cards_of(hands[seat])}")
                self.n["follows"] += 1
                hands[seat] -= out
                plays.append(play)
                ev = next(it)
            winner = ref.trick_winner(plays, leader, trump, rules)
            pts = ref.trick_points(plays)
            if ev[0] != LOG_TRICK or ev[1] != winner or ev[2] != t or ev[3] != pts:
                R(where, f"trick {t}: reference winner {winner} with {pts} points; kernel {describe_event(ev)}")
            self.n["tricks"] += 1
            tricks[winner] += 1
            if winner % 2 != decl_team:
                trick_total += pts
            leader = winner
            t += 1
        if (hands != 0).any():
            R(where, "hands not empty at the end")
        rest = list(it)
        if rest:
            R(where, f"events after the last trick: {describe_event(rest[0])}")
        # ---- scoring ----
        bonus = ref.kitty_bonus(buried, lead, trump, rules) if winner % 2 != decl_team else 0
        p = trick_total + bonus + penalty_total
        lc = ref.level_change(p, rules)
        keep = lc["declarers_keep"]
        team = decl_team if keep else 1 - decl_team
        after = list(levels)
        after[team] = ref.level_after(levels[team], lc["levels"], keep, rules)  # must_defend
        gain = after[team] - levels[team]
        want = {"kitty_points": card_points(buried), "trick_points": trick_total, "kitty_bonus": bonus,
                "throw_penalty": penalty_total, "failed_throws": failed, "last_winner": winner,
                "opp_points": p, "row": level_row(p, rules), "gain": gain,
                "gain_team": team if gain > 0 else -1,
                "level0_before": levels[0], "level1_before": levels[1],
                "level0_after": after[0], "level1_after": after[1],
                **{f"tricks{s}": tricks[s] for s in range(4)}}
        for name, value in want.items():
            if int(rec[name]) != value:
                R(where, f"record {name} = {rec[name]}, reference {value}")
        self.n["deals"] += 1
        nxt = ref.next_dealer(first) if auction else ref.next_starter(starter, keep)
        return keep, nxt, team, after

    def check_chunk(self, spec, deals, matches, log):
        """A whole chunk (engine.ChunkSpec, its DEAL_DTYPE/MATCH_DTYPE records, its LOG_ALL log)."""
        logs = decode_log(log, tuples=False)
        if len(logs) != len(deals):
            self.fail(f"chunk {spec.first_id}", f"{len(logs)} logged deals for {len(deals)} records "
                                                f"(a full log buffer drops events)")
        if spec.mode == "fixed":
            levels = tuple(int(x) for x in spec.levels)
            for i, (events, rec) in enumerate(zip(logs, deals)):
                deal_id = spec.first_id + i
                where = f"seed {spec.seed} deal {deal_id}"
                if int(rec["deal_id"]) != deal_id or int(rec["match_id"]) != -1 or int(rec["deal_in_match"]) != 0:
                    self.fail(where, "record ids")
                if events[0][2:4] != (deal_id, 0):
                    self.fail(where, f"start event keys {events[0][2:4]}")
                starter = fixed_starter(spec.seed, deal_id, spec.declaring_team, self.auction)
                self.check(events, rec, round1=False, levels=levels, decl_team=spec.declaring_team,
                           starter=starter, where=where, seed=spec.seed)
            return
        pos = 0
        for mi, m in enumerate(matches):
            match_id = spec.first_id + mi
            if int(m["match_id"]) != match_id:
                self.fail(f"match {match_id}", "match record id")
            levels = [0, 0]
            decl_team = starter = 0
            winner = None
            for d in range(int(m["deals"])):
                where = f"seed {spec.seed} match {match_id} deal {d}"
                if winner is not None:
                    self.fail(where, f"match went on after team {winner} won")
                rec = deals[pos]
                events = logs[pos]
                pos += 1
                if (int(rec["match_id"]), int(rec["deal_in_match"]), int(rec["deal_id"])) != (
                        match_id, d, match_id * MAX_DEALS_PER_MATCH + d):
                    self.fail(where, "record ids")
                if events[0][2:4] != (match_id, d):
                    self.fail(where, f"start event keys {events[0][2:4]}")
                keep, nxt, team, levels = self.check(events, rec, round1=(d == 0), levels=levels,
                                                     decl_team=decl_team, starter=starter, where=where,
                                                     seed=spec.seed)
                decl_team, starter = team, nxt
                winner = ref.match_winner(levels, self.rules)
            if winner is None or int(m["winner"]) != winner or list(levels) != [int(m["level0_final"]),
                                                                                 int(m["level1_final"])]:
                self.fail(f"match {match_id}", f"match record {m} vs winner {winner}, levels {levels}")
            self.n["matches"] += 1
        if pos != len(deals):
            self.fail(f"chunk {spec.first_id}", "deal records beyond the matches")
