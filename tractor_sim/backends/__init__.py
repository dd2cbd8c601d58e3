"""Backends: where chunks run, all behind one concurrent.futures interface.

``local`` with one worker runs chunks in this process; with more, a process
pool (each worker compiles once, then hits the numba cache).  ``dask`` uses
``Client.get_executor()`` on an existing scheduler or a LocalCluster started
for the run.  Chunks are keyed by deal ids, so every backend gives the same
records for the same seed.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ProcessPoolExecutor


class BackendError(RuntimeError):
    """A backend that cannot start; the message says what to do."""


@contextlib.contextmanager
def make_executor(backend: str = "local", workers: int = 1, scheduler: str | None = None):
    """Yield an executor (or None: run in this process)."""
    if backend == "local":
        if scheduler:
            raise BackendError("--scheduler goes with --backend dask")
        if workers <= 1:
            yield None
            return
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as ex:
            yield ex
        return
    if backend == "dask":
        from tractor_sim.backends.dask_backend import dask_executor

        with dask_executor(workers, scheduler) as ex:
            yield ex
        return
    raise BackendError(f"unknown backend {backend!r}: expected local or dask")
