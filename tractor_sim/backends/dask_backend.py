"""The Dask backend: a concurrent.futures executor on a distributed cluster."""

from __future__ import annotations

import contextlib

from tractor_sim.backends import BackendError


@contextlib.contextmanager
def dask_executor(workers: int = 1, scheduler: str | None = None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError(
            "the dask backend needs dask[distributed]: pip install 'tractor-sim[dask]'") from None
    cluster = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as e:
                raise BackendError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        else:
            cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            yield client.get_executor(retries=2)
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
