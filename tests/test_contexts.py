"""Contexts in experiments: every matchup once per context on the same deals, a partial table completed by
the context, the context column, the report's section "By context", and ``compare --context``."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tractor_sim.cli import main
from tractor_sim.play import replay as R
from tractor_sim.runs import contexts as CTX
from tractor_sim.runs import experiment as X
from tractor_sim.runs import fingerprint
from tractor_sim.runs.runner import run_experiment
from tractor_sim.stats import ratings

HEAD = """
seed = 31
count = 150
chunk_size = 75
"""
MATCHUPS = """
[[matchup]]
a = {discard = "void", name = "void"}
b = {discard = "keep_points", name = "keep_points"}

[[matchup]]
a = {discard = "void", name = "void"}
b = {discard = "lowest", name = "lowest"}

[[matchup]]
a = {discard = "keep_points", name = "keep_points"}
b = {discard = "lowest", name = "lowest"}
"""
CONTEXTS = ["basic", "expert"]
DATA = ["half", "deal_id", "policy0", "policy1", "declaring_team", "opp_points", "row", "gain", "gain_team",
        "kitty_points", "trick_points", "trump_suit", "redeals", "starter"]


def _cli(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The two-context experiment, run through the command line."""
    tmp = tmp_path_factory.mktemp("contexts")
    path = tmp / "two.toml"
    path.write_text(f'name = "two"\n{HEAD}contexts = {json.dumps(CONTEXTS)}\n{MATCHUPS}')
    out = tmp / "run"
    r = _cli(["run", str(path), "--out", str(out), "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return out


def test_every_matchup_once_per_context_with_a_context_column(run):
    deals = pd.read_parquet(run / "deals.parquet")
    assert list(deals.columns[:2]) == ["matchup", "context"]
    assert list(dict.fromkeys(deals["context"].astype(str))) == CONTEXTS
    for c in CONTEXTS:
        d = deals[deals["context"].astype(str) == c]
        assert d["matchup"].astype(str).str.endswith(f"@{c}").all()
        assert d.groupby(["matchup", "half"], observed=True)["deal_id"].apply(
            lambda s: sorted(s) == list(range(150))).all()
    summary = pd.read_csv(run / "summary.csv")
    assert list(summary.columns[:2]) == ["matchup", "context"] and set(summary["context"]) == set(CONTEXTS)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["experiment"]["contexts"] == CONTEXTS
    assert manifest["fingerprint"]["contexts"] == CONTEXTS
    assert {m["context"] for m in manifest["experiment"]["matchups"]} == set(CONTEXTS)


def test_every_context_plays_the_same_deals(run):
    """The cards dealt (hands and kitty, replayed from the run) of a deal id are the same in every context."""
    dealt = {}
    for c in CONTEXTS:
        for rec in R.export(run, [0, 1, 2, 3], matchups=[f"void-vs-keep_points@{c}"], halves={0}):
            if rec["redeals"] == 0:  # a redeal deals again, after the declarations the context chose
                dealt.setdefault(rec["deal_id"], []).append((rec["hands"], rec["kitty"]))
    both = [v for v in dealt.values() if len(v) == 2]
    assert both and all(a == b for a, b in both)


@pytest.mark.parametrize("context", CONTEXTS)
def test_a_partial_table_in_a_context_is_the_full_table(run, context, tmp_path):
    """{discard = "void"} in context X plays as {policy = X, discard = "void"} written out, deal for deal."""
    full = MATCHUPS.replace("{discard =", f'{{policy = "{context}", discard =')
    exp = X.from_dict(__import__("tomllib").loads(f'name = "full"\n{HEAD}{full}'))
    assert not exp.contexts
    run_experiment(exp, tmp_path / "full", report=False)
    explicit = pd.read_parquet(tmp_path / "full" / "deals.parquet")
    assert "context" not in explicit
    deals = pd.read_parquet(run / "deals.parquet")
    ours = deals[deals["context"].astype(str) == context]
    for name in ("void-vs-keep_points", "keep_points-vs-lowest"):
        a = ours[ours["matchup"].astype(str) == f"{name}@{context}"][DATA].reset_index(drop=True)
        b = explicit[explicit["matchup"].astype(str) == name][DATA].reset_index(drop=True)
        pd.testing.assert_frame_equal(a.astype(str), b.astype(str))


def test_the_report_has_the_section_by_context(run):
    md = (run / "report.md").read_text()
    section = md[md.index("## By context"):md.index("## Figures")]
    for c in CONTEXTS:
        assert f"### Context {c}" in section and "Order: " in section
    assert "### Interaction: does the order differ between contexts?" in section
    assert ("The order differs between contexts" in section) or ("does not differ resolvably" in section)
    assert "By context" in (run / "report.html").read_text()
    t = pd.read_csv(run / "interaction.csv")
    assert len(t) == 3 and set(t["context1"]) == {"basic"} and set(t["context2"]) == {"expert"}
    assert np.allclose(t["interaction"], t["difference1"] - t["difference2"])
    assert (t["low"] < t["interaction"]).all() and (t["interaction"] < t["high"]).all()
    # each context's difference is that context's own fit
    deals = pd.read_parquet(run / "deals.parquet")
    for c, col in (("basic", "difference1"), ("expert", "difference2")):
        fit = ratings.fit(ratings.pair_table(deals[deals["context"].astype(str) == c]))
        r = dict(zip(fit["ratings"]["policy"], fit["ratings"]["rating"]))
        assert np.allclose(t[col], [r[a] - r[b] for a, b in zip(t["a"], t["b"])])


def test_without_contexts_nothing_changes():
    """An experiment without the field: no context in its manifest or fingerprint, the matchups as written.
    (Checked once against the code before contexts: the same fingerprint but for the engine's code hash.)"""
    exp = X.load("experiments/discard.toml")
    assert exp.played() is exp.matchups and "contexts" not in exp.to_dict()
    now = fingerprint.of_run(exp)
    assert set(now) == {"tractor_sim", "seed", "mode", "count", "duplicate", "chunk_size", "levels",
                        "declaring_team", "rules", "matchups", "strategy_sources", "engine_code"}
    assert list(now["matchups"]) == [m["name"] for m in exp.matchups] and "@" not in "".join(now["matchups"])
    from tractor_sim.runs import engine

    (spec, *_) = engine.plan_chunks(exp.matchups[:1], n=10, chunk_size=10)
    assert spec.context == ""


def test_completing_a_table():
    assert CTX.complete({"discard": "void", "name": "v"}, "expert") == {"policy": "expert", "discard": "void",
                                                                         "name": "v"}
    assert CTX.complete("basic", "expert") == "basic"
    from tractor_sim.core.kernels.view import DECISIONS

    assert CTX.DECISIONS == DECISIONS
    assert CTX.complete({"policy": "basic", "discard": "void"}, "expert") == {"policy": "basic", "discard": "void"}
    ctx = {"policy": "expert", "name": "mine", "params": {"discard.x": 1, "lead": {"y": 2}}}
    assert CTX.complete({"discard": "void", "params": {"follow.z": 3}}, ctx) == {
        "policy": "expert", "discard": "void", "name": "discard=void", "params": {"lead.y": 2, "follow.z": 3}}
    # a search context searches what the table leaves to it: never the studied decision
    assert CTX.complete({"discard": "void", "name": "v"}, "search:expert:8") == {
        "policy": "search", "base": {"policy": "expert", "discard": "void", "name": "v"}, "worlds": 8, "name": "v",
        "decisions": ["declare", "lead", "follow", "bid", "call"]}
    assert CTX.complete({"lead": "pairs_first"}, {"policy": "search", "base": "basic", "worlds": 4})["decisions"] == [
        "declare", "discard", "follow", "bid", "call"]
    assert CTX.complete({"lead": "pairs_first"}, "search:basic:4[lead,follow]")["decisions"] == ["follow"]
    with pytest.raises(CTX.ContextError, match="names every decision"):
        CTX.complete({"declare": "eager", "discard": "void", "lead": "pairs_first", "follow": "random",
                      "bid": "strength", "call": "ace"},
                     {"policy": "search", "base": "basic", "worlds": 4}, "matchup[0].a")


@pytest.mark.parametrize("line, expected", [
    ('contexts = "basic"', "must be a non-empty list"),
    ("contexts = []", "must be a non-empty list"),
    ('contexts = ["basic", "basic"]', "distinct names; repeated: basic"),
    ('contexts = [{discard = "void"}]', "must be a full policy"),
    ('contexts = ["search:expert:4"]\n[[matchup]]\na = {declare = "eager", discard = "void", lead = "pairs_first", '
     'follow = "random", bid = "strength", call = "ace"}\n'
     'b = {lead = "top_cards"}', "matchup[0].a names every decision"),
    ('contexts = ["basic", "nosuch"]', "in context 'nosuch'"),
    ('contexts = ["search:expert:4:x"]', "bad.toml: contexts[0]: policy 'search:expert:4:x': field 'rollouts'"),
    ('contexts = ["basic"]\n[[matchup]]\na = {dicsard = "void"}\nb = "basic"',
     "matchup[0].a: unknown policy key 'dicsard' (did you mean 'discard'?)"),
])
def test_context_errors_name_the_problem(tmp_path, line, expected):
    path = tmp_path / "bad.toml"
    path.write_text(f"{HEAD}{line}\n[[matchup]]\na = {{discard = \"void\"}}\nb = \"basic\"\n")
    r = _cli(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert r.exit_code == 2 and expected in r.output, r.output
    assert "Traceback" not in r.output


def test_compare_in_contexts_and_the_difference_between_them():
    from tractor_sim.runs import compare as CMP

    r = CMP.in_contexts({"discard": "keep_points"}, {"discard": "void"}, CONTEXTS, max_pairs=200, seed=4,
                        chunk_size=200)
    s = [r["contexts"][c]["comparison"]["scores"].droplevel(0) for c in CONTEXTS]
    e = (s[0] - s[1].reindex(s[0].index)).to_numpy()  # per deal id: A's pair score in basic minus in expert
    row = r["interaction"].iloc[0]
    assert math.isclose(row["interaction"], e.mean(), abs_tol=1e-12)
    assert math.isclose(row["se"], e.std(ddof=1) / math.sqrt(len(e)), rel_tol=1e-9)
    text = CMP.contexts_text(r)
    assert "context basic:" in text and "context expert:" in text and "basic - expert:" in text


def test_compare_context_on_the_command_line():
    r = _cli(["compare", "keep_points", "void", "--decision", "discard", "--context", "basic", "--context",
              '{"policy": "expert", "name": "strong"}', "--deals", "60", "--chunk-size", "60"])
    assert r.exit_code == 0, r.output
    assert "context basic:" in r.output and "context strong:" in r.output and "basic - strong:" in r.output
    r = _cli(["compare", "expert", "basic", "--context", "basic", "--deals", "10"])
    assert r.exit_code == 2 and "full policy" in r.output


def _two_context_pairs(rng, n=400):
    """Pair tables of two contexts on the same n deal ids (test_ratings' shape): a policy's draws on a deal
    are shared by both contexts (strongly correlated errors), its strength differs between them."""
    strength = [{"x": 0.9, "y": 0.6, "z": 0.5, "w": 0.2}, {"x": 0.5, "y": 0.7, "z": 0.5, "w": 0.4}]
    c = rng.choice([0, 0, 0, 1, 2, 3], size=n)
    u = {p: rng.random(n) for p in "xyzw"}
    noise = {p: rng.choice([-1, 0, 0, 0, 0, 0, 0, 1], size=n) for p in "xyzw"}
    out = {}
    for k, s in enumerate(strength):
        result = {p: c * (u[p] < q) + noise[p] for p, q in s.items()}
        frames = [pd.DataFrame({"matchup": f"{a}-vs-{b}@{k}", "a": a, "b": b, "key": np.arange(n),
                                "total": result[a] - result[b], "deals": 2})
                  for a, b in [("x", "y"), ("y", "z"), ("z", "w"), ("x", "w")]]
        out[f"c{k}"] = pd.concat(frames, ignore_index=True).astype({"matchup": "category", "a": "category",
                                                                     "b": "category"})
    truth = {(a, b): ((strength[0][a] - strength[0][b]) - (strength[1][a] - strength[1][b])) / 2
             for a in "xyzw" for b in "xyzw"}
    return out, truth


def interaction_coverage(reps: int, seed: int = 3) -> tuple[float, float]:
    """(share of the 95% interaction intervals that cover the planted truth, the same share when the two
    contexts' errors are taken as independent) over ``reps`` replications of 6 interactions."""
    from tractor_sim.stats import contexts as SC

    rng = np.random.default_rng(seed)
    hit = naive = total = 0
    for _ in range(reps):
        pairs, truth = _two_context_pairs(rng)
        r = SC.of_pairs(pairs)
        se = [r["per"][c]["pairwise"].set_index(["a", "b"])["se"] for c in ("c0", "c1")]
        for row in r["interaction"].itertuples():
            total += 1
            hit += row.low <= truth[(row.a, row.b)] <= row.high
            s = [x.get((row.a, row.b), x.get((row.b, row.a))) for x in se]
            naive += abs(row.interaction - truth[(row.a, row.b)]) <= 1.96 * math.hypot(*s)
    return hit / total, naive / total


@pytest.mark.slow  # a statistical run: 100 replications
def test_interaction_intervals_cover_with_shared_deals():
    """100 replications x 6 interactions: coverage in 93-97%; the errors of the two contexts' fits,
    correlated through the shared deals, taken as independent overcover (benchmarks/bench_interaction.py)."""
    hit, naive = interaction_coverage(100)
    assert 0.93 <= hit <= 0.97, hit
    assert naive > 0.98, naive
