"""Information hiding: a strategy's view holds its own hand and public facts only.

How the view is built (tractor_sim/core/kernels/view.py): the deal kernel keeps the
real state (all hands, the deck, the kitty) in its own arrays and writes into
each seat's view only that seat's hand, the cards every seat has played, the
current trick, the trump tables, public scalars and, for the starter alone,
the cards he buried.  The strategy is called with that array and nothing else.

The test runs whole deals with the JIT off (the kernel then runs as plain
Python), with probe strategies that copy every view they are shown, and
checks each copy against the true state rebuilt from the replay log: the
card rows equal exactly what the seat may know, and no row of any view ever
equals another player's hand or the kitty.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

PROBE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from tractor_sim.play import registry as S
    from tractor_sim.core.kernels import view as V
    from tractor_sim.play.replay import replay

    SEEN = []
    inner = {d: S.get_strategy(d, n).function for d, n in
             (("declare", "eager"), ("discard", "lowest"), ("lead", "random"), ("follow", "random"))}

    def probe(decision):
        def f(view, params, rng, scratch, out):
            SEEN.append((decision, view.copy()))
            return inner[decision](view, params, rng, scratch, out)
        return f

    for d in ("declare", "discard", "lead", "follow"):
        S.strategy(d, "probe", description="records its views")(probe(d))
    S.policy("probe", declare="probe", discard="probe", lead="probe", follow="probe")

    out = []
    for deal in map(int, sys.argv[1:]):
        SEEN.clear()
        data = replay(seed=5, deal_id=deal, policies=("probe", "probe"))
        out.append({"replay": data, "views": [(d, v.tolist()) for d, v in SEEN]})
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    script = tmp_path_factory.mktemp("probe") / "probe.py"
    script.write_text(PROBE)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    r = subprocess.run([sys.executable, str(script), "0", "1"], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def _counts(cards):
    from tractor_sim.rules.cards import parse_cards, to_counts

    return to_counts(parse_cards(cards))


def test_views_hold_only_what_the_seat_may_know(probed):
    from tractor_sim.core.kernels import view as V

    for deal in probed:
        data = deal["replay"]
        starter = data["starter"]
        hands = {s: _counts(h) for s, h in enumerate(data["hands"])}
        hands[starter] = hands[starter] + _counts(data["kitty"])
        buried = _counts(data["buried"])
        kitty = _counts(data["kitty"])
        played = np.zeros((4, 54), dtype=np.int64)
        plays = [(t, p) for t in data["tricks"] for p in t["plays"]]
        card_views = [(d, np.array(v)) for d, v in deal["views"] if d in ("lead", "follow")]
        assert len(card_views) == len(plays)
        hands[starter] = hands[starter] - buried
        checked = 0
        for (decision, view), (trick, play) in zip(card_views, plays):
            seat = view[V.V_META, V.M_SEAT]
            assert seat == play["seat"]
            assert (view[V.V_HAND] == hands[seat]).all(), "the view's hand is the seat's true hand"
            current = np.zeros((4, 54), dtype=np.int64)
            for p in trick["plays"]:
                if p["seat"] == seat:
                    break
                current[p["seat"]] += _counts(p["cards"])
            for s in range(4):
                assert (view[V.V_PLAYED + s] == played[s]).all(), "played cards are public"
                assert (view[V.V_TRICK + s] == current[s]).all()
            expected_buried = buried if seat == starter else np.zeros(54, dtype=np.int64)
            assert (view[V.V_BURIED] == expected_buried).all(), "only the starter knows the kitty"
            for other in range(4):
                if other != seat and hands[other].sum() >= 3:  # tiny hands match small rows by chance
                    for row in view:
                        assert not (row == hands[other]).all(), "another hand never appears in a view"
            if seat != starter:
                for row in view:
                    assert not (row == kitty).all() and not (row == buried).all()
            cards = _counts(play["cards"])
            hands[seat] = hands[seat] - cards
            played[seat] += cards
            checked += 1
        assert checked >= 40  # every lead and follow of the deal


def test_discard_view_is_the_starters_33_cards(probed):
    from tractor_sim.core.kernels import view as V

    for deal in probed:
        data = deal["replay"]
        discards = [np.array(v) for d, v in deal["views"] if d == "discard"]
        assert len(discards) == 1
        view = discards[0]
        expected = _counts(data["hands"][data["starter"]]) + _counts(data["kitty"])
        assert (view[V.V_HAND] == expected).all()
        assert view[V.V_HAND].sum() == 33
        assert view[V.V_BURIED].sum() == 0


# ---- the random streams reveal nothing of the shuffle ---------------------------------------------
_MASK = (1 << 64) - 1
_GOLDEN, _M1, _M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _mix(z):
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def _unmix(z):
    """The inverse of the SplitMix64 finalizer (each step is a bijection of 64-bit words)."""
    z ^= (z >> 31) ^ (z >> 62)
    z = (z * pow(_M2, -1, 1 << 64)) & _MASK
    z ^= (z >> 27) ^ (z >> 54)
    z = (z * pow(_M1, -1, 1 << 64)) & _MASK
    return z ^ (z >> 30) ^ (z >> 60)


def _splitmix_stream_key(seed, a, b, c):
    """The derivation used before SipHash: the finalizer chained over the key's parts."""
    k = _mix((seed + _GOLDEN) & _MASK)
    k = _mix(k ^ ((a * _GOLDEN + 1) & _MASK))
    k = _mix(k ^ ((b * _M1 + 2) & _MASK))
    return _mix(k ^ ((c * _M2 + 3) & _MASK))


def _attack(seat_state, seat):
    """What a strategy holding its stream's first state would compute for the shuffle's state, if the
    derivation were the chained finalizer: undo the last step, redo it with the shuffle's purpose."""
    from tractor_sim.core.kernels.deal import P_SEAT, P_SHUFFLE

    inner = _unmix(seat_state) ^ (((P_SEAT + seat) * _M2 + 3) & _MASK)
    return _mix(inner ^ ((P_SHUFFLE * _M2 + 3) & _MASK))


def test_a_seat_stream_does_not_lead_back_to_the_shuffle():
    """The attack recovers the shuffle from every seat on the old derivation (so it is a real attack)
    and from no seat on the current one."""
    import numpy as np
    from tractor_sim.core.kernels.deal import P_SEAT, P_SHUFFLE
    from tractor_sim.core.kernels.rng import stream_key

    seed = 12345
    for deal in range(200):
        for seat in range(4):
            old_seat = _splitmix_stream_key(seed, deal, 0, P_SEAT + seat)
            assert _attack(old_seat, seat) == _splitmix_stream_key(seed, deal, 0, P_SHUFFLE)
            new_seat = int(stream_key(np.uint64(seed), np.int64(deal), np.int64(0), np.int64(P_SEAT + seat)))
            shuffle_state = int(stream_key(np.uint64(seed), np.int64(deal), np.int64(0), np.int64(P_SHUFFLE)))
            assert _attack(new_seat, seat) != shuffle_state


def test_stream_keys_are_siphash_2_4():
    """The published SipHash-2-4 vectors (key 00..0f; messages of 0 and 8 bytes 00..07)."""
    import numpy as np
    from tractor_sim.core.kernels.rng import siphash24

    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert int(siphash24(np.uint64(k0), np.uint64(k1), np.zeros(0, np.int64))) == 0x726FDB47DD0E0E31
    words = np.array([int.from_bytes(bytes(range(8)), "little")], dtype=np.int64)
    assert int(siphash24(np.uint64(k0), np.uint64(k1), words)) == 0x93F5F5799A932462
