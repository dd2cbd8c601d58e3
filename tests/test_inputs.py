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

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tractor_sim.cli import main
from tractor_sim.play import record as REC
from tractor_sim.play import referee as RF
from tractor_sim.play import registry as S
from tractor_sim.play import search as SE
from tractor_sim.play.game import State, StateError
from tractor_sim.rules import files
from tractor_sim.rules import sizes as Z
from tractor_sim.rules.fields import Choice, Flag, Real, Shape, Text, Whole, shown
from tractor_sim.rules.options import CHOICES, WHOLE, Rules, RulesError
from tractor_sim.runs import analyze as AN
from tractor_sim.runs import experiment as X
from tractor_sim.runs import train as TR

S.load_builtins()
EXAMPLES = settings.default.max_examples  # 100 in the default profile, 1,000 in the slow one (conftest.py)
FEW = settings(max_examples=EXAMPLES // 4)  # the properties that run a command per example
SOME = settings(max_examples=EXAMPLES // 2)
HEAVY = settings(max_examples=EXAMPLES // 10)  # a run, a report and an export per example
TALLY: dict[str, int] = {}  # generated cases per input kind (printed at the end with pytest -s)


ENDED: dict[str, dict[str, int]] = {}  # how the cases of the declared tables ended: accepted or refused by name


def _count(kind: str) -> None:
    TALLY[kind] = TALLY.get(kind, 0) + 1


def _ended(kind: str, how: str) -> None:
    ENDED.setdefault(kind, {}).setdefault(how, 0)
    ENDED[kind][how] += 1


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


@SOME
@given(st.data())
def test_training_tables_generated(data):
    """A [train] table (tractor-sim train) with fields drawn from their declarations (runs.train.FIELDS):
    the settings as written (a field left out: its default), or one line naming a field outside its
    declaration."""
    _count("training TOML")
    table, wrong = {}, []
    game = data.draw(st.sampled_from([None, {"players": 5, "teams": "friends"}]))
    teams = "friends" if game else "tractor"
    for key, field in TR.FIELDS.items():
        if data.draw(st.booleans()):
            if isinstance(field, Real):
                table[key] = data.draw(real_values(field.low, field.high))
                ok = type(table[key]) in (bool, int, float) and field.low <= table[key] <= field.high  # a switch: 0/1
            else:
                table[key] = data.draw(declared(field))
                ok = allowed(field, table[key])
            if not ok or key in TR.NEEDS and table[key] and TR.NEEDS[key][0] != teams:
                wrong.append(key)
    try:
        cfg = TR.from_dict({"name": "t", "train": table, **({"game": game} if game else {})}, "gen.toml")
    except TR.TrainError as e:
        one_line(e, "gen.toml")
        names_one_of(str(e), wrong)
        assert wrong, str(e)
        return
    assert not wrong, (table, wrong)
    for key in TR.FIELDS:
        assert getattr(cfg, key) == table.get(key, TR.DEFAULTS[key])


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


@FEW
@given(st.sampled_from(["{}", '{"throw_penalty": 101}', "[1]", "nan", '{"preset": ["x"]}', '{"declaring": "auction"}']),
       st.sampled_from(["4", "3", "9", "-4", "x", "", "1e9", str(2**70)]),
       st.sampled_from(["2", "1", "0", "5", "x", "", str(2**70)]),  # 4 players: only 2 decks is a size (no compile)
       st.sampled_from(["tractor", "x", ""]),  # friends at 4 players is a size of its own: tests/test_sizes.py
       st.sampled_from(["0,0.05", "0.05,0", "x", ""]))
def test_compare_options_generated(rules, players, decks, teams, sprt):
    _count("CLI numbers")
    args = ["compare", "expert", "basic", "--deals", "4", "--chunk-size", "2", "--rules", rules, "--players", players,
            "--decks", decks, "--teams", teams] + (["--sprt", sprt] if sprt else [])
    r = clean(_run(args), 2, names=["--rules", "--players", "--decks", "--teams", "--sprt", "rule option", "preset",
                                    "'--"])
    if r.exit_code == 0:
        assert "duplicate deal pairs" in r.output or "SPRT" in r.output, r.output


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


def test_every_integer_of_a_record_written_as_a_float_is_refused_by_name(tmp_path_factory, record):
    """JSON Schema counts 1.0 as an integer; a record's seats, tricks and counts must be integers
    (found by test_records_generated: a play's seat 1.0 reached Python as a list index)."""
    rec, _ = record
    paths = [p for p in _record_paths(rec) if p and type(_node(rec, p)) is int]
    assert len(paths) > 50
    for path in paths:
        named = "version 1.0 of" if path == ("version",) else "at " + "/".join(map(str, path)) + ": "
        with pytest.raises(REC.RecordError, match=named):
            REC.validate(_mutate(rec, path, float(_node(rec, path))))
    file = tmp_path_factory.mktemp("rec") / "float.jsonl"
    REC.write([_mutate(rec, ("tricks", 1, "plays", 1, "seat"), 1.0)], file)
    for args in (["replay", "--record", file], ["judge", "--record", file, "--trick", 2]):
        r = clean(_run(args), 2, names=[file])
        assert r.exit_code == 2 and "tricks/1/plays/1/seat" in r.output


def _node(data, path):
    for k in path:
        data = data[k]
    return data


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


# ----------------------------------------------------------------------------- tables of declared fields
# Values for any declared field (tractor_sim.rules.fields), and whether a value is allowed, judged here
# from the declaration's bounds alone (not by its check): the oracle the tables' checks are held to.

SAMPLES = {  # sensible values of the fields whose content their own parsers read (Shape)
    "base": ["expert", "basic", "random", {"policy": "basic"}, "search", "oracle:basic", "nosuch"],
    "rollout_policy": ["expert", {"policy": "basic"}, "search", "nosuch"],
    "infer": ["none", "base", "basic", {"policy": "basic"}, "search", "nosuch"],
    "trump": [{"rank": "2", "suit": "H"}, {"rank": "A", "suit": None}, {"rank": "Z", "suit": "H"}, {"suit": "H"}],
    "plays": [[["AS"]], [["AS"], ["3S"]], [["AS"], ["3S"], ["BJ"], ["KS"]], [], [["AS"]] * 5, [["ZZ"]]],
    "declarers": [[0, 2], [1, 3], [0, 1], [], [0, 2, 4], [0, 9], [True, 2]],
    "hands": [None, [["AS", "KS"], ["3S"], ["BJ"], ["KS"]], [["AS"]], [[], [], [], []]],
    "rules": [None, {}, {"throw_penalty": 5}, {"throw_penalty": 101}, {"nosuch": 1}],
}


def declared(field, name_samples=SAMPLES):
    """Values for one declared field: inside, at and past both ends, of the wrong type, not finite, huge."""
    if isinstance(field, Whole):
        return whole_values(field)
    if isinstance(field, Choice):
        inside = st.sampled_from(field.options)
        if field.many:
            inside = st.one_of(inside, st.lists(inside, min_size=1, max_size=4), st.just([]),
                               st.lists(st.sampled_from([*field.options, "bid", "x"]), max_size=3))
        return st.one_of(inside, st.text(max_size=10), WRONG, NOT_FINITE)
    if isinstance(field, Flag):
        return st.one_of(st.booleans(), st.integers(0, 1), st.sampled_from(["true", "no"]), WRONG)
    if isinstance(field, Text):
        return st.one_of(st.text(max_size=field.longest + 20), st.just("x" * (field.longest + 1)), WRONG)
    assert isinstance(field, Shape), field
    return st.one_of(st.sampled_from(name_samples[field.name]), WRONG, NOT_FINITE, HUGE)


def allowed(field, value) -> bool:
    """Whether ``value`` is inside ``field``'s declaration, from its bounds alone."""
    if isinstance(field, Whole):
        return type(value) is int and field.low <= value <= field.high
    if isinstance(field, Choice):
        if field.many:
            values = [value] if isinstance(value, str) else value
            return type(values) is list and len(values) > 0 and all(type(v) is str and v in field.options
                                                                    for v in values)
        return type(value) is str and value in field.options
    if isinstance(field, Flag):
        return type(value) is bool
    if isinstance(field, Text):
        return type(value) is str and 0 < len(value.strip()) and len(value) <= field.longest and value.isprintable()
    return type(value) in field.types and (type(value) is not list or
                                           field.least <= len(value) <= (field.most or len(value)))


@st.composite
def declared_tables(draw, table, base, samples=SAMPLES, rarely=(), **narrowed):
    """``base`` (a valid table) with some fields redrawn from their declarations, some dropped, maybe an
    unknown one; returns (the table, the names an error may give: the fields outside their
    declarations, dropped required ones, the unknown key; empty when every field is allowed).
    The fields ``rarely`` are changed in one table of six (another game size: a compile)."""
    data = dict(base)
    wrong = []
    for f in table.fields:
        how = draw(st.sampled_from(["keep"] * (30 if f.name in rarely else 4) + ["draw", "drop"]))
        if how == "drop":
            data.pop(f.name, None)
            if f.name in table.required:
                wrong.append(f.name)
        elif how == "draw":
            data[f.name] = draw(declared(f, samples))
            if not allowed(narrowed.get(f.name, f), data[f.name]):
                wrong.append(f.name)
    if draw(st.booleans()) and draw(st.booleans()):
        key = draw(st.sampled_from(["wolrds", "leeder", "x", ""]))
        data[key] = 1
        wrong.append(key)
    return data, wrong


def _decimal(text: str):
    """``text`` as a whole number when it is one written in ASCII digits (a sign allowed), else None."""
    body = text.strip()
    digits = body[1:] if body[:1] in ("+", "-") else body
    return int(body) if digits.isascii() and digits.isdigit() else None


def names_one_of(text: str, names) -> None:
    assert "\n" not in text and text, text
    assert not names or any(shown(n) in text or f"{n}{sep}" in text for n in names for sep in (":", "[", " =")), \
        (names, text)


# ----------------------------------------------------------------------------- search settings

SEARCH_BASE = {"policy": "oracle", "base": "basic", "worlds": 4}
GOOD_POLICIES = {"base": ("expert", "basic", "random", {"policy": "basic"}),
                 "infer": ("none", "base", "basic", {"policy": "basic"})}


@SOME
@given(declared_tables(SE.SETTINGS, SEARCH_BASE))
@example(({"policy": "oracle", "base": "search", "worlds": 4, "rollout_policy": "expert"}, []))  # found: base unnamed
@example(({"policy": "search", "base": "basic", "worlds": 4, "infer": ""}, []))  # found by the slow tier:
@example(({"policy": "search", "base": "basic", "worlds": 4, "infer": {}}, []))  # a model of the right type
@example(({"policy": "search", "base": "basic", "worlds": 4, "infer": {"": 0}}, []))  # that names none
def test_search_tables_generated(case):
    spec, wrong = case
    assume(SE.is_search(spec))  # a table without a search's policy is another kind of policy table
    _count("search settings")
    if "rollout_policy" in spec and not wrong:  # the bases here are compiled: rolled out themselves
        wrong = ["rollout_policy", "base"]
    infer = spec.get("infer", "none")
    if "infer" not in wrong and infer != "none" and (
            str(spec.get("policy")).startswith("oracle") or infer in ("search", "nosuch")):
        wrong = wrong + ["infer"]  # the oracle has no worlds to weigh; a search or an unknown name is no model
    try:
        resolved = S.resolve_policy(spec)
    except S.StrategyError as e:
        base = spec.get("base", SE.DEFAULT_BASE)
        _ended("search settings", "refused, named")
        if "policy" in wrong:  # "search:" or "oracle:x:y:z:w": the name's parts
            assert str(e).startswith(f"policy {spec['policy']!r}"), str(e)
            return
        if wrong:
            names_one_of(str(e), wrong)
            return
        # a value of a field's own type that its parser refuses ('' or {} for a policy): not a good one
        doubtful = [k for k, v in (("base", base), ("infer", infer)) if v not in GOOD_POLICIES[k]]
        assert doubtful, str(e)
        names_one_of(str(e), doubtful + ([base] if "base" in doubtful and isinstance(base, str) else []))
        return
    _ended("search settings", "accepted")
    assert not wrong, (spec, wrong)  # everything outside its declaration is refused
    got = resolved.search
    for key in ("worlds", "rollouts", "max_candidates", "record"):
        assert getattr(got, key) == spec.get(key, getattr(SE.SearchSettings("x"), key))
    decisions = spec.get("decisions", SE.SEARCHABLE)
    assert set(got.decisions) == ({decisions} if isinstance(decisions, str) else set(decisions))


@SOME
@given(st.sampled_from(SE.KINDS), st.sampled_from(["expert", "basic", "", "nosuch"]),
       st.lists(st.one_of(whole_values(SE.SETTINGS["worlds"]).map(str), st.text(max_size=5),
                          st.sampled_from(["+8", "-1", "+-5", " 7 ", "٣", "8.0", "1e3"])), max_size=3))
def test_search_names_generated(kind, base, numbers):
    _count("search settings")
    name = ":".join([kind, base, *numbers]) if base or numbers else kind
    try:
        resolved = S.resolve_policy(name)
    except S.StrategyError as e:
        one_line(e)
        bad = [key for key, text in zip(("worlds", "rollouts"), numbers)
               if _decimal(text) is None or not allowed(SE.SETTINGS[key], _decimal(text))]
        assert bad or not base or base == "nosuch" or len(numbers) > 2 or "" in numbers, (name, str(e))
        names_one_of(str(e), bad + ["nosuch", name])
        _ended("search settings", "refused, named")
        return
    _ended("search settings", "accepted")
    for key, text in zip(("worlds", "rollouts"), numbers):
        assert getattr(resolved.search, key) == _decimal(text)


@FEW
@given(st.fixed_dictionaries({key: st.one_of(whole_values(field).map(str), st.text(max_size=4))
                              for key, field in AN.NUMBERS.items()}))
def test_analyze_numbers_generated(texts):
    bad = [key for key, text in texts.items() if _decimal(text) is None or not allowed(AN.NUMBERS[key], _decimal(text))]
    assume(bad)  # all of them inside: a whole analysis would run
    _count("analyze numbers")
    args = ["analyze", "basic", "--quiet"]
    for key, text in texts.items():
        args += ["--" + key.replace("_", "-"), text]
    r = clean(_run(args), 2)
    assert r.exit_code == 2 and any(f"'--{key.replace('_', '-')}'" in r.output for key in bad), (bad, r.output)
    _ended("analyze numbers", "refused, named")


# ----------------------------------------------------------------------------- game sizes


@SOME
@given(declared_tables(Z.SIZE, {}))
def test_game_sizes_generated(case):
    _count("game sizes")
    table, wrong = case
    try:
        size = Z.GameSize.of(table, "gen")
    except Z.GameSizeError as e:
        one_line(e, "gen")
        names_one_of(str(e), wrong or ["teams", "table"])  # 5 players in tractor teams; a table with a field
        _ended("game sizes", "refused, named")
        return
    _ended("game sizes", "accepted")
    assert not wrong, (table, wrong)
    assert size in Z.PLAYABLE
    for key in ("players", "decks", "teams"):
        if key in table:
            assert getattr(size, key) == table[key]


# ----------------------------------------------------------------------------- judge JSON by declaration

JUDGE_BASE = {"trump": {"rank": "2", "suit": "H"}, "plays": [["AS"], ["3S"], ["BJ"], ["KS"]], "leader": 0}


@SOME
@given(st.data())
def test_judge_fields_generated(data):
    """Each field of the judge's input (referee.TRICK) drawn from its declaration; the game size's
    fields too, judged without compiling another size (check_json) unless it is the 4-player game."""
    trick, wrong = data.draw(declared_tables(RF.TRICK, JUDGE_BASE, rarely=RF.GAME_FIELDS,
                                             **RF._narrowed(Z.STANDARD)))
    _count("judge JSON")
    size_given = {k: trick[k] for k in RF.GAME_FIELDS if k in trick}
    standard = size_given in ({}, {"players": 4}, {"decks": 2}, {"players": 4, "decks": 2}, {"teams": "tractor"},
                              {"players": 4, "teams": "tractor"}, {"players": 4, "decks": 2, "teams": "tractor"},
                              {"decks": 2, "teams": "tractor"})
    if not standard:
        try:
            RF.check_json(trick)
        except RF.RefereeError as e:  # the size's fields first: an odd table of tractor teams names teams
            names_one_of(str(e), wrong + ["teams"] if wrong else RF.TRICK.names)
            _ended("judge JSON", "refused, named (another size: checked, not judged)")
            return
        assert "leader" not in wrong, trick  # a leader beyond 4 players may be a seat of a larger game
        _ended("judge JSON", "accepted (another size: checked, not judged)")
        return
    r = clean(_run(["judge", "-"], input=json.dumps(trick)), 2)
    if r.exit_code:
        names_one_of(r.output.strip().removeprefix("error: stdin: "), wrong or RF.TRICK.names + ["card", "rank"])
        _ended("judge JSON", "exit 2, named")
    else:
        assert not wrong, (trick, wrong)
        _ended("judge JSON", "exit 0")


# ----------------------------------------------------------------------------- model files

MODEL = {"w": np.arange(12.0).reshape(3, 4), "b": np.zeros(4), "n": np.arange(5, dtype=np.int64)}


def _model_bytes(tmp, compressed: bool) -> bytes:
    path = tmp / "m.npz"
    (np.savez_compressed if compressed else np.savez)(path, **MODEL)
    return path.read_bytes()


@SOME
@given(st.data())
def test_model_files_damaged(tmp_path_factory, data):
    """A model file read by rules.files.read_model, damaged in every way generated: the arrays as
    written, or one line naming the file; never a traceback or an unnamed error."""
    _count("model files")
    tmp = tmp_path_factory.mktemp("model")
    raw = _model_bytes(tmp, data.draw(st.booleans()))
    how = data.draw(st.sampled_from(["as_is", "truncate", "flip", "bytes", "zip_bytes", "empty", "directory",
                                     "missing", "npy", "objects", "nan", "json", "json_bytes", "json_nan",
                                     "suffix"]))
    path = tmp / "model.npz"
    if how == "as_is":
        path.write_bytes(raw)
    elif how == "truncate":
        path.write_bytes(raw[: data.draw(st.integers(0, len(raw) - 1))])
    elif how == "flip":
        i = data.draw(st.integers(0, len(raw) - 1))
        path.write_bytes(raw[:i] + bytes([raw[i] ^ data.draw(st.integers(1, 255))]) + raw[i + 1:])
    elif how == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=300)))
    elif how == "zip_bytes":
        path.write_bytes(b"PK\x03\x04" + data.draw(st.binary(max_size=300)))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "directory":
        path.mkdir()
    elif how == "npy":
        np.save(tmp / "one.npy", MODEL["w"])
        (tmp / "one.npy").rename(path)
    elif how == "objects":
        np.savez(path, w=np.array([{"a": 1}, None], dtype=object))
    elif how == "nan":
        np.savez(path, **{**MODEL, "w": np.array([1.0, data.draw(NOT_FINITE)])})
    elif how in ("json", "json_bytes", "json_nan"):
        path = tmp / "model.json"
        text = json.dumps({"w": [1, 2], "b": [0.5]}).encode()
        if how == "json_nan":
            text = text.replace(data.draw(st.sampled_from([b"1", b"2", b"0.5"])),
                                data.draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999"])), 1)
        path.write_bytes(text if how != "json_bytes" else text[: data.draw(st.integers(0, len(text)))] +
                         data.draw(st.binary(max_size=20)))
    elif how == "suffix":
        path = tmp / data.draw(st.sampled_from(["model.npy", "model", "model.pt", "model.NPZ.txt"]))
        path.write_bytes(raw)
    try:
        got = files.read_model(path, names=("w",))
    except ValueError as e:
        one_line(e, path)
        assert how != "as_is", str(e)
        _ended("model files", "refused, naming the file")
        return
    _ended("model files", "read: the arrays as written")
    if path.suffix == ".json":
        assert got == {"w": [1, 2], "b": [0.5]}
        return
    assert how in ("as_is", "flip"), how  # a flip the archive's checks let through reads the same arrays
    assert set(got) == set(MODEL) and all(np.array_equal(got[k], MODEL[k]) and got[k].dtype == MODEL[k].dtype
                                          for k in MODEL), got


def test_model_file_errors_name_the_file_and_what_is_wrong(tmp_path):
    cases = {"missing": "no such model file", "directory": "a directory, not a model file",
             "empty": "the model file is empty", "truncated": "truncated or damaged .npz",
             "npy": "a single NumPy array (.npy)", "objects": "never unpickled",
             "nan": "array 'w' of the model file holds NaN or infinity", "no_w": "has no array 'w'",
             "text": "not a model file", "json_nan": "field 'w'[1] of the model file is NaN or infinity"}
    raw = _model_bytes(tmp_path, True)
    for how, words in cases.items():
        path = tmp_path / f"{how}.npz"
        if how == "directory":
            path.mkdir()
        elif how == "empty":
            path.write_bytes(b"")
        elif how == "truncated":
            path.write_bytes(raw[: len(raw) - 30])
        elif how == "npy":
            np.save(tmp_path / "a.npy", MODEL["w"])
            (tmp_path / "a.npy").rename(path)
        elif how == "objects":
            np.savez(path, w=np.array([None], dtype=object))
        elif how == "nan":
            np.savez(path, w=np.array([np.nan]))
        elif how == "no_w":
            np.savez(path, v=np.zeros(2))
        elif how == "text":
            path.write_text("w = 1\n")
        elif how == "json_nan":
            path = tmp_path / "nan.json"
            path.write_text('{"w": [1, NaN]}')
        with pytest.raises(ValueError) as e:
            files.read_model(path, names=("w",))
        assert str(e.value).startswith(str(path)) and words in str(e.value), (how, str(e.value))
    np.savez(tmp_path / "ok.npz", **MODEL)
    assert set(files.read_model(tmp_path / "ok.npz", names=("w",))) == set(MODEL)


@pytest.mark.slow
def test_every_byte_of_a_model_file_flipped(tmp_path):
    """Each byte of a stored and of a compressed .npz model, flipped three ways: the arrays as written,
    or one line naming the file; nothing else (a damaged zip directory that drops an array included)."""
    ends = {"same": 0, "refused": 0}
    for compressed in (False, True):
        raw = _model_bytes(tmp_path, compressed)
        path = tmp_path / "flipped.npz"
        for i in range(len(raw)):
            for bits in (0x01, 0x80, 0xFF):
                path.write_bytes(raw[:i] + bytes([raw[i] ^ bits]) + raw[i + 1:])
                try:
                    got = files.read_model(path, names=("w",))
                except ValueError as e:
                    one_line(e, path)
                    ends["refused"] += 1
                    continue
                assert set(got) == set(MODEL) and all(np.array_equal(got[k], MODEL[k]) and
                                                      got[k].dtype == MODEL[k].dtype for k in MODEL), (i, bits)
                ends["same"] += 1
    print(f"\nevery byte of two model files flipped: {ends}")


# ----------------------------------------------------------------------------- names


@FEW
@given(st.text(min_size=1, max_size=30))
def test_experiment_names_are_text_and_their_directory_is_one_safe_component(name):
    _count("experiment names")
    try:
        X.check_name(name, "gen.toml")
    except X.ExperimentError as e:
        one_line(e, "gen.toml")  # a refused name: checked here, not filtered (Hypothesis's health check
        return  # counts filtered inputs, and most generated text is refused)
    d = X.dir_name(name)
    assert d and d not in (".", "..") and not d.startswith(".") and "/" not in d and "\\" not in d
    assert all(ch.isprintable() for ch in d) and len(d.encode()) <= 200
    assert Path("runs", d).parent == Path("runs")


def test_a_chinese_name_runs_into_its_own_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # restored after: later tests of the worker read files relative to the checkout
    (tmp_path / "e.toml").write_text(TINY.replace('name = "tiny"', 'name = "拖拉机"').replace("count = 40", "count = 4"))
    r = clean(_run(["run", "e.toml", "--quiet"]))
    assert r.exit_code == 0 and (tmp_path / "runs" / "拖拉机" / "deals.parquet").exists()
    assert not (tmp_path / "runs" / "拖拉机" / ".lock").exists()
    assert json.loads((tmp_path / "runs" / "拖拉机" / "manifest.json").read_text())["name"] == "拖拉机"


@pytest.mark.slow
@pytest.mark.long
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
    for kind, ends in sorted(ENDED.items()):
        print(f"  {kind}: " + ", ".join(f"{how} {n}" for how, n in sorted(ends.items())))
