"""Backends: a process pool and a Dask LocalCluster of 2 workers give the local results,
survive a killed worker, retry what can be retried, report what cannot, and the
run store refuses a result set with a gap or a duplicate."""

import functools
import os
import signal
import socket
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from tractor_sim.runs import engine

from tractor_sim.runs import runner
from tractor_sim.runs import backends as B
from tractor_sim.cli import main
from tractor_sim.runs.store import RunStore, StoreError

try:
    from tests.plugin_sources import illegal_follow
except ImportError:  # tests/ on sys.path instead of the project root
    from plugin_sources import illegal_follow

pytest.importorskip("distributed")

EXPERIMENT = """
name = "scale"
seed = 31
mode = "fixed"
count = 200
duplicate = true
chunk_size = 50

[rules]
preset = "standard"

[[matchup]]
a = "basic"
b = "random"

[[matchup]]
a = "expert"
b = "basic"
"""

BAD_MODULE = illegal_follow("first_cards_anyway", "reckless", preamble="""
import os

with open(os.environ["TRACTOR_TEST_LOADS"], "a") as f:  # one line per load = per chunk attempt
    f.write(f"{os.getpid()}\\n")
""")


def _specs(n=300, chunk=25, seed=5, matchups=(("basic", "random"),), **kw):
    return engine.plan_chunks(list(matchups), n=n, seed=seed, chunk_size=chunk, **kw)


def _frames(results):
    return engine.to_frames(list(results))


@pytest.fixture(scope="module")
def specs():
    return _specs()


@pytest.fixture(scope="module")
def reference(specs):
    return _frames(runner.iter_results(specs))  # in this process, in order


@pytest.fixture(scope="module")
def pool(specs):
    with B.make_executor("local", 2, specs=specs) as be:
        yield be


@pytest.fixture(scope="module")
def dask(specs):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this file
    with B.make_executor("dask", 2, specs=specs) as be:
        yield be


@pytest.fixture(scope="module")
def long_specs():
    """Six chunks of about 0.1 s each: long enough to kill a worker in the middle of one."""
    specs = _specs(n=6000, chunk=1000, duplicate=False)
    return specs, _frames(runner.iter_results(specs))


def _assert_same(a, b):
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])


# --------------------------------------------------------------------------- same results


def test_process_pool_gives_the_local_results(pool, specs, reference):
    assert isinstance(pool, B.ProcessPoolBackend) and pool.workers == 2
    _assert_same(reference, _frames(runner.iter_results(specs, pool)))


def test_dask_local_cluster_gives_the_local_results(dask, specs, reference):
    assert len(dask.client.nthreads()) == 2 and dask.cluster is not None
    assert len(dask.warm_seconds) == 2  # every worker warmed up before the run
    _assert_same(reference, _frames(runner.iter_results(specs, dask)))


def test_match_mode_on_dask(dask):
    s = _specs(n=4, chunk=1, mode="match", duplicate=False)
    _assert_same(_frames(runner.iter_results(s)), _frames(runner.iter_results(s, dask)))


def test_a_plain_executor_works_too(specs, reference):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as ex:
        _assert_same(reference, _frames(runner.iter_results(specs, ex)))


def test_cli_deals_parquet_is_byte_identical_on_every_backend(dask, tmp_path, monkeypatch):
    import tractor_sim.report

    monkeypatch.setattr(tractor_sim.report, "build_report", lambda run_dir: ("-", "-"))  # not under test here
    exp = tmp_path / "scale.toml"
    exp.write_text(EXPERIMENT)
    runs = {"in-process": ["--workers", "1"], "pool": ["--workers", "2"],
            "dask": ["--backend", "dask", "--scheduler", dask.client.scheduler.address]}
    data = {}
    for name, extra in runs.items():
        out = tmp_path / name
        r = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet", *extra])
        assert r.exit_code == 0, r.output
        data[name] = (out / "deals.parquet").read_bytes()
        df = pd.read_parquet(out / "deals.parquet")
        assert len(df) == 800 and not df.duplicated(["matchup", "half", "deal_id"]).any()
    assert data["in-process"] == data["pool"] == data["dask"]


# --------------------------------------------------------------------------- killed workers


def test_pool_worker_killed_mid_run_still_complete_and_identical(pool, long_specs):
    specs, reference = long_specs
    before = pool.renewals
    results, killed = [], []
    for r in runner.iter_results(specs, pool):
        results.append(r)
        if not killed:
            pid = pool.worker_pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed.append((pid, len(results)))
    assert killed[0][1] < len(specs), "the kill came after the run"
    assert pool.renewals == before + 1, "the broken pool should have been replaced once"
    assert killed[0][0] not in pool.worker_pids()
    _assert_same(reference, _frames(results))


def test_pool_gives_up_after_bounded_attempts(tmp_path):
    s = _specs(n=20, chunk=10, duplicate=False)
    with B.make_executor("local", 2, specs=s, attempts=2) as be:
        with pytest.raises(B.BackendError, match=r"failed 2 time\(s\): a worker process died"):
            list(B.run_chunks(s, be, task=_die))
        assert be.renewals == 2


def test_dask_worker_killed_mid_run_still_complete_and_identical(dask, long_specs):
    specs, reference = long_specs
    pids = dask.client.run(os.getpid)  # {worker address: pid}
    results, killed = [], None
    for r in runner.iter_results(specs, dask):
        results.append(r)
        if killed is None:
            busy = [a for a, keys in dask.client.processing().items() if keys]
            assert busy, "no chunk left running: the test cannot kill a worker mid-chunk"
            killed = pids[busy[0]]
            os.kill(killed, signal.SIGKILL)
    _assert_same(reference, _frames(results))
    deadline = time.time() + 30  # the nanny restarts the worker
    while time.time() < deadline and len(dask.client.nthreads()) < 2:
        time.sleep(0.2)
    assert killed not in dask.worker_pids() and len(dask.worker_pids()) == 2


# --------------------------------------------------------------------------- retries and errors


@pytest.mark.parametrize("which", ["pool", "dask"])
def test_a_transient_failure_is_retried(which, request, tmp_path):
    be = request.getfixturevalue(which)
    s = _specs(n=40, chunk=10, duplicate=False)
    results = list(B.run_chunks(s, be, task=functools.partial(_flaky, str(tmp_path))))
    assert sorted(r.spec.first_id for r in results) == [0, 10, 20, 30]
    assert len(list(tmp_path.glob("failed-*"))) == 4  # each chunk failed once, then ran


@pytest.mark.parametrize("which", ["pool", "dask"])
def test_a_strategy_error_is_reported_not_retried(which, request, tmp_path, monkeypatch):
    be = request.getfixturevalue(which)
    mod = tmp_path / "reckless.py"
    mod.write_text(BAD_MODULE)
    loads = tmp_path / "loads.txt"
    monkeypatch.setenv("TRACTOR_TEST_LOADS", str(loads))
    if which == "dask":  # the workers' environment was fixed at start: tell them too
        be.client.run(_setenv, "TRACTOR_TEST_LOADS", str(loads))
    else:
        be.renew()  # fresh workers inherit the variable
    s = engine.plan_chunks([("reckless", "basic")], n=60, seed=1, chunk_size=60, duplicate=False,
                           modules=[str(mod)])
    with pytest.raises(engine.SimulationError, match="first_cards_anyway.*illegal follow"):
        list(runner.iter_results(s, be))
    assert len(loads.read_text().split()) == 1, "the failing chunk ran more than once"


def test_unreachable_scheduler_is_a_clear_error(monkeypatch, tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    t = time.time()
    with pytest.raises(B.BackendError, match=rf"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        with B.make_executor("dask", scheduler=f"tcp://127.0.0.1:{port}", timeout=1):
            pass
    assert time.time() - t < 20
    from tractor_sim.runs.backends import dask_backend

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", 1)
    exp = tmp_path / "scale.toml"
    exp.write_text(EXPERIMENT)
    r = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "r"), "--quiet", "--backend", "dask",
                                  "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert r.exit_code == 1 and "cannot reach the Dask scheduler" in r.output and "Traceback" not in r.output


def test_missing_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(B.BackendError, match=r"pip install 'tractor-sim\[dask\]'"):
        with B.make_executor("dask", 2):
            pass


def test_option_mistakes():
    with pytest.raises(B.BackendError, match="--scheduler goes with --backend dask"):
        with B.make_executor("local", 2, scheduler="tcp://x:1"):
            pass
    with pytest.raises(B.BackendError, match="one or the other"):
        with B.make_executor("dask", 2, scheduler="tcp://x:1"):
            pass
    with pytest.raises(B.BackendError, match="unknown backend"):
        with B.make_executor("spark"):
            pass


def test_auto_workers(monkeypatch):
    monkeypatch.setattr(B, "usable_cpus", lambda: 4)
    assert B.auto_workers(_specs(n=2000, chunk=500)) == 1  # 4000 deals: not worth a pool
    assert B.auto_workers(_specs(n=100_000, chunk=50_000)) == 4
    assert B.auto_workers(_specs(n=100_000, chunk=100_000, duplicate=False)) == 1  # one chunk
    with B.make_executor("local", None, specs=_specs(n=100, chunk=10)) as ex:
        assert ex is None  # small: in this process


# --------------------------------------------------------------------------- the store knows its ids


def _store_run(tmp_path, specs):
    store = RunStore(tmp_path / "run", {"name": "t", "seed": 5}, "test")
    manifest = store.open()
    index = {specs[0].matchup: 0}
    for r in runner.iter_results(specs):
        store.write(r, index)
    return store, manifest, index


def test_finalize_checks_every_deal_id_is_there_once(tmp_path):
    specs = _specs(n=60, chunk=20)
    store, manifest, index = _store_run(tmp_path, specs)
    parts = sorted(store.parts.glob("*.deals.parquet"))
    # a duplicate: the same sealed part under another part name
    dup = "m000-h0-999999999999"
    for kind in ("deals.parquet", "matches.parquet", "sum"):
        (store.parts / f"{dup}.{kind}").write_bytes((store.parts / f"{parts[0].name[:-14]}.{kind}").read_bytes())
    with pytest.raises(StoreError, match=r"half 0: deal_ids 20 duplicated"):
        store.finalize(manifest, 1.0, expected=specs)
    assert not (store.dir / "deals.parquet").exists()
    for f in store.parts.glob(f"{dup}.*"):
        f.unlink()
    # a gap
    for f in store.parts.glob(f"{parts[1].name[:-14]}.*"):
        f.unlink()
    with pytest.raises(StoreError, match=r"half 0: deal_ids 20 missing \(e\.g\. 20, 21, 22\)"):
        store.finalize(manifest, 1.0, expected=specs)
    # ids outside the plan
    with pytest.raises(StoreError, match="not in the plan"):
        store.finalize(manifest, 1.0, expected=[s for s in specs if s.half == 1])
    # complete again: fine
    r = engine.run_chunk(specs[1])
    store.write(r, index)
    assert store.finalize(manifest, 1.0, expected=specs) == 120
    deals = pd.read_parquet(store.dir / "deals.parquet")
    assert len(deals) == 120 and not deals.duplicated(["half", "deal_id"]).any()
    assert list(deals["half"]) == [0] * 60 + [1] * 60  # streamed in part order: half, then ids
    assert (deals.groupby("half")["deal_id"].diff().dropna() == 1).all()


def test_finalize_checks_match_mode(tmp_path):
    specs = _specs(n=3, chunk=1, mode="match", duplicate=False)
    store, manifest, _ = _store_run(tmp_path, specs)
    store.finalize(manifest, 1.0, expected=specs)
    matches = pd.read_parquet(store.dir / "matches.parquet")
    assert len(matches) == 3 and list(matches["match_id"]) == [0, 1, 2]
    with pytest.raises(StoreError, match="match_ids 1 missing"):
        store.finalize(manifest, 1.0, expected=specs + _specs(n=4, chunk=1, mode="match", duplicate=False)[3:])


# --------------------------------------------------------------------------- helpers run by workers


def _setenv(key, value):
    os.environ[key] = value


def _die(spec):
    os._exit(3)


def _flaky(marker_dir, spec):
    marker = Path(marker_dir) / f"failed-{spec.first_id}"
    if not marker.exists():
        marker.write_text("x")
        raise OSError("a transient failure")
    return B.play(spec)
