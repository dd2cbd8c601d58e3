"""Game sizes (tractor_sim.rules.sizes, hence this file's name; the size constants of the compiled package
are tests/test_dims.py's): the sizes of section 9, the generated kernels of each, and where a
user meets them (experiments, runs, the report).  The rules played at those sizes are judged play by
play by tests/test_sized_deals.py."""

import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tests import reference9 as r9
from tests.sized_params import sized
from tractor_sim.play.game import Game
from tractor_sim.play.replay import replay_again
from tractor_sim.runs import engine as E
from tractor_sim.runs import experiment as X
from tractor_sim.rules import sizes
from tractor_sim.play import packages
from tractor_sim.cli import main
from tractor_sim.core.kernels import dims as K
from tractor_sim.runs.runner import simulate
from tractor_sim.rules.sizes import GameSize, GameSizeError

# docs/decisions.md 9.1, the table as written there: (players, decks) -> (kitty, hand)
DECISIONS_TABLE = {
    (4, 2): (8, 25), (4, 3): (6, 39), (4, 4): (8, 52),
    (5, 2): (8, 20), (5, 3): (7, 31), (5, 4): (6, 42),
    (6, 2): (6, 17), (6, 3): (6, 26), (6, 4): (6, 35),
    (7, 2): (10, 14), (7, 3): (8, 22), (7, 4): (6, 30),
    (8, 2): (12, 12), (8, 3): (10, 19), (8, 4): (8, 26),
}


@pytest.mark.parametrize("players,decks", sorted(DECISIONS_TABLE))
def test_sizes_follow_the_decisions_table_and_the_reference(players, decks):
    size = GameSize.of({"players": players, "decks": decks, "teams": "friends"})
    assert (size.kitty, size.hand) == DECISIONS_TABLE[players, decks]
    game = r9.Game(players, decks, "friends")
    assert (size.kitty, size.hand) == (game.kitty, game.hand_size)
    assert size.kitty + players * size.hand == 54 * decks


def test_the_standard_size_is_the_package_itself():
    assert GameSize.of({}) == sizes.STANDARD and sizes.STANDARD.standard
    assert (K.SEATS, K.DECKS, K.KITTY, K.HAND) == (4, 2, 8, 25)
    assert GameSize.of({"players": 6}).decks == 3 and GameSize.of({"players": 5, "teams": "friends"}).decks == 2
    import tractor_sim.core as core

    game = Game.of((4, 2, "tractor"))
    assert game is Game.of() and game.package is core and game.dims is K  # no copy for 4/2


@pytest.mark.parametrize("table,words", [
    ({"players": 5}, ["tractor", "even number of players", "friends"]),
    ({"players": 9}, ["players", "4 to 8", "9"]),
    ({"players": 4, "decks": 5}, ["decks", "2 to 4"]),
    ({"players": True}, ["players"]),
    ({"players": 6, "teams": "pairs"}, ["teams", "tractor, friends", "'pairs'"]),
    ({"player": 6}, ["unknown field", "'player'"]),
])
def test_bad_sizes_are_named(table, words):
    with pytest.raises(GameSizeError) as e:
        GameSize.of(table)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("table", sized(sizes.TABLES, {"four_two_tractor", "six_three_tractor", "five_two_friends"}))
def test_every_named_table_plays(table):
    """Every table of section 9 plays whole deals (their rules, play by play: tests/test_sized_deals.py,
    tests/test_tuples.py, tests/test_friends.py)."""
    deals, _ = simulate([("random", "random")], n=3, seed=4, game={"table": table})  # random: the fewest compiles
    size = GameSize.of({"table": table})
    assert len(deals) == 6 and set(deals["starter"]) <= set(range(size.players))


def test_generated_package_has_the_sizes_constants():
    pkg = packages.compiled_package(GameSize(6, 2))
    assert pkg.__name__ == "tractor_sim_sized_p6d2"
    S = pkg.kernels.dims
    assert (S.SEATS, S.DECKS, S.KITTY, S.HAND, S.TEAMS) == (6, 2, 6, 17, 2)
    assert pkg.kernels.match.play_chunk is not Game.of().kernels.match.play_chunk
    assert packages.compiled_package({"players": 6, "decks": 2}) is pkg  # imported once per process
    # the directory is named by the sources' hash: a changed source makes another (never a stale cache)
    import tractor_sim.core as core

    digest = core.source_digest()
    assert len(digest) == 16 and (packages.cache_root() / digest / pkg.__name__ / "size.py").exists()
    assert (packages.cache_root() / digest / pkg.__name__ / "size.py").read_text() == packages.size_file(GameSize(6, 2))


def test_the_standard_size_file_is_what_the_copier_writes_for_four_two():
    """core/size.py and the copier agree on the 4/2 numbers (a copy differs by its size.py only)."""
    import ast

    import tractor_sim.core as core

    def numbers(text):
        return {t.id: ast.literal_eval(n.value) for n in ast.parse(text).body if isinstance(n, ast.Assign)
                for t in n.targets}

    assert numbers((core.HERE / "size.py").read_text()) == numbers(packages.size_file(GameSize()))


def test_old_digests_are_pruned(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("TRACTOR_SIM_CACHE", str(tmp_path))
    root = packages.cache_root()
    for i, name in enumerate(["a", "b", "c", "d"]):
        (root / name).mkdir(parents=True)
        (root / name / ".used").touch()
        os.utime(root / name / ".used", (1000 + i, 1000 + i))
    packages._prune(root, keep="new")
    assert sorted(p.name for p in root.iterdir()) == ["c", "d"]  # with "new": KEEP = 3 digests


def _records(game, chunk_size, mode="fixed", n=60):
    specs = E.plan_chunks([("basic", "random"), ("expert", "basic")], n=n, seed=11, game=game,
                          chunk_size=chunk_size, mode=mode)
    deals, matches = E.to_frames([E.run_chunk(s) for s in specs])
    return deals, matches


@pytest.mark.parametrize("game", [{"players": 6, "decks": 3}, {"players": 5, "teams": "friends"}],
                         ids=["6p3d", "5p2d-friends"])
def test_sized_deals_do_not_depend_on_the_chunking(game):
    players, size = game["players"], GameSize.of(game)
    a, _ = _records(game, 60)
    b, _ = _records(game, 7)
    assert a.equals(b)
    assert [f"tricks{s}" for s in range(players)] == [c for c in a.columns if c.startswith("tricks")]
    tricks = a[[f"tricks{s}" for s in range(players)]].to_numpy()
    assert (tricks.sum(axis=1) >= 1).all() and (tricks.sum(axis=1) <= size.hand).all()
    assert set(a["starter"]) <= set(range(players)) and a["starter"].nunique() > 2
    assert (a["trick_points"] + 0 <= 100 * size.decks).all()


@pytest.mark.parametrize("game", [{"players": 6, "decks": 3}, {"players": 5, "teams": "friends"}],
                         ids=["6p3d", "5p2d-friends"])
def test_compare_plays_a_game_size_as_the_report_compares_it(game):
    """``compare --players/--decks/--teams``: the pairs of that size, A's advantage as a run's report
    computes it there (per team; in Finding Friends per player sitting for each policy), with --sprt too;
    contexts, which compare teams, are refused by name in Finding Friends."""
    from tractor_sim.report import friends
    from tractor_sim.runs import compare as CMP
    from tractor_sim.stats import summary

    size = GameSize.of(game)
    flags = ["--players", str(size.players), "--decks", str(size.decks), "--teams", size.teams]
    res = CliRunner().invoke(main, ["compare", "expert", "random", "--deals", "30", "--chunk-size", "10", "--seed", "4",
                                    *flags])
    assert res.exit_code == 0, res.output
    got = CMP.compare("expert", "random", max_deals=30, chunk_size=10, seed=4, game=game)
    deals = got["deals"]
    assert got["pairs"] == 30 and set(deals["half"]) == {0, 1} and deals.filter(like="tricks").shape[1] == size.players
    direct = friends.paired(deals, size.players, "expert", "random") if size.teams == "friends" else \
        summary.paired_comparison(deals, "expert", "random")
    assert got["comparison"]["mean"] == direct["mean"] > 0
    assert f"A gains {direct['mean']:+.4f} levels per" in res.output and "30 duplicate deal pairs" in res.output
    assert ("per player" in res.output) == (size.teams == "friends")
    res = CliRunner().invoke(main, ["compare", "expert", "random", "--deals", "60", "--chunk-size", "10",
                                    "--sprt", "0,0.5", *flags])
    assert res.exit_code == 0 and "SPRT" in res.output, res.output
    res = CliRunner().invoke(main, ["compare", "keep_points", "void", "--decision", "discard", "--context", "basic",
                                    "--deals", "4", *flags])
    if size.teams == "friends":
        assert res.exit_code == 2 and "--context: not in Finding Friends" in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1
    else:
        assert res.exit_code == 0 and "context basic:" in res.output, res.output


def test_sized_matches_and_simulate():
    deals, matches = simulate([("basic", "random")], mode="match", n=4, seed=3, chunk_size=2,
                              game={"players": 6, "decks": 3})
    assert len(matches) == 8 and set(matches["winner"]) <= {0, 1}
    last = deals.groupby(["half", "match_id"]).tail(1)
    assert ((last[["level0_after", "level1_after"]].max(axis=1)) >= 12).all()  # a match ends past the Ace


GRAB_POINTS = """
from tractor_sim.core import lib as sl
from tractor_sim.core.kernels.dims import partner_of
from tractor_sim.core.kernels.view import M_SEAT, V_META
from tractor_sim.play.registry import policy, strategy


@strategy("follow", "grab_points_sized", params={"min_points": 15.0}, description="the docs' grab_points (a test plug-in)")
def grab_points(view, params, rng, scratch, out):
    held, need = sl.follow_need(view)
    seat, key = sl.current_best(view)
    partner = partner_of(view[V_META, M_SEAT])
    if seat != partner and sl.trick_points(view) >= params[0]:
        n = sl.winning_follow_given(view, out, key, False, held)
        if n > 0:
            return n
        out[:] = 0
    return sl.cheapest_follow_given(view, out, False, held, need)


policy("grabber_sized", declare="threshold", discard="lowest", lead="top_cards", follow="grab_points_sized")
"""


def test_a_plugin_plays_at_another_size_compiled_for_it(tmp_path):
    """The docs' example plug-in, copied with its imports pointed at the 6-player kernels: it plays,
    bounds-checked as plug-ins are, and the copy sees six seats."""
    plugin = tmp_path / "mine.py"
    plugin.write_text(GRAB_POINTS)
    deals, _ = simulate([("grabber_sized", "basic")], n=40, seed=2, modules=(str(plugin),),
                        game={"players": 6, "decks": 3})
    assert len(deals) == 80
    pkg = packages.compiled_package(GameSize(6, 3))
    copies = [m for name, m in sys.modules.items() if name.startswith(pkg.__name__ + ".plugin_") and "mine" in name]
    assert copies and copies[0].partner_of(4) == 0  # seat 4's partner at six seats (4 + 2) % 6
    from tractor_sim.play.registry.variants import _sized_dispatcher

    assert _sized_dispatcher(pkg, ("follow", "grab_points_sized")).targetoptions.get("boundscheck")


def test_a_plugin_cached_at_one_size_plays_its_own_code_at_another(tmp_path):
    """A plug-in played at 4/2 leaves its machine code in numba's disk cache, named by file,
    function and line. Its copy for 6/3 is another function of the same file: it must compile for
    six seats, not load the 4/2 code (which reads the view of four seats and plays illegally), and
    play the deals that a copy compiled from an empty cache plays."""

    def plugin(folder, tag):
        folder.mkdir()
        path = folder / "mine.py"
        path.write_text(GRAB_POINTS.replace("grab_points_sized", f"grab_points_{tag}")
                        .replace("grabber_sized", f"grabber_{tag}"))
        return str(path)

    def play(path, tag, players):
        deals, _ = simulate([(f"grabber_{tag}", "basic")], n=20, seed=3, modules=(path,),
                            game={"players": players, "decks": players // 2})
        return deals.select_dtypes("number")

    both = plugin(tmp_path / "both", "both")
    play(both, "both", 4)  # the 4/2 code on disk
    assert list((tmp_path / "both" / "__pycache__").glob("mine.grab_points*.nbi"))
    after = play(both, "both", 6)
    fresh = play(plugin(tmp_path / "fresh", "fresh"), "fresh", 6)
    pd.testing.assert_frame_equal(after, fresh)


def test_a_strategy_without_a_source_file_is_refused_at_another_size(tmp_path):
    from tractor_sim.play import registry as S

    gone = tmp_path / "gone.py"
    gone.write_text("from tractor_sim.play.registry import strategy\n"
                    "@strategy('follow', 'gone_follow', description='a test plug-in whose file is deleted')\n"
                    "def gone_follow(view, params, rng, scratch, out):\n    return 0\n")
    S.load_module(str(gone))
    gone.unlink()  # as a strategy defined at the prompt: nothing to copy for another size
    spec = E.plan_chunks([({"policy": "basic", "follow": "gone_follow"}, "random")], n=4, seed=1,
                         game={"players": 6, "decks": 3})[0]
    with pytest.raises(S.StrategyError) as e:
        E.run_chunk(spec)
    assert "gone_follow" in str(e.value) and "no source file" in str(e.value)


SIX = """
name = "six"
seed = 5
count = 40
chunk_size = 20
[game]
players = 6
decks = 3
[[matchup]]
a = "expert"
b = "basic"
"""


def test_an_experiment_with_a_game_table_runs_resumes_and_reports(tmp_path):
    f = tmp_path / "six.toml"
    f.write_text(SIX)
    exp = X.load(f)
    assert exp.game == GameSize(6, 3) and exp.to_dict()["game"] == {"players": 6, "decks": 3, "teams": "tractor"}
    assert "game" not in X.from_dict({"matchup": [{"a": "basic", "b": "random"}]}).to_dict()  # 4/2 as before
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(f), "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    report = (out / "report.md").read_text()
    assert "game: 6 players, 3 decks" in report and "kitty 6, hands of 26" in report
    again = CliRunner().invoke(main, ["run", str(f), "--out", str(out)], catch_exceptions=False)
    assert again.exit_code == 0 and "resuming: 4 of 4 chunks already done" in again.output
    f.write_text(SIX.replace("players = 6", "players = 8"))
    changed = CliRunner().invoke(main, ["run", str(f), "--out", str(out)])
    assert changed.exit_code != 0 and "Traceback" not in changed.output
    # refused before the policies compile for 8 players (runs.store.refuse_another_game)
    assert "game: {'players': 6, 'decks': 3, 'teams': 'tractor'} -> {'players': 8," in changed.output
    check_sized_records(out)


def check_sized_records(out):
    """The run's deals as deal records: valid by the schema at 6/3 (declarations with their count),
    played again identically, every trick judged by the referee at the size as the kernels played it."""
    from tractor_sim.play import record as REC
    from tractor_sim.play import referee

    path = out / "deals.jsonl"
    r = CliRunner().invoke(main, ["export", str(out), "--deals", "0-4", "--out", str(path)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    recs = REC.read(path)
    assert len(recs) == 10 and all(len(rec["hands"]) == 6 and len(rec["hands"][0]) == 26 for rec in recs)
    assert all(1 <= d["count"] <= 3 for rec in recs for d in rec["declarations"])
    shapes = set()
    for i, rec in enumerate(recs):
        assert not REC.differences(rec, replay_again(rec)), i
        for t, tr in enumerate(rec["tricks"], 1):
            got = referee.trick(**referee.check_json(REC.trick_input(rec, t)))
            assert (got["winner"], got["points"]) == (tr["winner"], tr["points"]) and all(got["legal"]), (i, t)
            shapes.add(got["lead"]["kind"])
    assert {"single", "pair"} <= shapes
    bad = dict(recs[0], kitty=recs[0]["kitty"][:5])
    with pytest.raises(REC.RecordError, match="kitty"):
        REC.validate(bad)


def test_the_record_schema_has_every_playable_size():
    """The schema's per-size counts (its allOf) are tractor_sim.rules.sizes' for every playable size."""
    from tractor_sim.play import record as REC

    blocks = {}
    for b in REC.schema()["allOf"][1:]:
        g = b["if"]["properties"]["game"]["properties"]
        blocks[GameSize(g["players"]["const"], g["decks"]["const"], g["teams"]["const"])] = b["then"]["properties"]
    assert set(blocks) == set(sizes.PLAYABLE) - {sizes.STANDARD}
    for size, p in blocks.items():
        assert p["hands"] == {"minItems": size.players, "maxItems": size.players,
                              "items": {"minItems": size.hand, "maxItems": size.hand}}
        assert p["kitty"]["minItems"] == p["kitty"]["maxItems"] == size.kitty == p["buried"]["maxItems"]
        assert p["levels"]["maxItems"] == (size.players if size.teams == "friends" else 2)


@pytest.mark.parametrize("body,words", [
    ("[game]\nplayers = 7\n", ["[game]", "even number of players"]),
    ("game = 6\n", ["'game' must be a table"]),
    ("[game]\nseats = 6\n", ["[game]", "unknown field 'seats'"]),
])
def test_bad_game_tables_are_named(tmp_path, body, words):
    f = tmp_path / "bad.toml"
    f.write_text(body + '[[matchup]]\na = "basic"\nb = "random"\n')
    r = CliRunner().invoke(main, ["run", str(f), "--out", str(tmp_path / "run")])
    assert r.exit_code != 0 and "Traceback" not in r.output
    for w in words:
        assert w in r.output
    assert str(f) in r.output


def test_the_four_player_game_is_untouched_by_the_sizes():
    """The default spec is the 4/2 game and plays the package's own kernels (pinned digests:
    tests/test_variants.py)."""
    spec = E.plan_chunks([("basic", "random")], n=5, seed=1)[0]
    assert spec.game == (4, 2, "tractor")
    res = E.run_chunk(spec)
    assert res.deals.dtype == Game.of().deal_dtype
    assert np.array_equal(res.deals["deal_id"], np.arange(5))


def test_replay_plays_the_same_sized_deal_and_its_command_says_the_size(tmp_path):
    spec = E.plan_chunks([("expert", "basic")], n=6, seed=21, game={"players": 6, "decks": 3}, chunk_size=6)[0]
    played = E.run_chunk(spec).deals
    command = E.replay_command(spec, 4)
    assert "--players 6 --decks 3" in command
    args = command.split()[1:]
    r = CliRunner().invoke(main, args + ["--format", "json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    import json

    data = json.loads(r.output)
    assert data["game"] == {"players": 6, "decks": 3, "teams": "tractor"}
    assert len(data["hands"]) == 6 and all(len(h) == 26 for h in data["hands"]) and len(data["kitty"]) == 6
    row = played[played["deal_id"] == 4][0]
    assert data["result"] == {name: int(row[name]) for name in played.dtype.names}
    page = tmp_path / "x.html"
    shown = CliRunner().invoke(main, args + ["--html", str(page)])
    assert shown.exit_code == 0 and '"players":6' in page.read_text(), shown.output  # the viewer at 6/3


def test_the_common_tables_by_name():
    assert GameSize.of({"table": "six_two_tractor"}) == GameSize(6, 2)
    assert GameSize.of({"table": "five_two_friends"}) == GameSize(5, 2, "friends")
    for name, table in sizes.TABLES.items():
        assert GameSize.of({"table": name}).to_dict() == table
    with pytest.raises(GameSizeError,
                       match="field 'table': expected one of .*, got 'six_three_tractr' .did you mean 'six_three_tractor'"):
        GameSize.of({"table": "six_three_tractr"})
    with pytest.raises(GameSizeError, match="drop players or the table"):
        GameSize.of({"table": "six_two_tractor", "players": 6})
    out = CliRunner().invoke(main, ["rules"], catch_exceptions=False).output
    assert "six_two_tractor: 6 players, 2 decks, tractor teams; kitty 6, hands of 17" in out
    assert "five_two_friends: 5 players, 2 decks, friends teams; kitty 8, hands of 20" in out
