"""The Python step API (tractor_sim.play.game) and the drivers over the phase functions (kernels.deal).

Proved by what does not change: stepping a deal through the API with the
policies' own answers gives the engine's records; a deal stopped anywhere,
stored, loaded and played on to its end is the deal played straight
through; rollouts from one state repeat exactly with the same streams.
"""

import json

import numpy as np
import pytest

from tractor_sim.runs import runner
from tractor_sim.play.game import Game
from tractor_sim.play.game import IllegalAnswer, State
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels.layout import Layout
from tractor_sim.core.kernels.view import META, ROWS

def _engine_rows(a, b, n, seed, rules=None, levels=(0, 0), team=0, game=None):
    deals, _ = runner.simulate([(a, b)], n=n, seed=seed, rules=rules, duplicate=False, levels=levels,
                               declaring_team=team, game=game)
    return deals.reset_index(drop=True)


def _engine_record(rows, i, game=None):
    """Deal ``i``'s record as the engine wrote it: every column of the game's deal records."""
    return {k: int(rows.loc[i, k]) for k in Game.of(game).deal_dtype.names}


def _step(state, a, b, until=None):
    """Answer every decision with the seat's policy (team 0: a, team 1: b), up to ``until`` decisions."""
    k = 0
    while not state.over and (until is None or k < until):
        turn = state.to_act()
        state.apply(state.answer_of(a if turn.seat % 2 == 0 else b))
        k += 1
    return k


@pytest.mark.parametrize("a, b, rules, levels, team", [
    ("basic", "random", None, (0, 0), 0),
    ("expert", "basic", {"kitty_multiplier": "pow2_pairs", "follow_tractor": "shape_first"}, (5, 9), 1),
    ({"name": "bidder", "policy": "random", "bid": "random"}, "expert", "russian", (3, 7), 0),
])
def test_stepping_with_the_policies_gives_the_engines_records(a, b, rules, levels, team):
    n = 12
    rows = _engine_rows(a, b, n, seed=21, rules=rules, levels=levels, team=team)
    for i in range(n):
        state = State.new(seed=21, deal_id=i, rules=rules, levels=levels, declaring_team=team)
        _step(state, a, b)
        assert state.to_act() is None
        assert state.result() == _engine_record(rows, i), f"deal {i}"


@pytest.mark.parametrize("game, levels", [((6, 3, "tractor"), (4, 6)), ((5, 2, "friends"), (3,) * 5)])
def test_stepping_at_other_sizes_gives_the_engines_records(game, levels):
    """The step API plays every size through the Game's own compiled package: stepping with the
    policies' answers (declarations of up to DECKS cards, Finding Friends' calls) gives the
    engine's records, and a state stored mid-way and loaded plays on to the same record."""
    n = 4
    rows = _engine_rows("expert", "basic", n, seed=13, levels=levels[:2] if len(levels) == 5 else levels,
                        game=dict(zip(("players", "decks", "teams"), game)))
    g = Game.of(game)
    for i in range(n):
        state = g.new_initial_state(seed=13, deal_id=i, levels=levels if g.friends else levels)
        _step(state, "expert", "basic", until=30)
        loaded = State.from_json(state.to_json())
        assert loaded.game is g and loaded.to_act() == state.to_act()
        _step(state, "expert", "basic")
        assert state.result() == _engine_record(rows, i, game), f"deal {i}"
        _step(loaded, "expert", "basic")
        assert loaded.result() == state.result()


def test_a_deal_stored_mid_way_and_played_on_is_the_deal_played_straight():
    rows = _engine_rows("expert", "basic", 6, seed=4)
    for i, stop in enumerate([0, 3, 40, 101, 130, 160]):
        state = State.new(seed=4, deal_id=i)
        _step(state, "expert", "basic", until=stop)
        loaded = State.from_json(state.to_json())
        assert loaded.to_act() == state.to_act()
        assert loaded.play_out("expert", "basic") == _engine_record(rows, i)
        # the clone was not touched by the original's play_out, and vice versa
        again = state.clone()
        assert again.play_out("expert", "basic") == loaded.result()


def test_an_illegal_answer_raises_and_changes_nothing():
    state = State.new(seed=3, deal_id=0)
    while state.to_act().decision != "follow":
        state.apply(state.answer_of("basic"))
    before = state.to_json()
    turn = state.to_act()
    with pytest.raises(IllegalAnswer, match=f"seat {turn.seat} \\(follow\\)"):
        state.apply(["RJ", "RJ", "RJ"])
    assert state.to_json() == before
    with pytest.raises(IllegalAnswer, match="not a card|card"):
        state.apply(["XX"])
    assert state.to_json() == before


def test_legal_follows_are_exactly_those_the_engine_accepts():
    """legal() against is_legal() (which asks the engine's own check) on every candidate of the right
    size, at the follows of a few deals."""
    from tractor_sim.play.legal import sub_multisets as _sub_multisets
    from tractor_sim.rules import cards as K

    checked = 0
    for deal in range(3):
        state = State.new(seed=8, deal_id=deal)
        while not state.over and checked < 12:
            turn = state.to_act()
            if turn.decision == "follow":
                legal = {tuple(p) for p in state.legal(limit=100_000)}
                hand = state._hands()[turn.seat]
                n = int(state._st[ST.S_LEAD_N])
                for combo in _sub_multisets(hand, n):
                    play = tuple(K.card_str(c) for c in combo)
                    assert (play in legal) == state.is_legal(list(play)), play
                checked += 1
            state.apply(state.answer_of("random"))
    assert checked == 12


def test_legal_lists_every_kind_of_decision():
    state = State.new(seed=2, deal_id=1, rules="russian")
    kinds = set()
    while not state.over:
        turn = state.to_act()
        options = state.legal(limit=50)
        assert options, turn
        kinds.add((turn.decision, turn.step))
        state.apply(state.answer_of("random" if turn.decision != "bid" else
                                    {"name": "b", "policy": "random", "bid": "random"}))
    assert {("bid", "bid"), ("bid", "show"), ("bid", "trump"), ("discard", None), ("lead", None),
            ("follow", None)} <= kinds


def test_rollouts_repeat_with_the_same_streams_and_differ_with_others():
    state = State.new(seed=5, deal_id=2)
    while state.to_act().decision != "lead":  # the first lead: the whole play ahead
        state.apply(state.answer_of("random"))
    _, params, fns = Game.of().resolve(("random", "random"))
    enc = state._enc
    work = (D.new_state(), D.new_workspace(enc))
    err = np.zeros(PH.ERR_SIZE, dtype=np.int64)

    def roll(first, n=16):
        rows = np.zeros((n, D.D_FIELDS), dtype=np.int64)
        done = D.rollouts(state._st, state._ws, enc, params, fns, np.uint64(99), first, n, work[0], work[1], rows,
                          err, np.zeros((1, D.LOG_COLS), dtype=np.int64))
        assert done == n
        return rows

    a, b, c = roll(0), roll(0), roll(1000)
    assert (a == b).all()
    assert not (a == c).all()
    assert len({tuple(r) for r in a}) > 1  # the random policy plays differently in different rollouts
    assert not state.over  # the state rolled out from is untouched


def test_layouts_are_generated_without_overlap():
    for layout in (ST.LAYOUT, ROWS, META):
        end = 0
        for p in layout.pieces:
            assert p.offset == end and p.size >= 1, p
            end = p.end
        assert end == layout.size
    with pytest.raises(ValueError, match="declared twice"):
        Layout("x", [("A", 1), ("A", 2)])


BIDDER = {"name": "bidder", "policy": "random", "bid": "random"}
NEVER = {"name": "never", "policy": "random", "declare": "never"}


def test_every_piece_of_the_state_and_the_view_is_written():
    """Step deals of every kind (round 1 with redeals, the auction, failed throws) and watch every cell:
    each piece of the deal state must take a value other than its starting one (0 for the scalars,
    a sentinel for the arrays), and each piece of the view a value other than 0, at some step."""
    sentinel = -7777
    moved = np.zeros(ST.STATE_SIZE, dtype=bool)
    rows_seen = np.zeros(ROWS.size, dtype=bool)
    meta_seen = np.zeros(META.size, dtype=bool)
    cases = [dict(seed=s, deal_id=s, round1=True) for s in range(4)]
    cases += [dict(seed=s, deal_id=s, rules="russian", levels=(4, 6)) for s in range(6)]
    cases += [dict(seed=s, deal_id=s, levels=(3, 8), declaring_team=1) for s in range(3)]
    try:  # the module object the other tests use (it registers its strategies once)
        from tests.reference_deal import RASH, register_test_policies
    except ImportError:
        from reference_deal import RASH, register_test_policies

    register_test_policies()  # a lead that throws (and fails) often
    cases += [dict(seed=s, deal_id=s) for s in range(3)] + [dict(seed=1, deal_id=5, deal_in_match=2, levels=(2, 4))]
    for case in cases:
        state = State.new(**case)
        st = state._st
        moved |= st != 0  # what start() wrote: the deal's identity among it
        for p in ST.LAYOUT.pieces:  # an array piece that start() left empty holds the sentinel
            if p.offset >= ST.SCALARS_END and (st[p.offset:p.end] == 0).all():
                st[p.offset:p.end] = sentinel
        start = st.copy()
        redeal_first = case.get("round1") and case["seed"] == 0
        step = 0
        while not state.over:
            turn = state.to_act()
            pol = NEVER if redeal_first and turn.decision == "declare" and st[ST.S_REDEALS] < 2 else (
                BIDDER if turn.decision == "bid" else RASH if turn.decision == "lead" else "random")
            state.apply(state.answer_of(pol))
            moved |= st != start
            views = state._ws[0]
            rows_seen |= (views != 0).any(axis=(0, 2))
            meta_seen |= (views[:, ROWS.offset("V_META")] != 0).any(axis=0)[:META.size]
            step += 1
    not_moved = sorted({ST.LAYOUT.owner(i) for i in np.nonzero(~moved)[0]} - {
        p.name for p in ST.LAYOUT.pieces if moved[p.offset:p.end].any()})
    assert not not_moved, f"pieces of the deal state never written: {not_moved}"
    assert rows_seen.all(), [p.name for p in ROWS.pieces if not rows_seen[p.offset:p.end].any()]
    assert [p.name for p in META.pieces if not meta_seen[p.offset:p.end].any()] == []


def test_state_json_is_checked():
    with pytest.raises(ValueError, match="JSON"):
        State.from_json("{not json")
    with pytest.raises(ValueError, match="not a tractor-sim-state"):
        State.from_json(json.dumps({"format": "other"}))
    good = json.loads(State.new(seed=1).to_json())
    good["version"] = 99
    with pytest.raises(ValueError, match="version 99"):
        State.from_json(json.dumps(good))


def test_answer_of_refuses_a_search_policy_by_name():
    """A search policy's resolved functions are its base policy's: answer_of would silently play the
    base (the one-seat environment's others, a Python policy's ask()), so it refuses by name."""
    state = State.new(seed=1)
    with pytest.raises(ValueError, match="'search:basic:4' is a search policy"):
        state.answer_of("search:basic:4")
