"""The search on the declaration: its candidates, its worlds of the draw (kernels.draw_worlds), its values.

Proved against the game's own enumeration of legal answers (State.legal), a
closed-form probability computed here (the sampler must be uniform given
the shown cards, not merely consistent with them), direct rollouts made
here with the search's streams, and the same seed run in other chunkings.
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
from tractor_sim.core.kernels.dims import CARDS, DECK, DECKS, DRAWN, EFF_SUITS, SEATS
from tractor_sim.core.kernels.view import DECLARE
from tractor_sim.play import search as S
from tractor_sim.play.game import Game, State
from tractor_sim.rules.cards import card_str
from tractor_sim.runs import engine, runner

NOLOG = np.zeros((1, D.LOG_COLS), dtype=np.int64)


def _declare_state(seed, deal_id, shown=False, policy="expert"):
    """A deal stepped with ``policy`` to the first declaring decision (``shown``: after some other seat
    has declared); the policy's answer left in the ANSWER buffer as the driver leaves it (a pass all
    zero).  None when the deal has no such decision."""
    state = State.new(seed=seed, deal_id=deal_id)
    while not state.over:
        turn = state.to_act()
        st = state._st
        if turn.decision == "declare":
            others = [s for s in range(SEATS) if s != turn.seat]
            if not shown or any(st[ST.K_SHOWN + s * CARDS:ST.K_SHOWN + (s + 1) * CARDS].any() for s in others):
                ret, out = state._encode(state.answer_of(policy))
                st[ST.ANSWER:ST.ANSWER + CARDS] = out if ret else 0
                return state, turn.seat
        else:
            return None  # the draw is over
        state.apply(state.answer_of(policy))
    return None


def _declare_states(n, shown=False, seed=5):
    found = []
    for deal_id in range(200):
        got = _declare_state(seed, deal_id, shown)
        if got is not None:
            found.append(got)
        if len(found) == n:
            return found
    raise AssertionError("too few declaring decisions")


def _row_cards(row):
    """A candidate row as the game's answer: the cards shown ([] the pass)."""
    if row[0] == 0:
        return []
    count = row[2] if DECKS > 2 else (1 if row[0] == 1 else 2)
    return [card_str(int(row[1]))] * int(count)


def test_declare_candidates_are_every_legal_answer_once_the_base_first():
    """The candidates are exactly the legal answers (the pass and every declaration allowed), each
    once, the base policy's first."""
    for state, seat in _declare_states(6) + _declare_states(4, shown=True):
        cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
        cands[0] = base = state._st[ST.ANSWER:ST.ANSWER + CARDS]
        n = KS.list_candidates(state._st, state._ws, state._enc, seat, DECLARE, KC.MAX_CANDIDATES, cands)
        rows = [tuple(r) for r in cands[:n]]
        assert len(set(rows)) == n and n >= 2
        answers = [sorted(_row_cards(r)) for r in cands[:n]]
        legal = [sorted(a or []) for a in state.legal()]
        assert sorted(map(tuple, answers)) == sorted(map(tuple, legal))
        assert answers[0] == sorted(state.answer_of("expert") or [])
        assert (cands[0, 3:] == 0).all() and (base[:3] == cands[0, :3]).all()
        for r in cands[:n]:  # each is accepted by the rules as the driver applies it
            clone = state.clone()
            clone._st[ST.ANSWER:ST.ANSWER + CARDS] = r
            err = np.zeros(PH.ERR_SIZE, np.int64)
            assert PH.apply(clone._st, clone._ws, clone._enc, err, NOLOG, np.int64(DECLARE),
                            np.int64(r.sum())) == PH.ERR_NONE


def _work(table):
    """The sampler's work arrays; with ``table = "chain"`` no table (every deal by the chain)."""
    work = SM.new_work()
    return work if table == "exact" else (work[0], np.zeros(0), work[2])


def _world(state, seat, stream, table="exact"):
    work = _work(table)
    assert DW.prepare(state._st, seat, work) == 1
    assert work[0][SM.W_CHAIN] == (table == "chain")
    wst = np.zeros(ST.STATE_SIZE, np.int64)
    wws = D.new_workspace(state._enc)
    rng = np.array([stream], dtype=np.uint64)
    assert DW.draw(state._st, state._ws, work, rng, wst, wws) == 1
    return wst, wws


def _hands(st):
    return st[ST.HANDS:ST.HANDS + SEATS * CARDS].reshape(SEATS, CARDS)


@pytest.mark.parametrize("table", ["exact", "chain"])
def test_a_draw_world_keeps_every_public_fact(table):
    """A world of the draw: the seat's own hand, view, scratch and stream; every hand its size so far;
    every card shown still in its declarer's hand; the deck holds each card DECKS times, the drawn
    positions its seats' cards; public rows as the seat sees them; the world's counts as the draw
    keeps them; and the hidden cards dealt anew (worlds differ from the deal and from each other)."""
    for state, seat in _declare_states(3, shown=True):
        st = state._st
        true_hands = _hands(st)
        drawn = min(st[ST.S_DRAW_K] + 1, DRAWN)
        changed = 0
        for stream in range(12):
            wst, wws = _world(state, seat, stream + 1, table)
            hands = _hands(wst)
            assert (hands[seat] == true_hands[seat]).all()
            assert (hands.sum(axis=1) == true_hands.sum(axis=1)).all()
            shown = st[ST.K_SHOWN:ST.K_SHOWN + SEATS * CARDS].reshape(SEATS, CARDS)
            assert (hands >= shown).all()
            deck = wst[ST.SHUFFLED:ST.SHUFFLED + DECK]
            assert (np.bincount(deck, minlength=CARDS) == DECKS).all()
            first = st[ST.S_FIRST]
            for s in range(SEATS):
                mine = [deck[k] for k in range(drawn) if (first + k) % SEATS == s]
                assert (np.bincount(mine, minlength=CARDS) == hands[s]).all()
            views = wws[0]
            for v in range(SEATS):
                assert (views[v, V.V_HAND] == hands[v]).all() and views[v, V.V_META, V.M_SEAT] == v
                assert views[v, V.V_META, V.M_MY_CARDS:V.M_MY_CARDS + EFF_SUITS].sum() == hands[v].sum()
                public = [r for r in range(V.V_ROWS) if r not in (V.V_HAND, V.V_BURIED, V.V_META)]
                assert (views[v, public] == state._ws[0][seat, public]).all()
            assert (views[seat] == state._ws[0][seat]).all()
            assert (wws[1][seat] == state._ws[1][seat]).all() and wws[2][seat, 0] == state._ws[2][seat, 0]
            held = wst[ST.HELD:ST.HELD + SEATS * EFF_SUITS].reshape(SEATS, EFF_SUITS)
            assert (held[seat] == st[ST.HELD:ST.HELD + SEATS * EFF_SUITS].reshape(SEATS, EFF_SUITS)[seat]).all()
            assert (views[:, V.V_META, V.M_MY_CARDS:V.M_MY_CARDS + EFF_SUITS] == held).all()
            changed += int(not (hands == true_hands).all())
        assert changed >= 10


@pytest.mark.parametrize("table", ["exact", "chain"])
def test_a_draw_world_reads_nothing_hidden(table):
    """Two deals that differ only in what the seat cannot see (two other hands swapped before any
    declaration, the stock reordered) give the same worlds for the same stream."""
    swapped = 0
    for state, seat in _declare_states(6):
        other = state.clone()
        st = other._st
        drawn = min(st[ST.S_DRAW_K] + 1, DRAWN)
        deck = st[ST.SHUFFLED:ST.SHUFFLED + DECK]
        deck[drawn:] = deck[drawn:][::-1].copy()
        a, b = (seat + 1) % SEATS, (seat + 2) % SEATS
        hands = _hands(st)
        assert not st[ST.K_SHOWN:ST.K_SHOWN + SEATS * CARDS].any()  # the first declaring decision
        swapped += not (hands[a] == hands[b]).all()
        hands[[a, b]] = hands[[b, a]]
        other._ws[0][[a, b], V.V_HAND] = other._ws[0][[b, a], V.V_HAND]
        for stream in (1, 2, 3):
            one, one_ws = _world(state, seat, stream, table)
            two, two_ws = _world(other, seat, stream, table)
            assert (one == two).all() and (one_ws[0] == two_ws[0]).all()
    assert swapped >= 2


@pytest.mark.parametrize("table", ["exact", pytest.param("chain", marks=pytest.mark.slow)])
def test_draw_worlds_are_uniform_given_the_shown_cards(table):
    """An opponent showed one copy of a card of which the seat holds none: in a uniform deal of the
    unseen cards given that it holds one, it holds both with probability (h - 1) / (2N - h - 1)
    (h its hand, N the unseen cards; computed here from the count of deals), not (h - 1) / (N - 1)
    as placing the shown copy first and the rest at random would give.  A shown pair is held whole."""
    state, seat = max(_declare_states(8, seed=9), key=lambda x: _hands(x[0]._st)[(x[1] + 1) % SEATS].sum())
    st = state._st.copy()
    hands = _hands(st)
    other = (seat + 1) % SEATS
    card = next(c for c in range(CARDS) if hands[seat, c] == 0)
    shown = st[ST.K_SHOWN:ST.K_SHOWN + SEATS * CARDS].reshape(SEATS, CARDS)
    shown[:] = 0
    shown[other, card] = 1
    h = int(hands[other].sum())
    unseen = DECK - int(hands[seat].sum())
    work = _work(table)
    assert DW.prepare(st, seat, work) == 1
    place = (other - seat - 1) % SEATS
    out = np.zeros((DW.OTHERS, CARDS), np.int64)
    rest = np.zeros(DECK, np.int64)
    rng = np.array([7], dtype=np.uint64)
    n, both = 20_000, 0
    for _ in range(n):
        DW.deal_unseen(st, work, rng, out, rest)
        assert out[place, card] >= 1
        both += out[place, card] == 2
    p = (h - 1) / (2 * unseen - h - 1)
    assert abs(both / n - p) < 4.5 * np.sqrt(p * (1 - p) / n), (both / n, p, (h - 1) / (unseen - 1))
    shown[other, card] = 2
    assert DW.prepare(st, seat, work) == 1
    DW.deal_unseen(st, work, rng, out, rest)
    assert out[place, card] == 2
    shown[other, card] = 3  # more than exist: no world
    assert DW.prepare(st, seat, work) == 0


def _functions(policy="expert"):
    _, params, fns = Game.of().resolve((policy, policy))
    return params, fns


@pytest.mark.parametrize("source", [KS.WORLD_TRUE, KS.WORLD_SAMPLED], ids=["oracle", "sampled"])
def test_a_declarations_value_is_the_mean_of_its_direct_rollouts(source):
    """Every candidate's value is the mean of rollouts made here: the world (the deal, or the one the
    draw sampler gives for the search's world stream), the search's rollout streams, the candidate
    applied, play_from to the end."""
    state, seat = _declare_states(1, shown=True)[0]
    st = state._st
    cands = np.zeros((KC.MAX_CANDIDATES, CARDS), np.int64)
    cands[0] = st[ST.ANSWER:ST.ANSWER + CARDS]
    n = KS.list_candidates(st, state._ws, state._enc, seat, DECLARE, 4, cands)
    params, fns = _functions()
    worlds, rollouts = 3, 2
    values = np.zeros((KC.MAX_CANDIDATES, KS.CV_FIELDS))
    err = np.zeros(PH.ERR_SIZE, np.int64)
    work = (np.zeros(ST.STATE_SIZE, np.int64), D.new_workspace(state._enc), np.zeros(ST.STATE_SIZE, np.int64),
            D.new_workspace(state._enc))
    played = KS.evaluate(st, state._ws, state._enc, params, fns, seat, DECLARE, worlds, rollouts, source, cands, n,
                         values, *work, SM.new_work(), np.zeros(1, np.uint64), err, NOLOG, KS.SELECTION)
    assert played == worlds * rollouts * n
    index = KS.decision_index(st, DECLARE)
    for c in range(n):
        total = np.zeros(2)
        for w in range(worlds):
            if source == KS.WORLD_TRUE:
                wst, wws = st.copy(), tuple(a.copy() for a in state._ws)
            else:
                stream = KS.stream_key(np.uint64(st[ST.S_SEED]), st[ST.S_KEY_A], st[ST.S_KEY_B],
                                       KS.SELECTION + KS.P_WORLD + index * KS.MAX_WORLDS + w)
                wst, wws = _world(state, seat, stream)
            for r in range(rollouts):
                rst, rws = wst.copy(), tuple(a.copy() for a in wws)
                for s in range(SEATS):
                    rws[2][s, 0] = KS.rollout_stream(np.uint64(st[ST.S_SEED]), st[ST.S_KEY_A], st[ST.S_KEY_B],
                                                     index, w, r, s, KS.SELECTION)
                rst[ST.ANSWER:ST.ANSWER + CARDS] = cands[c]
                assert PH.apply(rst, rws, state._enc, err, NOLOG, np.int64(DECLARE),
                                np.int64(cands[c].sum())) == PH.ERR_NONE
                assert D.play_from(rst, rws, state._enc, params, fns, err, NOLOG) == PH.ERR_NONE
                total += KS.outcome(rst[ST.RESULT:], seat % 2)
        assert values[c, KS.CV_N] == worlds * rollouts
        assert (values[c, KS.CV_LEVELS], values[c, KS.CV_POINTS]) == tuple(total)


def test_declarations_have_their_own_decision_numbers():
    """A declaration's streams are numbered after every play's and the burial's, by draw position
    and redeal: no two decisions of a deal share them."""
    st = np.zeros(ST.STATE_SIZE, np.int64)
    plays = {KS.decision_index(st, V.DISCARD)}
    for t in range(KS.TRICKS):
        for k in range(SEATS):
            st[ST.S_TRICK], st[ST.S_NPLAYED] = t, k
            plays.add(KS.decision_index(st, V.LEAD))
    st[:] = 0
    declares = set()
    for redeal in range(3):
        for k in range(DRAWN + SEATS):
            st[ST.S_REDEALS], st[ST.S_DRAW_K] = redeal, k
            declares.add(KS.decision_index(st, DECLARE))
    assert len(declares) == 3 * (DRAWN + SEATS) and not plays & declares and min(declares) > max(plays)


def test_the_declare_restriction_by_name_and_table():
    assert S.parse("search:expert:16[lead,follow]")[1].decisions == ("lead", "follow")
    assert S.parse("search:expert:16")[1].decisions == S.SEARCHABLE and "declare" in S.SEARCHABLE
    assert S.parse({"policy": "oracle", "worlds": 2, "decisions": ["declare"]})[2] == "oracle:expert:2[declare]"
    assert S.parse("search:basic:4[declare]")[2] == "search:basic:4[declare]"
    for bad in ("search:expert:16[bidd]", "search:expert:16[]"):
        with pytest.raises(S.SearchSpecError, match="decisions"):
            S.parse(bad)


def test_the_search_on_the_declaration_only_changes_the_deals_and_ignores_the_chunking():
    """``search:...[declare]`` searches declarations, changes some trump or declarer against its base,
    and gives the same deals in any chunking."""
    pol = {"policy": "search", "base": "expert", "worlds": 3, "max_candidates": 4, "decisions": ["declare"]}
    kw = dict(n=6, seed=3, duplicate=False)
    one, _ = runner.simulate([(pol, "expert")], chunk_size=6, **kw)
    two, _ = runner.simulate([(pol, "expert")], chunk_size=2, **kw)
    plain, _ = runner.simulate([("expert", "expert")], chunk_size=6, **kw)
    cols = [c for c in one.columns if c not in ("matchup", "policy0", "policy1")]
    assert one[cols].equals(two[cols])
    assert not one[["trump_suit", "starter"]].equals(plain[["trump_suit", "starter"]])
    spec = engine.plan_chunks([(pol, "expert")], n=3, seed=3, duplicate=False)[0]
    result = engine.run_chunk(spec)
    assert result.extra["decisions"] > 0


def test_analyze_values_declarations():
    """analyze's rows of declarations: the decision named, at trick -1 (before the burial's 0), the
    answers written as the cards shown or pass, regrets as for any decision."""
    from tractor_sim.runs import analyze as A

    result = A.run("expert", deals=2, seed=4, worlds=2, max_candidates=4)
    frame = result["decisions"]
    assert {"declare", "discard", "lead", "follow"} <= set(frame["decision"])
    dec = frame[frame["decision"] == "declare"]
    assert (dec["trick"] == -1).all() and (frame[frame["decision"] == "discard"]["trick"] == 0).all()
    ok = {"pass"} | {" ".join([card_str(c)] * k) for c in range(CARDS) for k in range(1, DECKS + 1)}
    assert set(dec["chosen"]) <= ok and set(dec["best"]) <= ok
    assert (dec["insample_regret_levels"] >= 0).all()
    summary = A.summary(frame, "decision")
    assert "declare" in set(summary["decision"])


@pytest.mark.slow
@pytest.mark.parametrize("game", [{"players": 6, "decks": 3}, {"players": 4, "decks": 3}], ids=["6/3", "4/3"])
def test_the_search_on_the_declaration_at_other_sizes(game):
    """With more decks a declaration shows a count (9.8) and the draw has more seats: the search's
    answers pass the rules' checks, it searches, changes some deal against its base, and gives the
    same deals in any chunking."""
    pol = {"policy": "search", "base": "expert", "worlds": 3, "max_candidates": 6, "decisions": ["declare"]}

    def run(p, chunk):
        specs = engine.plan_chunks([(p, "expert")], n=4, seed=3, duplicate=False, chunk_size=chunk, game=game)
        results = [engine.run_chunk(s) for s in specs]
        return engine.to_frames(results)[0].drop(columns=["matchup"]), sum(r.extra.get("decisions", 0) for r in results)

    one, searched = run(pol, 4)
    two, _ = run(pol, 1)
    plain, _ = run("expert", 4)
    assert searched > 0 and one.reset_index(drop=True).equals(two.reset_index(drop=True))
    assert not one.reset_index(drop=True).equals(plain.reset_index(drop=True))
