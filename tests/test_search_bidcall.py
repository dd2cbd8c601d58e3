"""The search on the auction's steps (bid, card shown, trump named) and on Finding Friends' calls.

Proved against the rules' own checks (every candidate applied through
phases.apply), direct rollouts made here with the search's streams, and the
same seed run in other chunkings.  The default tier reuses the 4/2 kernels
(the auction is a rule, not a size); the Finding Friends and 6/3 tests
compile another size's search and are slow.
"""

import numpy as np
import pytest

from tractor_sim.core.kernels import candidates as KC
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import draw_worlds as DW
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import sampler as SM
from tractor_sim.core.kernels import search as KS
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels import view as V
from tractor_sim.core.kernels.dims import CARDS, DRAWN, SEATS
from tractor_sim.play import registry
from tractor_sim.play import search as S
from tractor_sim.play.game import Game, State
from tractor_sim.runs import engine, runner

NOLOG = np.zeros((1, D.LOG_COLS), dtype=np.int64)
AUCTION = {"declaring": "auction"}
FRIENDS_5 = {"players": 5, "decks": 2, "teams": "friends"}


def _stepped_to(state, want, policy="expert"):
    """Step ``state`` with ``policy`` to the first decision ``want`` (a predicate on the turn); the
    policy's answer left in the ANSWER buffer as the driver leaves it.  None when the deal never asks."""
    while not state.over:
        turn = state.to_act()
        if want(turn):
            ret, out = state._encode(state.answer_of(policy))
            state._st[ST.ANSWER:ST.ANSWER + len(out)] = out
            return state, turn.seat, ret
        state.apply(state.answer_of(policy))
    return None


def _auction_states(step, n=3, seed=5):
    found = []
    for deal_id in range(20):
        got = _stepped_to(State.new(seed=seed, deal_id=deal_id, rules=AUCTION),
                          lambda t: t.decision == "bid" and t.step == step)
        if got is not None:
            found.append(got)
        if len(found) == n:
            return found
    raise AssertionError(f"too few {step} steps")


def _candidates(state, seat, decision, limit=KC.MAX_CANDIDATES):
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = state._st[ST.ANSWER:ST.ANSWER + CARDS]
    n = KS.list_candidates(state._st, state._ws, state._enc, seat, decision, limit, cands)
    return cands, n


def _accepted(state, decision, row):
    """Whether the rules accept the candidate row, applied as the search's driver applies it."""
    clone = state.clone()
    clone._st[ST.ANSWER:ST.ANSWER + CARDS] = row
    err = np.zeros(PH.ERR_SIZE, np.int64)
    return PH.apply(clone._st, clone._ws, clone._enc, err, NOLOG, np.int64(decision),
                    np.int64(KS.answer_size(decision, row))) == PH.ERR_NONE


@pytest.mark.parametrize("step", ["bid", "show", "trump"])
def test_auction_candidates_are_legal_distinct_and_the_base_first(step):
    """At every auction step the candidates are distinct, each accepted by the rules, the base
    policy's answer first; a bid's list holds the pass and every bid nearest the base's first, a card
    shown's every card held, the trump's every suit."""
    for state, seat, _ in _auction_states(step):
        base = state._st[ST.ANSWER:ST.ANSWER + CARDS].copy()
        cands, n = _candidates(state, seat, V.BID)
        rows = cands[:n]
        assert len({tuple(r) for r in rows}) == n
        assert all(_accepted(state, V.BID, r) for r in rows)
        hand = state._st[ST.HANDS + seat * CARDS:ST.HANDS + (seat + 1) * CARDS]
        if step == "show":
            assert (rows[0] == base).all()
            assert sorted(int(np.argmax(r)) for r in rows) == [c for c in range(CARDS) if hand[c] > 0]
        elif step == "trump":
            assert rows[0, 0] == base[0] and sorted(rows[:, 0]) == [0, 1, 2, 3] and not rows[:, 1:].any()
        else:
            assert rows[0, 0] == base[0] and not rows[:, 1:].any()
            bids = list(rows[:, 0])
            assert sorted(bids) == list(range(0, V.MAX_BID + 1, 5))  # 41 bids: all within 128 rows
            rest = [b for b in bids[1:] if b != 0]
            assert [abs(b - base[0]) for b in rest] == sorted(abs(b - base[0]) for b in rest)
            short, k = _candidates(state, seat, V.BID, limit=4)
            assert k == 4 and short[1, 0] in (0, bids[2]) and (short[:k] == cands[:k]).all()


def test_auction_worlds_keep_the_seats_hand_and_every_card_shown():
    """A world of the auction: the seat's own hand; every hand full; every card shown in the auction
    still in its shower's hand; the hidden cards dealt anew."""
    for state, seat, _ in _auction_states("show", n=2) + _auction_states("trump", n=1):
        st = state._st
        shown = st[ST.K_SHOWN:ST.K_SHOWN + SEATS * CARDS].reshape(SEATS, CARDS)
        work = SM.new_work()
        assert DW.prepare(st, seat, work) == 1
        changed = 0
        for stream in range(6):
            wst = np.zeros(ST.STATE_SIZE, np.int64)
            wws = D.new_workspace(state._enc)
            assert DW.draw(st, state._ws, work, np.array([stream + 1], np.uint64), wst, wws) == 1
            hands = wst[ST.HANDS:ST.HANDS + SEATS * CARDS].reshape(SEATS, CARDS)
            true = st[ST.HANDS:ST.HANDS + SEATS * CARDS].reshape(SEATS, CARDS)
            assert (hands[seat] == true[seat]).all() and (hands.sum(axis=1) == DRAWN // SEATS).all()
            assert (hands >= shown).all()
            changed += not (hands == true).all()
        assert changed > 0


def _functions(policy="expert", game=None):
    _, params, fns = Game.of(game, AUCTION).resolve((policy, policy))
    return params, fns


def test_a_bids_value_is_the_mean_of_its_direct_rollouts():
    """Every bid candidate's value is the mean of rollouts made here: the auction's world for the
    search's world stream, the search's rollout streams, the bid applied, play_from to the end."""
    state, seat, _ = _auction_states("bid", n=1)[0]
    st = state._st
    cands, n = _candidates(state, seat, V.BID, limit=3)
    params, fns = _functions()
    worlds, rollouts = 2, 2
    values = np.zeros((KC.MAX_CANDIDATES, KS.CV_FIELDS))
    err = np.zeros(PH.ERR_SIZE, np.int64)
    work = (np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc), np.zeros(ST.STATE_SIZE, np.int64),
            D.new_workspace(state._enc))
    played = KS.evaluate(st, state._ws, state._enc, params, fns, seat, V.BID, worlds, rollouts, KS.WORLD_SAMPLED,
                         cands, n, values, *work, SM.new_work(), np.zeros(1, np.uint64), err, NOLOG, KS.SELECTION)
    assert played == worlds * rollouts * n
    index = KS.decision_index(st, V.BID)
    work = SM.new_work()
    assert DW.prepare(st, seat, work) == 1
    for c in range(n):
        total = np.zeros(2)
        for w in range(worlds):
            stream = KS.stream_key(np.uint64(st[ST.S_SEED]), st[ST.S_KEY_A], st[ST.S_KEY_B],
                                   KS.SELECTION + KS.P_WORLD + index * KS.MAX_WORLDS + w)
            wst, wws = np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc)
            assert DW.draw(st, state._ws, work, np.array([stream], np.uint64), wst, wws) == 1
            for r in range(rollouts):
                rst, rws = wst.copy(), tuple(a.copy() for a in wws)
                for s in range(SEATS):
                    rws[2][s, 0] = KS.rollout_stream(np.uint64(st[ST.S_SEED]), st[ST.S_KEY_A], st[ST.S_KEY_B],
                                                     index, w, r, s, KS.SELECTION)
                rst[ST.ANSWER:ST.ANSWER + CARDS] = cands[c]
                assert PH.apply(rst, rws, state._enc, err, NOLOG, np.int64(V.BID), np.int64(1)) == PH.ERR_NONE
                assert D.play_from(rst, rws, state._enc, params, fns, err, NOLOG) == PH.ERR_NONE
                total += KS.outcome(rst[ST.RESULT:], seat)
        assert values[c, KS.CV_N] == worlds * rollouts
        assert (values[c, KS.CV_LEVELS], values[c, KS.CV_POINTS]) == tuple(total)


def test_bids_and_the_call_have_their_own_decision_numbers():
    """The auction's steps are numbered after every declaration's, the call beside the burial's: no two
    decisions of a deal share their streams."""
    st = np.zeros(ST.STATE_SIZE, np.int64)
    others = {KS.decision_index(st, V.DISCARD)}
    for t in range(KS.TRICKS):
        for k in range(SEATS):
            st[ST.S_TRICK], st[ST.S_NPLAYED] = t, k
            others.add(KS.decision_index(st, V.LEAD))
    st[:] = 0
    for redeal in range(KS.DECLARE_REDEALS):
        for k in range(DRAWN + SEATS):
            st[ST.S_REDEALS], st[ST.S_DRAW_K] = redeal, k
            others.add(KS.decision_index(st, V.DECLARE))
    st[:] = 0
    call = KS.decision_index(st, V.CALL)
    bids = set()
    for i in range(PH.AUCTION_STEPS):
        st[ST.S_BID_STEP] = i
        bids.add(KS.decision_index(st, V.BID))
    assert len(bids) == PH.AUCTION_STEPS and min(bids) > max(others) and call not in others | bids


def test_bid_and_call_by_name_and_table_and_bad_decisions_named():
    assert S.SEARCHABLE == ("declare", "discard", "lead", "follow", "bid", "call")
    assert S.parse("search:expert:16[bid,call]")[1].decisions == ("bid", "call")
    assert S.parse({"policy": "search", "worlds": 8, "decisions": ["bid"]})[2] == "search:expert:8[bid]"
    assert S.parse("search:expert:8")[1].row()[KS.SS_DECISIONS] == (1 << len(V.DECISIONS)) - 1
    for bad in ("search:expert:16[bidd]", {"policy": "search", "decisions": ["bidd"]}):
        with pytest.raises(S.SearchSpecError, match="bidd"):
            S.parse(bad)


def test_the_search_on_bids_changes_deals_and_ignores_the_chunking():
    """``search:...[bid]`` under the auction searches its bids, shows and trumps, changes some deal
    against its base, and gives the same deals in any chunking."""
    pol = {"policy": "search", "base": "expert", "worlds": 3, "max_candidates": 6, "decisions": ["bid"]}
    kw = dict(n=4, seed=3, duplicate=False, rules=AUCTION)
    one, _ = runner.simulate([(pol, "expert")], chunk_size=4, **kw)
    two, _ = runner.simulate([(pol, "expert")], chunk_size=1, **kw)
    plain, _ = runner.simulate([("expert", "expert")], chunk_size=4, **kw)
    cols = [c for c in one.columns if c not in ("matchup", "policy0", "policy1")]
    assert one[cols].equals(two[cols])
    assert not one[cols].equals(plain[cols])


def test_analyze_values_auction_steps():
    """analyze's rows of the auction: the decision ``bid``, answers written "bid 40", "show A♠",
    "trump S", regrets as for any decision."""
    from tractor_sim.runs import analyze as A

    frame = A.run("expert", deals=1, seed=4, worlds=2, max_candidates=3, rules=AUCTION)["decisions"]
    bids = frame[frame["decision"] == "bid"]
    assert len(bids) == PH.AUCTION_STEPS and (bids["trick"] == -1).all()
    words = {a.split(" ")[0] for a in bids["chosen"]} | {a.split(" ")[0] for a in bids["best"]}
    assert words == {"bid", "show", "trump"}
    assert "bid" in set(A.summary(frame, "decision")["decision"])


def test_inference_resolves_in_finding_friends():
    """Inference plays in Finding Friends (tests/test_infer.py plays it)."""
    ff = Game.of(FRIENDS_5).package
    assert registry.resolve_policy({"policy": "search", "infer": "base"}, ff).search.infer


@pytest.mark.slow
@pytest.mark.parametrize("size", [{"players": 8, "decks": 4}, {"players": 7, "decks": 4, "teams": "friends"}])
def test_the_search_plays_every_decision_at_the_largest_sizes(size):
    """Where the sampler's table would not fit (8 players with 4 decks, 7 with 4 in Finding Friends)
    the search plays whole deals on every decision, its worlds from the chain (kernels.pair_chain):
    some of the first deals' declarations, leads and follows prepare the chain, and duplicate pairs
    complete with every deal scored."""
    game = Game.of(size)
    SMg, DWg = game.kernel("sampler"), game.kernel("draw_worlds")
    work = SMg.new_work()
    chained = 0
    for deal_id in range(3):
        state = State.new(seed=3, deal_id=deal_id, game=game)
        while not state.over:
            turn = state.to_act()
            if turn.decision in ("lead", "follow"):
                assert SMg.prepare(state._st, turn.seat, state._ws[3], work) == 1
                chained += int(work[0][SMg.W_CHAIN])
            elif turn.decision == "declare":
                assert DWg.prepare(state._st, turn.seat, work) == 1
                chained += int(work[0][SMg.W_CHAIN])
            state.apply(state.answer_of("expert"))
    assert chained > 0
    from tractor_sim.runs import compare

    r = compare.compare("search:expert:4", "expert", max_deals=2, seed=5, chunk_size=1, game=size)
    assert r["pairs"] == 2 and len(r["deals"]) == 4 and len(r["comparison"]["scores"]) == 2


@pytest.mark.slow
def test_call_candidates_are_legal_and_the_base_first():
    """At 5 players (Finding Friends) the calls one call away: 96 with two decks, distinct, every one
    accepted by the rules, the base policy's first."""
    game = Game.of(FRIENDS_5)
    K = game.kernels
    SK = game.kernel("search")
    st_mod, v = K.state, K.view
    cards, calls = game.dims.CARDS, game.dims.CALLS
    for deal_id in range(3):
        got = _stepped_to(State.new(seed=2, deal_id=deal_id, game=FRIENDS_5), lambda t: t.decision == "call")
        state, seat, ret = got
        assert ret == calls
        cands = np.zeros((game.kernel("candidates").MAX_CANDIDATES, cards), np.int64)
        cands[0] = base = state._st[st_mod.ANSWER:st_mod.ANSWER + cards]
        n = SK.list_candidates(state._st, state._ws, state._enc, seat, v.CALL, 128, cands)
        assert n == 96 and (cands[0] == base).all() and len({tuple(r) for r in cands[:n]}) == n
        err = np.zeros(K.phases.ERR_SIZE, np.int64)
        for r in cands[:n]:
            clone = state.clone()
            clone._st[st_mod.ANSWER:st_mod.ANSWER + cards] = r
            assert sum(r[j] != base[j] or r[calls + j] != base[calls + j] for j in range(calls)) <= 1
            assert K.phases.apply(clone._st, clone._ws, clone._enc, err, NOLOG, np.int64(v.CALL),
                                  np.int64(calls)) == K.phases.ERR_NONE


@pytest.mark.slow
@pytest.mark.parametrize("game", [FRIENDS_5, {"players": 6, "decks": 3}], ids=["5/2F", "6/3"])
def test_the_search_plays_other_sizes_and_ignores_the_chunking(game):
    """The search on every decision plays Finding Friends and 6 players with 3 decks: it searches,
    changes some deal against its base, and gives the same deals in any chunking."""
    pol = {"policy": "search", "base": "expert", "worlds": 2, "max_candidates": 4}

    def run(p, chunk):
        specs = engine.plan_chunks([(p, "expert")], n=2, seed=3, duplicate=False, chunk_size=chunk, game=game)
        results = [engine.run_chunk(s) for s in specs]
        return engine.to_frames(results)[0].drop(columns=["matchup"]), sum(r.extra.get("decisions", 0) for r in results)

    one, searched = run(pol, 2)
    two, _ = run(pol, 1)
    plain, _ = run("expert", 2)
    assert searched > 0 and one.reset_index(drop=True).equals(two.reset_index(drop=True))
    assert not one.reset_index(drop=True).equals(plain.reset_index(drop=True))


@registry.python_policy("test_bidcall_wrap_expert")
def _wrap_expert(decision):
    return decision.ask("expert")


def test_the_stepped_driver_searches_bids_as_the_kernel_does():
    """Beside a Python policy (play.stepped) the search of the auction's steps gives, deal for deal, the
    records of the compiled search against expert (the Python policy answers as expert)."""
    kw = dict(n=3, seed=21, duplicate=True, chunk_size=3, rules=AUCTION)
    pol = {"policy": "search", "base": "expert", "worlds": 2, "max_candidates": 4, "decisions": ["bid"]}
    tags = ["matchup", "policy0", "policy1"]
    compiled, _ = runner.simulate([(pol, "expert")], **kw)
    stepped, _ = runner.simulate([(pol, "test_bidcall_wrap_expert")], **kw)
    assert (compiled.drop(columns=tags).to_numpy() == stepped.drop(columns=tags).to_numpy()).all()


@pytest.mark.slow
def test_finding_friends_worlds_copy_the_public_call_state():
    """A world sampled in Finding Friends after the call holds the calls made, the copies seen, who
    joined and when, and every seat's points as the true deal does (all public), and so do its views."""
    game = Game.of(FRIENDS_5)
    K, SMF = game.kernels, game.kernel("sampler")
    st_mod, seats = K.state, game.dims.SEATS
    deal = State.new(seed=2, deal_id=1, game=FRIENDS_5)
    got = _stepped_to(deal, lambda t: t.decision == "lead" and deal._st[st_mod.S_TRICK] >= 4)
    state, seat, _ = got
    st = state._st
    public = slice(st_mod.F_CALLS, st_mod.F_THROWN + seats)
    assert st[st_mod.F_CALLS] >= 0
    work = SMF.new_work()
    for stream in range(4):
        wst = np.zeros(st_mod.STATE_SIZE, np.int64)
        wws = K.deal.new_workspace(state._enc)
        assert SMF.sample_world(st, state._ws, seat, work, np.array([stream + 1], np.uint64), wst, wws) == 1
        assert (wst[public] == st[public]).all()
        for v in range(seats):
            assert (wws[0][v, K.view.V_FRIENDS] == state._ws[0][v, K.view.V_FRIENDS]).all()
