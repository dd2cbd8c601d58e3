"""The sampler of worlds (kernels.sampler) and the public knowledge it samples from (kernels.knowledge).

Proved three ways:
- exactness: on small endgames the sampler's frequency of every distinct
  deal of the unseen cards is tested (chi-square) against an exact
  enumeration written here in Python; two deliberately biased samplers
  (one that ignores the copies of a card, one that deals card by card
  greedily) and one that ignores a void are rejected on the same states;
- consistency: on many states of many deals (standard rules, the auction,
  follow_tractor; after the kitty, mid-deal, endgame; every observer) no
  world contradicts the record, every world plays on to its end with the
  built-in policies, and the true deal satisfies the knowledge;
- the contract: two true states that differ only in what the seat cannot
  see give the same worlds for the same stream;
- the knowledge pieces equal a recomputation from the deal's event log.
"""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from tractor_sim.play.game import Game
from tractor_sim.runs import engine
from tractor_sim.play.game import State
from tractor_sim.core.kernels import deal as D
from tractor_sim.core.kernels import events as EV
from tractor_sim.core.kernels import phases as PH
from tractor_sim.core.kernels import publish as P
from tractor_sim.core.kernels import sampler as SM
from tractor_sim.core.kernels import state as ST
from tractor_sim.core.kernels.declare import SINGLE
from tractor_sim.core.kernels.order import TT_EFF, TT_POS
from tractor_sim.core.kernels.dims import BJ, CARDS, DECKS, EFF_SUITS, PAIR, RANKS, SEATS

try:  # the module object the other tests use (it registers its strategies once)
    from tests.reference_deal import RASH, SHY, register_test_policies
except ImportError:
    from reference_deal import RASH, SHY, register_test_policies

BIDDER = {"name": "bidder", "policy": "random", "bid": "random"}
RULE_SETS = {"standard": None, "auction": "russian", "follow_tractor": {"follow_tractor": "tractor"}}


# ---------------------------------------------------------------- reading a state

def _piece(st, name, shape):
    p = ST.LAYOUT[name]
    return st[p.offset:p.end].reshape(shape)


def knowledge(st):
    return (_piece(st, "K_PLAYED", (SEATS, CARDS)), _piece(st, "K_SHOWN", (SEATS, CARDS)),
            _piece(st, "K_VOID", (SEATS, EFF_SUITS)), _piece(st, "K_MOST", (SEATS, EFF_SUITS)))


def hands_of(st):
    return _piece(st, "HANDS", (SEATS, CARDS))


def table_of(state):
    st = state._st
    return state._ws[3][st[ST.S_RANK], st[ST.S_SUIT]]


def buried_known(st):
    return st[ST.S_PHASE] >= ST.PH_LEAD


def _step(state, policies):
    turn = state.to_act()
    pol = policies(turn) if callable(policies) else policies[turn.seat % 2]
    state.apply(state.answer_of(pol))


def states_of(rules, deal_ids, policies, every=7, seed=3, **new):
    """Clones of the deals' states at the kitty exchange and every ``every``-th trick decision."""
    out = []
    for i in deal_ids:
        state = State.new(seed=seed, deal_id=i, rules=rules, **new)
        k = 0
        while not state.over:
            phase = state._st[ST.S_PHASE]
            if phase == ST.PH_KITTY or (phase in (ST.PH_LEAD, ST.PH_FOLLOW) and k % every == 0):
                out.append(state.clone())
            if phase in (ST.PH_LEAD, ST.PH_FOLLOW):
                k += 1
            _step(state, policies)
    return out


# ---------------------------------------------------------------- exact enumeration (independent of the kernel)

def _places(st, seat):
    """The places the sampler uses, in its order: the other seats after ``seat``, then the kitty."""
    seats = [(seat + k) % SEATS for k in range(1, SEATS)]
    kitty = buried_known(st) and seat != st[ST.S_STARTER]
    return seats, kitty


def exact_distribution(state, seat):
    """{deal of the unseen cards: probability} among the deals (each physical copy distinct) that fit
    the knowledge: counted here in plain Python, from the state's knowledge pieces."""
    st = state._st
    tt = table_of(state)
    played, shown, void, nopair = knowledge(st)
    hands = hands_of(st)
    starter = st[ST.S_STARTER]
    seats, kitty = _places(st, seat)
    rooms = [int(hands[s].sum()) for s in seats] + [SM.KITTY if kitty else 0]
    unseen = DECKS - hands[seat] - played.sum(axis=0)
    if buried_known(st) and seat == starter:
        unseen = unseen - _piece(st, "BURIED", (CARDS,))
    cards = [c for c in range(CARDS) if unseen[c] > 0]
    assert sum(unseen[c] for c in cards) == sum(rooms)

    def allowed(c, x):
        e = tt[TT_EFF, c]
        for p, s in enumerate(seats):
            if x[p] and void[s, e]:
                return False
            if x[p] > 1 and nopair[s, e]:
                return False
            need = shown[s, c]
            have = x[p] + (x[SM.KITTY_PLACE] if (s == starter and kitty) else 0)
            if have < need:
                return False
        return True

    dist = {}

    def rec(i, room, deal, weight):
        if i == len(cards):
            dist[tuple(deal)] = dist.get(tuple(deal), 0) + weight
            return
        c = cards[i]
        n = int(unseen[c])
        for x in itertools.product(range(n + 1), repeat=SM.PLACES):
            if sum(x) != n or any(x[p] > room[p] for p in range(SM.PLACES)) or not allowed(c, x):
                continue
            w = math.factorial(n) // math.prod(math.factorial(v) for v in x)
            rec(i + 1, [room[p] - x[p] for p in range(SM.PLACES)], deal + [x], weight * w)

    rec(0, rooms, [], 1)
    total = sum(dist.values())
    return cards, {k: v / total for k, v in dist.items()}


def sampled_counts(state, seat, n, seed, st=None, pool_above=SM.POOL_ABOVE, chain=False):
    """Counter of the sampler's deals (keys as exact_distribution's) over n draws (``pool_above``: the
    sampler's, 0 to pool every place no constraint touches; ``chain``: a table too small for any count,
    so the deals come from kernels.pair_chain)."""
    st = state._st if st is None else st
    work = SM.new_work()
    if chain:
        work = (work[0], np.zeros(0), work[2])
    assert SM.prepare(st, seat, state._ws[3], work, pool_above) == 1
    assert work[0][SM.W_CHAIN] == chain
    cards = work[0][SM.W_CARD:SM.W_CARD + work[0][SM.W_LAYERS]].tolist()
    rng = np.array([seed], dtype=np.uint64)
    counts = Counter()
    batch = 20_000
    for first in range(0, n, batch):
        out = np.zeros((min(batch, n - first), SM.PLACES, CARDS), dtype=np.int64)
        assert SM.deal_many(work, rng, out) == out.shape[0]
        rows, k = np.unique(out[:, :, cards].transpose(0, 2, 1).reshape(out.shape[0], -1), axis=0,
                            return_counts=True)
        for r, m in zip(rows, k):
            counts[tuple(tuple(int(v) for v in r[i * SM.PLACES:(i + 1) * SM.PLACES]) for i in range(len(cards)))] += m
    return cards, counts


def greedy_counts(state, seat, n, seed):
    """A biased sampler: each unseen copy in random order to a random place with room that allows it."""
    cards, dist = exact_distribution(state, seat)
    st = state._st
    tt = table_of(state)
    _, shown, void, nopair = knowledge(st)
    seats, kitty = _places(st, seat)
    hands = hands_of(st)
    rooms = [int(hands[s].sum()) for s in seats] + [SM.KITTY if kitty else 0]
    copies = [c for c in cards for _ in range(sum(next(iter(dist))[cards.index(c)]))]
    rng = np.random.default_rng(seed)
    counts = Counter()
    while sum(counts.values()) < n:
        order = rng.permutation(len(copies))
        room = list(rooms)
        deal = {c: [0] * SM.PLACES for c in cards}
        for j in order:
            c = copies[j]
            e = tt[TT_EFF, c]
            ok = [p for p in range(SM.PLACES) if room[p] > 0 and not (
                p < len(seats) and (void[seats[p], e] or (nopair[seats[p], e] and deal[c][p] >= 1)))]
            if not ok:
                break
            p = ok[rng.integers(len(ok))]
            deal[c][p] += 1
            room[p] -= 1
        else:
            key = tuple(tuple(deal[c]) for c in cards)
            if key in dist:  # the shown cards: rejection
                counts[key] += 1
    return cards, counts


def chi2_p(dist, counts):
    keys = list(dist)
    n = sum(counts.values())
    observed = np.array([counts.get(k, 0) for k in keys], dtype=float)
    assert observed.sum() == n, "a sample outside the consistent deals"
    expected = np.array([dist[k] * n for k in keys])
    return chisquare(observed, expected).pvalue


def endgame_states():
    """Late states with few unseen deals (observer: the seat to act), each with a void shown by
    another seat in a suit of which cards are unseen (so that the void decides something), and two
    copies of a card unseen (so that the weight of a split pair counts)."""
    found = []
    for deal_id in range(60):
        state = State.new(seed=11, deal_id=deal_id)
        while not state.over and len(found) < 4:
            st = state._st
            seat = int(st[ST.S_TO_ACT])
            if st[ST.S_PHASE] in (ST.PH_LEAD, ST.PH_FOLLOW) and st[ST.S_REMAINING] <= (
                    3 if seat == st[ST.S_STARTER] else 1):
                cards, dist = exact_distribution(state, seat)
                void = knowledge(st)[2]
                tt = table_of(state)
                decides = any(void[s, tt[TT_EFF, c]] for s in range(SEATS) if s != seat for c in cards)
                uneven = max(dist.values()) / min(dist.values()) > 1.5
                if decides and uneven and 20 <= len(dist) <= 1500 and min(dist.values()) >= 1e-4:
                    found.append((state.clone(), seat, len(dist)))
                    break
            _step(state, ("random", "random"))
        if len(found) == 4:
            break
    return found


ENDGAMES = endgame_states()


def test_there_are_endgames_to_test():
    assert len(ENDGAMES) == 4
    assert any(s._st[ST.S_STARTER] != seat for s, seat, _ in ENDGAMES)  # the kitty among the places


@pytest.mark.parametrize("case", range(4))
def test_endgame_frequencies_match_exact_enumeration(case):
    state, seat, n_deals = ENDGAMES[case]
    cards, dist = exact_distribution(state, seat)
    n = max(200_000, int(20 / min(dist.values())))
    _, counts = sampled_counts(state, seat, n, seed=1234 + case)
    p = chi2_p(dist, counts)
    kitty = "the kitty unseen" if state._st[ST.S_STARTER] != seat else "the starter's view"
    print(f"endgame {case} ({kitty}): {n_deals} consistent deals, {n} samples, chi-square p = {p:.4f}")
    assert p > 1e-3
    # the same test rejects a sampler that ignores the copies of a card (uniform over distinct deals)
    keys = list(dist)
    flat = np.random.default_rng(case).multinomial(n, [1 / len(keys)] * len(keys))
    q = chi2_p(dist, Counter(dict(zip(keys, flat))))
    print(f"  a sampler ignoring the copies of a card (uniform over distinct deals): p = {q:.3g}")
    assert q < 1e-9


@pytest.mark.parametrize("case", [pytest.param(0, marks=pytest.mark.slow), pytest.param(1, marks=pytest.mark.slow), 2,
                                  pytest.param(3, marks=pytest.mark.slow)])
def test_the_chain_keeps_the_endgame_frequencies(case):
    """Where the table would not fit (forced here: no table at all), the deals come from
    kernels.pair_chain: correlated draws, yet their frequencies are the enumeration's (chi-square)."""
    state, seat, _ = ENDGAMES[case]
    cards, dist = exact_distribution(state, seat)
    n = max(200_000, int(20 / min(dist.values())))
    _, counts = sampled_counts(state, seat, n, seed=99 + case, chain=True)
    p = chi2_p(dist, counts)
    print(f"endgame {case} by the chain: {len(dist)} deals, {n} samples, chi-square p = {p:.4f}")
    assert p > 1e-3


def _marginals(state, seat, n, seed, chain):
    """Mean copies of every card id in every place over n deals of the sampler."""
    st = state._st
    work = SM.new_work()
    if chain:
        work = (work[0], np.zeros(0), work[2])
    assert SM.prepare(st, seat, state._ws[3], work) == 1 and work[0][SM.W_CHAIN] == chain
    out = np.zeros((n, SM.PLACES, CARDS), dtype=np.int64)
    assert SM.deal_many(work, np.array([seed], dtype=np.uint64), out) == n
    return out.mean(axis=0), out.std(axis=0)


@pytest.mark.slow
@pytest.mark.long
def test_the_chain_keeps_the_mid_deal_marginals():
    """Mid-deal states, far too many deals to enumerate: the chain's mean copies of every card in every
    place are the exact table's within 6 standard errors (of independent draws, times 2 for the chain's
    correlation), at every observer."""
    register_test_policies()
    states = states_of(None, range(3), _policies_for("standard"), every=9, seed=41)
    worst = 0.0
    for state in states:
        for seat in range(SEATS):
            exact, sd = _marginals(state, seat, 20_000, 5, chain=False)
            chained, _ = _marginals(state, seat, 20_000, 6, chain=True)
            se = np.sqrt(2 * sd ** 2 / 20_000) * 2
            z = np.abs(chained - exact)[sd > 0] / se[sd > 0]
            worst = max(worst, z.max(initial=0.0))
    print(f"{len(states)} states x {SEATS} observers: the largest difference {worst:.2f} standard errors")
    assert worst < 6


def _merged(state, seat):
    """How many places the sampler pools at this state when forced to (pool_above 0)."""
    work = SM.new_work()
    assert SM.prepare(state._st, seat, state._ws[3], work, 0) == 1
    return int((work[0][SM.W_POOL_ROOM:SM.W_POOL_ROOM + SM.PLACES] > 0).sum())


def pooled_endgames():
    """Late states where two or more places are untouched by any constraint (the kitty among them or
    not), with few consistent deals, and a void or a shown card deciding the others."""
    found = []
    for deal_id in range(200):
        state = State.new(seed=17, deal_id=deal_id)
        while not state.over:
            st = state._st
            seat = int(st[ST.S_TO_ACT])
            if st[ST.S_PHASE] in (ST.PH_LEAD, ST.PH_FOLLOW) and st[ST.S_REMAINING] <= (
                    3 if seat == st[ST.S_STARTER] else 1) and _merged(state, seat) >= 2:
                cards, dist = exact_distribution(state, seat)
                if 20 <= len(dist) <= 1500 and min(dist.values()) >= 1e-4:
                    found.append((state.clone(), seat))
                    break
            _step(state, ("random", "random"))
        if len(found) == 3:
            break
    return found


def test_pooled_places_keep_the_frequencies_exact():
    """The places no constraint touches merged and their copies shuffled back into their rooms (forced
    here: 4-player tables are below POOL_ABOVE): the same exact distribution as the enumeration's."""
    cases = pooled_endgames()
    assert len(cases) == 3
    for case, (state, seat) in enumerate(cases):
        cards, dist = exact_distribution(state, seat)
        n = max(200_000, int(20 / min(dist.values())))
        _, counts = sampled_counts(state, seat, n, seed=4321 + case, pool_above=0)
        p = chi2_p(dist, counts)
        print(f"pooled endgame {case}: {_merged(state, seat)} places merged, {len(dist)} deals, p = {p:.4f}")
        assert p > 1e-3, case


def test_a_greedy_sampler_and_one_ignoring_a_void_are_rejected():
    rejected = []
    for case, (state, seat, _) in enumerate(ENDGAMES):
        cards, dist = exact_distribution(state, seat)
        _, counts = greedy_counts(state, seat, 20_000, seed=case)  # the smallest p-value near 1e-26 (1e-79 at 60,000)
        rejected.append(chi2_p(dist, counts))
    print("greedy sampler p-values:", [f"{p:.3g}" for p in rejected])
    assert min(rejected) < 1e-9
    # ignoring the voids: deals outside the consistent ones appear
    state, seat, _ = ENDGAMES[0]
    blind = state._st.copy()
    _piece(blind, "K_VOID", (SEATS, EFF_SUITS))[:] = 0
    _piece(blind, "K_MOST", (SEATS, EFF_SUITS))[:] = 0
    cards, dist = exact_distribution(state, seat)
    _, counts = sampled_counts(state, seat, 5_000, seed=5, st=blind)
    outside = sum(m for k, m in counts.items() if k not in dist)
    print(f"ignoring voids: {outside} of 5000 samples contradict the record")
    assert outside > 1000


# ---------------------------------------------------------------- consistency on many states

def consistent_world(state, seat, world, wws):
    """Assert that the world contradicts nothing the seat knows, and is a well-formed deal."""
    st = state._st
    played, shown, void, nopair = knowledge(st)
    starter = st[ST.S_STARTER]
    tt = table_of(state)
    th, wh = hands_of(st), hands_of(world)
    assert (wh[seat] == th[seat]).all()
    assert (wh.sum(axis=1) == th.sum(axis=1)).all()
    wburied = _piece(world, "BURIED", (CARDS,))
    if buried_known(st):
        assert wburied.sum() == SM.KITTY
        if seat == starter:
            assert (wburied == _piece(st, "BURIED", (CARDS,))).all()
    total = wh.sum(axis=0) + played.sum(axis=0) + (wburied if buried_known(st) else 0)
    assert (total == DECKS).all()
    for s in range(SEATS):
        if s == seat:
            continue
        own = wh[s] + (wburied if s == starter and buried_known(st) else 0)
        assert (own >= shown[s]).all(), (s, shown[s], own)
        for e in range(EFF_SUITS):
            suit = tt[TT_EFF] == e
            if void[s, e]:
                assert wh[s][suit].sum() == 0
            if nopair[s, e]:
                assert (wh[s][suit] < PAIR).all()
    held, hpairs = _piece(world, "HELD", (SEATS, EFF_SUITS)), _piece(world, "HPAIRS", (SEATS, EFF_SUITS))
    for s in range(SEATS):
        assert [wh[s][tt[TT_EFF] == e].sum() for e in range(EFF_SUITS)] == held[s].tolist()
        assert [(wh[s][tt[TT_EFF] == e] // PAIR).sum() for e in range(EFF_SUITS)] == hpairs[s].tolist()
        assert (wws[0][s, ST_VIEW_HAND] == wh[s]).all()
    assert world[ST.S_SEED] == 0


ST_VIEW_HAND = __import__("tractor_sim.core.kernels.view", fromlist=["V_HAND"]).V_HAND


def true_deal_satisfies_knowledge(state):
    st = state._st
    _, shown, void, nopair = knowledge(st)
    tt = table_of(state)
    hands = hands_of(st)
    for s in range(SEATS):
        own = hands[s] + (_piece(st, "BURIED", (CARDS,)) if s == st[ST.S_STARTER] and buried_known(st) else 0)
        assert (own >= shown[s]).all()
        for e in range(EFF_SUITS):
            if void[s, e]:
                assert hands[s][tt[TT_EFF] == e].sum() == 0
            if nopair[s, e]:
                assert (hands[s][tt[TT_EFF] == e] < PAIR).all()


def _policies_for(rules_name):
    register_test_policies()
    if rules_name == "auction":
        return lambda turn: BIDDER if turn.decision == "bid" else "expert" if turn.seat % 2 else "random"
    return lambda turn: RASH if turn.decision == "lead" and turn.seat == 1 else ("basic", "random")[turn.seat % 2]


CHECKED = Counter()


def _work(table):
    """The sampler's work arrays; with ``table = "chain"`` no table (every deal by the chain)."""
    work = SM.new_work()
    return work if table == "exact" else (work[0], np.zeros(0), work[2])


@pytest.mark.parametrize("rules_name,table", [(r, "exact") for r in RULE_SETS] + [("standard", "chain")] + [
    pytest.param(r, "chain", marks=pytest.mark.slow) for r in RULE_SETS if r != "standard"])
def test_no_world_contradicts_the_record_and_every_world_plays_out(rules_name, table):
    rules = RULE_SETS[rules_name]
    seed = 17 + list(RULE_SETS).index(rules_name)
    states = states_of(rules, range(12), _policies_for(rules_name), every=7, seed=seed)
    enc = states[0]._enc
    work = _work(table)
    world, wws = D.new_state(), D.new_workspace(enc)
    err, nolog = np.zeros(PH.ERR_SIZE, dtype=np.int64), np.zeros((1, D.LOG_COLS), dtype=np.int64)
    fns_by = [Game.of().resolve(pair)[1:] for pair in (("basic", "expert"), ("random", "basic"))]
    rng = np.array([77], dtype=np.uint64)
    phases = Counter()
    for state in states:
        true_deal_satisfies_knowledge(state)
        for seat in range(SEATS):
            for k in range(2):
                assert SM.sample_world(state._st, state._ws, seat, work, rng, world, wws) == 1
                consistent_world(state, seat, world, wws)
                params, fns = fns_by[k]
                assert D.play_from(world, wws, enc, params, fns, err, nolog) == PH.ERR_NONE
                assert world[ST.S_PHASE] == ST.PH_DONE
                phases[int(state._st[ST.S_PHASE])] += 1
    CHECKED[rules_name] = len(states)
    print(f"{rules_name}: {len(states)} states, {sum(phases.values())} worlds played out, by phase {dict(phases)}")
    assert phases[ST.PH_KITTY] and phases[ST.PH_LEAD] and phases[ST.PH_FOLLOW]
    assert len(states) >= 100


@pytest.mark.parametrize("table", ["exact", "chain"])
def test_the_contract_worlds_depend_only_on_what_the_seat_knows(table):
    """Sampling from a world (a true state that differs from the deal only in what the seat cannot see)
    gives the worlds sampling from the deal gives, for the same stream: state, views, scratch, streams
    (by the table, and by the chain, whose start is the seat's knowledge's alone)."""
    register_test_policies()
    states = states_of(None, range(4), _policies_for("standard"), every=11, seed=23)
    enc = states[0]._enc
    work = _work(table)
    differ = 0
    for state in states:
        for seat in range(SEATS):
            w1, ws1 = D.new_state(), D.new_workspace(enc)
            assert SM.sample_world(state._st, state._ws, seat, work, np.array([9], dtype=np.uint64), w1, ws1)
            differ += not (hands_of(w1) == hands_of(state._st)).all()
            outs = []
            for st, ws in ((state._st, state._ws), (w1, ws1)):
                w, wws = D.new_state(), D.new_workspace(enc)
                assert SM.sample_world(st, ws, seat, work, np.array([31337], dtype=np.uint64), w, wws) == 1
                outs.append((w, wws))
            (a, aws), (b, bws) = outs
            assert (a == b).all()
            for x, y in zip(aws, bws):
                assert (x == y).all()
    assert differ > 0.9 * len(states) * SEATS


def test_world_views_are_the_views_the_engine_keeps():
    """Building every seat's view from one seat's view and the true hands gives the engine's own views."""
    register_test_policies()
    for state in states_of("russian", range(3), _policies_for("auction"), every=13, seed=2):
        st, views = state._st, state._ws[0]
        for seat in range(SEATS):
            built = np.zeros_like(views)
            st2 = st.copy()
            hands = hands_of(st2)
            held, hpairs = _piece(st2, "HELD", (SEATS, EFF_SUITS)), _piece(st2, "HPAIRS", (SEATS, EFF_SUITS))
            buried_seat = st[ST.S_STARTER] if buried_known(st) else -1
            for v in range(SEATS):
                P.world_view(built, v, views[seat].copy(), hands, held, hpairs, _piece(st2, "BURIED", (CARDS,)),
                             buried_seat, table_of(state))
            assert (built == views).all()


# ---------------------------------------------------------------- the knowledge against the event log

def _unit_of(counts, tt):
    """(pairs, top position) of a one-unit play: a single (0 pairs), a pair or a tractor."""
    cards = np.nonzero(counts)[0]
    top = max(tt[TT_POS, c] for c in cards)
    return (0 if counts.sum() == 1 else int(counts.sum()) // PAIR), top


def _lowest_beating_unit(hand, tt, suit, pairs, top):
    ids = [c for c in range(CARDS) if tt[TT_EFF, c] == suit and hand[c] > 0]
    if pairs == 0:
        above = sorted((tt[TT_POS, c], c) for c in ids if tt[TT_POS, c] > top)
        return {above[0][1]: 1} if above else {}
    by_pos = {}
    for c in sorted(ids):
        if hand[c] >= PAIR:
            by_pos.setdefault(int(tt[TT_POS, c]), c)
    for q in sorted(by_pos):
        if q > top and all(q - j in by_pos for j in range(pairs)):
            return {by_pos[q - j]: PAIR for j in range(pairs)}
    return {}


class Recount:
    """The knowledge recomputed from the event log in plain Python."""

    def __init__(self):
        self.reset()
        self.seen = Counter()

    def reset(self):
        self.played = np.zeros((SEATS, CARDS), dtype=np.int64)
        self.shown = np.zeros((SEATS, CARDS), dtype=np.int64)
        self.void = np.zeros((SEATS, EFF_SUITS), dtype=np.int64)
        self.nopair = np.zeros((SEATS, EFF_SUITS), dtype=np.int64)
        self.hands = np.zeros((SEATS, CARDS), dtype=np.int64)
        self.lead = None
        self.source = None

    def _show(self, seat, c, x):
        self.shown[seat, c] = max(self.shown[seat, c], x)

    def _play(self, seat, counts):
        self.played[seat] += counts
        self.shown[seat] = np.maximum(self.shown[seat] - counts, 0)
        self.hands[seat] -= counts

    def _finish_lead(self):
        if self.lead is not None:
            self._play(*self.lead)
            self.lead_counts = self.lead[1]
            self.lead = None

    def events(self, log, start, state):
        tt = table_of(state)
        rank = int(state._st[ST.S_RANK])
        for i in range(start, int(log[0, 0]) + 1):
            kind, seat, a, b = (int(v) for v in log[i, :EV.LC_CARDS])
            cards = log[i, EV.LC_CARDS:EV.LC_CARDS + CARDS].copy()
            if kind == EV.LOG_REDEAL:
                self.reset()
            elif kind == EV.LOG_DECLARE:
                self._show(seat, b, 1 if a == SINGLE else PAIR)
            elif kind == EV.LOG_SHOW:
                self._show(seat, a, 1)
            elif kind == EV.LOG_TRUMP:
                self.source = b
            elif kind == EV.LOG_HAND:
                self.hands[seat] = cards
            elif kind == EV.LOG_KITTY:
                kitty = [int(c) for c in cards[:SM.KITTY]]
                for c in kitty:
                    self.hands[seat, c] += 1
                if self.source == PH.SRC_FLIP:
                    self.seen["kitty turned up"] += 1
                    for j, c in enumerate(kitty):
                        self._show(seat, c, kitty[:j + 1].count(c))
                        if c < BJ and c % RANKS == rank:
                            break
            elif kind == EV.LOG_BURY:
                self.hands[seat] -= cards
            elif kind == EV.LOG_LEAD:
                self.lead = (seat, cards)
            elif kind == EV.LOG_FAILED_THROW:
                self.seen["failed throw"] += 1
                leader, throw = self.lead
                for c in np.nonzero(throw)[0]:
                    self._show(leader, c, throw[c])
                suit = tt[TT_EFF, np.nonzero(cards)[0][0]]
                pairs, top = _unit_of(cards, tt)
                if a >= 0:
                    for c, x in _lowest_beating_unit(self.hands[a], tt, suit, pairs, top).items():
                        self._show(a, c, x)
                self.lead = (leader, cards)
            elif kind == EV.LOG_FOLLOW:
                self._finish_lead()
                lead = self.lead_counts
                suit = tt[TT_EFF, np.nonzero(lead)[0][0]]
                in_suit = tt[TT_EFF] == suit
                lead_pairs = int((lead // PAIR).sum())
                if cards[in_suit].sum() < lead.sum():
                    self.void[seat, suit] = self.nopair[seat, suit] = 1
                    self.seen["void"] += 1
                elif (cards[in_suit] // PAIR).sum() < lead_pairs:
                    self.nopair[seat, suit] = 1
                    self.seen["no pair"] += 1
                self._play(seat, cards)
        self._finish_lead()


@pytest.mark.parametrize("case", ["standard", "auction", "follow_tractor", "round1", "kitty_turned_up"])
def test_knowledge_equals_a_recount_from_the_event_log(case):
    register_test_policies()
    rules = RULE_SETS.get(case)
    new = {"round1": {"round1": True}, "kitty_turned_up": {"levels": (5, 9)}}.get(case, {})
    policies = _policies_for("auction" if case == "auction" else "standard")
    if case == "kitty_turned_up":
        policies = (lambda turn: SHY if turn.decision == "declare" else "random")
    seen = Counter()
    steps = 0
    for deal_id in range(8):
        state = State.new(seed=41 + len(case), deal_id=deal_id, rules=rules, **new)
        log = np.zeros((4000, D.LOG_COLS), dtype=np.int64)
        state._nolog = log  # the state's steps now fill a log
        recount = Recount()
        done = 0
        while not state.over:
            _step(state, policies)
            recount.events(log, done + 1, state)
            done = int(log[0, 0])
            played, shown, void, nopair = knowledge(state._st)
            assert (played == recount.played).all()
            assert (shown == recount.shown).all(), (np.nonzero(shown != recount.shown))
            assert (void == recount.void).all()
            assert (nopair == recount.nopair).all()
            true_deal_satisfies_knowledge(state)
            steps += 1
        seen.update(recount.seen)
    print(f"{case}: {steps} steps checked, {dict(seen)}")
    assert seen["void"] and seen["no pair"]
    if case == "standard":
        assert seen["failed throw"]
    if case == "kitty_turned_up":
        assert seen["kitty turned up"]


def test_state_sample_world_from_python():
    state = State.new(seed=8, deal_id=1)
    with pytest.raises(ValueError, match="kitty exchange"):
        state.sample_world(0, 1)  # the draw: no world yet
    while state._st[ST.S_PHASE] != ST.PH_FOLLOW or state._st[ST.S_TRICK] < 6:
        _step(state, ("basic", "basic"))
    seat = state.to_act().seat
    a, b, c = state.sample_world(seat, 5), state.sample_world(seat, 5), state.sample_world(seat, 6)
    assert (a._st == b._st).all() and not (a._st == c._st).all()
    assert a.to_act() == state.to_act() and a.hand(seat) == state.hand(seat)
    assert (a.observation(seat) == state.observation(seat)).all()  # the seat cannot tell them apart
    consistent_world(state, seat, a._st, a._ws)
    a.play_out("expert", "basic")
    assert a.over and not state.over
