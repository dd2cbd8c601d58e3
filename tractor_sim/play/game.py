"""``Game`` and ``State``: this game at this size under these rules, and a deal of it stopped at a decision.

Everything that depends on the game size goes through a Game (as in
OpenSpiel, where a game makes its states): its compiled package
(``tractor_sim.core`` for 4 players and 2 decks, a copy for any other size:
tractor_sim.play.packages), the kernels and dimensions of that package, the
columns of its deal and match records, the names of its errors, its
policies compiled for it, its chunks of deals (tractor_sim.play.chunks) and
``new_initial_state()``.  The engine, the step API, the environments, the
referee and the viewer all take a Game, so none of them binds the 4-player
constants by accident.  A Game is cheap: nothing compiles until a kernel is
first called.

``State`` is a deal stopped at a decision, in the shape of OpenSpiel's
``State``: ``to_act()`` says who decides what, ``legal()`` lists the legal
answers (with a limit: throws, follows and burials can be very many),
``is_legal(answer)`` checks one, ``apply(answer)`` carries it out with the
engine's own checks (kernels.phases), ``clone()`` copies, ``observation(seat)``
is the seat's view (the array a strategy gets), ``result()`` the deal's
record once it is over, ``play_out(a, b)`` plays it to its end with
registered policies (compiled, no Python per decision), and
``to_json()``/``from_json()`` store it, with the engine's compiled phase
functions of its Game's size doing every step.

Answers are cards in the notation of ``tractor_sim.rules.cards`` (``"AS"``,
``["KH", "KH"]``), except a bid (points, an int), the named trump suit
(``"S"``, ``"H"``, ``"D"`` or ``"C"``) and Finding Friends' calls (a list of
``{"card": "AS", "copy": 2}``, one per call); a pass on a declaration is
``None`` or ``[]``.  A declaration is the identical cards shown: one or two
with two decks, up to one per deck with more (docs/decisions.md 9.8).

A State started with the engine's seed and deal id is the engine's deal:
stepping it with the policies' own answers gives the engine's records.
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass

import numpy as np

from tractor_sim.play import chunks, packages
from tractor_sim.play.errors import IllegalAnswer
from tractor_sim.play.legal import declaration_options, sub_multisets
from tractor_sim.rules import cards as K
from tractor_sim.rules import sizes
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING, Rules, as_rules


@dataclass(frozen=True, eq=False)
class Game:
    """A game size (players, decks, team mode) and its rule options."""

    size: sizes.GameSize
    rules: Rules

    @staticmethod
    def of(size=None, rules=None) -> "Game":
        """The Game of ``size`` (a GameSize, a (players, decks, teams) tuple, a table or None for
        4/2) under ``rules`` (Rules, a dict or None for the defaults); one object per pair."""
        rules = as_rules(rules)
        return _game(sizes.as_size(size), tuple(sorted(rules.to_dict().items())))

    # ---------------------------------------------------------------- the compiled package
    @functools.cached_property
    def package(self):
        """The compiled package of this size (imported; its kernels compile on first call)."""
        return packages.compiled_package(self.size)

    @property
    def kernels(self):
        return self.package.kernels

    def kernel(self, name: str):
        """A kernel module of this size's package by name (``"sampler"``, ``"search_play"``), imported
        on first use: the modules a run does not need are not compiled."""
        return packages.import_compiled(f"{self.package.__name__}.kernels.{name}")

    @property
    def dims(self):
        """The size's dimensions (kernels/dims.py of its package: SEATS, DECKS, KITTY, HAND, ...)."""
        return self.package.kernels.dims

    @functools.cached_property
    def encoded(self) -> np.ndarray:
        """The rule options as the kernels read them."""
        return self.rules.encode()

    @property
    def players(self) -> int:
        return self.size.players

    @property
    def friends(self) -> bool:
        """Finding Friends: the landlord calls his friends, a level per player (docs/decisions.md 9.11)."""
        return self.size.teams == "friends"

    @property
    def auction(self) -> bool:
        return int(self.encoded[R_DECLARING]) == DECLARING_AUCTION

    @property
    def level_holders(self) -> int:
        """Who holds a level: every player in Finding Friends, else each of the two teams."""
        return self.players if self.friends else 2

    # ---------------------------------------------------------------- records
    @functools.cached_property
    def columns(self) -> dict:
        """Deal record column -> (dtype, column of the kernel's deal rows) (docs/records.md)."""
        from tractor_sim.play import columns

        return columns.of(self)

    @functools.cached_property
    def deal_dtype(self) -> np.dtype:
        return np.dtype([(name, dt) for name, (dt, _) in self.columns.items()])

    @functools.cached_property
    def match_dtype(self) -> np.dtype:
        """A tractor game's match records; in Finding Friends the players who won (``winners``, a bit
        mask of seats) and every player's final level."""
        if not self.friends:
            return np.dtype([("match_id", "int64"), ("winner", "int8"), ("deals", "int32"),
                             ("level0_final", "int8"), ("level1_final", "int8")])
        return np.dtype([("match_id", "int64"), ("winners", "int16"), ("deals", "int32")]
                        + [(f"level{s}_final", "int8") for s in range(self.players)])

    @functools.cached_property
    def error_names(self) -> dict:
        """Kernel error code -> what went wrong, in words (the one table: engine and step API)."""
        PH = self.kernels.phases
        return {PH.ERR_DECLARE: "an illegal declaration",
                PH.ERR_DISCARD: f"an illegal burial ({self.dims.KITTY} cards held)",
                PH.ERR_LEAD: "an illegal lead (cards held, of one suit)", PH.ERR_FOLLOW: "an illegal follow",
                PH.ERR_REDEALS: "too many redeals (nobody ever declares)", PH.ERR_BID: "an illegal bid",
                PH.ERR_STATE: "no such decision now",
                PH.ERR_CALL: f"an illegal call (Finding Friends: {self.dims.CALLS} card(s), none a joker or of "
                             f"the trump rank, each with a copy 1..{self.dims.DECKS})"}

    def error_name(self, code: int) -> str:
        return self.error_names.get(int(code), f"error {int(code)}")

    # ---------------------------------------------------------------- policies and play
    @property
    def idle_decisions(self) -> tuple:
        """The decisions this game never reaches, whose strategies need not compile: the bid without
        the auction, the call outside Finding Friends."""
        return (() if self.auction else ("bid",)) + (() if self.friends else ("call",))

    def resolve(self, policies, modules=()):
        """(resolved policies, params[team, decision, :], the kernel's tuple of strategy functions)
        for team 0's and team 1's policy specs, compiled for this size (the idle decisions' functions
        a placeholder: nothing of this game asks them)."""
        from tractor_sim.play.registry import resolve_policies

        return resolve_policies(policies, modules, None if self.size.standard else self.package,
                                self.idle_decisions)

    def play_chunk(self, spec, log_id: int = -1, log_rows: int | None = None):
        """Play one chunk of deals or matches (a tractor_sim.play.chunks.ChunkSpec of this game) in its
        compiled kernels; a ChunkResult."""
        return chunks.play(self, spec, log_id, log_rows)

    def new_initial_state(self, seed: int = 0, deal_id: int = 0, **kwargs):
        """Deal ``deal_id`` of a run with root ``seed``, stopped at its first decision
        (State.new: levels, declaring team, starter, a match's first round)."""
        return State.new(seed=seed, deal_id=deal_id, game=self, **kwargs)

    def describe(self) -> str:
        return f"{self.size.label} under {'default rules' if self.rules == Rules() else 'set rules'}"


@functools.lru_cache(maxsize=64)
def _game(size: sizes.GameSize, rules: tuple) -> Game:
    return Game(size, Rules.from_dict(dict(rules)))


def as_game(game=None, rules=None) -> Game:
    """A Game from a Game (returned as it is when no rules are given), a size or None (4/2)."""
    if isinstance(game, Game):
        return game if rules is None else Game.of(game.size, rules)
    return Game.of(game, rules)


FORMAT = "tractor-sim-state"
FORMAT_VERSION = 3  # 3: the game (size), the deal's ids and levels, sealed by a digest (2: 4/2 only, no seal)
DECISION_NAMES = ("declare", "discard", "lead", "follow", "bid", "call")  # kernels.view.DECISIONS


class StateError(ValueError):
    """A state JSON that is not one this code wrote (damaged, edited, another version); the message says how."""


def _digest(body: dict) -> str:
    """The seal of a stored state: SHA-256 of its canonical JSON. The compiled kernels index their
    arrays by the state's own values without bounds checks, so a state is taken back only as written."""
    import hashlib

    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Turn:
    """Whose decision is next and which; ``step`` tells the auction's steps apart."""

    seat: int
    decision: str
    step: str | None = None  # the auction: "bid", "show" or "trump"


@dataclass(frozen=True)
class DealIds:
    """Which deal of a run a State is, as the engine's record names it."""

    deal_id: int
    match_id: int = -1  # -1: a fixed-levels deal
    deal_in_match: int = 0


def _level(value) -> int:
    if isinstance(value, str):
        return K.parse_rank(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"a level is 0..12 (2..A) or a rank name, got {value!r}")
    value = int(value)
    if not 0 <= value <= 12:
        raise ValueError(f"a level is 0..12 (2..A) or a rank name, got {value}")
    return value


class State:
    """One deal of a Game, stopped at a decision (or over).  Build it with ``Game.new_initial_state``
    or ``State.new``."""

    def __init__(self, game: Game, st, ws, ids: DealIds, levels):
        self.game = game
        self.rules = game.rules
        self._k = game.kernels
        self._d = game.dims
        self._enc = game.encoded
        self._st = st
        self._ws = ws
        self._ids = ids
        self._levels = np.asarray(levels, dtype=np.int64)
        self._err = np.zeros(self._k.phases.ERR_SIZE, dtype=np.int64)
        self._nolog = np.zeros((1, self._k.deal.LOG_COLS), dtype=np.int64)

    # ---------------------------------------------------------------- making one
    @classmethod
    def new(cls, seed: int = 0, deal_id: int = 0, rules=None, levels=None, declaring_team: int = 0,
            starter: int | None = None, round1: bool = False, deal_in_match: int = 0, game=None,
            log=None) -> "State":
        """Deal ``deal_id`` of a run with root ``seed`` (the engine's deal when ``starter`` is None and
        ``deal_in_match`` 0: fixed levels).  In round 1 of a match (``round1``, deal ``deal_in_match``
        of match ``deal_id``) the draw decides the declarer.  Levels are 0..12 or rank names, one per
        team (in Finding Friends one per player, or one for everybody); None: all at 2."""
        game = as_game(game, rules)
        dims, PH = game.dims, game.kernels.phases
        if not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed must be 0 .. 2**64-1, got {seed}")
        if not 0 <= int(deal_id) < 2**63:
            raise ValueError(f"deal_id must be 0 .. 2**63-1, got {deal_id}")
        if declaring_team not in range(dims.TEAMS):
            raise ValueError(f"declaring_team must be 0 or 1, got {declaring_team}")
        holders = game.level_holders
        levels = [0] * holders if levels is None else list(levels)
        if game.friends and len(levels) == 1:
            levels = levels * holders
        lv = np.array([_level(x) for x in levels], dtype=np.int64)
        if lv.shape != (holders,):
            raise ValueError(f"levels: one per {'player' if game.friends else 'team'} ({holders}), got {levels}")
        if starter is None:
            starter = 0 if round1 else int(game.kernels.match.fixed_starter(
                np.uint64(seed), np.int64(deal_id), np.int64(declaring_team), game.auction,
                np.zeros(1, dtype=np.uint64)))
        if starter not in range(dims.SEATS):
            raise ValueError(f"starter must be a seat 0..{dims.SEATS - 1}, got {starter}")
        if not (game.auction or game.friends or round1) and starter % dims.TEAMS != declaring_team:
            raise ValueError(f"the starter (seat {starter}) must be of the declaring team {declaring_team}")
        D = game.kernels.deal
        st, ws = D.new_state(), D.new_workspace(game.encoded)
        in_match = round1 or deal_in_match > 0
        ids = DealIds(int(deal_id) * game.kernels.match.MAX_DEALS_PER_MATCH + int(deal_in_match), int(deal_id),
                      int(deal_in_match)) if in_match else DealIds(int(deal_id))
        state = cls(game, st, ws, ids, lv)
        if log is not None:  # the chunk's event log (kernels.deal LOG_*): this deal's events go there
            state._nolog = log
        code = PH.start(st, ws, game.encoded, state._err, state._nolog, np.uint64(seed), np.int64(deal_id),
                        np.int64(deal_in_match), bool(round1), lv, np.int64(declaring_team), np.int64(starter))
        if code != PH.ERR_NONE:
            raise ValueError(f"deal {deal_id} cannot start: {game.error_name(code)}")
        return state

    @classmethod
    def from_record(cls, rec: dict, upto: int | None = None) -> "State":
        """The deal of a deal record (tractor_sim.play.record) with its decisions applied, the first ``upto``
        of them (all when None): a recorded deal continues from any of its decisions.  A record that
        does not fit the state it makes (another engine, a tampered file) raises ValueError naming
        the decision."""
        from tractor_sim.play.record import actions

        g = rec.get("game") or {}
        game = Game.of((g.get("players", 4), g.get("decks", 2), g.get("teams", "tractor")), rec["rules"])
        MAX = game.kernels.match.MAX_DEALS_PER_MATCH
        deal_id, key, in_match, round1, starter = rec["deal_id"], rec["deal_id"], 0, False, None
        if rec["mode"] == "match":
            key, in_match = divmod(deal_id, MAX)
            round1 = in_match == 0
            if game.auction and "dealer" not in rec:
                raise ValueError(f"record deal {deal_id}: a match deal under the auction needs its dealer")
            starter = rec.get("dealer") if game.auction else 0 if round1 else rec["starter"]
        elif game.friends:
            starter = rec["starter"]
        state = cls.new(seed=rec["seed"], deal_id=key, game=game, levels=rec["levels"],
                        declaring_team=0 if game.friends else rec["declaring_team"], starter=starter,
                        round1=round1, deal_in_match=in_match)
        todo = actions(rec)
        declares = [a for a in todo if a["type"] == "declare"]
        rest = [a for a in todo if a["type"] != "declare"]
        wanted = {"bid": "bid", "show": "show", "trump": "name", "discard": "bury", "call": "call",
                  "lead": "play", "follow": "play"}
        V = state._k.view
        step = 0
        while not state.over and (upto is None or step < upto):
            turn = state.to_act()
            if turn.decision == "declare":  # the record lists declarations made; every other chance passed
                drawn = int(state._ws[0][turn.seat, V.V_META, V.M_DRAWN])
                d = declares[0] if declares else None
                if (d is not None and d["seat"] == turn.seat and d["drawn"] == drawn
                        and int(state._st[state._k.state.S_REDEALS]) == rec["redeals"]):
                    answer = [d["card"]] * d["count"]
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
                answer = {"bid": a.get("bid"), "show": [a.get("card")], "name": a.get("suit"),
                          "call": a.get("calls")}.get(kind, a.get("cards"))
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
        return State(self.game, self._st.copy(), tuple(a.copy() for a in self._ws[:-1]) + self._ws[-1:],
                     self._ids, self._levels.copy())

    # ---------------------------------------------------------------- reading it
    @property
    def over(self) -> bool:
        return self._st[self._k.state.S_PHASE] == self._k.state.PH_DONE

    def to_act(self) -> Turn | None:
        """The seat to decide and the decision, None when the deal is over."""
        if self.over:
            return None
        ST, V = self._k.state, self._k.view
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
        ST, d = self._k.state, self._d
        return self._st[ST.HANDS:ST.HANDS + d.SEATS * d.CARDS].reshape(d.SEATS, d.CARDS)

    def _table(self):
        ST = self._k.state
        return self._ws[3][self._st[ST.S_RANK], self._st[ST.S_SUIT]]

    def trick(self) -> list[tuple[int, list[str]]]:
        """The current trick's plays so far: (seat, cards)."""
        ST, V = self._k.state, self._k.view
        views = self._ws[0]
        leader = int(self._st[ST.S_LEADER])
        if self._st[ST.S_PHASE] not in (ST.PH_LEAD, ST.PH_FOLLOW):
            return []
        out = []
        for i in range(int(self._st[ST.S_NPLAYED])):
            seat = (leader + i) % self._d.SEATS
            out.append((seat, [K.card_str(c) for c in K.from_counts(views[0, V.V_TRICK + seat])]))
        return out

    def result(self) -> dict:
        """The deal's record once it is over: the engine's columns for this game (docs/records.md),
        written by the engine's own function (kernels.match)."""
        if not self.over:
            raise ValueError("the deal is not over: result() is known after the last trick")
        M, ST, D = self._k.match, self._k.state, self._k.deal
        rows = np.zeros((1, M.DEAL_COLS), dtype=np.int64)
        M._write(rows, 0, self._ids.deal_id, self._ids.match_id, self._ids.deal_in_match, self._levels,
                 self._st[ST.RESULT:ST.RESULT + D.D_FIELDS])
        return {name: int(rows[0, col]) for name, (_, col) in self.game.columns.items()}

    # ---------------------------------------------------------------- answers
    def _encode(self, answer) -> tuple[int, np.ndarray]:
        """(the strategy's return value, its answer buffer) for a Python answer to the pending decision."""
        turn = self.to_act()
        if turn is None:
            raise IllegalAnswer("the deal is over: nothing to answer")
        dims = self._d
        out = np.zeros(dims.CARDS, dtype=np.int64)
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
        if d == "call":
            return self._encode_calls(turn, answer, out)
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
            if len(set(ids)) != 1 or len(ids) > dims.DECKS:
                raise IllegalAnswer(f"seat {turn.seat} declares: up to {dims.DECKS} identical cards of the trump "
                                    f"rank or jokers, got {K.cards_str(ids)}")
            out[:] = 0
            out[0] = self._k.declare.kind_of(len(ids), ids[0])
            out[1] = ids[0]
            out[self._k.declare.ANS_COUNT] = len(ids)
            return 1, out
        return len(ids), out

    def _encode_calls(self, turn, answer, out):
        """Finding Friends' calls: out[j] the card of call j, out[CALLS + j] its copy (kernels.friends)."""
        calls = self._d.CALLS
        if not isinstance(answer, (list, tuple)) or len(answer) != calls:
            raise IllegalAnswer(f"seat {turn.seat} calls: a list of {calls} calls "
                                f'({{"card": "AS", "copy": 1}}), got {answer!r}')
        for j, call in enumerate(answer):
            card, copy = (call.get("card"), call.get("copy")) if isinstance(call, dict) else \
                (call if isinstance(call, (list, tuple)) and len(call) == 2 else (None, None))
            try:
                out[j] = K.parse_cards([card])[0]
            except (ValueError, TypeError):
                raise IllegalAnswer(f"seat {turn.seat} calls: call {j + 1} needs a card, got {call!r}") from None
            if isinstance(copy, bool) or not isinstance(copy, (int, np.integer)):
                raise IllegalAnswer(f"seat {turn.seat} calls: call {j + 1} needs a copy 1..{self._d.DECKS}, "
                                    f"got {call!r}")
            out[calls + j] = int(copy)
        return calls, out

    def is_legal(self, answer) -> bool:
        """Whether ``apply(answer)`` would succeed: the engine's own checks decide (one implementation),
        on a copy (so nothing needs saving)."""
        try:
            _, code = self.clone()._run(answer)
        except IllegalAnswer:  # not even an answer of the pending decision's form
            return False
        return code == self._k.phases.ERR_NONE

    def apply(self, answer) -> "State":
        """Carry out the answer to the pending decision (the engine's checks; an illegal answer raises
        IllegalAnswer and leaves the state as it was).  Returns self."""
        st, ws = self._st, self._ws
        saved = (st.copy(), tuple(a.copy() for a in ws[:-1]))
        turn, code = self._run(answer)
        if code != self._k.phases.ERR_NONE:
            st[:] = saved[0]
            for a, b in zip(ws, saved[1]):
                a[...] = b
            raise IllegalAnswer(f"seat {turn.seat} ({turn.decision}{'/' + turn.step if turn.step else ''}): "
                                f"{self.game.error_name(code)}: {answer!r}")
        return self

    def _run(self, answer):
        """Hand the answer to the engine's phase function; (the turn, its code).  On an error code the
        state may be half changed: callers restore it or throw the copy away."""
        turn = self.to_act()
        ret, out = self._encode(answer)
        ST = self._k.state
        self._st[ST.ANSWER:ST.ANSWER + self._d.CARDS] = out
        code = self._k.phases.apply(self._st, self._ws, self._enc, self._err, self._nolog,
                                    np.int64(DECISION_NAMES.index(turn.decision)), np.int64(ret))
        return turn, code

    def legal(self, limit: int = 10_000) -> list:
        """The legal answers to the pending decision, at most ``limit`` of them (in a fixed order:
        smaller plays first).  A lead may be any set of one suit's cards (a throw that fails is still
        a legal lead), so leads, follows, burials and calls are enumerated lazily and cut at the limit."""
        return list(itertools.islice(self.iter_legal(), limit))

    def iter_legal(self):
        turn = self.to_act()
        if turn is None:
            return
        dims = self._d
        seat = turn.seat
        hand = self._hands()[seat]
        if turn.decision == "declare":
            yield None
            for cards in declaration_options(hand, dims.DECKS):
                if self._declaration_ok(seat, cards):
                    yield [K.card_str(c) for c in cards]
        elif turn.decision == "bid":
            if turn.step == "bid":
                valid_bid = self._k.declare.valid_bid
                yield from (b for b in range(self._k.view.MAX_BID + 1) if valid_bid(b))  # the engine's own check
            elif turn.step == "show":
                yield from ([K.card_str(c)] for c in range(dims.CARDS) if hand[c] > 0)
            else:
                yield from K.SUITS
        elif turn.decision == "discard":
            for combo in sub_multisets(hand, dims.KITTY):
                yield [K.card_str(c) for c in combo]
        elif turn.decision == "call":
            rank = int(self._st[self._k.state.S_RANK])
            options = [{"card": K.card_str(c), "copy": k} for c in range(dims.BJ) if c % dims.RANKS != rank
                       for k in range(1, dims.DECKS + 1)]
            for combo in itertools.product(options, repeat=dims.CALLS):
                yield list(combo)
        elif turn.decision == "lead":
            tt = self._table()
            TT_EFF = self._k.order.TT_EFF
            for n in range(1, dims.HAND + dims.KITTY + 1):
                for suit in range(dims.SUITS + 1):
                    in_suit = np.where(tt[TT_EFF] == suit, hand, 0)
                    for combo in sub_multisets(in_suit, n):
                        yield [K.card_str(c) for c in combo]
        else:
            for combo in self._follows():
                yield [K.card_str(c) for c in combo]

    def _follows(self):
        """The legal follows as sorted card-id lists, in legal()'s order (the hand's multisets of the
        lead's size that the engine's check accepts).  A legal follow holds as many cards of the led
        suit as the hand can give, so only such multisets are tried: the same list, much sooner."""
        ST, V, dims = self._k.state, self._k.view, self._d
        hand = self._hands()[int(self._st[ST.S_TO_ACT])]
        n = int(self._st[ST.S_LEAD_N])
        lead = self._ws[0][0, V.V_TRICK + int(self._st[ST.S_LEADER])]
        tt = self._table()
        suit = tt[0][int(np.flatnonzero(lead)[0])]
        in_suit = np.where(tt[self._k.order.TT_EFF] == suit, hand, 0)
        m = int(in_suit.sum())
        if m >= n:
            combos = sub_multisets(in_suit, n)
        else:
            must = [c for c in range(dims.CARDS) for _ in range(int(in_suit[c]))]
            combos = (sorted(must + rest) for rest in sub_multisets(hand - in_suit, n - m))
        play = np.zeros(dims.CARDS, dtype=np.int64)
        legal_follow = self._k.combos.legal_follow
        for combo in combos:
            play[:] = 0
            for c in combo:
                play[c] += 1
            if legal_follow(hand, play, lead, tt, self._enc):
                yield combo

    def _declaration_ok(self, seat, cards):
        """The engine's check of a declaration of ``cards`` (identical) by ``seat`` now (phases)."""
        ST, DE = self._k.state, self._k.declare
        st, hand = self._st, self._hands()[seat]
        count, card = len(cards), cards[0]
        kind = DE.kind_of(count, card)
        if self._d.DECKS > self._d.PAIR:
            return bool(DE.can_declare_count(hand, kind, count, card, seat, st[ST.S_CUR_SEAT], st[ST.S_CUR_KIND],
                                             st[ST.S_CUR_COUNT], st[ST.S_CUR_CARD], st[ST.S_RANK], self._enc))
        return bool(DE.can_declare(hand, kind, card, seat, st[ST.S_CUR_SEAT], st[ST.S_CUR_KIND],
                                   st[ST.S_CUR_CARD], st[ST.S_RANK], self._enc))

    def answer_of(self, policy, modules=()):
        """What a registered policy's strategy answers to the pending decision, in this API's form.

        The strategy runs on the seat's own view, scratch memory and random stream, as in the engine
        (it may write into them), so applying its answers step by step plays the engine's deal.
        """
        turn = self.to_act()
        if turn is None:
            raise IllegalAnswer("the deal is over: nothing to answer")
        if isinstance(policy, str) and not modules:
            pols, params = _builtin_policy(self.game, policy)
        else:
            pols, params = self.game.resolve((policy, policy), modules)[:2]
        if pols[0].search is not None:  # its functions are the base policy's: answering with them would hide it
            raise ValueError(f"answer_of: {policy!r} is a search policy; its answers come from the search's own "
                             "kernel (run, compare), not from one strategy call: give its base policy")
        d = DECISION_NAMES.index(turn.decision)
        views, scratch, rngs, _ = self._ws
        ST = self._k.state
        out = self._st[ST.ANSWER:ST.ANSWER + self._d.CARDS]
        if turn.decision in ("declare", "discard", "bid", "call"):
            out[:] = 0
        ret = pols[0].functions[d](views[turn.seat], params[0, d], rngs[turn.seat], scratch[turn.seat], out)
        return self._decode(turn, int(ret), out)

    def _decode(self, turn: Turn, ret: int, out) -> object:
        """A strategy's answer (return value and buffer) in this API's form (the inverse of _encode)."""
        dims = self._d
        if turn.decision == "declare":
            if ret == 0:
                return None
            kind, card = int(out[0]), int(out[1])
            if not 0 <= card < dims.CARDS:
                return [f"#{card}"]  # not a card: apply() says so
            count = int(self._k.phases._declared_count(kind, out[self._k.declare.ANS_COUNT]))
            return [K.card_str(card)] * count
        if turn.decision == "bid" and turn.step == "bid":
            return int(out[0])
        if turn.decision == "bid" and turn.step == "trump":
            return K.SUITS[int(out[0])] if 0 <= out[0] < dims.SUITS else f"#{int(out[0])}"
        if turn.decision == "call":
            return [{"card": K.card_str(int(out[j])) if 0 <= out[j] < dims.CARDS else f"#{int(out[j])}",
                     "copy": int(out[dims.CALLS + j])} for j in range(dims.CALLS)]
        if (out < 0).any():
            return [f"-{K.card_str(c)}" for c in range(dims.CARDS) if out[c] < 0]
        return [K.card_str(c) for c in K.from_counts(out)]

    # ---------------------------------------------------------------- worlds a seat cannot tell apart
    def sample_world(self, seat: int, rng_seed: int) -> "State":
        """A world for ``seat``: this deal with the cards the seat cannot see (the other hands; the kitty
        unless it buried it) dealt again, uniformly among the deals consistent with what it knows, and
        ready to be played on (kernels.sampler: what it reads, why it is exact).  Worlds exist from the
        kitty exchange until the deal is over; ValueError outside."""
        SM, D = self.game.kernel("sampler"), self._k.deal
        if seat not in range(self._d.SEATS):
            raise ValueError(f"seat must be 0..{self._d.SEATS - 1}, got {seat}")
        world, wws = D.new_state(), D.new_workspace(self._enc)
        rng = np.array([int(rng_seed) % 2**64], dtype=np.uint64)
        if SM.sample_world(self._st, self._ws, seat, SM.new_work(), rng, world, wws) == 0:
            raise ValueError("no world to sample: worlds exist from the kitty exchange until the deal is over")
        return State(self.game, world, wws, self._ids, self._levels.copy())

    # ---------------------------------------------------------------- to the end
    def play_out(self, policy_a="basic", policy_b="basic", modules=()) -> dict:
        """Play the deal to its end with two registered policies (team 0's and team 1's), compiled;
        returns result()."""
        _, params, fns = self.game.resolve((policy_a, policy_b), modules)
        code = self._k.deal.play_from(self._st, self._ws, self._enc, params, fns, self._err, self._nolog)
        if code != self._k.phases.ERR_NONE:
            raise IllegalAnswer(f"a policy gave {self.game.error_name(code)} "
                                f"(seat {int(self._err[1])}, trick {int(self._err[3])})")
        return self.result()

    # ---------------------------------------------------------------- storing it
    def to_json(self) -> str:
        views, scratch, rngs, _ = self._ws
        size = self.game.size
        body = {
            "format": FORMAT, "version": FORMAT_VERSION, "rules": self.rules.to_dict(),
            "game": {"players": size.players, "decks": size.decks, "teams": size.teams},
            "deal": {"deal_id": self._ids.deal_id, "match_id": self._ids.match_id,
                     "deal_in_match": self._ids.deal_in_match, "levels": self._levels.tolist()},
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
            g, deal = data["game"], data["deal"]
            game = Game.of((g["players"], g["decks"], g["teams"]), Rules.from_dict(data["rules"]))
            ids = DealIds(int(deal["deal_id"]), int(deal["match_id"]), int(deal["deal_in_match"]))
            ws = game.kernels.deal.new_workspace(game.encoded)
            st = np.array(data["state"], dtype=np.int64)
            views = np.array(data["views"], dtype=np.int64)
            scratch = np.array(data["scratch"], dtype=np.float64)
            rngs = np.array([int(x) for x in data["rngs"]], dtype=np.uint64).reshape(ws[2].shape)
            levels = np.array(deal["levels"], dtype=np.int64)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise StateError(f"{where}: not a state of this version ({type(e).__name__}: {e})") from None
        size = game.kernels.state.STATE_SIZE
        if st.shape != (size,):
            raise StateError(f"{where}: state: {st.shape} values, expected {size}")
        if views.shape != ws[0].shape or scratch.shape != ws[1].shape:
            raise StateError(f"{where}: views or scratch of the wrong shape")
        if levels.shape != (game.level_holders,):
            raise StateError(f"{where}: deal.levels: one per level holder ({game.level_holders}), got {levels.tolist()}")
        ws[0][...] = views
        ws[1][...] = scratch
        ws[2][...] = rngs
        return cls(game, st, ws, ids, levels)


@functools.lru_cache(maxsize=64)
def _builtin_policy(game: Game, policy: str):
    """A policy named without plug-in modules, resolved once per game: stepping a deal asks it at
    every decision, and a built-in cannot change within a process (a plug-in file can: those, and
    policy tables, are resolved at each call)."""
    return game.resolve((policy, policy), ())[:2]


__all__ = ["Game", "as_game", "State", "StateError", "Turn", "IllegalAnswer", "DealIds", "DECISION_NAMES", "FORMAT",
           "FORMAT_VERSION"]
