"""Players written in plain Python, and outside bots: policies that are not compiled strategies.

A *Python policy* is a callable registered with ``@python_policy("name")``; it is asked
``fn(decision)`` at each decision of its seats and returns an answer in the step API's form
(tractor_sim.play.game: ``["AS"]``, ``["KH", "KH"]``, ``None`` to pass a declaration, a bid's
points, a suit letter, Finding Friends' calls).  ``decision`` (a ``Decision``) holds the seat, the
decision, the seat's view as named fields (``View``: built from the seat's view array only, so
nothing of the other hands reaches it), the legal answers (``legal()``, ``is_legal()``), what a
compiled policy would answer from the same view (``ask("expert")``), the policy's parameters and a
random stream keyed to the seed, the deal and the seat.

A *process bot* is a program speaking the JSON Lines protocol of docs/bots.md over its stdin and
stdout (tractor_sim.play.bots), registered with ``process_policy("name", command=[...])`` or named
inline as ``{"policy": "process", "command": [...]}``.

Both play in every command: a chunk whose policies include one is played deal by deal through the
step API (tractor_sim.play.stepped) on the engine's own deals, the compiled seats answering with
their compiled strategies, so the records are those the engine would write.
"""

from __future__ import annotations

import difflib
import inspect
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from tractor_sim.rules import cards as K

PROCESS = "process"  # the base policy name of an inline process bot


class PlayerError(ValueError):
    """A bad Python policy or bot registration or table; the message names it."""


@dataclass(frozen=True)
class PlayerInfo:
    """A registered Python policy (``fn``) or process bot (``command``)."""

    name: str
    kind: str  # "python" or "process"
    fn: Callable | None = None
    command: tuple = ()
    params: dict = field(default_factory=dict)
    timeout: float = 5.0  # process bots: seconds per answer
    description: str = ""
    source: str = ""  # the module file that registered it (loaded again in a worker)

    def describe(self) -> str:
        if self.kind == "python":
            return f"Python policy {self.name!r} ({self.source or getattr(self.fn, '__module__', '?')})"
        return f"process bot {self.name!r} ({' '.join(self.command)})"



class PlayerFailed(Exception):
    """A player's answer could not be had (it raised, crashed, hung, lied): the message says how;
    tractor_sim.play.stepped adds the deal and the seat."""


class PythonSession:
    """A Python policy answering the decisions of one chunk."""

    def __init__(self, info: PlayerInfo, spec):
        self.info, self.seed = info, spec.seed
        self._rngs: dict = {}
        self._deal = None

    def describe(self) -> str:
        return self.info.describe()

    def answer(self, state, turn, deal_id):
        if deal_id != self._deal:
            self._rngs.clear()
            self._deal = deal_id
        decision = Decision(state, turn, self.info.params, deal_id, self._rngs, (self.seed, deal_id, turn.seat))
        try:
            return self.info.fn(decision)
        except Exception as e:  # noqa: BLE001 - any failure of the user's code is named
            where = _last_frame(e)
            raise PlayerFailed(f"raised {type(e).__name__}: {e}{where}") from None

    def close(self) -> None:
        pass


def _last_frame(e: BaseException) -> str:
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb is not None else ""


_PLAYERS: dict[str, PlayerInfo] = {}


def _caller_source(fn=None) -> str:
    try:
        return os.path.abspath(inspect.getsourcefile(fn) or "") if fn is not None else ""
    except TypeError:
        return ""


def python_policy(name: str, params: dict | None = None, description: str = "", taken=()) -> Callable:
    """Register the decorated callable ``fn(decision) -> answer`` as policy ``name``.

    ``params``: name -> default, handed over as ``decision.params`` (a policy table's
    ``params = {"x": 1}`` overrides them, so ``tune`` can move them)."""
    _check_name(name, taken)
    table = _numbers(params, f"Python policy {name!r}")

    def register(fn):
        if not callable(fn):
            raise PlayerError(f"Python policy {name!r}: not a callable: {fn!r}")
        _register(PlayerInfo(name, "python", fn=fn, params=table,
                             description=description or " ".join((fn.__doc__ or "").strip().split("\n\n")[0].split()),
                             source=_caller_source(fn)))
        return fn

    return register


def process_policy(name: str, command, timeout: float = 5.0, params: dict | None = None,
                   description: str = "", taken=(), source: str = "") -> PlayerInfo:
    """Register a process bot: ``command`` (a list: the program and its arguments) speaks docs/bots.md;
    ``timeout`` seconds per answer."""
    _check_name(name, taken)
    info = PlayerInfo(name, "process", command=_command(command, f"process bot {name!r}"),
                      timeout=_timeout(timeout, f"process bot {name!r}"),
                      params=_numbers(params, f"process bot {name!r}"), description=description,
                      source=source)
    _register(info)
    return info


def _register(info: PlayerInfo) -> None:
    """Record a player; the registry (tractor_sim.play.registry.python_policy, process_policy) has
    checked that no compiled policy has its name."""
    if info.name == PROCESS:
        raise PlayerError(f"{PROCESS!r} names inline bots: choose another name")
    old = _PLAYERS.get(info.name)
    if old is not None and (old.source, old.kind) != (info.source, info.kind):
        raise PlayerError(f"policy {info.name!r} is already registered by {old.source or old.kind}")
    _PLAYERS[info.name] = info


def _check_name(name, taken=()) -> None:
    if not isinstance(name, str) or not name:
        raise PlayerError(f"a policy name must be a non-empty string, got {name!r}")
    if name in taken:
        raise PlayerError(f"policy {name!r} is already a compiled policy's name")


def _numbers(params, where: str) -> dict:
    out = {}
    for k, v in dict(params or {}).items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise PlayerError(f"{where}: parameter {k!r} must be a number, got {v!r}")
        out[str(k)] = float(v)
    return out


def _command(command, where: str) -> tuple:
    if isinstance(command, str) or not isinstance(command, (list, tuple)) or not command \
            or not all(isinstance(c, str) and c for c in command):
        raise PlayerError(f"{where}: command must be a list of strings (the program, then its arguments), "
                          f"got {command!r}")
    return tuple(command)


def _timeout(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise PlayerError(f"{where}: timeout must be seconds in (0, 3600], got {value!r}")
    return float(value)


def is_player(spec) -> bool:
    """Whether a policy spec names a Python policy or a process bot (not a compiled policy)."""
    if isinstance(spec, str):
        return spec in _PLAYERS
    if isinstance(spec, dict):
        base = spec.get("policy")
        return base == PROCESS or (isinstance(base, str) and base in _PLAYERS)
    return False


PLAYER_KEYS = ("policy", "name", "params", "description", "command", "timeout")


def lookup(spec) -> tuple[str, PlayerInfo]:
    """(display name, the PlayerInfo with the table's overrides) of a player spec."""
    if isinstance(spec, str):
        return spec, _PLAYERS[spec]
    for key in spec:
        if key not in PLAYER_KEYS:
            close = difflib.get_close_matches(str(key), PLAYER_KEYS, n=1)
            raise PlayerError(f"unknown key {key!r} of a Python policy or bot table"
                              f"{f' (did you mean {close[0]!r}?)' if close else ''}")
    base = spec["policy"]
    if base == PROCESS:
        if "command" not in spec:
            raise PlayerError('a process bot table needs command = ["program", "arg", ...]')
        name = spec.get("name") or "process"
        info = PlayerInfo(name, "process", command=_command(spec["command"], f"process bot {name!r}"),
                          timeout=_timeout(spec.get("timeout", 5.0), f"process bot {name!r}"))
    else:
        info = _PLAYERS[base]
        name = spec.get("name") or base
        if "command" in spec or "timeout" in spec:
            if info.kind != "process":
                raise PlayerError(f"policy {name!r}: command and timeout belong to process bots")
            info = PlayerInfo(name, "process", command=_command(spec.get("command", info.command), name),
                              timeout=_timeout(spec.get("timeout", info.timeout), name), params=info.params,
                              source=info.source)
    params = dict(info.params)
    for k, v in _numbers(spec.get("params"), f"policy {name!r}").items():
        if k not in params:
            raise PlayerError(f"unknown parameter {k!r} of policy {name!r}"
                              f"{' (it has ' + ', '.join(params) + ')' if params else ' (it has no parameters)'}")
        params[k] = v
    return name, PlayerInfo(name, info.kind, info.fn, info.command, params, info.timeout, info.description,
                            info.source)


def list_players() -> list[PlayerInfo]:
    return [_PLAYERS[n] for n in sorted(_PLAYERS)]


# ---------------------------------------------------------------- what a player is shown


class View:
    """A seat's view as named fields, read from the seat's view array only (kernels/view.py):
    what a compiled strategy of the seat could read, no more.  ``to_dict()`` is the ``view`` object of
    the bot protocol (docs/bots.md)."""

    def __init__(self, game, array: np.ndarray):
        self.game, self.array = game, array
        self._view, self._d = game.kernels.view, game.dims

    def _m(self, name: str, k: int = 0) -> int:
        V = self._view
        return int(self.array[V.V_META, getattr(V, name) + k])

    def _cards(self, row) -> list[str]:
        return [K.card_str(c) for c in K.from_counts(np.maximum(row, 0))]

    @property
    def seat(self) -> int:
        return self._m("M_SEAT")

    @property
    def hand(self) -> list[str]:
        return self._cards(self.array[self._view.V_HAND])

    def suit_of(self, card: str) -> str:
        """A card's effective suit under the current trump: S, H, D, C or T (trumps)."""
        return "SHDCT"[int(self.array[self._view.V_EFF, K.parse_card(card)])]

    @property
    def hand_by_suit(self) -> dict:
        out = {s: [] for s in "SHDCT"}
        for c in self.hand:
            out[self.suit_of(c)].append(c)
        return out

    @property
    def trump_rank(self):
        r = self._m("M_TRUMP_RANK")
        return K.RANKS[r] if 0 <= r < 13 else None

    @property
    def trump_suit(self):
        s = self._m("M_TRUMP_SUIT")
        return None if s < 0 else "none" if s >= 4 else K.SUITS[s]

    @property
    def levels(self) -> list[str]:
        """Each team's level (Finding Friends: each player's), as rank names."""
        if self.game.friends:
            V = self._view
            return [K.RANKS[int(x)] for x in self.array[V.V_FRIENDS, V.FV_LEVEL:V.FV_LEVEL + self._d.SEATS]]
        return [K.RANKS[self._m("M_LEVEL0", t)] for t in range(2)]

    def _opt(self, name):
        v = self._m(name)
        return None if v < 0 else v

    @property
    def starter(self):
        return self._opt("M_STARTER")

    @property
    def declaring_team(self):
        return self._opt("M_DECL_TEAM")

    @property
    def trick_number(self) -> int:
        return self._m("M_TRICK")

    @property
    def leader(self) -> int:
        return self._m("M_LEADER")

    @property
    def trick(self) -> list[dict]:
        """The current trick's plays so far, in order from its leader."""
        V, seats = self._view, self._d.SEATS
        n = self._m("M_NPLAYED") if self._m("M_DECISION") in (V.LEAD, V.FOLLOW) else 0
        return [{"seat": (self.leader + i) % seats, "cards": self._cards(self.array[V.V_TRICK + (self.leader + i) % seats])}
                for i in range(n)]

    @property
    def lead_size(self) -> int:
        """Cards led in the current trick (what a follow must match)."""
        return self._m("M_LEAD_N")

    @property
    def winning(self) -> int:
        return self._m("M_WINNING")

    @property
    def played(self) -> list[list[str]]:
        """The cards each seat has played so far this deal."""
        return [self._cards(self.array[self._view.V_PLAYED + s]) for s in range(self._d.SEATS)]

    @property
    def points(self) -> int:
        """The points of the side that does not declare (tricks and penalties) so far."""
        return self._m("M_OPP_POINTS")

    @property
    def trick_points(self) -> int:
        return self._m("M_TRICK_POINTS")

    @property
    def tricks(self) -> list[dict]:
        V = self._view
        return [{"leader": int(self.array[V.V_TRICK_LEADER, t]), "winner": int(self.array[V.V_TRICK_WINNER, t]),
                 "points": int(self.array[V.V_TRICK_POINTS, t])} for t in range(self._m("M_TRICKS_DONE"))]

    @property
    def buried(self) -> list[str]:
        return self._cards(self.array[self._view.V_BURIED])

    @property
    def declaration(self):
        """The standing declaration: {"seat", "card"}, or None."""
        seat = self._m("M_DECL_SEAT")
        if seat < 0 or self._m("M_DECL_KIND") == 0:
            return None
        return {"seat": seat, "card": K.card_str(self._m("M_DECL_CARD"))}

    @property
    def drawn(self) -> int:
        return self._m("M_DRAWN")

    @property
    def bids(self) -> list:
        return [None if b < 0 else b for b in (self._m("M_BID0", t) for t in range(2))]

    @property
    def calls(self) -> list[dict]:
        """Finding Friends: the landlord's calls ({"card", "copy", "seat"}: seat None until played)."""
        if not self.game.friends:
            return []
        V, row = self._view, self.array[self._view.V_FRIENDS]
        out = []
        for j in range(self._d.CALLS):
            card = int(row[V.FV_CALL_CARD + j])
            if card >= 0:
                seat = int(row[V.FV_CALL_SEAT + j])
                out.append({"card": K.card_str(card), "copy": int(row[V.FV_CALL_COPY + j]),
                            "seat": None if seat < 0 else seat})
        return out

    FIELDS = ("seat", "hand", "hand_by_suit", "trump_rank", "trump_suit", "levels", "starter", "declaring_team",
              "trick_number", "leader", "trick", "lead_size", "winning", "played", "points", "trick_points",
              "tricks", "buried", "declaration", "drawn", "bids", "calls")

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.FIELDS}

    def __repr__(self) -> str:
        return f"View(seat {self.seat}, hand {' '.join(self.hand)})"


class Decision:
    """One decision put to a Python policy: ``seat``, ``decision`` (declare, discard, lead, follow, bid,
    call), ``step`` (the auction's bid, show or trump), ``view`` (the seat's View), ``params``,
    ``rng`` (a numpy Generator keyed to the seed, the deal and the seat), ``deal_id``,
    ``legal(limit)`` and ``is_legal(answer)`` (the engine's checks), ``ask(policy)``."""

    __slots__ = ("seat", "decision", "step", "view", "params", "deal_id", "_state", "_rngs", "_rng_key")

    def __init__(self, state, turn, params, deal_id, rngs: dict, rng_key):
        self._state = state
        self.seat, self.decision, self.step = turn.seat, turn.decision, turn.step
        self.view = View(state.game, state.observation(turn.seat))
        self.params, self.deal_id = params, deal_id
        self._rngs, self._rng_key = rngs, rng_key

    @property
    def rng(self) -> np.random.Generator:
        """The seat's stream for this deal (the same Generator at each of its decisions)."""
        rng = self._rngs.get(self._rng_key)
        if rng is None:
            rng = self._rngs[self._rng_key] = np.random.default_rng(self._rng_key)
        return rng

    def legal(self, limit: int = 10_000) -> list:
        """The legal answers, at most ``limit`` (leads, follows and burials can be very many)."""
        return self._state.legal(limit)

    def is_legal(self, answer) -> bool:
        return self._state.is_legal(answer)

    def ask(self, policy="basic", modules=()):
        """What a registered compiled policy would answer here, from this seat's own view, scratch and
        random stream (as the engine would run it): to delegate the decisions you do not write."""
        return self._state.answer_of(policy, modules)

    def __repr__(self) -> str:
        return f"Decision(seat {self.seat}, {self.decision}{'/' + self.step if self.step else ''})"


__all__ = ["PlayerFailed", "PythonSession", "python_policy", "process_policy", "PlayerInfo", "PlayerError", "View", "Decision", "is_player",
           "lookup", "list_players", "PROCESS"]
