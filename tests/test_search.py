"""The search player (kernels.search, kernels.search_play, tractor_sim.play.search) and ``analyze``.

Proved by the engine's own checks and by independent recomputation: every
answer of a searching seat goes through the rules' checks (an illegal one
stops the run); a candidate's value is the mean of direct rollouts made
here with the same streams; the same seed gives the same deals for any
chunking; ``analyze`` writes its report and its replay commands replay the
analysed deals.
"""

import numpy as np
import pytest
from click.testing import CliRunner

from tractor_sim.play.game import Game
from tractor_sim.runs import analyze as A
from tractor_sim.runs import engine
from tractor_sim.runs import runner
from tractor_sim.play import search as S
from tractor_sim.play import registry as strategy
from tractor_sim.cli import main
from tractor_sim.play.game import State
from tractor_sim.core.kernels import candidates as KC
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import sampler as SM
from tractor_sim.core.kernels import search as KS
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels import view as V
from tractor_sim.core.kernels.dims import CARDS, EFF_SUITS, SEATS
from tractor_sim.core.kernels.view import DISCARD, FOLLOW, LEAD
from tractor_sim.play.replay import replay
from tractor_sim.rules.cards import card_str

ORACLE = {"policy": "oracle", "base": "expert", "worlds": 3, "rollouts": 1, "max_candidates": 8, "name": "oracle"}
SEARCH = {**ORACLE, "policy": "search", "name": "search"}
NOLOG = np.zeros((1, D.LOG_COLS), dtype=np.int64)


def _deals(a, b, n=3, seed=5, rules=None, chunk_size=10_000, mode="fixed"):
    deals, matches = runner.simulate([(a, b)], n=n, seed=seed, rules=rules, duplicate=False, chunk_size=chunk_size,
                                     mode=mode)
    return deals.drop(columns=["matchup"]).reset_index(drop=True), matches


@pytest.mark.parametrize("rules", [None, {"declaring": "auction"},
                                   {"follow_tractor": "shape_first", "throw_check": "opponents_only",
                                    "kitty_multiplier": "pow2_pairs", "must_defend": "ace_5_10_k"}])
@pytest.mark.parametrize("searcher", [ORACLE, SEARCH], ids=["oracle", "search"])
def test_searching_seats_play_only_legal_cards(rules, searcher):
    # every answer goes through phases.apply: an illegal play would raise SimulationError
    deals, _ = _deals(searcher, "expert", n=2, seed=11, rules=rules)
    assert len(deals) == 2
    deals, _ = _deals("basic", searcher, n=2, seed=12, rules=rules)
    assert len(deals) == 2


@pytest.mark.parametrize("searcher", [ORACLE, SEARCH], ids=["oracle", "search"])
def test_same_seed_same_deals_for_any_chunking(searcher):
    one, _ = _deals(searcher, "basic", n=4, seed=3, chunk_size=4)
    two, _ = _deals(searcher, "basic", n=4, seed=3, chunk_size=1)
    again, _ = _deals(searcher, "basic", n=4, seed=3, chunk_size=2)
    assert one.equals(two) and one.equals(again)


def test_match_mode_with_a_search():
    deals, matches = _deals({**ORACLE, "worlds": 1, "max_candidates": 3}, "expert", n=1, seed=2, mode="match")
    assert len(matches) == 1 and len(deals) == int(matches["deals"].iloc[0])


def test_the_search_changes_the_play_and_counts_its_decisions():
    plain, _ = _deals("expert", "expert", n=3, seed=7)
    spec = engine.plan_chunks([(ORACLE, "expert")], n=3, seed=7, duplicate=False)[0]
    result = engine.run_chunk(spec)
    assert result.extra["decisions"] > 0 and result.extra["rollouts"] > 0
    searched = engine.to_frames([result])[0].drop(columns=["matchup"]).reset_index(drop=True)
    cols = ["trick_points", "tricks0", "tricks1", "tricks2", "tricks3", "opp_points"]
    assert not plain[cols].equals(searched[cols])  # the oracle chose other plays than expert somewhere


# ---------------------------------------------------------------- the decision, from Python

def _state_at(seed, deal_id, decision, min_trick=0, policy="expert"):
    """A deal stepped with ``policy`` to the first ``decision`` (LEAD/FOLLOW/DISCARD) of a team-0 seat at
    or after ``min_trick`` (a burial: its first of a team-0 seat); the policy's answer is left in the
    ANSWER buffer, as the driver leaves it."""
    state = State.new(seed=seed, deal_id=deal_id)
    while not state.over:
        turn = state.to_act()
        st = state._st
        if (turn.seat % 2 == 0 and turn.decision == V.DECISIONS[decision]
                and (decision == DISCARD or st[ST.S_TRICK] >= min_trick)):
            answer = state.answer_of(policy)
            out = st[ST.ANSWER:ST.ANSWER + CARDS]
            out[:] = 0
            for c in _ids(answer):
                out[c] += 1
            return state, turn.seat
        state.apply(state.answer_of(policy))
    raise AssertionError("no such decision")


def _ids(cards):
    from tractor_sim.rules.cards import parse_cards
    return parse_cards(cards)


def _functions(policy="expert"):
    _, params, fns = Game.of().resolve((policy, policy))
    return params, fns


def _work(state):
    wws = D.new_workspace(state._enc)
    rws = D.new_workspace(state._enc)
    return np.zeros(ST.STATE_SIZE, np.int64), wws, np.zeros(ST.STATE_SIZE, np.int64), rws


def _evaluate(state, seat, decision, cands, ncand, worlds, rollouts=1, source=KS.WORLD_TRUE, held=KS.SELECTION):
    params, fns = _functions()
    values = np.zeros((KC.MAX_CANDIDATES, KS.CV_FIELDS))
    err = np.zeros(PH.ERR_SIZE, np.int64)
    wst, wws, rst, rws = _work(state)
    played = KS.evaluate(state._st, state._ws, state._enc, params, fns, seat, decision, worlds, rollouts, source, cands,
                         ncand, values, wst, wws, rst, rws, SM.new_work(), np.zeros(1, np.uint64), err, NOLOG,
                         held)
    return played, values


def _direct_rollout(state, seat, decision, play, world, rollout, held=KS.SELECTION):
    """One rollout of ``play`` made here: the true deal copied, the search's streams, play_from."""
    params, fns = _functions()
    st, ws = state._st.copy(), tuple(a.copy() for a in state._ws)
    for s in range(SEATS):
        ws[2][s, 0] = KS.rollout_stream(np.uint64(st[ST.S_SEED]), st[ST.S_KEY_A], st[ST.S_KEY_B],
                                        KS.decision_index(st, decision), world, rollout, s, held)
    st[ST.ANSWER:ST.ANSWER + CARDS] = play
    err = np.zeros(PH.ERR_SIZE, np.int64)
    assert PH.apply(st, ws, state._enc, err, NOLOG, np.int64(decision), np.int64(play.sum())) == PH.ERR_NONE
    assert D.play_from(st, ws, state._enc, params, fns, err, NOLOG) == PH.ERR_NONE
    return KS.outcome(st[ST.RESULT:], seat % 2)


@pytest.mark.parametrize("decision", [LEAD, FOLLOW, DISCARD])
def test_one_candidates_value_is_the_mean_of_its_direct_rollouts(decision):
    state, seat = _first_state(decision)
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
    worlds, rollouts = 3, 2
    played, values = _evaluate(state, seat, decision, cands, 1, worlds, rollouts)
    assert played == worlds * rollouts
    outcomes = [_direct_rollout(state, seat, decision, cands[0], w, r) for w in range(worlds) for r in range(rollouts)]
    assert values[0, KS.CV_N] == worlds * rollouts
    assert values[0, KS.CV_LEVELS] == sum(o[0] for o in outcomes)
    assert values[0, KS.CV_POINTS] == sum(o[1] for o in outcomes)


def test_every_candidate_sees_the_same_worlds_and_streams():
    state, seat = _state_at(8, 2, LEAD, min_trick=2)
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
    n = KS.list_candidates(state._st, state._ws, state._enc, seat, LEAD, 6, cands)
    assert n >= 2
    cands[n] = cands[1]  # the same play twice: common random numbers give it the same value
    _, values = _evaluate(state, seat, LEAD, cands, n + 1, worlds=4)
    assert np.array_equal(values[1], values[n])
    single = np.zeros_like(cands)
    single[0] = cands[1]
    _, alone = _evaluate(state, seat, LEAD, single, 1, worlds=4)
    assert np.array_equal(alone[0], values[1])  # and the same value as on its own


def test_the_search_leaves_the_base_answer_only_for_a_clear_gain():
    values = np.zeros((KC.MAX_CANDIDATES, KS.CV_FIELDS))
    worlds = 16
    values[:3, KS.CV_N] = values[:3, KS.CV_WORLDS] = worlds
    gains = {1: np.array([7.0, -5.0] * 8), 2: np.array([0.5, 0.5] * 8)}  # 1: a higher mean, mostly noise
    for c, g in gains.items():
        values[c, KS.CV_GAIN], values[c, KS.CV_GAIN2] = g.sum(), (g * g).sum()
        values[c, KS.CV_LEVELS] = g.sum()
    assert KS.best_candidate(values, 3) == 1  # the best mean (what analyze compares with)
    assert KS.chosen_candidate(values, 3) == 2  # the play: the highest lower bound above 0
    values[2, KS.CV_GAIN] = values[2, KS.CV_LEVELS] = 0.0
    assert KS.chosen_candidate(values, 3) == 0  # no clear gain: the base policy's answer


def test_the_guard_of_a_call_grows_with_its_candidates():
    """A call's guard (search.GUARD_Z, Finding Friends): the one-sided level of DEVIATE_Z standard errors shared
    out over the alternatives (Bonferroni), so among 31 near-equal calls the luckiest one rarely passes."""
    from statistics import NormalDist

    tail = 1 - NormalDist().cdf(KS.DEVIATE_Z)
    assert KS.GUARD_Z[2] == KS.DEVIATE_Z and len(KS.GUARD_Z) == KC.MAX_CANDIDATES + 1
    for k in (3, 32, 97):
        assert abs((1 - NormalDist().cdf(KS.GUARD_Z[k])) * (k - 1) - tail) < 1e-12
    assert 2.5 < KS.GUARD_Z[32] < 2.6 and (np.diff(KS.GUARD_Z[1:]) >= 0).all()
    values = np.zeros((KC.MAX_CANDIDATES, KS.CV_FIELDS))
    values[:32, KS.CV_N] = values[:32, KS.CV_WORLDS] = 16
    g = np.array([3.0, -1.0] * 8)  # a gain 1.9 standard errors above 0: past one, not past the call's guard
    values[5, KS.CV_GAIN], values[5, KS.CV_GAIN2] = g.sum(), (g * g).sum()
    assert KS.chosen_candidate(values, 32) == 5 and KS.chosen_candidate(values, 32, KS.GUARD_Z[32]) == 0


def _first_state(decision, seed=31, min_trick=3):
    """The first deal from ``seed`` with ``decision`` at a team-0 seat (a team-1 starter buries)."""
    for deal_id in range(4, 40):
        try:
            return _state_at(seed, deal_id, decision, min_trick=min_trick)
        except AssertionError:
            continue
    raise AssertionError("no such decision in 36 deals")


def test_burial_candidates_are_legal_distinct_and_one_swap_from_the_base():
    """The burial's candidates (kernels.candidates.burial_candidates): the base burial first, then
    distinct burials of the kitty's size from the starter's cards, each one swap away from it, the
    ones that take the most points out of the kitty first."""
    for seed in (1, 2, 3):
        state, seat = _first_state(DISCARD, seed=seed)
        cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
        cands[0] = base = state._st[ST.ANSWER:ST.ANSWER + CARDS].copy()
        n = KS.list_candidates(state._st, state._ws, state._enc, seat, DISCARD, 12, cands)
        assert n == 12 and len({tuple(r) for r in cands[:n]}) == n and (cands[0] == base).all()
        for row in cands[1:n]:
            assert np.abs(row - base).sum() == 2  # one card out of the kitty, one in
            assert state.is_legal([card_str(c) for c in range(CARDS) for _ in range(int(row[c]))])
        points = [int((cands[i] * KC.POINTS).sum()) for i in range(1, n)]
        assert points[0] == min(points)  # the first swap moves the most points out of the kitty


def test_the_search_on_the_burial_only():
    """``decisions = ["discard"]``: the search takes the burials of its team's starters and nothing
    else (at most one searched decision per deal), and its name says so."""
    pol = {**ORACLE, "decisions": ["discard"], "name": None}
    pol.pop("name")
    assert S.parse(pol)[2] == "oracle:expert:3[discard]"
    spec = engine.plan_chunks([(pol, "expert")], n=6, seed=9, duplicate=False)[0]
    result = engine.run_chunk(spec)
    starters = int((result.deals["starter"] % 2 == 0).sum())
    assert 0 < result.extra["decisions"] <= starters
    with pytest.raises(S.SearchSpecError, match="decisions"):
        S.parse({**ORACLE, "decisions": ["bidd"]})


def test_candidates_are_legal_and_distinct():
    for seed, decision in [(1, LEAD), (2, FOLLOW), (3, LEAD), (4, FOLLOW)]:
        state, seat = _state_at(seed, 0, decision, min_trick=seed)
        cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
        cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
        n = KS.list_candidates(state._st, state._ws, state._enc, seat, decision, KC.MAX_CANDIDATES, cands)
        rows = {tuple(r) for r in cands[:n]}
        assert len(rows) == n
        legal = {tuple(np.bincount(_ids(p), minlength=CARDS)) for p in state.legal(limit=200_000)}
        assert rows <= legal


def test_the_oracle_finds_the_best_endgame_play():
    """At the penultimate trick's lead (two cards a hand), every legal lead is played out here with
    the same streams and the oracle must choose one of the best (deals where all leads are worth
    the same are skipped; a two-card throw the seat cannot prove safe is not a candidate)."""
    checked = 0
    for deal_id in range(30):
        state = State.new(seed=99, deal_id=deal_id)
        while not state.over and not (state._st[ST.S_REMAINING] == 2 and state.to_act().decision == "lead"):
            state.apply(state.answer_of("expert"))
        if state.over:
            continue
        seat = state.to_act().seat
        cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
        for c in _ids(state.answer_of("expert")):
            cands[0, c] += 1
        state._st[ST.ANSWER:ST.ANSWER + CARDS] = cands[0]
        n = KS.list_candidates(state._st, state._ws, state._enc, seat, LEAD, KC.MAX_CANDIDATES, cands)
        _, values = _evaluate(state, seat, LEAD, cands, n, worlds=1)
        chosen = KS.best_candidate(values, n)
        offered = {tuple(r) for r in cands[:n]}
        truth = {}
        for play in state.legal():
            counts = np.bincount(_ids(play), minlength=CARDS)
            if np.count_nonzero(counts) > 1 and tuple(counts) not in offered:
                continue  # a throw of two cards that might fail
            lv, pt = _direct_rollout(state, seat, LEAD, counts, 0, 0)
            truth[tuple(counts)] = lv + pt / KS.POINTS_PER_LEVEL
        if len(set(truth.values())) < 2:
            continue
        assert truth[tuple(cands[chosen])] == max(truth.values()), (deal_id, truth)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("source", [KS.WORLD_TRUE, KS.WORLD_SAMPLED], ids=["oracle", "sampled"])
def test_only_the_oracle_reads_the_hidden_hands(source):
    """Swap the unplayed cards of the two opponents (the searching seat's knowledge is unchanged): the
    oracle's values change, since it rolls out the true deal; the sampled search's do not, since its
    worlds and candidates come from the seat's knowledge only (the sampler's contract)."""
    state, seat = _state_at(17, 1, LEAD, min_trick=8)
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
    n = KS.list_candidates(state._st, state._ws, state._enc, seat, LEAD, 8, cands)
    played, before = _evaluate(state, seat, LEAD, cands, n, worlds=6, source=source)
    assert played == 6 * n
    swapped = state.clone()
    hands = swapped._st[ST.HANDS:ST.HANDS + SEATS * CARDS].reshape(SEATS, CARDS)
    a, b = (seat + 1) % SEATS, (seat + 3) % SEATS
    assert not np.array_equal(hands[a], hands[b])
    hands[[a, b]] = hands[[b, a]]
    views = swapped._ws[0]
    views[[a, b], V.V_HAND] = views[[b, a], V.V_HAND]
    mine = slice(V.M_MY_CARDS, V.M_MY_PAIRS + EFF_SUITS)
    views[[a, b], V.V_META, mine] = views[[b, a], V.V_META, mine]
    for piece in (ST.HELD, ST.HPAIRS):
        counts = swapped._st[piece:piece + SEATS * EFF_SUITS].reshape(SEATS, EFF_SUITS)
        counts[[a, b]] = counts[[b, a]]
    again = cands.copy()
    assert KS.list_candidates(swapped._st, swapped._ws, swapped._enc, seat, LEAD, 8, again) == n
    assert np.array_equal(again, cands)
    _, after = _evaluate(swapped, seat, LEAD, cands, n, worlds=6, source=source)
    assert np.array_equal(before[:n], after[:n]) == (source == KS.WORLD_SAMPLED)


# ---------------------------------------------------------------- the policy layer and analyze

def test_search_names_and_tables_resolve():
    pol = strategy.resolve_policy("oracle:basic:8:2")
    assert pol.search.worlds == 8 and pol.search.rollouts == 2 and pol.search.kind == "oracle"
    assert pol.functions == strategy.resolve_policy("basic").functions
    table = strategy.resolve_policy({"policy": "oracle", "base": "expert", "worlds": 4})
    assert table.name == "oracle:expert:4" and table.search.source == "true"
    for bad in ("oracle:expert:0", "oracle:expert:x", "oracle:nosuch", {"policy": "oracle", "worlds": -1},
                {"policy": "oracle", "base": "oracle"}, {"policy": "oracle", "bogus": 1}):
        with pytest.raises(ValueError):
            strategy.resolve_policy(bad)
    pol = strategy.resolve_policy("search")
    assert pol.search.source == "sampled" and pol.search.worlds == S.DEFAULT_WORLDS
    assert pol.functions == strategy.resolve_policy(S.DEFAULT_BASE).functions


def test_analyze_end_to_end(tmp_path):
    result = A.run("expert", deals=2, seed=4, worlds=3)
    frame = result["decisions"]
    assert result["source"] == "sampled"
    assert len(frame) > 50 and set(frame["decision"]) == {"declare", "discard", "lead", "follow"}
    # in-sample: the same rollouts for the play and the best, never below 0, in either kind of world
    assert (frame["insample_regret_levels"] >= 0).all() and (frame["true_insample_regret_levels"] >= 0).all()
    # held-out: other worlds value the selection, which can lose there; exactly 0 when it is the play
    assert (frame["regret_levels"] < 0).any()
    own = frame[frame["chosen"] == frame["best"]]
    assert len(own) > 0 and (own["regret_levels"] == 0).all() and (own["regret_points"] == 0).all()
    forced = frame[frame["candidates"] == 1]
    assert (forced["true_regret_levels"] == 0).all() and (forced["regret_levels"] == 0).all()
    assert frame["regret_levels"].mean() < frame["insample_regret_levels"].mean()
    md, html, png = A.write_report(result, tmp_path / "rep", worst_k=3)
    for p in (md, html, png, tmp_path / "rep" / "decisions.csv"):
        assert p.exists() and p.stat().st_size > 0
    text = md.read_text()
    assert "tractor-sim replay --seed 4 --deal" in text and "By trick" in text
    assert "held-out" in text and "levels (in-sample, sampled)" in text and "biased upwards" in text
    # the replay of a listed deal shows the analysed policy's play at that decision
    row = A.worst(frame, 1).iloc[0]
    deal = replay(seed=4, deal_id=int(row["deal_id"]), policies=("expert", "expert"))
    trick = deal["tricks"][int(row["trick"]) - 1]
    played = {p["seat"]: " ".join(p["cards"]) for p in trick["plays"]}
    if row["decision"] == "lead" and "failed_throw" in trick:
        played[int(row["seat"])] = " ".join(trick["failed_throw"]["attempted"])
    assert played[int(row["seat"])] == row["chosen"]


@pytest.mark.parametrize("args, message", [
    (["analyze", "nosuch", "--deals", "1"], "unknown policy"),
    (["analyze", "expert", "--worlds", "0", "--deals", "1"], "worlds"),
    (["analyze", "expert", "--deals", "x"], "--deals"),
    (["analyze", "oracle:expert:4", "--deals", "1"], "is a search"),
    (["analyze", "expert", "--deals", "0"], "--deals"),
])
def test_analyze_bad_input_is_an_error_exit_2(args, message):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and message in res.output


def test_analyze_cli_writes_the_report(tmp_path):
    out = tmp_path / "an"
    res = CliRunner().invoke(main, ["analyze", "basic", "--deals", "1", "--worlds", "2", "--source", "true",
                                    "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert (out / "analyze.md").exists() and "report:" in res.output


# ---------------------------------------------------------------- analyze's regret: held-out against in-sample

def _gain(values, c):
    """Candidate c's mean levels minus the policy's play's (candidate 0)."""
    return values[c, KS.CV_LEVELS] / values[c, KS.CV_N] - values[0, KS.CV_LEVELS] / values[0, KS.CV_N]


def test_held_out_regret_is_unbiased_where_the_in_sample_one_is_not():
    """At many decisions of expert, select the best of its candidates on 4 sampled worlds (as analyze
    does), then compare both regret estimates with the selection's true gain, measured on 256 further
    independent worlds.  The in-sample regret (the best of noisy means) overstates the gain: its
    excess's 95% interval is above 0.  The held-out one (the same two plays on the P_HELDOUT worlds)
    does not: its excess's interval covers 0.  On the biased definition both would be the same."""
    worlds, truth_worlds = 4, 256
    excess = {"in": [], "held": []}
    deals = []
    for deal_id in range(12):
        for decision, trick in ((LEAD, 2), (FOLLOW, 4), (LEAD, 7), (FOLLOW, 9)):
            state, seat = _state_at(23, deal_id, decision, min_trick=trick)
            cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
            cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
            n = KS.list_candidates(state._st, state._ws, state._enc, seat, decision, 16, cands)
            if n < 2:
                continue
            _, sel = _evaluate(state, seat, decision, cands, n, worlds, source=KS.WORLD_SAMPLED)
            best = KS.best_candidate(sel, n)
            in_sample = _gain(sel, best)
            held = truth = 0.0
            if best != 0:
                pair = np.zeros_like(cands)
                pair[0], pair[1] = cands[0], cands[best]
                _, hv = _evaluate(state, seat, decision, pair, 2, worlds, source=KS.WORLD_SAMPLED, held=KS.P_HELDOUT)
                _, tv = _evaluate(state, seat, decision, pair, 2, truth_worlds, source=KS.WORLD_SAMPLED,
                                  held=2 * KS.P_HELDOUT)  # a third set of streams, independent of both
                held, truth = _gain(hv, 1), _gain(tv, 1)
            excess["in"].append(in_sample - truth)
            excess["held"].append(held - truth)
            deals.append(deal_id)
    assert len(deals) >= 30
    m_in, lo_in, _ = A.clustered_mean(excess["in"], deals)
    m_held, lo_held, hi_held = A.clustered_mean(excess["held"], deals)
    assert lo_in > 0, (m_in, lo_in)
    assert lo_held <= 0 <= hi_held, (m_held, lo_held, hi_held)
    assert abs(m_held) < m_in / 2


def test_analyze_held_out_values_are_the_selections_on_independent_worlds():
    """analyze's record of a decision: the selection is the best mean on the search's worlds, and the
    held-out values are those two plays rolled out on the P_HELDOUT worlds, recomputed here."""
    result = A.run("expert", deals=1, seed=4, worlds=3)
    frame = result["decisions"]
    row = frame[(frame["trick"] >= 3) & (frame["seat"] % 2 == 0) & (frame["decision"] == "lead")
                & (frame["chosen"] != frame["best"])].iloc[0]
    state, seat = _state_at(4, int(row["deal_id"]), LEAD, min_trick=int(row["trick"]) - 1)
    assert seat == row["seat"] and state._st[ST.S_TRICK] == row["trick"] - 1
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
    n = KS.list_candidates(state._st, state._ws, state._enc, seat, LEAD, S.DEFAULT_MAX_CANDIDATES, cands)
    _, sel = _evaluate(state, seat, LEAD, cands, n, 3, source=KS.WORLD_SAMPLED)
    best = KS.best_candidate(sel, n)
    assert A._cards(cands[best]) == row["best"]
    assert _gain(sel, best) == row["insample_regret_levels"]
    pair = np.zeros_like(cands)
    pair[0], pair[1] = cands[0], cands[best]
    _, held = _evaluate(state, seat, LEAD, pair, 2, 3, source=KS.WORLD_SAMPLED, held=KS.P_HELDOUT)
    assert held[0, KS.CV_LEVELS] / held[0, KS.CV_N] == row["held_chosen_levels"]
    assert held[1, KS.CV_LEVELS] / held[1, KS.CV_N] == row["held_best_levels"]
    assert _gain(held, 1) == row["regret_levels"]


@strategy.python_policy("test_search_wrap_expert")
def _search_wrap_expert(decision):
    return decision.ask("expert")


@pytest.mark.parametrize("mode, n", [("fixed", 4), ("match", 1)])
def test_a_search_beside_a_python_policy_plays_the_compiled_searchs_deals(mode, n):
    """The stepped chunk (play.stepped, where a Python policy or bot sits) searches as the kernel's
    driver does: a search against a Python policy answering as expert gives, deal for deal, the records
    of the compiled search against expert; and the search changed the deals (not expert's own)."""
    kw = dict(n=n, seed=21, duplicate=True, chunk_size=n, mode=mode, levels=(4, 6) if mode == "fixed" else (0, 0))
    search = {"policy": "search", "base": "expert", "worlds": 2, "max_candidates": 4}
    tags = ["matchup", "policy0", "policy1"]
    compiled, cm = runner.simulate([(search, "expert")], **kw)
    stepped, sm = runner.simulate([(search, "test_search_wrap_expert")], **kw)
    plain, _ = runner.simulate([("expert", "test_search_wrap_expert")], **kw)
    assert len(compiled) >= 2 * n
    assert (compiled.drop(columns=tags).to_numpy() == stepped.drop(columns=tags).to_numpy()).all()
    assert not compiled.drop(columns=tags).equals(plain.drop(columns=tags))
    if mode == "match":
        assert (cm.drop(columns=tags).to_numpy() == sm.drop(columns=tags).to_numpy()).all()


def test_a_python_policy_is_analyzed_and_searched_with_compiled_rollouts():
    """A Python policy (or bot) as a search's base, with a compiled rollout_policy: analyze keeps its
    answers and records their regret, the search replaces them; a Python policy answering as expert,
    rolled out by expert, gives the compiled expert's analysis and search row for row."""
    cols = lambda f: f.drop(columns=["replay"])  # noqa: E731 - the replay command names the policy
    compiled = A.run("expert", deals=2, seed=3, worlds=4)
    python = A.run("test_search_wrap_expert", deals=2, seed=3, worlds=4)
    assert python["rollout_policy"] == "expert" and len(python["decisions"]) > 50
    assert cols(compiled["decisions"]).equals(cols(python["decisions"]))
    assert python["total_rollouts"] == compiled["total_rollouts"] > 0
    kw = dict(n=2, seed=8, duplicate=True, chunk_size=2)
    base = {"policy": "search", "worlds": 2, "max_candidates": 4}
    searched, _ = runner.simulate([({**base, "base": "expert"}, "basic")], **kw)
    over_python, _ = runner.simulate([({**base, "base": "test_search_wrap_expert", "rollout_policy": "expert"},
                                       "basic")], **kw)
    tags = ["matchup", "policy0", "policy1"]
    assert searched.drop(columns=tags).equals(over_python.drop(columns=tags))
