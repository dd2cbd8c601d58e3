"""Where the report's figures are drawn: in this process, or in a helper process forked for the run.

matplotlib's import and the figures were a third of a warm quick start (about 1 s of 3.1), and only
the HTML page waits on them.  So a run that will write its report forks a helper once its inputs are
checked (``helper``): it imports the plots while the run plays, then draws each figure while this
process works out the report's text.  Only a process with one thread forks (a fork copies the forking
thread alone, and with it any lock another thread held); elsewhere (a notebook, a test runner's worker),
and if the helper dies, the figures are drawn here: the same code and the same pixels either way.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

_pool: ProcessPoolExecutor | None = None  # the helper, while ``helper()`` is open


def _plot(plot: str, path: Path, data, extra: tuple) -> Path:
    from tractor_sim.report import plots

    return getattr(plots, plot)(data, path, *extra)


def _start_helper() -> None:
    """The helper's start.  Ctrl-C, SIGTERM and SIGHUP (sent to the whole group) end it at once and
    silently, their default action (the run's handlers would raise in it): the run's own process says what
    happened.  A run process that ends without closing it (killed, or Ctrl-C's immediate exit inside a
    kernel) ends it too, through the pipe multiprocessing keeps to the parent.  The plots imported now,
    beside the run."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    threading.Thread(target=_end_with_parent, daemon=True, name="parent-watch").start()
    import tractor_sim.report.plots  # noqa: F401


def _end_with_parent() -> None:
    multiprocessing.connection.wait([multiprocessing.parent_process().sentinel])
    os._exit(0)


@contextmanager
def helper():
    """While open, ``draw`` hands the figures to a helper process forked now (when this process has one
    thread and can fork; else nothing changes)."""
    global _pool
    if (_pool is not None or threading.active_count() > 1
            or "fork" not in multiprocessing.get_all_start_methods()):
        yield
        return
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=_start_helper)
    try:
        pool.submit(int)  # forks the helper now, so its imports run beside the run
    except OSError:  # no process to be had (a process limit, memory): the figures are drawn here
        pool.shutdown(wait=False)
        yield
        return
    _pool = pool
    try:
        yield
    finally:
        _pool = None
        pool.shutdown(wait=True, cancel_futures=True)


def draw(plot: str, path: Path, data, *extra) -> Future:
    """``plots.<plot>(data, path, *extra)``, in the helper when one is open; the future holds the path or
    the plot's error (``drawn`` waits for it)."""
    if _pool is not None:
        try:
            return _pool.submit(_plot, plot, path, data, extra)
        except (BrokenProcessPool, RuntimeError):  # the helper died, or was shut down: draw here
            pass
    return _drawn_here(plot, path, data, extra)


def _drawn_here(plot: str, path: Path, data, extra: tuple) -> Future:
    future: Future = Future()
    try:
        future.set_result(_plot(plot, path, data, extra))
    except Exception as e:  # noqa: BLE001 - the caller says the figure was skipped, and why
        future.set_exception(e)
    return future


def drawn(future: Future, plot: str, path: Path, data, *extra) -> Path:
    """The figure's path once drawn; raises the plot's error.  A helper that died drawing it (killed, out
    of memory) leaves the figure to be drawn here."""
    try:
        return future.result()
    except BrokenProcessPool:
        return _drawn_here(plot, path, data, extra).result()
