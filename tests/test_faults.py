"""Fault injection (issue 13): kill -9 at random points, concurrent runs, edited modules, damaged parts,
bad plug-ins, bad inputs.  Every case ends in a clear message and the right exit code, never a traceback,
and no case loses or mixes results: whatever finishes is byte-identical to an undisturbed run.
"""

import http.server
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
from click.testing import CliRunner

import plugin_sources
from tractor_sim.cli import main
from tractor_sim.runs.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
TINY = """
name = "tiny"
seed = 9
count = 60
chunk_size = 20

[[matchup]]
a = "basic"
b = "random"
"""


def _run(args, input=None):
    return CliRunner().invoke(main, args, input=input, catch_exceptions=False)


def _as_at_a_terminal():
    """Ctrl-C as a terminal delivers it: a test runner started in the background (``make test &``, nohup,
    some CI shells) passes SIGINT on as *ignored*, and a program rightly keeps an inherited SIG_IGN."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(args, **kw):
    """The command in a fresh process (as a user runs it at a terminal)."""
    return subprocess.Popen([sys.executable, "-m", "tractor_sim.cli", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_at_a_terminal, **kw)


def _done(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out + err


def _clean(code, text, want_code, *culprits):
    """The common promise: this exit code, no traceback, and the message names the culprit."""
    assert "Traceback" not in text, text
    assert code == want_code, text
    for c in culprits:
        assert str(c) in text, (c, text)


@pytest.fixture()
def tiny(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """An undisturbed run of TINY: what every disturbed run must end up equal to."""
    d = tmp_path_factory.mktemp("fresh")
    (d / "tiny.toml").write_text(TINY)
    r = _run(["run", str(d / "tiny.toml"), "--out", str(d / "run"), "--quiet"])
    assert r.exit_code == 0, r.output
    return (d / "run" / "deals.parquet").read_bytes()


def test_subprocesses_import_this_tree():
    r = subprocess.run([sys.executable, "-c", "import tractor_sim; print(tractor_sim.__file__)"],
                       capture_output=True, text=True)
    assert Path(r.stdout.strip()).parent.parent == ROOT


# --------------------------------------------------------------------------- run directories


def _sealed(out):
    """How many parts of the run directory ``out`` are sealed (a .sum written)."""
    return len(list((out / "parts").glob("*.sum"))) if (out / "parts").exists() else 0


@pytest.mark.slow  # four kills; the default tier resumes after one (tests/test_cli.py)
def test_kill_9_at_random_points_then_resume_is_identical(tmp_path):
    exp = tmp_path / "long.toml"
    exp.write_text(TINY.replace("count = 60", "count = 2000").replace("chunk_size = 20", "chunk_size = 50"))
    fresh = tmp_path / "fresh"
    assert _done(_cli(["run", exp, "--out", fresh, "--quiet"]))[0] == 0
    rng = random.Random(13)
    out = tmp_path / "run"
    kills = 0
    for _ in range(4):  # killed after a random number of new sealed parts: by state, not by the clock
        wanted = _sealed(out) + rng.randint(1, 8)
        proc = _cli(["run", exp, "--out", out, "--quiet"])
        while proc.poll() is None and _sealed(out) < wanted:
            time.sleep(0.02)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 2, "the runs ended before they could be killed"
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"]))
    assert code == 0, text
    assert (out / "deals.parquet").read_bytes() == (fresh / "deals.parquet").read_bytes()


@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow),
                                 pytest.param(signal.SIGHUP, marks=pytest.mark.slow)])  # one signal by default
def test_the_lock_file_is_removed_however_a_run_ends(tmp_path, sig):
    """Finished, interrupted by a signal, or failed: no .lock is left behind (issue 28, item 6)."""
    exp = tmp_path / "long.toml"
    exp.write_text(TINY.replace("count = 60", "count = 4000").replace("chunk_size = 20", "chunk_size = 50"))
    out = tmp_path / "run"
    proc = _cli(["run", exp, "--out", out, "--quiet"])
    while _sealed(out) < 2:
        assert proc.poll() is None, ("the run ended before two of its parts were seen sealed", _done(proc))
        time.sleep(0.02)
    proc.send_signal(sig)
    code, text = _done(proc)
    assert code == 130 and "Traceback" not in text, (f"{_sealed(out)} parts sealed in the end", text)
    assert not (out / ".lock").exists()
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"]))  # resumes, and ends without a lock
    assert code == 0 and not (out / ".lock").exists(), text


def test_a_signal_while_the_report_is_built_ends_as_an_interruption(tmp_path, tiny, monkeypatch):
    """SIGTERM after the last chunk, while the report is built: the run's message and exit 130, not
    Python's silent default (-15); nothing lost, and the same command again writes the report."""
    from tractor_sim import report

    def terminated(out_dir):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler raises at the next bytecode
        raise AssertionError("SIGTERM did not interrupt the report")

    def unhandled(signum, _frame):
        raise AssertionError("SIGTERM reached the test's own handler: the run had none while reporting")

    monkeypatch.setattr(report, "build_report", terminated)
    args = ["run", str(tiny), "--out", str(tmp_path / "run"), "--quiet"]
    before = signal.signal(signal.SIGTERM, unhandled)  # without the run's handler, this one answers
    try:
        r = _run(args)
    finally:
        signal.signal(signal.SIGTERM, before)
    _clean(r.exit_code, r.output, 130, "interrupted")
    assert (tmp_path / "run" / "deals.parquet").exists() and not (tmp_path / "run" / ".lock").exists()
    monkeypatch.undo()
    r = _run(args)
    assert r.exit_code == 0 and (tmp_path / "run" / "report.html").exists(), r.output


HANDLER_PROBE = """
import os, signal, sys, time
from tractor_sim.play import sandbox
sandbox.remove_on_interrupt(sys.argv[1])
with sandbox.interruptible():
    os.kill(os.getpid(), signal.SIGINT)  # the C handler answers at once, as inside a kernel call
    time.sleep(30)
print("the handler did not end the process")
"""


def test_ctrl_c_inside_the_interruptible_block_removes_the_lock_and_exits_130(tmp_path):
    """sandbox._hard_handler's machine code: unlink the lock path it was given, write its line, exit 130."""
    lock = tmp_path / ".lock"
    lock.write_text("held")
    done = subprocess.run([sys.executable, "-c", HANDLER_PROBE, str(lock)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
                          preexec_fn=_as_at_a_terminal)
    assert (done.returncode, done.stdout) == (130, "")
    assert done.stderr.strip().startswith("error: interrupted") and not lock.exists()


def test_two_runs_at_once_into_one_directory_one_is_refused(tmp_path, tiny):
    exp = tmp_path / "long.toml"
    exp.write_text(TINY.replace("count = 60", "count = 1000000").replace("chunk_size = 20", "chunk_size = 20000"))
    out = tmp_path / "run"
    first = _cli(["run", exp, "--out", out, "--quiet", "--seed", "1", "--workers", "1"])
    try:
        while not (out / "parts").exists() or not list((out / "parts").glob("*.sum")):
            assert first.poll() is None, first.communicate()
            time.sleep(0.05)
        for seed in ("2", "1"):  # another seed, and the same one: both wait for the holder to finish
            code, text = _done(_cli(["run", exp, "--out", out, "--quiet", "--seed", seed, "--workers", "1"]))
            assert first.poll() is None, "the first run ended before the test was over: make it longer"
            _clean(code, text, 1, "in use by another run", f"pid {first.pid}", "--seed 1")
    finally:
        first.send_signal(signal.SIGINT)
    assert _done(first)[0] == 130
    parts = sorted((out / "parts").glob("*.deals.parquet"))
    assert parts and all(set(pd.read_parquet(p)["seed"]) == {1} for p in parts)
    assert len({json.loads(p.read_text())["fingerprint"] for p in (out / "parts").glob("*.sum")}) == 1


def test_a_resume_with_any_difference_is_refused_naming_it(tmp_path, tiny):
    out = tmp_path / "run"
    assert _run(["run", str(tiny), "--out", str(out), "--quiet"]).exit_code == 0
    before = (out / "deals.parquet").read_bytes()
    for extra, named in ((["--seed", "10"], "seed: 9 -> 10"), (["--deals", "61"], "count: 60 -> 61"),
                         (["--chunk-size", "30"], "chunk_size: 20 -> 30")):
        r = _run(["run", str(tiny), "--out", str(out), "--quiet", *extra])
        _clean(r.exit_code, r.output, 2, "different experiment", named)
    tiny.write_text(TINY + "[rules]\npreset = 'standard'\nkitty_multiplier = 'pow2_pairs'\n")
    r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
    _clean(r.exit_code, r.output, 2, "rules.kitty_multiplier")
    assert (out / "deals.parquet").read_bytes() == before


def test_an_edited_plugin_module_is_not_mixed_in(tmp_path):
    mod = tmp_path / "mine.py"
    mod.write_text(plugin_sources.out_of_bounds("edited_follow", "edited", row_offset=-1))  # in bounds: legal
    exp = tmp_path / "e.toml"
    exp.write_text(TINY.replace('a = "basic"', 'a = "edited"') + 'strategy_modules = ["mine.py"]\n'
                   .replace("strategy_modules", "") if False else
                   'strategy_modules = ["mine.py"]\n' + TINY.replace('a = "basic"', 'a = "edited"'))
    out = tmp_path / "run"
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"], cwd=tmp_path))
    assert code == 0, text
    mod.write_text(mod.read_text().replace("= 7", "= 8"))
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"], cwd=tmp_path))
    _clean(code, text, 2, "follow edited_follow", "the source changed")


def test_deleted_manifest_other_seed_is_refused_same_seed_resumes(tmp_path, tiny, fresh):
    out = tmp_path / "run"
    assert _run(["run", str(tiny), "--out", str(out), "--quiet"]).exit_code == 0
    (out / "manifest.json").unlink()
    r = _run(["run", str(tiny), "--out", str(out), "--quiet", "--seed", "5"])
    _clean(r.exit_code, r.output, 2, "parts of another run")
    r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    assert (out / "deals.parquet").read_bytes() == fresh


@pytest.mark.parametrize("damage", ["truncated", "not an object", "garbage"])
def test_a_damaged_manifest_is_named_and_repaired(tmp_path, tiny, fresh, damage):
    out = tmp_path / "run"
    assert _run(["run", str(tiny), "--out", str(out), "--quiet"]).exit_code == 0
    m = out / "manifest.json"
    m.write_text({"truncated": m.read_text()[:50], "not an object": "[1, 2]", "garbage": "\x00\xff"}[damage])
    r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
    _clean(r.exit_code, r.output, 1, "manifest.json", "--repair")
    r = _run(["run", str(tiny), "--out", str(out), "--quiet", "--repair"])
    assert r.exit_code == 0, r.output
    assert (out / "deals.parquet").read_bytes() == fresh


@pytest.mark.parametrize("damage", ["bit flip", "truncated", "deleted", "bad seal"])
def test_a_damaged_part_is_named_then_rerun_with_repair(tmp_path, tiny, fresh, damage):
    out = tmp_path / "run"
    assert _run(["run", str(tiny), "--out", str(out), "--quiet"]).exit_code == 0
    part = sorted((out / "parts").glob("*.deals.parquet"))[2]
    data = bytearray(part.read_bytes())
    if damage == "bit flip":
        data[len(data) // 2] ^= 0x10
        part.write_bytes(bytes(data))
    elif damage == "truncated":
        part.write_bytes(bytes(data[: len(data) // 3]))
    elif damage == "deleted":
        part.unlink()
    else:
        part.with_name(part.name.replace(".deals.parquet", ".sum")).write_text("{")
    r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
    _clean(r.exit_code, r.output, 1, part.name.split(".")[0], "--repair")
    r = _run(["run", str(tiny), "--out", str(out), "--quiet", "--repair"])
    assert r.exit_code == 0, r.output
    assert (out / "deals.parquet").read_bytes() == fresh


def test_a_part_damaged_after_resume_is_caught_at_finalize(tmp_path):
    from tractor_sim.runs import runner
    from tractor_sim.runs.engine import plan_chunks
    from tractor_sim.runs.store import StoreError

    specs = plan_chunks([("basic", "random")], n=40, seed=3, chunk_size=20)
    store = RunStore(tmp_path / "run", {"name": "t", "seed": 3}, "test")
    manifest = store.open()
    index = {specs[0].matchup: 0}
    for r in runner.iter_results(specs):
        store.write(r, index)
    part = sorted(store.parts.glob("*.matches.parquet"))[1]
    part.write_bytes(part.read_bytes() + b"x")
    with pytest.raises(StoreError, match=part.name.replace(".", r"\.") + " fails its checksum"):
        store.finalize(manifest, 1.0, expected=specs)
    assert not (store.dir / "deals.parquet").exists()


def test_a_directory_that_is_not_a_run_is_never_written_into(tmp_path, tiny):
    mine = tmp_path / "mydir"
    mine.mkdir()
    (mine / "report.md").write_text("my own report")
    r = _run(["run", str(tiny), "--out", str(mine), "--quiet"])
    _clean(r.exit_code, r.output, 2, str(mine), "not a run directory", "report.md")
    assert sorted(p.name for p in mine.iterdir()) == ["report.md"]
    assert (mine / "report.md").read_text() == "my own report"
    afile = tmp_path / "afile"
    afile.write_text("x")
    r = _run(["run", str(tiny), "--out", str(afile), "--quiet"])
    _clean(r.exit_code, r.output, 2, str(afile))
    r = _run(["run", str(tiny), "--out", str(afile / "sub"), "--quiet"])
    _clean(r.exit_code, r.output, 1, "cannot create the run directory", str(afile / "sub"))


def test_a_held_lock_names_its_holder(tmp_path, tiny):
    out = tmp_path / "run"
    holder = RunStore(out, {"name": "tiny", "seed": 9}, "tractor-sim run something --out x")
    holder.open()
    try:
        r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
        _clean(r.exit_code, r.output, 1, "in use by another run", f"pid {os.getpid()}", "run something")
    finally:
        holder.close()


def test_a_full_disk_is_a_message_and_nothing_is_lost(tmp_path, tiny, fresh, monkeypatch):
    import errno

    out = tmp_path / "run"
    real = pd.DataFrame.to_parquet
    writes = []

    def full(self, path, *a, **kw):
        writes.append(path)
        if len(writes) > 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(self, path, *a, **kw)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    r = _run(["run", str(tiny), "--out", str(out), "--quiet"])
    _clean(r.exit_code, r.output, 1, "No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    r = _run(["run", str(tiny), "--out", str(out)])
    assert r.exit_code == 0 and "resuming: 2 of 6" in r.output, r.output
    assert (out / "deals.parquet").read_bytes() == fresh


# --------------------------------------------------------------------------- plug-ins


def _plugin_run(tmp_path, source, policy, *extra, count=60):
    (tmp_path / "plug.py").write_text(source)
    exp = tmp_path / "p.toml"
    exp.write_text('strategy_modules = ["plug.py"]\n' + TINY.replace('a = "basic"', f'a = "{policy}"')
                   .replace("count = 60", f"count = {count}"))
    return exp, tmp_path / "run"


def test_a_plugin_writing_past_its_view_stops_naming_it(tmp_path):
    exp, out = _plugin_run(tmp_path, plugin_sources.out_of_bounds("scribble", "scribbler"), "scribbler")
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"]))
    _clean(code, text, 1, "follow strategy 'scribble'", "plug.py", "outside its arrays")
    assert not list((out / "parts").glob("*.sum")), "no chunk of a faulty plug-in is kept"


def test_a_plugin_in_an_endless_loop_hits_the_time_limit(tmp_path):
    exp, out = _plugin_run(tmp_path, plugin_sources.endless("forever", "looper"), "looper")
    proc = _cli(["run", exp, "--out", out, "--quiet", "--chunk-timeout", "6"])
    code, text = _done(proc, timeout=300)
    _clean(code, text, 1, "no chunk finished within 6 s", "follow strategy 'forever'", "plug.py")
    _assert_no_children_left(proc.pid)


def _children(pid):
    return [p for p in psutil.process_iter(["pid", "ppid"]) if p.info["ppid"] == pid]


def _assert_no_children_left(pid):
    for _ in range(100):
        if not _children(pid):
            return
        time.sleep(0.1)
    raise AssertionError(f"workers of {pid} still running: {_children(pid)}")


def _wait_for_workers(proc, n=1):
    for _ in range(600):
        kids = [p for p in _children(proc.pid) if "resource_tracker" not in " ".join(p.cmdline())]
        if len(kids) >= n:
            return kids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("no worker started")


def test_ctrl_c_stops_a_pool_stuck_in_a_plugin(tmp_path):
    exp, out = _plugin_run(tmp_path, plugin_sources.endless("forever2", "looper2"), "looper2")
    proc = _cli(["run", exp, "--out", out, "--quiet"])
    workers = _wait_for_workers(proc)
    time.sleep(3)  # the worker is inside the plug-in's loop by now (or warming up: either way stuck)
    proc.send_signal(signal.SIGINT)
    code, text = _done(proc, timeout=60)
    _clean(code, text, 130, "interrupted")
    for w in workers:
        assert not w.is_running() or w.status() == psutil.STATUS_ZOMBIE


def _wait_until_looping(proc, cache, spin=2.0, limit=300):
    """Until the plug-in's compiled code is in its numba cache and the process has spent ``spin`` more
    seconds of CPU since (stuck in the loop: no fixed sleep that a slow machine outruns)."""
    me, start = psutil.Process(proc.pid), time.monotonic()

    def still_waiting():
        """A tick more; a failure if the command ended, or (killed first: its output is read after it
        ends, and an endless loop never does) if the limit has passed."""
        if proc.poll() is not None:
            pytest.fail(f"the command ended: {proc.communicate()}")
        if time.monotonic() - start >= limit:
            proc.kill()
            pytest.fail(f"not looping after {limit} s: {proc.communicate()}")
        time.sleep(0.1)

    while not list(cache.glob("plug.*.nbi")):
        still_waiting()
    used = sum(me.cpu_times()[:2])
    while sum(me.cpu_times()[:2]) < used + spin:
        still_waiting()


def test_ctrl_c_in_process_stops_a_plugin_in_an_endless_loop(tmp_path):
    (tmp_path / "plug.py").write_text(plugin_sources.endless("forever3", "looper3"))
    proc = _cli(["replay", "--seed", "1", "--deal", "0", "--a", "looper3", "--module", tmp_path / "plug.py"])
    _wait_until_looping(proc, tmp_path / "__pycache__")
    proc.send_signal(signal.SIGINT)
    code, text = _done(proc, timeout=30)
    _clean(code, text, 130, "interrupted")


def test_ctrl_c_in_process_stops_a_run(tmp_path):
    exp = tmp_path / "long.toml"
    exp.write_text(TINY.replace("count = 60", "count = 200000").replace("chunk_size = 20", "chunk_size = 2000"))
    out = tmp_path / "run"
    proc = _cli(["run", exp, "--out", out, "--quiet", "--workers", "1"])
    while not (out / "parts").exists() or len(list((out / "parts").glob("*.sum"))) < 2:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    code, text = _done(proc, timeout=60)
    _clean(code, text, 130, "interrupted", "resume")


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_pool_workers_die_with_a_killed_driver(tmp_path, backend):
    exp = tmp_path / "long.toml"
    exp.write_text(TINY.replace("count = 60", "count = 400000").replace("chunk_size = 20", "chunk_size = 20000"))
    proc = _cli(["run", exp, "--out", tmp_path / "run", "--quiet", "--workers", "2", "--backend", backend])
    workers = _wait_for_workers(proc, 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(100):
        alive = [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, f"workers outlived their driver: {alive}"


def test_an_illegal_plugin_gives_a_replay_hint_that_reproduces_it(tmp_path):
    exp, out = _plugin_run(tmp_path, plugin_sources.illegal_follow("cheat", "cheater"), "cheater")
    code, text = _done(_cli(["run", exp, "--out", out, "--quiet"]))
    _clean(code, text, 1, "follow strategy 'cheat'", "replay with: tractor-sim replay")
    hint = text.split("replay with: ")[1].splitlines()[0]
    assert "--module" in hint and "cheater" in hint
    code, again = _done(_cli(__import__("shlex").split(hint)[1:]))
    _clean(code, again, 1, "follow strategy 'cheat'", "an illegal follow")


BILLION = """
from tractor_sim.play.registry import strategy, get_strategy

_base = get_strategy("follow", "smart").dispatcher


@strategy("follow", "billion_follow")
def billion_follow(view, params, rng, scratch, out):
    out[0] = 1000000000
    r = _base(view, params, rng, scratch, out)
    out[out.shape[0] - 1] = -1
    return r
"""


def test_an_answer_of_a_billion_cards_is_one_line_naming_the_counts(tmp_path):
    """A plug-in's answer may hold any count. The error writes a count no hand can hold once, with
    the count, instead of a billion card names: those took the worker's memory (a generated plug-in
    of the heavier tier, tests/test_plugin_grammar.py, made the worker die)."""
    from tractor_sim.play.errors import SimulationError
    from tractor_sim.runs.runner import simulate

    (tmp_path / "billion.py").write_text(BILLION)
    with pytest.raises(SimulationError) as e:
        simulate([({"policy": "expert", "follow": "billion_follow"}, "basic")], n=2, seed=5,
                 modules=[str(tmp_path / "billion.py")])
    message = str(e.value)
    assert "follow strategy 'billion_follow'" in message and "an illegal follow" in message
    assert "answer: 2S x1000000000" in message and "RJ x-1" in message
    assert "\n" not in message and len(message) < 2000


def test_compare_with_an_illegal_plugin_is_a_message(tmp_path):
    (tmp_path / "plug.py").write_text(plugin_sources.illegal_follow("cheat2", "cheater2"))
    r = _run(["compare", "cheater2", "basic", "--deals", "20", "--module", str(tmp_path / "plug.py")])
    _clean(r.exit_code, r.output, 1, "follow strategy 'cheat2'", "an illegal follow", "replay with:")


def test_a_strategy_defined_without_a_file_is_fingerprinted_by_its_code():
    from types import SimpleNamespace

    from tractor_sim.runs.fingerprint import _source

    def f(view, params, rng, scratch, out):
        return 0

    def g(view, params, rng, scratch, out):
        return 1

    a, b = (_source(SimpleNamespace(module="__no_such_module__", dispatcher=x)) for x in (f, g))
    assert a["file"] == "<__no_such_module__>" and a["sha256"] != b["sha256"]


def test_a_search_budget_is_in_the_fingerprint():
    """A resume with another search budget, or the search's base alone, is refused by name, not mixed:
    the strategies and parameters are the base's in all three."""
    from tractor_sim.runs import experiment as X
    from tractor_sim.runs.fingerprint import differences, of_run

    runs = [of_run(X.from_dict({"name": "t", "matchup": [{"a": a, "b": "basic", "name": "m"}]}, "t.toml"))
            for a in ("search:expert:8", "search:expert:64", "expert", {"policy": "search", "decisions": "lead",
                                                                          "worlds": 8})]
    for i, one in enumerate(runs):
        for other in runs[i + 1:]:
            assert differences(one, other) and any("search" in d for d in differences(one, other))


@pytest.mark.parametrize("body, named", [
    ("import sys\nsys.exit(3)\n", "called sys.exit(3)"),
    ("raise RuntimeError('boom at import')\n", "boom at import"),
    ("def broken(:\n", "SyntaxError"),
])
def test_a_plugin_that_fails_to_load_is_named(tmp_path, body, named):
    exp, out = _plugin_run(tmp_path, body, "basic")
    r = _run(["run", str(exp), "--out", str(out), "--quiet"])
    _clean(r.exit_code, r.output, 2, "plug.py", named)
    assert not out.exists()
    r = _run(["strategies", "--module", str(tmp_path / "plug.py")])
    _clean(r.exit_code, r.output, 2, "plug.py", named)


# --------------------------------------------------------------------------- schedulers that are not


def _server(handler):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    threading.Thread(target=handler, args=(srv,), daemon=True).start()
    return srv.getsockname()[1]


def _greeter(srv):
    while True:
        conn, _ = srv.accept()
        conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n" * 4)


@pytest.mark.parametrize("kind", ["http", "greeting"])
def test_a_scheduler_that_is_not_one_fails_fast(tmp_path, tiny, kind):
    pytest.importorskip("distributed")
    if kind == "http":
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        port = httpd.server_address[1]
    else:
        port = _server(_greeter)
    from tractor_sim.runs.backends import BackendError
    from tractor_sim.runs.backends.dask_backend import DaskBackend

    with pytest.raises(BackendError, match=f"127.0.0.1:{port}"):
        DaskBackend.start(scheduler=f"tcp://127.0.0.1:{port}", timeout=3)


# --------------------------------------------------------------------------- bad inputs


def _exp(text):
    return lambda d: (d / "bad.toml").write_bytes(text if isinstance(text, bytes) else text.encode())


MATCHUP = "[[matchup]]\na = 'basic'\nb = 'random'\n"
TOML_CASES = [
    ("matchup = 5\n", "'matchup'"),
    ("fixed = 5\n" + MATCHUP, "'fixed'"),
    ("sweep = [1]\n", "'sweep'"),
    ("rules = 5\n" + MATCHUP, "rules"),
    (b"name = '\xff\xfe'\n" + MATCHUP.encode(), "not UTF-8"),
    ('name = "a\\u0007bell"\n' + MATCHUP, "'name'"),  # names are printable text ('../x' is one: runs/_.._x)
    ("name = ''\n" + MATCHUP, "'name'"),
    ("count = 100000000000000000\n" + MATCHUP, "'count': 100000000000000000 is too large; the largest allowed value"),
    ("count = 1000000000000\nchunk_size = 1\n" + MATCHUP, "makes 2,000,000,000,000 chunks (at most 1,000,000): "
                                                         "raise chunk_size"),
    ("count = 1000000000\nchunk_size = 1\n" + MATCHUP, "chunk_size to at least"),
    ("chunk_size = 1000000000\n" + MATCHUP, "chunk_size"),
    ("count = 0\n" + MATCHUP, "'count'"),
    ("seed = -1\n" + MATCHUP, "'seed'"),
    ("mode = 5\n" + MATCHUP, "'mode'"),
    ("[rules]\nkitty_multiplier = 7\n" + MATCHUP, "kitty_multiplier"),
    ("strategy_modules = ['missing.py']\n" + MATCHUP, "missing.py"),
    ("[[matchup]]\na = 5\nb = 'random'\n", "matchup[0].a"),
    ("[[matchup]]\na = {policy = 'basic', params = {'discard.threshold' = 'x'}}\nb = 'random'\n",
     "discard.threshold"),
    ("[[sweep]]\na = 'basic'\nb = 'random'\nparam = 'discard.threshold'\nvalues = 5\n", "values"),
]


@pytest.mark.parametrize("text, named", TOML_CASES)
def test_bad_experiment_files(tmp_path, text, named):
    _exp(text)(tmp_path)
    r = _run(["run", str(tmp_path / "bad.toml"), "--out", str(tmp_path / "o"), "--quiet"])
    _clean(r.exit_code, r.output, 2, "bad.toml", named)
    assert not (tmp_path / "o").exists(), "nothing is made before the input is checked"


TRICK = {"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"], ["3S"], ["BJ"], ["KS"]]}
JUDGE_CASES = [
    ({**TRICK, "plays": [None, ["3S"]]}, "plays[0]"),
    ({**TRICK, "hands": [None, [], [], []]}, "hands[0]"),
    ({**TRICK, "leader": 1.0}, "leader"),
    ({**TRICK, "leader": True}, "leader"),
    ({**TRICK, "declarers": [True, 2]}, "declarers"),
    ({**TRICK, "plays": [["AS"], ["AS"], ["AS"]]}, "card AS is played 3 times"),
    ({**TRICK, "plays": 5}, "plays"),
    ({**TRICK, "plays": [["ZZ"]]}, "ZZ"),
    ({**TRICK, "rules": 5}, "rules"),
    ({**TRICK, "rules": {"kitty_multiplier": "x"}}, "kitty_multiplier"),
    ({**TRICK, "trump": {"rank": None}}, "trump"),
    ({**TRICK, "trump": 5}, "trump"),
    ({"plays": TRICK["plays"]}, "'trump'"),
    ({**TRICK, "extra": 1}, "'extra'"),
    ([1, 2], "JSON object"),
    (b"\xff\xfe{}", "not UTF-8"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ("{not json", "not valid JSON"),
]


@pytest.mark.parametrize("payload, named", JUDGE_CASES)
def test_bad_judge_inputs(payload, named):
    data = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    r = _run(["judge", "-"], input=data)
    _clean(r.exit_code, r.output, 2, named)


CLI_CASES = [
    (["replay", "--seed", "1", "--deal", str(2**63)], "--deal"),
    (["replay", "--seed", "1", "--deal", "1", "--rules", "not json"], "--rules"),
    (["replay", "--seed", "1", "--deal", "1", "--rules", "[1]"], "--rules"),
    (["replay", "--seed", "1", "--deal", "1", "--rules", '{"preset": "nope"}'], "nope"),
    (["replay", "--seed", "1", "--deal", "1", "--levels", "X,2"], "--levels"),
    (["replay", "--seed", "1", "--deal", "1", "--a", "nosuch"], "nosuch"),
    (["replay", "--seed", "1", "--deal", "1", "--a", "{bad json"], "--a"),
    (["replay", "--seed", "1", "--deal", "1", "--module", "missing_mod.py"], "missing_mod.py"),
    (["compare", "basic", "nosuch", "--deals", "10"], "nosuch"),
    (["compare", "basic", "random", "--sprt", "x"], "--sprt"),
    (["report", "."], "not a finished run directory"),
    (["strategies", "--module", "no.such.module"], "no.such.module"),
]


@pytest.mark.parametrize("args, named", CLI_CASES)
def test_bad_command_lines(tmp_path, monkeypatch, args, named):
    monkeypatch.chdir(tmp_path)
    r = _run(args)
    _clean(r.exit_code, r.output, 2, named)


def test_scheduler_without_dask_backend_makes_nothing(tmp_path, tiny):
    r = _run(["run", str(tiny), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1"])
    _clean(r.exit_code, r.output, 2, "--scheduler", "--backend dask")
    assert not (tmp_path / "o").exists()


def test_an_internal_error_is_one_line_unless_debug(monkeypatch):
    from tractor_sim.play import referee

    monkeypatch.setattr(referee, "trick", lambda *a, **k: {}["boom"])
    r = _run(["judge", "-"], input=json.dumps(TRICK))
    _clean(r.exit_code, r.output, 1, "internal error: KeyError", "--debug")
    with pytest.raises(KeyError):
        _run(["--debug", "judge", "-"], input=json.dumps(TRICK))
