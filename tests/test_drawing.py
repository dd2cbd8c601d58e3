"""The report's figures drawn in a helper process (report.drawing): the same report and pixels as drawn
in the run's own process, a failing plot skipped with its reason, a helper that dies replaced by drawing
here, no helper left behind by a run process killed, none holding the run directory's lock, none forked
beside another thread.

Each case runs in a process of its own: the test runner's workers have threads, where no helper forks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from tractor_sim.report import drawing

QUICKSTART = Path(__file__).parents[1] / "experiments" / "quickstart.toml"

RUN = """
import sys
from tractor_sim.runs import experiment, runner
exp = experiment.load(sys.argv[1])
exp.count, exp.chunk_size = 40, 20  # the quick start's two matchups, small
runner.run_experiment(exp, sys.argv[2])
"""


def _in_a_process(source: str, *args) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(source), *map(str, args)], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return r


def test_the_helper_draws_the_same_figures_and_report_as_this_process(tmp_path):
    helped, here = tmp_path / "helped", tmp_path / "here"
    r = _in_a_process(RUN + """
print("matplotlib here:", "matplotlib" in sys.modules)
from tractor_sim.report import build_report
import shutil
shutil.copytree(sys.argv[2], sys.argv[3], ignore=shutil.ignore_patterns("report.*", "figures", "summary.csv"))
build_report(sys.argv[3])  # no helper open: drawn in this process
""", QUICKSTART, helped, here)
    assert "matplotlib here: False" in r.stdout  # the run's own process never drew a figure
    figures = sorted(p.name for p in (helped / "figures").iterdir())
    assert len(figures) == 6 and figures == sorted(p.name for p in (here / "figures").iterdir())
    for name in figures:
        assert (helped / "figures" / name).read_bytes() == (here / "figures" / name).read_bytes(), name
    assert (helped / "report.md").read_text() == (here / "report.md").read_text().replace(str(here), str(helped))
    assert "skipped, the plot failed" not in (helped / "report.md").read_text()


def test_a_plot_failing_in_the_helper_is_skipped_with_its_reason_and_the_rest_are_drawn(tmp_path):
    out = tmp_path / "run"
    _in_a_process("""
from tractor_sim.report import plots
def boom(*args):
    raise ValueError("no ink")
plots.plot_level_change = boom  # the helper forks with it
""" + RUN, QUICKSTART, out)
    md = (out / "report.md").read_text()
    assert "Net levels per deal with 95% intervals (clustered): skipped, the plot failed (ValueError: no ink)." in md
    assert not (out / "figures" / "level_change.png").exists()
    assert len(list((out / "figures").glob("*.png"))) == 5
    assert md.count("](figures/") == 5


def test_figures_a_dying_helper_did_not_draw_are_drawn_here(tmp_path):
    out = tmp_path / "run"
    r = _in_a_process("""
import os
from tractor_sim.report import plots
run_process = os.getpid()
drawn_by = []
real = plots.plot_opp_points
def fatal_in_the_helper(*args):
    if os.getpid() != run_process:
        os._exit(3)  # the helper dies (killed, out of memory)
    drawn_by.append(os.getpid())
    return real(*args)
plots.plot_opp_points = fatal_in_the_helper
""" + RUN + """
print("drawn here:", drawn_by == [run_process])
""", QUICKSTART, out)
    assert "drawn here: True" in r.stdout
    md = (out / "report.md").read_text()
    assert "the plot failed" not in md and md.count("](figures/") == 6
    assert len(list((out / "figures").glob("*.png"))) == 6


def test_a_killed_run_process_leaves_no_helper_behind():
    r = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, sys, time
        from tractor_sim.report import drawing
        with drawing.helper():
            print(drawing._pool.submit(os.getpid).result(), flush=True)
            time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    helper = int(r.stdout.readline())
    assert _running(helper)
    r.send_signal(signal.SIGKILL)
    r.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _running(helper):
        time.sleep(0.05)
    assert not _running(helper), f"the helper {helper} outlived its run process"


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: a process that ended but was not yet reaped (a zombie) does not."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_the_helper_holds_no_copy_of_the_run_directorys_lock(tmp_path):
    """Forked before the store locks the directory: a run killed with -9 leaves its lock free at once."""
    out = tmp_path / "run"
    run = subprocess.Popen([sys.executable, "-m", "tractor_sim.cli", "run", str(QUICKSTART), "--out", str(out),
                            "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and run.poll() is None and len(list(out.glob("parts/*.deals.parquet"))) < 2:
            time.sleep(0.02)
        children = [int(c) for c in open(f"/proc/{run.pid}/task/{run.pid}/children").read().split()]
        assert children, "no helper beside the run"
        for child in children:
            held = [os.readlink(f"/proc/{child}/fd/{fd}") for fd in os.listdir(f"/proc/{child}/fd")]
            assert not [f for f in held if f.endswith(".lock")], held
    finally:
        run.kill()
        run.wait()


def test_no_helper_is_forked_beside_another_thread(tmp_path):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with drawing.helper():
            assert drawing._pool is None
            future = drawing.draw("plot_deals_per_match", tmp_path / "d.png", None)
        assert future.done() and isinstance(future.exception(), Exception)  # drawn (and failed) here, at once
    finally:
        stop.set()
        other.join()
