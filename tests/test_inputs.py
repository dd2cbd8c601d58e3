"""Generated inputs (issue 28, item 7): every input kind, generated from its declaration, ends in a
clean result or a one-line error, never a traceback or an "internal error".

Each property draws values for one input kind from the kind's own
declaration (tractor_sim.rules.fields: the experiment's NUMBERS, the rules'
WHOLE and CHOICES, each strategy's parameter ranges), at and beyond its
boundaries, of the wrong type, NaN and infinities, huge numbers, damaged
files and random bytes; and checks the one promise: exit 0 with the
undisturbed result, or exit 2 (input) / 1 (run time) with a single line
``error: ...`` that names the input.  The plug-in grammar is in
tests/test_plugin_grammar.py.  HYPOTHESIS_PROFILE=slow: many more examples.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tractor_sim.cli import main
from tractor_sim.play import record as REC
from tractor_sim.play import registry as S
from tractor_sim.play.game import State, StateError
from tractor_sim.rules.options import CHOICES, WHOLE, Rules, RulesError
from tractor_sim.runs import experiment as X

S.load_builtins()
EXAMPLES = settings.default.max_examples  # 100 in the default profile, 1,000 in the slow one (conftest.py)
FEW = settings(max_examples=EXAMPLES // 4)  # the properties that run a command per example
SOME = settings(max_examples=EXAMPLES // 2)
HEAVY = settings(max_examples=EXAMPLES // 10)  # a run, a report and an export per example
TALLY: dict[str, int] = {}  # generated cases per input kind (printed at the end with pytest -s)


def _count(kind: str) -> None:
    TALLY[kind] = TALLY.get(kind, 0) + 1


def _run(args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def clean(result, *codes, names=()):
    """The promise: an allowed exit code; on an error one line ``error: ...``, naming one of ``names``."""
    text = result.output
    assert "Traceback" not in text and "internal error" not in text, text
    assert result.exit_code in (0, *codes), (result.exit_code, text)
    if result.exit_code:
        # ours, also for Click's own option errors (cli._Cli: "error: Invalid value for '--deal': ...")
        errors = [line for line in text.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and "Usage:" not in text, text
        if names:
            assert any(str(n) in errors[0] for n in names), (names, errors[0])
    return result


def one_line(error: BaseException, *names):
    """An API error: one line, naming one of ``names``."""
    text = str(error)
    assert text and "\n" not in text, text
    assert not names or any(str(n) in text for n in names), (names, text)


# ----------------------------------------------------------------------------- values from declarations

WRONG = st.one_of(st.none(), st.booleans(), st.text(max_size=8), st.lists(st.integers(), max_size=3),
                  st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
NOT_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
HUGE = st.sampled_from([2**63, 2**64, 10**30, -(10**30), 10**400, 1e300, -1e300])


def whole_values(field):
    """Values for a declared whole number: inside, at both ends and one past them, of the wrong
    type, not finite, huge."""
    return st.one_of(st.integers(field.low, min(field.high, field.low + 10**6)),
                     st.sampled_from([field.low, field.high, field.low - 1, field.high + 1]),
                     WRONG, NOT_FINITE, HUGE, st.floats(allow_nan=True, allow_infinity=True))


def real_values(low, high):
    return st.one_of(st.floats(low, high), st.sampled_from([low, high, low - 1e-9 * max(1, abs(low)) - 1, high + 1]),
                     st.integers(int(low) - 2, int(high) + 2), WRONG, NOT_FINITE, HUGE)


# ----------------------------------------------------------------------------- rule options


def rule_values(name):
    if name in CHOICES:
        return st.one_of(st.sampled_from(CHOICES[name]), st.text(max_size=12), WRONG)
    if name in WHOLE:
        return whole_values(WHOLE[name])
    return st.one_of(st.booleans(), WRONG, st.integers(-2, 2))


OPTION_NAMES = list(Rules().to_dict())


@st.composite
def rule_tables(draw):
    names = draw(st.lists(st.sampled_from(OPTION_NAMES + ["preset", "no_such_option"]), max_size=4, unique=True))
    table = {}
    for n in names:
        table[n] = (draw(st.one_of(st.sampled_from(["standard", "russian"]), WRONG)) if n == "preset"
                    else draw(rule_values(n)) if n in OPTION_NAMES else draw(st.integers()))
    return table


@SOME
@given(rule_tables())
def test_rule_options_generated(table):
    _count("rule options")
    try:
        rules = Rules.from_dict(table)
    except RulesError as e:
        one_line(e, *table)
        return
    enc = rules.encode()  # every accepted value fits the kernels' array
    assert enc.dtype.kind == "i" and all(-(2**62) < int(v) < 2**62 for v in enc)
    assert 0 <= rules.throw_penalty <= WHOLE["throw_penalty"].high


# ----------------------------------------------------------------------------- experiment files

MATCHUP = {"a": "basic", "b": "random"}


@st.composite
def experiment_tables(draw):
    data = {"name": draw(st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(["拖拉机", "../x", ".hidden"]),
                                   WRONG)),
            "matchup": [MATCHUP]}
    for key, field in X.NUMBERS.items():
        if draw(st.booleans()):
            data[key] = draw(whole_values(field))
    if draw(st.booleans()):
        data["mode"] = draw(st.one_of(st.sampled_from(["fixed", "match"]), WRONG))
    if draw(st.booleans()):
        data["rules"] = draw(st.one_of(rule_tables(), WRONG))
    if draw(st.booleans()):
        data["fixed"] = draw(st.one_of(st.fixed_dictionaries({"declaring_team": st.one_of(st.integers(-1, 2), WRONG)}),
                                       st.fixed_dictionaries({"levels": st.one_of(
                                           st.lists(st.sampled_from(["2", "A", "K", "1", "Z", 3]), max_size=3),
                                           WRONG)}), WRONG))
    if draw(st.booleans()):
        data["game"] = draw(st.one_of(st.fixed_dictionaries({"players": st.one_of(st.integers(3, 9), WRONG)}), WRONG))
    if draw(st.booleans()):
        data[draw(st.sampled_from(["matchup", "sweep", "unknown_key"]))] = draw(st.one_of(
            st.lists(st.fixed_dictionaries({"a": st.one_of(st.sampled_from(["basic", "expert", "basik"]), WRONG),
                                             "b": st.just("random")}), max_size=2),
            st.lists(st.fixed_dictionaries({"a": st.just("expert"), "b": st.just("basic"),
                                            "param": st.sampled_from(["lead.min_trumps", "follow.min_points",
                                                                      "lead.nothing", "x"]),
                                            "values": st.lists(real_values(-10.0, 500.0), max_size=3)}),
                     max_size=2),
            WRONG))
    return data


@SOME
@given(experiment_tables())
def test_experiment_tables_generated(data):
    _count("experiment TOML")
    try:
        exp = X.from_dict(data, "gen.toml")
        X.check_policies(exp)
    except X.ExperimentError as e:
        one_line(e, "gen.toml")
        return
    for key, field in X.NUMBERS.items():
        assert field.low <= getattr(exp, key) <= field.high
    assert X.dir_name(exp.name) not in ("", ".", "..") and "/" not in X.dir_name(exp.name)


@FEW
@given(st.binary(max_size=300), st.sampled_from(["", "name = \"x\"\n", "count = 10\n"]))
def test_experiment_files_of_random_bytes(tmp_path_factory, data, prefix):
    _count("experiment TOML")
    path = tmp_path_factory.mktemp("toml") / "bytes.toml"
    path.write_bytes(prefix.encode() + data)
    clean(_run(["run", path, "--out", path.parent / "out", "--quiet"]), 2, names=[path])


# ----------------------------------------------------------------------------- strategy parameters

RANGED = [(d, n, p, S.get_strategy(d, n).ranges[p]) for d, n, params, _ in S.list_strategies()
          if S.is_builtin(S.get_strategy(d, n).module) for p in params]  # the built-ins (other tests register more)


@st.composite
def parameter_policies(draw):
    decision, name, param, (low, high) = draw(st.sampled_from(RANGED))
    value = draw(real_values(low, high))
    key = draw(st.sampled_from([f"{decision}.{param}", f"{decision}.{param}x", param]))
    return {"policy": "expert", decision: name, "params": {key: value}}, key, value, (low, high)


@SOME
@given(parameter_policies())
def test_strategy_parameters_generated(case):
    _count("strategy parameters")
    spec, key, value, (low, high) = case
    try:
        resolved = S.resolve_policy(spec)
    except S.StrategyError as e:
        one_line(e, key)
        return
    got = resolved.param_dict()[key]
    assert math.isfinite(got) and low <= got <= high


# ----------------------------------------------------------------------------- command-line numbers


@FEW
@given(st.one_of(st.integers(-5, 2**64 + 5).map(str), st.text(max_size=6), HUGE.map(str), NOT_FINITE.map(str)),
       st.one_of(st.integers(-2, 2**50 + 2).map(str), st.text(max_size=6), NOT_FINITE.map(str)),
       st.sampled_from(["2,2", "A,K", "2", "1,1", "x", "", "2,2,2"]),
       st.sampled_from(["{}", '{"throw_penalty": 100}', '{"throw_penalty": 101}', '{"throw_penalty": 1e999}',
                        "[1]", "nan", '{"preset": ["x"]}', '{"declaring": "auction"}']),
       st.sampled_from(["4", "3", "9", "-4", "x", "", "1e9", str(2**70)]))  # other sizes: a compile each
def test_replay_numbers_generated(seed, deal, levels, rules, players):
    _count("CLI numbers")
    clean(_run(["replay", "--seed", seed, "--deal", deal, "--levels", levels, "--rules", rules,
                "--players", players]), 2,
          names=["--seed", "--deal", "--levels", "--rules", "--players", "rule option", "preset", "'--"])


# ----------------------------------------------------------------------------- judge JSON

TRICK = {"trump": {"rank": "2", "suit": "H"}, "leader": 0,
         "hands": [["AS", "KS", "KS", "3D"], ["4S", "5S", "AD"], ["QS", "QS", "9D"], ["BJ", "BJ", "7D", "8D"]],
         "plays": [["AS", "KS", "KS"], ["4S", "5S", "AD"], ["QS", "QS", "9D"], ["BJ", "BJ", "7D"]]}
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), HUGE.filter(lambda v: isinstance(v, int)),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=4),
                        st.sampled_from(["AS", "BJ", "10H", "2", "H", "ZZ"]))


def _mutate(data, path, value):
    """A copy of ``data`` with the node at ``path`` (keys and indices) replaced by ``value``."""
    data = json.loads(json.dumps(data))
    node = data
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return data


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


TRICK_PATHS = [p for p in _paths(TRICK) if p]


@SOME
@given(st.sampled_from(TRICK_PATHS), st.one_of(JSON_LEAVES, st.lists(JSON_LEAVES, max_size=3)))
def test_judge_json_generated(path, value):
    _count("judge JSON")
    text = json.dumps(_mutate(TRICK, path, value))
    clean(_run(["judge", "-"], input=text), 2)


@FEW
@given(st.binary(max_size=200))
def test_judge_random_bytes(data):
    _count("judge JSON")
    clean(_run(["judge", "-"], input=data), 2, names=["stdin"])


@FEW
@given(st.sampled_from(['{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "leader": NaN}',
                        '{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "leader": Infinity}',
                        '{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "leader": 1e999}',
                        '{"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"]], "leader": 99999999999999999999999}',
                        "[" * 5000 + "]" * 5000]))
def test_judge_not_finite_and_deep(text):
    _count("judge JSON")
    clean(_run(["judge", "-"], input=text), 2)


# ----------------------------------------------------------------------------- deal records


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """One real record and how replay shows it undisturbed."""
    r = _run(["replay", "--seed", 42, "--deal", 7, "--format", "json"])
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    path = tmp_path_factory.mktemp("rec") / "good.jsonl"
    REC.write([rec], path)
    shown = _run(["replay", "--record", path])
    assert shown.exit_code == 0
    return rec, shown.output


def _record_paths(rec):
    return [p for p in _paths(rec) if p and p[0] not in ("result", "source")]


@SOME
@given(st.data())
def test_records_generated(tmp_path_factory, record, data):
    _count("deal records")
    rec, undisturbed = record
    path = data.draw(st.sampled_from(_record_paths(rec)))
    value = data.draw(st.one_of(JSON_LEAVES, st.integers(-1, 9), st.lists(JSON_LEAVES, max_size=2),
                                st.sampled_from(["AS", "RJ", "BJ", "2H", "10D"])))
    changed = _mutate(rec, path, value)
    file = tmp_path_factory.mktemp("rec") / "gen.jsonl"
    REC.write([changed], file)
    for args in (["replay", "--record", file], ["replay", "--record", file, "--html", file.with_suffix(".html")],
                 ["judge", "--record", file, "--trick", 1 + data.draw(st.integers(0, 24))]):
        r = clean(_run(args), 2, names=[file, "--trick"])  # a deal with a failed throw has fewer tricks
        if args[0] == "replay" and r.exit_code == 0 and changed == rec:
            assert r.output.split("viewer:")[0] == undisturbed


@SOME
@given(st.data())
def test_record_files_damaged(tmp_path_factory, record, data):
    _count("deal records")
    rec, _ = record
    raw = (json.dumps(rec) + "\n").encode()
    how = data.draw(st.sampled_from(["truncate", "bytes", "flip", "empty", "latin1", "two"]))
    if how == "truncate":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    elif how == "bytes":
        raw = data.draw(st.binary(max_size=300))
    elif how == "flip":
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([raw[i] ^ data.draw(st.integers(1, 255))]) + raw[i + 1:]
    elif how == "empty":
        raw = b""
    elif how == "latin1":
        raw = raw.replace(b'"AS"', "\"ÀS\"".encode("latin-1"), 1)
    else:
        raw = raw + raw[: len(raw) // 2]
    file = tmp_path_factory.mktemp("rec") / "damaged.jsonl"
    file.write_bytes(raw)
    for args in (["replay", "--record", file], ["judge", "--record", file]):
        clean(_run(args), 2, names=[file])


# ----------------------------------------------------------------------------- state JSON


@pytest.fixture(scope="module")
def state_json():
    s = State.new(seed=3, deal_id=1)
    for _ in range(30):
        if s.to_act().seat is None or s.to_act().decision in ("bid",):
            break
        s.apply(s.answer_of("basic"))
    return s.to_json()


@SOME
@given(st.data())
def test_state_json_generated(state_json, data):
    _count("state JSON")
    base = json.loads(state_json)
    how = data.draw(st.sampled_from(["leaf", "bytes", "truncate", "as_is"]))
    if how == "leaf":
        path = data.draw(st.sampled_from([p for p in _paths(base) if p and len(p) <= 3][:400]))
        text = json.dumps(_mutate(base, path, data.draw(JSON_LEAVES)))
    elif how == "bytes":
        text = data.draw(st.binary(max_size=200))
    elif how == "truncate":
        text = state_json[: data.draw(st.integers(0, len(state_json) - 1))]
    else:
        text = state_json
    try:
        s = State.from_json(text, "gen-state.json")
    except StateError as e:
        one_line(e, "gen-state.json")
        return
    assert s.to_json() == state_json  # only the state as written is taken back


# ----------------------------------------------------------------------------- run directories


TINY = """
name = "tiny"
seed = 9
count = 40
chunk_size = 20
[[matchup]]
a = "basic"
b = "random"
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    d = tmp_path_factory.mktemp("finished")
    (d / "tiny.toml").write_text(TINY)
    r = _run(["run", d / "tiny.toml", "--out", d / "run", "--quiet"])
    assert r.exit_code == 0, r.output
    return d, (d / "run" / "deals.parquet").read_bytes()


def _damage(path: Path, how: str, data) -> None:
    if how == "delete":
        path.unlink()
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "truncate":
        raw = path.read_bytes()
        path.write_bytes(raw[: data.draw(st.integers(0, max(0, len(raw) - 1)))])
    elif how == "flip":
        raw = bytearray(path.read_bytes())
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] ^= data.draw(st.integers(1, 255))
        path.write_bytes(bytes(raw))
    elif how == "bytes":
        path.write_bytes(data.draw(st.binary(min_size=1, max_size=200)))
    elif how == "not_utf8":
        path.write_bytes(b"\xff\xfe" + path.read_bytes()[2:])
    elif how == "directory":
        path.unlink()
        path.mkdir()


@HEAVY
@given(st.data())
def test_run_directory_files_damaged(tmp_path_factory, finished, data):
    _count("run directory files")
    src, undisturbed = finished
    work = tmp_path_factory.mktemp("damaged")
    shutil.copytree(src / "run", work / "run")
    files = sorted(p for p in (work / "run").rglob("*") if p.is_file() and p.suffix in (".json", ".parquet", ".sum"))
    target = data.draw(st.sampled_from(files))
    how = data.draw(st.sampled_from(["delete", "empty", "truncate", "flip", "bytes", "not_utf8", "directory"]))
    _damage(target, how, data)
    shown = target.relative_to(work / "run")
    for args in (["report", work / "run"], ["export", work / "run", "--deals", "0-1", "--out", work / "x.jsonl"]):
        clean(_run(args), 1, 2)
    r = clean(_run(["run", src / "tiny.toml", "--out", work / "run", "--quiet", "--repair"]), 1, 2)
    if r.exit_code == 0:  # repaired or untouched: the same results as the undisturbed run
        assert (work / "run" / "deals.parquet").read_bytes() == undisturbed, (shown, how)
    assert not (work / "run" / ".lock").exists()


# ----------------------------------------------------------------------------- names


@FEW
@given(st.text(min_size=1, max_size=30))
def test_experiment_names_are_text_and_their_directory_is_one_safe_component(name):
    _count("experiment names")
    try:
        X.check_name(name, "gen.toml")
    except X.ExperimentError as e:
        one_line(e, "gen.toml")
        assume(False)
    d = X.dir_name(name)
    assert d and d not in (".", "..") and not d.startswith(".") and "/" not in d and "\\" not in d
    assert all(ch.isprintable() for ch in d) and len(d.encode()) <= 200
    assert Path("runs", d).parent == Path("runs")


def test_a_chinese_name_runs_into_its_own_directory(tmp_path):
    os.chdir(tmp_path)
    (tmp_path / "e.toml").write_text(TINY.replace('name = "tiny"', 'name = "拖拉机"').replace("count = 40", "count = 4"))
    r = clean(_run(["run", "e.toml", "--quiet"]))
    assert r.exit_code == 0 and (tmp_path / "runs" / "拖拉机" / "deals.parquet").exists()
    assert not (tmp_path / "runs" / "拖拉机" / ".lock").exists()
    assert json.loads((tmp_path / "runs" / "拖拉机" / "manifest.json").read_text())["name"] == "拖拉机"


@pytest.mark.slow
def test_the_heavier_tier():
    """Every property of this module and the plug-in grammar with ten times the examples."""
    import subprocess
    import sys

    here = Path(__file__).parent
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "not slow", str(here / "test_inputs.py"),
                        str(here / "test_plugin_grammar.py")], env={**os.environ, "HYPOTHESIS_PROFILE": "slow"},
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]


def teardown_module():
    """How many cases of each input kind were generated (shown with pytest -s)."""
    print("\ngenerated cases per input kind: " + ", ".join(f"{k} {v}" for k, v in sorted(TALLY.items())))
