"""The command line: every command, its errors, resume after a kill, the report."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from tractor_sim.cli import main

EXPERIMENT = """
name = "tiny"
seed = 9
mode = "fixed"
count = 60
duplicate = true
chunk_size = 20

[rules]
preset = "standard"

[[matchup]]
a = "basic"
b = "random"
"""


def _run(args, input=None):
    return CliRunner().invoke(main, args, input=input, catch_exceptions=False)


@pytest.fixture()
def exp_file(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(EXPERIMENT)
    return p


def test_run_writes_the_run_directory_and_report(exp_file, tmp_path):
    out = tmp_path / "run"
    r = _run(["run", str(exp_file), "--out", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    assert "report:" in r.output and "basic" in r.output
    for name in ("manifest.json", "deals.parquet", "matches.parquet", "summary.csv", "report.md", "report.html"):
        assert (out / name).exists(), name
    deals = pd.read_parquet(out / "deals.parquet")
    assert len(deals) == 120 and set(deals.half) == {0, 1}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 9 and manifest["deals"] == 120
    assert "numba" in manifest["versions"] and manifest["finished"]
    md = (out / "report.md").read_text()
    assert md.splitlines()[2].startswith("**In the pool of") and "| matchup |" in md and "figures/" in md
    assert list((out / "figures").glob("*.png"))
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html
    # rebuilding the report from the stored results
    (out / "report.md").unlink()
    r = _run(["report", str(out)])
    assert r.exit_code == 0 and (out / "report.md").exists()


def test_run_overrides_and_same_seed_same_results(exp_file, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(["run", str(exp_file), "--out", str(a), "--quiet", "--deals", "30", "--seed", "4"]).exit_code == 0
    assert _run(["run", str(exp_file), "--out", str(b), "--quiet", "--deals", "30", "--seed", "4",
                 "--chunk-size", "7"]).exit_code == 0
    da, db = pd.read_parquet(a / "deals.parquet"), pd.read_parquet(b / "deals.parquet")
    assert len(da) == 60
    pd.testing.assert_frame_equal(da, db)


@pytest.mark.parametrize("text, expected", [
    ("nme = 'x'\n[[matchup]]\na='basic'\nb='random'\n", "unknown field 'nme' (did you mean 'name'?)"),
    ("[[matchup]]\na='basik'\nb='random'\n", "matchup[0].a: unknown policy 'basik'"),
    ("[rules]\nkitty_multiplyer = 'pow2_pairs'\n[[matchup]]\na='basic'\nb='random'\n",
     "unknown rule option 'kitty_multiplyer' (did you mean 'kitty_multiplier'?)"),
    ("mode = 'matches'\n[[matchup]]\na='basic'\nb='random'\n", "did you mean 'match'?"),
    ("[[matchup]]\na={policy='basic', params={'discard.threshhold'=3}}\nb='random'\n", "threshhold"),
    ("seed = 1\n", "nothing to run"),
    ("seed = [\n", "not valid TOML"),
])
def test_experiment_errors_name_the_problem(tmp_path, text, expected):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    r = _run(["run", str(p), "--out", str(tmp_path / "o"), "--quiet"])
    assert r.exit_code == 2
    assert expected in r.output
    assert str(p) in r.output
    assert "Traceback" not in r.output


def test_missing_experiment_file(tmp_path):
    r = _run(["run", str(tmp_path / "nope.toml")])
    assert r.exit_code == 2 and "no such experiment file" in r.output


def test_resume_after_a_kill(tmp_path):
    exp = tmp_path / "long.toml"
    exp.write_text(EXPERIMENT.replace("count = 60", "count = 3000").replace("chunk_size = 20", "chunk_size = 100"))
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "tractor_sim.cli", "run", str(exp), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    parts = out / "parts"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(parts.glob("*.deals.parquet"))) < 5:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list(parts.glob("*.deals.parquet")))
    assert 5 <= done_before < 60, "the run should have been killed midway"
    assert not (out / "deals.parquet").exists()
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    resumed = pd.read_parquet(out / "deals.parquet")
    assert len(resumed) == 6000
    assert not resumed.duplicated(["matchup", "half", "deal_id"]).any()
    # identical to an uninterrupted run
    fresh = tmp_path / "fresh"
    r = subprocess.run(cmd[:-3] + ["--out", str(fresh), "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    pd.testing.assert_frame_equal(resumed, pd.read_parquet(fresh / "deals.parquet"))


def test_resume_refuses_another_experiment(exp_file, tmp_path):
    out = tmp_path / "run"
    assert _run(["run", str(exp_file), "--out", str(out), "--quiet"]).exit_code == 0
    r = _run(["run", str(exp_file), "--out", str(out), "--quiet", "--seed", "10"])
    assert r.exit_code == 2 and "different experiment" in r.output


def test_judge_json_and_explain(tmp_path):
    trick = {"trump": {"rank": "2", "suit": "H"}, "leader": 1, "declarers": [0, 2],
             "plays": [["AS"], ["3S"], ["BJ"], ["KS"]]}
    r = _run(["judge", "-", "--explain"], input=json.dumps(trick))
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["winner"] == 3 and out["points"] == 10 and out["lead"]["kind"] == "single"
    assert out["legal"] == [None, None, None, None]
    assert len(out["explain"]) == 4 and "ruffs" in out["explain"][-1]


def test_judge_file_with_hands(tmp_path):
    f = tmp_path / "t.json"
    f.write_text(json.dumps({
        "trump": {"rank": "2", "suit": "H"},
        "hands": [["AS", "KS", "KS", "3D"], ["4S", "5S", "AD"], ["QS", "QS", "AS"], ["BJ", "BJ", "7D", "8D"]],
        "plays": [["AS", "KS", "KS"], ["4S", "5S", "AD"], ["QS", "QS", "AS"]]}))
    out = json.loads(_run(["judge", str(f)]).output)
    assert out["lead"]["kind"] == "throw" and out["throw"]["ok"] is True
    assert out["legal"] == [True, True, True]


@pytest.mark.parametrize("payload, field", [
    ('{"plays": [["AS"]]}', "trump"),
    ('{"trump": {"rank": "2", "suit": "H"}}', "plays"),
    ('{"trump": {"rank": "2", "suit": "H"}, "plays": [["AX"]]}', "plays[0]"),
    ('{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "leader": 7}', "leader"),
    ('{"trump": {"rank": "Z", "suit": "H"}, "plays": [["AS"]]}', "trump"),
    ('{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "rules": {"throw_penalty": -1}}', "throw_penalty"),
    ('{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "hands": [["KS"], [], [], []]}', "plays[0]"),
    ('{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "colour": 1}', "colour"),
    ("not json", "JSON"),
])
def test_judge_errors_exit_2_and_name_the_field(payload, field):
    r = _run(["judge", "-"], input=payload)
    assert r.exit_code == 2
    assert field in r.output and "Traceback" not in r.output


def test_replay_text_and_json():
    r = _run(["replay", "--seed", "3", "--deal", "2", "--a", "basic", "--b", "random"])
    assert r.exit_code == 0, r.output
    assert "Trump:" in r.output and "Trick  1" in r.output and "Result:" in r.output
    data = json.loads(_run(["replay", "--seed", "3", "--deal", "2", "--format", "json"]).output)
    assert len(data["kitty"]) == 8 and len(data["buried"]) == 8 and data["tricks"]
    assert sum(t["points"] for t in data["tricks"]) + data["result"]["kitty_points"] == 200


def test_replay_match_mode():
    data = json.loads(_run(["replay", "--seed", "3", "--deal", "1001", "--mode", "match",
                            "--format", "json"]).output)
    assert data["deal_id"] == 1001 and data["tricks"]


def test_compare_with_sprt():
    r = _run(["compare", "basic", "random", "--deals", "400", "--chunk-size", "200", "--sprt", "0,0.2"])
    assert r.exit_code == 0, r.output
    assert "H1 accepted" in r.output and "duplicate deal pairs" in r.output


def test_compare_one_decision_and_errors():
    r = _run(["compare", "lowest", "void", "--decision", "discard", "--deals", "100", "--chunk-size", "100"])
    assert r.exit_code == 0 and "lowest (discard) vs void (discard)" in r.output
    r = _run(["compare", "basic", "random", "--sprt", "0.1,0"])
    assert r.exit_code == 2 and "LOW must be below HIGH" in r.output
    r = _run(["compare", "basik", "random", "--deals", "10"])
    assert r.exit_code == 2 and "basik" in r.output


def test_strategies_and_rules_listings():
    r = _run(["strategies"])
    assert r.exit_code == 0
    for name in ("threshold", "bury_points", "safe_throw", "ruff_points", "basic", "expert", "random"):
        assert name in r.output
    assert "worlds (from 1 to 4096): worlds per searched decision (default 32)" in r.output  # search.SETTINGS
    r = _run(["rules"])
    assert r.exit_code == 0 and "standard" in r.output and "kitty_multiplier" in r.output


def test_help_everywhere():
    for cmd in ([], ["run"], ["compare"], ["report"], ["judge"], ["replay"], ["strategies"], ["rules"]):
        r = _run(cmd + ["--help"])
        assert r.exit_code == 0 and "Usage" in r.output


def test_module_entry_point_runs():
    r = subprocess.run([sys.executable, "-m", "tractor_sim.cli", "--help"], capture_output=True, text=True,
                       env={**os.environ})
    assert r.returncode == 0 and "compare" in r.stdout
    assert Path(sys.executable).exists()


END = """
import atexit, sys
from tractor_sim import cli

def command():  # stands for main: output left in the pipe's buffer, an exit function of its own
    atexit.register(lambda: sys.stderr.write("exit function ran\\n"))
    sys.stdout.write("the whole output\\n" * 3)
    {end}

cli.main = command
cli.command_line()
"""


@pytest.mark.parametrize("end, status", [("sys.exit(3)", 3), ("sys.exit()", 0), ("sys.exit('why')", 1),
                                         ("raise RuntimeError('a bug')", 1), ("raise KeyboardInterrupt", 130)])
def test_the_console_scripts_fast_end_keeps_the_status_the_output_and_the_exit_functions(end, status):
    """command_line ends with os._exit, skipping the interpreter's teardown: the command's status
    stays, buffered output is flushed, exit functions registered while it ran still run."""
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    r = subprocess.run([sys.executable, "-c", END.format(end=end)], capture_output=True, text=True, env=buffered)
    assert r.returncode == status, r.stderr
    assert r.stdout == "the whole output\n" * 3 and "exit function ran" in r.stderr
    assert ("a bug" in r.stderr) == ("RuntimeError" in end) and ("why" in r.stderr) == ("why" in end)
