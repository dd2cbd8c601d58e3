"""Step through a deal from Python: the same compiled phase functions as the engine.

``State`` is a deal stopped at a decision, in the shape of OpenSpiel's
``State``: ``to_act()`` says who decides what, ``legal()`` lists the legal
answers (with a limit: throws, follows and burials can be very many),
``is_legal(answer)`` checks one, ``apply(answer)`` carries it out with the
engine's own checks (kernels.phases), ``clone()`` copies, ``observation(seat)``
is the seat's view (the array a strategy gets), ``result()`` the deal's
record once it is over, ``play_out(a, b)`` plays it to its end with
registered policies (compiled, no Python per decision), and
``to_json()``/``from_json()`` store it.

Answers are cards in the notation of ``tractor_sim.rules.cards`` (``"AS"``,
``["KH", "KH"]``), except a bid (points, an int) and the named trump suit
(``"S"``, ``"H"``, ``"D"`` or ``"C"``); a pass on a declaration is ``None``
or ``[]``.

A State started with the engine's seed and deal id is the engine's deal:
stepping it with the policies' own answers gives the engine's records.
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass

import numpy as np

from tractor_sim.rules import cards as K
from tractor_sim.core.kernels import combos as C
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels import view as V
from tractor_sim.core.kernels.declare import JOKER_PAIR, PAIR as KIND_PAIR, SINGLE, can_declare, valid_bid
from tractor_sim.core.kernels.order import TT_EFF
from tractor_sim.core.kernels.match import fixed_starter
from tractor_sim.core.kernels.dims import CARDS, HAND, KITTY, PAIR, SEATS, SUITS, TEAMS
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING, Rules, as_rules

FORMAT = "tractor-sim-state"
FORMAT_VERSION = 3  # 2: the deal state holds the public knowledge (kernels.knowledge); 3: sealed by a digest


class StateError(ValueError):
    """A state JSON that is not one this code wrote (damaged, edited, another version); the message says how."""


def _digest(body: dict) -> str:
    """The seal of a stored state: SHA-256 of its canonical JSON. The compiled kernels index their
    arrays by the state's own values without bounds checks, so a state is taken back only as written."""
    import hashlib

    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
DECISION_NAMES = V.DECISIONS


class IllegalAnswer(ValueError):
    """An answer the rules do not allow now; the message names the decision, the seat and why."""


@dataclass(frozen=True)
class Turn:
    """Whose decision is next and which; ``step`` tells the auction's steps apart."""

    seat: int
    decision: str
    step: str | None = None  # the auction: "bid", "show" or "trump"


def _starter_for(seed: int, deal_id: int, declaring_team: int, auction: bool) -> int:
    """The starter the engine gives deal ``deal_id`` of a fixed-levels run (kernels.match.fixed_starter)."""
    return int(fixed_starter(np.uint64(seed), np.int64(deal_id), np.int64(declaring_team), auction,
                             np.zeros(1, dtype=np.uint64)))


def _level(value) -> int:
    if isinstance(value, str):
        return K.parse_rank(value)
    value = int(value)
    if not 0 <= value <= 12:
        raise ValueError(f"a level is 0..12 (2..A) or a rank name, got {value}")
    return value


class State:
    """One deal, stopped at a decision (or over).  Build it with ``State.new``."""

    def __init__(self, rules: Rules, st, ws):
        self.rules = rules
        self._enc = rules.encode()
        self._st = st
        self._ws = ws
        self._err = np.zeros(PH.ERR_SIZE, dtype=np.int64)
        self._nolog = np.zeros((1, D.LOG_COLS), dtype=np.int64)

    # ---------------------------------------------------------------- making one
    @classmethod
    def new(cls, seed: int = 0, deal_id: int = 0, rules=None, levels=(0, 0), declaring_team: int = 0,
            starter: int | None = None, round1: bool = False, deal_in_match: int = 0) -> "State":
        """Deal ``deal_id`` of a run with root ``seed`` (the engine's deal when ``starter`` is None and
        ``deal_in_match`` 0: fixed levels).  In round 1 of a match (``round1``, deal ``deal_in_match``
        of match ``deal_id``) the draw decides the declarer.  Levels are 0..12 or rank names."""
        rules = as_rules(rules)
        enc = rules.encode()
        if not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed must be 0 .. 2**64-1, got {seed}")
        if not 0 <= int(deal_id) < 2**63:
            raise ValueError(f"deal_id must be 0 .. 2**63-1, got {deal_id}")
        if declaring_team not in range(TEAMS):
            raise ValueError(f"declaring_team must be 0 or 1, got {declaring_team}")
        lv = np.array([_level(x) for x in levels], dtype=np.int64)
        if lv.shape != (TEAMS,):
            raise ValueError(f"levels: one per team ({TEAMS}), got {list(levels)}")
        auction = enc[R_DECLARING] == DECLARING_AUCTION
        if starter is None:
            starter = 0 if round1 else _starter_for(seed, deal_id, declaring_team, auction)
        if starter not in range(SEATS):
            raise ValueError(f"starter must be a seat 0..{SEATS - 1}, got {starter}")
        if not auction and not round1 and starter % TEAMS != declaring_team:
            raise ValueError(f"the starter (seat {starter}) must be of the declaring team {declaring_team}")
        st = D.new_state()
        ws = D.new_workspace(enc)
        state = cls(rules, st, ws)
        code = PH.start(st, ws, enc, state._err, state._nolog, np.uint64(seed), np.int64(deal_id),
                        np.int64(deal_in_match), bool(round1), lv, np.int64(declaring_team), np.int64(starter))
        if code != PH.ERR_NONE:
            raise ValueError(f"deal {deal_id} cannot start: {D_ERRORS.get(code, code)}")
        return state

    @classmethod
    def from_record(cls, rec: dict, upto: int | None = None) -> "State":
        """The deal of a deal record (tractor_sim.play.record) with its decisions applied, the first ``upto``
        of them (all when None): a recorded deal continues from any of its decisions.  A record that
        does not fit the state it makes (another engine, a tampered file) raises ValueError naming
        the decision."""
        from tractor_sim.core.kernels.match import MAX_DEALS_PER_MATCH
        from tractor_sim.play.record import actions

        if "game" in rec:
            raise ValueError(f"record deal {rec['deal_id']}: a game of {rec['game']['players']} players with "
                             f"{rec['game']['decks']} decks; the step API plays the 4-player 2-deck game")
        rules = as_rules(rec["rules"])
        auction = rules.encode()[R_DECLARING] == DECLARING_AUCTION
        deal_id, key, in_match, round1, starter = rec["deal_id"], rec["deal_id"], 0, False, None
        if rec["mode"] == "match":
            key, in_match = divmod(deal_id, MAX_DEALS_PER_MATCH)
            round1 = in_match == 0
            if auction and "dealer" not in rec:
                raise ValueError(f"record deal {deal_id}: a match deal under the auction needs its dealer")
            starter = rec.get("dealer") if auction else 0 if round1 else rec["starter"]
        state = cls.new(seed=rec["seed"], deal_id=key, rules=rules, levels=rec["levels"],
                        declaring_team=rec["declaring_team"], starter=starter, round1=round1,
                        deal_in_match=in_match)
        todo = actions(rec)
        declares = [a for a in todo if a["type"] == "declare"]
        rest = [a for a in todo if a["type"] != "declare"]
        wanted = {"bid": "bid", "show": "show", "trump": "name", "discard": "bury", "lead": "play", "follow": "play"}
        step = 0
        while not state.over and (upto is None or step < upto):
            turn = state.to_act()
            if turn.decision == "declare":  # the record lists declarations made; every other chance passed
                drawn = int(state._ws[0][turn.seat, V.V_META, V.M_DRAWN])
                d = declares[0] if declares else None
                if (d is not None and d["seat"] == turn.seat and d["drawn"] == drawn
                        and int(state._st[ST.S_REDEALS]) == rec["redeals"]):
                    answer = [d["card"]] * (1 if d["kind"] == "single" else PAIR)
                    declares.pop(0)
                else:
                    answer = None
            else:
                kind = wanted[turn.step or turn.decision]
                if not rest or rest[0]["type"] != kind or rest[0]["seat"] != turn.seat:
                    got = f"{rest[0]['type']} by seat {rest[0]['seat']}" if rest else "nothing"
                    raise ValueError(f"record deal {deal_id}, decision {step}: the state asks seat {turn.seat} "
                                     f"to {kind}, the record has {got} next")
                a = rest.pop(0)
                answer = {"bid": a.get("bid"), "show": [a.get("card")], "name": a.get("suit")}.get(
                    kind, a.get("cards"))
            try:
                state.apply(answer)
            except IllegalAnswer as e:
                raise ValueError(f"record deal {deal_id}, decision {step}: {e}") from None
            step += 1
        if upto is None and (declares or rest):
            raise ValueError(f"record deal {deal_id}: the deal ended with {len(declares) + len(rest)} recorded "
                             "decisions not taken")
        return state

    def clone(self) -> "State":
        """An independent copy (the trump tables, last in the workspace, are never written after
        new_workspace: shared, not copied)."""
        return State(self.rules, self._st.copy(), tuple(a.copy() for a in self._ws[:-1]) + self._ws[-1:])

    # ---------------------------------------------------------------- reading it
    @property
    def over(self) -> bool:
        return self._st[ST.S_PHASE] == ST.PH_DONE

    def to_act(self) -> Turn | None:
        """The seat to decide and the decision, None when the deal is over."""
        if self.over:
            return None
        seat, decision = int(self._st[ST.S_TO_ACT]), int(self._st[ST.S_DECISION])
        step = None
        if decision == V.BID:
            step = ("bid", "show", "trump")[int(self._ws[0][seat, V.V_META, V.M_BID_STEP])]
        return Turn(seat, DECISION_NAMES[decision], step)

    def observation(self, seat: int) -> np.ndarray:
        """A copy of the seat's view: what a strategy of that seat would be given now."""
        return self._ws[0][seat].copy()

    def hand(self, seat: int) -> list[str]:
        """The seat's cards (the true state: for analysis, not for a player's eyes)."""
        return [K.card_str(c) for c in K.from_counts(self._hands()[seat])]

    def _hands(self):
        return self._st[ST.HANDS:ST.HANDS + SEATS * CARDS].reshape(SEATS, CARDS)

    def _table(self):
        return self._ws[3][self._st[ST.S_RANK], self._st[ST.S_SUIT]]

    def trick(self) -> list[tuple[int, list[str]]]:
        """The current trick's plays so far: (seat, cards)."""
        views = self._ws[0]
        leader = int(self._st[ST.S_LEADER])
        if self._st[ST.S_PHASE] not in (ST.PH_LEAD, ST.PH_FOLLOW):
            return []
        out = []
        for i in range(int(self._st[ST.S_NPLAYED])):
            seat = (leader + i) % SEATS
            out.append((seat, [K.card_str(c) for c in K.from_counts(views[0, V.V_TRICK + seat])]))
        return out

    def result(self) -> dict:
        """The deal's record (the engine's columns, docs/records.md) once it is over."""
        if not self.over:
            raise ValueError("the deal is not over: result() is known after the last trick")
        row = self._st[ST.RESULT:ST.RESULT + D.D_FIELDS]
        return {name: int(row[getattr(D, "D_" + name.upper())]) for name in RESULT_FIELDS} | {
            f"tricks{s}": int(row[D.D_TRICKS + s]) for s in range(SEATS)} | {
            f"bid{t}": int(row[D.D_BID0 + t]) for t in range(TEAMS)}

    # ---------------------------------------------------------------- answers
    def _encode(self, answer) -> tuple[int, np.ndarray]:
        """(the strategy's return value, its answer buffer) for a Python answer to the pending decision."""
        turn = self.to_act()
        if turn is None:
            raise IllegalAnswer("the deal is over: nothing to answer")
        out = np.zeros(CARDS, dtype=np.int64)
        d = turn.decision
        if d == "bid" and turn.step == "bid":
            if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)):
                raise IllegalAnswer(f"seat {turn.seat} bids: a number of points, got {answer!r}")
            out[0] = int(answer)
            return 1, out
        if d == "bid" and turn.step == "trump":
            if not isinstance(answer, str) or answer.upper() not in K.SUITS:
                raise IllegalAnswer(f"seat {turn.seat} names the trump: one of S H D C, got {answer!r}")
            out[0] = K.SUITS.index(answer.upper())
            return 1, out
        if answer is None:
            answer = []
        try:
            ids = K.parse_cards(answer)
        except ValueError as e:
            raise IllegalAnswer(f"seat {turn.seat} ({d}): {e}") from None
        for c in ids:
            out[c] += 1
        if d == "declare":
            if not ids:
                return 0, out
            kind = _declaration_kind(ids)
            if kind is None:
                raise IllegalAnswer(f"seat {turn.seat} declares: one trump-rank card, two identical ones or two "
                                    f"identical jokers, got {K.cards_str(ids)}")
            out[:] = 0
            out[0], out[1] = kind, ids[0]
            return 1, out
        return len(ids), out

    def is_legal(self, answer) -> bool:
        """Whether ``apply(answer)`` would succeed: the engine's own checks decide (one implementation),
        on a copy (so nothing needs saving)."""
        try:
            _, code = self.clone()._run(answer)
        except IllegalAnswer:  # not even an answer of the pending decision's form
            return False
        return code == PH.ERR_NONE

    def apply(self, answer) -> "State":
        """Carry out the answer to the pending decision (the engine's checks; an illegal answer raises
        IllegalAnswer and leaves the state as it was).  Returns self."""
        st, ws = self._st, self._ws
        saved = (st.copy(), tuple(a.copy() for a in ws[:-1]))
        turn, code = self._run(answer)
        if code != PH.ERR_NONE:
            st[:] = saved[0]
            for a, b in zip(ws, saved[1]):
                a[...] = b
            raise IllegalAnswer(f"seat {turn.seat} ({turn.decision}{'/' + turn.step if turn.step else ''}): "
                                f"{D_ERRORS.get(code, 'illegal')}: {answer!r}")
        return self

    def _run(self, answer):
        """Hand the answer to the engine's phase function; (the turn, its code).  On an error code the
        state may be half changed: callers restore it or throw the copy away."""
        turn = self.to_act()
        ret, out = self._encode(answer)
        self._st[ST.ANSWER:ST.ANSWER + CARDS] = out
        code = PH.apply(self._st, self._ws, self._enc, self._err, self._nolog,
                        np.int64(V.DECISIONS.index(turn.decision)), np.int64(ret))
        return turn, code

    def legal(self, limit: int = 10_000) -> list:
        """The legal answers to the pending decision, at most ``limit`` of them (in a fixed order:
        smaller plays first).  A lead may be any set of one suit's cards (a throw that fails is still
        a legal lead), so leads, follows and burials are enumerated lazily and cut at the limit."""
        return list(itertools.islice(self.iter_legal(), limit))

    def iter_legal(self):
        turn = self.to_act()
        if turn is None:
            return
        seat = turn.seat
        hand = self._hands()[seat]
        if turn.decision == "declare":
            yield None
            for cards in _declaration_options(hand):
                if self._declaration_ok(seat, cards):
                    yield [K.card_str(c) for c in cards]
        elif turn.decision == "bid":
            if turn.step == "bid":
                yield from (b for b in range(V.MAX_BID + 1) if valid_bid(b))  # the engine's own check
            elif turn.step == "show":
                yield from ([K.card_str(c)] for c in range(CARDS) if hand[c] > 0)
            else:
                yield from K.SUITS
        elif turn.decision == "discard":
            for combo in _sub_multisets(hand, KITTY):
                yield [K.card_str(c) for c in combo]
        elif turn.decision == "lead":
            tt = self._table()
            for n in range(1, HAND + KITTY + 1):
                for suit in range(SUITS + 1):
                    in_suit = np.where(tt[TT_EFF] == suit, hand, 0)
                    for combo in _sub_multisets(in_suit, n):
                        yield [K.card_str(c) for c in combo]
        else:
            for combo in self._follows():
                yield [K.card_str(c) for c in combo]

    def _follows(self):
        """The legal follows as sorted card-id lists, in legal()'s order (the hand's multisets of the
        lead's size that the engine's check accepts).  A legal follow holds as many cards of the led
        suit as the hand can give, so only such multisets are tried: the same list, much sooner."""
        hand = self._hands()[int(self._st[ST.S_TO_ACT])]
        n = int(self._st[ST.S_LEAD_N])
        lead = self._ws[0][0, V.V_TRICK + int(self._st[ST.S_LEADER])]
        tt = self._table()
        suit = tt[0][int(np.flatnonzero(lead)[0])]
        in_suit = np.where(tt[TT_EFF] == suit, hand, 0)
        m = int(in_suit.sum())
        if m >= n:
            combos = _sub_multisets(in_suit, n)
        else:
            must = [c for c in range(CARDS) for _ in range(int(in_suit[c]))]
            combos = (sorted(must + rest) for rest in _sub_multisets(hand - in_suit, n - m))
        play = np.zeros(CARDS, dtype=np.int64)
        for combo in combos:
            play[:] = 0
            for c in combo:
                play[c] += 1
            if C.legal_follow(hand, play, lead, tt, self._enc):
                yield combo

    def _declaration_ok(self, seat, cards):
        kind = _declaration_kind(cards)
        st = self._st
        return bool(can_declare(self._hands()[seat], kind, cards[0], seat, st[ST.S_CUR_SEAT], st[ST.S_CUR_KIND],
                                st[ST.S_CUR_CARD], st[ST.S_RANK], self._enc))

    def answer_of(self, policy, modules=()):
        """What a registered policy's strategy answers to the pending decision, in this API's form.

        The strategy runs on the seat's own view, scratch memory and random stream, as in the engine
        (it may write into them), so applying its answers step by step plays the engine's deal.
        """
        from tractor_sim.runs import engine

        turn = self.to_act()
        if turn is None:
            raise IllegalAnswer("the deal is over: nothing to answer")
        if isinstance(policy, str) and not modules:
            pols, params = _builtin_policy(policy)
        else:
            pols, params = engine.resolve_policies((policy, policy), modules)[:2]
        d = V.DECISIONS.index(turn.decision)
        views, scratch, rngs, _ = self._ws
        out = self._st[ST.ANSWER:ST.ANSWER + CARDS]
        if turn.decision in ("declare", "discard", "bid"):
            out[:] = 0
        ret = pols[0].functions[d](views[turn.seat], params[0, d], rngs[turn.seat], scratch[turn.seat], out)
        return _decode(turn, int(ret), out)

    # ---------------------------------------------------------------- worlds a seat cannot tell apart
    def sample_world(self, seat: int, rng_seed: int) -> "State":
        """A world for ``seat``: this deal with the cards the seat cannot see (the other hands; the kitty
        unless it buried it) dealt again, uniformly among the deals consistent with what it knows, and
        ready to be played on (kernels.sampler: what it reads, why it is exact).  Worlds exist from the
        kitty exchange until the deal is over; ValueError outside."""
        from tractor_sim.core.kernels import sampler as SM

        if seat not in range(SEATS):
            raise ValueError(f"seat must be 0..{SEATS - 1}, got {seat}")
        world, wws = D.new_state(), D.new_workspace(self._enc)
        rng = np.array([int(rng_seed) % 2**64], dtype=np.uint64)
        if SM.sample_world(self._st, self._ws, seat, SM.new_work(), rng, world, wws) == 0:
            raise ValueError("no world to sample: worlds exist from the kitty exchange until the deal is over")
        return State(self.rules, world, wws)

    # ---------------------------------------------------------------- to the end
    def play_out(self, policy_a="basic", policy_b="basic", modules=()) -> dict:
        """Play the deal to its end with two registered policies (team 0's and team 1's), compiled;
        returns result()."""
        from tractor_sim.runs import engine

        _, params, fns = engine.resolve_policies((policy_a, policy_b), modules)
        code = D.play_from(self._st, self._ws, self._enc, params, fns, self._err, self._nolog)
        if code != PH.ERR_NONE:
            raise IllegalAnswer(f"a policy gave {D_ERRORS.get(code, 'an illegal answer')} "
                                f"(seat {int(self._err[1])}, trick {int(self._err[3])})")
        return self.result()

    # ---------------------------------------------------------------- storing it
    def to_json(self) -> str:
        views, scratch, rngs, _ = self._ws
        body = {
            "format": FORMAT, "version": FORMAT_VERSION, "rules": self.rules.to_dict(),
            "state": self._st.tolist(), "views": views.tolist(), "scratch": scratch.tolist(),
            "rngs": [str(int(x)) for x in rngs.ravel()],
        }
        return json.dumps({**body, "digest": _digest(body)})

    @classmethod
    def from_json(cls, text: str | bytes, where: str = "state") -> "State":
        """A state stored by ``to_json``, or StateError naming ``where`` (a file name) and what is wrong."""
        from tractor_sim.rules import files

        if isinstance(text, (bytes, bytearray)):
            text = files.decode(bytes(text), where, "state JSON", StateError)
        if not isinstance(text, str):
            raise StateError(f"{where}: expected the JSON text of a state, got {type(text).__name__}")
        data = files.parse_json(text, where, f"{FORMAT} object (State.to_json) in JSON", StateError, None)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StateError(f"{where}: not a {FORMAT} object")
        if data.get("version") != FORMAT_VERSION:
            raise StateError(f"{where}: {FORMAT} version {data.get('version')!r}: this code reads version "
                             f"{FORMAT_VERSION}")
        body = {k: v for k, v in data.items() if k != "digest"}
        if data.get("digest") != _digest(body):
            raise StateError(f"{where}: damaged or edited: its content does not match its digest (a state is "
                             "read back only as State.to_json wrote it)")
        try:
            rules = Rules.from_dict(data["rules"])
            ws = D.new_workspace(rules.encode())
            st = np.array(data["state"], dtype=np.int64)
            views = np.array(data["views"], dtype=np.int64)
            scratch = np.array(data["scratch"], dtype=np.float64)
            rngs = np.array([int(x) for x in data["rngs"]], dtype=np.uint64).reshape(ws[2].shape)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise StateError(f"{where}: not a state of this version ({type(e).__name__}: {e})") from None
        if st.shape != (ST.STATE_SIZE,):
            raise StateError(f"{where}: state: {st.shape} values, expected {ST.STATE_SIZE}")
        if views.shape != ws[0].shape or scratch.shape != ws[1].shape:
            raise StateError(f"{where}: views or scratch of the wrong shape")
        ws[0][...] = views
        ws[1][...] = scratch
        ws[2][...] = rngs
        return cls(rules, st, ws)


RESULT_FIELDS = ("starter", "decl_team", "trump_rank", "trump_suit", "trump_source", "redeals", "kitty_points",
                 "trick_points", "kitty_bonus", "throw_penalty", "failed_throws", "last_winner", "opp_points", "row",
                 "keep", "gain", "next_starter", "dealer")
D_ERRORS = {PH.ERR_DECLARE: "an illegal declaration", PH.ERR_DISCARD: f"an illegal burial ({KITTY} cards held)",
            PH.ERR_LEAD: "an illegal lead (cards held, of one suit)", PH.ERR_FOLLOW: "an illegal follow",
            PH.ERR_REDEALS: "too many redeals", PH.ERR_BID: "an illegal bid", PH.ERR_STATE: "no such decision now"}


def _decode(turn: Turn, ret: int, out) -> object:
    """A strategy's answer (return value and buffer) in this API's form (the inverse of _encode)."""
    if turn.decision == "declare":
        if ret == 0:
            return None
        kind, card = int(out[0]), int(out[1])
        if not 0 <= card < CARDS:
            return [f"#{card}"]  # not a card: apply() says so
        return [K.card_str(card)] * (1 if kind == SINGLE else PAIR)
    if turn.decision == "bid" and turn.step == "bid":
        return int(out[0])
    if turn.decision == "bid" and turn.step == "trump":
        return K.SUITS[int(out[0])] if 0 <= out[0] < SUITS else f"#{int(out[0])}"
    if (out < 0).any():
        return [f"-{K.card_str(c)}" for c in range(CARDS) if out[c] < 0]
    return [K.card_str(c) for c in K.from_counts(out)]


def _declaration_kind(ids) -> int | None:
    if len(ids) == 1 and ids[0] < K.BJ:
        return SINGLE
    if len(ids) == PAIR and ids[0] == ids[1]:
        return JOKER_PAIR if ids[0] >= K.BJ else KIND_PAIR
    return None


def _declaration_options(hand):
    for c in range(CARDS):
        if c < K.BJ and hand[c] >= 1:
            yield [c]
        if hand[c] >= PAIR:
            yield [c, c]


def _sub_multisets(counts, n):
    """Every multiset of n cards within ``counts``, as sorted card-id lists, in lexicographic order."""
    cards = [c for c in range(len(counts)) if counts[c] > 0]

    def rec(i, left):
        if left == 0:
            yield []
            return
        if i == len(cards):
            return
        c = cards[i]
        for k in range(min(int(counts[c]), left), -1, -1):
            for rest in rec(i + 1, left - k):
                yield [c] * k + rest

    yield from rec(0, n)


@functools.lru_cache(maxsize=64)
def _builtin_policy(policy):
    """A policy named without plug-in modules, resolved once: stepping a deal asks it at every decision,
    and a built-in cannot change within a process (a plug-in file can: those, and policy tables, are
    resolved at each call)."""
    from tractor_sim.runs import engine

    return engine.resolve_policies((policy, policy), ())[:2]
