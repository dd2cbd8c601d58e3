"""The compiled deal kernel against the pure-Python reference deal player.

``tests/reference_deal.py`` plays whole deals and matches with the rules of
``tests/reference.py`` and the same strategies; here it is compared with the
engine (``run_chunk(spec, LOG_ALL)``):

(a) identical deals: every event of the kernel log (draws, declarations,
    redeals, bids and shown cards, trump, hands, kitty, burial, every lead
    and follow, failed throws, trick winners and points) and every field of
    every deal and match record, over built-in policies in mixed matchups
    (basic, expert, random), test policies that reach the rare rules
    (``rash``: throws that fail; ``shy``: redeals and kitty flips;
    ``bidder``: random bids), fixed and match mode, the standard rules and
    four variant sets (A, B: the throw, kitty and match-end options; C: the
    follow_tractor, override and must_defend options; D: the Russian preset,
    i.e. the auction).  The views the strategies are shown are compared cell
    by cell on a few deals, with the kernel run as Python.
(b) legality: the kernel's logs judged by the reference rules, play by play
    (``LogReferee``): ~2,000 deals by default; ``-m slow`` runs 1,000,000
    chunk by chunk (``TRACTOR_LEGALITY_DEALS`` / ``TRACTOR_LEGALITY_SECONDS``
    change the count or set a time budget).
"""

from __future__ import annotations

import os
import time
import warnings
from unittest import mock

import numpy as np
import pytest

try:
    from numba.core.errors import NumbaExperimentalFeatureWarning

    warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
except ImportError:  # pragma: no cover
    pass

from tractor_sim.play.game import Game
from tractor_sim.runs.engine import ChunkSpec, run_chunk

DEAL_DTYPE, MATCH_DTYPE = Game.of().deal_dtype, Game.of().match_dtype  # the 4-player 2-deck game's records
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import match as M
from tractor_sim.core.kernels import order as O
from tractor_sim.core.kernels import view as V
from tractor_sim.core.kernels.rng import shuffle
from tractor_sim.rules.options import Rules

try:
    from tests import reference_deal as RD
except ImportError:  # tests/ on sys.path instead of the project root
    import reference_deal as RD

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

RD.register_test_policies()
RASH, SHY = RD.RASH, RD.SHY

# Rule sets beyond the standard one.
VARIANT_A = {"throw_penalty": 0, "kitty_multiplier": "pow2_pairs", "throw_check": "opponents_only",
             "throw_forced_part": "highest"}
VARIANT_B = {"rank_trumps_in_no_trump": True, "kitty_multiplier": "twice_largest_unit",
             "throw_forced_part": "lowest", "match_end": "reach_ace", "self_override": "any",
             "throw_penalty": 20}
# The variants added with docs/rules.md section 8: follow_tractor, the override options, must_defend;
# and the Russian preset (the auction, match end at reaching the Ace).
VARIANT_C = {"follow_tractor": "shape_first", "pair_override": "suit_order", "joker_pair_override": True,
             "must_defend": "ace_5_10_k", "self_override": "any"}
VARIANT_D = {"preset": "russian", "follow_tractor": "tractor", "must_defend": "ace"}
BIDDER = {"name": "bidder", "policy": "random", "bid": "random"}  # random bids, shown cards and trumps
BIG_SEED = 2**64 - 3


def make_spec(policies, mode, first, count, seed, rules=None, levels=(0, 0), team=0):
    names = tuple(p if isinstance(p, str) else p["name"] for p in policies)
    return ChunkSpec(matchup="-vs-".join(names), policies=tuple(policies), names=names, half=0, mode=mode,
                     first_id=first, count=count, seed=seed, rules=Rules.from_dict(rules or {}).to_dict(),
                     levels=tuple(levels), declaring_team=team)


def kernel_run(spec):
    res = run_chunk(spec, M.LOG_ALL)
    return res.deals, res.matches, res.extra["log"]


# ---------------------------------------------------------------------------
# (a) identical deals


def compare(spec):
    """Kernel vs reference on one chunk: records and events; returns the deals compared."""
    k_deals, k_matches, log = kernel_run(spec)
    player = RD.ReferencePlayer(spec.policies, spec.rules)
    r_deals, r_matches, r_logs = player.play_spec(spec)
    k_logs = RD.decode_log(log)
    assert len(r_deals) == len(k_deals), f"{spec.matchup}: {len(r_deals)} reference deals, kernel {len(k_deals)}"
    for i, (ours, theirs) in enumerate(zip(r_logs, k_logs)):
        if ours != theirs:
            j = next((j for j, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            a = RD.describe_event(ours[j]) if j < len(ours) else "(end)"
            b = RD.describe_event(theirs[j]) if j < len(theirs) else "(end)"
            pytest.fail(f"{spec.matchup} {spec.mode} seed {spec.seed}, deal record {i} "
                        f"(id {int(k_deals[i]['deal_id'])}): event {j} differs\n reference: {a}\n kernel:    {b}")
    assert len(r_logs) == len(k_logs)
    for name in DEAL_DTYPE.names:
        bad = np.nonzero(r_deals[name] != k_deals[name])[0]
        assert not len(bad), (f"{spec.matchup}: field {name} differs in deal {int(k_deals[bad[0]]['deal_id'])}: "
                              f"reference {r_deals[bad[0]][name]}, kernel {k_deals[bad[0]][name]}")
    assert r_matches.dtype == MATCH_DTYPE
    for name in MATCH_DTYPE.names:
        assert np.array_equal(r_matches[name], k_matches[name]), f"{spec.matchup}: match field {name} differs"
    return len(k_deals)


# (policies, mode, count, seed, rules, levels, declaring team)
DEFAULT_CASES = [
    (("basic", "expert"), "fixed", 70, 1, None, (0, 0), 0),
    (("expert", "random"), "fixed", 50, 2, None, (4, 9), 1),
    (("random", "basic"), "fixed", 40, BIG_SEED, None, (12, 3), 0),
    ((RASH, "basic"), "fixed", 40, 3, None, (6, 6), 0),
    ((RASH, "expert"), "fixed", 30, 4, VARIANT_A, (2, 0), 0),
    ((RASH, SHY), "fixed", 30, 5, VARIANT_B, (7, 11), 1),
    ((RASH, "random"), "fixed", 30, 11, VARIANT_C, (2, 10), 0),
    (("basic", BIDDER), "fixed", 30, 12, VARIANT_D, (3, 7), 0),
    (("basic", "random"), "match", 2, 6, None, (0, 0), 0),
    (("expert", "basic"), "match", 1, 7, None, (0, 0), 0),
    ((SHY, SHY), "match", 1, 10, None, (0, 0), 0),  # a seed whose round 1 is redealt
    ((RASH, "expert"), "match", 1, 8, VARIANT_A, (0, 0), 0),
    ((SHY, RASH), "match", 1, 10, VARIANT_B, (0, 0), 0),
    (("random", "basic"), "match", 1, 13, VARIANT_C, (0, 0), 0),
    (("expert", RASH), "match", 1, 14, VARIANT_D, (0, 0), 0),
]


def _case_id(case):
    pols, mode, count, seed, rules, _, _ = case
    names = "-".join(p if isinstance(p, str) else p["name"] for p in pols)
    variant = {None: "std", id(VARIANT_A): "A", id(VARIANT_B): "B", id(VARIANT_C): "C",
               id(VARIANT_D): "D"}[None if rules is None else id(rules)]
    return f"{names}-{mode}-{variant}"


@pytest.mark.parametrize("case", DEFAULT_CASES, ids=_case_id)
def test_kernel_and_reference_play_identical_deals(case):
    pols, mode, count, seed, rules, levels, team = case
    assert compare(make_spec(pols, mode, 0, count, seed, rules, levels, team)) >= count


SLOW_CASES = [
    (("basic", "basic"), "fixed", 600, 11, None, (0, 0), 0),
    (("basic", "expert"), "fixed", 600, 12, None, (5, 2), 1),
    (("expert", "random"), "fixed", 500, 13, None, (0, 0), 0),
    (("random", "basic"), "fixed", 500, 14, None, (9, 9), 1),
    (("expert", "expert"), "fixed", 400, 15, VARIANT_A, (3, 10), 0),
    (("basic", "random"), "fixed", 400, 16, VARIANT_B, (0, 12), 1),
    ((RASH, "basic"), "fixed", 500, 17, None, (1, 4), 0),
    ((RASH, "expert"), "fixed", 300, 18, VARIANT_A, (8, 8), 1),
    ((RASH, SHY), "fixed", 300, 19, VARIANT_B, (10, 2), 0),
    (("basic", "expert"), "match", 20, 20, None, (0, 0), 0),
    (("random", "expert"), "match", 15, 21, None, (0, 0), 0),
    (("basic", "random"), "match", 10, 22, VARIANT_A, (0, 0), 0),
    ((SHY, "basic"), "match", 10, 23, None, (0, 0), 0),
    ((RASH, SHY), "match", 8, 24, VARIANT_B, (0, 0), 0),
    ((RASH, "expert"), "fixed", 400, 25, VARIANT_C, (7, 3), 1),
    ((BIDDER, "expert"), "fixed", 400, 26, VARIANT_D, (11, 2), 0),
    (("basic", RASH), "match", 10, 27, VARIANT_C, (0, 0), 0),
    (("basic", BIDDER), "match", 10, 28, VARIANT_D, (0, 0), 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=_case_id)
def test_kernel_and_reference_play_identical_deals_long(case):
    pols, mode, count, seed, rules, levels, team = case
    assert compare(make_spec(pols, mode, 1000, count, seed, rules, levels, team)) >= count


def test_python_strategies_give_the_same_deals():
    """The strategies' Python versions (py_func) in the reference play the kernel's deals too."""
    spec = make_spec(("expert", RASH), "fixed", 0, 4, 31, None, (2, 2), 0)
    k_deals, _, log = kernel_run(spec)
    r_deals, _, r_logs = RD.ReferencePlayer(spec.policies, spec.rules, python=True).play_spec(spec)
    assert r_logs == RD.decode_log(log)
    assert r_deals.tobytes() == k_deals.tobytes()


def test_rare_rules_are_reached():
    """The default cases reach failed throws (both penalty directions), redeals, kitty flips,
    joker-pair rounds, overrides (a pair over a pair too), the kitty bonus, the auction and
    gains stopped by a must-defend level."""
    seen = {"failed_pos": 0, "failed_neg": 0, "redeal": 0, "flip": 0, "jokers": 0, "override": 0, "bonus": 0,
            "auction": 0, "defended": 0, "pair_over_pair": 0}
    for case in DEFAULT_CASES:
        pols, mode, count, seed, rules, levels, team = case
        player = RD.ReferencePlayer(pols, rules)
        deals, _, logs = player.play_spec(make_spec(pols, mode, 0, count, seed, rules, levels, team))
        seen["redeal"] += int(deals["redeals"].sum())
        seen["flip"] += int((deals["trump_source"] == RD.SRC_FLIP).sum())
        seen["jokers"] += int((deals["trump_source"] == RD.SRC_JOKERS).sum())
        seen["failed_pos"] += int((deals["throw_penalty"] > 0).sum())
        seen["failed_neg"] += int((deals["throw_penalty"] < 0).sum())
        seen["bonus"] += int((deals["kitty_bonus"] > 0).sum())
        seen["auction"] += int((deals["trump_source"] == RD.SRC_NAMED).sum())
        table_gain = np.where(deals["row"] <= 2, 3 - deals["row"].astype(int), deals["row"].astype(int) - 3)
        seen["defended"] += int((deals["gain"] < table_gain).sum())  # a must-defend level stopped a gain
        for events in logs:
            decls = [e for e in events if e[0] == RD.LOG_DECLARE]
            seen["override"] += int(len(decls) >= 2)
            seen["pair_over_pair"] += sum(1 for a, b in zip(decls, decls[1:]) if a[2] == b[2] == 2)
    assert all(v > 0 for v in seen.values()), seen


# ---------------------------------------------------------------------------
# the view contract, compared field by field


def test_trump_tables_agree_with_the_reference_order():
    """kernels.order.trump_table (the view's rows 10..17) equals the table built from
    reference.effective_suit / reference.position, for every rank, suit and option."""
    for rtnt in (False, True):
        rules = Rules(rank_trumps_in_no_trump=rtnt)
        for rank in range(13):
            for suit in range(5):
                mine = RD.trump_table(rank, suit, rules)
                theirs = O.trump_table(rank, suit, int(rtnt))
                assert np.array_equal(mine, theirs), (rank, suit, rtnt)


def test_documented_constants_and_streams():
    assert (RD.P_SHUFFLE, RD.P_FIRST, RD.P_STARTER, RD.P_SEAT) == (D.P_SHUFFLE, D.P_FIRST, D.P_STARTER, D.P_SEAT)
    assert RD.SCRATCH == D.SCRATCH and RD.MAX_DEALS_PER_MATCH == M.MAX_DEALS_PER_MATCH
    for name in RD.LOG_NAMES.values():
        assert getattr(RD, "LOG_" + name.upper()) == getattr(D, "LOG_" + name.upper())
    # the reference's Fisher-Yates is the kernel's shuffle on the same stream
    for seed, a, b, r in ((0, 0, 0, 0), (BIG_SEED, 7, 3, 2), (12345, 999_001, 0, 1)):
        deck = np.repeat(np.arange(54, dtype=np.int64), 2)
        shuffle(deck, RD.stream(seed, a, b, D.P_SHUFFLE + 100 * r))
        assert RD.shuffled_deck(seed, a, b, r) == deck.tolist()


def _kernel_views(policies, rules, args):
    """Every view the kernel shows, with the deal kernel run as Python (py_func) around the
    compiled strategies."""
    sides = RD.Sides(policies)
    seen = []

    def wrap(decision, fn):
        def probe(view, params, rng, scratch, out):
            seen.append((decision, view.copy()))
            return fn(view, params, rng, scratch, out)
        return probe

    fns = tuple(wrap(d, sides.functions[t][d]) for t in range(2) for d in range(len(V.DECISIONS)))
    enc = Rules.from_dict(rules or {}).encode()
    seed, key_a, key_b, round1, levels, team, starter = args
    row = np.zeros(D.D_FIELDS, dtype=np.int64)
    err = np.zeros(D.ERR_SIZE, dtype=np.int64)
    log = np.zeros((1, D.LOG_COLS), dtype=np.int64)
    # the driver as Python around the compiled phase functions; the intrinsic works only compiled
    def drive(*args):
        return D._drive.py_func(*args, D.open_auction, D.apply_bid)

    with mock.patch.object(D, "borrowed", lambda a: a), mock.patch.object(D, "play_from", drive):
        code = D.play_deal.py_func(np.uint64(seed), key_a, key_b, round1, np.array(levels, dtype=np.int64), team,
                                   starter, enc, sides.params, fns, D.new_workspace(enc), D.new_state(), row, err,
                                   log)
    assert code == 0
    return seen


def _reference_views(policies, rules, args):
    seen = []
    RD.ReferencePlayer(policies, rules, on_view=lambda d, v: seen.append((d, v))).play_deal(*args)
    return seen


VIEW_DEALS = [
    (("basic", "expert"), None, (5, 3, 0, True, (0, 0), 0, 0)),  # round 1: declarer unknown during the draw
    ((RASH, "random"), None, (5, 4, 0, False, (2, 5), 1, 3)),  # failed throws
    ((RASH, SHY), None, (9, 7, 2, False, (2, 5), 0, 2)),
    ((SHY, SHY), None, (3, 2, 1, False, (11, 4), 1, 1)),  # kitty flip
    ((RASH, SHY), VARIANT_B, (9, 8, 2, False, (2, 5), 0, 2)),
    (("random", RASH), VARIANT_C, (4, 1, 0, True, (0, 0), 0, 0)),
    ((BIDDER, RASH), VARIANT_D, (4, 2, 0, True, (0, 0), 0, 0)),  # the auction in round 1
    (("expert", BIDDER), VARIANT_D, (4, 3, 0, False, (6, 9), 0, 1)),  # the auction, dealer seat 1
]
KNOWN_VIEW_DIFFERENCES: set = set()  # none: the kernel and the reference build identical views


def _view_differences(ignore=()):
    found = {}
    for pols, rules, args in VIEW_DEALS:
        theirs = _kernel_views(pols, rules, args)
        ours = _reference_views(pols, rules, args)
        assert [d for d, _ in ours] == [d for d, _ in theirs], "the same decisions in the same order"
        for i, ((d, a), (_, b)) in enumerate(zip(ours, theirs)):
            for r, c in zip(*np.nonzero(a != b)):
                if (r, c) in ignore or (r != V.V_META and (r, None) in ignore):
                    continue
                found.setdefault((int(r), int(c)), (pols, args, i, V.DECISIONS[d], int(a[r, c]), int(b[r, c])))
    return found


def test_views_match_the_kernel():
    """Every view shown to every strategy (declare, discard, lead, follow) is the reference's,
    cell by cell, except the known difference below."""
    diffs = _view_differences(ignore=KNOWN_VIEW_DIFFERENCES)
    assert not diffs, "view cells (row, column) differ: " + "; ".join(
        f"{k}: {v[3]} #{v[2]} of {v[1]} reference {v[4]} kernel {v[5]}" for k, v in list(diffs.items())[:5])


def test_view_opp_points_include_penalties_at_once():
    """view.py: M_OPP_POINTS = the opponents' points so far (tricks and penalties); a failed
    throw's penalty counts from the moment the throw fails."""
    diffs = _view_differences()
    assert (V.V_META, V.M_OPP_POINTS) not in diffs, diffs.get((V.V_META, V.M_OPP_POINTS))


# ---------------------------------------------------------------------------
# (b) legality of every play, judged from the kernel's logs


def referee_chunk(spec, referee):
    deals, matches, log = kernel_run(spec)
    referee.check_chunk(spec, deals, matches, log)
    return len(deals)


# (policies, mode, count, rules, levels, team): about 2,000 deals
LEGALITY_CASES = [
    (("basic", "expert"), "fixed", 400, None, (0, 0), 0),
    (("random", RASH), "fixed", 400, None, (3, 8), 1),
    (("expert", "random"), "fixed", 300, VARIANT_A, (12, 12), 0),
    ((RASH, "basic"), "fixed", 300, VARIANT_B, (5, 0), 1),
    (("basic", "random"), "match", 10, None, (0, 0), 0),
    ((SHY, "expert"), "match", 6, None, (0, 0), 0),
    ((RASH, "expert"), "match", 4, VARIANT_B, (0, 0), 0),
    ((RASH, "basic"), "fixed", 150, VARIANT_C, (2, 2), 0),
    ((BIDDER, "expert"), "fixed", 150, VARIANT_D, (4, 6), 1),
    (("random", "basic"), "match", 3, VARIANT_C, (0, 0), 0),
    (("basic", BIDDER), "match", 3, VARIANT_D, (0, 0), 0),
]


def test_every_play_is_legal_by_the_reference():
    total = 0
    counts = {}
    for i, (pols, mode, count, rules, levels, team) in enumerate(LEGALITY_CASES):
        referee = RD.LogReferee(rules)
        total += referee_chunk(make_spec(pols, mode, 0, count, 100 + i, rules, levels, team), referee)
        for k, v in referee.n.items():
            counts[k] = counts.get(k, 0) + v
    assert total >= 1900 and counts["deals"] == total
    assert counts["failed_throws"] > 0 and counts["throws"] > counts["failed_throws"]
    print(f"\n{total} deals, {counts['leads'] + counts['follows']} plays checked: {counts}")


def test_referee_catches_broken_logs():
    """The referee is not vacuous: altered logs and records are rejected."""
    spec = make_spec(("random", RASH), "fixed", 0, 30, 77)
    deals, matches, log = kernel_run(spec)
    RD.LogReferee().check_chunk(spec, deals, matches, log)

    def rejects(log2=None, deals2=None):
        with pytest.raises(RD.RefereeError):
            RD.LogReferee().check_chunk(spec, deals if deals2 is None else deals2, matches,
                                        log if log2 is None else log2)

    follows = np.nonzero(log[:, 0] == RD.LOG_FOLLOW)[0]
    # a follow that plays a card of another suit while holding the led suit, or one card too many
    bad = log.copy()
    i = follows[0]
    played = np.nonzero(bad[i, 4:])[0]
    bad[i, 4 + played[0]] += 1
    rejects(bad)
    # the wrong winner of a trick
    bad = log.copy()
    t = np.nonzero(log[:, 0] == RD.LOG_TRICK)[0][5]
    bad[t, 1] = (bad[t, 1] + 1) % 4
    rejects(bad)
    # a failed throw reported as standing (drop the failure event)
    f = np.nonzero(log[:, 0] == RD.LOG_FAILED_THROW)[0]
    assert len(f)
    rejects(np.delete(log, f[0], axis=0))
    # a log cut short (a full log buffer drops events silently)
    rejects(log[:-3])
    # wrong points in a record
    d2 = deals.copy()
    d2["trick_points"][3] += 5
    rejects(deals2=d2)
    # a declaration that is not allowed (a single over a single)
    dec = np.nonzero(log[:, 0] == RD.LOG_DECLARE)[0]
    bad = np.insert(log, dec[0] + 1, log[dec[0]], axis=0)
    rejects(bad)


# The long run: configurations cycled chunk by chunk (policies, mode, rules).
LONG_CONFIGS = [
    (("basic", "expert"), "fixed", None),
    (("expert", "random"), "fixed", None),
    (("random", "basic"), "fixed", VARIANT_A),
    ((RASH, "expert"), "fixed", None),
    (("basic", "random"), "match", None),
    (("expert", "expert"), "match", VARIANT_B),
    ((RASH, "basic"), "fixed", VARIANT_B),
    (("expert", "basic"), "match", None),
    ((SHY, RASH), "match", VARIANT_A),
    (("basic", "basic"), "fixed", None),
    ((RASH, "random"), "fixed", VARIANT_C),
    ((BIDDER, "expert"), "fixed", VARIANT_D),
    (("basic", RASH), "match", VARIANT_C),
    (("expert", BIDDER), "match", VARIANT_D),
]
FIXED_CHUNK = 1000  # deals per kernel call (a LOG_ALL log of ~25 MB)
MATCH_CHUNK = 40  # matches per kernel call (~1,000 deals)


def run_long_legality(n_deals, seconds=0.0, seed=2024, report=print):
    """Referee ``n_deals`` kernel deals (or as many as fit in ``seconds``), chunk by chunk."""
    t0 = time.perf_counter()
    counts = {}
    done = 0
    chunk = 0
    next_id = {}
    while done < n_deals:
        pols, mode, rules = LONG_CONFIGS[chunk % len(LONG_CONFIGS)]
        key = chunk % len(LONG_CONFIGS)
        first = next_id.get(key, 0)
        count = min(FIXED_CHUNK, n_deals - done) if mode == "fixed" else MATCH_CHUNK
        referee = RD.LogReferee(rules)
        # levels vary by chunk in fixed mode (the declaring team too)
        levels = ((chunk * 5) % 13, (chunk * 7) % 13)
        spec = make_spec(pols, mode, first, count, seed, rules, levels, chunk % 2)
        done += referee_chunk(spec, referee)
        next_id[key] = first + count
        for k, v in referee.n.items():
            counts[k] = counts.get(k, 0) + v
        chunk += 1
        elapsed = time.perf_counter() - t0
        if chunk % 50 == 0:
            report(f"{done} deals, {counts.get('leads', 0) + counts.get('follows', 0)} plays, {elapsed:.0f} s")
        if seconds and elapsed > seconds:
            break
    counts["plays"] = counts.get("leads", 0) + counts.get("follows", 0)
    counts["seconds"] = round(time.perf_counter() - t0, 1)
    return done, counts


@pytest.mark.slow
@pytest.mark.long
def test_every_play_is_legal_long():
    """1,000,000 deals (TRACTOR_LEGALITY_DEALS), streamed chunk by chunk; with
    TRACTOR_LEGALITY_SECONDS it stops after that many seconds and says how far it got."""
    n = int(os.environ.get("TRACTOR_LEGALITY_DEALS", 1_000_000))
    seconds = float(os.environ.get("TRACTOR_LEGALITY_SECONDS", 0))
    done, counts = run_long_legality(n, seconds, report=lambda s: print(s, flush=True))
    print(f"\nlegality: {done} deals checked; {counts}", flush=True)
    assert done >= n or seconds
    assert counts["deals"] == done
