"""Python policies and process bots (tractor_sim.play.players, bots, stepped) in the engine's runs.

Proved by what does not change: a Python policy that answers with a built-in's own answers gives
the built-in's records, deal for deal, in fixed-levels and match mode, on duplicate deals; a policy
answering in plain Python gives the records of stepping the same deals by hand; the reference bots
in Python and JavaScript give one game; every fault of a bot stops the run with one line naming it.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tractor_sim.cli import main
from tractor_sim.play.chunks import SimulationError
from tractor_sim.play.game import Game, State
from tractor_sim.play.registry import python_policy
from tractor_sim.runs import runner

ROOT = Path(__file__).resolve().parent.parent
FAULTY = Path(__file__).resolve().parent / "bots" / "faulty.py"
TAGS = ["matchup", "policy0", "policy1"]


@python_policy("test_wrap_expert")
def _wrap_expert(decision):
    return decision.ask("expert")


SEEN = []


@python_policy("test_first_legal", params={"unused": 0.0})
def _first_legal(decision):
    """The first legal answer, but a declaration whenever there is one."""
    SEEN.append((decision.seat, decision.view.array.copy(), decision._state.observation(decision.seat)))
    options = decision.legal(limit=3)
    return options[1] if decision.decision == "declare" and len(options) > 1 else options[0]


@python_policy("test_raises")
def _raises(decision):
    raise KeyError("no such card")


def _values(frame):
    return frame.drop(columns=TAGS).to_numpy()


@pytest.mark.parametrize("mode, n", [("fixed", 24), ("match", 2)])
def test_a_python_policy_with_a_builtins_answers_gives_the_builtins_records(mode, n):
    kw = dict(n=n, seed=11, duplicate=True, chunk_size=n, mode=mode, levels=(3, 5) if mode == "fixed" else (0, 0))
    compiled, cm = runner.simulate([("expert", "basic")], **kw)
    wrapped, wm = runner.simulate([("test_wrap_expert", "basic")], **kw)
    assert len(compiled) >= 2 * n
    assert (_values(compiled) == _values(wrapped)).all()
    if mode == "match":
        assert (_values(cm) == _values(wm)).all()


def test_a_python_policy_is_played_on_the_engines_deals_and_sees_its_own_view_only():
    SEEN.clear()
    deals, _ = runner.simulate([("test_first_legal", "basic")], n=6, seed=4, duplicate=False, chunk_size=3)
    assert SEEN and all(seat % 2 == 0 and (view == own).all() for seat, view, own in SEEN)
    game = Game.of()
    for i in range(6):  # the same deals stepped by hand: the Python seats' rule written again here
        state = State.new(seed=4, deal_id=i)
        while not state.over:
            turn = state.to_act()
            if turn.seat % 2:
                state.apply(state.answer_of("basic"))
            else:
                options = state.legal(limit=3)
                state.apply(options[1] if turn.decision == "declare" and len(options) > 1 else options[0])
        rec = state.result()
        assert {k: int(deals.loc[i, k]) for k in game.deal_dtype.names} == rec, f"deal {i}"


def test_a_failing_python_policy_is_named():
    with pytest.raises(SimulationError, match=r"Python policy 'test_raises' .*raised KeyError: 'no such card'"):
        runner.simulate([("test_raises", "basic")], n=2, seed=1, duplicate=False)


def test_policy_tables_of_python_policies_are_checked():
    from tractor_sim.play.registry import StrategyError, resolve_policy

    assert resolve_policy({"policy": "test_first_legal", "params": {"unused": 2}}).spec["params"] == {"unused": 2.0}
    with pytest.raises(StrategyError, match="unknown parameter 'nope'"):
        resolve_policy({"policy": "test_first_legal", "params": {"nope": 1}})
    with pytest.raises(StrategyError, match="command must be a list"):
        resolve_policy({"policy": "process", "command": "python3 bot.py"})


def _bot_table(mode, timeout=2):
    return {"policy": "process", "name": f"faulty-{mode}", "command": [sys.executable, str(FAULTY), mode],
            "timeout": timeout}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_reference_bots_in_python_and_javascript_play_one_game():
    mods = (str(ROOT / "strategies" / "process_example.py"),)
    py, _ = runner.simulate([("process_example", "basic")], n=8, seed=3, modules=mods, chunk_size=8)
    js, _ = runner.simulate([("process_example_js", "basic")], n=8, seed=3, modules=mods, chunk_size=8)
    assert len(py) == 16 and (_values(py) == _values(js)).all()


def test_the_bot_protocol_carries_what_the_python_bot_would_choose():
    """The bot's own choice function, called in-process on the same message, gives the same records
    as the bot behind its pipes: the view and legal answers cross the protocol intact."""
    sys.path.insert(0, str(ROOT / "strategies"))
    try:
        import bot
    finally:
        sys.path.pop(0)
    from tractor_sim.play import bots
    from tractor_sim.play.players import View

    @python_policy("test_bot_in_process")
    def in_process(decision):
        state = decision._state
        legal = state.legal(bots.LEGAL_LIMIT + 1)
        if len(legal) == 1:
            return legal[0]
        msg = json.loads(json.dumps({"decision": decision.decision, "seat": decision.seat,
                                     "view": View(state.game, decision.view.array).to_dict(),
                                     "legal": legal[:bots.LEGAL_LIMIT]}))
        return bot.choose(msg)

    mods = (str(ROOT / "strategies" / "process_example.py"),)
    a, _ = runner.simulate([("process_example", "expert")], n=6, seed=8, modules=mods, chunk_size=6)
    b, _ = runner.simulate([("test_bot_in_process", "expert")], n=6, seed=8, chunk_size=6)
    assert (_values(a) == _values(b)).all()


FAULTS = {
    "crash": r"exited with code 3 \(its stderr: 'Traceback: something broke in the bot'\)",
    "hang": r"did not answer within 1 s \(the answer to decision 3; stopped\)",
    "garbage": r"wrote something that is not JSON instead of the answer to decision 3: \"I think I'll play the ace\"",
    "illegal": r"answered an illegal",
    "close": r"closed its stdout before the answer to decision 3",
    "badhello": r"answered the hello with \{\"type\": \"hello\", \"version\": 2\}",
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_a_faulty_bot_stops_the_run_with_one_line_naming_it_and_the_run_stays(tmp_path, mode):
    exp = tmp_path / "exp.toml"
    table = _bot_table(mode, timeout=1)
    exp.write_text(f'name = "f"\nseed = 1\ncount = 20\nchunk_size = 10\n[[matchup]]\nname = "m"\n'
                   f'a = "basic"\nb = "random"\n[[matchup]]\nname = "bot"\nb = "basic"\n'
                   f'a = {{policy = "process", name = "{table["name"]}", command = {json.dumps(table["command"])}, '
                   f'timeout = 1}}\n')
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet", "--workers", "1"],
                             catch_exceptions=False)
    assert res.exit_code == 1, res.output
    first = res.output.strip().splitlines()[0]
    assert first.startswith(f"error: process bot 'faulty-{mode}'"), res.output
    assert __import__("re").search(FAULTS[mode], first), first
    assert "Traceback (most" not in res.output
    assert (out / "manifest.json").exists()
    done = list((out / "parts").glob("**/*"))
    assert done, "the chunks of the first matchup, finished before the bot's, are kept"


def test_a_bot_that_cannot_start_is_named():
    with pytest.raises(SimulationError, match=r"process bot 'nobot' \(/no/such/program\) cannot start"):
        runner.simulate([({"policy": "process", "name": "nobot", "command": ["/no/such/program"]}, "basic")],
                        n=1, seed=1, duplicate=False)


def test_the_examples_in_strategies_run():
    for module, policy in (("python_example.py", "python_example"), ("process_example.py", "process_example")):
        deals, _ = runner.simulate([(policy, "basic")], n=2, seed=1, modules=(str(ROOT / "strategies" / module),),
                                   chunk_size=2)
        assert len(deals) == 4 and set(deals["policy0"]) == {policy, "basic"}


def test_compare_runs_a_python_policy_from_the_command_line():
    res = CliRunner().invoke(main, ["compare", "python_example", "basic", "--module",
                                    str(ROOT / "strategies" / "python_example.py"), "--deals", "6",
                                    "--chunk-size", "3"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "python_example vs basic: 6 duplicate deal pairs" in res.output


def test_the_compiled_example_is_the_docs_worked_example_and_plays():
    doc = (ROOT / "docs" / "strategies.md").read_text()
    code = doc.split("Save this as `my_strategies.py` anywhere:\n\n```python\n", 1)[1].split("```", 1)[0]
    assert (ROOT / "strategies" / "my_strategies.py").read_text() == code
    deals, _ = runner.simulate([("grabber", "basic")], n=4, seed=2, chunk_size=4,
                               modules=(str(ROOT / "strategies" / "my_strategies.py"),))
    assert len(deals) == 8


def test_the_finding_friends_call_example_runs_its_experiment(tmp_path):
    res = CliRunner().invoke(main, ["run", str(ROOT / "strategies" / "friends.toml"), "--deals", "20",
                                    "--chunk-size", "20", "--out", str(tmp_path / "run"), "--quiet",
                                    "--workers", "1"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    deals = __import__("pandas").read_parquet(tmp_path / "run" / "deals.parquet")
    assert len(deals) == 40 and set(deals["policy0"]) == {"long_caller", "basic-ace"}


def test_tune_moves_a_python_policys_parameters(tmp_path):
    from tractor_sim.runs import tune as T

    f = tmp_path / "tune.toml"
    f.write_text(f'name = "t"\nseed = 3\nstrategy_modules = ["{ROOT / "strategies" / "python_example.py"}"]\n'
                 '[tune]\npolicy = {policy = "python_example"}\niterations = 2\npairs = 20\n'
                 '[tune.params.min_points]\nstart = 10\nc = 10\nmin = 0\nmax = 40\n[verify]\npairs = 10\n')
    cfg = T.load(f)
    from tractor_sim.play.registry import load_module

    load_module(cfg["modules"][0])
    trajectory = T.spsa(cfg)
    assert len(trajectory) == 3 and (trajectory["score"].dropna() != 0).any()  # the parameter changes the games
    result = T.verify(cfg, {"min_points": float(trajectory.iloc[-1]["min_points"])})
    assert result is not None


def test_a_search_over_a_python_policy_needs_a_compiled_rollout_policy():
    res = CliRunner().invoke(main, ["analyze", "test_first_legal", "--deals", "1", "--worlds", "2", "--quiet",
                                    "--rollout-policy", "test_wrap_expert"], catch_exceptions=False)
    assert res.exit_code == 2 and "is not compiled" in res.output and "give rollout_policy" in res.output
    res = CliRunner().invoke(main, ["analyze", "expert", "--deals", "1", "--rollout-policy", "basic", "--quiet"])
    assert res.exit_code == 2 and "--rollout-policy goes with a Python policy or bot" in res.output
    for table, what in (({"base": "test_first_legal"}, "give rollout_policy"),
                        ({"base": "expert", "rollout_policy": "basic"}, "field 'rollout_policy' goes with a Python"),
                        ({"base": "test_first_legal", "rollout_policy": "search"}, "a search cannot be rolled out")):
        with pytest.raises(ValueError, match=what):
            runner.simulate([({"policy": "search", **table}, "basic")], n=1, seed=1)


def test_run_plays_a_python_policy_of_an_experiment_in_a_worker_and_resumes(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(f'name = "py"\nseed = 5\ncount = 6\nchunk_size = 3\n'
                   f'strategy_modules = ["{ROOT / "strategies" / "python_example.py"}"]\n'
                   '[[matchup]]\na = {policy = "python_example", params = {min_points = 10}, name = "py10"}\n'
                   'b = "expert"\n')
    out = tmp_path / "run"
    args = ["run", str(exp), "--out", str(out), "--quiet", "--workers", "1"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert any(p.startswith("Python policy 'py10' (") and p.endswith("python_example.py)") for p in manifest["plugins"])
    deals = __import__("pandas").read_parquet(out / "deals.parquet")
    assert len(deals) == 12 and set(deals["policy0"]) == {"py10", "expert"}
    again = CliRunner().invoke(main, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    second = json.loads((out / "manifest.json").read_text())
    assert second["parts_found_at_start"] == 4 and second["deals_sha256"] == manifest["deals_sha256"]
