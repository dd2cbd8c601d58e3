"""The match Markov chain (tractor_sim.stats.chain): exact cases, the rule options
through the kernels' level functions, and agreement with simulated matches."""

import math
import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import spsolve

from tractor_sim.rules.options import as_rules
from tractor_sim.runs import runner
from tractor_sim.stats import chain
from test_stats import deals_from_probs, table

MATCH_ENDS = ("pass_ace", "reach_ace")


def test_chain_declarers_always_plus_one():
    win, left = chain.solve([0, 0, 1], [0, 0, 1])
    assert (win[:, :, 0] == 1).all() and (win[:, :, 1] == 0).all()  # the first declarer never loses the deal
    assert left[0, 0, 0] == pytest.approx(13)  # 2 -> past A, one level a deal
    assert left[12, 5, 1] == pytest.approx(13 - 5)
    _, left = chain.solve([0, 0, 1], [0, 0, 1], {"match_end": "reach_ace"})
    assert left[0, 0, 0] == pytest.approx(12)


def test_chain_declarers_always_lose_alternates():
    # every deal 120-155: the opponents gain 1 and take over; from 2-2 the team that does not declare
    # first is always one level ahead, so it passes A first
    win, left = chain.solve([0, 0, 0, 0, 1], [0, 0, 0, 0, 1])
    assert win[0, 0, 0] == 0 and win[0, 0, 1] == 1
    assert left[0, 0, 0] == pytest.approx(25)


def test_chain_geometric_case():
    # both at A: the declarers win the match with the row 40-75, else 80-115 hands over
    a, b = 0.3, 0.6
    win, left = chain.solve([0, 0, a, 1 - a], [0, 0, b, 1 - b])
    w_a = a / (1 - (1 - a) * (1 - b))
    assert win[12, 12, 0] == pytest.approx(w_a)
    assert win[12, 12, 1] == pytest.approx((1 - b) * w_a)


def test_chain_symmetric_is_half():
    p = np.random.default_rng(3).dirichlet(np.ones(9))
    for end in MATCH_ENDS:
        win, _ = chain.solve(p, p, {"match_end": end})
        assert 0.5 * (win[0, 0, 0] + win[0, 0, 1]) == pytest.approx(0.5, abs=1e-12)
        k = 13 if end == "pass_ace" else 12  # reach_ace: both on A cannot happen
        assert win[:k, :k, 0] == pytest.approx(1 - win.transpose(1, 0, 2)[:k, :k, 1])


def test_chain_never_ending_is_an_error():
    with pytest.raises(ValueError):
        chain.solve([0, 0, 0, 1], [0, 0, 0, 1])


def simulate_matches(pa, pb, n, rng, match_end="pass_ace"):
    """Direct Monte Carlo: play n matches from 2-2 with rows drawn from pa / pb."""
    top = 13 if match_end == "pass_ace" else 12
    levels = np.zeros((n, 2), dtype=int)
    decl = rng.integers(0, 2, n)  # 0: A declares
    winner = np.full(n, -1)
    cdf = np.cumsum([pa, pb], axis=1)
    while (live := np.flatnonzero(winner < 0)).size:
        d = decl[live]
        row = (rng.random(live.size)[:, None] > cdf[d]).sum(axis=1)
        keep = row <= 2
        gainer = np.where(keep, d, 1 - d)
        levels[live, gainer] += np.where(keep, 3 - row, np.maximum(row - 3, 0))
        decl[live] = gainer
        done = levels[live, gainer] >= top
        winner[live[done]] = gainer[done]
    return winner


def test_markov_agrees_with_direct_simulation():
    rng = np.random.default_rng(7)
    pa = np.array([0.02, 0.15, 0.35, 0.25, 0.13, 0.06, 0.03, 0.01])
    pb = np.array([0.01, 0.10, 0.30, 0.28, 0.17, 0.09, 0.04, 0.01])
    n_mc = 20000
    for end in MATCH_ENDS:
        win, _ = chain.solve(pa, pb, {"match_end": end})
        exact = 0.5 * (win[0, 0, 0] + win[0, 0, 1])
        mc = (simulate_matches(pa, pb, n_mc, rng, end) == 0).mean()
        assert abs(mc - exact) < 4 * math.sqrt(exact * (1 - exact) / n_mc)

    # estimated from a deals table: agrees with the simulation within the bootstrap + MC uncertainty
    d = deals_from_probs(pa, pb, 4000, rng)
    r = chain.win_probability(d, "A", "B", n_boot=100, seed=1)
    mc = (simulate_matches(pa, pb, n_mc, rng) == 0).mean()
    assert r["low"] < r["win_prob"] < r["high"]
    se = (r["high"] - r["low"]) / (2 * 1.96)
    assert abs(r["win_prob"] - mc) < 4 * math.sqrt(se ** 2 + mc * (1 - mc) / n_mc)
    assert r["table"].shape == (13, 13) and r["table"].loc["2", "2"] == pytest.approx(r["win_prob"])
    again = chain.win_probability(d, "A", "B", n_boot=100, seed=1)
    assert again["low"] == r["low"] and again["high"] == r["high"]  # seeded
    flipped = chain.win_probability(d, "B", "A", n_boot=10)
    assert flipped["win_prob"] == pytest.approx(1 - r["win_prob"])


def test_markov_needs_both_declaring():
    d = table([0, 1, 2], 0)  # only A (team 0) declares
    with pytest.raises(ValueError, match="B declaring"):
        chain.win_probability(d, "A", "B")


def test_must_defend_stops_at_the_defended_levels():
    # every deal p <= 0: the declarers gain 3 and keep; 2 -> 5 -> 8 -> past A in 5 deals,
    # but with ace_5_10_k they stop on 10 and on A: 2 -> 5 -> 8 -> 10 -> K -> A -> past = 6 deals
    _, left = chain.solve([1], [1], {"must_defend": "none"})
    assert left[0, 0, 0] == pytest.approx(5)
    _, left = chain.solve([1], [1], {"must_defend": "ace_5_10_k"})
    assert left[0, 0, 0] == pytest.approx(6)


def test_must_defend_ace_opponents_on_ace_gain_nothing():
    # half the deals p <= 0 (declarers +3), half 160-195 (opponents +2, take over); A declares at K,
    # B is on A. Without must_defend the next deal ends the match. With "ace", A stops on A, and B on A
    # gains nothing as opponents: by hand, 3 deals expected and still 1/2 for A
    p = [0.5, 0, 0, 0, 0, 0.5]
    win, left = chain.solve(p, p, {"must_defend": "none"})
    assert win[11, 12, 0] == pytest.approx(0.5) and left[11, 12, 0] == pytest.approx(1)
    win, left = chain.solve(p, p, {"must_defend": "ace"})
    assert win[11, 12, 0] == pytest.approx(0.5) and left[11, 12, 0] == pytest.approx(3)
    assert win[12, 12, 0] == pytest.approx(2 / 3)


def test_auction_declarer_comes_from_the_bidding():
    # A's team always wins the bidding and always holds with +1: A wins every match
    win, left = chain.solve([0, 0, 1], [0, 0, 1], "russian", a_declares=1.0)
    assert (win[:12, :12, 0] == 1).all() and left[0, 0, 0] == pytest.approx(12)
    # under draw the same rows alternate nothing: the first declarer keeps declaring
    win, _ = chain.solve([0, 0, 1], [0, 0, 1], "standard")
    assert win[0, 0, 0] == 1 and win[0, 0, 1] == 0


def test_resolved_rules_choose_the_match_end():
    rng = np.random.default_rng(2)
    pa = np.array([0.02, 0.15, 0.35, 0.25, 0.13, 0.06, 0.03, 0.01])
    d = deals_from_probs(pa, pa[::-1] / pa.sum(), 2000, rng)
    std = chain.win_probability(d, "A", "B", rules={"preset": "standard"}, n_boot=5)
    rus = chain.win_probability(d, "A", "B", rules={"preset": "russian"}, n_boot=5)
    assert std["match_end"] == "pass_ace" and rus["match_end"] == "reach_ace"
    assert rus["expected_deals"] < std["expected_deals"]
    assert rus["table"].shape == (12, 12)


@pytest.mark.parametrize("preset", ["standard", "russian"])
def test_chain_predicts_simulated_matches(preset):
    # real matches under each preset: the chain from their deals' rows predicts the match length and the
    # winner; under the other preset's rules it misses the length (reach_ace vs pass_ace, auction vs draw)
    from tractor_sim.runs import engine
    from tractor_sim.stats import summary as stats

    a = {"policy": "basic", "discard": "expert", "name": "expert_discard"}
    b = {"policy": "basic", "discard": "lowest", "name": "lowest_discard"}
    deals, matches = runner.simulate([(a, b)], mode="match", n=200, seed=5, rules=preset, chunk_size=100)
    c = chain.win_probability(deals, a["name"], b["name"], rules=preset, n_boot=100)
    s = stats.matchup_summary(deals, matches).set_index("policy").loc[a["name"]]
    pairs = matches.groupby("match_id")["deals"].sum() / 2  # duplicate matches share cards: one unit per pair
    se_deals = pairs.std() / math.sqrt(len(pairs))
    assert abs(c["expected_deals"] - s["deals_per_match"]) < 3.5 * se_deals
    se_win = math.hypot((c["high"] - c["low"]) / 3.92, (s["win_high"] - s["win_low"]) / 3.92)
    assert abs(c["win_prob"] - s["win_rate"]) < 3.5 * se_win
    other = chain.win_probability(deals, a["name"], b["name"], n_boot=2,
                                  rules="standard" if preset == "russian" else "russian")
    assert abs(other["expected_deals"] - s["deals_per_match"]) > 3.5 * se_deals


def test_bootstrap_resamples_deal_ids_so_shared_deals_move_together():
    # duplicate deals where A and B land in the same row on every deal id (A declares in half 0, B in
    # half 1): resampling deal ids keeps the two row distributions equal, so under draw the match stays
    # 50/50 in every resample; resampling the two policies independently made a wide interval
    rng = np.random.default_rng(4)
    rows = rng.choice(8, 800, p=[0.02, 0.15, 0.35, 0.25, 0.13, 0.06, 0.03, 0.01])
    d = table(np.concatenate([rows, rows]), np.zeros(1600, int))
    d["policy0"] = np.array(["A"] * 800 + ["B"] * 800)
    d["policy1"] = np.array(["B"] * 800 + ["A"] * 800)
    d["deal_id"] = np.tile(np.arange(800), 2)
    d["match_id"] = -1
    r = chain.win_probability(d, "A", "B", n_boot=50, seed=2)
    assert r["win_prob"] == pytest.approx(0.5)
    assert r["low"] == pytest.approx(0.5, abs=1e-9) and r["high"] == pytest.approx(0.5, abs=1e-9)


# ---------------------------------------------------------------- the back-substitution against a plain solve

def sparse_solve(probs_a, probs_b, rules=None, a_declares=0.5):
    """The independent reference: the whole chain as one sparse system (chain.solve before the
    back-substitution), from the same transition table."""
    rules = as_rules(rules)
    n_rows = max(len(probs_a), len(probs_b), 4)
    p = np.zeros((2, n_rows))
    p[0, :len(probs_a)] = probs_a
    p[1, :len(probs_b)] = probs_b
    t, won = chain._targets(rules, n_rows)
    n = len(t)
    d = np.arange(n) % 2
    prob = np.where((won >= 0)[:, None], 0.0, p[d])
    nxt, keep = t[:, :, 0], t[:, :, 1].astype(bool)
    a_wins = (prob * (nxt == -1)).sum(axis=1)
    live = nxt >= 0
    src = np.broadcast_to(np.arange(n)[:, None], nxt.shape)
    if rules.declaring == "auction":
        parts = [(2 * nxt, prob * a_declares), (2 * nxt + 1, prob * (1 - a_declares))]
    else:
        parts = [(2 * nxt + np.where(keep, d[:, None], 1 - d[:, None]), prob)]
    cols = np.concatenate([c[live] for c, _ in parts])
    vals = np.concatenate([v[live] for _, v in parts])
    rows = np.concatenate([src[live]] * len(parts))
    system = (sparse.identity(n) - sparse.coo_matrix((vals, (rows, cols)), shape=(n, n))).tocsc()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = spsolve(system, np.column_stack([a_wins + (won == 0), (won < 0).astype(float)]))
    if not np.isfinite(sol).all() or np.abs(sol[:, 1]).max() > 1e9:
        raise ValueError(chain.NEVER_ENDS)
    return sol[:, 0].reshape(13, 13, 2), sol[:, 1].reshape(13, 13, 2)


RULE_CASES = ["standard", "russian", {"must_defend": "ace"}, {"must_defend": "ace_5_10_k"},
              {"declaring": "auction", "must_defend": "ace_5_10_k"}, {"match_end": "reach_ace"}]


@pytest.mark.parametrize("rules", RULE_CASES)
def test_back_substitution_matches_the_sparse_solve(rules):
    # random row distributions over 4 to 12 rows (a row changes the levels alike with any number of decks),
    # some rows empty, and a random bidding share
    rng = np.random.default_rng(11)
    for _ in range(25):
        n_rows = int(rng.integers(4, 13))
        p = rng.dirichlet(np.ones(n_rows), 2) * (rng.random((2, n_rows)) < 0.7)
        p[:, -1] += p.sum(axis=1) == 0  # never no row at all
        pa, pb = p / p.sum(axis=1, keepdims=True)
        share = float(rng.random())
        try:
            want = sparse_solve(pa, pb, rules, share)
        except ValueError:
            with pytest.raises(ValueError, match="never ends"):
                chain.solve(pa, pb, rules, share)
            continue
        got = chain.solve(pa, pb, rules, share)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=0, atol=1e-12 * max(1, np.abs(w).max()))


def test_never_ending_matches_agree_with_the_sparse_solve():
    # every deal 80-115 (declarers hand over, nobody gains), and must_defend holding both teams on A
    cases = [([0, 0, 0, 1], [0, 0, 0, 1], "standard"), ([0, 0, 0, 0, 1], [0, 0, 0, 0, 1], {"must_defend": "ace"})]
    for pa, pb, rules in cases:
        for solver in (sparse_solve, chain.solve):
            with pytest.raises(ValueError, match="never ends"):
                solver(pa, pb, rules)


def loop_win_probability(d, rules, n_boot, seed, confidence=0.95):
    """win_probability's numbers as the bootstrap made them before: one multinomial draw and one sparse
    solve per replicate. For deals_from_probs' tables: policies A and B, deal ids 0..n-1 (a block a deal)."""
    rules = as_rules(rules)
    a_decl = np.where(d["declaring_team"] == 0, d["policy0"], d["policy1"]) == "A"
    rows = d["row"].to_numpy(np.int64)
    n, n_rows = len(d), max(8, int(rows.max()) + 1)
    per_a, per_b = np.zeros((n, n_rows)), np.zeros((n, n_rows))
    per_a[np.flatnonzero(a_decl), rows[a_decl]] = 1
    per_b[np.flatnonzero(~a_decl), rows[~a_decl]] = 1
    auction = rules.declaring == "auction"

    def start(ca, cb):
        s = ca.sum() / (ca.sum() + cb.sum()) if auction else 0.5
        win, _ = sparse_solve(ca / ca.sum(), cb / cb.sum(), rules, s)
        return s, win, s * win[0, 0, 0] + (1 - s) * win[0, 0, 1]

    first, win, p = start(per_a.sum(axis=0), per_b.sum(axis=0))
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(n_boot):
        w = rng.multinomial(n, np.full(n, 1 / n)).astype(float)
        ba, bb = w @ per_a, w @ per_b
        if ba.sum() and bb.sum():
            try:
                boot.append(start(ba, bb)[2])
            except ValueError:
                pass
    tail = (1 - confidence) / 2
    top = 12 if rules.match_end == "reach_ace" else 13
    return p, *np.quantile(boot, [tail, 1 - tail]), first * win[:top, :top, 0] + (1 - first) * win[:top, :top, 1]


@pytest.mark.parametrize("rules, decks", [("standard", 2), ("russian", 2), ("standard", 3)])
def test_win_probability_unchanged_by_the_batched_bootstrap(rules, decks):
    rng = np.random.default_rng(5)
    pa = np.array([0.02, 0.15, 0.35, 0.25, 0.13, 0.06, 0.03, 0.01])
    d = deals_from_probs(pa, pa[::-1], 600, rng)
    r = chain.win_probability(d, "A", "B", rules=rules, n_boot=60, seed=3, decks=decks)
    win_prob, low, high, table = loop_win_probability(d, rules, 60, 3)
    assert r["n_boot"] == 60
    assert [r["win_prob"], r["low"], r["high"]] == pytest.approx([win_prob, low, high], abs=1e-12)
    np.testing.assert_allclose(r["table"].to_numpy(), table, rtol=0, atol=1e-12)
