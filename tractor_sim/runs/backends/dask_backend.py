"""The Dask backend: a concurrent.futures executor on a distributed cluster.

``DaskBackend.start(scheduler="tcp://HOST:PORT")`` connects to a running
cluster; ``DaskBackend.start(workers=N)`` starts a LocalCluster of N
single-threaded worker processes for the run (closed by ``close``).

* Warm-up: one worker per host first (it fills that host's numba cache if it
  is empty, compiling once, about 20 s), then all the others (cache hits,
  about a second).  A worker that cannot load the experiment's strategies
  fails here, with its address, before any chunk runs.  Workers that join or
  restart later warm up on their first chunk, from the cache.
* Tasks are submitted ``pure=False`` (a resubmitted chunk is a new task) with
  ``retries``: a task that raises is retried by Dask; the tasks of a worker
  that dies are rescheduled by the scheduler (up to its
  ``distributed.scheduler.allowed-failures``, then ``KilledWorker``).
  Strategy errors come back as values (``ChunkFailure``), so they are not
  retried.
"""

from __future__ import annotations

import contextlib
import logging
import time

from tractor_sim.runs.backends import DEFAULT_ATTEMPTS, Backend, BackendError, warm_up

CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler
INSTALL_HINT = "the dask backend needs dask[distributed]: pip install 'tractor-sim[dask]'"


def _import_distributed():
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError(INSTALL_HINT) from None
    return Client, LocalCluster


class DaskBackend(Backend):
    name = "dask"
    driver_retries = False  # Dask retries and reschedules by itself

    def __init__(self, client, cluster=None, attempts: int = DEFAULT_ATTEMPTS):
        self.client = client
        self.cluster = cluster
        self._window = (0.0, 8)
        super().__init__(client.get_executor(pure=False, retries=max(0, attempts - 1)), attempts)

    @classmethod
    def start(cls, workers: int = 1, scheduler: str | None = None, warm_spec=None,
              attempts: int = DEFAULT_ATTEMPTS, timeout: float | None = None) -> DaskBackend:
        Client, LocalCluster = _import_distributed()
        cluster = None
        if scheduler:
            client = _connect(Client, scheduler, CONNECT_TIMEOUT if timeout is None else timeout)
        else:
            warm_up(warm_spec)  # same host: fill the numba cache once before the workers start
            cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1, processes=True,
                                   dashboard_address=":0", silence_logs=logging.ERROR)
            client = Client(cluster)
        be = cls(client, cluster, attempts)
        try:
            be.warm_seconds = be.warm_workers(warm_spec)
        except BaseException:
            be.close()
            raise
        return be

    def warm_workers(self, spec=None) -> dict:
        """Warm every worker (one per host first); return {worker address: seconds}."""
        info = self.client.scheduler_info(n_workers=-1)["workers"] if _takes_n_workers(self.client) \
            else self.client.scheduler_info()["workers"]
        if not info:
            raise BackendError(f"the Dask cluster at {self.client.scheduler.address} has no workers: "
                               "start some with `dask worker tcp://HOST:PORT`")
        first, rest, hosts = [], [], set()
        for addr, w in sorted(info.items()):
            (rest if w.get("host") in hosts else first).append(addr)
            hosts.add(w.get("host"))
        out = {}
        for group in (first, rest):
            futs = {a: self.client.submit(warm_up, spec, workers=[a], allow_other_workers=False, pure=False)
                    for a in group}
            for a, f in futs.items():
                try:
                    out[a] = f.result()
                except Exception as e:  # noqa: BLE001 - say which worker and why
                    raise BackendError(f"warm-up failed on Dask worker {a}: {type(e).__name__}: {e} "
                                       "(every worker needs tractor-sim and the experiment's strategy "
                                       "modules at the same paths)") from None
        return out

    def window(self) -> int:
        # keep about three chunks per worker thread in flight; re-count the workers every 2 s
        t, n = self._window
        if time.monotonic() - t > 2.0:
            with contextlib.suppress(Exception):
                n = max(4, 3 * sum(self.client.nthreads().values()))
            self._window = (time.monotonic(), n)
        return n

    def describe(self) -> str:
        n = len(self.client.nthreads())
        where = "a local cluster" if self.cluster is not None else f"the cluster at {self.client.scheduler.address}"
        return f"dask: {where}, {n} worker(s)"

    def worker_pids(self) -> list[int]:
        import os

        return list(self.client.run(os.getpid).values())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.executor.shutdown(wait=False)
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()


def _connect(Client, scheduler: str, wait: float):
    """A Client on ``scheduler``, or BackendError within about ``wait`` seconds, whatever answers there.

    Client's own timeout covers the TCP connect, not a server that accepts and
    then says nothing a scheduler would (an HTTP server: minutes), or sends a
    greeting read as a frame length ("Unable to allocate 2.82 EiB").  So the
    handshake runs in a thread and the driver waits for it with a deadline.
    """
    import threading

    box: dict = {}

    def connect():
        try:
            box["client"] = Client(scheduler, timeout=f"{wait}s")
        except BaseException as e:  # noqa: BLE001 - reported below, with the address
            box["error"] = e

    t = threading.Thread(target=connect, daemon=True, name="dask-connect")
    t.start()
    t.join(wait + 2.0)
    hint = ("is `dask scheduler` running there, and is the address tcp://HOST:PORT "
            "(port 8786 by default)?")
    if t.is_alive():
        raise BackendError(f"the service at {scheduler} did not answer as a Dask scheduler within {wait:g} s; {hint}")
    if "error" in box:
        e = box["error"]
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler} within {wait:g} s "
                           f"({type(e).__name__}: {e}); {hint}")
    return box["client"]


def _takes_n_workers(client) -> bool:
    import inspect

    try:
        return "n_workers" in inspect.signature(client.scheduler_info).parameters
    except (TypeError, ValueError):
        return False


@contextlib.contextmanager
def dask_executor(workers: int = 1, scheduler: str | None = None):
    """Yield a DaskBackend (a LocalCluster of ``workers``, or the cluster at ``scheduler``)."""
    be = DaskBackend.start(workers=workers, scheduler=scheduler)
    try:
        yield be
    finally:
        be.close()
