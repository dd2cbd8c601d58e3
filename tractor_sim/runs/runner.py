"""Running: chunks through a backend (``iter_results``, ``simulate``), and whole experiments into
resumable run directories (``run_experiment``, what ``tractor-sim run`` calls; notebooks too).

It sits above the engine (chunks, records), the backends (where chunks run)
and the run store: none of them imports it, so there is no import cycle.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from tractor_sim.play import sandbox
from tractor_sim.runs.backends import make_executor, run_chunks
from tractor_sim.runs.engine import ChunkResult, SimulationError, plan_chunks, to_frames


def iter_results(specs, executor=None, timeout: float | None = None) -> Iterator[ChunkResult]:
    """Run chunks in order (in this process), or through a backend or any concurrent.futures
    executor, yielding results as chunks finish (failed chunks retried: backends.run_chunks).
    ``timeout``: seconds without a finished chunk before giving up (not in this process:
    compiled code cannot be stopped from inside; Ctrl-C can, ``sandbox.interruptible``)."""
    if executor is None:
        for spec in specs:
            with sandbox.interruptible():  # Ctrl-C inside the kernel call ends the process at once
                result = sandbox.run_checked(spec)
            yield result
        return
    yield from run_chunks(specs, executor, timeout=timeout)


def simulate(matchups, *, mode: str = "fixed", n: int = 1000, seed: int = 0, rules=None,
             duplicate: bool = True, chunk_size: int = 10_000, levels=(0, 0), declaring_team: int = 0,
             modules=(), executor=None, on_chunk: Callable[[ChunkResult], None] | None = None, game=None):
    """Play ``n`` deals (mode "fixed") or matches (mode "match") per matchup and half.

    ``matchups``: pairs of policy specs (a registered name such as "basic", or a
    dict as in ``strategy.resolve_policy``), or dicts {"name", "a", "b"}.
    ``game``: the game size (tractor_sim.rules.sizes.GameSize or a table {players, decks, teams}).
    Returns (deals, matches) DataFrames as in docs/records.md.  Nothing is
    stored: for a run directory that resumes, use ``run_experiment``.
    """
    specs = plan_chunks(matchups, mode=mode, n=n, seed=seed, rules=rules, duplicate=duplicate,
                        chunk_size=chunk_size, levels=levels, declaring_team=declaring_team, modules=modules,
                        game=game)
    results = []
    for r in iter_results(specs, executor):
        results.append(r)
        if on_chunk is not None:
            on_chunk(r)
    return to_frames(results)


def _compile_first(specs, executor, timeout, compiling) -> None:
    """When numba's cache does not hold the kernels of ``specs[0]``, compile what the run plays under
    ``compiling``'s message: a one-deal chunk (dropped) per distinct set of policies, rules and size
    (firstrun.first_chunks); the time is kept for the next estimate."""
    from tractor_sim.runs import firstrun

    text = firstrun.pending(specs[0])
    if text is None:
        return
    t0 = time.perf_counter()
    with compiling(text) if compiling else nullcontext():
        for _ in iter_results(firstrun.first_chunks(specs), executor, timeout):
            pass
    firstrun.record(specs[0], time.perf_counter() - t0)


@dataclass
class RunResult:
    """What ``run_experiment`` did: the directory, its manifest, and what it resumed or repaired."""

    dir: Path
    deals: int
    manifest: dict
    chunks: int
    resumed: int
    repaired: list = field(default_factory=list)
    report: tuple | None = None  # (report.md, report.html)


def run_experiment(exp, out: str | Path | None = None, *, command: str = "", workers: int | None = None,
                   backend: str = "local", scheduler: str | None = None, repair: bool = False,
                   chunk_timeout: float | None = None, report: bool = True,
                   progress: Callable | None = None, log: Callable[[str], None] | None = None,
                   compiling: Callable[[str], object] | None = None) -> RunResult:
    """Run ``exp`` (an ``experiment.Experiment``, e.g. ``experiment.load(path)``) into a run directory.

    ``out``: the run directory (default runs/NAME).  Running it again
    resumes: the chunks already stored are kept and checked, the rest run.
    ``repair``: rerun damaged parts instead of refusing.  A run that plays a
    user's strategy runs its chunks in worker processes with a time limit
    (``chunk_timeout`` seconds without a finished chunk, default
    ``sandbox.DEFAULT_CHUNK_TIMEOUT``).  ``progress(total, done)``: a context
    manager yielding ``advance(deals, decisions)`` (the decisions a search searched), entered after
    the kernels compile (a first chunk of one deal, so its rate is the play's); ``compiling(text)``:
    a context manager shown while they do (runs.firstrun), only when they are not cached.  Raises ExperimentError,
    StoreError/StoreRefused, SimulationError, BackendError, OSError;
    KeyboardInterrupt stops the workers too.  Finished chunks are kept in
    every case.
    """
    from tractor_sim.runs import experiment as X
    from tractor_sim.report import drawing
    from tractor_sim.runs import fingerprint
    from tractor_sim.runs.store import RunStore, refuse_another_game

    if scheduler and backend != "dask":
        raise ValueError("a scheduler goes with backend 'dask' (--backend dask)")
    out_dir = Path(out) if out is not None else Path("runs") / X.dir_name(exp.name)
    expd = exp.to_dict()
    expd.pop("source", None)
    refuse_another_game(out_dir, expd)
    X.check_policies(exp)
    try:  # before anything is made: a plan too large is refused here
        specs = plan_chunks(
            [{"name": m["name"], "a": m["a"], "b": m["b"], "context": m.get("context", "")} for m in exp.played()],
            mode=exp.mode, n=exp.count,
            seed=exp.seed, rules=exp.rules, duplicate=exp.duplicate, chunk_size=exp.chunk_size, levels=exp.levels,
            declaring_team=exp.declaring_team, modules=exp.strategy_modules, game=exp.game)
    except ValueError as e:
        raise X.ExperimentError(f"{exp.source}: {e}") from None
    index = {m["name"]: i for i, m in enumerate(exp.played())}
    plugins = []
    for s in {(s.matchup, s.half): s for s in specs}.values():  # policies may be tables: not hashable
        plugins += [p for p in sandbox.plugins(s) if p not in plugins]
    isolate = bool(plugins) or chunk_timeout is not None
    timeout = chunk_timeout if chunk_timeout is not None else sandbox.DEFAULT_CHUNK_TIMEOUT if plugins else None
    # report.drawing's helper for the figures: its imports beside the run; forked before the store locks the
    # directory, so it holds no copy of the lock
    with _terminable(), (drawing.helper() if report else nullcontext()):
        with RunStore(out_dir, expd, command, fingerprint.of_run(exp)) as store:
            manifest = store.open(repair=repair)
            todo = [s for s in specs if not store.done(s, index)]
            skipped = len(specs) - len(todo)
            if log and store.repaired:
                log("repaired: " + "; ".join(store.repaired))
            if log and skipped:
                log(f"resuming: {skipped} of {len(specs)} chunks already done")
            manifest["plugins"] = plugins
            t0 = time.perf_counter()
            try:
                with make_executor(backend, workers, scheduler, specs=todo, isolate=isolate) as executor:
                    manifest["backend"] = executor.describe() if executor else "local: in this process"
                    if todo:
                        _compile_first(todo, executor, timeout, compiling)
                    with (progress(len(specs), skipped) if progress else nullcontext(lambda n, decisions=0: None)) \
                            as advance:
                        for result in iter_results(todo, executor, timeout):
                            store.write(result, index)
                            advance(len(result.deals), result.extra.get("decisions", 0))
            except SimulationError as e:
                raise type(e)(f"{e}\n(the chunks finished before this one are kept in {out_dir}; "
                              "fix and run again to resume)") from None
            n_deals = store.finalize(manifest, time.perf_counter() - t0, expected=specs)
            result = RunResult(out_dir, n_deals, manifest, len(specs), skipped, list(store.repaired))
        if report:
            from tractor_sim.report import build_report

            result.report = build_report(out_dir)
    return result


@contextmanager
def _terminable():
    """SIGTERM and SIGHUP during a run, its report included, end it as Ctrl-C does (finished chunks
    kept, the .lock file removed by the store's close, exit 130 with a message): Python's default for
    them ends the process without a word.
    Only the main thread may set handlers; elsewhere the defaults stay."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
