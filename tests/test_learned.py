"""The learned player: its features, its model files, its training, and how it plays."""

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from tractor_sim.cli import main
from tractor_sim.core import bid_features as A
from tractor_sim.core import burial_features as B
from tractor_sim.core import call_features as Q
from tractor_sim.core import declare_features as E
from tractor_sim.core import features as F
from tractor_sim.core.kernels import view as V
from tractor_sim.play import learned
from tractor_sim.play.game import State
from tractor_sim.rules import cards as K
from tractor_sim.runs import runner
from tractor_sim.runs import train as T

N = len(F.NAMES)
ND = len(E.DECLARE_NAMES)
NB = len(B.BURIAL_NAMES)
NA = len(A.BID_NAMES)
NQ = len(Q.CALL_NAMES)
AUCTION = {"declaring": "auction"}


def _model(path, lead=None, follow=None, declare=None, discard=None, bid=None, call=None, **changes):
    learned.write(path, {"lead": lead if lead is not None else [0.0] * N,
                         "follow": follow if follow is not None else [0.0] * N,
                         "declare": declare if declare is not None else [0.0] * ND,
                         "discard": discard if discard is not None else [0.0] * NB,
                         "bid": bid if bid is not None else [0.0] * NA,
                         "call": call if call is not None else [0.0] * NQ}, {"seed": 0})
    if changes:
        data = json.loads(Path(path).read_text())
        data.update(changes)
        Path(path).write_text(json.dumps(data))
    return str(path)


def _counts(play):
    return np.asarray(K.to_counts(K.parse_cards(play)), dtype=np.int64)


def _decisions(decision, seed, deals, rules=None):
    """(state, seat, view) at every ``decision`` of ``deals`` deals played by expert, in order."""
    for deal in range(deals):
        state = State.new(seed=seed, deal_id=deal, rules=rules)
        while not state.over:
            turn = state.to_act()
            if turn.decision == decision:
                yield state, turn.seat, state.observation(turn.seat)
            state.apply(state.answer_of("expert"))


def test_the_features_say_what_the_engine_does_with_each_follow():
    """At follows of a few deals, for every legal follow: F_WINS is whether the engine then has the seat
    winning the trick, the points and trumps are the cards', F_FEED/F_GIFT split the points by who wins."""
    checked = 0
    for state, me, view in _decisions("follow", 3, 4):
        for play in state.legal(limit=40):
            counts = _counts(play)
            out = np.zeros(N)
            before = view.copy()
            sit = np.zeros(F.SITUATION_CELLS, dtype=np.int64)
            F.situation(view, sit)
            F.candidate_features(view, np.zeros(256), sit, counts, False, out)
            assert (view == before).all(), "the features leave the view as they found it"
            after = state.clone().apply(list(play))
            seen = after.observation(me)
            if seen[V.V_META, V.M_NPLAYED] == 0:  # the trick is over: its winner
                winner = seen[V.V_TRICK_WINNER, seen[V.V_META, V.M_TRICKS_DONE] - 1]
            else:
                winner = seen[V.V_META, V.M_WINNING]
            assert out[F.F_WINS] == (winner == me), (play, winner)
            pts = K.points(K.parse_cards(play))
            assert out[F.F_POINTS] == pts / F.TENS
            trumps = sum(1 for c in K.parse_cards(play) if view[V.V_EFF, c] == 4)
            assert out[F.F_TRUMPS] == trumps
            if not out[F.F_WINS] and pts:
                partner = view[V.V_META, V.M_WINNING] == (me + 2) % 4
                assert (out[F.F_FEED], out[F.F_GIFT]) == ((pts / F.TENS, 0) if partner else (0, pts / F.TENS))
            checked += 1
    assert checked > 300


def test_all_weights_zero_is_the_expert_exactly(tmp_path):
    """The expert's answer is the first candidate and ties keep it: every column of every deal agrees."""
    zero = _model(tmp_path / "zero.json")
    a, _ = runner.simulate([({"policy": "learned", "model": zero, "name": "z"}, "basic")], n=60, seed=4, chunk_size=30)
    b, _ = runner.simulate([("expert", "basic")], n=60, seed=4, chunk_size=30)
    cols = [c for c in a.columns if c not in ("policy0", "policy1", "matchup")]
    a, b = (d.sort_values(["half", "deal_id"]).reset_index(drop=True) for d in (a, b))
    assert (a[cols].to_numpy() == b[cols].to_numpy()).all()


def test_weights_change_the_play_and_stay_legal(tmp_path):
    """A model that prizes trumps plays other cards than expert, and every play passes the engine's check."""
    w = [0.0] * N
    w[F.NAMES.index("trumps")] = 5.0
    odd = _model(tmp_path / "trumps.json", lead=w, follow=w)
    a, _ = runner.simulate([({"policy": "learned", "model": odd, "name": "t"}, "basic")], n=40, seed=4, chunk_size=40)
    b, _ = runner.simulate([("expert", "basic")], n=40, seed=4, chunk_size=40)
    assert len(a) == 80 and (a["opp_points"].to_numpy() != b["opp_points"].to_numpy()).any()


def test_declaration_and_burial_weights_change_them_and_stay_legal(tmp_path):
    """A model that never declares (a declaration scores -5, the pass 0) passes wherever the expert declares;
    one that shuns burying points buries at most the expert's, fewer in some deals (the search's burials take
    value out of the kitty first); the engine accepts every answer of both in whole deals."""
    d = [0.0] * ND
    d[E.DECLARE_NAMES.index("declare")] = -5.0
    b = [0.0] * NB
    b[B.BURIAL_NAMES.index("points")] = -5.0
    never = {"policy": "learned", "model": _model(tmp_path / "never.json", declare=d), "name": "n"}
    bury = {"policy": "learned", "model": _model(tmp_path / "bury.json", discard=b), "name": "p"}
    declared = [(state.answer_of("expert"), state.answer_of(never)) for state, _, _ in _decisions("declare", 4, 4)]
    assert any(e for e, _ in declared) and not any(n for _, n in declared)
    d[E.DECLARE_NAMES.index("declare")] = 5.0  # a declaration whenever one is allowed, and a legal one
    eager = {"policy": "learned", "model": _model(tmp_path / "eager.json", declare=d), "name": "e"}
    for state, _, _ in _decisions("declare", 4, 4):
        answer = state.answer_of(eager)
        assert answer and state.is_legal(answer)
    buried = [(K.points(K.parse_cards(state.answer_of("expert"))), K.points(K.parse_cards(state.answer_of(bury))))
              for state, _, _ in _decisions("discard", 4, 12)]
    assert all(p <= e for e, p in buried) and any(p < e for e, p in buried)
    for model in (never, eager, bury):
        deals, _ = runner.simulate([(model, "basic")], n=20, seed=4, chunk_size=20)
        assert len(deals) == 40


def test_a_version_1_model_still_plays_with_the_experts_declaration_and_burial(tmp_path):
    """A model file of the lead and follow only (version 1, before the declaration and the burial were learned)
    loads with weights 0 for those, and plays as the same weights in a version 2 file."""
    lead = [0.0] * N
    lead[F.NAMES.index("trumps")] = 0.5
    old = tmp_path / "v1.json"
    old.write_text(json.dumps({"format": "tractor-sim model", "version": 1, "game": [4, 2, "tractor"],
                               "features": list(F.NAMES), "weights": {"lead": lead, "follow": [0.0] * N},
                               "training": {"seed": 1}}))
    w = learned.load(str(old))
    assert set(w) == {"declare", "discard", "lead", "follow", "bid", "call"} and w["lead"]["trumps"] == 0.5
    assert not any(w["declare"].values()) and not any(w["discard"].values())
    new = _model(tmp_path / "v2.json", lead=lead)
    a, _ = runner.simulate([({"policy": "learned", "model": str(old), "name": "m"}, "basic")], n=20, seed=6,
                           chunk_size=20)
    b, _ = runner.simulate([({"policy": "learned", "model": new, "name": "m"}, "basic")], n=20, seed=6, chunk_size=20)
    assert a.equals(b)
    old.write_text(old.read_text().replace('"follow"', '"declare"'))
    with pytest.raises(learned.ModelError, match="'weights' must hold a list for each of lead, follow"):
        learned.load(str(old))


def test_a_version_2_model_still_plays_with_the_experts_bid(tmp_path):
    """A model file without bid weights (version 2, before the bid was learned) loads with bid weights 0 and
    plays the expert's bids under the auction, as the same weights in a version 3 file."""
    lead = [0.0] * N
    lead[F.NAMES.index("trumps")] = 0.5
    new = _model(tmp_path / "v3.json", lead=lead)
    data = json.loads(Path(new).read_text())
    data["version"] = 2
    for d in ("bid", "call"):
        del data["features"][d], data["weights"][d]
    old = tmp_path / "v2.json"
    old.write_text(json.dumps(data))
    w = learned.load(str(old))
    assert w["lead"]["trumps"] == 0.5 and set(w["bid"]) == set(A.BID_NAMES) and not any(w["bid"].values())
    a, _ = runner.simulate([({"policy": "learned", "model": str(old), "name": "m"}, "basic")], n=20, seed=6,
                           chunk_size=20, rules=AUCTION)
    b, _ = runner.simulate([({"policy": "learned", "model": new, "name": "m"}, "basic")], n=20, seed=6, chunk_size=20,
                           rules=AUCTION)
    assert a.equals(b)


def test_all_bid_weights_zero_bids_as_the_expert_exactly(tmp_path):
    """Under the auction the expert's answer is the first candidate of every step and ties keep it: every
    column of every deal agrees, the bids included."""
    zero = _model(tmp_path / "zero.json")
    a, _ = runner.simulate([({"policy": "learned", "model": zero, "name": "z"}, "basic")], n=40, seed=4,
                           chunk_size=40, rules=AUCTION)
    b, _ = runner.simulate([("expert", "basic")], n=40, seed=4, chunk_size=40, rules=AUCTION)
    cols = [c for c in a.columns if c not in ("policy0", "policy1", "matchup")]
    a, b = (d.sort_values(["half", "deal_id"]).reset_index(drop=True) for d in (a, b))
    assert "bid0" in cols and (a[cols].to_numpy() == b[cols].to_numpy()).all()


def test_bid_weights_change_the_bids_and_stay_legal(tmp_path):
    """A model that prizes a high bid bids MAX_BID at every ask; one that prizes the highest card shown and
    the longest trump suit answers the show and the trump legally; the engine accepts them in whole deals."""
    w = [0.0] * NA
    w[A.BID_NAMES.index("bid")] = 5.0
    w[A.BID_NAMES.index("show_high")] = 1.0
    w[A.BID_NAMES.index("suit_trumps")] = 1.0
    high = {"policy": "learned", "model": _model(tmp_path / "high.json", bid=w), "name": "h"}
    steps = set()
    for state, _, _ in _decisions("bid", 4, 6, AUCTION):
        turn = state.to_act()
        answer = state.answer_of(high)
        assert state.is_legal(answer), (turn.step, answer)
        steps.add(turn.step)
        if turn.step == "bid":
            assert answer == V.MAX_BID
    assert steps == {"bid", "show", "trump"}
    deals, _ = runner.simulate([(high, "expert")], n=20, seed=4, chunk_size=20, rules=AUCTION)
    assert len(deals) == 40 and (deals.loc[deals["policy0"] == "h", "bid0"] == V.MAX_BID).all()


def test_the_bid_features_say_what_each_answer_does():
    """At the auction's steps of a few deals: a bid's level and pass flag are the bid's, whether it wins is the
    engine's rule (higher, a tie the dealer's pair); a shown card's height is its key; a suit's trumps are the
    jokers, the trump rank and the suit."""
    from tractor_sim.core.kernels.declare import show_key

    checked = set()
    for state, me, view in _decisions("bid", 7, 4, AUCTION):
        step = view[V.V_META, V.M_BID_STEP]
        out = np.zeros(NA)
        for cand in range(0, 201, 5) if step == V.BID_STEP_BID else range(54) if step == V.BID_STEP_SHOW \
                else range(4):
            row = np.zeros(54, dtype=np.int64)
            if step == V.BID_STEP_SHOW:
                if not view[V.V_HAND, cand]:
                    continue
                row[cand] = 1
            else:
                row[0] = cand
            A.bid_features(view, row, False, out)
            if step == V.BID_STEP_BID:
                assert out[A.A_BID] == cand / V.MAX_BID and out[A.A_PASS] == (cand == 0)
                other = view[V.V_META, V.M_BID0 + 1 - me % 2]
                if other >= 0:
                    dealer = view[V.V_META, V.M_DEALER] % 2 == me % 2
                    assert out[A.A_BID_WINS] == (cand > other or (cand == other and dealer))
            elif step == V.BID_STEP_SHOW:
                assert out[A.A_SHOW_HIGH] == show_key(cand) / 14
            else:
                rank = view[V.V_META, V.M_TRUMP_RANK]
                hand = view[V.V_HAND]
                n = hand[52:].sum() + sum(hand[c] for c in range(52) if c % 13 == rank or c // 13 == cand)
                assert out[A.A_SUIT_TRUMPS] == pytest.approx(n / hand.sum())
            assert not out[A.A_BASE]
            checked.add(int(step))
    assert checked == {V.BID_STEP_BID, V.BID_STEP_SHOW, V.BID_STEP_TRUMP}


def _trumps_if(hand, suit, rank):
    """Cards of ``hand`` (counts) that are trumps with ``suit`` (None: no trump suit) and ``rank``: a
    reference of its own (standard rules: no rank trumps without a trump suit)."""
    n = 0
    for c, k in enumerate(hand):
        if c >= 52 or (suit is not None and (c % 13 == rank or c // 13 == suit)):
            n += k
    return n


def test_the_declaration_features_say_what_each_declaration_does():
    """At the declarations of a few deals, for the pass and every legal declaration: the strength is the share
    of the hand that would be trumps, the override flags say whose declaration it overrides."""
    checked = 0
    for state, me, view in _decisions("declare", 11, 6):
        hand = view[V.V_HAND]
        rank = view[V.V_META, V.M_TRUMP_RANK]
        for option in state.legal():
            cand = np.zeros(len(hand), dtype=np.int64)
            if option:
                cards = K.parse_cards(option)
                card = cards[0]
                cand[0] = 3 if card >= 52 else len(cards)
                cand[1] = card
            out = np.zeros(ND)
            E.declare_features(view, cand, False, out)
            if not option:
                assert not out.any()
                continue
            suit = None if card >= 52 else card // 13
            assert out[E.E_STRENGTH] == pytest.approx(_trumps_if(hand, suit, rank) / hand.sum())
            cur = view[V.V_META, V.M_DECL_SEAT]
            standing = view[V.V_META, V.M_DECL_KIND] != 0
            assert out[E.E_OVER_SELF] == (standing and cur == me)
            assert out[E.E_OVER_PARTNER] == (standing and cur == (me + 2) % 4)
            assert out[E.E_OVER_OPPONENT] == (standing and cur % 2 != me % 2)
            assert out[E.E_JOKERS] == (card >= 52)
            checked += 1
    assert checked > 20


def test_the_burial_features_say_what_each_burial_buries():
    """At the burials of a few deals, for the expert's burial and random others: points, trumps, pairs broken
    and suits emptied, against a count of their own."""
    rng = np.random.default_rng(3)
    checked = 0
    for state, _, view in _decisions("discard", 12, 8):
        hand = view[V.V_HAND].copy()
        cards = np.repeat(np.arange(len(hand)), hand)
        options = [_counts(state.answer_of("expert"))]
        for _ in range(20):
            options.append(np.bincount(rng.choice(cards, 8, replace=False), minlength=len(hand)))
        for bur in options:
            out = np.zeros(NB)
            B.burial_features(view, bur, False, out)
            ids = np.repeat(np.arange(len(hand)), bur)
            trump = view[V.V_EFF] == 4
            assert out[B.B_POINTS] == sum(K.points([int(c)]) for c in ids) / 10
            assert out[B.B_TRUMPS] == bur[trump].sum()
            assert out[B.B_BROKEN] == ((hand >= 2) & (bur % 2 == 1)).sum()
            assert out[B.B_PAIRS] == (bur // 2).sum()
            kept = hand - bur
            voids = sum(1 for s in range(4) if hand[view[V.V_EFF] == s].sum() and not kept[view[V.V_EFF] == s].sum())
            assert out[B.B_VOIDS] == voids
            checked += 1
    assert checked > 100


def test_the_burial_candidates_are_the_swaps_that_take_the_most_value_out_first():
    """kernels.candidates.burial_candidates (on the stack, as the learned burial needs) against a reference of
    its own: the base, then every swap of a buried card for a kept one by the keep value moved out of the
    kitty (points, then trump, then position), ties by the buried card then the kept card."""
    from tractor_sim.core.kernels import candidates as KC

    checked = 0
    for state, _, view in _decisions("discard", 13, 6):
        hand = view[V.V_HAND].copy()
        base = _counts(state.answer_of("expert"))

        def keep(c):
            trump = int(view[V.V_EFF, c] == 4)
            return (K.points([c]) * KC.KEEP_RADIX + trump) * KC.KEEP_RADIX + int(view[V.V_POS, c])

        swaps = sorted((-(keep(b) - keep(k)), b, k) for b in range(len(hand)) if base[b]
                       for k in range(len(hand)) if k != b and hand[k] > base[k])
        for limit in (5, 32):
            cands = np.zeros((limit, len(hand)), dtype=np.int64)
            cands[0] = base
            n = KC.burial_candidates(hand, np.ascontiguousarray(view[V.V_EFF:]), cands, 1, limit)
            want = [base]
            for _, b, k in swaps[:limit - 1]:
                row = base.copy()
                row[b] -= 1
                row[k] += 1
                want.append(row)
            assert n == len(want) and (cands[:n] == np.array(want)).all()
            checked += 1
    assert checked == 12


# The shipped model's weights when the learned player's plays were pinned (issue 30): fixed here so that
# a retrained model does not move the pin.
PINNED_LEAD = [
    0.017856373, 0.101441496, -0.022361962, -0.06971452, 0.011004178, -0.057304497, -0.085247706, 0.032013415,
    -0.03515204, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.076886282, 0.086378448, 0.001729709, 0.0, -0.00480094,
    -0.00439412, 0.014870944, -0.011720513, -0.002431974, 0.0,
]
PINNED_FOLLOW = [
    0.002629388, 0.0, 0.047919153, -0.031004688, -0.055771636, -0.053761999, -0.066643784, 0.054263406,
    -0.044711254, 0.068048295, 0.003046539, 0.022437992, 0.202495439, 0.039872108, -0.168878949, -0.031004688,
    -0.121794641, 0.013181469, -0.000190546, 0.015888497, 0.0, 0.032279356, 0.0, 0.0, 0.0, 0.0, -0.068735427,
]


def test_the_learned_plays_are_pinned(tmp_path):
    """Deals of the learned player with fixed weights, digests recorded before its lead and follow were made
    faster (issue 30): a change to the candidates, the features or the scoring that changes one play of
    these 2,000 deals changes them."""
    pinned = _model(tmp_path / "pinned.json", lead=PINNED_LEAD, follow=PINNED_FOLLOW)
    cols = ["half", "deal_id", "trick_points", "kitty_points", "opp_points", "gain_team", "gain", "tricks0",
            "tricks1", "tricks2", "tricks3", "last_winner"]
    got = []
    for opponent, seed in (("expert", 7), ("basic", 8)):
        a, _ = runner.simulate([({"policy": "learned", "model": pinned, "name": "p"}, opponent)], n=500, seed=seed,
                               chunk_size=1000)
        a = a.sort_values(["half", "deal_id"])
        got.append(hashlib.sha256(np.ascontiguousarray(a[cols].to_numpy(dtype=np.int64)).tobytes()).hexdigest()[:16])
    assert got == ["c64ded035d3f5d64", "3cfc201d3778890c"]


@pytest.mark.parametrize("change, message", [
    ({"version": 99}, "model version 99; this build reads versions 1, 2, 3, 4"),
    ({"version": 5}, "model version 5; this build reads versions 1, 2, 3, 4"),
    ({"format": "other"}, "not a tractor-sim model file"),
    ({"game": [6, 3, "tractor"]}, "a model of the game [6, 3, 'tractor'], not of this game [4, 2, 'tractor']"),
    ({"features": ["base"]}, "'features' must hold a list for each of declare, discard, lead, follow, bid, call"),
    ({"features": {"declare": ["base"], "discard": list(B.BURIAL_NAMES), "lead": list(F.NAMES),
                   "follow": list(F.NAMES), "bid": list(A.BID_NAMES), "call": list(Q.CALL_NAMES)}},
     "its declare features ['base'] are not"),
    ({"features": {"declare": list(E.DECLARE_NAMES), "discard": list(B.BURIAL_NAMES), "lead": list(F.NAMES),
                   "follow": list(F.NAMES), "bid": ["base"], "call": list(Q.CALL_NAMES)}},
     "its bid features ['base'] are not this build's"),
    ({"features": {"declare": list(E.DECLARE_NAMES), "discard": list(B.BURIAL_NAMES), "lead": list(F.NAMES),
                   "follow": list(F.NAMES), "bid": list(A.BID_NAMES), "call": ["base"]}},
     "its call features ['base'] are not this build's"),
    ({"weights": {"lead": []}}, "'weights' must hold a list for each of declare, discard, lead, follow, bid, call"),
    ({"weights": {"declare": [0.0] * ND, "discard": [0.0] * NB, "lead": [0.0] * N, "follow": [float("nan")] * N,
                  "bid": [0.0] * NA, "call": [0.0] * NQ}}, "field 'weights'['follow'][0] of the model file is NaN"),
    ({"weights": {"declare": [0.0] * ND, "discard": ["x"] * NB, "lead": [0.0] * N, "follow": [0.0] * N,
                  "bid": [0.0] * NA, "call": [0.0] * NQ}}, "weights.discard must be"),
    ({"weights": {"declare": [0.0] * ND, "discard": [0.0] * NB, "lead": [0.0] * N, "follow": [0.0] * N,
                  "bid": [0.0] * (NA - 1), "call": [0.0] * NQ}}, "weights.bid must be"),
    ({"weights": {"declare": [0.0] * ND, "discard": [0.0] * NB, "lead": [0.0] * N, "follow": [0.0] * N,
                  "bid": [0.0] * NA, "call": [1.0] * (NQ + 1)}}, "weights.call must be"),
    ({"version": 1}, "its features {'declare': ["),  # a version 1 file has one list, the plays' features
])
def test_a_model_file_of_another_kind_is_refused_by_name(tmp_path, change, message):
    path = _model(tmp_path / "m.json", **change)
    with pytest.raises(learned.ModelError, match=r"m\.json: ") as e:
        learned.load(path)
    assert message in str(e.value)
    exp = tmp_path / "e.toml"
    exp.write_text(f'name = "e"\ncount = 2\n[[matchup]]\na = {{policy = "learned", model = "{path}"}}\nb = "expert"\n')
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "run"), "--quiet"])
    assert res.exit_code == 2 and message in res.output and len(res.output.strip().splitlines()) == 1


def test_damaged_or_missing_model_files_are_named(tmp_path):
    for name, content in (("empty.json", b""), ("cut.json", b'{"format": "tractor-sim model", "ver'),
                          ("bytes.json", b"\xff\xfe\x00")):
        (tmp_path / name).write_bytes(content)
        with pytest.raises(learned.ModelError, match=name):
            learned.load(str(tmp_path / name))
    with pytest.raises(learned.ModelError, match="no such model file"):
        learned.load(str(tmp_path / "missing.json"))


def test_another_game_size_refuses_the_shipped_model():
    package = SimpleNamespace(__name__="tractor_sim.core", size=SimpleNamespace(SEATS=6, DECKS=3,
                                                                                 FINDING_FRIENDS=False))
    with pytest.raises(learned.ModelError, match="train one for this size"):
        learned.load("learned-4x2.json", package)
    with pytest.raises(learned.ModelError, match="no learned model is shipped for 6 players, 3 decks, tractor "
                                                 r"\(shipped: learned-4x2.json, learned-5x2f.json\); train one"):
        learned.load("learned-{game}.json", package)
    assert learned.path_of("learned-{game}.json") == learned.MODELS / "learned-4x2.json"


def test_the_shipped_model_is_the_default_and_small():
    path = learned.MODELS / "learned-4x2.json"
    assert path.stat().st_size < 100_000
    data = json.loads(path.read_text())
    assert data["training"]["seed"] and data["training"]["fingerprint"]
    from tractor_sim.play import registry as S

    pol = S.resolve_policy("learned")
    weights = learned.load("learned-4x2.json")
    assert pol.param_dict()["follow.wins"] == weights["follow"]["wins"] != 0.0


def test_a_context_names_another_burial_and_the_model_weighs_the_rest():
    """A partial table completed by the learned context (experiments/discard_contexts.toml) buries by its own
    strategy; the model's weights go to the decisions that play the learned strategy."""
    from tractor_sim.play import registry as S

    pol = S.resolve_policy({"policy": "learned", "discard": "keep_points", "name": "k"})
    params = pol.param_dict()
    assert params["follow.wins"] == learned.load("learned-4x2.json")["follow"]["wins"]
    assert not any(k.startswith("discard.") for k in params)
    assert S.resolve_policy("learned").param_dict()["bid.bid_wins"] == learned.load("learned-4x2.json")["bid"][
        "bid_wins"] != 0.0  # the shipped model's bid weights go to the learned bid
    assert not any(k.startswith("bid.") for k in S.resolve_policy({"policy": "learned", "bid": "max"}).param_dict())


def _tiny(tmp_path, name="t.toml", rounds=2):
    f = tmp_path / name
    f.write_text(f'name = "tiny"\nseed = 5\n[train]\nrounds = {rounds}\ndeals = 6\nchunk = 3\nworlds = 2\n'
                 'max_candidates = 4\neval_pairs = 10\n')
    return f


def test_training_is_reproducible_and_resumes(tmp_path):
    """Two trainings of one file (bids from auction deals included) give the same model bytes; a training
    stopped after its first round and run again gives them too; the report and the figure are written."""
    f = _tiny(tmp_path)
    f.write_text(f.read_text() + "auction_deals = 1\n")
    cfg = T.load(f)
    a = T.run(cfg, tmp_path / "a", "test", say=lambda s: None)
    b = T.run(cfg, tmp_path / "b", "test", say=lambda s: None)
    assert a.read_bytes() == b.read_bytes() and any(json.loads(a.read_text())["weights"]["bid"])
    log = (tmp_path / "b" / "rounds.csv").read_text().splitlines()
    (tmp_path / "b" / "rounds.csv").write_text("\n".join(log[:2]) + "\n")  # as if stopped after round 1
    (tmp_path / "b" / "data" / "round-001.npz").unlink()
    b.unlink()
    assert T.run(cfg, tmp_path / "b", "test", say=lambda s: None).read_bytes() == a.read_bytes()
    assert (tmp_path / "b" / "figures" / "training.png").exists()
    text = (tmp_path / "a" / "report.md").read_text()
    assert "Final model against expert" in text and "| 2 | 12 |" in text
    other = T.load(_tiny(tmp_path, "u.toml", rounds=3))
    with pytest.raises(T.TrainError, match="holds a training of other settings"):
        T.run(other, tmp_path / "a", "test", say=lambda s: None)


def test_the_training_rows_value_the_teachers_candidates(tmp_path):
    """Every decision's rows start with the base answer (gain 0, the base feature 1) and carry the
    candidates' features; the gains are paired differences in levels."""
    cfg = T.load(_tiny(tmp_path))
    rows = T.play_round(cfg, 0)
    SPL, feats = T._columns()
    first = rows[:, SPL.TR_CANDIDATE] == 0
    assert first.any() and (rows[first, SPL.TR_GAIN] == 0).all()
    assert (rows[first, SPL.TR_FEATURES + F.F_BASE] == 1).all() and (rows[~first, SPL.TR_FEATURES + F.F_BASE] == 0).all()
    assert set(np.unique(rows[:, SPL.TR_DECISION])) == {V.DECLARE, V.DISCARD, V.LEAD, V.FOLLOW}
    for code, width in ((V.DECLARE, ND), (V.DISCARD, NB)):  # each decision's own features, the rest 0
        mine = rows[rows[:, SPL.TR_DECISION] == code]
        assert not mine[:, SPL.TR_FEATURES + width:].any() and mine[:, SPL.TR_FEATURES + 1:SPL.TR_FEATURES + width].any()
    assert np.abs(rows[:, SPL.TR_GAIN]).max() <= 2 * 6  # a level change is at most 6 per side


def test_the_auction_deals_add_bid_rows_only(tmp_path):
    """With auction_deals the round's rows are the standard deals' (the same rows) and then bid rows, each
    bid decision's base answer first (gain 0, its base feature 1), the bid features only."""
    plain = T.load(_tiny(tmp_path))
    f = _tiny(tmp_path, "a.toml")
    f.write_text(f.read_text() + "auction_deals = 2\n")
    cfg = T.load(f)
    assert cfg.fingerprint() != plain.fingerprint()
    rows = T.play_round(cfg, 0)
    SPL, _ = T._columns()
    before = T.play_round(plain, 0)
    assert (rows[:len(before)] == before).all()
    bids = rows[len(before):]
    assert len(bids) and (bids[:, SPL.TR_DECISION] == V.BID).all()
    first = bids[:, SPL.TR_CANDIDATE] == 0
    assert first[0] and (bids[first, SPL.TR_GAIN] == 0).all()
    assert (bids[first, SPL.TR_FEATURES + A.A_BASE] == 1).all() and not bids[~first, SPL.TR_FEATURES + A.A_BASE].any()
    assert not bids[:, SPL.TR_FEATURES + NA:].any()
    weights = T.fit(rows, cfg.ridge)
    for d in ("declare", "discard", "lead", "follow"):
        assert (weights[d] == T.fit(before, cfg.ridge)[d]).all()
    assert weights["bid"].any()


def test_training_rows_that_outgrow_their_buffer_are_named(tmp_path):
    """The teacher writes its rows only while they fit: past its buffer the kernel stops with an error of its
    own, which the chunk names, and writes nothing out of bounds."""
    from tractor_sim.play import chunks
    from tractor_sim.play.chunks import ChunkSpec
    from tractor_sim.play.game import Game

    game = Game.of((4, 2, "tractor"))
    teacher = T.load(_tiny(tmp_path)).teacher()
    spec = ChunkSpec("t", (teacher, teacher), ("a", "b"), 0, "fixed", 0, 1, 5, {})
    pols, params, fns = game.resolve(spec.policies)
    M, D, SPL = game.kernels.match, game.kernels.deal, game.kernel("search_play")
    err = np.zeros(D.ERR_SIZE, dtype=np.int64)
    records = np.zeros((3 + 1, SPL.TR_FIELDS))  # room for 3 rows, and one row that must stay untouched
    records[-1] = -1.0
    model_fns, model_params = chunks._models(pols, params, fns)
    n = SPL.play_chunk_search(M.MODE_FIXED, np.uint64(spec.seed), 0, 1, np.array(spec.levels, dtype=np.int64), 0,
                              game.encoded, params, fns, np.empty((1, M.DEAL_COLS), np.int64),
                              np.empty((1, M.MATCH_COLS), np.int64), err, np.zeros((1, D.LOG_COLS), np.int64), -1,
                              np.array([p.search.row() for p in pols]), np.zeros(SPL.N_COUNTERS, np.int64),
                              records[:3], model_fns, model_params)
    assert n < 0 and err[game.kernels.phases.E_CODE] == SPL.ERR_RECORDS_FULL and (records[-1] == -1.0).all()
    assert chunks.RECORDS_FULL in chunks._describe_error(game, spec, pols, err)


def test_the_train_command_and_its_errors(tmp_path):
    f = _tiny(tmp_path, rounds=1)
    res = CliRunner().invoke(main, ["train", str(f), "--out", str(tmp_path / "run"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "model:" in res.output and (tmp_path / "run" / "model.json").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text('[train]\nrounds = 0\n')
    res = CliRunner().invoke(main, ["train", str(bad)])
    assert res.exit_code == 2 and "[train] 'rounds': 0 is too small" in res.output


def test_search_plays_on_a_learned_base():
    deals, _ = runner.simulate([("search:learned:2", "expert")], n=2, seed=1, chunk_size=2)
    assert len(deals) == 4 and set(deals["policy0"]) == {"search:learned:2", "expert"}
