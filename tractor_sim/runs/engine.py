"""Seeds, chunks, duplicate deals, and kernel records to DataFrames.

A run is cut into chunks, each a plain picklable ``ChunkSpec`` (matchup,
half, first deal or match id, count).  ``run_chunk`` plays one chunk in one
kernel call; every deal's randomness is keyed to (seed, id), so the results
do not depend on the chunking, the worker or the backend.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from tractor_sim.rules import sizes

from tractor_sim.play import packages
from tractor_sim.rules.cards import card_str
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import match as M
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels.dims import CARDS, SEATS, TRICKS
from tractor_sim.core.kernels.view import DECISIONS
from tractor_sim.rules.options import Rules, as_rules

warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

MODES = ("fixed", "match")
SEED_MAX = 2**64 - 1


def deal_columns(M, D, seats: int) -> dict:
    """name -> (dtype, column of the chunk's deal rows) for kernels ``M`` (match) and ``D`` (deal)
    compiled for ``seats`` players (tractor_sim.rules.sizes: the columns after the tricks move with it)."""
    return {
        "deal_id": ("int64", M.X_DEAL_ID),
        "match_id": ("int64", M.X_MATCH_ID),
        "deal_in_match": ("int32", M.X_DEAL_IN_MATCH),
        "starter": ("int8", M.X_D + D.D_STARTER),
        "declaring_team": ("int8", M.X_D + D.D_DECL_TEAM),
        "trump_rank": ("int8", M.X_D + D.D_TRUMP_RANK),
        "trump_suit": ("int8", M.X_D + D.D_TRUMP_SUIT),
        "trump_source": ("int8", M.X_D + D.D_TRUMP_SOURCE),
        "redeals": ("int16", M.X_D + D.D_REDEALS),
        "kitty_points": ("int16", M.X_D + D.D_KITTY_POINTS),
        "trick_points": ("int16", M.X_D + D.D_TRICK_POINTS),
        "kitty_bonus": ("int16", M.X_D + D.D_KITTY_BONUS),
        "throw_penalty": ("int16", M.X_D + D.D_THROW_PENALTY),
        "failed_throws": ("int8", M.X_D + D.D_FAILED_THROWS),
        "last_winner": ("int8", M.X_D + D.D_LAST_WINNER),
        "opp_points": ("int16", M.X_D + D.D_OPP_POINTS),
        "row": ("int8", M.X_D + D.D_ROW),
        "level0_before": ("int8", M.X_LEVEL0_BEFORE),
        "level1_before": ("int8", M.X_LEVEL1_BEFORE),
        "level0_after": ("int8", M.X_LEVEL0_AFTER),
        "level1_after": ("int8", M.X_LEVEL1_AFTER),
        "gain_team": ("int8", M.X_GAIN_TEAM),
        "gain": ("int8", M.X_D + D.D_GAIN),
        **{f"tricks{s}": ("int8", M.X_D + D.D_TRICKS + s) for s in range(seats)},
        "dealer": ("int8", M.X_D + D.D_DEALER),
        "bid0": ("int16", M.X_D + D.D_BID0),
        "bid1": ("int16", M.X_D + D.D_BID0 + 1),
    }


def friends_columns(M, D, seats: int, calls: int) -> dict:
    """The deal columns of a Finding Friends game (docs/records.md, decisions.md 9.11): those of a tractor
    game without the team levels and the bids, a level per player before and after, the landlord's
    team at the end (``team``, a bit mask, with ``in_team{s}`` and the trick each player joined in),
    the calls and who played each called copy when, and the next landlord."""
    cols = {k: v for k, v in deal_columns(M, D, seats).items()
            if not k.startswith(("level0_", "level1_", "bid")) and k != "gain_team"}
    cols["landlord_won"] = ("int8", M.X_D + D.D_KEEP)
    cols["next_starter"] = ("int8", M.X_D + D.D_NEXT_STARTER)
    cols["team"] = ("int16", M.X_D + D.D_TEAM)
    cols["gainers"] = ("int16", M.X_GAIN_TEAM)
    for s in range(seats):
        cols[f"level{s}_before"] = ("int8", M.X_LEVEL0_BEFORE + s)
        cols[f"level{s}_after"] = ("int8", M.X_LEVEL0_AFTER + s)
    for s in range(seats):
        cols[f"in_team{s}"] = ("int8", M.X_D + D.D_IN_TEAM + s)
    for s in range(seats):
        cols[f"joined{s}"] = ("int8", M.X_D + D.D_JOINED + s)
    for j in range(calls):
        cols[f"call{j}_card"] = ("int8", M.X_D + D.D_CALL_CARD + j)
        cols[f"call{j}_copy"] = ("int8", M.X_D + D.D_CALL_COPY + j)
        cols[f"call{j}_by"] = ("int8", M.X_D + D.D_CALL_BY + j)
        cols[f"call{j}_trick"] = ("int8", M.X_D + D.D_CALL_WHEN + j)
        cols[f"call{j}_joins"] = ("int8", M.X_D + D.D_CALL_JOINS + j)
    return cols


DEAL_COLUMNS = deal_columns(M, D, SEATS)


def deal_dtype(columns: dict) -> np.dtype:
    return np.dtype([(name, dt) for name, (dt, _) in columns.items()])


DEAL_DTYPE = deal_dtype(DEAL_COLUMNS)


def kernels_of(game) -> tuple:
    """(match, deal, phases) kernel modules, the record columns and their dtype for a game size
    (tractor_sim.rules.sizes): the package's own for 4 players and 2 decks, else the size's compiled copy."""
    size = sizes.as_size(game)
    if size.standard:
        return M, D, PH, DEAL_COLUMNS, DEAL_DTYPE
    K = packages.compiled_package(size).kernels
    if size.teams == "friends":
        columns = friends_columns(K.match, K.deal, size.players, K.dims.CALLS)
    else:
        columns = deal_columns(K.match, K.deal, size.players)
    return K.match, K.deal, K.phases, columns, deal_dtype(columns)


MATCH_DTYPE = np.dtype([("match_id", "int64"), ("winner", "int8"), ("deals", "int32"),
                        ("level0_final", "int8"), ("level1_final", "int8")])


def match_dtype(game) -> np.dtype:
    """The match records of a game size: a tractor game's MATCH_DTYPE; in Finding Friends the players
    who won (``winners``, a bit mask of seats) and every player's final level."""
    size = sizes.as_size(game)
    if size.teams != "friends":
        return MATCH_DTYPE
    return np.dtype([("match_id", "int64"), ("winners", "int16"), ("deals", "int32")]
                    + [(f"level{s}_final", "int8") for s in range(size.players)])
SEARCH_PLAYS_PER_DEAL = SEATS * TRICKS  # plays in a deal at most: analysis rows per deal
SEARCH_NO_WORLD = 50  # kernels.search_play.ERR_NO_WORLD (not imported here: that module compiles the search)
ERR_NAMES = {D.ERR_DECLARE: "an illegal declaration", D.ERR_DISCARD: "an illegal discard",
             D.ERR_LEAD: "an illegal lead", D.ERR_FOLLOW: "an illegal follow",
             D.ERR_REDEALS: "too many redeals (nobody ever declares)", D.ERR_BID: "an illegal bid",
             D.ERR_CALL: "an illegal call (Finding Friends: CALLS cards, none a joker or of the trump rank, "
                         "copies 1..DECKS)",
             SEARCH_NO_WORLD: "no world for the search (the sampler found no deal consistent with the seat's knowledge)"}


class SimulationError(RuntimeError):
    """A run stopped: names the strategy, the deal and seed, and the situation."""


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


@dataclass
class ChunkResult:
    spec: ChunkSpec
    deals: np.ndarray  # DEAL_DTYPE records
    matches: np.ndarray  # MATCH_DTYPE records
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def _policy_name(spec) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        return spec.get("name") or spec.get("policy") or "custom"
    return str(spec)


def plan_chunks(matchups, *, mode="fixed", n=1000, seed=0, rules=None, duplicate=True,
                chunk_size=10_000, levels=(0, 0), declaring_team=0, modules=(), game=None) -> list[ChunkSpec]:
    """Cut a run into chunks: every matchup, each half, ``n`` deals or matches (of the game size
    ``game``, a tractor_sim.rules.sizes.GameSize or its table; default 4 players, 2 decks)."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"count: expected a positive whole number, got {n!r}")
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed: expected a whole number from 0 to 2**64-1, got {seed!r}")
    if not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size: expected a positive whole number, got {chunk_size!r}")
    pairs = _normalize_matchups(matchups)
    check_plan(len(pairs) * (2 if duplicate else 1), int(n), int(chunk_size), mode)
    rules_dict = as_rules(rules).to_dict()
    size = sizes.as_size(game)
    sizes.check_rules(size, rules_dict)
    specs = []
    for name, a, b in pairs:
        halves = ((0, (a, b)), (1, (b, a))) if duplicate else ((0, (a, b)),)
        for half, pols in halves:
            for first in range(0, int(n), int(chunk_size)):
                specs.append(ChunkSpec(
                    matchup=name, policies=pols, names=tuple(_policy_name(p) for p in pols), half=half,
                    mode=mode, first_id=first, count=min(int(chunk_size), int(n) - first), seed=int(seed),
                    rules=rules_dict, levels=tuple(int(x) for x in levels), declaring_team=int(declaring_team),
                    modules=tuple(modules), game=(size.players, size.decks, size.teams)))
    return specs


MAX_CHUNKS = 1_000_000  # chunk specs held by the driver (~1 KB each)
MAX_CHUNK = {"fixed": 2_000_000, "match": 50_000}  # per kernel call: its output buffers (~0.5 GB)
MAX_COUNT = 2**40  # deal or match ids per half (match-mode deal ids are match_id * 1000 + deal)


def check_plan(halves: int, n: int, chunk_size: int, mode: str) -> None:
    """Refuse, before anything is allocated, a plan too large to hold or a chunk too large to play.

    The numbers are arithmetic on the counts: planning ``count = 10**17``
    must not build the list first.
    """
    chunks = halves * -(-n // chunk_size)
    if chunks > MAX_CHUNKS:
        least = -(-halves * n // MAX_CHUNKS)
        hint = (f"raise chunk_size to at least {least:,}" if least <= MAX_CHUNK[mode]
                else f"lower count (at most {MAX_CHUNKS * MAX_CHUNK[mode] // halves:,} here)")
        raise ValueError(f"count {n:,} with chunk_size {chunk_size:,} makes {chunks:,} chunks "
                         f"(at most {MAX_CHUNKS:,}): {hint}")
    if chunk_size > MAX_CHUNK[mode]:
        raise ValueError(f"chunk_size: {chunk_size:,} {'deals' if mode == 'fixed' else 'matches'} per kernel call "
                         f"would need too much memory; at most {MAX_CHUNK[mode]:,}")
    if n > MAX_COUNT:
        raise ValueError(f"count: {n:,} is more than this simulator numbers ({MAX_COUNT:,} per matchup and half)")


def _normalize_matchups(matchups) -> list[tuple[str, object, object]]:
    out = []
    for m in matchups:
        if isinstance(m, dict):
            a, b = m["a"], m["b"]
            name = m.get("name") or f"{_policy_name(a)}-vs-{_policy_name(b)}"
        else:
            a, b = m
            name = f"{_policy_name(a)}-vs-{_policy_name(b)}"
        out.append((name, a, b))
    names = [n for n, _, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"matchups: duplicate matchup names {sorted({n for n in names if names.count(n) > 1})}")
    return out


def _resolve(spec: ChunkSpec):
    size = sizes.as_size(spec.game)
    return resolve_policies(spec.policies, spec.modules, None if size.standard else packages.compiled_package(size))


def resolve_policies(policies, modules=(), package=None):
    """(resolved policies, params[team, decision, :], the kernel's tuple of strategy functions) for
    team 0's and team 1's policy specs (compiled for the size of ``package``, tractor_sim.rules.sizes)."""
    from tractor_sim.play import registry as S

    S.load_builtins()
    for mod in modules:
        S.load_module(mod)
    pols = [S.resolve_policy(p, package) for p in policies]
    plen = max(1, max(len(p) for pol in pols for p in pol.params))
    params = np.zeros((2, len(DECISIONS), plen), dtype=np.float64)
    for team, pol in enumerate(pols):
        for d in range(len(DECISIONS)):
            params[team, d, : len(pol.params[d])] = pol.params[d]
    fns = tuple(f for pol in pols for f in pol.functions)
    return pols, params, fns


def run_chunk(spec: ChunkSpec, log_id: int = -1, log_rows: int | None = None) -> ChunkResult:
    """Play one chunk in as few kernel calls as its output buffer allows.

    With ``log_id`` (a deal id, or ``M.LOG_ALL`` for every deal), the events
    go to ``result.extra["log"]`` (kernels.deal LOG_* rows); a log that
    fills up (a deal with many redeals) is made four times larger and the
    chunk played again, which gives the same deals.
    """
    import time

    from tractor_sim.play.registry import is_builtin

    t0 = time.perf_counter()
    M, D, PH, columns, dtype = kernels_of(spec.game)
    pols, params, fns = _resolve(spec)
    # a plug-in may write into its parameters: each deal then plays on its own copy (match.fresh_params)
    isolate = any(not is_builtin(src) for pol in pols for src in pol.sources)
    rules = Rules.from_dict(spec.rules).encode()
    mode = M.MODE_FIXED if spec.mode == "fixed" else M.MODE_MATCH
    levels = np.array(spec.levels, dtype=np.int64)
    cap = spec.count if mode == M.MODE_FIXED else max(M.MAX_DEALS_PER_MATCH, 40 * spec.count)
    if log_rows is None:
        log_rows = 1 if log_id == -1 else 1024 if log_id >= 0 else 400 * spec.count * (1 if mode == M.MODE_FIXED else 60)
    log = np.zeros((log_rows, D.LOG_COLS), dtype=np.int64)
    deal_parts, match_parts = [], []
    done = 0
    searching = any(p.search is not None for p in pols)
    extra: dict = {}
    while done < spec.count:
        todo = spec.count - done
        deals = np.empty((cap, M.DEAL_COLS), dtype=np.int64)  # only the rows written are kept
        matches = np.empty((todo, M.MATCH_COLS), dtype=np.int64)
        err = np.zeros(D.ERR_SIZE, dtype=np.int64)
        try:
            if searching:
                nrows = _play_searching(spec, pols, mode, done, todo, levels, rules, params, fns, deals, matches, err,
                                        log, log_id, cap, extra)
            else:
                work = M.new_chunk_work(rules, params, isolate)  # fresh for each call, as a call's allocations were
                nrows = M.play_chunk(mode, np.uint64(spec.seed), spec.first_id + done, todo, levels,
                                     spec.declaring_team, rules, params, fns, deals, matches, err, log, log_id, work,
                                     *D.drivers(rules))
        except (IndexError, MemoryError):  # out of bounds: play.sandbox names the plug-in
            raise
        except Exception as e:  # noqa: BLE001 - only a strategy's own ``raise`` gets out of the kernel
            raise SimulationError(f"{_user_strategies(pols) or 'a strategy'} raised {type(e).__name__}: "
                                  f"{str(e)[:200]} in deals {spec.first_id}..{spec.first_id + spec.count - 1} "
                                  f"(seed {spec.seed}, half {spec.half}, matchup {spec.matchup}); nothing of this "
                                  "chunk was kept") from None
        if nrows < 0:
            raise SimulationError(_describe_error(spec, pols, err))
        deal_parts.append(deals[:nrows])
        match_parts.append(matches[: err[PH.E_DONE]])
        done += int(err[PH.E_DONE])
    rows = deal_parts[0] if len(deal_parts) == 1 else np.concatenate(deal_parts)
    recs = np.empty(len(rows), dtype=dtype)
    for name, (_, col) in columns.items():
        recs[name] = rows[:, col]
    mrows = np.concatenate(match_parts) if mode == M.MODE_MATCH else np.zeros((0, M.MATCH_COLS), np.int64)
    mdtype = match_dtype(spec.game)
    mrecs = np.empty(len(mrows), dtype=mdtype)
    for i, name in enumerate(mdtype.names):
        mrecs[name] = mrows[:, i]
    if log_id != -1 and log[0, 1]:
        return run_chunk(spec, log_id, 4 * log_rows)
    if log_id != -1:
        extra["log"] = log[1: log[0, 0] + 1]
    if "records" in extra:
        extra["records"] = np.concatenate(extra["records"])
    return ChunkResult(spec, recs, mrecs, time.perf_counter() - t0, extra)


def _play_searching(spec, pols, mode, done, todo, levels, rules, params, fns, deals, matches, err, log, log_id, cap,
                    extra) -> int:
    """play_chunk's call for a chunk with a search policy (kernels.search_play, compiled only for such
    runs); adds the decisions searched, the rollouts and any analysis rows to ``extra``."""
    from tractor_sim.core.kernels import search as KS
    from tractor_sim.core.kernels import search_play as SPL

    settings = np.zeros((2, KS.SS_FIELDS), dtype=np.int64)
    recording = False
    for team, pol in enumerate(pols):
        if pol.search is not None:
            settings[team] = pol.search.row()
            recording = recording or pol.search.record
    plays = cap * SEARCH_PLAYS_PER_DEAL if recording else 1
    records = np.zeros((plays, SPL.AR_FIELDS), dtype=np.float64)
    counters = np.zeros(SPL.N_COUNTERS, dtype=np.int64)
    nrows = SPL.play_chunk_search(mode, np.uint64(spec.seed), spec.first_id + done, todo, levels, spec.declaring_team,
                                  rules, params, fns, deals, matches, err, log, log_id, settings, counters, records)
    if nrows >= 0:
        extra["decisions"] = extra.get("decisions", 0) + int(counters[SPL.C_DECISIONS])
        extra["rollouts"] = extra.get("rollouts", 0) + int(counters[SPL.C_ROLLOUTS])
        if recording:
            extra.setdefault("records", []).append(records[:counters[SPL.C_RECORDS]].copy())
    return nrows


def _user_strategies(pols) -> str:
    """The plug-in strategies of resolved policies, as an error names them ("" when only built-ins)."""
    from tractor_sim.play import registry as S

    out = []
    for pol in pols:
        for d, name in zip(DECISIONS, pol.strategies):
            info = S.get_strategy(d, name)
            text = f"{d} strategy {name!r} ({info.source})"
            if not S.is_builtin(info.module) and text not in out:
                out.append(text)
    return " or ".join(out)


def _describe_error(spec: ChunkSpec, pols, err) -> str:
    code, seat, decision, trick, redeals, ident, d = (int(x) for x in err[:7])
    what = ERR_NAMES.get(code, f"error {code}")
    if code == D.ERR_REDEALS:
        return f"matchup {spec.matchup}: {what} in deal {ident} (seed {spec.seed})"
    team = seat % 2
    pol = pols[team]
    strategy = pol.strategy_names[decision] if hasattr(pol, "strategy_names") else DECISIONS[decision]
    hand = [card_str(c) for c in range(CARDS) for _ in range(int(err[D.ERR_HEADER + c]))]
    answer = [card_str(c) for c in range(CARDS) for _ in range(max(0, int(err[D.ERR_HEADER + CARDS + c])))]
    if code == D.ERR_CALL:  # the answer holds the cards, then the copies (kernels.view, "call")
        calls = packages.compiled_package(spec.game).kernels.dims.CALLS
        got = [int(x) for x in err[D.ERR_HEADER + CARDS:D.ERR_HEADER + CARDS + 2 * calls]]
        answer = [", ".join(f"copy {got[calls + j]} of {card_str(got[j]) if 0 <= got[j] < CARDS else got[j]}"
                            for j in range(calls))]
    where = f"match {ident}, deal {d}" if spec.mode == "match" else f"deal {ident}"
    deal_id = ident if spec.mode == "fixed" else ident * M.MAX_DEALS_PER_MATCH + d
    return (f"{DECISIONS[decision]} strategy {strategy!r} of policy {pol.name!r} (seat {seat}) made {what} "
            f"in {where}, trick {trick} (seed {spec.seed}, half {spec.half}, matchup {spec.matchup}); "
            f"hand: {' '.join(hand)}; answer: {' '.join(answer) or '(nothing)'}; "
            f"replay with: {replay_command(spec, deal_id)}")


def replay_command(spec: ChunkSpec, deal_id: int) -> str:
    """The ``tractor-sim replay`` command that plays deal ``deal_id`` of ``spec`` again, as it was played."""
    import json
    import shlex

    from tractor_sim.rules.cards import RANKS

    args = ["tractor-sim", "replay", "--seed", str(spec.seed), "--deal", str(deal_id)]
    for opt, pol in zip(("--a", "--b"), spec.policies):
        args += [opt, pol if isinstance(pol, str) else json.dumps(pol, sort_keys=True)]
    size = sizes.as_size(spec.game)
    if not size.standard:
        args += ["--players", str(size.players), "--decks", str(size.decks)]
        if size.teams != "tractor":
            args += ["--teams", size.teams]
    if spec.mode == "match":
        args += ["--mode", "match"]
    else:
        if tuple(spec.levels) != (0, 0):
            args += ["--levels", ",".join(RANKS[int(x)] for x in spec.levels)]
        if spec.declaring_team:
            args += ["--declaring-team", str(spec.declaring_team)]
    default = Rules().to_dict()
    rules = {k: v for k, v in spec.rules.items() if default.get(k) != v}
    if rules:
        args += ["--rules", json.dumps(rules, sort_keys=True)]
    for m in spec.modules:
        args += ["--module", m]
    return shlex.join(args)


def to_frames(results: Iterable[ChunkResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chunk results -> (deals, matches) DataFrames (docs/records.md), sorted by id."""
    import pandas as pd  # here, not at import: a run's first result does not need it (0.5 s)

    dfs, mfs = [], []
    for r in results:
        s = r.spec
        tag = {"matchup": s.matchup, "policy0": s.names[0], "policy1": s.names[1],
               "seed": np.uint64(s.seed), "half": np.int8(s.half)}
        d = pd.DataFrame(r.deals)
        for k, v in tag.items():
            d[k] = v
        dfs.append(d)
        if len(r.matches):
            m = pd.DataFrame(r.matches)
            for k, v in tag.items():
                m[k] = v
            mfs.append(m)
    deals = pd.concat(dfs, ignore_index=True) if dfs else pd.DataFrame(columns=list(DEAL_DTYPE.names))
    matches = pd.concat(mfs, ignore_index=True) if mfs else pd.DataFrame(columns=list(MATCH_DTYPE.names))
    front = ["matchup", "policy0", "policy1", "seed", "half"]
    deals = deals[front + [c for c in deals.columns if c not in front]]
    deals = deals.sort_values(["matchup", "half", "deal_id"], kind="stable").reset_index(drop=True)
    if len(matches):
        matches = matches[front + [c for c in matches.columns if c not in front]]
        matches = matches.sort_values(["matchup", "half", "match_id"], kind="stable").reset_index(drop=True)
    for frame in (deals, matches):
        if "matchup" in frame:
            frame["matchup"] = frame["matchup"].astype("category")
    return deals, matches
