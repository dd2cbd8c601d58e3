"""Plug-in modules generated from a grammar of mistakes (issue 28, items 3 and 7).

A generated module registers a strategy that plays like a built-in but, on
the way, writes into one of the arrays it is handed (view, params, rng,
scratch, out: inside, at the last cell, one past the end, at -1), or has
the wrong signature, raises (when loading or when playing), registers its
name twice, or loops forever.  Each module must be refused naming it, or
play the same deals whatever the chunking: identical results for chunk
sizes 1, 7 and 50 (the slow tier adds 400 and two workers), or the same
one-line run-time error (an illegal answer, an index out of bounds) at every
chunking.  Never a traceback, never an "internal error".
"""

from __future__ import annotations

import itertools
import os

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tractor_sim import simulate
from tractor_sim.cli import main
from tractor_sim.play import sandbox
from tractor_sim.runs.engine import SimulationError

EXAMPLES = settings.default.max_examples  # 100 by default, 1,000 under HYPOTHESIS_PROFILE=slow (conftest.py)
SLOW = os.environ.get("HYPOTHESIS_PROFILE") == "slow"
CHUNKS = [1, 7, 50] + ([400] if SLOW else [])  # in this process, one after the other
WORKERS = [1, 2] if SLOW else [1]  # through the command line, chunks of 50 in worker processes
LOOP_TIMEOUT = 20  # seconds: a module that loops is stopped by the run's chunk limit
DEALS = 400 if SLOW else 50
NUMBERS = itertools.count()
BASES = {"follow": "smart", "lead": "top_cards"}
ARRAYS = {"view": 2, "params": 1, "rng": 1, "scratch": 1, "out": 1}
GOOD_ARGS = "view, params, rng, scratch, out"
BAD_ARGS = ["view, params, rng, scratch", "view, params, rng, scratch, out, extra", "*args",
            "view, params, rng, scratch, *, out", "view, params, rng, scratch, out=None"]
OUTCOMES: dict[str, int] = {}  # how each generated module ended (printed at the end with pytest -s)


def _index(array: str, draw) -> str:
    ends = ["0", f"{array}.shape[{{axis}}] - 1", f"{array}.shape[{{axis}}]", "-1"]
    if ARRAYS[array] == 2:
        return ", ".join(draw(st.sampled_from(ends)).format(axis=a) for a in (0, 1))
    return draw(st.sampled_from(ends)).format(axis=0)


@st.composite
def modules(draw):
    """(source, strategy name, what it does) of a generated plug-in module."""
    decision = draw(st.sampled_from(sorted(BASES)))
    name = f"mutant_{next(NUMBERS)}_{draw(st.integers(0, 999))}"  # a new name: other examples' are registered
    mistake = draw(st.sampled_from(["write", "write", "write", "signature", "raise_load", "raise_play", "duplicate",
                                    "float_return"] + (["loop"] if SLOW else [])))
    args, body, extra, preamble = GOOD_ARGS, [], "", ""
    if mistake == "write":
        for _ in range(draw(st.integers(1, 2))):
            array = draw(st.sampled_from(sorted(ARRAYS)))
            value = draw(st.sampled_from(["0", "1", "-1", "7", "1000000000"] +
                                         (["math.nan", "-1e300"] if array in ("params", "scratch") else [])))
            where = draw(st.sampled_from(["before", "after"]))
            body.append((where, f"{array}[{_index(array, draw)}] = {value}"))
    elif mistake == "signature":
        args = draw(st.sampled_from(BAD_ARGS))
    elif mistake == "raise_load":
        preamble = "raise RuntimeError('this module fails while loading')"
    elif mistake == "raise_play":
        body.append(("before", "if view[0, 0] >= 0:\n        raise ValueError('the strategy raised')"))
    elif mistake == "duplicate":
        extra = "twice"
    elif mistake == "loop":
        body.append(("before", "while view[0, 0] >= -1:\n        scratch[0] += 1.0"))
    lines = [f"    {code}" for where, code in body if where == "before"]
    call = "_base(view, params, rng, scratch, out)" if args == GOOD_ARGS else "0"
    lines.append(f"    r = {call}")
    lines += [f"    {code}" for where, code in body if where == "after"]
    lines.append("    return 1.5" if mistake == "float_return" else "    return r")
    fn = "\n".join(lines)
    src = f'''
import math
from tractor_sim.play.registry import strategy, policy, get_strategy
{preamble}
_base = get_strategy("{decision}", "{BASES[decision]}").dispatcher


@strategy("{decision}", "{name}", params={{"k": 3.0}})
def {name}({args}):
{fn}
'''
    if extra == "twice":
        src += f'''

@strategy("{decision}", "{name}")
def {name}_again({GOOD_ARGS}):
    return _base(view, params, rng, scratch, out)
'''
    return src, name, decision, mistake


def _experiment(folder, module, name, decision, chunk):
    return f'''
name = "grammar"
seed = 5
count = {DEALS}
chunk_size = {chunk}
strategy_modules = ["{module}"]

[[matchup]]
a = {{policy = "expert", {decision} = "{name}"}}
b = "basic"
'''


def _in_process(module, name, decision, chunk):
    """The deals at chunk size ``chunk`` in this process, or the run-time error's class."""
    try:
        deals, _ = simulate([({"policy": "expert", decision: name}, "basic")], n=DEALS, seed=5, chunk_size=chunk,
                            modules=[str(module)])
    except SimulationError as e:
        assert name in str(e) and "\n" not in str(e), str(e)
        return "SimulationError"
    return deals.sort_values(["matchup", "half", "deal_id"]).reset_index(drop=True)


def _one(folder, module, name, decision, chunk, workers, timeout):
    """The run through the command line: (exit code, its one error line) or (0, the deals).  ``timeout``
    is short only for a module that loops: a worker's first chunk compiles the kernels with the plug-in,
    which on a loaded machine can take longer than a short limit (a timeout there is not the module's fault)."""
    exp = folder / f"e{chunk}-{workers}.toml"
    exp.write_text(_experiment(folder, module, name, decision, chunk))
    out = folder / f"run{chunk}-{workers}"
    r = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet", "--workers", str(workers),
                                  "--chunk-timeout", str(timeout)], catch_exceptions=False)
    text = r.output
    assert "Traceback" not in text and "internal error" not in text, text
    assert r.exit_code in (0, 1, 2), (r.exit_code, text)
    if r.exit_code:
        errors = [line for line in text.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, text
        return r.exit_code, errors[0]
    deals = pd.read_parquet(out / "deals.parquet").sort_values(["matchup", "half", "deal_id"]).reset_index(drop=True)
    assert not (out / ".lock").exists()
    return 0, deals


@settings(max_examples=int(os.environ.get("PLUGIN_EXAMPLES", max(3, EXAMPLES // 25))))  # 4 by default, 40 slow
@given(modules())
def test_generated_plugins_are_refused_by_name_or_play_alike_at_any_chunking(tmp_path_factory, module):
    src, name, decision, mistake = module
    folder = tmp_path_factory.mktemp("plugin")
    path = folder / f"{name}.py"
    path.write_text(src)
    timeout = LOOP_TIMEOUT if mistake == "loop" else sandbox.DEFAULT_CHUNK_TIMEOUT
    outcomes = [_one(folder, path, name, decision, 50, workers, timeout) for workers in WORKERS]
    codes = {code for code, _ in outcomes}
    assert len(codes) == 1, (mistake, [o if c else 0 for c, o in outcomes])
    code = codes.pop()
    OUTCOMES[f"{mistake}: exit {code}"] = OUTCOMES.get(f"{mistake}: exit {code}", 0) + 1
    if mistake in ("signature", "raise_load", "duplicate"):
        assert code == 2, (mistake, outcomes[0])
    if code == 2:  # refused: the message names the module or the function
        for _, message in outcomes:
            assert name in message or str(path) in message, message
        return
    if code == 1:  # a run-time error naming the strategy
        assert all(name in message for _, message in outcomes), outcomes
    if mistake == "loop":
        return  # in this process it would never return
    alike = [_in_process(path, name, decision, chunk) for chunk in CHUNKS]
    if code == 1:  # the same failure at every chunking
        assert all(isinstance(a, str) for a in alike), (mistake, alike)
        return
    cli = outcomes[0][1]
    for deals in alike:
        assert not isinstance(deals, str), (mistake, deals)
        pd.testing.assert_frame_equal(alike[0], deals)
    for _, deals in outcomes[1:]:
        pd.testing.assert_frame_equal(cli, deals)
    common = [c for c in alike[0].columns if c in cli.columns and c != "matchup"]
    pd.testing.assert_frame_equal(alike[0][common], cli[common], check_dtype=False, check_categorical=False)


def teardown_module():
    print("\nplug-in mutants by mistake and outcome: " + ", ".join(f"{k} {v}" for k, v in sorted(OUTCOMES.items())))
