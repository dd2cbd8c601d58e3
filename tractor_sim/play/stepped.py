"""A chunk played deal by deal through the step API: for chunks whose policies include a Python
policy or a process bot (tractor_sim.play.players), which no compiled kernel can call.

Each deal is the engine's deal: ``Game.new_initial_state`` with the chunk's seed and the engine's
deal id (match mode: match id, deal in match, the levels, declaring team and starter carried from
the previous deal as kernels.match carries them).  The compiled seats answer with their compiled
strategies on their own view, scratch and random stream, exactly as the kernel calls them, then
the engine's phase function applies the answer; a Python seat answers through its callable, a bot
through its process.  The rows are written by the kernel's own ``match._write``, so the records
are those the compiled engine writes (tests/test_players.py proves it on duplicate deals).
"""

from __future__ import annotations

import numpy as np

from tractor_sim.core.kernels.view import DECISIONS as DECISION_NAMES
from tractor_sim.play.bots import BotSession
from tractor_sim.play.errors import IllegalAnswer, SimulationError, replay_command
from tractor_sim.play.players import PlayerFailed, PythonSession


class PlayerFault(SimulationError):
    """A Python policy or a bot failed: raised, crashed, hung, wrote garbage or answered illegally."""


def play_chunk(game, spec, pols, params, deals, matches, log, log_id, extra) -> tuple[int, int]:
    """Play ``spec`` into the kernel-shaped rows ``deals`` and ``matches``; (deal rows, items done).
    The events of deal ``log_id`` (every deal's: match.LOG_ALL) go to ``log``, as in the kernel; a
    searching team's decisions searched and rollouts are added to ``extra`` as chunks does."""
    M = game.kernels.match
    logs = lambda ident: log if ident == log_id or log_id == M.LOG_ALL else None  # noqa: E731
    rows = []  # the analysis rows of both teams' searches, in the order of the plays (as the kernel writes them)
    searches = [_Search(game, pol, params[team], rows) if pol.search is not None else None
                for team, pol in enumerate(pols)]
    sessions = [_open(pol.player, game, spec) if pol.player is not None else None for pol in pols]
    try:
        if spec.mode == "fixed":
            return _fixed(game, spec, pols, params, sessions, searches, deals, logs)
        return _matches(game, spec, pols, params, sessions, searches, deals, matches, logs)
    finally:
        for s in sessions:
            if s is not None:
                s.close()
        for s in searches:
            if s is not None:
                extra["decisions"] = extra.get("decisions", 0) + int(s.counters[s.kernel.C_DECISIONS])
                extra["rollouts"] = extra.get("rollouts", 0) + int(s.counters[s.kernel.C_ROLLOUTS])
        if rows:
            extra.setdefault("records", []).append(np.array(rows))


class _Search:
    """A searching team's seats beside a Python policy or bot: after its base policy's answer, the
    search replaces it at the decisions its settings name, as kernels.search_play's driver does (its
    rollouts play the team's own policy at every seat, on the deal's own copy of its parameters)."""

    def __init__(self, game, pol, team_params, rows: list):
        self.kernel = game.kernel("search_play")
        self.settings = pol.search.row()
        if pol.search.train:
            raise SimulationError(f"{pol.name!r}: a search that records training rows (train) plays in compiled "
                                  "matchups only, not beside a Python policy or bot")
        if pol.search.infer != "none":  # the plays it weighs worlds by are kept by the compiled driver only
            raise SimulationError(f"{pol.name!r}: a search with infer plays in compiled matchups only, not beside "
                                  "a Python policy or bot")
        self.records = np.zeros((1, self.kernel.AR_FIELDS), dtype=np.float64)
        self.rows = rows  # the analysis rows written (record), shared by the chunk's searches
        KS, V = game.kernel("search"), game.kernels.view
        searchable = {V.LEAD, V.FOLLOW, V.DISCARD, V.DECLARE, V.BID, V.CALL}
        self.decisions = {d for d in searchable if (self.settings[KS.SS_DECISIONS] >> d) & 1}
        self.fns = tuple(pol.functions) * 2
        self.team_params = team_params
        self.counters = np.zeros(self.kernel.N_COUNTERS, dtype=np.int64)
        self.roll_params = None

    def new_deal(self):
        self.roll_params = np.ascontiguousarray(np.stack([self.team_params, self.team_params]))

    def answer(self, state, seat: int, decision: int, deal_id: int) -> int:
        """Search the pending decision, one of ``decisions`` (the base answer in the state's ANSWER
        buffer); an error code."""
        self.counters[self.kernel.C_RECORDS] = 0
        code = int(self.kernel.search_answer(state._st, state._ws, state._enc, self.roll_params, self.fns,
                                             np.int64(seat), np.int64(decision), self.settings, self.counters,
                                             self.records, np.int64(deal_id)))
        if self.counters[self.kernel.C_RECORDS]:
            self.rows.append(self.records[0].copy())
        return code


def _open(info, game, spec):
    """A session that answers the decisions of one chunk (a bot's process lives as long as it)."""
    return PythonSession(info, spec) if info.kind == "python" else BotSession(info, game, spec)


def _fixed(game, spec, pols, params, sessions, searches, deals, logs):
    M = game.kernels.match
    holders = game.level_holders
    levels = [spec.levels[spec.declaring_team]] * holders if game.friends else list(spec.levels)
    for i in range(spec.count):
        ident = spec.first_id + i
        state = game.new_initial_state(spec.seed, ident, levels=levels, declaring_team=spec.declaring_team,
                                       log=logs(ident))
        _play(state, spec, pols, params, sessions, searches, ident)
        M._write(deals, i, ident, -1, 0, state._levels, _row(state))
    return spec.count, spec.count


def _matches(game, spec, pols, params, sessions, searches, deals, matches, logs):
    kernels = game.kernels
    M, D, dims = kernels.match, kernels.deal, game.dims
    nrows = 0
    for item in range(spec.count):
        ident = spec.first_id + item
        levels = np.zeros(dims.LEVELS, dtype=np.int64)
        decl_team, starter, winner, d = 0, 0, -1, 0
        while d < M.MAX_DEALS_PER_MATCH:
            state = game.new_initial_state(spec.seed, ident, levels=levels.tolist(), declaring_team=decl_team,
                                           starter=starter, round1=d == 0, deal_in_match=d,
                                           log=logs(ident * M.MAX_DEALS_PER_MATCH + d))
            _play(state, spec, pols, params, sessions, searches, ident * M.MAX_DEALS_PER_MATCH + d)
            row = _row(state)
            M._write(deals, nrows, ident * M.MAX_DEALS_PER_MATCH + d, ident, d, levels, row)
            levels[:] = deals[nrows, M.X_LEVEL0_AFTER:M.X_LEVEL0_AFTER + dims.LEVELS]
            nrows += 1
            d += 1
            starter = int(row[D.D_NEXT_STARTER])
            if game.friends:
                decl_team = dims.team_of(starter)
                winner = int(kernels.scoring.match_winners(levels, game.encoded))
                if winner > 0:
                    break
                continue
            decl_team = int(row[D.D_DECL_TEAM]) if row[D.D_KEEP] else 1 - int(row[D.D_DECL_TEAM])
            winner = int(kernels.scoring.match_winner(levels[0], levels[1], game.encoded))
            if winner >= 0:
                break
        matches[item, M.MX_MATCH_ID] = ident
        matches[item, M.MX_WINNER] = winner
        matches[item, M.MX_DEALS] = d
        matches[item, M.MX_LEVEL0_FINAL:M.MX_LEVEL0_FINAL + dims.LEVELS] = levels
    return nrows, spec.count


def _row(state) -> np.ndarray:
    ST, D = state._k.state, state._k.deal
    return state._st[ST.RESULT:ST.RESULT + D.D_FIELDS].copy()


def _play(state, spec, pols, params, sessions, searches, deal_id) -> None:
    """Answer every decision of ``state`` until the deal is over."""
    k = state._k
    ST, PH, team_of = k.state, k.phases, k.dims.team_of
    st, (views, scratch, rngs, _) = state._st, state._ws
    answer = st[ST.ANSWER:ST.ANSWER + state._d.CARDS]
    for search in searches:
        if search is not None:
            search.new_deal()
    while not state.over:
        seat, d = int(st[ST.S_TO_ACT]), int(st[ST.S_DECISION])
        team = team_of(seat)
        session = sessions[team]
        if session is None:  # a compiled seat: its strategy on its own arrays, as the kernel calls it
            ret = pols[team].functions[d](views[seat], params[team, d], rngs[seat], scratch[seat], answer)
            if searches[team] is not None:
                ret = _search(state, searches[team], seat, d, deal_id, spec, pols[team].name, ret)
            code = PH.apply(st, state._ws, state._enc, state._err, state._nolog, np.int64(d), np.int64(ret))
            if code != PH.ERR_NONE:
                raise SimulationError(_where(state, spec, pols[team].name, seat, deal_id,
                                             f"{DECISION_NAMES[d]} strategy {pols[team].strategies[d]!r} made "
                                             f"{state.game.error_name(code)}"))
            continue
        turn = state.to_act()
        try:
            got = session.answer(state, turn, deal_id)
        except PlayerFailed as e:
            raise PlayerFault(_where(state, spec, session.describe(), seat, deal_id, str(e))) from None
        try:
            if searches[team] is None:
                _, code = state._run(got)
            else:  # the answer is the search's first candidate, then the search's answer is applied
                code = _searched(state, searches[team], got, seat, d, deal_id, spec, pols[team].name)
        except IllegalAnswer as e:
            raise PlayerFault(_where(state, spec, session.describe(), seat, deal_id, f"answered {e}")) from None
        if code != PH.ERR_NONE:
            raise PlayerFault(_where(state, spec, session.describe(), seat, deal_id,
                                     f"answered {state.game.error_name(code)}: {got!r} "
                                     f"({turn.decision}{'/' + turn.step if turn.step else ''})"))


def _searched(state, search, got, seat, d, deal_id, spec, name) -> int:
    """Apply a Python policy's or bot's answer ``got`` through its team's search: encoded into the
    answer buffer as the base's answer is in the kernel, searched (replaced, or kept and recorded),
    then applied; the phase function's code."""
    st, ST = state._st, state._k.state
    _, code = state.clone()._run(got)  # an illegal answer is the player's fault, never a candidate searched
    if code != state._k.phases.ERR_NONE:
        return code
    ret, out = state._encode(got)
    st[ST.ANSWER:ST.ANSWER + state._d.CARDS] = out
    ret = _search(state, search, seat, d, deal_id, spec, name, ret)
    return state._k.phases.apply(st, state._ws, state._enc, state._err, state._nolog, np.int64(d), np.int64(ret))


def _search(state, search, seat, d, deal_id, spec, name, ret: int) -> int:
    """The team's search at the pending decision, its base answer in the answer buffer (``ret`` what
    the base returned); the value to apply the answer with (a declaration's: 1 or 0 for the pass, as
    the kernel's driver gives it).  A run-time error naming the policy when no world fits the seat's
    knowledge."""
    if d not in search.decisions:
        return ret
    answer = state._st[state._k.state.ANSWER:state._k.state.ANSWER + state._d.CARDS]
    declare = d == state._k.view.DECLARE
    if declare and ret == 0:
        answer[:] = 0  # a pass: the candidate row of the pass
    if search.answer(state, seat, d, deal_id) != state._k.phases.ERR_NONE:
        raise SimulationError(_where(state, spec, name, seat, deal_id,
                                     "found no world consistent with its knowledge to search"))
    return int(search.kernel.declared(answer)) if declare else ret


def _where(state, spec, who, seat, deal_id, what) -> str:
    return (f"{who} (seat {seat}) {what} in deal {deal_id} (seed {spec.seed}, half {spec.half}, matchup "
            f"{spec.matchup}); replay with: {replay_command(spec, deal_id)}")


__all__ = ["play_chunk", "PlayerFault"]
