"""A first run that explains itself (runs.firstrun, the CLI): what compiles is said before the first
chunk, the bar starts after it, and the end prints the headline and both report paths."""

import numba.core.config
import pytest
from click.testing import CliRunner

from tractor_sim import cli
from tractor_sim.cli import main
from tractor_sim.runs import engine, firstrun, runner
from tractor_sim.runs import experiment as X

EXPERIMENT = """
name = "first"
seed = 3
mode = "fixed"
count = 40
chunk_size = 20

[[matchup]]
a = "basic"
b = "random"
"""

jit_only = pytest.mark.skipif(numba.core.config.DISABLE_JIT, reason="no cache without the compiler")


@pytest.fixture()
def exp_file(tmp_path):
    p = tmp_path / "first.toml"
    p.write_text(EXPERIMENT)
    return p


@pytest.fixture()
def times(tmp_path, monkeypatch):
    """An empty place for the kept compile times."""
    monkeypatch.setenv("TRACTOR_SIM_CACHE", str(tmp_path / "cache"))


@jit_only
def test_an_empty_cache_is_announced_with_the_size(tmp_path, monkeypatch, times):
    spec = engine.plan_chunks([("basic", "random")], n=5, seed=1)[0]
    engine.run_chunk(spec)  # compiled and cached here (its own cache folder)
    assert firstrun.pending(spec) is None
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(tmp_path / "empty"))  # where numba would look
    assert firstrun.pending(spec) == "compiling the kernels for 4 players, 2 decks (first run only, about 20 s)"
    search = engine.plan_chunks([("search", "basic")], n=5, seed=1)[0]
    assert firstrun.pending(search).startswith("compiling the search kernels (first run only, about ")
    search63 = engine.plan_chunks([("search", "basic")], n=5, seed=1, game={"players": 6, "decks": 3})[0]
    assert firstrun.pending(search63).startswith(  # its own package's search, not the 4/2 one
        "compiling the search kernels for 6 players, 3 decks (first run only, about ")


def test_the_estimate_is_the_last_compile_measured(times):
    spec = engine.plan_chunks([("basic", "random")], n=5, seed=1, game={"players": 6, "decks": 3})[0]
    assert firstrun.estimate("6/3 tractor") == firstrun.TYPICAL["kernels"]
    firstrun.record(spec, 52.26)
    assert firstrun.estimate("6/3 tractor") == 52.3
    assert firstrun.estimate("8/4 tractor") == 52.3  # a new size: the slowest one measured
    assert firstrun.estimate("search", "search") == firstrun.TYPICAL["search"]
    firstrun.record(engine.plan_chunks([("search", "basic")], n=5, seed=1, game={"players": 6, "decks": 3})[0], 90.0)
    assert firstrun.estimate("search 6/3 tractor", "search") == 90.0
    assert firstrun.estimate("search 8/4 tractor", "search") == 90.0  # a new size's search: the slowest measured
    assert firstrun.estimate("8/4 tractor") == 52.3  # a search's time is no size's kernels' estimate


def test_the_bar_starts_after_the_compile(exp_file, tmp_path, monkeypatch, times):
    """The compiling chunk runs inside the message, the bar after it: its rate is the play's."""
    events = []
    monkeypatch.setattr(firstrun, "pending", lambda spec: "compiling the kernels for 4 players, 2 decks")

    class Compiling:
        def __init__(self, text):
            events.append(("message", text))

        def __enter__(self):
            events.append("compile starts")

        def __exit__(self, *exc):
            events.append("compile ends")

    class Bar:
        def __init__(self, total, done):
            events.append(("bar", total, done))

        def __enter__(self):
            return lambda n, decisions=0: events.append(("chunk", n))

        def __exit__(self, *exc):
            return False

    plain = runner.iter_results
    monkeypatch.setattr(runner, "iter_results", lambda specs, *a: (events.append(("play", [s.count for s in specs])),
                                                                     plain(specs, *a))[1])
    exp = X.load(exp_file)
    done = runner.run_experiment(exp, tmp_path / "run", progress=Bar, compiling=Compiling, report=False)
    assert events == [("message", "compiling the kernels for 4 players, 2 decks"), "compile starts", ("play", [1]),
                      "compile ends", ("bar", 4, 0), ("play", [20, 20, 20, 20])] + [("chunk", 20)] * 4
    assert done.deals == 80  # the compiling chunk is not kept
    exp.matchups.append({"name": "expert-vs-basic", "a": "expert", "b": "basic"})
    events.clear()
    runner.run_experiment(exp, tmp_path / "two", progress=Bar, compiling=Compiling, report=False)
    assert events[2] == ("play", [1, 1])  # a deal for each matchup's policies (both halves: one set)


def test_the_cli_says_what_compiles_and_ends_with_the_headline(exp_file, tmp_path, monkeypatch, times):
    """Without a terminal, lines on stderr; on stdout the headline and both report paths."""
    monkeypatch.setattr(firstrun, "pending", lambda spec: "compiling the kernels for 4 players, 2 decks (first "
                                                          "run only, about 20 s)")
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(exp_file), "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == "compiling the kernels for 4 players, 2 decks (first run only, about 20 s)"
    assert r.stderr.splitlines()[1].startswith("compiled in ")
    lines = r.stdout.splitlines()
    assert lines[-2:] == [f"report: {out / 'report.html'}", f"report: {out / 'report.md'}"]
    assert lines[-3] == cli._headline(out / "report.md") and "basic" in lines[-3] and "**" not in lines[-3]
    quiet = CliRunner().invoke(main, ["run", str(exp_file), "--out", str(tmp_path / "q"), "--quiet"])
    assert quiet.exit_code == 0 and "compiling" not in quiet.output


def test_the_headline_is_read_from_the_report(tmp_path):
    md = tmp_path / "report.md"
    md.write_text("# Report\n\n**basic beats random by 0.4 levels\nper deal.**\n\nMeasured against ...\n\n## Table\n")
    assert cli._headline(md) == "basic beats random by 0.4 levels per deal."  # the report opens with it
    md.write_text("# Report\n\n## Table\n| a |\n")
    assert cli._headline(md) == "" and cli._headline(tmp_path / "missing.md") == ""
