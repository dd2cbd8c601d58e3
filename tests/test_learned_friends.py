"""The learned player in Finding Friends: the call's features, its model files, how it calls, its training.

The call's features and the model files are checked at the default tier (the
5-player Finding Friends package's step API is compiled there anyway); playing
the learned policy or training at that size compiles its learned strategies or
its search (20 s and 2 minutes of CPU), so those tests are slow.
"""

import importlib
import json

import numpy as np
import pytest

from tractor_sim.play import learned
from tractor_sim.play.game import Game
from tractor_sim.runs import runner
from tractor_sim.runs import train as T

FF = (5, 2, "friends")
FF_TABLE = {"players": 5, "decks": 2, "teams": "friends"}
POINTS = {3: 5, 8: 10, 11: 10}  # rank index -> points: five, ten, king


def _calls(seed, deals, game=FF):
    """(game, view) at the landlord's call in ``deals`` deals played by expert."""
    g = Game.of(game)
    for deal in range(deals):
        state = g.new_initial_state(seed=seed, deal_id=deal)
        while not state.over:
            turn = state.to_act()
            if turn.decision == "call":
                yield g, state.observation(turn.seat)
            state.apply(state.answer_of("expert"))


def _reference(view, V, card, copy):
    """The call features of one call (card, copy), from the view's hand and burial: a reference of its own."""
    hand, buried = view[V.V_HAND], view[V.V_BURIED]
    rank, trump = view[V.V_META, V.M_TRUMP_RANK], view[V.V_META, V.M_TRUMP_SUIT]
    suit, r = divmod(card, 13)
    mine, others = int(hand[card]), 2 - int(hand[card]) - int(buried[card])
    length = sum(int(hand[suit * 13 + q]) for q in range(13) if q != rank)
    higher = [suit * 13 + q for q in range(r + 1, 13) if q != rank]
    return {"base": 0.0, "height": r / 12, "ace": float(r == 12 and suit != trump), "trump_suit": float(suit == trump),
            "points": POINTS.get(r, 0) / 10, "top": float(all(hand[c] + buried[c] == 2 for c in higher)),
            "mine": mine / 2, "out": others / 2,
            "dead": float(copy > mine + others or (copy <= mine and others == 0)),
            "next": float(copy == mine + 1), "early": float(copy <= mine), "late": max(0, copy - mine - 1) / 2,
            "suit_len": length / 10, "suit_void": float(length == 0), "repeat": 0.0}


def test_the_call_features_say_what_each_call_does():
    """At the calls of a few deals, for every card that may be called and each copy: the features are the
    reference's, computed from the landlord's hand and burial; the base flag is the base's."""
    seen = set()
    for g, view in _calls(3, 6):
        V, Q = g.kernel("view"), _call_features()
        rank = view[V.V_META, V.M_TRUMP_RANK]
        out = np.zeros(Q.N_CALL_FEATURES)
        for card in range(52):
            if card % 13 == rank:
                continue
            for copy in (1, 2):
                row = np.zeros(54, dtype=np.int64)
                row[0], row[1] = card, copy  # one call at 5 players: out[0] the card, out[CALLS] the copy
                Q.call_features(view, row, copy == 2, out)
                want = _reference(view, V, card, copy)
                want["base"] = float(copy == 2)
                assert dict(zip(Q.CALL_NAMES, out)) == pytest.approx(want), (card, copy)
                seen |= {name for name, v in zip(Q.CALL_NAMES, out) if v}
    assert seen >= {"height", "ace", "trump_suit", "points", "top", "mine", "out", "dead", "next", "early", "late",
                    "suit_len", "suit_void"}


def test_the_shipped_finding_friends_model_is_the_learned_policys_there():
    """The learned policy names the model of the game at the table: 5-player Finding Friends plays
    learned-5x2f.json, whose call weights are trained; that file is refused at the 4-player game, and the
    4-player file there, by name."""
    package = Game.of(FF).package
    data = json.loads((learned.MODELS / "learned-5x2f.json").read_text())
    assert data["game"] == [5, 2, "friends"] and data["version"] == learned.VERSION and data["training"]["seed"]
    assert learned.path_of("learned-{game}.json", package) == learned.MODELS / "learned-5x2f.json"
    assert any(learned.load("learned-{game}.json", package)["call"].values())
    with pytest.raises(learned.ModelError, match=r"a model of the game \[5, 2, 'friends'\], not of this game"):
        learned.load("learned-5x2f.json")
    with pytest.raises(learned.ModelError, match=r"a model of the game \[4, 2, 'tractor'\], not of this game "
                                                 r"\[5, 2, 'friends'\]"):
        learned.load("learned-4x2.json", package)


def test_a_version_3_model_has_the_experts_call(tmp_path):
    """A model file before the call was learned (version 3: no call weights) loads with call weights 0."""
    package = Game.of(FF).package
    names = learned.feature_names(package)
    path = tmp_path / "v4.json"
    learned.write(path, {d: [0.5] * len(v) for d, v in names.items()}, {"seed": 0}, package)
    data = json.loads(path.read_text())
    data["version"] = 3
    del data["features"]["call"], data["weights"]["call"]
    path.write_text(json.dumps(data))
    w = learned.load(str(path), package)
    assert w["lead"]["base"] == 0.5 and set(w["call"]) == set(names["call"]) and not any(w["call"].values())


def test_training_files_of_another_game_are_checked(tmp_path):
    """The [game] table is an experiment's; calls need Finding Friends, the auction a tractor game."""
    f = tmp_path / "t.toml"
    f.write_text('[game]\nplayers = 5\nteams = "friends"\n[train]\nauction_deals = 1\n')
    with pytest.raises(T.TrainError, match="auction_deals: Finding Friends has no auction"):
        T.load(f)
    f.write_text('[train]\ncall_deals = 1\n')
    with pytest.raises(T.TrainError, match="call_deals: a tractor game has no calls"):
        T.load(f)
    f.write_text('[game]\nplayers = 5\n')
    with pytest.raises(T.TrainError, match="needs an even number of players"):
        T.load(f)
    f.write_text('[game]\nplayers = 5\nteams = "friends"\n[train]\ncall_deals = 3\n')
    cfg = T.load(f)
    assert cfg.game.label == "5/2 friends" and "call" in cfg.teacher()["decisions"]
    assert "call" not in T.load(_write(tmp_path / "s.toml", "[train]\n")).teacher()["decisions"]


def _call_features():
    """core/call_features.py as compiled for 5-player Finding Friends."""
    return importlib.import_module(f"{Game.of(FF).package.__name__}.call_features")


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.slow
def test_all_call_weights_zero_calls_as_the_expert_and_weights_change_the_calls(tmp_path):
    """A model of all zeros plays every column of every deal as expert (the calls included); a model that
    prizes low cards calls lower cards than expert's (its list: the expert's calls, other copies, aces and
    kings), and the engine accepts its calls in whole deals and the step API
    judges them legal."""
    package = Game.of(FF).package
    names = learned.feature_names(package)
    zero, low = tmp_path / "zero.json", tmp_path / "low.json"
    learned.write(zero, {d: [0.0] * len(v) for d, v in names.items()}, {"seed": 0}, package)
    weights = {d: [0.0] * len(v) for d, v in names.items()}
    weights["call"][names["call"].index("height")] = -5.0
    learned.write(low, weights, {"seed": 0}, package)
    a, _ = runner.simulate([({"policy": "learned", "model": str(zero), "name": "z"}, "basic")], n=30, seed=4,
                           chunk_size=30, game=FF_TABLE)
    b, _ = runner.simulate([("expert", "basic")], n=30, seed=4, chunk_size=30, game=FF_TABLE)
    c, _ = runner.simulate([({"policy": "learned", "model": str(low), "name": "z"}, "basic")], n=30, seed=4,
                           chunk_size=30, game=FF_TABLE)
    a, b, c = (d.sort_values(["half", "deal_id"]).reset_index(drop=True) for d in (a, b, c))
    cols = [x for x in a.columns if not x.startswith("policy") and x != "matchup"]
    assert "call0_card" in cols and (a[cols].to_numpy() == b[cols].to_numpy()).all()
    low_rank, expert_rank = c["call0_card"] % 13, b["call0_card"] % 13  # up to the call both play as expert
    assert (low_rank <= expert_rank).all() and (low_rank < expert_rank).sum() >= 10
    policy = {"policy": "learned", "model": str(low), "name": "z"}
    g = Game.of(FF)
    for deal in range(4):
        state = g.new_initial_state(seed=5, deal_id=deal)
        while not state.over:
            turn = state.to_act()
            answer = state.answer_of(policy if turn.decision == "call" else "expert")
            assert state.is_legal(answer), (deal, turn.decision, answer)
            state.apply(answer)


@pytest.mark.slow
def test_a_finding_friends_training_learns_calls_and_is_reproducible(tmp_path):
    """A training at 5 players in Finding Friends: the teacher's rows hold calls (each decision's base
    first, gain 0, base flag 1, the call's features only), the call deals add call rows only, the model is
    of that game with call weights, and two trainings give the same bytes."""
    f = tmp_path / "ff.toml"
    f.write_text('name = "ff"\nseed = 3\n[game]\nplayers = 5\nteams = "friends"\n[train]\nrounds = 1\ndeals = 2\n'
                 'chunk = 2\nworlds = 2\nmax_candidates = 4\neval_pairs = 10\ncall_deals = 6\n')
    cfg = T.load(f)
    rows = T.play_round(cfg, 0)
    SPL, _ = T._columns(cfg.game)
    Q = _call_features()
    calls = rows[rows[:, SPL.TR_DECISION] == 5]
    first = calls[:, SPL.TR_CANDIDATE] == 0
    assert first.sum() >= 6 and (calls[first, SPL.TR_GAIN] == 0).all()
    assert (calls[first, SPL.TR_FEATURES + Q.K_BASE] == 1).all() and not calls[~first, SPL.TR_FEATURES + Q.K_BASE].any()
    assert not calls[:, SPL.TR_FEATURES + Q.N_CALL_FEATURES:].any()
    assert set(np.unique(rows[:, SPL.TR_DECISION])) >= {0, 1, 2, 3, 5}
    a = T.run(cfg, tmp_path / "a", "test", say=lambda s: None)
    b = T.run(cfg, tmp_path / "b", "test", say=lambda s: None)
    model = json.loads(a.read_text())
    assert a.read_bytes() == b.read_bytes() and model["game"] == [5, 2, "friends"] and any(model["weights"]["call"])
    assert "Game: 5/2 friends" in (tmp_path / "a" / "report.md").read_text()
