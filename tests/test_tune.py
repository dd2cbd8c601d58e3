"""SPSA tuning (tractor_sim.runs.tune): the file checks and the optimiser on a known objective."""

import numpy as np
import pytest

from tractor_sim.runs import tune as T

GOOD = """
name = "t"
seed = 3
[tune]
policy = {policy = "basic", discard = "expert"}
iterations = 60
pairs = 10
[tune.params."discard.threshold"]
start = 14
c = 2
min = 0
max = 30
[tune.params."lead.min_trumps"]
start = 2
c = 2
"""


def write(tmp_path, text):
    path = tmp_path / "tune.toml"
    path.write_text(text)
    return path


def test_load_defaults(tmp_path):
    cfg = T.load(write(tmp_path, GOOD))
    assert cfg["alpha"] == 0.602 and cfg["gamma"] == 0.101 and cfg["A"] == 6
    assert cfg["rules"]["match_end"] == "pass_ace"  # resolved from the default preset
    assert cfg["verify"] == {"pairs": 20000, "low": 0.0, "high": 0.03}


@pytest.mark.parametrize("change, message", [
    (("iterations = 60", "iteratons = 60"), "unknown field 'iteratons'"),
    (('policy = {policy = "basic", discard = "expert"}', ""), "missing field 'policy'"),
    (("start = 14", "start = 44"), "outside min..max"),
    (("c = 2\nmin", "c = -1\nmin"), "c must be a positive number"),
    (("[tune]", "[rules]\npreset = \"klingon\"\n[tune]"), "klingon"),
])
def test_bad_files_name_the_field(tmp_path, change, message):
    with pytest.raises(T.TuneError, match=message):
        T.load(write(tmp_path, GOOD.replace(*change, 1)))


def test_spsa_climbs_a_known_objective(tmp_path, monkeypatch):
    # measured score of plus against minus: the difference of a concave objective with its top at
    # (20, 5), plus noise; SPSA must end near the top from (14, 2)
    top = {"discard.threshold": 20.0, "lead.min_trumps": 5.0}
    rng = np.random.default_rng(0)

    def value(p):
        return -0.01 * sum((p[k] - top[k]) ** 2 for k in top)

    monkeypatch.setattr(T, "measure", lambda cfg, plus, minus, seed: (
        value(plus) - value(minus) + rng.normal(0, 0.02), cfg["pairs"]))
    cfg = T.load(write(tmp_path, GOOD))
    traj = T.spsa(cfg)
    final = traj.iloc[-1]
    assert len(traj) == 61
    assert abs(final["discard.threshold"] - 20) < 1.5 and abs(final["lead.min_trumps"] - 5) < 1.5


def test_spsa_sign_matters(tmp_path, monkeypatch):
    # a planted bug (theta moved against the measured gradient) must end far from the top
    monkeypatch.setattr(T, "measure", lambda cfg, plus, minus, seed: (
        -0.01 * ((plus["discard.threshold"] - 20) ** 2 - (minus["discard.threshold"] - 20) ** 2), 10))
    cfg = T.load(write(tmp_path, GOOD))
    assert abs(T.spsa(cfg).iloc[-1]["discard.threshold"] - 20) < 1.0
    monkeypatch.setattr(T, "measure", lambda cfg, plus, minus, seed: (
        0.01 * ((plus["discard.threshold"] - 20) ** 2 - (minus["discard.threshold"] - 20) ** 2), 10))
    assert abs(T.spsa(cfg).iloc[-1]["discard.threshold"] - 20) > 5


def test_cli_bad_tune_file_is_a_clear_error(tmp_path):
    from click.testing import CliRunner

    from tractor_sim.cli import main

    r = CliRunner().invoke(main, ["tune", str(write(tmp_path, GOOD.replace("start = 14", "start = 44")))])
    assert r.exit_code == 2 and "outside min..max" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["tune", str(tmp_path / "missing.toml")])
    assert r.exit_code == 2 and "no such tune file" in r.output


def test_cli_tune_writes_the_trajectory_into_its_report(tmp_path):
    """A short tune to its report: one trajectory row per iteration and the final point, read back."""
    from click.testing import CliRunner

    from tractor_sim.cli import main

    short = GOOD.replace("iterations = 60", "iterations = 3").split('[tune.params."lead.min_trumps"]')[0]
    r = CliRunner().invoke(main, ["tune", str(write(tmp_path, short)), "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    report = (tmp_path / "out" / "report.md").read_text()
    table = report.split("## Trajectory")[1].split("## Reproduce")[0].strip().splitlines()
    assert table[0] == "| iteration | discard.threshold | score | pairs | c_discard.threshold | a_discard.threshold |"
    assert [row.split(" | ")[0] for row in table[2:]] == ["| 0", "| 1", "| 2", "| 3"]
    assert table[-1].endswith("|  |  |  |  |")  # the final point has no score yet
