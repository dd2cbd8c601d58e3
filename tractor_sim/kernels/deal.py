"""One whole deal, compiled: draw and declare, kitty exchange, the tricks, scoring.

The strategies arrive as a tuple of eight first-class functions (team 0's
declare, discard, lead, follow, then team 1's), unpacked once and called
inline: measured, a call through a helper function costs 15x more.
Every answer of a strategy is checked; an illegal one stops the deal with an
error code in ``err`` (ERR_*) and the situation, for the engine to report.
"""

from numba import njit, types

from tractor_sim.kernels import combos as C
from tractor_sim.kernels.declare import JOKER_PAIR, NONE, RJ, can_declare, kitty_flip_suit, show_key, valid_bid
from tractor_sim.kernels.bits import lowest_bit
from tractor_sim.kernels.order import TT_POS
from tractor_sim.kernels.rng import randint, shuffle, stream_key
from tractor_sim.kernels.scoring import (
    POINTS, card_points, defended_gain, kitty_multiplier, level_change, level_row, next_starter,
)
from tractor_sim.kernels.unowned import borrowed
from tractor_sim.kernels.view import (
    BID, BID_STEP_BID, BID_STEP_SHOW, BID_STEP_TRUMP, M_BID0, M_BID_STEP, M_DEALER, M_SHOWN, V_RULES,
    DECLARE, DISCARD, FOLLOW, LEAD, M_DECISION, M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_DECL_TEAM,
    M_DRAWN, M_FAILED_THROW, M_LEAD_KIND, M_LEAD_LONGEST, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_LEADER,
    M_LEVEL0, M_LEVEL1, M_MY_CARDS, M_MY_PAIRS, M_NDECL, M_NPLAYED, M_OPP_POINTS, M_ROUND1, M_SEAT, M_STARTER,
    M_TRICK, M_TRICK_POINTS, M_TRICKS_DONE, M_TRUMP_RANK, M_TRUMP_SUIT, M_WINNING, M_WINNING_KEY, STRATEGY_TYPE, V_BURIED,
    V_DECL_CARD, V_DECL_KIND, V_DECL_SEAT, V_EFF, V_HAND, V_META, V_PLAYED, V_TRICK,
    V_TRICK_LEADER, V_TRICK_POINTS, V_TRICK_WINNER,
)
from tractor_sim.rules import DECLARING_AUCTION, N_RULE_FIELDS, R_DECLARING, R_JOKER_OVERRIDE, R_NO_DECLARE_R1

FUNCS_TYPE = types.UniTuple(STRATEGY_TYPE, 10)
SCRATCH = 256
MAX_REDEALS = 1000

# Stream purposes (the last part of a stream key).
P_SHUFFLE = 0
P_FIRST = 1
P_STARTER = 2
P_SEAT = 10

# Error codes.
ERR_NONE = 0
ERR_DECLARE = 1
ERR_DISCARD = 2
ERR_LEAD = 3
ERR_FOLLOW = 4
ERR_REDEALS = 5
ERR_BID = 6
ERR_HEADER = 8  # err[0..7]: code, seat, decision, trick, redeals, 0, 0, 0; then hand, answer

# Columns of the int64 deal result row (the engine names them, see docs/records.md).
D_STARTER = 0
D_DECL_TEAM = 1
D_TRUMP_RANK = 2
D_TRUMP_SUIT = 3
D_TRUMP_SOURCE = 4
D_REDEALS = 5
D_KITTY_POINTS = 6
D_TRICK_POINTS = 7
D_KITTY_BONUS = 8
D_THROW_PENALTY = 9
D_FAILED_THROWS = 10
D_LAST_WINNER = 11
D_OPP_POINTS = 12
D_ROW = 13
D_KEEP = 14
D_GAIN = 15
D_NEXT_STARTER = 16
D_TRICKS = 17  # 17..20: tricks won per seat
D_DEALER = 21  # the seat that drew first (under the auction: the dealer)
D_BID0 = 22  # 22, 23: the bids of team 0 and team 1 under the auction (-1 without)
D_FIELDS = 24

# The deal's work arrays, carved from one int64 buffer of the workspace (offsets).
W_OUT = 0
W_BURIED = W_OUT + 54
W_PID = W_BURIED + 54
W_PCNT = W_PID + 216
W_PK = W_PCNT + 216
W_RES = W_PK + 4
W_TRICKS = W_RES + 4
W_BIDS = W_TRICKS + 4
W_UNITS = W_BIDS + 2
W_UCARDS = W_UNITS + 3 * C.MAX_UNITS
W_LUNITS = W_UCARDS + 16 * C.MAX_UNITS
W_LUCARDS = W_LUNITS + 3 * C.MAX_UNITS
W_HELD = W_LUCARDS + 16 * C.MAX_UNITS  # cards of each effective suit per seat (seat * 5 + suit), kept up to date
W_HPAIRS = W_HELD + 20  # pairs of each effective suit per seat
WORK_SIZE = W_HPAIRS + 20

SRC_SINGLE = 0
SRC_PAIR = 1
SRC_JOKERS = 2
SRC_FLIP = 3
SRC_NAMED = 4  # named by the starter after the auction


@njit(cache=True, inline='always')
def _any_declaration(hands, seat, cur_seat, cur_kind, cur_card, rank, rules):
    """Whether the seat has any declaration allowed now (asks only about cards it holds).

    Inlined into the draw, which asks after every card (a call per draw cost
    the deal 3%).
    """
    if cur_kind == JOKER_PAIR and (rules[R_JOKER_OVERRIDE] == 0 or cur_card == RJ):
        return False
    holds = hands[seat, 52] >= 2 or hands[seat, 53] >= 2
    for suit in range(4):
        holds = holds or hands[seat, suit * 13 + rank] >= 1
    if not holds:
        return False
    hand = hands[seat]
    for suit in range(4):
        card = suit * 13 + rank
        k = hand[card]
        if k >= 1 and can_declare(hand, 1, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
        if k >= 2 and can_declare(hand, 2, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
    for card in (52, 53):
        if hand[card] >= 2 and can_declare(hand, 3, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
    return False


@njit(cache=True)
def _fail(err, code, seat, decision, trick, redeals, hand, answer):
    err[0] = code
    err[1] = seat
    err[2] = decision
    err[3] = trick
    err[4] = redeals
    for c in range(54):
        err[ERR_HEADER + c] = hand[c]
        err[ERR_HEADER + 54 + c] = answer[c]


@njit(cache=True, _nrt=False)
def play_deal(seed, key_a, key_b, round1, levels, decl_team, starter, rules, params, fns, ws, row, err, deck, log):
    """Play one deal; fill ``row`` (D_* columns); return 0, or an error code.

    ``key_a``/``key_b`` name the deal's random streams (match id and deal in
    match, or deal id and 0).  In round 1 the declaration decides the
    declaring team and the starter (``decl_team``/``starter`` are ignored).
    ``params[team, decision]`` are the strategies' parameter vectors.
    ``log`` (LOG_* events, see ``_log``) is filled only when it has more
    than one row, for replays.
    """
    decl0, disc0, lead0, foll0, bid0, decl1, disc1, lead1, foll1, bid1 = fns
    # Compiled without reference counting (_nrt=False: it allocates nothing, its callees use stack
    # arrays, see kernels/unowned.py), so passing arrays around costs no counting calls.  The caller
    # owns these arrays for the whole call.
    views, hands, scratch, rngs, tables, work, st = ws
    out = work[W_OUT:W_OUT + 54]  # a strategy's answer (counts)
    buried = work[W_BURIED:W_BURIED + 54]
    pid = work[W_PID:W_PID + 216].reshape((4, 54))  # each play of the trick as a list: card ids,
    pcnt = work[W_PCNT:W_PCNT + 216].reshape((4, 54))  # their counts,
    pk = work[W_PK:W_PK + 4]  # and its length
    res = work[W_RES:W_RES + 4]
    tricks = work[W_TRICKS:W_TRICKS + 4]
    tricks[:] = 0  # the work arrays read before written (the others: each use writes first)
    out[:] = 0
    bids = work[W_BIDS:W_BIDS + 2]
    nocards = work[0:0]  # for events without cards: their card columns stay 0
    units = work[W_UNITS:W_UNITS + 3 * C.MAX_UNITS].reshape((C.MAX_UNITS, 3))
    ucards = work[W_UCARDS:W_UCARDS + 16 * C.MAX_UNITS].reshape((C.MAX_UNITS, 16))
    lead_units = work[W_LUNITS:W_LUNITS + 3 * C.MAX_UNITS].reshape((C.MAX_UNITS, 3))
    lead_ucards = work[W_LUCARDS:W_LUCARDS + 16 * C.MAX_UNITS].reshape((C.MAX_UNITS, 16))
    held = work[W_HELD:W_HELD + 20].reshape((4, 5))
    hpairs = work[W_HPAIRS:W_HPAIRS + 20].reshape((4, 5))
    # Each seat's arrays as their own variables, made once per deal rather than sliced at every call,
    # and borrowed: a strategy compiled with reference counting (a plug-in that allocates) then skips
    # the atomic part.  Only what strategies get (borrowing the kernel's own arrays cost it 3%).
    v0, v1, v2, v3 = borrowed(views[0]), borrowed(views[1]), borrowed(views[2]), borrowed(views[3])
    s0, s1, s2, s3 = borrowed(scratch[0]), borrowed(scratch[1]), borrowed(scratch[2]), borrowed(scratch[3])
    r0, r1, r2, r3 = borrowed(rngs[0]), borrowed(rngs[1]), borrowed(rngs[2]), borrowed(rngs[3])
    pdecl0, pdecl1 = borrowed(params[0, DECLARE]), borrowed(params[1, DECLARE])
    pdisc0, pdisc1 = borrowed(params[0, DISCARD]), borrowed(params[1, DISCARD])
    plead0, plead1 = borrowed(params[0, LEAD]), borrowed(params[1, LEAD])
    pfoll0, pfoll1 = borrowed(params[0, FOLLOW]), borrowed(params[1, FOLLOW])
    pbid0, pbid1 = borrowed(params[0, BID]), borrowed(params[1, BID])
    answer = borrowed(out)
    auction = rules[R_DECLARING] == DECLARING_AUCTION
    logging = log.shape[0] > 1
    rank = 0 if round1 else levels[decl_team]
    redeals = 0
    if logging:
        _log(log, LOG_START, -1, key_a, key_b, nocards, False)
    while True:
        # ---- draw and declare -------------------------------------------------
        views[:] = 0
        hands[:] = 0
        scratch[:] = 0.0
        for s in range(4):
            rngs[s, 0] = stream_key(seed, key_a, key_b, P_SEAT + s + 100 * redeals)
        for i in range(108):
            deck[i] = i // 2
        st[0] = stream_key(seed, key_a, key_b, P_SHUFFLE + 100 * redeals)
        shuffle(deck, st)
        if round1:
            st[0] = stream_key(seed, key_a, key_b, P_FIRST + 100 * redeals)
            first = randint(st, 4)
        else:
            first = starter
        tt = tables[rank, 4]
        for v in range(4):
            _set_table(views, hands, held, hpairs, v, tt)
            views[v, V_META, M_SEAT] = v
            views[v, V_META, M_STARTER] = -1 if round1 else starter
            views[v, V_META, M_DECL_TEAM] = -1 if round1 else decl_team
            views[v, V_META, M_LEVEL0] = levels[0]
            views[v, V_META, M_LEVEL1] = levels[1]
            views[v, V_META, M_TRUMP_RANK] = rank
            views[v, V_META, M_TRUMP_SUIT] = -1
            views[v, V_META, M_DECL_SEAT] = -1
            views[v, V_META, M_ROUND1] = 1 if round1 else 0
            views[v, V_META, M_DECISION] = DECLARE
            views[v, V_META, M_WINNING_KEY] = -1
            for j in range(N_RULE_FIELDS):
                views[v, V_RULES, j] = rules[j]
        if auction:  # nothing known yet; each seat sees the order of its own team's level
            for v in range(4):
                _set_table(views, hands, held, hpairs, v, tables[levels[v % 2], 4])
                views[v, V_META, M_STARTER] = -1
                views[v, V_META, M_DECL_TEAM] = -1
                views[v, V_META, M_TRUMP_RANK] = -1
                views[v, V_META, M_DEALER] = first
                views[v, V_META, M_BID0] = -1
                views[v, V_META, M_BID0 + 1] = -1
                for j in range(4):
                    views[v, V_META, M_SHOWN + j] = -1
        cur_seat = -1
        cur_kind = NONE
        cur_card = -1
        ndecl = 0
        for k in range(104):
            if k < 100:
                seat = (first + k) % 4
                card = deck[k]
                hands[seat, card] += 1
                views[seat, V_HAND, card] += 1
                # the seat's suit counts by the table its view shows (never read back from the view:
                # a strategy may have written into it)
                e = (tables[levels[seat % 2], 4] if auction else tt)[0, card]
                held[seat, e] += 1
                hpairs[seat, e] += hands[seat, card] >> 1
                _publish_counts(views, held, hpairs, seat, e)
                for _v in range(4):
                    views[_v, V_META, M_DRAWN] = k + 1
                if logging:
                    _log(log, LOG_DRAW, seat, card, 0, nocards, False)
            else:
                seat = (first + k) % 4
            if auction:
                continue
            if not _any_declaration(hands, seat, cur_seat, cur_kind, cur_card, rank, rules):
                continue
            out[:] = 0
            if seat == 0:
                ans = decl0(v0, pdecl0, r0, s0, answer)
            elif seat == 1:
                ans = decl1(v1, pdecl1, r1, s1, answer)
            elif seat == 2:
                ans = decl0(v2, pdecl0, r2, s2, answer)
            else:
                ans = decl1(v3, pdecl1, r3, s3, answer)
            if ans == 0:
                continue
            if not can_declare(hands[seat], out[0], out[1], seat, cur_seat, cur_kind, cur_card, rank, rules):
                _fail(err, ERR_DECLARE, seat, DECLARE, -1, redeals, hands[seat], out)
                return ERR_DECLARE
            cur_seat = seat
            cur_kind = out[0]
            cur_card = out[1]
            if logging:
                _log(log, LOG_DECLARE, seat, cur_kind, cur_card, nocards, False)
            if ndecl < 54:
                for v in range(4):
                    views[v, V_DECL_SEAT, ndecl] = seat
                    views[v, V_DECL_KIND, ndecl] = cur_kind
                    views[v, V_DECL_CARD, ndecl] = cur_card
                ndecl += 1
            for _v in range(4):
                views[_v, V_META, M_NDECL] = ndecl
            for _v in range(4):
                views[_v, V_META, M_DECL_SEAT] = cur_seat
            for _v in range(4):
                views[_v, V_META, M_DECL_KIND] = cur_kind
            for _v in range(4):
                views[_v, V_META, M_DECL_CARD] = cur_card
        if cur_kind != NONE or not round1 or auction:
            break
        if logging:
            _log(log, LOG_REDEAL, -1, redeals, 0, nocards, False)
        redeals += 1
        if redeals >= MAX_REDEALS or rules[R_NO_DECLARE_R1] != 0:
            _fail(err, ERR_REDEALS, -1, DECLARE, -1, redeals, hands[0], out)
            return ERR_REDEALS
    # ---- the auction: two bids, four shown cards, the trump named ------------------
    bids[0] = -1
    bids[1] = -1
    suit = 4
    source = SRC_NAMED
    if auction:
        best = -1
        for i in range(7):
            if i < 2:  # the dealer bids for his pair, the next seat for the other
                step = BID_STEP_BID
                seat = (first + i) % 4
            elif i < 6:  # everybody shows a card, from the dealer on
                step = BID_STEP_SHOW
                seat = (first + i - 2) % 4
            else:  # the starter names the trump suit
                step = BID_STEP_TRUMP
                seat = starter
            if i == 2:  # the higher bid makes the declaring team (a tie: the dealer's)
                decl_team = first % 2 if bids[first % 2] >= bids[1 - first % 2] else 1 - first % 2
                rank = levels[decl_team]
                tt = tables[rank, 4]
                for v in range(4):
                    _set_table(views, hands, held, hpairs, v, tt)
                    views[v, V_META, M_DECL_TEAM] = decl_team
                    views[v, V_META, M_TRUMP_RANK] = rank
            if i == 6:
                for v in range(4):
                    views[v, V_META, M_STARTER] = starter
            for v in range(4):
                views[v, V_META, M_DECISION] = BID
                views[v, V_META, M_BID_STEP] = step
            out[:] = 0
            if seat == 0:
                ans = bid0(v0, pbid0, r0, s0, answer)
            elif seat == 1:
                ans = bid1(v1, pbid1, r1, s1, answer)
            elif seat == 2:
                ans = bid0(v2, pbid0, r2, s2, answer)
            else:
                ans = bid1(v3, pbid1, r3, s3, answer)
            if step == BID_STEP_BID:
                ok = ans == 1 and valid_bid(out[0])
                value = out[0]
            elif step == BID_STEP_SHOW:
                ok = ans == 1 and C.ncards(out) == 1 and _within(out, hands[seat])
                value = 0
                for c in range(54):
                    if out[c] > 0:
                        value = c
            else:
                ok = ans == 1 and 0 <= out[0] <= 3
                value = out[0]
            if not ok:
                _fail(err, ERR_BID, seat, BID, -1, redeals, hands[seat], out)
                return ERR_BID
            if step == BID_STEP_BID:
                bids[seat % 2] = value
                for v in range(4):
                    views[v, V_META, M_BID0 + seat % 2] = value
                if logging:
                    _log(log, LOG_BID, seat, value, 0, nocards, False)
            elif step == BID_STEP_SHOW:
                for v in range(4):
                    views[v, V_META, M_SHOWN + seat] = value
                if show_key(value) > best:  # the highest card; a tie: the earlier shown
                    best = show_key(value)
                    starter = seat
                if logging:
                    _log(log, LOG_SHOW, seat, value, 0, nocards, False)
            else:
                suit = value
    # ---- the trump ------------------------------------------------------------
    kitty = deck[100:108]
    if auction:
        pass
    elif cur_kind == NONE:
        suit = kitty_flip_suit(kitty, 8, rank)
        source = SRC_FLIP
    elif cur_kind == JOKER_PAIR:
        suit = 4
        source = SRC_JOKERS
    else:
        suit = cur_card // 13
        source = SRC_SINGLE if cur_kind == 1 else SRC_PAIR
    if round1 and not auction:
        starter = cur_seat
        decl_team = cur_seat % 2
    tt = tables[rank, suit]
    for v in range(4):
        _set_table(views, hands, held, hpairs, v, tt)
        views[v, V_META, M_TRUMP_SUIT] = suit
        views[v, V_META, M_STARTER] = starter
        views[v, V_META, M_DECL_TEAM] = decl_team
    if logging:
        _log(log, LOG_TRUMP, starter, suit, source, nocards, False)
    for s in range(4):
        if logging:
            _log(log, LOG_HAND, s, 0, 0, hands[s], True)
    if logging:
        _log(log, LOG_KITTY, starter, 0, 0, deck[100:108], False)
    # ---- kitty exchange -------------------------------------------------------
    ucards[:] = -1
    lead_ucards[:] = -1
    for i in range(8):
        hands[starter, kitty[i]] += 1
        views[starter, V_HAND, kitty[i]] += 1
    _count_suits(views, hands, held, hpairs, starter, tt)
    for _v in range(4):
        views[_v, V_META, M_DECISION] = DISCARD
    out[:] = 0
    if starter == 0:
        n = disc0(v0, pdisc0, r0, s0, answer)
    elif starter == 1:
        n = disc1(v1, pdisc1, r1, s1, answer)
    elif starter == 2:
        n = disc0(v2, pdisc0, r2, s2, answer)
    else:
        n = disc1(v3, pdisc1, r3, s3, answer)
    if C.ncards(out) != 8 or not _within(out, hands[starter]):
        _fail(err, ERR_DISCARD, starter, DISCARD, -1, redeals, hands[starter], out)
        return ERR_DISCARD
    if logging:
        _log(log, LOG_BURY, starter, 0, 0, out, True)
    for c in range(54):
        buried[c] = out[c]
        hands[starter, c] -= out[c]
        views[starter, V_HAND, c] -= out[c]
        views[starter, V_BURIED, c] = out[c]
        out[c] = 0
    _count_suits(views, hands, held, hpairs, starter, tt)
    # ---- tricks until the hands are empty ------------------------------------------------------------
    opp_points = 0
    trick_points_total = 0
    penalty_total = 0
    failed = 0
    leader = starter
    lead_n = 0
    lead_pairs = 0
    lead_largest = 0
    winner = leader
    remaining = 25
    t = -1
    while remaining > 0:
        t += 1
        for _v in range(4):
            views[_v, V_META, M_TRICK] = t
        for _v in range(4):
            views[_v, V_META, M_LEADER] = leader
        for _v in range(4):
            views[_v, V_META, M_NPLAYED] = 0
        for _v in range(4):
            views[_v, V_META, M_TRICK_POINTS] = 0
        for _v in range(4):
            views[_v, V_META, M_WINNING_KEY] = -1
        for _v in range(4):
            views[_v, V_META, M_FAILED_THROW] = 0
        for _v in range(4):
            views[_v, V_META, M_DECISION] = LEAD
        if leader == 0:
            n = lead0(v0, plead0, r0, s0, answer)
        elif leader == 1:
            n = lead1(v1, plead1, r1, s1, answer)
        elif leader == 2:
            n = lead0(v2, plead0, r2, s2, answer)
        else:
            n = lead1(v3, plead1, r3, s3, answer)
        k = _compact(out, hands, leader, pid, pcnt, 0)
        lead_suit = _list_suit(pid, 0, k, tt)
        if k <= 0 or lead_suit < 0:
            _fail(err, ERR_LEAD, leader, LEAD, t, redeals, hands[leader], out)
            return ERR_LEAD
        if logging:
            _log(log, LOG_LEAD, leader, t, 0, out, True)
        if k == 1:  # a single or a pair: no decomposition needed
            nu = 1
            lead_units[0, C.UNIT_PAIRS] = pcnt[0, 0] // 2
            lead_units[0, C.UNIT_TOP] = tt[TT_POS, pid[0, 0]]
            lead_units[0, C.UNIT_NCARDS] = pcnt[0, 0]
            lead_ucards[0, 0] = pid[0, 0]
            kind = C.KIND_SINGLE if pcnt[0, 0] == 1 else C.KIND_PAIR
        else:
            nu = C.decompose(out, tt, lead_units, lead_ucards)
            kind = C.kind_of(lead_units, nu)
        if kind == C.KIND_THROW:
            C.check_throw(out, hands, leader, decl_team, tt, rules, lead_units, lead_ucards, nu, res)
            if res[0] == 0:
                failed += 1
                penalty_total += res[3]
                C.unit_counts(lead_units, lead_ucards, res[2], out)
                if logging:
                    _log(log, LOG_FAILED_THROW, leader, res[1], res[3], out, True)
                k = _compact(out, hands, leader, pid, pcnt, 0)
                nu = C.decompose(out, tt, lead_units, lead_ucards)
                kind = C.kind_of(lead_units, nu)
                for _v in range(4):
                    views[_v, V_META, M_FAILED_THROW] = 1
                    views[_v, V_META, M_OPP_POINTS] = opp_points + penalty_total  # public at once
        pk[0] = k
        lead_n = 0
        for j in range(k):
            lead_n += pcnt[0, j]
        lead_pairs = C.total_pairs(lead_units, nu)
        lead_largest = 0
        longest = 0
        for i in range(nu):
            lead_largest = max(lead_largest, lead_units[i, C.UNIT_NCARDS])
            longest = max(longest, lead_units[i, C.UNIT_PAIRS])
        for _v in range(4):
            views[_v, V_META, M_LEAD_N] = lead_n
        for _v in range(4):
            views[_v, V_META, M_LEAD_SUIT] = lead_suit
        for _v in range(4):
            views[_v, V_META, M_LEAD_PAIRS] = lead_pairs
        for _v in range(4):
            views[_v, V_META, M_LEAD_KIND] = kind
        for _v in range(4):
            views[_v, V_META, M_LEAD_LONGEST] = longest
        best = 0
        best_key = 0 if kind == C.KIND_THROW else lead_units[0, C.UNIT_TOP]
        points = _play(views, hands, held, hpairs, leader, pid, pcnt, 0, k, out, tt)
        for _v in range(4):
            views[_v, V_META, M_WINNING] = leader
        for _v in range(4):
            views[_v, V_META, M_WINNING_KEY] = best_key
        for _v in range(4):
            views[_v, V_META, M_TRICK_POINTS] = points
        for _v in range(4):
            views[_v, V_META, M_DECISION] = FOLLOW
        for i in range(1, 4):
            seat = (leader + i) % 4
            for _v in range(4):
                views[_v, V_META, M_NPLAYED] = i
            if seat == 0:
                n = foll0(v0, pfoll0, r0, s0, answer)
            elif seat == 1:
                n = foll1(v1, pfoll1, r1, s1, answer)
            elif seat == 2:
                n = foll0(v2, pfoll0, r2, s2, answer)
            else:
                n = foll1(v3, pfoll1, r3, s3, answer)
            k = _compact(out, hands, seat, pid, pcnt, i)
            if k < 0 or not _follow_ok(hands, seat, held, hpairs, pid, pcnt, i, k, out, lead_suit, lead_n, lead_pairs,
                                       kind, lead_units, nu, tt, rules):
                _fail(err, ERR_FOLLOW, seat, FOLLOW, t, redeals, hands[seat], out)
                return ERR_FOLLOW
            pk[i] = k
            if logging:
                _log(log, LOG_FOLLOW, seat, t, 0, out, True)
            if kind <= C.KIND_PAIR:
                key = _simple_key(pid, pcnt, i, k, lead_suit, kind, tt)
            else:
                key = C.play_key(out, lead_suit, kind, lead_units, nu, tt, units, ucards)
            if key > best_key:
                best_key = key
                best = i
            points += _play(views, hands, held, hpairs, seat, pid, pcnt, i, k, out, tt)
            for _v in range(4):
                views[_v, V_META, M_WINNING] = (leader + best) % 4
            for _v in range(4):
                views[_v, V_META, M_WINNING_KEY] = best_key
            for _v in range(4):
                views[_v, V_META, M_TRICK_POINTS] = points
        winner = (leader + best) % 4
        tricks[winner] += 1
        remaining -= lead_n
        if logging:
            _log(log, LOG_TRICK, winner, t, points, nocards, False)
        if winner % 2 != decl_team:
            opp_points += points
            trick_points_total += points
        for v in range(4):
            views[v, V_TRICK_LEADER, t] = leader
            views[v, V_TRICK_WINNER, t] = winner
            views[v, V_TRICK_POINTS, t] = points
            views[v, V_META, M_TRICKS_DONE] = t + 1
            views[v, V_META, M_OPP_POINTS] = opp_points + penalty_total
        for i in range(4):
            seat = (leader + i) % 4
            for j in range(pk[i]):
                for v in range(4):
                    views[v, V_TRICK + seat, pid[i, j]] = 0
        leader = winner
    # ---- scoring --------------------------------------------------------------
    kitty_points = card_points(buried)
    bonus = 0
    if winner % 2 != decl_team:
        bonus = kitty_points * kitty_multiplier(lead_n, lead_pairs, lead_largest, rules)
    p = trick_points_total + bonus + penalty_total
    keep, gain = level_change(p)
    gain = defended_gain(levels[decl_team if keep else 1 - decl_team], gain, keep, rules)
    row[D_STARTER] = starter
    row[D_DECL_TEAM] = decl_team
    row[D_TRUMP_RANK] = rank
    row[D_TRUMP_SUIT] = suit
    row[D_TRUMP_SOURCE] = source
    row[D_REDEALS] = redeals
    row[D_KITTY_POINTS] = kitty_points
    row[D_TRICK_POINTS] = trick_points_total
    row[D_KITTY_BONUS] = bonus
    row[D_THROW_PENALTY] = penalty_total
    row[D_FAILED_THROWS] = failed
    row[D_LAST_WINNER] = winner
    row[D_OPP_POINTS] = p
    row[D_ROW] = level_row(p)
    row[D_KEEP] = 1 if keep else 0
    row[D_GAIN] = gain
    row[D_NEXT_STARTER] = (first + 1) % 4 if auction else next_starter(starter, keep)
    for s in range(4):
        row[D_TRICKS + s] = tricks[s]
    row[D_DEALER] = first
    row[D_BID0] = bids[0]
    row[D_BID0 + 1] = bids[1]
    return ERR_NONE


LOG_DRAW = 1  # seat drew card a
LOG_DECLARE = 2  # seat declared kind a with card b
LOG_REDEAL = 3  # nobody declared: redeal number a
LOG_TRUMP = 4  # starter (seat), suit a, source b
LOG_HAND = 5  # seat's hand after the draw (counts)
LOG_KITTY = 6  # the kitty as dealt (a list of 8 card ids in the counts columns)
LOG_BURY = 7  # the cards the starter buried (counts)
LOG_LEAD = 8  # seat led (counts) in trick a
LOG_FAILED_THROW = 9  # the throw failed: blocked by seat a, penalty b, forced part (counts)
LOG_FOLLOW = 10  # seat followed (counts) in trick a
LOG_TRICK = 11  # seat won trick a with b points
LOG_START = 12  # a deal starts: key a (deal or match id), b (deal in match)
LOG_BID = 13  # seat bid a points (the auction)
LOG_SHOW = 14  # seat showed card a (the auction)
LOG_COLS = 4 + 54


@njit(cache=True)
def _log(log, kind, seat, a, b, cards, is_counts):
    """Append an event (row 0 holds the count, and log[0, 1] = 1 once an event found no room);
    a one-row log records nothing."""
    if log.shape[0] <= 1:
        return
    i = log[0, 0] + 1
    if i >= log.shape[0]:
        log[0, 1] = 1
        return
    log[0, 0] = i
    log[i, 0] = kind
    log[i, 1] = seat
    log[i, 2] = a
    log[i, 3] = b
    n = cards.shape[0] if cards.shape[0] < 54 else 54
    for c in range(n):
        log[i, 4 + c] = cards[c]


@njit(cache=True, inline='always')
def _count_suits(views, hands, held, hpairs, seat, tt):
    """Count the seat's cards and pairs of each effective suit by table ``tt`` into held/hpairs
    (for the follow check) and its view (M_MY_CARDS, M_MY_PAIRS); the draw and _play keep them up
    to date."""
    for e in range(5):
        held[seat, e] = 0
        hpairs[seat, e] = 0
    for c in range(54):  # one pass over the hand: combos.suit_count/suit_pairs per suit cost the deal 14%
        held[seat, tt[0, c]] += hands[seat, c]
        hpairs[seat, tt[0, c]] += hands[seat, c] >> 1
    for e in range(5):
        _publish_counts(views, held, hpairs, seat, e)


@njit(cache=True, inline='always')
def _publish_counts(views, held, hpairs, seat, e):
    """Copy the seat's kept counts of suit e into its view (M_MY_CARDS, M_MY_PAIRS)."""
    views[seat, V_META, M_MY_CARDS + e] = held[seat, e]
    views[seat, V_META, M_MY_PAIRS + e] = hpairs[seat, e]


@njit(cache=True, inline='always')
def _set_table(views, hands, held, hpairs, v, tt):
    """Copy trump table ``tt`` into view v's rows V_EFF.. and count seat v's suits by it.

    A plain loop that LLVM vectorizes (the slice assignment it replaces cost ~3% of a deal).
    """
    for r in range(8):
        for c in range(54):
            views[v, V_EFF + r, c] = tt[r, c]
    _count_suits(views, hands, held, hpairs, v, tt)


@njit(cache=True)
def _within(counts, hand):
    for c in range(54):
        if counts[c] < 0 or counts[c] > hand[c]:
            return False
    return True


@njit(cache=True, inline='always')
def _compact(out, hands, seat, ids, cnts, i):
    """List the cards of ``out`` in row i of ids/counts; -1 if not a part of seat's hand.

    Whole arrays and indices, not row slices.  One branch-free pass over the
    54 counts checks them and marks the played cards in a bit mask; the
    listing then visits only the marked cards (a play holds few).
    """
    bad = 0
    mask = 0
    for c in range(54):
        x = out[c]
        bad |= (x < 0) | (x > hands[seat, c])
        mask |= (x != 0) << c
    if bad:
        return -1
    k = 0
    while mask != 0:
        c = lowest_bit(mask)
        ids[i, k] = c
        cnts[i, k] = out[c]
        k += 1
        mask &= mask - 1
    return k


@njit(cache=True, inline='always')
def _follow_ok(hands, seat, held, hpairs, ids, cnts, i, k, out, lead_suit, lead_n, lead_pairs, kind, lead_units, nu,
               tt, rules):
    """combos.follow_ok from the play's card list (row i of ids/counts) and the seat's kept suit
    counts: the same rules (combos.follow_counts_ok) without scanning the hand."""
    n = 0
    played = 0
    ppairs = 0
    for j in range(k):
        x = cnts[i, j]
        n += x
        if tt[0, ids[i, j]] == lead_suit:
            played += x
            ppairs += x >> 1
    verdict = C.follow_counts_ok(n, held[seat, lead_suit], played, hpairs[seat, lead_suit], ppairs, lead_n,
                                 lead_pairs, kind, rules)
    if verdict == C.FOLLOW_CHECK_TRACTORS:
        return C.tractors_followed(hands[seat], out, lead_suit, lead_units, nu, tt)
    return verdict == C.FOLLOW_LEGAL


@njit(cache=True, inline='always')
def _list_suit(ids, i, k, tt):
    """The effective suit of card list i, -1 if it spans suits or is empty."""
    if k <= 0:
        return -1
    s = tt[0, ids[i, 0]]
    for j in range(1, k):
        if tt[0, ids[i, j]] != s:
            return -1
    return s


@njit(cache=True, inline='always')
def _simple_key(ids, cnts, i, k, lead_suit, kind, tt):
    """play_key for a single or pair lead, from card list i."""
    if k != 1 or cnts[i, 0] != (1 if kind == C.KIND_SINGLE else 2):
        return -1
    c = ids[i, 0]
    e = tt[0, c]
    if e == lead_suit:
        return tt[TT_POS, c]
    if e == C.TRUMP:
        return C.WIN_TRUMP + tt[TT_POS, c]
    return -1


@njit(cache=True, inline='always')
def _play(views, hands, held, hpairs, seat, ids, cnts, i, k, out, tt):
    """Record play i (a card list): hands, the seat's suit counts, the trick and history rows of
    every view.

    Clears ``out`` for the next strategy call and returns the play's points.
    """
    points = 0
    for j in range(k):
        c = ids[i, j]
        x = cnts[i, j]
        points += x * POINTS[c]
        out[c] = 0
        e = tt[0, c]
        held[seat, e] -= x
        hpairs[seat, e] -= (hands[seat, c] >> 1) - ((hands[seat, c] - x) >> 1)
        hands[seat, c] -= x
        views[seat, V_HAND, c] -= x
        _publish_counts(views, held, hpairs, seat, e)
        for v in range(4):
            views[v, V_PLAYED + seat, c] += x
            views[v, V_TRICK + seat, c] += x
    return points
