"""The batch engine: determinism, chunking, duplicate deals, records, errors."""


import numpy as np
import pandas as pd
import pytest

from tractor_sim.runs import engine

from tractor_sim.runs import runner
from tractor_sim.core.kernels.scoring import level_row
from tractor_sim.play.replay import replay

try:
    from tests.plugin_sources import illegal_follow
except ImportError:  # tests/ on sys.path instead of the project root
    from plugin_sources import illegal_follow


@pytest.fixture(scope="module")
def fixed_run():
    return runner.simulate([("basic", "random")], n=300, seed=11, chunk_size=300)


def test_same_seed_same_records_for_any_chunking(fixed_run):
    deals, _ = fixed_run
    for chunk in (1, 7, 128):
        other, _ = runner.simulate([("basic", "random")], n=300, seed=11, chunk_size=chunk)
        pd.testing.assert_frame_equal(deals, other)


def test_match_mode_chunking_is_invariant():
    a_deals, a_matches = runner.simulate([("basic", "random")], mode="match", n=6, seed=5, chunk_size=6)
    b_deals, b_matches = runner.simulate([("basic", "random")], mode="match", n=6, seed=5, chunk_size=1)
    pd.testing.assert_frame_equal(a_deals, b_deals)
    pd.testing.assert_frame_equal(a_matches, b_matches)


def test_other_seed_other_deals(fixed_run):
    deals, _ = fixed_run
    other, _ = runner.simulate([("basic", "random")], n=300, seed=12, chunk_size=300)
    assert not deals["opp_points"].equals(other["opp_points"])


def test_records_are_consistent(fixed_run):
    deals, _ = fixed_run
    assert len(deals) == 600
    assert set(deals["half"]) == {0, 1}
    assert (deals[[f"tricks{s}" for s in range(4)]].sum(axis=1) <= 25).all()
    assert (deals[[f"tricks{s}" for s in range(4)]].sum(axis=1) >= 1).all()
    total = deals["trick_points"] + deals["kitty_bonus"] + deals["throw_penalty"]
    assert (total == deals["opp_points"]).all()
    assert (deals["row"] == [level_row(int(p)) for p in deals["opp_points"]]).all()
    assert deals["trick_points"].between(0, 200).all()
    assert deals["kitty_points"].between(0, 200).all()
    # declarers keep on rows 0-2 (gain 3-row), the opponents take over otherwise
    keep = deals["row"] <= 2
    assert (deals.loc[keep, "gain"] == 3 - deals.loc[keep, "row"]).all()
    assert (deals.loc[keep, "gain_team"] == deals.loc[keep, "declaring_team"]).all()
    assert (deals.loc[~keep, "gain"] == deals.loc[~keep, "row"] - 3).all()
    # fixed mode: team 0 declares at level 2, trump rank 2
    assert (deals["declaring_team"] == 0).all() and (deals["trump_rank"] == 0).all()
    assert deals["starter"].isin([0, 2]).all()


def test_duplicate_halves_share_the_cards():
    a = replay(seed=11, deal_id=3, policies=("basic", "random"))
    b = replay(seed=11, deal_id=3, policies=("random", "basic"))
    assert a["kitty"] == b["kitty"]
    assert a["starter"] == b["starter"]
    # the deck and the drawing order are the same, so are the hands before the exchange
    assert [h for k, h in enumerate(a["hands"]) if k != a["starter"]] == \
           [h for k, h in enumerate(b["hands"]) if k != b["starter"]]


def test_replay_matches_the_run(fixed_run):
    deals, _ = fixed_run
    row = deals[(deals.half == 0) & (deals.deal_id == 17)].iloc[0]
    r = replay(seed=11, deal_id=17, policies=("basic", "random"))
    for col in ("opp_points", "kitty_points", "starter", "trump_suit", "last_winner", "gain"):
        assert r["result"][col] == row[col], col
    points = sum(t["points"] for t in r["tricks"])
    assert points + r["result"]["kitty_points"] == 200
    assert r["tricks"][-1]["winner"] == row["last_winner"]
    cards = sum(len(t["plays"][0]["cards"]) for t in r["tricks"])
    assert cards == 25


def test_match_mode_records():
    deals, matches = runner.simulate([("basic", "random")], mode="match", n=4, seed=3, duplicate=False)
    assert len(matches) == 4
    for _, m in matches.iterrows():
        d = deals[deals.match_id == m.match_id].sort_values("deal_in_match")
        assert len(d) == m.deals
        assert d.iloc[0]["level0_before"] == 0 and d.iloc[0]["level1_before"] == 0
        # levels carry over from deal to deal
        assert (d["level0_before"].to_numpy()[1:] == d["level0_after"].to_numpy()[:-1]).all()
        assert (d["level1_before"].to_numpy()[1:] == d["level1_after"].to_numpy()[:-1]).all()
        # the trump rank is the declaring team's level after the first deal
        later = d.iloc[1:]
        lv = np.where(later.declaring_team == 0, later.level0_before, later.level1_before)
        assert (later["trump_rank"].to_numpy() == lv).all()
        final = (d.iloc[-1]["level0_after"], d.iloc[-1]["level1_after"])
        assert max(final) >= 13 and final[m.winner] >= 13


def test_illegal_strategy_stops_with_a_clear_error(tmp_path):
    mod = tmp_path / "bad_strategies.py"
    mod.write_text(illegal_follow("always_first_card", "bad"))
    with pytest.raises(engine.SimulationError) as e:
        runner.simulate([("bad", "basic")], n=50, seed=1, modules=[str(mod)])
    msg = str(e.value)
    assert "always_first_card" in msg and "policy 'bad'" in msg
    assert "seed 1" in msg and "illegal follow" in msg and "hand:" in msg and "replay" in msg


def test_plan_rejects_bad_input():
    with pytest.raises(ValueError, match="mode"):
        engine.plan_chunks([("basic", "basic")], mode="tournament")
    with pytest.raises(ValueError, match="seed"):
        engine.plan_chunks([("basic", "basic")], seed=-1)
    with pytest.raises(ValueError, match="count"):
        engine.plan_chunks([("basic", "basic")], n=0)


def test_an_event_log_that_fills_up_is_grown_not_cut():
    """A log with room for only a few events: the chunk is played again with a larger one and
    gives the whole log, the same as a roomy log (and the same deals)."""
    from tractor_sim.core.kernels import match as M
    from tractor_sim.rules.options import Rules

    spec = engine.ChunkSpec("log", ("basic", "basic"), ("basic", "basic"), 3, "fixed", 0, 4, 1, Rules().to_dict())
    roomy = engine.run_chunk(spec, M.LOG_ALL)
    small = engine.run_chunk(spec, M.LOG_ALL, log_rows=8)
    assert len(roomy.extra["log"]) > 400  # four whole deals
    np.testing.assert_array_equal(small.extra["log"], roomy.extra["log"])
    np.testing.assert_array_equal(small.deals, roomy.deals)


def test_a_strategy_that_scribbles_on_its_view_changes_nothing_else():
    """The kernel never reads back what a strategy may write: a declare strategy that fills its
    view's trump table and suit counts with card indices far out of range (any use of them as an
    index would write into another seat's view) plays exactly the deals of one that never declares."""
    from tractor_sim.play import registry as S
    from tractor_sim.play.registry.declared import _STRATEGIES
    from tractor_sim.core.kernels.view import M_MY_CARDS, V_EFF, V_META, V_TTMETA
    from tractor_sim.rules.options import Rules

    @S.strategy("declare", "scribbler_for_test")
    def scribbler(view, params, rng, scratch, out):
        view[V_EFF:V_TTMETA + 1, :] = 828  # M_MY_CARDS + 828: the next seat's hand row
        view[V_META, M_MY_CARDS:M_MY_CARDS + 10] = 828
        return 0

    try:
        runs = []
        for declare in ("scribbler_for_test", "never"):
            pol = {"policy": "basic", "declare": declare}
            spec = engine.ChunkSpec("scribble", (pol, "basic"), ("a", "b"), 0, "fixed", 0, 200, 3,
                                    Rules().to_dict())
            runs.append(engine.run_chunk(spec).deals)
        np.testing.assert_array_equal(runs[0], runs[1])
    finally:
        _STRATEGIES["declare"].pop("scribbler_for_test")
