"""The rules of a deal as phase functions over its state: the only place each rule lives.

A deal's state (kernels.state) says which phase it is in and whose decision
is next (``to_act``).  ``start`` shuffles and deals up to the first
decision; ``apply`` takes the answer to the pending decision, checks it,
carries it out, and goes on through every step that needs no decision
(drawing cards, setting the trump, taking up the kitty, finishing a trick,
scoring) to the next one.  The drivers (kernels.deal: whole deals, a deal
continued from any state, rollouts) and the Python step API
(tractor_sim.play.game) all go through these functions; the views are written
by kernels.publish from public events only.

The phases in order: the draw with declarations (PH_DRAW), the auction of
the Russian text (PH_AUCTION, rule ``declaring = "auction"``), the kitty
exchange (PH_KITTY), then tricks: a lead (PH_LEAD, with the throw check and
its penalty) and the follows (PH_FOLLOW), until the hands are empty; the
round is scored into the state's RESULT row (PH_DONE).

An illegal answer stops the deal: ``apply`` returns an ERR_* code and
fills ``err`` with the situation (ERR_HEADER values, the hand, the answer).
The functions of every play and of the draw are inlined into the driver that calls them; those
that run once a deal (dealing, the auction, the trump and the kitty, the score) are calls, compiled
without reference counting like the driver (unowned.lean_jit): inlined, each would be copied into
every place that can lead to it.
"""

import numpy as np
from numba import njit, types

from . import combos as C
from .combos import TUPLE_SIZES
from .tuples import lead_requirement
from . import friends as F
from . import knowledge
from . import publish as P
from .bits import lowest_bit
from .declare import JOKER_PAIR, NONE, PAIR as KIND_PAIR, SINGLE, can_declare, kitty_flip_suit
from .declare import ANS_COUNT, can_declare_count, kind_count, kind_of, show_key, valid_bid
from .events import (
    LOG_BID, LOG_BURY, LOG_DECLARE, LOG_DRAW, LOG_FAILED_THROW, LOG_FOLLOW, LOG_HAND, LOG_KITTY, LOG_LEAD,
    LOG_REDEAL, LOG_SHOW, LOG_START, LOG_TRICK, LOG_TRUMP, log_event,
)
from .order import TT_EFF, TT_POS
from .result import (
    D_CALL_BY, D_CALL_CARD, D_CALL_COPY, D_CALL_JOINS, D_CALL_WHEN, D_GAINS, D_IN_TEAM, D_JOINED, D_TEAM,
    D_BID0, D_DEALER, D_DECL_TEAM, D_FAILED_THROWS, D_FIELDS, D_GAIN, D_KEEP, D_KITTY_BONUS, D_KITTY_POINTS,
    D_LAST_WINNER, D_NEXT_STARTER, D_OPP_POINTS, D_REDEALS, D_ROW, D_STARTER, D_THROW_PENALTY, D_TRICK_POINTS,
    D_TRICKS, D_TRUMP_RANK, D_TRUMP_SOURCE, D_TRUMP_SUIT,
)
from .rng import randint, shuffle, stream_key
from .scoring import POINTS, card_points, friends_outcome, kitty_multiplier, round_outcome
from .dims import BJ, CARDS, DECK, DECKS, DRAWN, HAND, KITTY, PAIR, PAIR_SHIFT, RANKS, RJ, SEATS, SUITS
from .dims import CALLS, FRIENDS, LEVELS, TEAM_MODE, TEAMS
from .dims import seat_after, team_of
from .layout import Layout
from .unowned import lean_jit, stack_array
from .state import (
    F_BY, F_CALLS, F_COPIES, F_JOINED, F_JOINS, F_POINTS, F_TEAM, F_THROWN, F_WHEN, PH_CALL,
    NO_SEAT, PH_AUCTION, PH_DONE, PH_DRAW, PH_FOLLOW, PH_KITTY, PH_LEAD, S_AUCTION, S_BEST, S_BEST_KEY,
    S_BEST_SHOW, S_BID_STEP, S_BIDS, S_CUR_CARD, S_CUR_COUNT, S_CUR_KIND, S_CUR_SEAT, S_DECISION, S_DECL_TEAM, S_DRAW_K,
    S_FAILED, S_FIRST, S_KEY_A, S_KEY_B, S_LEAD_KIND, S_LEAD_LARGEST, S_LEAD_N, S_LEAD_NU, S_LEAD_PAIRS,
    S_LEAD_SUIT, S_LEADER, S_LEVELS, S_NDECL, S_NPLAYED, S_OPP_POINTS, S_PENALTY, S_PHASE, S_POINTS, S_RANK,
    S_REDEALS, S_REMAINING, S_ROUND1, S_SEED, S_SOURCE, S_STARTER, S_SUIT, S_TO_ACT, S_TRICK, S_TRICKS_WON,
    S_WINNER, SCALARS_END, carve,
)
from .view import (
    CALL, BID, BID_STEP_BID, BID_STEP_SHOW, BID_STEP_TRUMP, DECLARE, DISCARD, FOLLOW, LEAD, M_BID0, M_BID_STEP,
    M_DEALER, M_DECISION, M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_DECL_TEAM, M_DRAWN, M_FAILED_THROW,
    M_LEAD_KIND, M_LEAD_LONGEST, M_LEAD_N, M_LEAD_PAIRS, M_LEAD_SUIT, M_LEADER, M_LEVEL0, M_NDECL, M_NPLAYED,
    M_OPP_POINTS, M_ROUND1, M_SEAT, M_SHOWN, M_STARTER, M_TRICK, M_TRICK_POINTS, M_TRICKS_DONE, M_TRUMP_RANK,
    M_TRUMP_SUIT, M_WINNING, M_WINNING_KEY, V_EFF, V_META, V_RULES,
)
from .view import M_LEAD_TUPLES
from tractor_sim.rules.options import DECLARING_AUCTION, N_RULE_FIELDS, R_DECLARING, R_JOKER_OVERRIDE, R_NO_DECLARE_R1

MAX_REDEALS = 1000
REDEAL_STREAMS = 100  # a redeal's streams: purpose + REDEAL_STREAMS * redeal
AUCTION_STEPS = TEAMS + SEATS + 1  # a bid per team, a card shown per seat, the trump named

# Stream purposes (the last part of a stream key).
P_SHUFFLE = 0
P_FIRST = 1
P_STARTER = 2
P_SEAT = 10

# How the trump was set (D_TRUMP_SOURCE).
SRC_SINGLE = 0
SRC_PAIR = 1  # two or more identical cards of the trump rank (with more decks up to DECKS: 9.8)
SRC_JOKERS = 2  # identical jokers
SRC_FLIP = 3
SRC_NAMED = 4  # named by the starter after the auction

# Error codes.
ERR_NONE = 0
ERR_DECLARE = 1
ERR_DISCARD = 2
ERR_LEAD = 3
ERR_FOLLOW = 4
ERR_REDEALS = 5
ERR_BID = 6
ERR_STATE = 7  # an answer given when the deal asks nothing, or to another decision
ERR_CALL = 8  # Finding Friends: calls that are not CALLS allowed (card, copy) pairs (9.11)
# What an error leaves in ``err``: the situation, then the hand and the answer (the engine names them).
ERR = Layout("error", [
    ("E_CODE", 1), ("E_SEAT", 1), ("E_DECISION", 1), ("E_TRICK", 1), ("E_REDEALS", 1),
    ("E_ID", 1, "set by the chunk: the deal or match id,"), ("E_DEAL_IN_MATCH", 1, "the deal in the match,"),
    ("E_DONE", 1, "the deals or matches completed"),
    ("E_HAND", CARDS), ("E_ANSWER", CARDS),
])
globals().update(ERR.constants())
ERR_HEADER = E_HAND
ERR_SIZE = ERR.size


@njit(cache=True)
def fail(err, code, seat, decision, trick, redeals, hand, answer):
    err[E_CODE] = code
    err[E_SEAT] = seat
    err[E_DECISION] = decision
    err[E_TRICK] = trick
    err[E_REDEALS] = redeals
    for c in range(CARDS):
        err[E_HAND + c] = hand[c]
        err[E_ANSWER + c] = answer[c]
    return code


@njit(cache=True, inline='always')
def to_act(st):
    """(the seat whose decision is next, the decision); (NO_SEAT, -1) when the deal is over."""
    if st[S_PHASE] == PH_DONE:
        return NO_SEAT, -1
    return st[S_TO_ACT], st[S_DECISION]


@njit(cache=True, inline='always')
def _ask(st, seat, decision, answer, clear):
    """The deal now waits for ``seat``'s ``decision``; ``clear`` empties the answer buffer first
    (plays leave it empty: each card played is cleared as it is recorded)."""
    st[S_TO_ACT] = seat
    st[S_DECISION] = decision
    if clear:
        answer[:] = 0


# ---------------------------------------------------------------- start: shuffle and deal

WS_TYPE = types.Tuple((types.int64[:, :, ::1], types.float64[:, ::1], types.uint64[:, ::1], types.int64[:, :, :, ::1]))
START_SIG = types.int64(types.int64[::1], WS_TYPE, types.int64[::1], types.int64[::1], types.int64[:, ::1],
                        types.uint64, types.int64, types.int64, types.boolean, types.int64[::1], types.int64, types.int64)
START_TYPE = types.FunctionType(START_SIG)  # start as a first-class function (match.play_chunk calls it so)


@lean_jit(START_SIG)
def start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter):
    """Begin a deal: shuffle, draw up to the first decision.  ``key_a``/``key_b`` name its random
    streams (deal id and 0, or match id and deal in match).  In round 1 (and under the auction) the
    draw or the bids decide the declaring team and the starter (``decl_team``/``starter`` are then
    ignored; under the auction ``starter`` is the dealer).  Returns ERR_NONE or an error code."""
    return _start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter, open_auction)


@lean_jit(START_SIG)
def start_without_auction(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter):
    """start compiled without the auction's phases, for rules without it (see deal.drivers)."""
    return _start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter, refuse_auction)


@njit(cache=True, inline='always')
def _start(st, ws, rules, err, log, seed, key_a, key_b, round1, levels, decl_team, starter, begin_auction):
    st[:SCALARS_END] = 0
    st[S_SEED] = np.int64(np.uint64(seed))
    st[S_KEY_A] = key_a
    st[S_KEY_B] = key_b
    st[S_ROUND1] = 1 if round1 else 0
    st[S_AUCTION] = 1 if rules[R_DECLARING] == DECLARING_AUCTION else 0
    for t in range(LEVELS):
        st[S_LEVELS + t] = levels[t]
    st[S_DECL_TEAM] = decl_team
    st[S_STARTER] = starter
    st[S_RANK] = 0 if round1 else levels[decl_team]
    if TEAM_MODE == FRIENDS:  # the landlord's own level; his policy's side stands for the "team" (9.11)
        st[S_DECL_TEAM] = team_of(starter)
        st[S_RANK] = 0 if round1 else levels[starter]
    st[S_SUIT] = SUITS
    st[S_SOURCE] = SRC_NAMED
    st[S_BIDS] = -1
    st[S_BIDS + 1] = -1
    if log.shape[0] > 1:
        log_event(log, LOG_START, -1, key_a, key_b, st[0:0])
    arrs = carve(st)
    _deal(st, arrs, ws, rules, log)
    return _advance_draw(st, arrs, ws, rules, err, log, begin_auction)


@lean_jit()
def _deal(st, arrs, ws, rules, log):
    """Shuffle for the current redeal, clear the views, and set up the draw."""
    views, scratch, rngs, tables = ws
    hands, deck, _, _, _, _, _, _, held, hpairs, _, _, _, _, _ = arrs
    seed = np.uint64(st[S_SEED])
    key_a = st[S_KEY_A]
    key_b = st[S_KEY_B]
    redeals = st[S_REDEALS]
    round1 = st[S_ROUND1] != 0
    auction = st[S_AUCTION] != 0
    for v in range(SEATS):  # every row but the trump table's (V_EFF up to V_META), which P.table writes whole
        views[v, :V_EFF] = 0
        views[v, V_META:] = 0
    hands[:] = 0
    scratch[:] = 0.0
    knowledge.clear(st)
    for s in range(SEATS):
        rngs[s, 0] = stream_key(seed, key_a, key_b, P_SEAT + s + REDEAL_STREAMS * redeals)
    own = rngs[SEATS]  # the kernel's own stream: the shuffle, the first seat
    for i in range(DECK):
        deck[i] = i // DECKS
    own[0] = stream_key(seed, key_a, key_b, P_SHUFFLE + REDEAL_STREAMS * redeals)
    shuffle(deck, own)
    if round1:
        own[0] = stream_key(seed, key_a, key_b, P_FIRST + REDEAL_STREAMS * redeals)
        first = randint(own, SEATS)
    else:
        first = st[S_STARTER]
    st[S_FIRST] = first
    rank = st[S_RANK]
    tt = tables[rank, SUITS]
    for v in range(SEATS):
        P.table(views, hands, held, hpairs, v, tt)
        P.to_seat(views, v, M_SEAT, v)
        P.to_seat(views, v, M_STARTER, -1 if round1 else st[S_STARTER])
        P.to_seat(views, v, M_DECL_TEAM, -1 if round1 else st[S_DECL_TEAM])
        if TEAM_MODE != FRIENDS:  # Finding Friends: every player's level, in the friends row
            for t in range(TEAMS):
                P.to_seat(views, v, M_LEVEL0 + t, st[S_LEVELS + t])
        P.to_seat(views, v, M_TRUMP_RANK, rank)
        P.to_seat(views, v, M_TRUMP_SUIT, -1)
        P.to_seat(views, v, M_DECL_SEAT, -1)
        P.to_seat(views, v, M_ROUND1, 1 if round1 else 0)
        P.to_seat(views, v, M_DECISION, DECLARE)
        P.to_seat(views, v, M_WINNING_KEY, -1)
        for j in range(N_RULE_FIELDS):
            views[v, V_RULES, j] = rules[j]
    if TEAM_MODE == FRIENDS:
        F.publish_start(views, st[S_LEVELS:S_LEVELS + LEVELS])
    if auction:  # nothing known yet; each seat sees the order of its own team's level
        for v in range(SEATS):
            P.table(views, hands, held, hpairs, v, tables[st[S_LEVELS + team_of(v)], SUITS])
            P.to_seat(views, v, M_STARTER, -1)
            P.to_seat(views, v, M_DECL_TEAM, -1)
            P.to_seat(views, v, M_TRUMP_RANK, -1)
            P.to_seat(views, v, M_DEALER, first)
            for t in range(TEAMS):
                P.to_seat(views, v, M_BID0 + t, -1)
            for j in range(SEATS):
                P.to_seat(views, v, M_SHOWN + j, -1)
    st[S_CUR_SEAT] = -1
    st[S_CUR_KIND] = NONE
    st[S_CUR_CARD] = -1
    st[S_CUR_COUNT] = 0
    st[S_NDECL] = 0
    st[S_DRAW_K] = 0
    st[S_PHASE] = PH_DRAW


# ---------------------------------------------------------------- the draw and declaring

@njit(cache=True, inline='always')
def _any_declaration(hands, seat, cur_seat, cur_kind, cur_card, rank, rules):
    """Whether the seat has any declaration allowed now (asks only about cards it holds), with two
    decks (more: _any_tuple_declaration).

    Inlined into the draw, which asks after every card (a call per draw cost
    the deal 3%).
    """
    if cur_kind == JOKER_PAIR and (rules[R_JOKER_OVERRIDE] == 0 or cur_card == RJ):
        return False
    holds = hands[seat, BJ] >= PAIR or hands[seat, RJ] >= PAIR
    for suit in range(SUITS):
        holds = holds or hands[seat, suit * RANKS + rank] >= 1
    if not holds:
        return False
    hand = hands[seat]
    for suit in range(SUITS):
        card = suit * RANKS + rank
        k = hand[card]
        if k >= 1 and can_declare(hand, SINGLE, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
        if k >= PAIR and can_declare(hand, KIND_PAIR, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
    for card in (BJ, RJ):
        if hand[card] >= PAIR and can_declare(hand, JOKER_PAIR, card, seat, cur_seat, cur_kind, cur_card, rank, rules):
            return True
    return False


@njit(cache=True, inline='always')
def _any_tuple_declaration(hands, seat, cur_seat, cur_kind, cur_count, cur_card, rank, rules):
    """_any_declaration with more decks (9.8): whether the seat may show some count of a trump-rank
    card or of a joker.  Only the most copies it holds of each (at most DECKS) are tried: more
    copies override whatever fewer do, and strengthen one's own declaration as well."""
    hand = hands[seat]
    for suit in range(SUITS):
        card = suit * RANKS + rank
        n = min(hand[card], DECKS)
        if n >= 1 and can_declare_count(hand, kind_of(n, card), n, card, seat, cur_seat, cur_kind, cur_count,
                                        cur_card, rank, rules):
            return True
    for card in (BJ, RJ):
        n = min(hand[card], DECKS)
        if n >= PAIR and can_declare_count(hand, JOKER_PAIR, n, card, seat, cur_seat, cur_kind, cur_count,
                                           cur_card, rank, rules):
            return True
    return False


@njit(cache=True, inline='always')
def _may_declare(st, hands, seat, rank, rules):
    """Whether the seat is asked to declare after a card: _any_declaration with two decks (the
    4-player 2-deck game's code, a constant branch), _any_tuple_declaration with more."""
    if DECKS > PAIR:
        return _any_tuple_declaration(hands, seat, st[S_CUR_SEAT], st[S_CUR_KIND], st[S_CUR_COUNT],
                                      st[S_CUR_CARD], rank, rules)
    return _any_declaration(hands, seat, st[S_CUR_SEAT], st[S_CUR_KIND], st[S_CUR_CARD], rank, rules)


@njit(cache=True, inline='always')
def _advance_draw(st, arrs, ws, rules, err, log, begin_auction):
    """Draw from card S_DRAW_K on, asking each seat that may declare; then the final chances (one
    per seat), then a redeal (round 1, nobody declared), the auction (``begin_auction``), or the
    trump and the kitty."""
    views, scratch, rngs, tables = ws
    hands, deck, _, _, _, _, _, _, held, hpairs, _, answer, _, _, _ = arrs
    logging = log.shape[0] > 1
    auction = st[S_AUCTION] != 0
    while True:
        first = st[S_FIRST]
        rank = st[S_RANK]
        tt = tables[rank, SUITS]
        k = st[S_DRAW_K]
        while k < DRAWN + SEATS:
            seat = seat_after(first, k)
            if k < DRAWN:
                card = deck[k]
                hands[seat, card] += 1
                # the seat's suit counts by the table its view shows (never read back from the view:
                # a strategy may have written into it)
                e = tables[st[S_LEVELS + team_of(seat)] if auction else rank, SUITS, TT_EFF, card]
                held[seat, e] += 1
                hpairs[seat, e] += hands[seat, card] >> PAIR_SHIFT
                P.drawn(views, held, hpairs, seat, card, e)
                P.to_all(views, M_DRAWN, k + 1)
                if logging:
                    log_event(log, LOG_DRAW, seat, card, 0, st[0:0])
            if not auction and _may_declare(st, hands, seat, rank, rules):
                st[S_DRAW_K] = k
                _ask(st, seat, DECLARE, answer, True)
                return ERR_NONE
            k += 1
        st[S_DRAW_K] = k
        if st[S_CUR_KIND] != NONE or st[S_ROUND1] == 0 or auction:
            break
        if logging:
            log_event(log, LOG_REDEAL, -1, st[S_REDEALS], 0, st[0:0])
        st[S_REDEALS] += 1
        if st[S_REDEALS] >= MAX_REDEALS or rules[R_NO_DECLARE_R1] != 0:
            return fail(err, ERR_REDEALS, -1, DECLARE, -1, st[S_REDEALS], hands[0], answer)
        _deal(st, arrs, ws, rules, log)
    if auction:
        return begin_auction(st, arrs, ws, rules, err, log)
    return _set_trump(st, arrs, ws, rules, log)


@njit(cache=True, inline='always')
def _declared_count(kind, answered):
    """The cards a declaration shows: the kind's with two decks (the answer's out[2] is not read),
    else ``answered`` (out[2]), 0 meaning the kind's least (view.py)."""
    if DECKS > PAIR and answered != 0:
        return answered
    return kind_count(kind)


@njit(cache=True, inline='always')
def _declaration_ok(st, hand, seat, kind, count, card, rules):
    """can_declare with two decks (the 4-player 2-deck game's code, a constant branch), else
    can_declare_count with the standing declaration's count (9.8)."""
    if DECKS > PAIR:
        return can_declare_count(hand, kind, count, card, seat, st[S_CUR_SEAT], st[S_CUR_KIND], st[S_CUR_COUNT],
                                 st[S_CUR_CARD], st[S_RANK], rules)
    return can_declare(hand, kind, card, seat, st[S_CUR_SEAT], st[S_CUR_KIND], st[S_CUR_CARD], st[S_RANK], rules)


@njit(cache=True, inline='always')
def apply_declare(st, arrs, ws, rules, err, log, ans, begin_auction):
    """A declaration (or a pass, ans 0) of the seat asked during the draw (``begin_auction``: see
    _advance_draw): out[0] the kind, out[1] the card, with more decks out[2] the cards shown (9.8).
    The log's LOG_DECLARE row and the views carry the count."""
    views = ws[0]
    hands, _, _, _, _, _, _, _, _, _, _, out, _, _, _ = arrs
    seat = st[S_TO_ACT]
    if ans != 0:
        count = _declared_count(out[0], out[ANS_COUNT])
        if not _declaration_ok(st, hands[seat], seat, out[0], count, out[1], rules):
            return fail(err, ERR_DECLARE, seat, DECLARE, -1, st[S_REDEALS], hands[seat], out)
        st[S_CUR_SEAT] = seat
        st[S_CUR_KIND] = out[0]
        st[S_CUR_CARD] = out[1]
        st[S_CUR_COUNT] = count
        knowledge.shown(st, seat, out[1], count)
        if log.shape[0] > 1:
            log_event(log, LOG_DECLARE, seat, out[0], out[1], st[S_CUR_COUNT:S_CUR_COUNT + 1])
        n = st[S_NDECL]
        if n < CARDS:
            P.declaration(views, n, seat, out[0], out[1], count)
            st[S_NDECL] = n + 1
        P.to_all(views, M_NDECL, st[S_NDECL])
        P.to_all(views, M_DECL_SEAT, seat)
        P.to_all(views, M_DECL_KIND, out[0])
        P.to_all(views, M_DECL_CARD, out[1])
    st[S_DRAW_K] += 1
    return _advance_draw(st, arrs, ws, rules, err, log, begin_auction)


# ---------------------------------------------------------------- the auction
#
# The phases reach the auction through the function handed to _advance_draw and the driver's bid
# phase, so that the kernels a run without the auction compiles (start_without_auction,
# deal.play_from_without_auction) do not hold it: 1.5 s of a cold first result (bench_compile).

@lean_jit()
def open_auction(st, arrs, ws, rules, err, log):
    """The draw is over under the auction: its first step."""
    st[S_PHASE] = PH_AUCTION
    st[S_BID_STEP] = 0
    st[S_BEST_SHOW] = -1
    return _advance_auction(st, arrs, ws, rules, err, log)


@lean_jit()
def refuse_auction(st, arrs, ws, rules, err, log):
    """open_auction of the phases compiled without the auction: their rules have none."""
    hands, _, _, _, _, _, _, _, _, _, _, answer, _, _, _ = arrs
    return fail(err, ERR_STATE, -1, BID, -1, st[S_REDEALS], hands[0], answer)


@lean_jit()
def refuse_bid(st, arrs, ws, rules, err, log, ans):
    """apply_bid of the phases compiled without the auction: their rules ask for no bid."""
    return refuse_auction(st, arrs, ws, rules, err, log)


@lean_jit()
def _advance_auction(st, arrs, ws, rules, err, log):
    """Ask the auction's next step: the dealer bids for his pair and the next seat for the other,
    then everybody shows a card from the dealer on, then the starter names the trump suit."""
    views, scratch, rngs, tables = ws
    hands, _, _, _, _, _, _, _, held, hpairs, _, answer, _, _, _ = arrs
    i = st[S_BID_STEP]
    if i == AUCTION_STEPS:
        return _set_trump(st, arrs, ws, rules, log)
    first = st[S_FIRST]
    if i < TEAMS:
        step = BID_STEP_BID
        seat = seat_after(first, i)
    elif i < TEAMS + SEATS:
        step = BID_STEP_SHOW
        seat = seat_after(first, i - TEAMS)
    else:
        step = BID_STEP_TRUMP
        seat = st[S_STARTER]
    if i == TEAMS:  # the higher bid makes the declaring team (a tie: the dealer's)
        mine = team_of(first)
        other = team_of(first + 1)
        decl_team = mine if st[S_BIDS + mine] >= st[S_BIDS + other] else other
        st[S_DECL_TEAM] = decl_team
        st[S_RANK] = st[S_LEVELS + decl_team]
        tt = tables[st[S_RANK], SUITS]
        for v in range(SEATS):
            P.table(views, hands, held, hpairs, v, tt)
            P.to_seat(views, v, M_DECL_TEAM, decl_team)
            P.to_seat(views, v, M_TRUMP_RANK, st[S_RANK])
    if i == TEAMS + SEATS:
        P.to_all(views, M_STARTER, st[S_STARTER])
    P.to_all(views, M_DECISION, BID)
    P.to_all(views, M_BID_STEP, step)
    _ask(st, seat, BID, answer, True)
    return ERR_NONE


@lean_jit()
def apply_bid(st, arrs, ws, rules, err, log, ans):
    views = ws[0]
    hands, _, _, _, _, _, _, _, _, _, _, out, _, _, _ = arrs
    seat = st[S_TO_ACT]
    i = st[S_BID_STEP]
    if i < TEAMS:
        ok = ans == 1 and valid_bid(out[0])
        value = out[0]
    elif i < TEAMS + SEATS:
        ok = ans == 1 and C.ncards(out) == 1 and _within(out, hands[seat])
        value = 0
        for c in range(CARDS):
            if out[c] > 0:
                value = c
    else:
        ok = ans == 1 and 0 <= out[0] < SUITS
        value = out[0]
    if not ok:
        return fail(err, ERR_BID, seat, BID, -1, st[S_REDEALS], hands[seat], out)
    logging = log.shape[0] > 1
    if i < TEAMS:
        st[S_BIDS + team_of(seat)] = value
        P.to_all(views, M_BID0 + team_of(seat), value)
        if logging:
            log_event(log, LOG_BID, seat, value, 0, st[0:0])
    elif i < TEAMS + SEATS:
        P.to_all(views, M_SHOWN + seat, value)
        knowledge.shown(st, seat, value, 1)
        if show_key(value) > st[S_BEST_SHOW]:  # the highest card; a tie: the earlier shown
            st[S_BEST_SHOW] = show_key(value)
            st[S_STARTER] = seat
        if logging:
            log_event(log, LOG_SHOW, seat, value, 0, st[0:0])
    else:
        st[S_SUIT] = value
    st[S_BID_STEP] = i + 1
    return _advance_auction(st, arrs, ws, rules, err, log)


# ---------------------------------------------------------------- the trump and the kitty

@lean_jit()
def _set_trump(st, arrs, ws, rules, log):
    """The trump from the standing declaration (or the kitty turned up, or the auction); the
    starter takes up the kitty and is asked to bury."""
    views, scratch, rngs, tables = ws
    hands, deck, _, _, _, _, _, lead_ucards, held, hpairs, _, answer, _, ucards, _ = arrs
    kitty = deck[DRAWN:DECK]
    rank = st[S_RANK]
    cur_kind = st[S_CUR_KIND]
    if st[S_AUCTION] != 0:
        pass
    elif cur_kind == NONE:
        st[S_SUIT] = kitty_flip_suit(kitty, KITTY, rank)
        knowledge.kitty_turned_up(st, st[S_STARTER], kitty, KITTY, rank)
        st[S_SOURCE] = SRC_FLIP
    elif cur_kind == JOKER_PAIR:
        st[S_SUIT] = SUITS
        st[S_SOURCE] = SRC_JOKERS
    else:
        st[S_SUIT] = st[S_CUR_CARD] // RANKS
        st[S_SOURCE] = SRC_SINGLE if cur_kind == SINGLE else SRC_PAIR
    if st[S_ROUND1] != 0 and st[S_AUCTION] == 0:
        st[S_STARTER] = st[S_CUR_SEAT]
        st[S_DECL_TEAM] = team_of(st[S_CUR_SEAT])
    starter = st[S_STARTER]
    tt = tables[rank, st[S_SUIT]]
    for v in range(SEATS):
        P.table(views, hands, held, hpairs, v, tt)
        P.to_seat(views, v, M_TRUMP_SUIT, st[S_SUIT])
        P.to_seat(views, v, M_STARTER, starter)
        P.to_seat(views, v, M_DECL_TEAM, st[S_DECL_TEAM])
    if log.shape[0] > 1:
        log_event(log, LOG_TRUMP, starter, st[S_SUIT], st[S_SOURCE], st[0:0])
        for s in range(SEATS):
            log_event(log, LOG_HAND, s, 0, 0, hands[s])
        log_event(log, LOG_KITTY, starter, 0, 0, kitty)
    ucards[:] = -1
    lead_ucards[:] = -1
    for i in range(KITTY):
        hands[starter, kitty[i]] += 1
        P.hand_change(views, starter, kitty[i], 1)
    P.count_suits(views, hands, held, hpairs, starter, tt)
    P.to_all(views, M_DECISION, DISCARD)
    st[S_PHASE] = PH_KITTY
    _ask(st, starter, DISCARD, answer, True)
    return ERR_NONE


@njit(cache=True)
def _within(counts, hand):
    for c in range(CARDS):
        if counts[c] < 0 or counts[c] > hand[c]:
            return False
    return True


@lean_jit()
def apply_discard(st, arrs, ws, rules, err, log, n):
    views, scratch, rngs, tables = ws
    hands, _, buried, _, _, _, _, _, held, hpairs, _, out, _, _, _ = arrs
    starter = st[S_STARTER]
    if C.ncards(out) != KITTY or not _within(out, hands[starter]):
        return fail(err, ERR_DISCARD, starter, DISCARD, -1, st[S_REDEALS], hands[starter], out)
    if log.shape[0] > 1:
        log_event(log, LOG_BURY, starter, 0, 0, out)
    for c in range(CARDS):
        buried[c] = out[c]
        hands[starter, c] -= out[c]
        P.hand_change(views, starter, c, -out[c])
        P.buried(views, starter, c, out[c])
        out[c] = 0
    P.count_suits(views, hands, held, hpairs, starter, tables[st[S_RANK], st[S_SUIT]])
    st[S_OPP_POINTS] = 0
    st[S_PENALTY] = 0
    st[S_FAILED] = 0
    st[S_LEADER] = starter
    st[S_LEAD_N] = 0
    st[S_LEAD_PAIRS] = 0
    st[S_LEAD_LARGEST] = 0
    st[S_WINNER] = starter
    st[S_REMAINING] = HAND
    st[S_TRICK] = -1
    for s in range(SEATS):
        st[S_TRICKS_WON + s] = 0
    if TEAM_MODE == FRIENDS:  # the landlord calls his friends before the first lead (9.11)
        F.open_team(st, views)
        st[S_PHASE] = PH_CALL
        P.to_all(views, M_DECISION, CALL)
        _ask(st, starter, CALL, out, False)
        return ERR_NONE
    _begin_trick(st, views, out)
    return ERR_NONE


@lean_jit()
def apply_call(st, arrs, ws, rules, err, log, n):
    """Finding Friends: the landlord's calls, checked (9.11); then the first trick."""
    views = ws[0]
    hands, _, _, _, _, _, _, _, _, _, _, out, _, _, _ = arrs
    starter = st[S_STARTER]
    if not F.calls_ok(out, n, st[S_RANK]):
        return fail(err, ERR_CALL, starter, CALL, -1, st[S_REDEALS], hands[starter], out)
    F.make_calls(st, views, out, log)
    _begin_trick(st, views, out)
    return ERR_NONE



# ---------------------------------------------------------------- tricks

@njit(cache=True, inline='always')
def _begin_trick(st, views, answer):
    t = st[S_TRICK] + 1
    st[S_TRICK] = t
    st[S_NPLAYED] = 0
    st[S_PHASE] = PH_LEAD
    P.to_all(views, M_TRICK, t)
    P.to_all(views, M_LEADER, st[S_LEADER])
    P.to_all(views, M_NPLAYED, 0)
    P.to_all(views, M_TRICK_POINTS, 0)
    P.to_all(views, M_WINNING_KEY, -1)
    P.to_all(views, M_FAILED_THROW, 0)
    P.to_all(views, M_DECISION, LEAD)
    _ask(st, st[S_LEADER], LEAD, answer, False)


@njit(cache=True, inline='always')
def _compact(out, hands, seat, ids, cnts, i):
    """List the cards of ``out`` in row i of ids/counts; -1 if not a part of seat's hand.

    Whole arrays and indices, not row slices.  One branch-free pass over the
    54 counts checks them and marks the played cards in a bit mask; the
    listing then visits only the marked cards (a play holds few).
    """
    bad = 0
    mask = 0
    for c in range(CARDS):
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
def _list_suit(ids, i, k, tt):
    """The effective suit of card list i, -1 if it spans suits or is empty."""
    if k <= 0:
        return -1
    s = tt[TT_EFF, ids[i, 0]]
    for j in range(1, k):
        if tt[TT_EFF, ids[i, j]] != s:
            return -1
    return s


@njit(cache=True, inline='always')
def _record_play(st, views, hands, held, hpairs, seat, ids, cnts, i, k, out, tt):
    """Play i (a card list) leaves the seat's hand: its suit counts, then the views.

    Clears ``out`` for the next strategy call and returns the play's points.
    """
    points = 0
    for j in range(k):
        c = ids[i, j]
        x = cnts[i, j]
        points += x * POINTS[c]
        out[c] = 0
        e = tt[TT_EFF, c]
        held[seat, e] -= x
        hpairs[seat, e] -= (hands[seat, c] >> PAIR_SHIFT) - ((hands[seat, c] - x) >> PAIR_SHIFT)
        hands[seat, c] -= x
        knowledge.played(st, seat, c, x)
        P.played(views, seat, c, x)
        P.suit_counts(views, held, hpairs, seat, e)
    return points


@njit(cache=True, inline='always')
def apply_lead(st, arrs, ws, rules, err, log, n):
    """The leader's play: one suit; a throw is checked against the other hands (a failed one is
    replaced by its forced part and costs the penalty); the followers are asked in turn."""
    views, scratch, rngs, tables = ws
    hands, _, _, pid, pcnt, pk, lead_units, lead_ucards, held, hpairs, _, out, _, _, res = arrs
    leader = st[S_LEADER]
    t = st[S_TRICK]
    tt = tables[st[S_RANK], st[S_SUIT]]
    k = _compact(out, hands, leader, pid, pcnt, 0)
    lead_suit = _list_suit(pid, 0, k, tt)
    if k <= 0 or lead_suit < 0:
        return fail(err, ERR_LEAD, leader, LEAD, t, st[S_REDEALS], hands[leader], out)
    if log.shape[0] > 1:
        log_event(log, LOG_LEAD, leader, t, 0, out)
    if k == 1:  # a single or a pair (a tuple): no decomposition needed
        nu = 1
        lead_units[0, C.UNIT_PAIRS] = min(pcnt[0, 0] >> PAIR_SHIFT, 1) if DECKS > PAIR else pcnt[0, 0] >> PAIR_SHIFT
        lead_units[0, C.UNIT_TOP] = tt[TT_POS, pid[0, 0]]
        lead_units[0, C.UNIT_NCARDS] = pcnt[0, 0]
        if DECKS > PAIR:
            lead_units[0, C.UNIT_SIZE] = pcnt[0, 0]
        lead_ucards[0, 0] = pid[0, 0]
        kind = C.KIND_SINGLE if pcnt[0, 0] == 1 else C.KIND_PAIR
    else:
        nu = C.decompose(out, tt, lead_units, lead_ucards)
        kind = C.kind_of(lead_units, nu)
    if kind == C.KIND_THROW:
        side = st[F_TEAM] if TEAM_MODE == FRIENDS else st[S_DECL_TEAM]  # 9.5: the sides at this moment
        C.check_throw(out, hands, leader, side, tt, rules, lead_units, lead_ucards, nu, res)
        if res[C.RES_STANDS] == 0:
            st[S_FAILED] += 1
            if TEAM_MODE == FRIENDS:  # the sign waits for the thrower's final side (9.11)
                st[F_THROWN + leader] += abs(res[C.RES_PENALTY])
                F.totals(st)
            else:
                st[S_PENALTY] += res[C.RES_PENALTY]
            forced = res[C.RES_FORCED]
            knowledge.throw_failed(st, leader, out, hands, res[C.RES_BLOCKED_BY], lead_suit, lead_units[forced, C.UNIT_PAIRS],
                           lead_units[forced, C.UNIT_TOP], C.unit_size(lead_units, forced), tt)
            C.unit_counts(lead_units, lead_ucards, res[C.RES_FORCED], out)
            if log.shape[0] > 1:
                log_event(log, LOG_FAILED_THROW, leader, res[C.RES_BLOCKED_BY], res[C.RES_PENALTY], out)
            k = _compact(out, hands, leader, pid, pcnt, 0)
            nu = C.decompose(out, tt, lead_units, lead_ucards)
            kind = C.kind_of(lead_units, nu)
            P.to_all(views, M_FAILED_THROW, 1)
            P.to_all(views, M_OPP_POINTS, st[S_OPP_POINTS] + st[S_PENALTY])  # public at once
    pk[0] = k
    lead_n = 0
    for j in range(k):
        lead_n += pcnt[0, j]
    lead_largest = 0
    longest = 0
    for i in range(nu):
        lead_largest = max(lead_largest, lead_units[i, C.UNIT_NCARDS])
        longest = max(longest, lead_units[i, C.UNIT_PAIRS])
    lead_pairs = C.total_pairs(lead_units, nu)
    st[S_LEAD_SUIT] = lead_suit
    st[S_LEAD_KIND] = kind
    st[S_LEAD_N] = lead_n
    st[S_LEAD_PAIRS] = lead_pairs
    st[S_LEAD_LARGEST] = lead_largest
    st[S_LEAD_NU] = nu
    P.to_all(views, M_LEAD_N, lead_n)
    P.to_all(views, M_LEAD_SUIT, lead_suit)
    P.to_all(views, M_LEAD_PAIRS, lead_pairs)
    P.to_all(views, M_LEAD_KIND, kind)
    P.to_all(views, M_LEAD_LONGEST, longest)
    if DECKS > PAIR:
        _publish_lead_tuples(views, lead_units, nu)
    best_key = 0 if kind == C.KIND_THROW else lead_units[0, C.UNIT_TOP]
    if TEAM_MODE == FRIENDS:
        _count_called(st, views, log, leader, pid, pcnt, 0, k)
    points = _record_play(st, views, hands, held, hpairs, leader, pid, pcnt, 0, k, out, tt)
    st[S_BEST] = 0
    st[S_BEST_KEY] = best_key
    st[S_POINTS] = points
    P.to_all(views, M_WINNING, leader)
    P.to_all(views, M_WINNING_KEY, best_key)
    P.to_all(views, M_TRICK_POINTS, points)
    P.to_all(views, M_DECISION, FOLLOW)
    st[S_NPLAYED] = 1
    st[S_PHASE] = PH_FOLLOW
    P.to_all(views, M_NPLAYED, 1)
    _ask(st, seat_after(leader, 1), FOLLOW, out, False)
    return ERR_NONE


@njit(cache=True, inline='always')
def _publish_lead_tuples(views, lead_units, nu):
    """The lead's tuples for every seat (3 and 4 decks): M_LEAD_TUPLES + m - PAIR, its tuples of m
    cards (R_m of decision 9.3)."""
    req = stack_array(TUPLE_SIZES)
    lead_requirement(lead_units, nu, req)
    for m in range(PAIR, DECKS + 1):
        P.to_all(views, M_LEAD_TUPLES + m - PAIR, req[m])


@njit(cache=True, inline='always')
def _follow_ok(hands, seat, held, hpairs, ids, cnts, i, k, out, lead_suit, lead_n, lead_pairs, kind, lead_units, nu,
               tt, rules):
    """combos.follow_ok from the play's card list (row i of ids/counts) and the seat's kept suit
    counts: the same rules (combos.follow_counts_ok) without scanning the hand.  With 3 and 4
    decks combos.follow_ok itself (the tuples of 9.3 are counted on the hand)."""
    if DECKS > PAIR:
        n = 0
        for j in range(k):
            n += cnts[i, j]
        return C.follow_ok(hands[seat], out, n, lead_suit, lead_n, lead_pairs, kind, lead_units, nu, tt, rules)
    n = 0
    played = 0
    ppairs = 0
    for j in range(k):
        x = cnts[i, j]
        n += x
        if tt[TT_EFF, ids[i, j]] == lead_suit:
            played += x
            ppairs += x >> PAIR_SHIFT
    verdict = C.follow_counts_ok(n, held[seat, lead_suit], played, hpairs[seat, lead_suit], ppairs, lead_n,
                                 lead_pairs, kind, rules)
    if verdict == C.FOLLOW_CHECK_TRACTORS:
        return C.tractors_followed(hands[seat], out, lead_suit, lead_units, nu, tt)
    return verdict == C.FOLLOW_LEGAL


@njit(cache=True, inline='always')
def _simple_key(ids, cnts, i, k, lead_suit, kind, lead_n, tt):
    """combos.play_key for a single or pair lead (a tuple of ``lead_n`` cards with 3 and 4 decks),
    from card list i (one card id: combos.card_key)."""
    want = lead_n if DECKS > PAIR else (1 if kind == C.KIND_SINGLE else PAIR)
    if k != 1 or cnts[i, 0] != want:
        return -1
    return C.card_key(ids[i, 0], lead_suit, tt)


@njit(cache=True, inline='always')
def apply_follow(st, arrs, ws, rules, err, log, n):
    """A follower's play: checked by the follow rule, compared with the best so far; after the
    last one the trick is finished."""
    views, scratch, rngs, tables = ws
    hands, _, _, pid, pcnt, pk, lead_units, _, held, hpairs, _, out, units, ucards, _ = arrs
    leader = st[S_LEADER]
    i = st[S_NPLAYED]
    seat = seat_after(leader, i)
    tt = tables[st[S_RANK], st[S_SUIT]]
    lead_suit = st[S_LEAD_SUIT]
    kind = st[S_LEAD_KIND]
    nu = st[S_LEAD_NU]
    k = _compact(out, hands, seat, pid, pcnt, i)
    if k < 0 or not _follow_ok(hands, seat, held, hpairs, pid, pcnt, i, k, out, lead_suit, st[S_LEAD_N],
                               st[S_LEAD_PAIRS], kind, lead_units, nu, tt, rules):
        return fail(err, ERR_FOLLOW, seat, FOLLOW, st[S_TRICK], st[S_REDEALS], hands[seat], out)
    knowledge.followed(st, seat, lead_suit, held[seat, lead_suit], hpairs[seat, lead_suit], st[S_LEAD_N],
                       st[S_LEAD_PAIRS], hands, lead_units, nu, tt)
    pk[i] = k
    if log.shape[0] > 1:
        log_event(log, LOG_FOLLOW, seat, st[S_TRICK], 0, out)
    if kind <= C.KIND_PAIR:
        key = _simple_key(pid, pcnt, i, k, lead_suit, kind, st[S_LEAD_N], tt)
    else:
        key = C.play_key(out, lead_suit, kind, lead_units, nu, tt, units, ucards)
    if TEAM_MODE == FRIENDS:
        _count_called(st, views, log, seat, pid, pcnt, i, k)
    if key > st[S_BEST_KEY]:
        st[S_BEST_KEY] = key
        st[S_BEST] = i
    points = st[S_POINTS] + _record_play(st, views, hands, held, hpairs, seat, pid, pcnt, i, k, out, tt)
    st[S_POINTS] = points
    P.to_all(views, M_WINNING, seat_after(leader, st[S_BEST]))
    P.to_all(views, M_WINNING_KEY, st[S_BEST_KEY])
    P.to_all(views, M_TRICK_POINTS, points)
    i += 1
    st[S_NPLAYED] = i
    if i < SEATS:
        P.to_all(views, M_NPLAYED, i)
        _ask(st, seat_after(leader, i), FOLLOW, out, False)
        return ERR_NONE
    _finish_trick(st, arrs, ws, rules, log)
    return ERR_NONE


@njit(cache=True, inline='always')
def _count_called(st, views, log, seat, ids, cnts, i, k):
    """Finding Friends: the called copies in the play (friends.count_play); a join moves the points
    its player won so far to the landlord's side, so the total every seat sees is taken again."""
    if F.count_play(st, views, log, seat, ids, cnts, i, k):
        F.totals(st)
        P.to_all(views, M_OPP_POINTS, st[S_OPP_POINTS] + st[S_PENALTY])


@njit(cache=True, inline='always')
def _finish_trick(st, arrs, ws, rules, log):
    """The trick goes to its winner (and its points to the opponents); the winner leads next, or
    the round is scored when the hands are empty."""
    views = ws[0]
    _, _, _, pid, _, pk, _, _, _, _, _, out, _, _, _ = arrs
    leader = st[S_LEADER]
    t = st[S_TRICK]
    points = st[S_POINTS]
    winner = seat_after(leader, st[S_BEST])
    st[S_WINNER] = winner
    st[S_TRICKS_WON + winner] += 1
    st[S_REMAINING] -= st[S_LEAD_N]
    if log.shape[0] > 1:
        log_event(log, LOG_TRICK, winner, t, points, st[0:0])
    if TEAM_MODE == FRIENDS:  # points stay with the seat that won them until the sides are final (9.11)
        st[F_POINTS + winner] += points
        F.totals(st)
    elif team_of(winner) != st[S_DECL_TEAM]:
        st[S_OPP_POINTS] += points
    P.trick_done(views, t, leader, winner, points)
    P.to_all(views, M_TRICKS_DONE, t + 1)
    P.to_all(views, M_OPP_POINTS, st[S_OPP_POINTS] + st[S_PENALTY])
    for i in range(SEATS):
        seat = seat_after(leader, i)
        for j in range(pk[i]):
            P.trick_cleared(views, seat, pid[i, j])
    st[S_LEADER] = winner
    if st[S_REMAINING] > 0:
        _begin_trick(st, views, out)
    elif TEAM_MODE == FRIENDS:
        _score_friends(st, arrs, rules)
    else:
        _score(st, arrs, rules)


# ---------------------------------------------------------------- scoring

@lean_jit()
def _score(st, arrs, rules):
    """The opponents' total (tricks, the kitty if they won the last trick, penalties), the level
    table (scoring.round_outcome) and the result row."""
    _, _, buried, _, _, _, _, _, _, _, row, _, _, _, _ = arrs
    decl_team = st[S_DECL_TEAM]
    kitty_points = card_points(buried)
    bonus = 0
    if team_of(st[S_WINNER]) != decl_team:
        bonus = kitty_points * kitty_multiplier(st[S_LEAD_N], st[S_LEAD_PAIRS], st[S_LEAD_LARGEST], rules)
    p = st[S_OPP_POINTS] + bonus + st[S_PENALTY]
    outcome = round_outcome(p, st[S_LEVELS:S_LEVELS + TEAMS], decl_team, st[S_STARTER], st[S_FIRST],
                            st[S_AUCTION] != 0, rules)
    _result_row(st, row, kitty_points, bonus, p, outcome)


@lean_jit()
def _score_friends(st, arrs, rules):
    """Finding Friends (9.11): the sides are the team at the round's end; the opponents' total (the
    tricks they won whenever they won them, the kitty if one of them won the last trick, every
    thrower's penalties by his final side); the table with a level per player (scoring.friends_outcome)."""
    _, _, buried, _, _, _, _, _, _, _, row, _, _, _, _ = arrs
    F.totals(st)
    team = st[F_TEAM]
    kitty_points = card_points(buried)
    bonus = 0
    if not F.in_team(st, st[S_WINNER]):
        bonus = kitty_points * kitty_multiplier(st[S_LEAD_N], st[S_LEAD_PAIRS], st[S_LEAD_LARGEST], rules)
    p = st[S_OPP_POINTS] + bonus + st[S_PENALTY]
    outcome = friends_outcome(p, st[S_LEVELS:S_LEVELS + LEVELS], team, st[S_STARTER], rules,
                              row[D_GAINS:D_GAINS + SEATS])
    _result_row(st, row, kitty_points, bonus, p, outcome)
    for s in range(SEATS):
        row[D_JOINED + s] = st[F_JOINED + s]
        row[D_IN_TEAM + s] = (team >> s) & 1
    row[D_TEAM] = team
    for j in range(CALLS):
        row[D_CALL_CARD + j] = st[F_CALLS + j]
        row[D_CALL_COPY + j] = st[F_COPIES + j]
        row[D_CALL_BY + j] = st[F_BY + j]
        row[D_CALL_WHEN + j] = st[F_WHEN + j]
        row[D_CALL_JOINS + j] = st[F_JOINS + j]


@njit(cache=True, inline='always')
def _result_row(st, row, kitty_points, bonus, p, outcome):
    """The result row both team modes share, from the state at the end and the level table's
    ``outcome`` (keep, gain, row index, next starter); the round is done."""
    keep, gain, row_index, nxt = outcome
    row[D_STARTER] = st[S_STARTER]
    row[D_DECL_TEAM] = st[S_DECL_TEAM]
    row[D_TRUMP_RANK] = st[S_RANK]
    row[D_TRUMP_SUIT] = st[S_SUIT]
    row[D_TRUMP_SOURCE] = st[S_SOURCE]
    row[D_REDEALS] = st[S_REDEALS]
    row[D_KITTY_POINTS] = kitty_points
    row[D_TRICK_POINTS] = st[S_OPP_POINTS]
    row[D_KITTY_BONUS] = bonus
    row[D_THROW_PENALTY] = st[S_PENALTY]
    row[D_FAILED_THROWS] = st[S_FAILED]
    row[D_LAST_WINNER] = st[S_WINNER]
    row[D_OPP_POINTS] = p
    row[D_ROW] = row_index
    row[D_KEEP] = 1 if keep else 0
    row[D_GAIN] = gain
    row[D_NEXT_STARTER] = nxt
    for s in range(SEATS):
        row[D_TRICKS + s] = st[S_TRICKS_WON + s]
    row[D_DEALER] = st[S_FIRST]
    for t in range(TEAMS):
        row[D_BID0 + t] = st[S_BIDS + t]
    st[S_PHASE] = PH_DONE
    st[S_TO_ACT] = NO_SEAT


# ---------------------------------------------------------------- the one entry for an answer

@njit(cache=True, inline='always')
def apply(st, ws, rules, err, log, decision, ans):
    """Carry out the answer (``ans`` as returned, the cards or values in the state's ANSWER) to the
    pending decision, and go on to the next one.  Returns ERR_NONE or an error code (err filled)."""
    return apply_carved(st, carve(st), ws, rules, err, log, decision, ans)


@njit(cache=True, inline='always')
def apply_carved(st, arrs, ws, rules, err, log, decision, ans):
    """apply with the state's arrays carved once by the caller (``state.carve``: a driver carves once
    per deal, not at every decision)."""
    if st[S_PHASE] == PH_DONE or decision != st[S_DECISION]:
        hands, _, _, _, _, _, _, _, _, _, _, out, _, _, _ = arrs
        seat = max(st[S_TO_ACT], 0)
        return fail(err, ERR_STATE, st[S_TO_ACT], decision, st[S_TRICK], st[S_REDEALS], hands[seat], out)
    if decision == FOLLOW:
        return apply_follow(st, arrs, ws, rules, err, log, ans)
    if decision == LEAD:
        return apply_lead(st, arrs, ws, rules, err, log, ans)
    if decision == DECLARE:
        return apply_declare(st, arrs, ws, rules, err, log, ans, open_auction)
    if decision == DISCARD:
        return apply_discard(st, arrs, ws, rules, err, log, ans)
    if TEAM_MODE == FRIENDS and decision == CALL:
        return apply_call(st, arrs, ws, rules, err, log, ans)
    return apply_bid(st, arrs, ws, rules, err, log, ans)
