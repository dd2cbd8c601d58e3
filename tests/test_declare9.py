"""Declaring with D decks (docs/rules.md section 9, docs/decisions.md 9.8) and the level table of D decks
(9.9), checked against the independent reference tests/reference9.py.

- Every verdict of the kernels' declare_count_ok (and of the draw's "may this seat declare",
  phases._any_tuple_declaration) at 3 and 4 decks, on random hands and every standing
  declaration, under every value of the three declaring options, is the reference's; at 2 decks
  declare_count_ok is the 4-player 2-deck game's declare_ok.
- Whole draws at 6/3 and 8/4 played by the phases with the built-in declare strategies: every
  seat the kernel asks had a declaration allowed by the reference, every seat not asked had none,
  every declaration is allowed, the trump and the declarer are the reference's; declarations of
  3 and 4 cards of the trump rank and joker triples occur (counted).
- The auction at 6/3 (its draw and bids by the phases) and at 6/2 (whole deals by the engine).
- The level table: the sized kernels' scoring (rows, keep / gain, take-over, next starter) at
  2, 3 and 4 decks against the reference; chain.row_points and stats.row_label.

The draws here are driven by a small compiled loop over the phases (the draw alone); whole deals
at 3 and 4 decks are judged by tests/test_sized_deals.py.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import numba
import numpy as np
import pytest

try:
    from tests.sized_params import sized
except ImportError:  # tests/ on sys.path instead of the project root
    from sized_params import sized

from tractor_sim.stats import chain

from tractor_sim.rules import sizes

from tractor_sim.play import packages

from tractor_sim.stats import summary as stats
from tractor_sim.rules.cards import BJ, RJ
from tractor_sim.rules.options import R_JOKER_OVERRIDE, R_PAIR_OVERRIDE, R_SELF_OVERRIDE, Rules
from tractor_sim.play.registry import get_strategy

try:
    from tests import reference9 as r9
except ImportError:  # tests/ on sys.path instead of the project root
    import reference9 as r9

SIZES = {3: sizes.GameSize(6, 3), 4: sizes.GameSize(8, 4)}
OPTIONS = [dict(self_override=so, pair_override=po, joker_pair_override=jo)
           for so in ("strengthen_only", "any") for po in ("none", "suit_order") for jo in (False, True)]


def kernels(decks):
    return packages.compiled_package(SIZES[decks]).kernels


def encoded(options):
    return Rules(**options).encode()


def option_codes(options):
    """(self_override, pair_override, joker_pair_override) as the kernels read them."""
    enc = encoded(options)
    return int(enc[R_SELF_OVERRIDE]), int(enc[R_PAIR_OVERRIDE]), int(enc[R_JOKER_OVERRIDE])


def standings(decks, rank):
    """Every standing declaration (count, card) at this size, and none."""
    out = [None]
    for suit in range(4):
        out += [(k, suit * 13 + rank) for k in range(1, decks + 1)]
    for card in (BJ, RJ):
        out += [(k, card) for k in range(2, decks + 1)]
    return out


def random_hand(rng, decks, rank):
    """Counts of the six cards that can be declared (and one that cannot), 0..decks each, as a
    list of card ids: the reference's hand."""
    hand = []
    for card in [s * 13 + rank for s in range(4)] + [BJ, RJ, (rank + 1) % 13]:
        hand += [card] * rng.choice([0, 0, 1, 2, decks, rng.randint(0, decks)])
    return hand


def test_declare_count_ok_is_declare_ok_with_two_decks():
    """The general rule at two decks is the 4-player 2-deck game's: every (kind, card) on every
    held count, standing declaration and option (and the reference agrees)."""
    from tractor_sim.core.kernels import declare as D

    rank = 5
    cards = [s * 13 + rank for s in range(4)] + [BJ, RJ, 0]
    n = 0
    for opts in OPTIONS:
        so, po, jo = option_codes(opts)
        for cur in standings(2, rank):
            cur_kind = 0 if cur is None else D.kind_of(cur[0], cur[1])
            cur_count, cur_card = (0, -1) if cur is None else cur
            for cur_seat in (0, 1):
                for card in cards:
                    for held in range(3):
                        for kind in (1, 2, 3):
                            old = D.declare_ok(held, kind, card, 0, cur_seat, cur_kind, cur_card, rank, so, po, jo)
                            new = D.declare_count_ok(held, kind, D.kind_count(kind), card, 0, cur_seat, cur_kind,
                                                     cur_count, cur_card, rank, so, po, jo)
                            assert old == new, (opts, cur, cur_seat, card, held, kind)
                            hand = [card] * held
                            ref = (D.kind_count(kind), card) in r9.declare_allowed(
                                hand, None if cur is None else (cur_seat, cur_count, cur_card), 0, rank, 2, opts)
                            assert new == (ref and kind == D.kind_of(D.kind_count(kind), card)), (opts, cur, card)
                            n += 1
    assert n > 5000


@pytest.mark.parametrize("decks", (3, 4))
def test_declare_verdicts_equal_the_reference(decks):
    """declare_count_ok and the draw's _any_tuple_declaration at 3 and 4 decks: every candidate
    (kind, count 0..D+1, card) on random hands, against every standing declaration (his own and
    another's) under every option value."""
    K = kernels(decks)
    D, PH = K.declare, K.phases

    rng = random.Random(decks)
    verdicts = situations = 0
    seen = Counter()
    for trial in range(24):
        rank = rng.randrange(13)
        hand = random_hand(rng, decks, rank)
        counts = np.zeros((SIZES[decks].players, 54), dtype=np.int64)
        for x in hand:
            counts[0, x] += 1
        for opts in OPTIONS:
            enc = encoded(opts)
            so, po, jo = option_codes(opts)
            for cur in standings(decks, rank):
                for cur_seat in ((-1,) if cur is None else (0, 1)):
                    current = None if cur is None else (cur_seat, cur[0], cur[1])
                    allowed = set(r9.declare_allowed(hand, current, 0, rank, decks, opts))
                    cur_count, cur_card = (0, -1) if cur is None else cur
                    cur_kind = 0 if cur is None else D.kind_of(cur_count, cur_card)
                    situations += 1
                    assert PH._any_tuple_declaration(counts, 0, cur_seat, cur_kind, cur_count, cur_card, rank,
                                                     enc) == bool(allowed), (hand, current, opts)
                    for card in set(hand) | {rank, BJ}:
                        for count in range(decks + 2):
                            for kind in (1, 2, 3):
                                got = D.declare_count_ok(counts[0, card], kind, count, card, 0, cur_seat, cur_kind,
                                                         cur_count, cur_card, rank, so, po, jo)
                                want = (count, card) in allowed and kind == D.kind_of(count, card)
                                assert got == want, (hand, current, opts, kind, count, card)
                                assert got == D.can_declare_count(counts[0], kind, count, card, 0, cur_seat, cur_kind,
                                                                  cur_count, cur_card, rank, enc)
                                verdicts += 1
                                if got:
                                    seen[(count, "jokers" if card >= BJ else "rank")] += 1
    print(f"\n{decks} decks: {situations} situations, {verdicts} verdicts checked against reference9")
    assert seen[(decks, "rank")] and seen[(decks, "jokers")] and seen[(3, "jokers")]


# ---------------------------------------------------------------------------
# the strategies' helpers


@pytest.mark.parametrize("decks", (2, 3, 4))
def test_declare_helpers_of_the_strategies(decks, package_of, view_of):
    """strategy_lib's most_copies_now, best_suit_declaration and joker_declaration on random views
    against reference9's allowed declarations (the most copies of each card; the suit with the most
    copies, then the strongest; RJ over BJ at equal counts); at two decks best_suit_by_count, the
    general one, is best_suit_option."""
    pkg = package_of(SIZES.get(decks))  # two decks: the 4-player package
    sl, V = pkg.lib, pkg.kernels.view
    rng = random.Random(10 + decks)
    n = 0
    for _ in range(300):
        rank = rng.randrange(13)
        hand = random_hand(rng, decks, rank) + [rng.randrange(54) for _ in range(12)]
        hand = [x for x, k in Counter(hand).items() for _ in range(min(k, decks))]
        opts = rng.choice(OPTIONS)
        cur = rng.choice(standings(decks, rank))
        current = None if cur is None else (rng.choice((0, 1)), *cur)
        view = view_of(hand, rank, decision=V.DECLARE, package=pkg, rules=encoded(opts), declared=current)
        allowed = r9.declare_allowed(hand, current, 0, rank, decks, opts)
        most = {card: max((k for k, c in allowed if c == card), default=0) for card in set(hand) | {BJ, RJ}}
        for card, k in most.items():
            assert sl.most_copies_now(view, card) == k, (hand, current, opts, card)
        jk = max(most[RJ], most[BJ])
        assert sl.joker_declaration(view) == ((jk, RJ if most[RJ] >= most[BJ] else BJ) if jk else (0, -1))
        for floor in (0, 7):
            suits = [(most.get(s * 13 + rank, 0), sl.suit_strength(view, s), s) for s in range(4)]
            suits = [x for x in suits if x[0] and x[1] >= floor]
            kind, count, card, strength = sl.best_suit_declaration(view, floor)
            if not suits:
                assert kind == 0
                continue
            k, st, s = max(suits, key=lambda x: (x[0], x[1], -x[2]))
            assert (count, card, strength) == (k, s * 13 + rank, st), (hand, current, opts, floor)
            if decks == 2:
                assert sl.best_suit_by_count(view, floor) == sl.best_suit_declaration(view, floor)
            n += 1
    assert n > 200


# ---------------------------------------------------------------------------
# whole draws, by the phases


@functools.cache  # compiled once a session: two tests at 6/3 drive the same draw
@functools.cache
def _drive_draw(decks):
    """A compiled loop over the phases of the draw (and of the auction) of the sized package: ask the
    strategy of the seat to act and apply its answer, until the kitty exchange is asked.  Returns
    (kernels, run): ``run(st, ws, rules, err, log, declare0, declare1, bid0, bid1, params, asks)`` (the
    strategies of each team; ``params`` a row each, in that order) records each ask (redeal, draw
    step, seat, decision) in ``asks`` and returns (error code, asks recorded)."""
    K = kernels(decks)
    PH, ST, V = K.phases, K.state, K.view
    apply_declare, apply_bid, carve, open_auction = PH.apply_declare, PH.apply_bid, ST.carve, PH.open_auction
    PH_DRAW, PH_AUCTION = ST.PH_DRAW, ST.PH_AUCTION
    S_PHASE, S_TO_ACT, S_DECISION, S_DRAW_K, S_REDEALS = (ST.S_PHASE, ST.S_TO_ACT, ST.S_DECISION, ST.S_DRAW_K,
                                                          ST.S_REDEALS)
    ANSWER, CARDS, DECLARE, TEAMS = ST.ANSWER, 54, V.DECLARE, K.dims.TEAMS
    # Typed strategies (first-class functions), so one compile serves every pair of strategies (a
    # dispatcher argument is a type of its own: each new pair compiled the loop again).
    ints, fn = numba.types.int64, V.STRATEGY_TYPE
    signature = numba.types.UniTuple(ints, 2)(ints[::1], PH.WS_TYPE, ints[::1], ints[::1], ints[:, ::1],
                                              fn, fn, fn, fn, numba.types.float64[:, ::1], ints[:, ::1])

    @numba.njit(signature, _nrt=False)
    def run(st, ws, rules, err, log, declare0, declare1, bid0, bid1, params, asks):
        views, scratch, rngs, _ = ws
        arrs = carve(st)
        answer = st[ANSWER:ANSWER + CARDS]
        n = 0
        code = 0
        while code == 0 and (st[S_PHASE] == PH_DRAW or st[S_PHASE] == PH_AUCTION):
            seat = st[S_TO_ACT]
            decision = st[S_DECISION]
            asks[n, 0] = st[S_REDEALS]
            asks[n, 1] = st[S_DRAW_K]
            asks[n, 2] = seat
            asks[n, 3] = decision
            n += 1
            team = seat % TEAMS
            v, r, m = views[seat], rngs[seat], scratch[seat]
            if decision == DECLARE:
                if team == 0:
                    ans = declare0(v, params[0], r, m, answer)
                else:
                    ans = declare1(v, params[1], r, m, answer)
                code = apply_declare(st, arrs, ws, rules, err, log, ans, open_auction)
            else:
                if team == 0:
                    ans = bid0(v, params[2], r, m, answer)
                else:
                    ans = bid1(v, params[3], r, m, answer)
                code = apply_bid(st, arrs, ws, rules, err, log, ans)
        return code, n

    return K, run


def _strategy(K, decision, name):
    """A built-in strategy of the sized package, and its default parameters."""
    info = get_strategy(decision, name)
    pkg = packages.compiled_package(sizes.GameSize(K.dims.SEATS, K.dims.DECKS))
    return info.sized_function(pkg), list(info.params.values())


def _params(*vectors):
    """The strategies' parameter vectors as rows of one matrix (zero-padded)."""
    out = np.zeros((len(vectors), max(1, *map(len, vectors))), dtype=np.float64)
    for i, v in enumerate(vectors):
        out[i, :len(v)] = v
    return out


def _events(log):
    return [tuple(int(x) for x in log[i, :5]) for i in range(1, int(log[0, 0]) + 1)]


def _referee_draw(K, game, log, asks, rank, round1, opts, st):
    """Replay the draw from the log with the reference: the kernel asked exactly the seats that may
    declare, each declaration is allowed, the standing one sets the trump (or the kitty does).
    Returns the declarations [(count, card)] of the last deal and the redeals."""
    E = K.events
    events = _events(log)
    asks = [tuple(a) for a in asks]
    decls = []
    ev = 0
    redeal = 0
    a = 0
    while True:
        # one deal: its draws in order, from its first drawer
        while events[ev][0] != E.LOG_DRAW:
            ev += 1
        first = events[ev][1]
        hands = [[] for _ in range(game.players)]
        current = None
        decls = []
        for k in range(K.dims.DRAWN + game.players):
            seat = (first + k) % game.players
            if k < K.dims.DRAWN:
                kind, s, card = events[ev][:3]
                assert kind == E.LOG_DRAW and s == seat
                hands[seat].append(card)
                ev += 1
            allowed = r9.declare_allowed(hands[seat], current, seat, rank, game.decks, opts)
            asked = a < len(asks) and asks[a][:3] == (redeal, k, seat)
            assert asked == bool(allowed), (redeal, k, seat, current, allowed, asks[a:a + 1])
            if asked:
                a += 1
                if ev < len(events) and events[ev][0] == E.LOG_DECLARE:
                    _, s, dkind, card, count = events[ev]
                    assert s == seat and (count, card) in allowed and dkind == K.declare.kind_of(count, card)
                    current = (seat, count, card)
                    decls.append((count, card))
                    ev += 1
        if ev < len(events) and events[ev][0] == E.LOG_REDEAL:
            assert round1 and current is None
            redeal += 1
            continue
        break
    assert a == len([x for x in asks if x[3] == K.view.DECLARE])
    trump = events[ev]
    assert trump[0] == E.LOG_TRUMP
    if current is not None:
        assert trump[2] == r9.declared_trump(current[1:], rank)[1]
        if round1:
            assert trump[1] == current[0]
    else:
        kitty = [int(x) for x in log[[e[0] for e in events].index(E.LOG_KITTY) + 1, 4:4 + K.dims.KITTY]]
        assert trump[2] == r9.kitty_flip_suit(kitty, rank)
    return decls, redeal


@pytest.mark.parametrize("decks", sized((3, 4), {3}))
def test_whole_draws_with_tuples(decks):
    """Draws at 6/3 and 8/4 by the phases and the built-in declare strategies, refereed by reference9;
    declarations of 3 and 4 cards and joker triples occur."""
    game = SIZES[decks]
    K, run = _drive_draw(decks)
    PH, ST, Dl = K.phases, K.state, K.deal
    pairs = [("eager", "eager"), ("eager", "override"), ("threshold", "override"), ("override", "threshold"),
             ("never", "never")]  # nobody declares: the kitty is turned up (never in round 1: a redeal for ever)
    made = Counter()
    deals = 0
    asks = np.zeros((4096, 4), dtype=np.int64)
    for i in range(160):
        names = pairs[i % len(pairs)]
        opts = OPTIONS[i % len(OPTIONS)]
        rules = encoded(opts)
        fa, pa = _strategy(K, "declare", names[0])
        fb, pb = _strategy(K, "declare", names[1])
        fns = (fa, fb, fa, fb)  # the bids are not asked without the auction
        params = _params(pa, pb, pa, pb)
        st = ST.new_state()
        ws = Dl.new_workspace(rules)
        err = np.zeros(PH.ERR_SIZE, dtype=np.int64)
        log = np.zeros((4000, K.events.LOG_COLS), dtype=np.int64)
        round1 = i % 3 == 0 and names[0] != "never"
        levels = np.array([i % 13, (3 * i) % 13], dtype=np.int64)
        decl_team, starter = i % 2, (i * 7) % game.players
        if starter % 2 != decl_team:
            starter = (starter + 1) % game.players
        code = PH.start_without_auction(st, ws, rules, err, log, np.uint64(77 + decks), i, 0, round1, levels,
                                        decl_team, starter)
        assert code == 0
        code, n = run(st, ws, rules, err, log, *fns, params, asks)
        assert code == 0 and st[ST.S_PHASE] == ST.PH_KITTY, (code, err[:4])
        rank = 0 if round1 else int(levels[decl_team])
        r9game = r9.Game(game.players, game.decks, "tractor")
        decls, redeals = _referee_draw(K, r9game, log, asks[:n], rank, round1, opts, st)
        deals += 1
        made["kitty flip"] += not decls
        made["redeal"] += redeals
        for e in _events(log):
            if e[0] == K.events.LOG_DECLARE:
                made[(e[4], "jokers" if e[3] >= BJ else "rank")] += 1
        if decls:
            assert st[ST.S_CUR_COUNT] == decls[-1][0]
            view = ws[0][0]
            assert packages.compiled_package(SIZES[decks]).lib.standing_count(view) == decls[-1][0]
            assert view[K.view.V_META, K.view.M_DECL_CARD] == decls[-1][1]
            nd = view[K.view.V_META, K.view.M_NDECL]
            assert view[K.view.V_DECL_COUNT, nd - 1] == decls[-1][0]
    print(f"\n{game.label}: {deals} draws refereed; declarations by (count, kind), flips, redeals: {dict(made)}")
    assert made[(3, "rank")] > 0 and made[(3, "jokers")] > 0 and made["kitty flip"] > 0
    if decks == 4:
        assert made[(4, "rank")] > 0


def test_the_auction_at_six_players_three_decks():
    """The auction's phases at 6/3: a bid per team, a card shown by every seat from the dealer,
    the highest card makes the starter, the higher bid the declaring team, its level the rank."""
    K, run = _drive_draw(3)
    PH, ST, Dl, V = K.phases, K.state, K.deal, K.view
    decl_fn, decl_p = _strategy(K, "declare", "eager")
    checked = 0
    for i, bid_names in enumerate([("strength", "random"), ("max", "strength"), ("random", "random")] * 6):
        rules = Rules(declaring="auction").encode()
        fa, pa = _strategy(K, "bid", bid_names[0])
        fb, pb = _strategy(K, "bid", bid_names[1])
        fns, params = (decl_fn, decl_fn, fa, fb), _params(decl_p, decl_p, pa, pb)
        st = ST.new_state()
        ws = Dl.new_workspace(rules)
        err = np.zeros(PH.ERR_SIZE, dtype=np.int64)
        log = np.zeros((4000, K.events.LOG_COLS), dtype=np.int64)
        levels = np.array([i % 13, (i + 4) % 13], dtype=np.int64)
        assert PH.start(st, ws, rules, err, log, np.uint64(5), i, 0, i == 0, levels, 0, i % 6) == 0
        dealer = int(st[ST.S_FIRST])  # round 1: drawn at random
        assert i == 0 or dealer == i % 6
        asks = np.zeros((64, 4), dtype=np.int64)
        code, n = run(st, ws, rules, err, log, *fns, params, asks)
        assert code == 0 and st[ST.S_PHASE] == ST.PH_KITTY
        assert [int(a[2]) for a in asks[:n]] == [dealer, (dealer + 1) % 6] + [(dealer + j) % 6 for j in range(6)] \
            + [int(st[ST.S_STARTER])]
        events = _events(log)
        bids = {e[1] % 2: e[2] for e in events if e[0] == K.events.LOG_BID}
        shows = [(e[1], e[2]) for e in events if e[0] == K.events.LOG_SHOW]
        assert len(bids) == 2 and all(0 <= b <= 100 * 3 for b in bids.values())
        assert [s for s, _ in shows] == [(dealer + j) % 6 for j in range(6)]
        best = max(K.declare.show_key(c) for _, c in shows)
        assert st[ST.S_STARTER] == next(s for s, c in shows if K.declare.show_key(c) == best)
        mine = dealer % 2
        team = mine if bids[mine] >= bids[1 - mine] else 1 - mine
        assert st[ST.S_DECL_TEAM] == team and st[ST.S_RANK] == levels[team]
        assert st[ST.S_SOURCE] == PH.SRC_NAMED and 0 <= st[ST.S_SUIT] < 4
        for v in range(6):
            assert ws[0][v, V.V_META, V.M_DECL_TEAM] == team
            assert list(ws[0][v, V.V_META, V.M_SHOWN:V.M_SHOWN + 6]) == [
                dict(shows)[s] for s in range(6)]
        checked += 1
    assert checked == 18


@pytest.mark.slow
def test_the_auction_at_six_players_three_decks_whole_deals():
    """Whole deals and matches with the auction at 6/3 by the engine (bids up to the 300 points).
    Slow: the default tier has the 6/3 auction's phases (above) and its whole deals judged by
    reference9 (test_sized_deals.py, variant D)."""
    from tractor_sim.runs import engine as E
    from tractor_sim.core.kernels import match as M

    for mode in ("fixed", "match"):
        spec = E.plan_chunks([("basic", "random")], n=40 if mode == "fixed" else 4, seed=3, mode=mode,
                             rules={"declaring": "auction"}, game={"players": 6, "decks": 3}, chunk_size=200)[0]
        res = E.run_chunk(spec, log_id=M.LOG_ALL)
        d = res.deals
        assert len(d) > 0
        assert set(np.unique(d["trump_source"])) == {4}  # named by the starter
        assert (d["bid0"] >= 0).all() and (d["bid1"] >= 0).all()
        assert (d["bid0"] <= 300).all() and (d["bid1"] <= 300).all()
        won_bid = np.where(d["bid0"] >= d["bid1"], 0, 1)
        mine = d["dealer"] % 2
        expect = np.where(d["bid0"] == d["bid1"], mine, won_bid)
        assert (d["declaring_team"] == expect).all()


# ---------------------------------------------------------------------------
# the level table of D decks


@pytest.mark.parametrize("decks", (2, 3, 4))
def test_level_table_equals_the_reference(decks):
    """scoring.level_change / level_row / round_outcome of the kernels of each size (the package's at
    two decks) against reference9's table and tractor_round_result: rows S = 20 D wide, keep / gain,
    the take-over row, the next starter; every must_defend value."""
    if decks == 2:
        from tractor_sim.core.kernels import scoring as S
        players = 4
    else:
        S = kernels(decks).scoring
        players = SIZES[decks].players
    step = 20 * decks
    assert S.LEVEL_STEP == step and S.DECK_POINTS == 100 * decks
    game = r9.Game(players, decks, "tractor")
    totals = list(range(-60, 7 * step, 5)) + [1, 7, step - 1, step + 1, 2 * step - 3, 3 * step + 2, -3]
    for p in totals:
        ref = r9.level_change(p, decks)
        keep, gain = S.level_change(p)
        assert (keep, gain) == (ref["declarers_keep"], ref["levels"]), p
        row = S.level_row(p)
        assert S.row_change(row) == (keep, gain)
        lo, hi = chain.row_points(row, decks), chain.row_points(row + 1, decks)
        assert (p <= 0) if row == 0 else (min(lo, 1) <= p < hi if row == 1 else lo <= p < hi)
        assert S.level_change(lo) == (keep, gain)
        if row:  # the label names the totals of the row that are multiples of 5
            first, _, last = stats.row_label(row, decks).partition("-")
            assert (int(first), int(last)) == (lo, hi - 5)
    for md in ("none", "ace", "ace_5_10_k"):
        rules = Rules(must_defend=md)
        enc = rules.encode()
        rng = random.Random(decks)
        for _ in range(300):
            levels = [rng.randrange(13), rng.randrange(13)]
            starter = rng.randrange(players)
            p = rng.choice(totals)
            ref = r9.tractor_round_result(levels, starter, p, game, {"must_defend": md})
            keep, gain, row, nxt = S.round_outcome(p, np.array(levels, dtype=np.int64), starter % 2, starter, 0,
                                                   False, enc)
            team = starter % 2 if keep else 1 - starter % 2
            got = list(levels)
            got[team] += gain
            assert (got, nxt) == (ref["levels"], ref["next_starter"]), (levels, starter, p, md)


def test_row_names_follow_the_decks():
    assert [stats.row_label(r) for r in range(5)] == ["p<=0", "5-35", "40-75", "80-115", "120-155"]
    assert [stats.row_label(r, 3) for r in range(6)] == ["p<=0", "5-55", "60-115", "120-175", "180-235", "240-295"]
    assert stats.row_label(2, 4) == "80-155" and chain.row_points(3, 4) == 160
    assert [chain.row_points(r) for r in range(4)] == [0, 5, 40, 80]


def test_chain_and_report_name_rows_by_the_game():
    """win_probability's row table and the report's rows name the points of the run's decks."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 400
    d = pd.DataFrame({"matchup": "A vs B", "policy0": np.where(np.arange(n) % 2, "A", "B"),
                      "policy1": np.where(np.arange(n) % 2, "B", "A"), "half": np.arange(n) % 2,
                      "deal_id": np.arange(n) // 2, "match_id": -1, "deal_in_match": 0,
                      "declaring_team": rng.integers(0, 2, n), "row": rng.integers(0, 6, n)})
    r = chain.win_probability(d, "A", "B", n_boot=5, decks=3)
    assert list(r["row_probs"].columns[:3]) == ["p<=0", "5-55", "60-115"]
    same = chain.win_probability(d, "A", "B", n_boot=5)
    assert r["win_prob"] == same["win_prob"]  # a row's change does not depend on the decks
    assert list(stats.row_frequencies(d, decks=4).columns[:3]) == ["p<=0", "5-75", "80-155"]

