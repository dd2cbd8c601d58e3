"""Backends: where chunks run, all behind one concurrent.futures interface.

A run is a list of picklable ``ChunkSpec``; a backend plays them somewhere
and hands back ``ChunkResult`` record arrays to the driver, which writes the
run store and the progress bar as chunks finish (``run_chunks``).

* ``local``: one worker runs the chunks in this process; more workers use a
  ``ProcessPoolExecutor`` (spawned processes, each warmed up once by its
  initializer, which loads the compiled kernel from the numba cache).  The
  default (``workers=None``) uses every usable core, but stays in this process
  for runs too small to pay for starting the pool.
* ``dask``: ``Client.get_executor()`` on an existing scheduler, or on a
  ``LocalCluster`` started for the run and closed after it
  (``dask_backend.py``; needs ``pip install 'tractor-sim[dask]'``).

Failures.  A chunk that raises ``engine.SimulationError`` (a strategy broke a
rule: deterministic) is reported at once and never retried; the worker sends
it back as a ``ChunkFailure`` value so that no retry layer sees an exception.
Anything else is retried a bounded number of times: a dead process breaks a
process pool, which is replaced and the chunks it held resubmitted; on Dask
the scheduler reschedules the tasks of a dead worker and the executor retries
failed tasks.  Every result is checked against its spec (exactly the ids it
was asked for), and ``RunStore.finalize`` checks the whole id set, so a run
can neither lose nor duplicate a chunk silently.

Chunks are keyed by deal ids, so every backend gives the same records for the
same seed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, CancelledError, Executor, wait
from dataclasses import dataclass, replace

from tractor_sim.play import sandbox
from tractor_sim.runs.engine import SimulationError, plan_chunks

DEFAULT_ATTEMPTS = 3  # tries per chunk (the first run and two retries)
POOL_MIN_DEALS = 50_000  # auto: smaller runs stay in-process (see docs/cluster.md, "Choosing --workers")
DEALS_PER_MATCH = 10  # rough size of a match, to weigh match-mode runs for the rule above


class BackendError(RuntimeError):
    """A backend that cannot start, or a chunk that kept failing; the message says what to do."""


@dataclass(frozen=True)
class ChunkFailure:
    """A deterministic failure (``engine.SimulationError``) sent back as a value, not an exception."""

    message: str


# --------------------------------------------------------------------------- worker side


def play(spec):
    """The task every backend runs: one chunk in; its records, or a ChunkFailure, out."""
    try:
        return sandbox.run_checked(spec)
    except SimulationError as e:
        return ChunkFailure(str(e))


def warm_up(spec=None) -> float:
    """Load (or compile, on an empty numba cache) the kernel and the spec's strategies; return seconds.

    Plays the spec's first deal.  A strategy error is ignored here: the real
    chunk reports it with its full context.
    """
    t0 = time.perf_counter()
    spec = plan_chunks([("basic", "basic")], n=1, duplicate=False)[0] if spec is None else spec
    with contextlib.suppress(SimulationError):
        sandbox.run_checked(replace(spec, count=1))
    return time.perf_counter() - t0


def _warm_worker(spec, driver: int) -> None:  # ProcessPoolExecutor initializer
    die_with(driver)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's: it stops the workers itself
    with contextlib.suppress(Exception):  # whatever fails here fails again in the first chunk, reported there
        warm_up(spec)


def die_with(driver: int) -> None:
    """Make this worker exit when the driver process dies, even by SIGKILL (Linux: a parent-death signal).

    Without it a killed driver leaves its pool workers running (and holding
    their memory) until their chunk ends, or forever in a plug-in's endless
    loop.  Elsewhere a watchdog thread polls the parent instead.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError):
        import threading

        def watch():
            while os.getppid() == driver:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="driver-watchdog").start()
    if os.getppid() != driver:  # the driver died before the signal was armed
        os._exit(1)


# --------------------------------------------------------------------------- backends


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def auto_workers(specs: Iterable | None = None) -> int:
    """The default number of local workers: every usable core, or 1 for a small run.

    Starting a spawned, warmed worker costs about 1.5 s of CPU here, so a pool
    pays off only for runs of a few seconds or more; below ``POOL_MIN_DEALS``
    deals (or a single chunk) the run stays in this process.
    """
    cpus = usable_cpus()
    if specs is None:
        return cpus
    specs = list(specs)
    deals = sum(s.count * (DEALS_PER_MATCH if s.mode == "match" else 1) for s in specs)
    if cpus <= 1 or len(specs) < 2 or deals < POOL_MIN_DEALS:
        return 1
    return min(cpus, len(specs))


class Backend:
    """A concurrent.futures executor plus what the driver needs to run chunks on it reliably.

    ``submit(fn, spec)`` returns a concurrent.futures Future.  ``window()``:
    how many chunks to keep in flight (None: all).  ``renew()``: replace a
    broken executor (False if this backend cannot).  ``driver_retries``:
    whether ``run_chunks`` resubmits a chunk whose future raised (False when
    the executor retries by itself, as Dask does).
    """

    name = "executor"
    driver_retries = True

    def __init__(self, executor: Executor, attempts: int = DEFAULT_ATTEMPTS):
        self.executor = executor
        self.attempts = attempts
        self.renewals = 0

    def submit(self, fn, spec):
        return self.executor.submit(fn, spec)

    def window(self) -> int | None:
        return None

    def renew(self) -> bool:
        return False

    def describe(self) -> str:
        return type(self.executor).__name__

    def worker_pids(self) -> list[int]:
        return []

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)

    def kill(self) -> None:
        """Stop at once (Ctrl-C, a chunk over its time limit): no waiting for running chunks."""
        self.executor.shutdown(wait=False, cancel_futures=True)

    def run(self, specs) -> Iterator:
        return run_chunks(specs, self)


class ProcessPoolBackend(Backend):
    """``workers`` spawned processes, each warmed up once; replaced if one dies."""

    name = "local"

    def __init__(self, workers: int, warm_spec=None, attempts: int = DEFAULT_ATTEMPTS):
        self.workers = workers
        self._warm_spec = warm_spec
        super().__init__(self._new_pool(), attempts)

    def _new_pool(self):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork: no inherited threads or locks, and the same start-up on every OS
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("spawn"),
                                   initializer=_warm_worker, initargs=(self._warm_spec, os.getpid()))

    def window(self) -> int:
        return 2 * self.workers  # enough queued to keep every worker busy; few to resubmit after a crash

    def renew(self) -> bool:
        with contextlib.suppress(Exception):
            self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._new_pool()
        self.renewals += 1
        return True

    def describe(self) -> str:
        return f"local: a pool of {self.workers} worker processes"

    def kill(self) -> None:
        """SIGKILL the workers (a chunk in compiled code never returns to hear anything else)."""
        for pid in self.worker_pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        super().kill()

    def worker_pids(self) -> list[int]:
        return list(getattr(self.executor, "_processes", None) or {})


# --------------------------------------------------------------------------- the driver loop


def check_result(result, spec) -> None:
    """A chunk's records hold exactly the ids its spec asked for (a cheap guard against mix-ups)."""
    import numpy as np

    if result.spec != spec:
        raise BackendError(f"a worker answered chunk {_name(result.spec)} for chunk {_name(spec)}")
    want = np.arange(spec.first_id, spec.first_id + spec.count)
    got = result.deals["deal_id"] if spec.mode == "fixed" else result.matches["match_id"]
    if len(got) != len(want) or not np.array_equal(np.sort(got), want):
        what = "deal" if spec.mode == "fixed" else "match"
        raise BackendError(f"chunk {_name(spec)} came back with {len(got)} {what} records, "
                           f"not {what} ids {spec.first_id}..{spec.first_id + spec.count - 1}")


def _name(spec) -> str:
    return f"{spec.matchup} half {spec.half} ids {spec.first_id}..{spec.first_id + spec.count - 1}"


def run_chunks(specs, backend, task=play, timeout: float | None = None) -> Iterator:
    """Run ``specs`` on ``backend`` (a Backend or any concurrent.futures executor); yield results as they finish.

    Every spec is yielded exactly once, or the iterator raises:
    ``engine.SimulationError`` for a strategy error (not retried), or
    ``BackendError`` for a chunk that failed ``attempts`` times or a lost
    cluster, ``sandbox.PluginTimeout`` when no chunk finished for ``timeout``
    seconds.  Futures still in flight are cancelled when the iterator stops.
    """
    if not isinstance(backend, Backend):
        backend = Backend(backend)
    specs = list(specs)
    todo = deque(range(len(specs)))
    tries = [0] * len(specs)
    inflight: dict = {}

    def give_up(i, why, exc=None):
        times = f"{tries[i]} time(s)" if backend.driver_retries else f"on {backend.name} (after its own retries)"
        raise BackendError(f"chunk {_name(specs[i])} failed {times}: {why}") from exc

    def resubmit(i, why, exc=None):
        if tries[i] >= backend.attempts:
            give_up(i, why, exc)
        todo.appendleft(i)

    try:
        while todo or inflight:
            limit = backend.window()
            broken = False
            while todo and (limit is None or len(inflight) < limit):
                i = todo.popleft()
                try:
                    fut = backend.submit(task, specs[i])
                except BrokenExecutor:
                    todo.appendleft(i)
                    broken = True
                    break
                tries[i] += 1
                inflight[fut] = i
            if inflight and not broken:
                done, _ = wait(list(inflight), timeout=timeout, return_when=FIRST_COMPLETED)
                if not done:
                    raise sandbox.PluginTimeout(sandbox.timeout_message([specs[i] for i in inflight.values()],
                                                                        timeout))
            else:
                done = set()
            lost = []
            for fut in sorted(done, key=inflight.get):
                i = inflight.pop(fut)
                try:
                    out = fut.result()
                except BrokenExecutor as e:
                    lost.append((i, e))
                    continue
                except CancelledError:
                    raise BackendError(
                        f"chunk {_name(specs[i])} was cancelled: the cluster went away "
                        "(finished chunks are kept; run the same command again to resume)") from None
                except Exception as e:  # noqa: BLE001 - any other failure: retry, bounded
                    if not backend.driver_retries:
                        give_up(i, _explain(e), e)
                    resubmit(i, _explain(e), e)
                    continue
                if isinstance(out, ChunkFailure):
                    raise SimulationError(out.message)
                check_result(out, specs[i])
                yield out
            if lost or broken:
                # A dead worker breaks the whole pool: every chunk still in it fails.  Keep the
                # results that made it, then resubmit the rest to a fresh pool.
                wait(list(inflight))
                for fut, i in sorted(inflight.items(), key=lambda kv: kv[1]):
                    if fut.exception() is None and not isinstance(fut.result(), ChunkFailure):
                        check_result(fut.result(), specs[i])
                        yield fut.result()
                    elif fut.exception() is None:
                        raise SimulationError(fut.result().message)
                    else:
                        lost.append((i, fut.exception()))
                inflight.clear()
                if not backend.renew():
                    i, e = lost[0] if lost else (todo[0], None)
                    give_up(i, f"the executor broke ({_explain(e)}) and cannot be replaced", e)
                for i, e in sorted(lost, key=lambda ie: ie[0], reverse=True):
                    resubmit(i, f"a worker process died ({_explain(e)})", e)
    finally:
        for fut in inflight:
            fut.cancel()


def _explain(e) -> str:
    if e is None:
        return "unknown"
    name = type(e).__name__
    if name == "KilledWorker":
        return f"it killed every worker that ran it (a crash, or out of memory?): {e}"
    return f"{name}: {e}" if str(e) else name


# --------------------------------------------------------------------------- entry point


@contextlib.contextmanager
def make_executor(backend: str = "local", workers: int | None = None, scheduler: str | None = None, *,
                  specs=None, attempts: int = DEFAULT_ATTEMPTS, timeout: float | None = None,
                  isolate: bool = False):
    """Yield a ``Backend`` for ``runner.iter_results``, or None: run in this process.

    ``workers=None``: local, every usable core (1 for a small run, judged
    from ``specs``); dask, a LocalCluster of that many workers unless
    ``scheduler`` is given.  ``specs`` also picks the chunk that warms the
    workers up.  ``timeout``: seconds to reach a Dask scheduler.
    ``isolate``: never run a chunk in this process (user plug-ins: a worker
    in an endless loop can be killed, the driver cannot), and do not warm up
    here either.  Leaving the block by an exception kills the workers.
    """
    specs = list(specs) if specs is not None else None
    warm_spec = specs[0] if specs else None
    if backend == "local":
        if scheduler:
            raise BackendError("--scheduler goes with --backend dask")
        n = auto_workers(specs) if workers is None else int(workers)
        if specs is not None:
            n = min(n, len(specs))  # no idle workers (and none at all when nothing is left to do)
        if n <= 1 and not (isolate and specs):
            yield None
            return
        if not isolate:
            # Warm up here first: an empty numba cache is filled once (about 20 s of compiling),
            # not by every worker at once, and a broken strategy module fails before any worker starts.
            warm_up(warm_spec)
        pool = ProcessPoolBackend(max(1, n), warm_spec, attempts)
        try:
            yield pool
        except BaseException:
            pool.kill()
            raise
        pool.close()
        return
    if backend == "dask":
        from tractor_sim.runs.backends.dask_backend import DaskBackend

        if scheduler and workers is not None:
            raise BackendError("--workers starts a local Dask cluster; with --scheduler the cluster's "
                               "own workers run the chunks: give one or the other")
        be = DaskBackend.start(workers=workers if workers is not None else usable_cpus(), scheduler=scheduler,
                               warm_spec=warm_spec, attempts=attempts, timeout=timeout)
        try:
            yield be
        finally:
            be.close()
        return
    raise BackendError(f"unknown backend {backend!r}: expected local or dask")
