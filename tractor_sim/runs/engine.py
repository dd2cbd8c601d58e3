"""Planning a run: seeds, chunks, duplicate deals, and the chunks' records as DataFrames.

A run is cut into chunks, each a plain picklable ``ChunkSpec`` (matchup,
half, first deal or match id, count: tractor_sim.play.chunks).  ``run_chunk``
plays one through its Game; every deal's randomness is keyed to (seed, id),
so the results do not depend on the chunking, the worker or the backend.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from tractor_sim.play.chunks import (  # noqa: F401 - the engine's names for a chunk, its result and its failure
    SEARCH_NO_WORLD, ChunkResult, ChunkSpec, SimulationError, policy_name, replay_command)
from tractor_sim.play.game import Game
from tractor_sim.rules import sizes
from tractor_sim.rules.options import as_rules

MODES = ("fixed", "match")
SEED_MAX = 2**64 - 1


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
    for name, a, b, context in pairs:
        halves = ((0, (a, b)), (1, (b, a))) if duplicate else ((0, (a, b)),)
        for half, pols in halves:
            for first in range(0, int(n), int(chunk_size)):
                specs.append(ChunkSpec(
                    matchup=name, policies=pols, names=tuple(policy_name(p) for p in pols), half=half,
                    mode=mode, first_id=first, count=min(int(chunk_size), int(n) - first), seed=int(seed),
                    rules=rules_dict, levels=tuple(int(x) for x in levels), declaring_team=int(declaring_team),
                    modules=tuple(modules), game=(size.players, size.decks, size.teams), context=context))
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


def _normalize_matchups(matchups) -> list[tuple[str, object, object, str]]:
    out = []
    for m in matchups:
        if isinstance(m, dict):
            a, b = m["a"], m["b"]
            name = m.get("name") or f"{policy_name(a)}-vs-{policy_name(b)}"
            context = str(m.get("context") or "")
        else:
            a, b = m
            name, context = f"{policy_name(a)}-vs-{policy_name(b)}", ""
        out.append((name, a, b, context))
    names = [n for n, *_ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"matchups: duplicate matchup names {sorted({n for n in names if names.count(n) > 1})}")
    return out


def game_of(spec: ChunkSpec) -> Game:
    """The Game a chunk plays: its size and rules."""
    return Game.of(spec.game, spec.rules)


def run_chunk(spec: ChunkSpec, log_id: int = -1, log_rows: int | None = None) -> ChunkResult:
    """Play one chunk (its Game's kernels: tractor_sim.play.chunks.play); ``log_id`` a deal id, or
    kernels.match.LOG_ALL for every deal, puts the events in ``result.extra["log"]``."""
    return game_of(spec).play_chunk(spec, log_id, log_rows)


def to_frames(results: Iterable[ChunkResult], game: Game | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chunk results -> (deals, matches) DataFrames (docs/records.md), sorted by id; ``game`` gives the
    columns when there are no results (the 4/2 game's when None)."""
    import pandas as pd  # here, not at import: a run's first result does not need it (0.5 s)

    dfs, mfs = [], []
    for r in results:
        s = r.spec
        tag = {"matchup": s.matchup, **({"context": s.context} if s.context else {}), "policy0": s.names[0],
               "policy1": s.names[1], "seed": np.uint64(s.seed), "half": np.int8(s.half)}
        d = pd.DataFrame(r.deals)
        for k, v in tag.items():
            d[k] = v
        dfs.append(d)
        if len(r.matches):
            m = pd.DataFrame(r.matches)
            for k, v in tag.items():
                m[k] = v
            mfs.append(m)
    game = game or Game.of()
    deals = pd.concat(dfs, ignore_index=True) if dfs else pd.DataFrame(columns=list(game.deal_dtype.names))
    matches = pd.concat(mfs, ignore_index=True) if mfs else pd.DataFrame(columns=list(game.match_dtype.names))
    front = ["matchup", *(["context"] if "context" in deals else []), "policy0", "policy1", "seed", "half"]
    deals = deals[front + [c for c in deals.columns if c not in front]]
    deals = deals.sort_values(["matchup", "half", "deal_id"], kind="stable").reset_index(drop=True)
    if len(matches):
        matches = matches[front + [c for c in matches.columns if c not in front]]
        matches = matches.sort_values(["matchup", "half", "match_id"], kind="stable").reset_index(drop=True)
    for frame in (deals, matches):
        for col in ("matchup", "context"):
            if col in frame:
                frame[col] = frame[col].astype("category")
    return deals, matches
