"""Finding Friends (docs/rules.md section 9, "Teams"; docs/decisions.md 9.11) played by the kernels.

Whole deals and matches at 4 to 8 players with 2 decks, every event of the
kernels' log and every record judged by the section-9 reference
(tests/referee_friends.py on tests/reference9.py): the calls, the copies
counted and who joins when, throws checked by the sides of the moment, the
final sides, the opponents' points, every player's level and the next
landlord; matches ending when a player passes the Ace.  Then the calls'
legality (illegal calls stop the run naming the strategy), the built-in
call strategies, what the views show, and the user's side (experiments,
records, the report).  The 4-player tractor game is untouched: its pinned
digests are tests/test_variants.py's.
"""

import functools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from tests import reference9 as r9
from tests.referee_friends import FriendsReferee, install_test_strategies
from tests.sized_params import sized
from tractor_sim.runs import engine as E
from tractor_sim.play.replay import replay_again
from tractor_sim.play import referee
from tractor_sim.rules import sizes
from tractor_sim.play import packages
from tractor_sim.cli import main
from tractor_sim.core.kernels import match as M4
from tractor_sim.rules.sizes import GameSize, GameSizeError
from tractor_sim.play import registry as S
from tractor_sim.play.game import Game

PLAYERS = (4, 5, 6, 7, 8)
RASH = {"name": "rash", "policy": "random", "lead": "friends_rash"}  # throws, many failing (penalties)
VARIANTS = {"throw_check": "opponents_only", "must_defend": "ace_5_10_k", "match_end": "reach_ace",
            "kitty_multiplier": "pow2_pairs"}


def game(n, decks=2):
    return {"players": n, "decks": decks, "teams": "friends"}


def package(n, decks=2):
    pkg = packages.compiled_package(GameSize(n, decks, "friends"))
    install_test_strategies([pkg])
    return pkg


def judge(n, matchups, *, mode="fixed", count, seed, rules=None, levels=(0, 0), declaring_team=0, decks=2):
    """Play the matchups (both halves) with every event logged and judge them; the referee's counters."""
    package(n, decks)
    ref = FriendsReferee(n, decks, rules)
    for spec in E.plan_chunks(matchups, mode=mode, n=count, seed=seed, rules=rules, game=game(n, decks),
                              chunk_size=count, levels=levels, declaring_team=declaring_team):
        ref.check_result(E.run_chunk(spec, log_id=M4.LOG_ALL))
    return ref.n


# ---------------------------------------------------------------- whole deals against the reference

@pytest.mark.parametrize("n", sized(PLAYERS))
def test_friends_deals_follow_the_reference(n):
    """Hundreds of deals per size (fixed levels), every event and record recomputed by the reference."""
    c = judge(n, [("expert", "random"), (RASH, "basic")], count=150, seed=n)
    assert c["deals"] == 600
    for what in ("joins", "calls used up", "failed throws", "landlord's team won", "opponents won",
                 "calls of a card the landlord holds", "calls of the trump suit"):
        assert c[what] > 0, (what, dict(c))
    assert c["landlord alone"] > 0 or n == 4


@pytest.mark.parametrize("n", sized(PLAYERS))
def test_friends_matches_follow_the_reference_and_end_past_the_ace(n):
    c = judge(n, [("expert", "basic"), (RASH, "random")], mode="match", count=2, seed=10 + n)
    assert c["matches"] == 8 and c["deals"] > 8


@pytest.mark.parametrize("n", sized((5, 6, 8)))
def test_friends_variants_follow_the_reference(n):
    """throw_check = opponents_only with the sides of the moment (9.5), must_defend per player, the
    reach-the-Ace end, the kitty's power-of-two multiplier; fixed levels at K for must_defend."""
    c = judge(n, [(RASH, "expert")], count=150, seed=30 + n, rules=VARIANTS, levels=(11, 3))
    assert c["failed throws after a join"] > 0 and c["deals"] == 300
    c = judge(n, [(RASH, "basic")], mode="match", count=2, seed=40 + n, rules=VARIANTS)
    assert c["matches"] == 4


@pytest.mark.slow
def test_friends_with_three_decks_follows_the_reference():
    """Finding Friends with tuples (6 players, 3 decks): declarations of up to three copies, calls
    of copy 1..3, joins, triples and tractors of tuples, judged event by event (the 8/4 table and a
    quarter of a million deals of each: tests/test_legality.py, -m slow).  In the slow tier: it alone
    compiles the 6/3 Finding Friends package (a minute of CPU); the default tier checks Finding Friends
    at 5 players and the tuples at 6 players, 3 decks."""
    c = judge(6, [("expert", "random"), (RASH, "basic")], count=60, seed=63, decks=3)
    assert c["deals"] == 240 and c["joins"] > 0 and c["failed throws"] > 0 and c["led triple"] > 0, dict(c)
    assert c["matches"] == 0 and judge(6, [(RASH, "expert")], mode="match", count=1, seed=64, decks=3,
                                       rules=VARIANTS)["matches"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYERS)
def test_friends_many_deals_follow_the_reference(n):
    c = judge(n, [("expert", "random"), (RASH, "basic"), (RASH, "expert")], count=1000, seed=100 + n)
    assert c["deals"] == 6000
    c = judge(n, [(RASH, "expert")], count=1000, seed=200 + n, rules=VARIANTS, levels=(12, 0), declaring_team=0)
    c = judge(n, [("expert", "basic"), (RASH, "random")], mode="match", count=10, seed=300 + n, rules=VARIANTS)
    assert c["matches"] == 40


# ---------------------------------------------------------------- the calls

@pytest.mark.parametrize("name,what", [
    ("bad_joker", "copy 1 of BJ"), ("bad_rank", "copy 1 of 2S"), ("bad_copy0", "copy 0 of"),
    ("bad_copy3", "copy 3 of"), ("bad_count", "call"),
])
def test_an_illegal_call_stops_the_run_naming_the_strategy(name, what):
    package(5)
    spec = E.plan_chunks([({"policy": "basic", "call": name}, "random")], n=3, seed=1, game=game(5))[0]
    with pytest.raises(E.SimulationError) as e:
        E.run_chunk(spec)
    text = str(e.value)
    assert f"call strategy {name!r} of policy" in text and "an illegal call" in text and what in text
    assert "--teams friends" in text  # the replay command names the game


def test_calls_ok_is_9_11():
    F = package(6).kernels.friends
    calls = F.CALLS
    assert calls == 2

    def ok(pairs, rank=0, n=None):
        out = np.zeros(54, dtype=np.int64)
        for j, (card, copy) in enumerate(pairs):
            out[j], out[calls + j] = card, copy
        return bool(F.calls_ok(out, len(pairs) if n is None else n, rank))

    for card in range(54):
        for copy in range(4):
            for rank in (0, 7, 12):
                assert ok([(card, copy), (12, 1)], rank) == (r9.call_allowed(card, copy, rank, 2)
                                                             and rank != 12), (card, copy, rank)
    assert ok([(12, 2), (12, 2)])  # the same copy twice: allowed
    assert not ok([(12, 1), (11, 1)], n=1)


def _calls(pkg, name, view, seed=1):
    fn = S.get_strategy("call", name).sized_function(pkg)
    out = np.zeros(54, dtype=np.int64)
    rng = np.array([seed], dtype=np.uint64)
    n = fn(view, np.zeros(1), rng, np.zeros(8), out)
    calls = pkg.kernels.dims.CALLS
    assert n == calls
    return [(int(out[j]), int(out[calls + j])) for j in range(calls)]


def test_the_ace_call(view_of):
    """Off-suit Aces I lack first (the one after my own copies), the trump suit's last, never a card I
    hold or buried in full; another card for each call."""
    from tractor_sim.rules.cards import parse_cards

    pkg = package(8)  # three calls
    call_view = functools.partial(view_of, package=pkg, decision=pkg.kernels.view.CALL)
    ids = lambda text: parse_cards(text)  # noqa: E731
    AS, AH, AD, AC, KH = (ids(x)[0] for x in ("AS", "AH", "AD", "AC", "KH"))
    # trump suit spades, rank 2: AH (none held, hearts longer), AD (none held), then AC: I hold one -> copy 2
    v = call_view(ids("AC 3H 4H 5H 3D"), rank=0, suit=0)
    assert _calls(pkg, "ace", v) == [(AH, 1), (AD, 1), (AC, 2)]
    # AH held twice, AD one held one buried, AC buried: then the Kings (hearts' first: the longest suit)
    v = call_view(ids("AH AH AD 3H 4D"), buried=ids("AD AC AC"), rank=0, suit=0)
    got = _calls(pkg, "ace", v)
    assert got[0] == (KH, 1) and AH not in [c for c, _ in got] and AD not in [c for c, _ in got]
    # rank A: no Ace may be called (9.11), and no trump suit: every suit is off-suit
    v = call_view(ids("3H"), rank=12, suit=4)
    assert all(c % 13 == 11 for c, _ in _calls(pkg, "ace", v))
    for seed in range(200):  # random: always allowed
        for c, copy in _calls(pkg, "random", call_view([], rank=seed % 13), seed + 1):
            assert r9.call_allowed(c, copy, seed % 13, 2)


# ---------------------------------------------------------------- the views

def test_every_view_shows_the_calls_the_team_and_the_levels():
    """Step deals in Python on the 5/2 kernels: after every decision every view's friends row is the
    same (public) and says the state's calls, team, joins, and each player's level; M_OPP_POINTS is the
    opponents' total as the sides stand."""
    pkg = package(5)
    K = pkg.kernels
    V, ST, F = K.view, K.state, K.friends
    from tractor_sim.rules.options import Rules

    rules = Rules().encode()
    pols, params, fns = Game.of((5, 2, "friends")).resolve(("expert", "random"))
    seen_join = 0
    for deal in range(6):
        ws = K.deal.new_workspace(rules)
        st = K.deal.new_state()
        err = np.zeros(K.phases.ERR_SIZE, dtype=np.int64)
        log = np.zeros((1, K.events.LOG_COLS), dtype=np.int64)
        levels = np.array([3, 5, 0, 9, 12], dtype=np.int64)
        landlord = deal % 5
        assert K.phases.start(st, ws, rules, err, log, np.uint64(7), deal, 0, False, levels, 0, landlord) == 0
        views = ws[0]
        while True:
            seat, decision = K.phases.to_act(st)
            if seat < 0:
                break
            fn = fns[(seat % 2) * len(V.DECISIONS) + decision]
            ans = fn(views[seat], params[seat % 2, decision], ws[2][seat], ws[1][seat], st[ST.ANSWER:ST.ANSWER + 54])
            assert K.phases.apply(st, ws, rules, err, log, decision, ans) == 0
            row = views[:, V.V_FRIENDS]
            assert (row == row[0]).all()
            row = row[0]
            assert list(row[V.FV_LEVEL:V.FV_LEVEL + 5]) == list(levels)
            if st[ST.S_PHASE] in (ST.PH_LEAD, ST.PH_FOLLOW, ST.PH_DONE):
                team = st[ST.F_TEAM]
                assert [row[V.FV_IN_TEAM + s] for s in range(5)] == [(team >> s) & 1 for s in range(5)]
                assert row[V.FV_MEMBERS] == F.members(team)
                for j in range(F.CALLS):
                    assert row[V.FV_CALL_CARD + j] == st[ST.F_CALLS + j] and row[V.FV_CALL_SEAT + j] == st[ST.F_BY + j]
                    assert row[V.FV_CALL_COPY + j] == st[ST.F_COPIES + j]
                    assert row[V.FV_CALL_TRICK + j] == st[ST.F_WHEN + j]
                for s in range(5):
                    assert row[V.FV_JOINED + s] == st[ST.F_JOINED + s]
                seen_join += F.members(team) > 1
                opp = sum(st[ST.F_POINTS + s] for s in range(5) if not (team >> s) & 1)
                pen = sum(st[ST.F_THROWN + s] * (1 if (team >> s) & 1 else -1) for s in range(5))
                if st[ST.S_PHASE] != ST.PH_DONE:
                    assert views[0, V.V_META, V.M_OPP_POINTS] == opp + pen
            elif st[ST.S_PHASE] == ST.PH_CALL:
                assert views[landlord, V.V_META, V.M_DECISION] == V.CALL and decision == V.DISCARD
                assert list(row[V.FV_IN_TEAM:V.FV_IN_TEAM + 5]) == [int(s == landlord) for s in range(5)]
            assert st[ST.S_RANK] == levels[landlord]
    assert seen_join > 0


# ---------------------------------------------------------------- the user's side

def test_friends_plays_without_the_auction():
    with pytest.raises(GameSizeError, match="auction"):
        E.plan_chunks([("basic", "random")], n=2, game=game(5), rules="russian")
    assert packages.package_name(GameSize(5, 2, "friends")) == "tractor_sim_sized_p5d2f"
    assert package(5).kernels.dims.TEAM_MODE == package(5).kernels.dims.FRIENDS
    assert packages.compiled_package(GameSize(6, 2)).kernels.dims.TEAM_MODE == 0  # tractor sizes: no friends


def test_the_tractor_game_never_calls():
    from tractor_sim.core.kernels import result, state, view

    assert "V_FRIENDS" in view.ROWS.absent and view.V_ROWS == view.ROWS.size
    assert "F_TEAM" in state.LAYOUT.absent and "D_TEAM" in result.LAYOUT.absent
    assert Game.of().deal_dtype.names[-3:] == ("dealer", "bid0", "bid1")


def test_records_and_matches_have_a_column_per_player():
    spec = E.plan_chunks([("expert", "basic")], mode="match", n=2, seed=3, game=game(5), chunk_size=2)[0]
    package(5)
    res = E.run_chunk(spec)
    d, m = res.deals, res.matches
    assert {f"level{s}_{w}" for s in range(5) for w in ("before", "after")} <= set(d.dtype.names)
    assert {"call0_card", "call0_copy", "in_team4", "joined4", "team", "landlord_won", "next_starter"} <= set(
        d.dtype.names)
    assert "level0_before" in d.dtype.names and "bid0" not in d.dtype.names
    assert m.dtype.names == ("match_id", "winners", "deals") + tuple(f"level{s}_final" for s in range(5))
    for rec in m:
        assert rec["winners"] > 0
        assert all((int(rec[f"level{s}_final"]) >= 13) == bool(rec["winners"] >> s & 1) for s in range(5))


def test_replay_of_a_friends_deal(tmp_path):
    package(5)
    spec = E.plan_chunks([("expert", "basic")], n=4, seed=5, game=game(5), chunk_size=4)[0]
    played = E.run_chunk(spec).deals
    command = E.replay_command(spec, 2)
    assert "--players 5 --decks 2 --teams friends" in command
    args = command.split()[1:]
    r = CliRunner().invoke(main, args + ["--format", "json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["game"] == game(5)
    row = played[played["deal_id"] == 2][0]
    assert data["result"] == {name: int(row[name]) for name in played.dtype.names}
    assert len(data["calls"]) == 1 and all({"card", "copy"} <= set(c) for c in data["calls"])
    assert len(data["levels"]) == 5
    text = CliRunner().invoke(main, args, catch_exceptions=False).output
    assert "Calls: the " in text and "Landlord's team: seats " in text and "next landlord seat" in text
    assert ("joins the landlord" in text) == any(row[f"joined{s}"] >= 0 for s in range(5))


FRIENDS_EXP = """
name = "friends"
seed = 5
count = 30
chunk_size = 30
mode = "{mode}"
[game]
players = 5
teams = "friends"
[[matchup]]
a = "expert"
b = "basic"
"""


@pytest.mark.parametrize("mode", ["fixed", "match"])
def test_a_friends_experiment_runs_and_reports_per_player(tmp_path, mode):
    f = tmp_path / "friends.toml"
    f.write_text(FRIENDS_EXP.format(mode=mode).replace("count = 30", "count = 30" if mode == "fixed" else "count = 2"))
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(f), "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    report = (out / "report.md").read_text()
    assert "5 players, 2 decks (Finding Friends" in report
    assert "levels per player and deal" in report
    assert "expert" in report and "basic" in report
    check_records_of_the_run(out, mode, "0-3" if mode == "fixed" else "0,1,1000")


def check_records_of_the_run(out, mode, deals):
    """Deal records of a Finding Friends run: exported and valid by the schema, played again
    identically, their tricks judged by ``judge --record`` with the sides of the moment; the
    viewer and the step API refuse them by name."""
    from tractor_sim.play import record as REC

    path = out / "deals.jsonl"
    r = CliRunner().invoke(main, ["export", str(out), "--deals", deals, "--out", str(path)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    recs = REC.read(path)
    assert recs and all(rec["game"] == game(5) and len(rec["hands"]) == 5 and len(rec["levels"]) == 5
                        and len(rec["calls"]) == 1 for rec in recs)
    joined = 0
    for i, rec in enumerate(recs):
        assert not REC.differences(rec, replay_again(rec)), i
        for t in range(1, len(rec["tricks"]) + 1):
            data = REC.trick_input(rec, t)
            joined += len(data["declarers"]) > 1
            out_ = referee.trick(**referee.check_json(data))
            tr = rec["tricks"][t - 1]
            assert out_["winner"] == tr["winner"] and out_["points"] == tr["points"] and all(out_["legal"]), (i, t)
            assert ("throw" in out_ and not out_["throw"]["ok"]) == ("failed_throw" in tr)
    assert joined > 0
    v = CliRunner().invoke(main, ["replay", "--record", str(path), "--index", "0", "--verify"])
    assert v.exit_code == 0 and "verified" in v.output, v.output
    j = CliRunner().invoke(main, ["judge", "--record", str(path), "--index", "0", "--trick", "3"])
    assert j.exit_code == 0 and json.loads(j.output)["winner"] == recs[0]["tricks"][2]["winner"], j.output
    h = CliRunner().invoke(main, ["replay", "--record", str(path), "--html", str(out / "x.html")])
    assert h.exit_code == 0, h.output  # the viewer draws every size: five seats, the calls, the joins
    page = (out / "x.html").read_text()
    assert '"calls"' in page and "id=\"table\"" in page
    from tractor_sim.play.game import State

    state = State.from_record(recs[0])  # the step API plays the record's size: the same deal again
    assert state.over and state.game.size.players == 5
    assert state.result() == recs[0]["result"]
    bad = dict(recs[0], hands=recs[0]["hands"][:4])
    with pytest.raises(REC.RecordError, match="hands"):
        REC.validate(bad)


def test_the_referee_gives_the_level_table_per_player():
    """referee.friends_level_change (9.11): the short team's extra level, each winner from his own
    level, the next landlord the first seat after the landlord on the winning side; errors by field."""
    alone = referee.friends_level_change(0, ["2"] * 5, [0])
    assert alone["winner"] == "landlord's team" and alone["levels"] == 4  # 3 on row 0, +1: alone
    assert alone["levels_after"] == [4, 0, 0, 0, 0] and alone["next_landlord"] == 0
    pair = referee.friends_level_change(0, ["2", "2", "5", "2", "2"], [0, 2])
    assert pair["levels"] == 3 and pair["levels_after"] == [3, 0, 6, 0, 0] and pair["next_landlord"] == 2
    lost = referee.friends_level_change(125, [0] * 5, [1, 3], landlord=3)
    assert lost["winner"] == "opponents" and lost["levels_after"] == [1, 0, 1, 0, 1]
    assert lost["next_landlord"] == 4 and lost["row"] == "120-155"
    for args, words in [((0, ["2"] * 5, [0], None, None, game(6)), "expected 6 levels"), ((0, "2", [0]), "levels: expected a level"),
                        ((0, ["2"] * 5, [0, 1, 2]), "1 to 2 distinct seats"),
                        ((0, ["2"] * 5, [1], 0), "landlord: seat 0 is not in")]:
        with pytest.raises(referee.RefereeError, match=words):
            referee.friends_level_change(*args)
