"""Inference from the plays (kernels.infer; the search's setting ``infer``).

A world's weight is the likelihood of the opponents' observed plays under the model: (1 - EPS) for a
play the model makes in that world, EPS / (its other plays) for one it does not, 0 for a play the world
makes impossible.  Checked here on the true deal (every seat played the model: exactly (1 - EPS)^k),
on hand-made worlds (one card moved so that the model leads otherwise), on sampled worlds, and through
the engine (same seed, same deals for any chunking; infer = "none" is the search as it was).
"""

import math

import numpy as np
import pytest

from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import infer as I
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import sampler as SM
from tractor_sim.core.kernels import search as KS
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels import view as V
from tractor_sim.core.kernels.dims import CARDS, SEATS
from tractor_sim.play import search as S
from tractor_sim.play.game import Game, State
from tractor_sim.play.registry import StrategyError, resolve_policy
from tractor_sim.rules.cards import parse_cards
from tractor_sim.runs import runner

NOLOG = np.zeros((1, D.LOG_COLS), dtype=np.int64)
LOG_MATCH = math.log(1 - I.EPS)


def _counts(cards):
    out = np.zeros(CARDS, np.int64)
    for c in parse_cards(cards):
        out[c] += 1
    return out


def _observed_deal(seed, deal_id, stop, policy="expert", game=None):
    """A deal of ``game`` (default 4/2) stepped with ``policy`` at every seat, its leads and follows kept in
    a history as the driver keeps them, stopped at the first lead or follow for which
    ``stop(state, seat, trick)``; None when the deal ends first."""
    g = Game.of(game)
    infer, st_, view = (g.kernel(m) for m in ("infer", "state", "view"))
    state = g.new_initial_state(seed=seed, deal_id=deal_id)
    history = infer.new_history()
    while not state.over:
        turn = state.to_act()
        st = state._st
        decision = view.DECISIONS.index(turn.decision)
        if decision in (view.LEAD, view.FOLLOW) and stop(state, turn.seat, int(st[st_.S_TRICK])):
            return state, turn.seat, history
        answer = state.answer_of(policy)
        if decision in (view.LEAD, view.FOLLOW):
            st[st_.ANSWER:st_.ANSWER + CARDS] = _counts(answer)
            infer.observe(st, state._ws, turn.seat, decision, len(parse_cards(answer)), history)
        state.apply(answer)
        if decision in (view.LEAD, view.FOLLOW):
            infer.observed(st, decision, history)
    if game is None:
        raise AssertionError("no such decision")
    return None


def _model(policy="expert"):
    _, params, fns = Game.of().resolve((policy, policy))
    return params, fns


def _log_weight(state, seat, history, wst, wws):
    params, fns = _model()
    rst, rws = np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc)
    err = np.zeros(PH.ERR_SIZE, np.int64)
    return I.log_weight(state._st, seat, state._enc, fns, params, history, wst, wws, rst, rws, err, NOLOG, I.P_REPLAY)


def _true_world(state):
    return state._st.copy(), tuple(a.copy() for a in state._ws)


def _others(seat, history):
    """The opponents' plays kept (the partner's are not weighed)."""
    plays, count = history[2], history[3][0]
    return sum(1 for i in range(count) if plays[i, I.H_SEAT] % 2 != seat % 2)


@pytest.mark.parametrize("deal_id", [0, 1, 2])
def test_the_true_deal_weighs_one_minus_eps_per_observed_play(deal_id):
    # every seat played the model (expert): in the true deal each of the k observed plays of the
    # opponents is the model's answer again, so the weight is (1 - EPS)^k exactly (the partner's
    # plays are replayed, not weighed)
    state, seat, history = _observed_deal(7, deal_id, lambda s, seat, trick: seat % 2 == 0 and trick >= 5)
    k = _others(seat, history)
    assert k >= 8
    wst, wws = _true_world(state)
    assert _log_weight(state, seat, history, wst, wws) == pytest.approx(k * LOG_MATCH, abs=1e-9)


def _after_the_first_lead(state, seat, trick):
    st = state._st
    return trick == 0 and st[ST.S_NPLAYED] == 1 and seat != st[ST.S_STARTER]


def test_a_world_where_the_model_leads_otherwise_weighs_eps():
    # one observed play, the starter's first lead; moving one card between the starter's hand and
    # another hidden hand changes, in some worlds, what the model would have led: such a world weighs
    # EPS, every other world 1 - EPS
    state, seat, history = _observed_deal(3, 4, _after_the_first_lead)
    st = state._st
    starter = int(st[ST.S_STARTER])
    other = next(s for s in range(SEATS) if s not in (seat, starter))
    assert _others(seat, history) == 1
    lead_hand = st[ST.HANDS + starter * CARDS:ST.HANDS + (starter + 1) * CARDS]
    other_hand = st[ST.HANDS + other * CARDS:ST.HANDS + (other + 1) * CARDS]
    weights = []
    for x in np.flatnonzero(lead_hand):
        for y in np.flatnonzero(other_hand):
            if x == y:
                continue
            wst, wws = _true_world(state)
            wst[ST.HANDS + starter * CARDS + x] -= 1
            wst[ST.HANDS + starter * CARDS + y] += 1
            wst[ST.HANDS + other * CARDS + y] -= 1
            wst[ST.HANDS + other * CARDS + x] += 1
            weights.append(_log_weight(state, seat, history, wst, wws))
    weights = np.array(weights)
    assert np.all(np.isclose(weights, LOG_MATCH) | np.isclose(weights, math.log(I.EPS)))
    lower = weights[weights < LOG_MATCH - 1e-9]
    assert 0 < len(lower) < len(weights)  # the model's lead depends on the cards, not always


def test_a_world_where_an_observed_play_is_illegal_weighs_nothing():
    # the starter led a card; a world in which the starter never held it (moved to another hand) cannot
    # have produced the lead: weight 0 (log -inf), whatever the model
    state, seat, history = _observed_deal(3, 4, _after_the_first_lead)
    st = state._st
    starter = int(st[ST.S_STARTER])
    other = next(s for s in range(SEATS) if s not in (seat, starter))
    led = np.flatnonzero(history[2][0, I.H_CARDS:I.H_CARDS + CARDS])[0]
    wst, wws = _true_world(state)
    # the world's starter held no copy of it at the first lead: its played copy counted to another seat,
    # and any copy still in its hand moved to that seat's hand
    wst[ST.K_PLAYED + starter * CARDS + led] -= 1
    wst[ST.K_PLAYED + other * CARDS + led] += 1
    left = wst[ST.HANDS + starter * CARDS + led]
    wst[ST.HANDS + starter * CARDS + led] = 0
    wst[ST.HANDS + other * CARDS + led] += left
    assert _log_weight(state, seat, history, wst, wws) == -np.inf


def _pick(state, seat, history, infer, worlds=8):
    params, fns = _model()
    wst, wws = np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc)
    rst, rws = np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc)
    picks = np.zeros(KS.MAX_WORLDS, np.int64)
    logw = np.zeros(KS.MAX_WORLDS)
    err = np.zeros(PH.ERR_SIZE, np.int64)
    decision = int(state._st[ST.S_DECISION])
    pool = I.pick_worlds(state._st, state._ws, state._enc, seat, decision, worlds, KS.WORLD_SAMPLED, infer, fns,
                         params, history, wst, wws, rst, rws, SM.new_work(), np.zeros(1, np.uint64), err, NOLOG,
                         KS.SELECTION, picks, logw)
    return pool, picks[:worlds].copy(), logw[:pool].copy()


def test_resampling_keeps_the_likely_worlds_and_is_deterministic():
    state, seat, history = _observed_deal(7, 1, lambda s, seat, trick: seat % 2 == 0 and trick >= 3)
    pool, picks, weights = _pick(state, seat, history, I.INFER_NONE)
    assert pool == 0 and picks.tolist() == list(range(8))  # no inference: the uniform worlds 0..7
    pool, picks, weights = _pick(state, seat, history, I.INFER_MODEL)
    assert pool == I.POOL * 8
    again = _pick(state, seat, history, I.INFER_MODEL)
    assert np.array_equal(again[1], picks) and np.array_equal(again[2], weights)
    assert np.all(np.diff(picks) >= 0) and np.all(weights[picks] > 0)
    # the tempered weights become inclusion probabilities (at most 1, summing to the worlds kept);
    # systematic sampling keeps each world once at most, about as often as its probability, so the
    # kept worlds are the likelier ones on average
    probs = weights
    assert np.all(probs <= 1.0 + 1e-12) and probs.sum() == pytest.approx(8.0)
    assert len(set(picks.tolist())) == 8
    kept = np.bincount(picks, minlength=pool)
    assert np.all(np.abs(kept - probs) < 1.0)
    assert probs[picks].mean() > probs.mean()


def test_inclusion_and_systematic_sampling_by_hand():
    # weights 4, 1, 1, 1, 1 and 2 worlds to keep: c = 2/8 would give the first 1, so it is capped at 1
    # and the others share the remaining 1: 1/4 each; u = 0.5 keeps positions 0.5 and 1.5 of the running
    # sum 1, 1.25, 1.5, 1.75, 2: world 0, then world 3 (its share is 1.5..1.75)
    w = np.array([4.0, 1.0, 1.0, 1.0, 1.0])
    assert I.inclusion(w, 5, 2) == 2.0
    assert np.allclose(w, [1.0, 0.25, 0.25, 0.25, 0.25])
    picks = np.zeros(2, np.int64)
    I.systematic(w, 5, 2, 2.0, 0.5, picks)
    assert picks.tolist() == [0, 3]
    # fewer possible worlds than worlds to keep: the weights stay, and worlds are kept again
    w = np.array([3.0, 0.0, 1.0])
    assert I.inclusion(w, 3, 4) == 4.0 and np.allclose(w, [3.0, 0.0, 1.0])
    picks = np.zeros(4, np.int64)
    I.systematic(w, 3, 4, 4.0, 0.5, picks)
    assert picks.tolist() == [0, 0, 0, 2]


def test_tempering_by_hand():
    # two worlds, log weights 0 and -10 ln 2: with x = exp(-beta 10 ln 2) the effective size is
    # (1 + x)^2 / (1 + x^2), which is 1.8 at x = 1/2, so beta = 1/10; above the target: beta = 1
    logw = np.array([0.0, -10 * math.log(2)])
    assert I.effective_size(logw, 2, 0.1) == pytest.approx(1.8)
    assert I.tempering(logw, 2, 1.8) == pytest.approx(0.1, abs=1e-8)
    assert I.tempering(logw, 2, 1.0) == 1.0
    assert I.tempering(np.array([0.0, 0.0, -np.inf]), 3, 2.0) == 1.0  # an impossible world stays at 0


# ---------------------------------------------------------------- the setting

def test_the_setting_and_its_name():
    _, none, name = S.parse("search:expert:16")
    assert none.infer == "none" and none.row()[KS.SS_INFER] == 0 and name == "search:expert:16"
    _, base, name = S.parse({"policy": "search", "base": "expert", "worlds": 16, "infer": "base"})
    assert base.row()[KS.SS_INFER] == 1 and name == "search:expert:16[infer=base]"
    _, _, name = S.parse({"policy": "search", "worlds": 16, "infer": "basic", "decisions": ["lead", "follow"]})
    assert name == "search:expert:16[lead,follow][infer=basic]"
    resolved = resolve_policy({"policy": "search", "worlds": 4, "infer": "basic"})
    assert resolved.search.model.name == "basic" and resolved.spec["infer"]["name"] == "basic"
    assert resolve_policy({"policy": "search", "worlds": 4, "infer": "base"}).search.model is None
    for shown in ("search:expert:16[infer=base]", "search:expert:16[lead,follow][infer=basic]"):
        assert S.parse(shown)[2] == shown  # a name shown is read back as the same search
    assert S.parse("search:expert:16[lead,follow][infer=basic]")[1] == S.parse(
        {"policy": "search", "worlds": 16, "infer": "basic", "decisions": ["lead", "follow"]})[1]
    with pytest.raises(S.SearchSpecError, match=r"two \[infer\] groups"):
        S.parse("search:expert:16[infer=base][infer=basic]")


@pytest.mark.parametrize("infer, words", [
    (3, "field 'infer': expected none, base, or a compiled policy name or table, got 3"),
    ("nosuch", "field 'infer'"),
    ("search:expert:4", "field 'infer': a search cannot model the opponents"),
])
def test_bad_values_of_infer_name_the_field(infer, words):
    with pytest.raises((S.SearchSpecError, StrategyError)) as e:
        resolve_policy({"policy": "search", "worlds": 4, "infer": infer})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_oracle_has_no_worlds_to_weigh():
    with pytest.raises(S.SearchSpecError, match="field 'infer': the oracle plays on the true deal"):
        S.parse({"policy": "oracle", "infer": "base"})


# ---------------------------------------------------------------- through the engine

INFER = {"policy": "search", "base": "expert", "worlds": 3, "max_candidates": 8, "infer": "base", "name": "inferring"}


def _deals(a, b, n, seed, chunk_size):
    deals, _ = runner.simulate([(a, b)], n=n, seed=seed, duplicate=False, chunk_size=chunk_size)
    return deals.drop(columns=["matchup"]).reset_index(drop=True)


@pytest.mark.slow
def test_same_seed_same_deals_for_any_chunking_with_inference():
    one = _deals(INFER, "basic", 3, 3, 3)
    two = _deals(INFER, "basic", 3, 3, 1)
    assert one.equals(two)


@pytest.mark.slow
def test_inference_changes_some_play_and_none_is_the_plain_search():
    plain = _deals({**INFER, "infer": "none"}, "expert", 3, 5, 3)
    unnamed = _deals({k: v for k, v in INFER.items() if k != "infer"}, "expert", 3, 5, 3)
    inferred = _deals(INFER, "expert", 3, 5, 3)
    assert plain.equals(unnamed)
    cols = ["trick_points", "tricks0", "tricks1", "tricks2", "tricks3", "opp_points"]
    assert not plain[cols].equals(inferred[cols])


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"declaring": "auction"},
                                   {"follow_tractor": "shape_first", "throw_check": "opponents_only",
                                    "kitty_multiplier": "pow2_pairs", "must_defend": "ace_5_10_k"}])
def test_inferring_seats_play_only_legal_cards_under_other_rules(rules):
    # the replays apply every observed play through the rules' checks of these rules
    deals, _ = runner.simulate([(INFER, "expert")], n=2, seed=11, rules=rules, duplicate=False)
    assert len(deals) == 2


@pytest.mark.slow
def test_analyze_rows_with_inference():
    # record: the policy's play stays, the selection and its held-out values come from inferred worlds
    from tractor_sim.runs import engine

    spec = engine.plan_chunks([({**INFER, "record": True}, "expert")], n=2, seed=4, duplicate=False)[0]
    result = engine.run_chunk(spec)
    assert len(result.extra["records"]) > 0 and result.extra["weighed"] > 0
    plain = engine.run_chunk(engine.plan_chunks([("expert", "expert")], n=2, seed=4, duplicate=False)[0])
    assert np.array_equal(result.deals["gain"], plain.deals["gain"])  # recording plays expert's own answers


FRIENDS_5 = (5, 2, "friends")


@pytest.mark.slow
def test_in_finding_friends_the_true_deal_weighs_one_minus_eps_per_observed_play():
    """At 5 players in Finding Friends, after the friend has joined: every seat played the model (expert),
    so in the true deal, replayed from the first lead with the calls and the joining, each of the k
    weighed plays (the seats of the other policy side, as in a tractor game) is the model's answer again."""
    g = Game.of(FRIENDS_5)
    I5, D5, PH5, ST5 = (g.kernel(m) for m in ("infer", "deal", "phases", "state"))

    def after_the_join(state, seat, trick):
        return (state._st[ST5.F_JOINED:ST5.F_JOINED + 5] >= 0).any() and trick >= 8 and seat % 2 == 0

    checked = 0
    for deal_id in range(6):
        observed = _observed_deal(7, deal_id, after_the_join, game=FRIENDS_5)
        if observed is None:
            continue
        state, seat, history = observed
        plays, count = history[2], history[3][0]
        k = sum(1 for i in range(count) if plays[i, I5.H_SEAT] % 2 != seat % 2)
        _, params, fns = g.resolve(("expert", "expert"))
        rst, rws = np.zeros(ST5.STATE_SIZE, np.int64), D5.new_workspace(state._enc)
        err = np.zeros(PH5.ERR_SIZE, np.int64)
        nolog = np.zeros((1, D5.LOG_COLS), dtype=np.int64)
        wst, wws = _true_world(state)
        weight = I5.log_weight(state._st, seat, state._enc, fns, params, history, wst, wws, rst, rws, err, nolog,
                               I5.P_REPLAY)
        assert k >= 8 and weight == pytest.approx(k * LOG_MATCH, abs=1e-9), deal_id
        checked += 1
    assert checked >= 3


@pytest.mark.slow
def test_inference_in_finding_friends_plays_legally_whatever_the_chunking():
    """The search with inference at 5 players in Finding Friends: whole deals the engine accepts, the
    same for any chunking."""
    game = dict(zip(("players", "decks", "teams"), FRIENDS_5))
    one, _ = runner.simulate([(INFER, "expert")], n=2, seed=3, chunk_size=2, duplicate=False, game=game)
    two, _ = runner.simulate([(INFER, "expert")], n=2, seed=3, chunk_size=1, duplicate=False, game=game)
    assert len(one) == 2 and one.drop(columns=["matchup"]).reset_index(drop=True).equals(
        two.drop(columns=["matchup"]).reset_index(drop=True))
