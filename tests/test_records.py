"""Deal records: export from a run, the JSON Schema, import and replay identical, bad files."""

import json

import jsonschema
import pytest
from click.testing import CliRunner

from tractor_sim.play import record as REC
from tractor_sim.play.replay import replay_again
from tractor_sim.play import referee
from tractor_sim.cli import main
from tractor_sim.play.game import Game
from tractor_sim.play.replay import replay
from tractor_sim.rules.options import Rules

EXPERIMENT = """
name = "records"
seed = 31
mode = "fixed"
count = 6
duplicate = true
chunk_size = 6

[rules]
kitty_multiplier = "pow2_pairs"
throw_penalty = 5

[fixed]
levels = ["5", "9"]
declaring_team = 1

[[matchup]]
a = "basic"
b = "random"
"""


def _run(args, input=None):
    return CliRunner().invoke(main, args, input=input, catch_exceptions=False)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    (d / "records.toml").write_text(EXPERIMENT)
    r = _run(["run", str(d / "records.toml"), "--out", str(d / "run"), "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return d / "run"


@pytest.fixture(scope="module")
def exported(run_dir):
    out = run_dir.parent / "deals.jsonl"
    r = _run(["export", str(run_dir), "--deals", "0-2,5", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_export_writes_valid_records_for_both_halves(exported, run_dir):
    lines = exported.read_text().splitlines()
    assert len(lines) == 8  # 4 deals x 2 halves
    validator = jsonschema.Draft202012Validator(REC.schema())
    validator.check_schema(REC.schema())
    for line in lines:
        rec = json.loads(line)
        validator.validate(rec)
        assert rec["format"] == "tractor-sim-deal" and rec["version"] == 1
        assert rec["levels"] == ["5", "9"] and rec["declaring_team"] == 1 and rec["trump"]["rank"] == "9"
        assert rec["rules"] == Rules(kitty_multiplier="pow2_pairs", throw_penalty=5).to_dict()
        half = rec["source"]["half"]
        assert rec["policies"] == (["basic", "random"] if half == 0 else ["random", "basic"])
        assert sum(t["points"] for t in rec["tricks"]) + rec["result"]["kitty_points"] == 200
        assert len(rec["tricks"]) == rec["result"]["tricks0"] + rec["result"]["tricks1"] + \
            rec["result"]["tricks2"] + rec["result"]["tricks3"]
    recs = REC.read(exported)
    assert [(r["source"]["half"], r["deal_id"]) for r in recs] == [(h, i) for h in (0, 1) for i in (0, 1, 2, 5)]
    # the two halves share the cards
    assert recs[0]["kitty"] == recs[4]["kitty"]


def test_round_trip_export_import_replay_identical(exported):
    """Every record read back and played again from its seed gives the same events and result."""
    for rec in REC.read(exported):
        again = replay_again(rec)
        assert REC.differences(rec, again) == []
        assert {k: v for k, v in rec.items() if k != "source"} == again


def test_records_agree_with_the_referee(exported):
    """judge on every trick of a record: every play legal, the same winner and points."""
    for rec in REC.read(exported):
        for t in rec["tricks"]:
            j = REC.trick_input(rec, t["trick"])
            out = referee.trick(j["plays"], j["trump"], hands=j["hands"], leader=j["leader"],
                                declarers=j["declarers"], rules=j["rules"])
            assert all(out["legal"]) and out["winner"] == t["winner"] and out["points"] == t["points"]


def test_failed_throws_are_recorded_and_judged_again():
    try:  # the same module object as the other tests (it registers strategies once)
        from tests import reference_deal as RD
    except ImportError:
        import reference_deal as RD

    RD.register_test_policies()
    found = 0
    for deal in range(40):
        rec = REC.validate(replay(seed=8, deal_id=deal, policies=(RD.RASH, "basic"), rules={"throw_penalty": 20}))
        for t in rec["tricks"]:
            if "failed_throw" not in t:
                continue
            found += 1
            f = t["failed_throw"]
            assert len(f["attempted"]) > len(t["plays"][0]["cards"]) and abs(f["penalty"]) % 20 == 0
            j = REC.trick_input(rec, t["trick"])
            out = referee.trick(j["plays"], j["trump"], hands=j["hands"], leader=j["leader"],
                                declarers=j["declarers"], rules=j["rules"])
            assert out["throw"]["ok"] is False and out["throw"]["blocked_by"] == f["blocked_by"]
            assert out["throw"]["penalty"] == f["penalty"] and out["winner"] == t["winner"]
        if found >= 3:
            assert REC.differences(rec, replay_again(rec)) == []
            return
    pytest.fail(f"only {found} failed throws in 40 deals of the rash policy")


def test_match_mode_record_round_trip():
    rec = REC.validate(replay(seed=3, deal_id=1001, policies=("basic", "random"), mode="match"))
    assert rec["deal_id"] == 1001 and rec["result"]["deal_in_match"] == 1
    assert REC.differences(rec, replay_again(rec)) == []


def test_replay_and_judge_read_a_record(exported):
    r = _run(["replay", "--record", str(exported), "--index", "5", "--verify"])
    assert r.exit_code == 0, r.output
    assert "Deal 1 " in r.output and "half 1" in r.output and "verified" in r.output
    r = _run(["judge", "--record", str(exported), "--index", "5", "--trick", "2", "--explain"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["winner"] == REC.load(exported, 5)["tricks"][1]["winner"]


def test_a_tampered_record_fails_verification(exported, tmp_path):
    rec = REC.load(exported, 0)
    rec["tricks"][3]["points"] += 5
    rec["tricks"][3]["plays"][0]["note"] = "notes are annotations, not events"
    bad = tmp_path / "bad.jsonl"
    REC.write([rec], bad)
    r = _run(["replay", "--record", str(bad), "--verify", "--no-check"])
    assert r.exit_code == 1 and "trick 4" in r.output and "Traceback" not in r.output
    r = _run(["replay", "--record", str(bad), "--verify"])  # checked against the rules before anything
    assert r.exit_code == 2 and "trick 4: the record counts" in r.output, r.output


@pytest.mark.parametrize("text, words", [
    ('{"format": "tractor-sim-deal", "version": 1,', "line 1: not valid JSON"),
    ('[1, 2]', "is not of type 'object'"),
    ("", "no deal records"),
    ('{"format": "tractor-sim-deal", "version": 7}', "version 7"),
])
def test_bad_record_files_exit_2(tmp_path, text, words):
    p = tmp_path / "bad.jsonl"
    p.write_text(text)
    r = _run(["replay", "--record", str(p)])
    assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output


def test_bad_fields_are_named(exported, tmp_path):
    rec = REC.load(exported, 0)
    for change, words in ((lambda d: d["tricks"][2]["plays"][1].update(cards=["1X"]), "tricks/2/plays/1/cards/0"),
                          (lambda d: d.pop("hands"), "'hands' is a required property"),
                          (lambda d: d["rules"].update(throw_penalty=-1), "rules/throw_penalty")):
        d = json.loads(json.dumps(rec))
        change(d)
        p = tmp_path / "bad.jsonl"
        p.write_text(json.dumps(rec) + "\n" + json.dumps(d) + "\n")
        r = _run(["replay", "--record", str(p), "--index", "1"])
        assert r.exit_code == 2 and "line 2" in r.output and words in r.output, r.output
    r = _run(["replay", "--record", str(exported), "--index", "8"])
    assert r.exit_code == 2 and "no record 8; the file holds 8" in r.output
    r = _run(["judge", "--record", str(exported), "--trick", "26"])
    assert r.exit_code == 2 and "--trick" in r.output
    r = _run(["replay", "--record", str(exported.parent / "missing.jsonl")])
    assert r.exit_code == 2 and "cannot read" in r.output


def test_export_errors_exit_2(run_dir, tmp_path):
    for args, words in ((["--deals", "0,6"], "deal 6 is not in"), (["--deals", "3-1"], "bad range"),
                        (["--deals", "x"], "expected ids and ranges"),
                        (["--deals", "1", "--matchup", "basic-vs-randm"], "is not a matchup")):
        r = _run(["export", str(run_dir), *args, "--out", str(tmp_path / "x.jsonl")])
        assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output, r.output
    r = _run(["export", str(tmp_path), "--deals", "1"])
    assert r.exit_code == 2 and "not a finished run directory" in r.output


def test_schema_covers_every_rule_option_and_result_column():
    props = REC.schema()["properties"]
    assert set(props["rules"]["required"]) == set(Rules().to_dict())
    standard = REC.schema()["allOf"][0]  # the 4-player 2-deck game: every column
    assert set(standard["then"]["properties"]["result"]["required"]) == set(Game.of().deal_dtype.names)


def test_actions_list_every_decision_in_order(exported):
    rec = REC.load(exported, 2)
    acts = REC.actions(rec)
    plays = [a for a in acts if a["type"] == "play"]
    assert [a["type"] for a in acts[:len(rec["declarations"])]] == ["declare"] * len(rec["declarations"])
    assert acts[len(rec["declarations"])] == {"type": "bury", "seat": rec["starter"], "cards": rec["buried"]}
    assert len(plays) == 4 * len(rec["tricks"]) and plays[0]["seat"] == rec["starter"]
    assert sum(len(a["cards"]) for a in plays) == 100




@pytest.mark.parametrize("source", ["exported", "match", "auction", "throws"])
def test_a_record_loads_into_the_state_and_steps_to_its_result(source, request):
    """Round trip: a record (exported from a run, or replayed in match mode, under the auction, with failed
    throws) loaded into game.State and stepped through gives the record's result; stopped half way and
    played on by the same decisions, too."""
    from tractor_sim.play.game import State

    if source == "exported":
        recs = REC.read(request.getfixturevalue("exported"))
    elif source == "match":
        recs = [replay(seed=3, deal_id=i, policies=("basic", "random"), mode="match") for i in (1000, 1001, 1002)]
    elif source == "auction":
        recs = [replay(seed=5, deal_id=i, policies=("expert", {"name": "bidder", "policy": "random",
                                                               "bid": "random"}), rules="russian") for i in range(3)]
    else:
        try:
            from tests import reference_deal as RD
        except ImportError:
            import reference_deal as RD
        RD.register_test_policies()
        recs = [replay(seed=8, deal_id=i, policies=(RD.RASH, "basic"), rules={"throw_penalty": 20}) for i in range(4)]
        assert any("failed_throw" in t for r in recs for t in r["tricks"])
    for rec in recs:
        state = State.from_record(rec)
        assert state.over
        got = state.result()
        assert {k: got[k] for k in got if k in rec["result"]} == {k: rec["result"][k] for k in got
                                                                    if k in rec["result"]}
        assert got["opp_points"] == rec["result"]["opp_points"] and got["gain"] == rec["result"]["gain"]
        half = State.from_record(rec, upto=40)
        assert not half.over and half.to_act() is not None


def test_a_record_that_does_not_fit_its_deal_is_named():
    from tractor_sim.play.game import State

    rec = replay(seed=2, deal_id=0, policies=("basic", "basic"))
    rec["tricks"][0]["plays"][1]["seat"] = (rec["tricks"][0]["plays"][1]["seat"] + 1) % 4
    with pytest.raises(ValueError, match="record deal 0, decision .*the state asks seat"):
        State.from_record(rec)
