"""Chunks of deals: what one kernel call plays, and how a failure in it is told.

A run is cut into chunks (tractor_sim.runs.engine.plan_chunks), each a plain
picklable ``ChunkSpec`` (matchup, half, first deal or match id, count, the
game's size and rules); ``play`` hands one to its Game's compiled kernels
(``Game.play_chunk``) and turns the rows into records.  Every deal's
randomness is keyed to (seed, id), so the results do not depend on the
chunking, the worker or the backend.  A strategy's illegal answer stops the
chunk with a ``SimulationError`` that names the strategy, the deal and the
command that replays it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from tractor_sim.core.kernels.view import DECISIONS
from tractor_sim.play.errors import SimulationError, replay_command  # noqa: F401 - a chunk's failures, named here too
from tractor_sim.rules.cards import card_str

warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

SEARCH_NO_WORLD = 50  # kernels.search_play.ERR_NO_WORLD (not imported here: that module compiles the search)
NO_WORLD = "no world for the search (the sampler found no deal consistent with the seat's knowledge)"
SEARCH_RECORDS_FULL = 51  # kernels.search_play.ERR_RECORDS_FULL
RECORDS_FULL = "the training or analysis rows outgrew their buffer (a deal of many redeals): give a smaller chunk"


@dataclass(frozen=True)
class ChunkSpec:
    """One kernel call's worth of work; plain data, so it pickles to any worker."""

    matchup: str
    policies: tuple  # (team 0 policy spec, team 1 policy spec) as played in this half
    names: tuple  # their display names
    half: int
    mode: str
    first_id: int
    count: int
    seed: int
    rules: dict
    levels: tuple = (0, 0)
    declaring_team: int = 0
    modules: tuple = ()  # user strategy modules to load in the worker
    game: tuple = (4, 2, "tractor")  # players, decks, team mode (tractor_sim.rules.sizes)
    context: str = ""  # the context's name in an experiment with contexts (tractor_sim.runs.contexts); "": none


@dataclass
class ChunkResult:
    spec: ChunkSpec
    deals: np.ndarray  # DEAL_DTYPE records
    matches: np.ndarray  # MATCH_DTYPE records
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def policy_name(spec) -> str:
    """The display name of a policy spec: its name, else its base policy's, else "custom"."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        return spec.get("name") or spec.get("policy") or "custom"
    return str(spec)


def play(game, spec: ChunkSpec, log_id: int = -1, log_rows: int | None = None) -> ChunkResult:
    """Play one chunk of ``game`` (a tractor_sim.play.game.Game: Game.play_chunk) in as few kernel
    calls as its output buffer allows.

    With ``log_id`` (a deal id, or ``M.LOG_ALL`` for every deal), the events
    go to ``result.extra["log"]`` (kernels.deal LOG_* rows); a log that
    fills up (a deal with many redeals) is made four times larger and the
    chunk played again, which gives the same deals.
    """
    import time

    from tractor_sim.play.registry import is_builtin

    t0 = time.perf_counter()
    M, D, PH = game.kernels.match, game.kernels.deal, game.kernels.phases
    pols, params, fns = game.resolve(spec.policies, spec.modules)
    # a plug-in may write into its parameters: each deal then plays on its own copy (match.fresh_params)
    isolate = any(not is_builtin(src) for pol in pols for src in pol.sources)
    rules = game.encoded
    mode = M.MODE_FIXED if spec.mode == "fixed" else M.MODE_MATCH
    levels = np.array(spec.levels, dtype=np.int64)
    cap = spec.count if mode == M.MODE_FIXED else max(M.MAX_DEALS_PER_MATCH, 40 * spec.count)
    if log_rows is None:
        log_rows = 1 if log_id == -1 else 1024 if log_id >= 0 else 400 * spec.count * (1 if mode == M.MODE_FIXED else 60)
    log = np.zeros((log_rows, D.LOG_COLS), dtype=np.int64)
    deal_parts, match_parts = [], []
    done = 0
    searching = any(p.search is not None for p in pols)
    step_by_step = any(p.player is not None for p in pols)
    extra: dict = {}
    while done < spec.count:
        todo = spec.count - done
        deals = np.empty((cap, M.DEAL_COLS), dtype=np.int64)  # only the rows written are kept
        matches = np.empty((todo, M.MATCH_COLS), dtype=np.int64)
        err = np.zeros(D.ERR_SIZE, dtype=np.int64)
        try:
            if step_by_step:  # deal by deal through the step API (tractor_sim.play.stepped)
                from tractor_sim.play import stepped

                nrows, err[PH.E_DONE] = stepped.play_chunk(game, spec, pols, params, deals, matches, log, log_id, extra)
            elif searching:
                nrows = _play_searching(game, spec, pols, mode, done, todo, levels, rules, params, fns, deals, matches,
                                        err, log, log_id, cap, extra)
            else:
                work = M.new_chunk_work(rules, params, isolate)  # fresh for each call, as a call's allocations were
                nrows = M.play_chunk(mode, np.uint64(spec.seed), spec.first_id + done, todo, levels,
                                     spec.declaring_team, rules, params, fns, deals, matches, err, log, log_id, work,
                                     *D.drivers(rules))
        except (IndexError, MemoryError):  # out of bounds: play.sandbox names the plug-in
            raise
        except SimulationError:  # a stepped player's own failure, already named
            raise
        except Exception as e:  # noqa: BLE001 - only a strategy's own ``raise`` gets out of the kernel
            raise SimulationError(f"{_user_strategies(pols) or 'a strategy'} raised {type(e).__name__}: "
                                  f"{str(e)[:200]} in deals {spec.first_id}..{spec.first_id + spec.count - 1} "
                                  f"(seed {spec.seed}, half {spec.half}, matchup {spec.matchup}); nothing of this "
                                  "chunk was kept") from None
        if nrows < 0:
            raise SimulationError(_describe_error(game, spec, pols, err))
        deal_parts.append(deals[:nrows])
        match_parts.append(matches[: err[PH.E_DONE]])
        done += int(err[PH.E_DONE])
    rows = deal_parts[0] if len(deal_parts) == 1 else np.concatenate(deal_parts)
    recs = np.empty(len(rows), dtype=game.deal_dtype)
    for name, (_, col) in game.columns.items():
        recs[name] = rows[:, col]
    mrows = np.concatenate(match_parts) if mode == M.MODE_MATCH else np.zeros((0, M.MATCH_COLS), np.int64)
    mdtype = game.match_dtype
    mrecs = np.empty(len(mrows), dtype=mdtype)
    for i, name in enumerate(mdtype.names):
        mrecs[name] = mrows[:, i]
    if log_id != -1 and log[0, 1]:
        return play(game, spec, log_id, 4 * log_rows)
    if log_id != -1:
        extra["log"] = log[1: log[0, 0] + 1]
    if "records" in extra:
        extra["records"] = np.concatenate(extra["records"])
    return ChunkResult(spec, recs, mrecs, time.perf_counter() - t0, extra)


def _play_searching(game, spec, pols, mode, done, todo, levels, rules, params, fns, deals, matches, err, log, log_id, cap,
                    extra) -> int:
    """play_chunk's call for a chunk with a search policy (kernels.search_play, compiled only for such
    runs); adds the decisions searched, the rollouts and any analysis rows to ``extra``."""
    KS, SPL = game.kernel("search"), game.kernel("search_play")

    settings = np.zeros((2, KS.SS_FIELDS), dtype=np.int64)
    recording = training = False
    for team, pol in enumerate(pols):
        if pol.search is not None:
            settings[team] = pol.search.row()
            recording = recording or pol.search.record
            training = training or pol.search.train
    plays = cap * game.dims.SEATS * game.dims.TRICKS if recording or training else 1  # a row per play at most
    # a burial and a call; a declaration per card drawn and the last chances; the auction's steps
    asked = cap * (2 + game.dims.DRAWN + game.dims.SEATS + game.kernels.phases.AUCTION_STEPS)
    if training:  # a row per candidate (kernels.search_play TR_*) of each play, burial and declaration
        width = max(p.search.max_candidates for p in pols if p.search is not None)
        records = np.zeros(((plays + asked) * width, SPL.TR_FIELDS), dtype=np.float64)
    else:  # a row per decision of the analysed policy (a deal of redeals may outgrow it: ERR_RECORDS_FULL)
        records = np.zeros((plays + asked if recording else 1, SPL.AR_FIELDS), dtype=np.float64)
    counters = np.zeros(SPL.N_COUNTERS, dtype=np.int64)
    model_fns, model_params = _models(pols, params, fns)
    nrows = SPL.play_chunk_search(mode, np.uint64(spec.seed), spec.first_id + done, todo, levels, spec.declaring_team,
                                  rules, params, fns, deals, matches, err, log, log_id, settings, counters, records,
                                  model_fns, model_params)
    if nrows >= 0:
        extra["decisions"] = extra.get("decisions", 0) + int(counters[SPL.C_DECISIONS])
        extra["rollouts"] = extra.get("rollouts", 0) + int(counters[SPL.C_ROLLOUTS])
        extra["weighed"] = extra.get("weighed", 0) + int(counters[SPL.C_WEIGHED])
        if recording or training:
            extra.setdefault("records", []).append(records[:counters[SPL.C_RECORDS]].copy())
    return nrows


def _models(pols, params, fns):
    """(functions, parameters) by team of the model each searching team weighs its worlds with
    (kernels.infer): its ``infer`` policy, else its own (infer = "base", or nothing to weigh)."""
    per = len(DECISIONS)
    models = [p.search.model if p.search is not None else None for p in pols]
    width = max([params.shape[2]] + [len(v) for m in models if m is not None for v in m.params])
    out = np.zeros((2, per, width), dtype=np.float64)
    out[:, :, :params.shape[2]] = params
    model_fns = list(fns)
    for team, m in enumerate(models):
        if m is not None:
            model_fns[team * per:(team + 1) * per] = m.functions
            out[team] = 0.0
            for d, v in enumerate(m.params):
                out[team, d, :len(v)] = v
    return tuple(model_fns), out


def plugin_strategies(pols) -> list[str]:
    """The plug-ins resolved policies play, each once: a Python policy or bot as it describes itself, a
    compiled strategy as 'decision strategy 'name' (file)' (empty: built-ins only)."""
    from tractor_sim.play import registry as S

    out = []
    for pol in pols:
        if pol.player is not None:
            found = [pol.player.describe()]
        else:
            found = [f"{d} strategy {name!r} ({S.get_strategy(d, name).source})"
                     for d, name in zip(DECISIONS, pol.strategies) if not S.is_builtin(S.get_strategy(d, name).module)]
        out += [text for text in found if text not in out]
    return out


def _user_strategies(pols) -> str:
    """The compiled plug-in strategies of resolved policies, as an error names them ("" when built-ins only;
    a Python policy or bot names itself in its own errors)."""
    return " or ".join(plugin_strategies([p for p in pols if p.player is None]))


def _cards_text(counts, decks: int) -> str:
    """Cards by count as an error names them: a card held n times (n up to the decks) written n times,
    any other count once with its count ("2S x1000000000", "RJ x-1"): a plug-in's answer may hold any
    number, and writing a billion cards out would take the process's memory."""
    words = []
    for card, n in enumerate(int(x) for x in counts):
        if 0 < n <= decks:
            words += [card_str(card)] * n
        elif n:
            words.append(f"{card_str(card)} x{n}")
    return " ".join(words)


def _describe_error(game, spec: ChunkSpec, pols, err) -> str:
    D, CARDS = game.kernels.deal, game.dims.CARDS
    code, seat, decision, trick, redeals, ident, d = (int(x) for x in err[:7])
    what = NO_WORLD if code == SEARCH_NO_WORLD else RECORDS_FULL if code == SEARCH_RECORDS_FULL \
        else game.error_name(code)
    if code == D.ERR_REDEALS:
        return f"matchup {spec.matchup}: {what} in deal {ident} (seed {spec.seed})"
    team = seat % 2
    pol = pols[team]
    strategy = pol.strategy_names[decision] if hasattr(pol, "strategy_names") else DECISIONS[decision]
    hand = _cards_text(err[D.ERR_HEADER:D.ERR_HEADER + CARDS], game.dims.DECKS)
    answer = _cards_text(err[D.ERR_HEADER + CARDS:D.ERR_HEADER + 2 * CARDS], game.dims.DECKS)
    if code == D.ERR_CALL:  # the answer holds the cards, then the copies (kernels.view, "call")
        calls = game.dims.CALLS
        got = [int(x) for x in err[D.ERR_HEADER + CARDS:D.ERR_HEADER + CARDS + 2 * calls]]
        answer = ", ".join(f"copy {got[calls + j]} of {card_str(got[j]) if 0 <= got[j] < CARDS else got[j]}"
                           for j in range(calls))
    where = f"match {ident}, deal {d}" if spec.mode == "match" else f"deal {ident}"
    deal_id = ident if spec.mode == "fixed" else ident * game.kernels.match.MAX_DEALS_PER_MATCH + d
    return (f"{DECISIONS[decision]} strategy {strategy!r} of policy {pol.name!r} (seat {seat}) made {what} "
            f"in {where}, trick {trick} (seed {spec.seed}, half {spec.half}, matchup {spec.matchup}); "
            f"hand: {hand}; answer: {answer or '(nothing)'}; "
            f"replay with: {replay_command(spec, deal_id)}")


__all__ = ["SimulationError", "ChunkSpec", "ChunkResult", "policy_name", "play", "replay_command", "SEARCH_NO_WORLD"]
