"""A referee for the kernels' event logs at any game size, judged by the section-9 reference.

``LogReferee9(players, decks, rules)`` replays the event log of a chunk
(``engine.run_chunk(spec, log_id=match.LOG_ALL)``) deal by deal and judges
every event with ``tests/reference9.py`` (docs/rules.md section 9 and
docs/decisions.md 9.1-9.11), then the deal's structured record (and in match
mode the matches and the levels).  It is the section-9 counterpart of
``tests/reference_deal.LogReferee`` (sections 1-7, 4 players); at 4 players
and 2 decks both must accept the same logs.

Independence: every rule comes from ``reference9`` (sizes, declaring,
decompose/classify, check_throw, legal_follow, trick_winner, trick_points,
kitty_bonus, level_change, level_after, tractor_round_result, past_the_end,
kitty_flip_suit).  From the package it takes only what is not a rule: the
log's event kinds (``kernels.events``), the random stream primitives
(``kernels.rng``: stream_key, randint; so that the shuffle, round 1's first
drawer and the fixed-mode starter are the kernel's documented streams), the
card names and points (``tractor_sim.rules.cards``) and the option names
(``tractor_sim.rules.options``).  No rule function of the kernels is used.

What is checked, per deal (``LogReferee9.check``):

* the draw: the deck (every distinct card ``D`` times, in id order, shuffled
  Fisher-Yates with the stream (seed, key_a, key_b, P_SHUFFLE + 100 *
  redeal)) is drawn one card at a time, card k by seat (first + k) % N, the
  first drawer being the seed's (round 1), the starter (later rounds) or the
  dealer (the auction); hands of ``hand_size`` cards and a kitty of
  ``kitty`` cards (9.1), the hands and kitty holding every card exactly ``D``
  times; the HAND events equal the drawn hands, the KITTY event the deck's
  last ``kitty`` cards;
* declarations: their timing (the drawer of the card just drawn; after the
  last card one final chance per seat from the next seat), one per chance,
  each allowed by ``reference9.declare_allowed`` (9.8 with the rule
  options); redeals in round 1 only when nobody declared;
* the auction (``declaring = "auction"``): the two bids (dealer first), the
  cards shown (every seat from the dealer, from his hand), the declaring
  team, the starter, the named suit;
* the trump (suit and source: the standing declaration, the kitty flip, the
  auction) and the starter (round 1: the declarer; fixed mode: the seed's
  seat of the declaring team; later rounds: the previous result);
* the burial: ``kitty`` cards from the starter's hand plus the kitty;
* every lead (one effective suit), throws checked by ``check_throw`` (stands
  or fails; a failed throw's blocking seat, penalty and forced part), every
  follow by ``legal_follow`` (9.3 counting, ``follow_tractor``), every
  trick's winner and points, the hands empty at the end;
* the record: starter, declaring team, trump rank/suit/source, redeals,
  kitty points, trick points, kitty bonus (9.7 multipliers), throw penalty,
  failed throws, last winner, the opponents' total, the table's row, the gain
  and the gaining team, the levels before and after (9.9 with step 20 D,
  ``must_defend``), tricks per seat, the dealer and the bids;
* between the deals of a match: the next declaring team and starter (9.10:
  the partner ``seat + 2`` when the declarers keep, ``seat + 1`` when the
  other side takes over; the auction: the next dealer), the match end
  (``past_the_end``) and the match record.

Counters (``referee.n``): deals, matches, redeals, declarations, overrides,
auctions, flips, leads, throws, failed_throws, follows, tricks, ruffs (a plain
lead won by a follower playing only trumps), won_by_follower, kitty_bonus
(deals where the opponents scored the kitty), and leads by kind.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

try:
    from tests import reference9 as r9
except ImportError:  # tests/ on sys.path instead of the project root
    import reference9 as r9

from tractor_sim.rules.cards import BJ, RJ, card_str, points as card_points, rank_of
from tractor_sim.core.kernels.events import (
    LOG_BID, LOG_BURY, LOG_DECLARE, LOG_DRAW, LOG_FAILED_THROW, LOG_FOLLOW, LOG_HAND, LOG_KITTY, LOG_LEAD,
    LOG_REDEAL, LOG_SHOW, LOG_START, LOG_TRICK, LOG_TRUMP,
)
from tractor_sim.core.kernels.rng import randint, stream_key
from tractor_sim.rules.options import as_rules

# Stream purposes (the last part of a stream key) as the kernel documents them (kernels.phases;
# tests/test_sized_deals.py checks these numbers against it).
P_SHUFFLE = 0
P_FIRST = 1
P_STARTER = 2
REDEAL_STREAMS = 100  # a redeal's streams: purpose + 100 * redeal
MAX_DEALS_PER_MATCH = 1000  # deal ids in match mode: match_id * 1000 + deal_in_match

# The log (kernels.events): kind, seat, a, b, then the card columns.
CARD_COLS = 54
COUNT_EVENTS = (LOG_HAND, LOG_BURY, LOG_LEAD, LOG_FAILED_THROW, LOG_FOLLOW)
LOG_NAMES = {LOG_DRAW: "draw", LOG_DECLARE: "declare", LOG_REDEAL: "redeal", LOG_TRUMP: "trump",
             LOG_HAND: "hand", LOG_KITTY: "kitty", LOG_BURY: "bury", LOG_LEAD: "lead",
             LOG_FAILED_THROW: "failed_throw", LOG_FOLLOW: "follow", LOG_TRICK: "trick", LOG_START: "start",
             LOG_BID: "bid", LOG_SHOW: "show"}

# The record's trump_source (docs/records.md).
SRC_SINGLE, SRC_PAIR, SRC_JOKERS, SRC_FLIP, SRC_NAMED = 0, 1, 2, 3, 4
# The kernel's declaration kinds (the LOG_DECLARE event's ``a``; kernels.declare): SINGLE 1, PAIR 2
# (that many copies of a trump-rank card), JOKER_PAIR 3 (two identical jokers).
DECL_SINGLE, DECL_PAIR, DECL_JOKER_PAIR = 1, 2, 3
# The auction (decisions.md, "The auction"): a bid is a multiple of 5 from 0 to 200.
POINTS_PER_DECK = 100  # a bid is 0 .. the points in the game, 100 D (decisions.md, the auction)

_IDS = np.arange(CARD_COLS)


class RefereeError(AssertionError):
    """The kernel's log or record disagrees with the reference; the message says where and how."""


# ---------------------------------------------------------------------------
# helpers


def cards_of(counts):
    """Count vector -> sorted list of card ids (each repeated by its count)."""
    return np.repeat(_IDS, np.maximum(np.asarray(counts), 0)).tolist()


def counts_of(cards):
    out = np.zeros(CARD_COLS, dtype=np.int64)
    for c in cards:
        out[c] += 1
    return out


def names(cards):
    return " ".join(card_str(int(c)) for c in cards) or "(none)"


def _u64(x):
    return np.uint64(int(x) % (1 << 64))


def stream(seed, a, b, purpose):
    """A fresh random stream state (uint64[1]) for the key (seed, a, b, purpose)."""
    st = np.zeros(1, dtype=np.uint64)
    st[0] = stream_key(_u64(seed), np.int64(a), np.int64(b), np.int64(purpose))
    return st


def shuffled_deck(game, seed, key_a, key_b, redeals):
    """Every distinct card ``D`` times in id order, then Fisher-Yates with the deal's shuffle stream."""
    deck = game.deck()
    st = stream(seed, key_a, key_b, P_SHUFFLE + REDEAL_STREAMS * redeals)
    for i in range(len(deck) - 1, 0, -1):
        j = int(randint(st, np.int64(i + 1)))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_drawer(game, seed, key_a, key_b, redeals):
    """Round 1 (and a match's first auction): the seat that draws first, from the seed."""
    return int(randint(stream(seed, key_a, key_b, P_FIRST + REDEAL_STREAMS * redeals), np.int64(game.players)))


def fixed_starter(game, seed, deal_id, declaring_team, auction=False):
    """Fixed-levels mode: a seat of the declaring team from the seed (team + 2 k, k < N / 2);
    under the auction the dealer, any seat."""
    st = stream(seed, deal_id, 0, P_STARTER)
    if auction:
        return int(randint(st, np.int64(game.players)))
    return declaring_team + 2 * int(randint(st, np.int64(game.players // 2)))


def declaration(kind, card, count, decks):
    """The kernel's declaration (kind, card, cards shown) as reference9's (count, card), or None when
    they disagree or are out of range.

    The kernel logs SINGLE (1) for one trump-rank card, PAIR (2) for 2..D copies of one, and
    JOKER_PAIR (3) for 2..D identical jokers, with the count in the row (9.8).
    """
    if not 0 <= card < CARD_COLS or not 1 <= count <= decks:
        return None
    if card >= BJ:
        return (count, card) if kind == DECL_JOKER_PAIR and count >= 2 else None
    if (kind == DECL_SINGLE and count == 1) or (kind == DECL_PAIR and count >= 2):
        return (count, card)
    return None


def decode_log(log, kitty):
    """Kernel LOG_* rows -> list of deals, each a list of events (kind, seat, a, b, payload).

    The payload is the 54 counts for HAND, BURY, LEAD, FAILED_THROW and FOLLOW
    (a view of the row), the ``kitty`` card ids for KITTY, else None.
    """
    heads = log[:, :4].tolist()
    deals = []
    cur = None
    for i, (kind, seat, a, b) in enumerate(heads):
        if kind in COUNT_EVENTS:
            payload = log[i, 4:4 + CARD_COLS]
        elif kind == LOG_KITTY:
            payload = log[i, 4:4 + kitty].tolist()
        elif kind == LOG_DECLARE:
            payload = int(log[i, 4])  # the cards shown (the row's first card column, events.LC_DECL_COUNT)
        else:
            payload = None
        if kind == LOG_START:
            cur = []
            deals.append(cur)
        elif cur is None:
            raise RefereeError(f"log row {i}: an event before the first start: kind {kind}")
        cur.append((kind, seat, a, b, payload))
    return deals


def describe_event(ev):
    kind, seat, a, b, payload = ev
    name = LOG_NAMES.get(kind, f"kind {kind}")
    if kind == LOG_DRAW:
        return f"draw: seat {seat} drew {card_str(a) if 0 <= a < CARD_COLS else a}"
    if kind == LOG_DECLARE:
        return f"declare: seat {seat} kind {a} card {card_str(b) if 0 <= b < CARD_COLS else b}"
    if kind == LOG_SHOW:
        return f"show: seat {seat} card {card_str(a) if 0 <= a < CARD_COLS else a}"
    text = f"{name} seat={seat} a={a} b={b}"
    if payload is not None:
        cards = list(payload) if kind == LOG_KITTY else cards_of(np.maximum(np.asarray(payload), 0))
        text += f" cards=[{names(cards)}]"
    return text


def show_height(card):
    """How high a card shown in the auction is: RJ > BJ > A > K .. > 2, suits not counted."""
    return {RJ: 14, BJ: 13}.get(card, rank_of(card) if 0 <= card < BJ else -1)


# ---------------------------------------------------------------------------
# the referee


class LogReferee9:
    """Judges kernel event logs of a ``players``/``decks`` tractor-teams game with reference9.

    ``check_chunk(spec, deals, matches, log)`` judges a whole chunk; ``check_result(r)`` a
    ``run_chunk`` result.  Any disagreement raises ``RefereeError`` naming the deal, the event
    and what each side says.
    """

    def __init__(self, players, decks, rules=None):
        self.game = r9.Game(players, decks, "tractor")
        self.N = players
        self.D = decks
        self.rules_obj = as_rules(rules)
        self.rules = self.rules_obj.to_dict()  # reference9 reads the options by name
        self.auction = self.rules_obj.declaring == "auction"
        self.n = Counter()

    # -- errors ---------------------------------------------------------------
    def fail(self, where, msg):
        raise RefereeError(f"{self.N} players {self.D} decks, {where}: {msg}")

    # -- the declaration encoding -------------------------------------------
    def declaration(self, kind, card, count):
        return declaration(kind, card, count, self.D)

    @staticmethod
    def source_of(declaration):
        count, card = declaration
        if card >= BJ:
            return SRC_JOKERS
        return SRC_SINGLE if count == 1 else SRC_PAIR

    # -- one deal -------------------------------------------------------------
    def check(self, events, rec, *, round1, levels, decl_team, starter, where="", seed=None):
        """One deal's events against its record.  Round 1: ``decl_team``/``starter`` are ignored;
        under the auction ``starter`` is the dealer.  With ``seed`` the shuffle and round 1's first
        drawer are checked against the seed's streams.

        Returns (next declaring team, next starter or dealer, levels after).
        """
        self._events = events
        self._pos = 0
        try:
            return self._check(events, rec, round1, tuple(int(x) for x in levels), decl_team, starter, where, seed)
        except StopIteration:
            self.fail(where, "the log ends in the middle of the deal")

    def _next(self):
        ev = self._events[self._pos]  # IndexError -> StopIteration below
        self._pos += 1
        return ev

    def _check(self, events, rec, round1, levels, decl_team, starter, where, seed):
        game, N, D, rules = self.game, self.N, self.D, self.rules
        auction = self.auction
        n = self.n

        def R(msg, ev=None):
            at = f" (event {self._pos - 1}: {describe_event(ev)})" if ev is not None else ""
            self.fail(where, msg + at)

        def nxt():
            if self._pos >= len(events):
                raise StopIteration
            return self._next()

        ev = nxt()
        if ev[0] != LOG_START:
            R("the first event is not a start", ev)
        key_a, key_b = ev[2], ev[3]
        rank = None if auction else 0 if round1 else levels[decl_team]
        if rank is not None and int(rec["trump_rank"]) != rank:
            R(f"record trump_rank {rec['trump_rank']}, reference {rank}")
        drawn_total = game.cards - game.kitty
        redeals = 0
        ev = nxt()
        # ---- the draw and the declarations (several attempts in round 1 without one) ----
        while True:
            deck = shuffled_deck(game, seed, key_a, key_b, redeals) if seed is not None else None
            hands = np.zeros((N, CARD_COLS), dtype=np.int64)
            copies = np.zeros(CARD_COLS, dtype=np.int64)
            drawn = 0
            first = None
            current = None  # (seat, count, card)
            # after the last card: the last drawer's chance (k = DRAWN - 1), then one final chance
            # per seat from the next one (k = DRAWN .. DRAWN + N - 1); a declaration takes the
            # earliest chance left
            final_ptr = 0
            last_decl_at = -1
            while ev[0] in (LOG_DRAW, LOG_DECLARE):
                kind, seat = ev[0], ev[1]
                if kind == LOG_DRAW:
                    if drawn == 0:
                        first = seat
                        if round1:
                            if seed is not None and seat != first_drawer(game, seed, key_a, key_b, redeals):
                                R(f"first drawer {seat} is not the seed's "
                                  f"{first_drawer(game, seed, key_a, key_b, redeals)}", ev)
                        elif seat != starter:
                            R(f"first drawer {seat}; the {'dealer' if auction else 'starter'} is {starter}", ev)
                    card = ev[2]
                    if drawn >= drawn_total or seat != (first + drawn) % N or not 0 <= card < CARD_COLS:
                        R(f"draw {drawn} (of {drawn_total}) by seat {seat}, first drawer {first}", ev)
                    if deck is not None and card != deck[drawn]:
                        R(f"draw {drawn} is {card_str(card)}; the shuffled deck has {card_str(deck[drawn])}", ev)
                    hands[seat, card] += 1
                    copies[card] += 1
                    if copies[card] > D:
                        R(f"{card_str(card)} drawn {copies[card]} times with {D} decks", ev)
                    drawn += 1
                else:
                    if drawn == 0 or auction:
                        R("a declaration before the first draw, or under the auction", ev)
                    if drawn < drawn_total:
                        if seat != (first + drawn - 1) % N:
                            R(f"seat {seat} declared after draw {drawn - 1} by seat {(first + drawn - 1) % N}", ev)
                        if last_decl_at == drawn:
                            R("two declarations after the same draw", ev)
                        last_decl_at = drawn
                    else:
                        chances = [(first + drawn_total - 1) % N] + [
                            (first + k) % N for k in range(drawn_total, drawn_total + N)]
                        j = final_ptr
                        while j < len(chances) and chances[j] != seat:
                            j += 1
                        if j == len(chances):
                            R(f"seat {seat} declared with no chance left", ev)
                        final_ptr = j + 1
                    decl = self.declaration(ev[2], ev[3], ev[4])
                    allowed = r9.declare_allowed(cards_of(hands[seat]), current, seat, rank, D, rules)
                    if decl is None or decl not in allowed:
                        R(f"declaration {decl} (count, card) not allowed; standing {current}, allowed "
                          f"{[(k, card_str(c)) for k, c in allowed]}", ev)
                    if current is not None:
                        n["overrides"] += 1
                    n["declarations"] += 1
                    n[f"declared {decl[0]}{'J' if decl[1] >= BJ else ''}"] += 1
                    current = (seat,) + decl
                ev = nxt()
            if drawn != drawn_total:
                R(f"{drawn} cards drawn, expected {drawn_total} (hands of {game.hand_size}, kitty {game.kitty})")
            if ev[0] != LOG_REDEAL:
                break
            if not round1 or current is not None or auction or ev[2] != redeals:
                R("unexpected redeal", ev)
            n["redeals"] += 1
            redeals += 1
            ev = nxt()
        if int(rec["redeals"]) != redeals:
            R(f"record redeals {rec['redeals']}, reference {redeals}")
        if "dealer" in rec.dtype.names and int(rec["dealer"]) != first:
            R(f"record dealer {rec['dealer']}, the first drawer was {first}")
        for s in range(N):
            if hands[s].sum() != game.hand_size:
                R(f"seat {s} drew {hands[s].sum()} cards; hands hold {game.hand_size} (9.1)")
        # ---- the auction ----
        if auction:
            dealer = first
            bids = {}
            for seat in (dealer, (dealer + 1) % N):
                if ev[0] != LOG_BID or ev[1] != seat or not (0 <= ev[2] <= POINTS_PER_DECK * self.D and ev[2] % 5 == 0):
                    R(f"expected seat {seat}'s bid (a multiple of 5 from 0 to {POINTS_PER_DECK * self.D})", ev)
                bids[seat % 2] = ev[2]
                ev = nxt()
            mine, other = dealer % 2, 1 - dealer % 2
            decl_team = mine if bids[mine] >= bids[other] else other
            rank = levels[decl_team]
            best = None
            for j in range(N):
                seat = (dealer + j) % N
                if ev[0] != LOG_SHOW or ev[1] != seat or not 0 <= ev[2] < CARD_COLS or hands[seat, ev[2]] < 1:
                    R(f"expected seat {seat} to show a card of his hand", ev)
                if best is None or show_height(ev[2]) > show_height(best[1]):
                    best = (seat, ev[2])
                ev = nxt()
            starter = best[0]
            for name, want in (("trump_rank", rank), ("bid0", bids[0]), ("bid1", bids[1])):
                if name in rec.dtype.names and int(rec[name]) != want:
                    R(f"record {name} {rec[name]}, reference {want}")
            n["auctions"] += 1
        elif ev[0] in (LOG_BID, LOG_SHOW):
            R("an auction event without the auction", ev)
        # ---- trump, hands, kitty ----
        if ev[0] != LOG_TRUMP:
            R("expected the trump", ev)
        if auction:
            suit, source = (ev[2] if 0 <= ev[2] <= 3 else -1), SRC_NAMED
        elif current is not None:
            suit = r9.declared_trump(current[1:], rank)[1]
            source = self.source_of(current[1:])
            if round1:
                starter, decl_team = current[0], current[0] % 2
        else:
            if round1:
                R("round 1 played without a declaration", ev)
            suit, source = None, SRC_FLIP  # the kitty decides, checked below
        if ev[1] != starter or ev[3] != source or (suit is not None and ev[2] != suit):
            R(f"expected starter {starter}, suit {suit}, source {source}", ev)
        suit = ev[2]
        if not auction and starter % 2 != decl_team:
            R(f"starter {starter} is not of the declaring team {decl_team}")
        for s in range(N):
            ev = nxt()
            if ev[0] != LOG_HAND or ev[1] != s or not np.array_equal(hands[s], ev[4]):
                R(f"expected seat {s}'s hand as drawn: {names(cards_of(hands[s]))}", ev)
        ev = nxt()
        if ev[0] != LOG_KITTY or ev[1] != starter:
            R(f"expected the kitty, taken by seat {starter}", ev)
        kitty = list(ev[4])
        if not all(0 <= c < CARD_COLS for c in kitty):
            R(f"kitty of {game.kitty} cards expected (9.1)", ev)
        if deck is not None and kitty != deck[drawn_total:]:
            R(f"the kitty is not the deck's last {game.kitty} cards [{names(deck[drawn_total:])}]", ev)
        if (hands.sum(axis=0) + counts_of(kitty) != D).any():
            R(f"the hands and the kitty are not {D} full decks", ev)
        if source == SRC_FLIP:
            flip = r9.kitty_flip_suit(kitty, rank)
            if suit != flip:
                R(f"the kitty flip gave suit {suit}; reference {flip}")
            n["flips"] += 1
        trump = (rank, suit)
        for name, want in (("starter", starter), ("declaring_team", decl_team), ("trump_suit", suit),
                           ("trump_source", source)):
            if int(rec[name]) != want:
                R(f"record {name} {rec[name]}, reference {want}")
        # ---- the kitty exchange ----
        hands[starter] += counts_of(kitty)
        ev = nxt()
        if ev[0] != LOG_BURY or ev[1] != starter:
            R(f"expected seat {starter}'s burial", ev)
        bury = np.array(ev[4], dtype=np.int64)
        if bury.sum() != game.kitty or (bury < 0).any() or (bury > hands[starter]).any():
            R(f"a burial must be {game.kitty} cards of the starter's hand and the kitty "
              f"[{names(cards_of(hands[starter]))}]", ev)
        hands[starter] -= bury
        buried = cards_of(bury)
        if card_points(buried) != int(rec["kitty_points"]):
            R(f"record kitty_points {rec['kitty_points']}, buried {card_points(buried)}")
        # ---- the tricks ----
        declarers = {s for s in range(N) if s % 2 == decl_team}
        leader = starter
        trick_total = penalty_total = failed = all_points = 0
        tricks = [0] * N
        t = 0
        winner = leader
        lead = []
        while hands[leader].sum() > 0:
            ev = nxt()
            if ev[0] != LOG_LEAD or ev[1] != leader or ev[2] != t:
                R(f"trick {t}: expected seat {leader}'s lead", ev)
            out = np.array(ev[4], dtype=np.int64)
            if (out < 0).any() or (out > hands[leader]).any() or out.sum() == 0:
                R(f"trick {t}: a lead not from the hand [{names(cards_of(hands[leader]))}]", ev)
            lead = cards_of(out)
            try:
                info = r9.classify(lead, trump, rules)
            except ValueError as e:
                R(f"trick {t}: illegal lead: {e}", ev)
            n["leads"] += 1
            n[f"lead {info['kind']}"] += 1
            n.update(f"led {name}" for name in r9.unit_names(info))
            ev = nxt()
            if info["kind"] == "throw":
                n["throws"] += 1
                res = r9.check_throw(lead, [cards_of(h) for h in hands], leader, declarers, trump, rules)
                if res["ok"]:
                    if ev[0] == LOG_FAILED_THROW:
                        R(f"trick {t}: the throw [{names(lead)}] stands by the reference, the kernel fails it", ev)
                else:
                    forced = counts_of(res["forced"])
                    if ev[0] != LOG_FAILED_THROW or (ev[1], ev[2], ev[3]) != (
                            leader, res["blocked_by"], res["penalty"]) or not np.array_equal(ev[4], forced):
                        R(f"trick {t}: the throw [{names(lead)}] fails by the reference: blocked by seat "
                          f"{res['blocked_by']}, forced part [{names(res['forced'])}], penalty {res['penalty']}; "
                          f"the kernel says", ev)
                    failed += 1
                    penalty_total += res["penalty"]
                    lead = sorted(res["forced"])
                    n["failed_throws"] += 1
                    ev = nxt()
            elif ev[0] == LOG_FAILED_THROW:
                R(f"trick {t}: a {info['kind']} lead failed as a throw", ev)
            hands[leader] -= counts_of(lead)
            plays = [lead]
            for i in range(1, N):
                seat = (leader + i) % N
                if ev[0] != LOG_FOLLOW or ev[1] != seat or ev[2] != t:
                    R(f"trick {t}: expected seat {seat}'s follow", ev)
                out = np.array(ev[4], dtype=np.int64)
                if (out < 0).any():
                    R(f"trick {t}: negative counts", ev)
                play = cards_of(out)
                if not r9.legal_follow(cards_of(hands[seat]), lead, play, trump, rules):
                    R(f"trick {t}: illegal follow by seat {seat}: [{names(play)}] to [{names(lead)}] from "
                      f"[{names(cards_of(hands[seat]))}] (trump rank {trump[0]}, suit {trump[1]})", ev)
                n["follows"] += 1
                hands[seat] -= out
                plays.append(play)
                ev = nxt()
            winner = r9.trick_winner(plays, leader, N, trump, rules)
            pts = r9.trick_points(plays)
            if ev[0] != LOG_TRICK or ev[1] != winner or ev[2] != t or ev[3] != pts:
                R(f"trick {t}: reference winner seat {winner} with {pts} points; plays "
                  + "; ".join(f"{(leader + i) % N}: {names(p)}" for i, p in enumerate(plays)), ev)
            n["tricks"] += 1
            if winner != leader:
                n["won_by_follower"] += 1
                if info["suit"] != r9.TRUMP and all(
                        r9.effective_suit(c, trump, rules) == r9.TRUMP for c in plays[(winner - leader) % N]):
                    n["ruffs"] += 1
            tricks[winner] += 1
            all_points += pts
            if winner % 2 != decl_team:
                trick_total += pts
            if len({int(h.sum()) for h in hands}) != 1:
                R(f"trick {t}: hands of unequal sizes after it: {[int(h.sum()) for h in hands]}")
            leader = winner
            t += 1
        if (hands != 0).any():
            R("hands not empty at the end")
        if self._pos != len(events):
            R("events after the last trick", events[self._pos])
        if all_points + card_points(buried) != game.total_points:
            R(f"tricks and kitty hold {all_points + card_points(buried)} points, not {game.total_points}")
        # ---- the score (section 6 with 9.7 and 9.9) ----
        bonus = r9.kitty_bonus(buried, lead, trump, rules) if winner % 2 != decl_team else 0
        if bonus:
            n["kitty_bonus"] += 1
        p = trick_total + bonus + penalty_total
        change = r9.level_change(p, D, rules)
        keep = change["declarers_keep"]
        team = decl_team if keep else 1 - decl_team
        after = list(levels)
        if auction:
            after[team] = r9.level_after(levels[team], change["levels"], keep, rules)
            next_starter = (first + 1) % N  # the next dealer: the seat to the dealer's right
        else:
            result = r9.tractor_round_result(levels, starter, p, game, rules)
            after = list(result["levels"])
            next_starter = result["next_starter"]
        gain = after[team] - levels[team]
        row = 3 - change["levels"] if keep else 3 + change["levels"]
        want = {"trick_points": trick_total, "kitty_bonus": bonus, "throw_penalty": penalty_total,
                "failed_throws": failed, "last_winner": winner, "opp_points": p, "row": row, "gain": gain,
                "gain_team": team if gain > 0 else -1,
                "level0_before": levels[0], "level1_before": levels[1],
                "level0_after": after[0], "level1_after": after[1],
                **{f"tricks{s}": tricks[s] for s in range(N)}}
        for name, value in want.items():
            if name not in rec.dtype.names:
                R(f"the record has no field {name}")
            if int(rec[name]) != value:
                R(f"record {name} = {rec[name]}, reference {value} (opponents' total {p}: tricks {trick_total}, "
                  f"kitty bonus {bonus}, penalties {penalty_total}; declaring team {decl_team}, levels {levels})")
        extra = [f for f in rec.dtype.names if f.startswith("tricks") and int(f[6:]) >= N]
        if extra:
            R(f"the record has trick counts for seats beyond {N}: {extra}")
        n["deals"] += 1
        return team, next_starter, after

    # -- a chunk ----------------------------------------------------------------
    def check_result(self, result):
        """A run_chunk result (with its LOG_ALL log in ``extra["log"]``)."""
        self.check_chunk(result.spec, result.deals, result.matches, result.extra["log"])
        return len(result.deals)

    def check_chunk(self, spec, deals, matches, log):
        """A whole chunk (engine.ChunkSpec, its deal and match records, its LOG_ALL log)."""
        game = tuple(spec.game)[:2]
        if game != (self.N, self.D):
            self.fail(f"chunk {spec.first_id}", f"the spec's game is {spec.game}")
        logs = decode_log(log, self.game.kitty)
        if len(logs) != len(deals):
            self.fail(f"chunk {spec.first_id}", f"{len(logs)} logged deals for {len(deals)} records "
                                                f"(a full log buffer drops events)")
        label = f"{'-vs-'.join(spec.names)} seed {spec.seed}"
        if spec.mode == "fixed":
            levels = tuple(int(x) for x in spec.levels)
            for i, (events, rec) in enumerate(zip(logs, deals)):
                deal_id = spec.first_id + i
                where = f"{label} deal {deal_id}"
                if int(rec["deal_id"]) != deal_id or int(rec["match_id"]) != -1 or int(rec["deal_in_match"]) != 0:
                    self.fail(where, "record ids")
                if tuple(events[0][2:4]) != (deal_id, 0):
                    self.fail(where, f"start event keys {events[0][2:4]}")
                starter = fixed_starter(self.game, spec.seed, deal_id, spec.declaring_team, self.auction)
                self.check(events, rec, round1=False, levels=levels, decl_team=spec.declaring_team,
                           starter=starter, where=where, seed=spec.seed)
            return
        pos = 0
        for mi, m in enumerate(matches):
            match_id = spec.first_id + mi
            if int(m["match_id"]) != match_id:
                self.fail(f"{label} match {match_id}", "match record id")
            levels = [0, 0]
            decl_team = starter = 0
            winner = None
            for d in range(int(m["deals"])):
                where = f"{label} match {match_id} deal {d}"
                if winner is not None:
                    self.fail(where, f"the match went on after team {winner} won")
                if pos >= len(deals):
                    self.fail(where, "fewer deal records than the matches count")
                rec = deals[pos]
                events = logs[pos]
                pos += 1
                if (int(rec["match_id"]), int(rec["deal_in_match"]), int(rec["deal_id"])) != (
                        match_id, d, match_id * MAX_DEALS_PER_MATCH + d):
                    self.fail(where, "record ids")
                if tuple(events[0][2:4]) != (match_id, d):
                    self.fail(where, f"start event keys {events[0][2:4]}")
                decl_team, starter, levels = self.check(events, rec, round1=(d == 0), levels=levels,
                                                        decl_team=decl_team, starter=starter, where=where,
                                                        seed=spec.seed)
                over = [t for t in (0, 1) if r9.past_the_end(levels[t], self.rules)]
                winner = over[0] if over else None
            if winner is None or int(m["winner"]) != winner or list(levels) != [int(m["level0_final"]),
                                                                                 int(m["level1_final"])]:
                self.fail(f"{label} match {match_id}", f"match record {m} vs reference winner {winner}, "
                                                       f"levels {levels}")
            self.n["matches"] += 1
        if pos != len(deals):
            self.fail(f"{label} chunk {spec.first_id}", "deal records beyond the matches")
