"""The kernels at other game sizes (docs/rules.md section 9: 6 and 8 players, 2 decks, tractor teams),
every deal judged from the kernel's event log by the independent section-9 reference.

``tests/referee9.py`` (``LogReferee9``) replays ``run_chunk(spec, LOG_ALL)`` logs and checks every
event and record with ``tests/reference9.py``.  The same referee judges the 4-player 2-deck
kernel too (the well-tested one, also checked by ``tests/reference_deal.LogReferee`` on the same
logs here), which shows the referee itself on known-good logs.

Cases: built-in policies (random, basic, expert) in mixed matchups, fixed levels and whole
matches, and test policies that reach the rare rules:

* ``rash`` (``tests/reference_deal.RASH``): random throws of a random suit, most of them failing.
  Games of other sizes play the built-in strategies only (``StrategyInfo.sized_function``), so
  for them the same lead function is compiled against the size's copy of the view and strategy
  library and put in that copy's registry (``register_sized_test_policies``), test-side only;
* ``shy`` (declares with 12 trumps only): redeals in round 1, kitty flips later;
* ``bidder``: random bids under the auction.

Rule variants: A (``throw_check = opponents_only``, ``throw_forced_part = highest``, no penalty,
``pow2_pairs``), B (``rank_trumps_in_no_trump``, ``twice_largest_unit``, ``lowest``, penalty 20,
``reach_ace``, ``self_override = any``), C (``follow_tractor = shape_first``, both override
options, ``must_defend = ace_5_10_k``), T (``follow_tractor = tractor``, ``opponents_only``), D
(the Russian preset: the auction, with ``follow_tractor = tractor`` and ``must_defend = ace``).

The generated kernels of a size compile once (about a minute each, cached under
``$TRACTOR_SIM_CACHE`` or the user's cache directory).  ``-m slow`` runs
``TRACTOR_SIZED_DEALS`` deals (default 20,000) per size.
"""

from __future__ import annotations

import functools
import importlib
import os
import time
import types
import warnings
from collections import Counter

import numpy as np
import pytest

try:
    from tests.sized_params import sized
except ImportError:  # tests/ on sys.path instead of the project root
    from sized_params import sized

try:
    from numba.core.errors import NumbaExperimentalFeatureWarning

    warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
except ImportError:  # pragma: no cover
    pass

from tractor_sim.runs import engine as E
from tractor_sim.core.kernels import match as M
from tractor_sim.rules.options import Rules

try:
    from tests import reference_deal as RD
    from tests import referee9 as RF
except ImportError:  # tests/ on sys.path instead of the project root
    import reference_deal as RD
    import referee9 as RF

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaExperimentalFeatureWarning")

SIZES = [(4, 2), (6, 2), (8, 2), (6, 3), (8, 4)]
SIZE_IDS = [f"{p}p{d}d" for p, d in SIZES]

RASH = RD.RASH
# ``shy``: basic declaring only with many trumps and never with jokers alone, so that nobody may
# declare: redeals in round 1, kitty flips later.  Its threshold follows the hand (25, 17, 12 cards).
SHY = "@shy"
SHY_MIN_CARDS = {4: 12, 6: 9, 8: 7}


def shy_policy(players):
    return {"name": "shy", "policy": "basic",
            "params": {"declare.min_cards": SHY_MIN_CARDS[players], "declare.jokers": 0}}


BIDDER = {"name": "bidder", "policy": "random", "bid": "random"}
VARIANT_A = {"throw_penalty": 0, "kitty_multiplier": "pow2_pairs", "throw_check": "opponents_only",
             "throw_forced_part": "highest"}
VARIANT_B = {"rank_trumps_in_no_trump": True, "kitty_multiplier": "twice_largest_unit",
             "throw_forced_part": "lowest", "match_end": "reach_ace", "self_override": "any",
             "throw_penalty": 20}
VARIANT_C = {"follow_tractor": "shape_first", "pair_override": "suit_order", "joker_pair_override": True,
             "must_defend": "ace_5_10_k", "self_override": "any"}
VARIANT_T = {"follow_tractor": "tractor", "throw_check": "opponents_only"}
VARIANT_D = {"preset": "russian", "follow_tractor": "tractor", "must_defend": "ace"}
VARIANT_NAMES = {None: "std", id(VARIANT_A): "A", id(VARIANT_B): "B", id(VARIANT_C): "C", id(VARIANT_T): "T",
                 id(VARIANT_D): "D"}

# (policies, mode, count, rules, levels, declaring team): about 1,200 deals per size
CASES = [
    (("basic", "expert"), "fixed", 200, None, (0, 0), 0),
    (("random", RASH), "fixed", 150, None, (3, 8), 1),
    ((RASH, "expert"), "fixed", 120, VARIANT_A, (12, 12), 0),
    ((RASH, "basic"), "fixed", 120, VARIANT_B, (5, 0), 1),
    ((RASH, "random"), "fixed", 120, VARIANT_C, (2, 2), 0),
    (("expert", RASH), "fixed", 100, VARIANT_T, (7, 10), 1),
    ((BIDDER, "expert"), "fixed", 100, VARIANT_D, (4, 6), 1),
    (("expert", "random"), "fixed", 80, VARIANT_B, (11, 1), 0),
    ((SHY, "basic"), "fixed", 60, None, (6, 2), 0),
    (("basic", "random"), "match", 4, None, (0, 0), 0),
    ((SHY, SHY), "match", 3, None, (0, 0), 0),
    ((RASH, "expert"), "match", 2, VARIANT_B, (0, 0), 0),
    (("random", "basic"), "match", 2, VARIANT_C, (0, 0), 0),
    (("basic", BIDDER), "match", 2, VARIANT_D, (0, 0), 0),
]


def _name(p):
    return "shy" if p == SHY else p if isinstance(p, str) else p["name"]


def sized_policies(policies, players):
    """The policies of a case at a size (``shy``'s threshold follows the hand)."""
    return tuple(shy_policy(players) if p == SHY else p for p in policies)


def _case_id(i):
    pols, mode, _, rules, _, _ = CASES[i]
    return f"{'-'.join(_name(p) for p in pols)}-{mode}-{VARIANT_NAMES[None if rules is None else id(rules)]}"


# Cases a maintainer marked as a known disagreement of the kernel with reference9 (size, case id):
# none found.
KNOWN_DISAGREEMENTS: dict = {}


# ---------------------------------------------------------------------------
# the test policies at other sizes


def register_sized_test_policies(players, decks):
    """Register ``rash``'s lead (``refdeal_rash``) for a game size: in the main registry (its name
    and parameters, tests/reference_deal.register_test_policies) and, for a size other than 4/2, in
    the size's compiled copy, as the same function bound to that copy's view and strategy library."""
    RD.register_test_policies()
    if (players, decks) == (4, 2):
        return
    from tractor_sim.rules import sizes
    from tractor_sim.play import packages

    pkg = packages.compiled_package(sizes.GameSize(players, decks))
    key = ("lead", "refdeal_rash")
    if key in pkg.registry.STRATEGIES:
        return
    import numba

    base = pkg.__name__
    rng = importlib.import_module(base + ".kernels.rng")
    glob = dict(RD._rash_lead.__globals__)
    glob.update(sl=importlib.import_module(base + ".lib"), V=importlib.import_module(base + ".kernels.view"),
                randint=rng.randint, _uniform=rng.uniform)
    fn = types.FunctionType(RD._rash_lead.__code__, glob, "_rash_lead", RD._rash_lead.__defaults__)
    pkg.registry.strategy(*key)(fn)


# ---------------------------------------------------------------------------
# running and judging


def make_spec(size, policies, mode, first, count, seed, rules=None, levels=(0, 0), team=0):
    players, decks = size
    names = tuple(_name(p) for p in policies)
    return E.ChunkSpec(matchup="-vs-".join(names), policies=sized_policies(policies, players), names=names, half=0, mode=mode,
                       first_id=first, count=count, seed=seed, rules=Rules.from_dict(rules or {}).to_dict(),
                       levels=tuple(levels), declaring_team=team, game=(players, decks, "tractor"))


def record_stats(deals, logs):
    """What the records and logs show beyond the referee's counters: both penalty directions, gains
    stopped by a must-defend level, joker-pair trumps, a pair over a pair."""
    n = Counter()
    n["penalty_pos"] = int((deals["throw_penalty"] > 0).sum())
    n["penalty_neg"] = int((deals["throw_penalty"] < 0).sum())
    n["joker_trumps"] = int((deals["trump_source"] == RF.SRC_JOKERS).sum())
    table_gain = np.where(deals["row"] <= 2, 3 - deals["row"].astype(int), deals["row"].astype(int) - 3)
    n["defended"] = int((deals["gain"] < table_gain).sum())
    n["declarers_lost"] = int((deals["row"] >= 3).sum())
    for events in logs:
        decls = [e for e in events if e[0] == RF.LOG_DECLARE]
        n["pair_over_pair"] += sum(1 for a, b in zip(decls, decls[1:]) if a[2] == b[2] == RF.DECL_PAIR)
    return n


def judge(size, spec, referee, also_4p=True):
    """Run a chunk with the full log and judge it; returns the deals judged."""
    res = E.run_chunk(spec, M.LOG_ALL)
    log = res.extra["log"]
    referee.check_chunk(spec, res.deals, res.matches, log)
    if size == (4, 2) and also_4p:  # the sections 1-7 referee accepts the same logs
        RD.LogReferee(spec.rules).check_chunk(spec, res.deals, res.matches, log)
    referee.n.update(record_stats(res.deals, RF.decode_log(log, referee.game.kitty)))
    return len(res.deals)


@functools.lru_cache(maxsize=None)
def judged_case(size, i):
    """Case i of CASES at ``size``, judged once per session: (deals, counters, CPU seconds)."""
    register_sized_test_policies(*size)
    pols, mode, count, rules, levels, team = CASES[i]
    spec = make_spec(size, pols, mode, 0, count, 100 + i, rules, levels, team)
    referee = RF.LogReferee9(size[0], size[1], rules)
    t0 = time.process_time()
    done = judge(size, spec, referee)
    assert referee.n["deals"] == done, "every deal judged"
    return done, Counter(referee.n), time.process_time() - t0


def _xfail_if_known(size, i):
    reason = KNOWN_DISAGREEMENTS.get((size, _case_id(i)))
    if reason:
        pytest.xfail(reason)


# ---------------------------------------------------------------------------
# the tests


def test_documented_constants():
    """The referee's stream purposes and log kinds are the kernel's."""
    from tractor_sim.core.kernels import phases as PH

    assert (RF.P_SHUFFLE, RF.P_FIRST, RF.P_STARTER, RF.REDEAL_STREAMS) == (
        PH.P_SHUFFLE, PH.P_FIRST, PH.P_STARTER, PH.REDEAL_STREAMS)
    assert RF.MAX_DEALS_PER_MATCH == M.MAX_DEALS_PER_MATCH
    for kind, name in RF.LOG_NAMES.items():
        assert getattr(RD, "LOG_" + name.upper()) == kind
    for size in SIZES:
        game = RF.r9.Game(*size)
        assert game.kitty + size[0] * game.hand_size == 54 * size[1]


def test_both_referees_read_a_declaration_with_its_count():
    """The log's declaration (kind, card, cards shown) as the reference's (count, card), with 2 to 4
    decks (9.8): the Finding Friends referee reads it the same way (a 2-deck reading refused three
    jokers at 8/4, found by the legality run)."""
    from tests import referee_friends

    assert referee_friends.declaration is RF.declaration
    assert RF.declaration(RF.DECL_JOKER_PAIR, 52, 3, 4) == (3, 52)
    assert RF.declaration(RF.DECL_PAIR, 5, 4, 4) == (4, 5) and RF.declaration(RF.DECL_PAIR, 5, 3, 2) is None
    assert RF.declaration(RF.DECL_SINGLE, 5, 2, 3) is None and RF.declaration(RF.DECL_JOKER_PAIR, 52, 1, 3) is None


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_case_id(i) for i in range(len(CASES))])
@pytest.mark.parametrize("size", sized(SIZES, {(4, 2), (6, 3)}))
def test_every_sized_deal_is_judged_by_reference9(size, i):
    _xfail_if_known(size, i)
    done, n, _ = judged_case(size, i)
    pols, mode, count, *_ = CASES[i]
    assert done >= count and n["deals"] == done
    if mode == "match":
        assert n["matches"] == count


@pytest.mark.parametrize("size", sized(SIZES[:3]))
def test_the_interesting_cases_occur(size):
    """Over the cases of a size: throws that stand and throws that fail (penalties of both signs),
    declarations and overrides (a pair over a pair), joker-pair trumps, redeals, kitty flips, the
    auction, tractors, ruffs, the kitty bonus, a gain stopped by a must-defend level, matches."""
    total = Counter()
    deals = 0
    cpu = 0.0
    for i in range(len(CASES)):
        if KNOWN_DISAGREEMENTS.get((size, _case_id(i))):
            continue
        d, n, t = judged_case(size, i)
        deals += d
        cpu += t
        total.update(n)
    print(f"\n{size[0]} players {size[1]} decks: {deals} deals judged in {cpu:.1f} s CPU: "
          f"{total['leads']} leads, {total['follows']} follows, {total['throws']} throws, "
          f"{total['failed_throws']} failed throws, {total['tricks']} tricks, {total['declarations']} declarations; "
          f"{dict(sorted(total.items()))}")
    assert total["deals"] == deals
    assert total["throws"] > total["failed_throws"] > 0
    wanted = ["declarations", "overrides", "pair_over_pair", "joker_trumps", "redeals", "flips", "auctions",
              "lead tractor", "lead tuple", "ruffs", "kitty_bonus", "penalty_pos", "penalty_neg", "defended",
              "declarers_lost", "matches"]
    missing = [k for k in wanted if total[k] == 0]
    assert not missing, f"never reached: {missing}; counts {dict(total)}"


def test_referee_catches_broken_logs():
    """At 6 players with 3 decks: altered logs and records are rejected (the referee is not vacuous)."""
    size = (6, 3)
    register_sized_test_policies(*size)
    spec = make_spec(size, ("random", RASH), "fixed", 0, 30, 77)
    res = E.run_chunk(spec, M.LOG_ALL)
    deals, matches, log = res.deals, res.matches, res.extra["log"]
    RF.LogReferee9(*size).check_chunk(spec, deals, matches, log)
    N = size[0]

    def rejects(log2=None, deals2=None, spec2=None, match=None):
        with pytest.raises(RF.RefereeError, match=match):
            RF.LogReferee9(*size).check_chunk(spec2 or spec, deals if deals2 is None else deals2, matches,
                                              log if log2 is None else log2)

    kinds = log[:, 0]
    # a follow with one card too many
    bad = log.copy()
    i = np.nonzero(kinds == RF.LOG_FOLLOW)[0][0]
    bad[i, 4 + np.nonzero(bad[i, 4:])[0][0]] += 1
    rejects(bad)
    # the wrong winner of a trick
    bad = log.copy()
    t = np.nonzero(kinds == RF.LOG_TRICK)[0][5]
    bad[t, 1] = (bad[t, 1] + 1) % N
    rejects(bad, match="trick")
    # a failed throw reported as standing (its failure event dropped)
    f = np.nonzero(kinds == RF.LOG_FAILED_THROW)[0]
    assert len(f)
    rejects(np.delete(log, f[0], axis=0))
    # a failed throw blamed on another seat
    bad = log.copy()
    bad[f[0], 2] = (bad[f[0], 2] + 1) % N
    rejects(bad, match="blocked by")
    # a burial of one card too few
    bad = log.copy()
    b = np.nonzero(kinds == RF.LOG_BURY)[0][0]
    bad[b, 4 + np.nonzero(bad[b, 4:])[0][0]] -= 1
    rejects(bad, match="burial")
    # a log cut short
    rejects(log[:-3])
    # a record's points, tricks of a seat, the level gained
    for field, delta in (("trick_points", 5), ("tricks5", 1), ("gain", 1), ("opp_points", 40)):
        d2 = deals.copy()
        d2[field][3] += delta
        rejects(deals2=d2, match=field)
    # a declaration that is not allowed (a single over a single: the same event twice)
    dec = np.nonzero(kinds == RF.LOG_DECLARE)[0]
    rejects(np.insert(log, dec[0] + 1, log[dec[0]], axis=0), match="declar")
    # the wrong size: a 6-player log judged as 8 players, a 3-deck log as 2 decks
    for players, decks in ((8, 3), (6, 2)):
        with pytest.raises(RF.RefereeError):
            RF.LogReferee9(players, decks).check_chunk(spec, deals, matches, log)
    # another seed: the shuffle is not the seed's
    rejects(spec2=make_spec(size, ("random", RASH), "fixed", 0, 30, 78), match="draw|starter|first drawer")


# The long run: configurations cycled chunk by chunk (policies, mode, rules).
LONG_CONFIGS = [
    (("basic", "expert"), "fixed", None),
    (("expert", "random"), "fixed", None),
    ((RASH, "expert"), "fixed", VARIANT_A),
    (("random", "basic"), "match", None),
    ((RASH, "basic"), "fixed", VARIANT_B),
    (("expert", "expert"), "match", VARIANT_B),
    ((RASH, "random"), "fixed", VARIANT_C),
    (("expert", RASH), "fixed", VARIANT_T),
    ((BIDDER, "expert"), "fixed", VARIANT_D),
    ((SHY, "basic"), "match", None),
    (("basic", RASH), "match", VARIANT_C),
    (("expert", BIDDER), "match", VARIANT_D),
    (("basic", "basic"), "fixed", VARIANT_T),
]
FIXED_CHUNK = 500
MATCH_CHUNK = 20


def run_chunks(configs, n_deals, judge_chunk, label, report=print, first_id=0, progress=None):
    """Judge ``n_deals`` deals chunk by chunk, cycling over ``configs`` (policies, mode, rules), each
    configuration's deal ids from ``first_id`` on (its match ids from first_id // 10), so a later run
    continues on other deals.  ``judge_chunk(chunk, config, first, count)`` plays and judges one
    chunk and returns (deals judged, the referee's counters); ``progress`` gets the counters so far."""
    t0 = time.process_time()
    counts = Counter()
    done = chunk = 0
    next_id = {}
    while done < n_deals:
        key = chunk % len(configs)
        mode = configs[key][1]
        first = next_id.get(key, first_id if mode == "fixed" else first_id // 10)
        count = min(FIXED_CHUNK, n_deals - done) if mode == "fixed" else MATCH_CHUNK
        n, judged = judge_chunk(chunk, configs[key], first, count)
        done += n
        counts.update(judged)
        next_id[key] = first + count
        chunk += 1
        if chunk % 10 == 0:
            report(f"{label}: {done} deals, {time.process_time() - t0:.0f} s CPU")
            if progress:
                progress(Counter(counts, cpu_seconds=round(time.process_time() - t0, 1)))
    counts["cpu_seconds"] = round(time.process_time() - t0, 1)
    return done, counts


def run_long(size, n_deals, seed=2025, **how):
    """Judge ``n_deals`` kernel deals of ``size`` over LONG_CONFIGS (run_chunks; ``how``: its options)."""
    register_sized_test_policies(*size)

    def judge_chunk(chunk, config, first, count):
        pols, mode, rules = config
        referee = RF.LogReferee9(size[0], size[1], rules)
        levels = ((chunk * 5) % 13, (chunk * 7) % 13)
        n = judge(size, make_spec(size, pols, mode, first, count, seed, rules, levels, chunk % 2), referee,
                  also_4p=False)
        return n, referee.n

    return run_chunks(LONG_CONFIGS, n_deals, judge_chunk, str(size), **how)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_sized_deals_long(size):
    """TRACTOR_SIZED_DEALS deals (default 20,000) of each size, every one judged."""
    n = int(os.environ.get("TRACTOR_SIZED_DEALS", 20_000))
    done, counts = run_long(size, n, report=lambda s: print(s, flush=True))
    print(f"\n{size[0]} players {size[1]} decks: {done} deals judged: leads {counts['leads']}, follows "
          f"{counts['follows']}, throws {counts['throws']}, failed throws {counts['failed_throws']}, tricks "
          f"{counts['tricks']}, declarations {counts['declarations']}; {dict(sorted(counts.items()))}", flush=True)
    assert done >= n and counts["deals"] == done
    assert counts["throws"] > counts["failed_throws"] > 0 and counts["ruffs"] > 0
