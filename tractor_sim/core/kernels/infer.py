"""Inference from the plays: the search's worlds resampled by how likely the opponents' plays were.

The sampler (kernels.sampler) deals the unseen cards uniformly given hard
constraints (voids, shown cards, missing pairs); it does not ask whether a
seat holding those cards would have played what it played.  Here every
world is weighed by that: the deal is replayed in the world from the first
lead (``start_of_play``: the world's hands with the cards played since given
back), and at each play of an opponent the model policy is asked in that
seat's replayed view.  A deterministic model with slips: the seat plays the
model's answer with probability 1 - EPS, else another play, whose
distribution is taken to be the same in every world (so a slip weighs EPS:
spreading EPS over the seat's other plays made worlds where it had few
options likelier, and measured no better).  A world's weight is the product
over the observed plays (logs summed); a play the world makes illegal, or a
throw whose verdict the world changes, gives weight 0 (the world is
impossible).  The partner's plays are applied, not weighed: the partner
plays the search too, which leaves the base policy's answer at some 40% of
its decisions (measured), so the base is no model of it.  In Finding Friends
the same holds of the seats of the searching seat's policy side (the
duplicate arrangement's, public): the other side's seats are weighed,
whichever side of the deal they end on, and the replay plays the calls'
joining again.

Sample-importance-resample (not weighted rollout values): POOL x worlds
worlds are drawn and replayed (a replay costs about one rollout of the plays
so far, no candidate), and ``worlds`` of them are kept by systematic
resampling on their weights.  The rollouts then run as without inference, on
equally weighted worlds, so the candidates' paired gains and their standard
errors (search.chosen_candidate) keep their meaning, and no rollout is spent
on a world of negligible weight.  Each world is kept once at most
(``inclusion``: probabilities proportional to the weights, capped at 1; a
copy would add nothing and shrink the paired gains' standard errors).
Tempered: after a few tricks the weights
of a uniform pool are degenerate (measured: an effective sample size of 1
to 2 of 64 by the sixth trick, every kept world the same one), so they are
raised to the largest power beta <= 1 that keeps their effective sample
size at least ESS_SHARE x worlds (``tempering``): beta = 1, the posterior,
while the pool is rich enough, else a compromise between it and the uniform
worlds.  Deterministic: the pool, the model's streams and the resampling
draw are keyed by (seed, deal, decision, pool index) like every stream of
the search, never by the chunk or the candidates.  When no opponent has
played yet, or no world of the pool is possible, the worlds are the uniform
ones (``picks`` 0..worlds-1), exactly as without inference.

What it assumes: the opponents play like the model up to EPS, and their
state at the first lead is what the model would have with empty scratch
memory (what a strategy remembered from the draw is not replayed).  The
declarations and the burial are not weighed.  Exact where the weights are:
when the model is right up to EPS and the weights need no tempering, the
kept worlds are drawn from the posterior given the plays (as POOL grows).
At EPS = 1/2 a slip weighs as much as the model's answer: every world
weighs alike, and the kept worlds are uniform, as without inference.
"""

import numpy as np
from numba import njit

from . import publish as P
from .deal import N_DECISIONS
from .dims import CARDS, DECK, DECKS, EFF_SUITS, SEATS, TRICKS, team_of
from .layout import Layout
from .phases import ERR_NONE, to_act
from .rng import stream_key, uniform
from .search import (
    MAX_WORLDS, P_WORLD, WORLD_TRUE, apply_answer, decision_index, make_world, prepare_worlds,
)
from .state import (
    ANSWER, BURIED, HANDS, HELD, HPAIRS, K_PLAYED, S_FAILED, S_KEY_A, S_KEY_B, S_RANK, S_SEED, S_STARTER, S_SUIT,
    SHUFFLED, STATE_SIZE,
)
from .unowned import rows_in
from .view import FOLLOW, LEAD, V_ROWS

INFER_NONE = 0  # search SS_INFER: the uniform worlds
INFER_MODEL = 1  # the worlds resampled by the likelihood of the plays under the model policy
EPS = 0.1  # the probability that a seat's play is not the model's answer (docs/search.md)
POOL = 4  # worlds drawn and weighed per world kept (at most MAX_WORLDS in all)
ESS_SHARE = 1.0  # the weights are tempered to an effective sample size of at least this x the worlds kept
TEMPER_STEPS = 30  # bisection steps of the tempering power
P_INFER = P_WORLD + (P_WORLD >> 1)  # stream purposes of inference: the resampling draw by decision index,
P_REPLAY = P_INFER + (1 << 24)  # then the model's streams in replays, by (decision index, pool world, seat)
MAX_PLAYS = TRICKS * SEATS  # plays in a deal, at most
# One observed play of the deal (a row of the history).
PLAY = Layout("observed play", [
    ("H_SEAT", 1, "who played"),
    ("H_DECISION", 1, "view.LEAD or view.FOLLOW"),
    ("H_N", 1, "cards in the answer"),
    ("H_FAILED", 1, "the deal's failed throws after it (S_FAILED): a world must give the same verdict"),
    ("H_CARDS", CARDS, "the answer given (counts; a failed throw's whole attempt)"),
])
globals().update(PLAY.constants())
H_FIELDS = PLAY.size


@njit(cache=True)
def new_history():
    """A deal's observed plays: (the state and views when the first lead was asked, the plays in
    order, their count: -1 until the first lead)."""
    return (np.zeros(STATE_SIZE, dtype=np.int64), np.zeros((SEATS, V_ROWS, CARDS), dtype=np.int64),
            np.zeros((MAX_PLAYS, H_FIELDS), dtype=np.int64), np.full(1, -1, dtype=np.int64))


@njit(cache=True)
def new_deal(history):
    """Forget the previous deal's plays."""
    history[3][0] = -1


@njit(cache=True)
def observe(st, ws, seat, decision, n, history):
    """Before the answer in the ANSWER buffer is applied: the snapshot at the first lead, then the
    play's row (its verdict: ``observed`` after it is applied)."""
    snap, snap_views, plays, count = history
    if decision != LEAD and decision != FOLLOW:
        return
    if count[0] < 0:
        views = ws[0]
        for i in range(STATE_SIZE):
            snap[i] = st[i]
        for s in range(SEATS):
            for r in range(V_ROWS):
                for c in range(CARDS):
                    snap_views[s, r, c] = views[s, r, c]
        count[0] = 0
    k = count[0]
    if k >= MAX_PLAYS:
        return
    plays[k, H_SEAT] = seat
    plays[k, H_DECISION] = decision
    plays[k, H_N] = n
    for c in range(CARDS):
        plays[k, H_CARDS + c] = st[ANSWER + c]


@njit(cache=True)
def observed(st, decision, history):
    """After the play was applied: its verdict, and the row kept."""
    if decision != LEAD and decision != FOLLOW:
        return
    _, _, plays, count = history
    if 0 <= count[0] < MAX_PLAYS:
        plays[count[0], H_FAILED] = st[S_FAILED]
        count[0] += 1


@njit(cache=True)
def start_of_play(seat, wst, wws, history, rst, rws):
    """The world (wst, wws) as it stood at the first lead, into (rst, rws): the snapshot's public
    state with the world's hands, each given back the cards its seat played since (public), and the
    world's kitty; views built from ``seat``'s view then (kernels.publish.world_view), scratch
    zeroed.  Nothing hidden of the snapshot is read: every hand and the kitty are the world's."""
    snap, snap_views = history[0], history[1]
    for i in range(STATE_SIZE):
        rst[i] = snap[i]
    rst[S_SEED] = 0
    for i in range(DECK):
        rst[SHUFFLED + i] = i // DECKS
    for s in range(SEATS):
        for c in range(CARDS):
            back = wst[K_PLAYED + s * CARDS + c] - snap[K_PLAYED + s * CARDS + c]
            rst[HANDS + s * CARDS + c] = wst[HANDS + s * CARDS + c] + back
    for c in range(CARDS):
        rst[BURIED + c] = wst[BURIED + c]
    views, scratch, _, tables = rws
    tt = tables[snap[S_RANK], snap[S_SUIT]]
    hands = rows_in(rst, HANDS, SEATS, CARDS)
    held = rows_in(rst, HELD, SEATS, EFF_SUITS)
    hpairs = rows_in(rst, HPAIRS, SEATS, EFF_SUITS)
    public = snap_views[seat]
    for v in range(SEATS):
        P.world_view(views, v, public, hands, held, hpairs, rst[BURIED:BURIED + CARDS], snap[S_STARTER], tt)
        for k in range(scratch.shape[1]):
            scratch[v, k] = 0.0


@njit(cache=True)
def _ask(model_fns, model_params, team, rst, rws, s, decision):
    """The model's answer at seat s's replayed decision, into the ANSWER buffer."""
    views, scratch, rngs, _ = rws
    answer = rst[ANSWER:ANSWER + CARDS]
    for c in range(CARDS):
        answer[c] = 0
    base = team * N_DECISIONS
    if decision == LEAD:
        return model_fns[base + LEAD](views[s], model_params[team, LEAD], rngs[s], scratch[s], answer)
    return model_fns[base + FOLLOW](views[s], model_params[team, FOLLOW], rngs[s], scratch[s], answer)


@njit(cache=True)
def log_weight(st, seat, rules, model_fns, model_params, history, wst, wws, rst, rws, err, nolog, stream):
    """The log-likelihood of the other seats' observed plays in the world (wst, wws) under the model
    (module docstring): -inf when the world cannot have produced them.  ``stream``: the first of the
    model's stream purposes for this world (a seat's stream is stream + seat)."""
    _, _, plays, count = history
    start_of_play(seat, wst, wws, history, rst, rws)
    _, _, rngs, _ = rws
    for s in range(SEATS):
        rngs[s, 0] = stream_key(np.uint64(st[S_SEED]), st[S_KEY_A], st[S_KEY_B], stream + s)
    team = team_of(seat)
    total = 0.0
    for i in range(min(count[0], MAX_PLAYS)):
        s = plays[i, H_SEAT]
        decision = plays[i, H_DECISION]
        who, what = to_act(rst)
        if who != s or what != decision:
            return -np.inf
        if team_of(s) != team:
            _ask(model_fns, model_params, team, rst, rws, s, decision)
            same = True
            for c in range(CARDS):
                same = same and rst[ANSWER + c] == plays[i, H_CARDS + c]
            total += np.log(1.0 - EPS) if same else np.log(EPS)
        for c in range(CARDS):
            rst[ANSWER + c] = plays[i, H_CARDS + c]
        if apply_answer(rst, rws, rules, err, nolog, decision, plays[i, H_N]) != ERR_NONE:
            return -np.inf
        if rst[S_FAILED] != plays[i, H_FAILED]:
            return -np.inf
    return total


@njit(cache=True)
def others_played(seat, history):
    """Plays of the opponents observed so far this deal (the plays weighed)."""
    _, _, plays, count = history
    n = 0
    for i in range(min(max(count[0], 0), MAX_PLAYS)):
        if team_of(plays[i, H_SEAT]) != team_of(seat):
            n += 1
    return n


@njit(cache=True, inline='always')
def _tempered(logw, beta):
    """exp(beta x logw); 0 for an impossible world at any beta (0 x -inf is no number)."""
    return 0.0 if logw == -np.inf else np.exp(beta * logw)


@njit(cache=True)
def effective_size(logw, n, beta):
    """The effective sample size (sum w)^2 / sum w^2 of the weights exp(beta x logw[:n]) (a plain
    count of the possible worlds at beta = 0)."""
    a = 0.0
    b = 0.0
    for j in range(n):
        w = _tempered(logw[j], beta)
        a += w
        b += w * w
    return a * a / b if b > 0.0 else 0.0


@njit(cache=True)
def tempering(logw, n, target):
    """The power beta in [0, 1] the weights are raised to: 1 (the posterior) when their effective
    sample size is at least ``target``, else the largest beta that keeps it so (bisection; the size
    falls as beta grows, from n at 0)."""
    if effective_size(logw, n, 1.0) >= target:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(TEMPER_STEPS):
        mid = 0.5 * (low + high)
        if effective_size(logw, n, mid) >= target:
            low = mid
        else:
            high = mid
    return low


@njit(cache=True)
def pick_worlds(st, ws, rules, seat, decision, worlds, source, infer, model_fns, model_params, history, wst, wws, rst,
                rws, sampler_work, rng, err, nolog, held, picks, logw):
    """The world streams the search rolls out, into picks[:worlds] (search.evaluate_picked): 0..worlds-1
    without inference (or nothing observed, or no possible world in the pool), else ``worlds`` draws
    by systematic resampling from a pool of POOL x worlds by their weights (module docstring).
    Returns the pool's worlds weighed (0 when none), or -1 when a world could not be made."""
    for w in range(worlds):
        picks[w] = w
    if infer == INFER_NONE or source == WORLD_TRUE or others_played(seat, history) == 0:
        return 0
    if not prepare_worlds(st, ws, seat, source, sampler_work):
        return -1
    index = decision_index(st, decision)
    pool = min(POOL * worlds, MAX_WORLDS)
    best = -np.inf
    for j in range(pool):
        if not make_world(st, ws, source, j, wst, wws, sampler_work, rng, held, index):
            return -1
        logw[j] = log_weight(st, seat, rules, model_fns, model_params, history, wst, wws, rst, rws, err, nolog,
                             held + P_REPLAY + (index * MAX_WORLDS + j) * SEATS)
        best = max(best, logw[j])
    if best == -np.inf:
        return pool
    for j in range(pool):
        logw[j] -= best
    beta = tempering(logw, pool, worlds * ESS_SHARE)
    for j in range(pool):
        logw[j] = _tempered(logw[j], beta)
    rng[0] = stream_key(np.uint64(st[S_SEED]), st[S_KEY_A], st[S_KEY_B], held + P_INFER + index)
    systematic(logw, pool, worlds, inclusion(logw, pool, worlds), uniform(rng), picks)
    return pool


@njit(cache=True)
def inclusion(w, n, k):
    """Turn the weights w[:n] into inclusion probabilities min(1, c w) summing to k, in place, when
    at least k worlds are possible (then systematic sampling keeps k distinct worlds: a world kept
    twice would add nothing, a deterministic base rolls it out alike, and would shrink the paired
    gains' standard errors); else leave them and return their total (worlds are kept again)."""
    positive = 0
    total = 0.0
    for j in range(n):
        if w[j] > 0.0:
            positive += 1
        total += w[j]
    if positive < k:
        return total
    capped = np.zeros(n, dtype=np.bool_)
    c = 0.0
    for _ in range(n):
        free_total = 0.0
        free_k = k
        for j in range(n):
            if capped[j]:
                free_k -= 1
            else:
                free_total += w[j]
        c = free_k / free_total
        more = False
        for j in range(n):
            if not capped[j] and c * w[j] >= 1.0:
                capped[j] = True
                more = True
        if not more:
            break
    for j in range(n):
        w[j] = 1.0 if capped[j] else c * w[j]
    return float(k)


@njit(cache=True)
def systematic(w, n, k, total, u, picks):
    """Systematic sampling: k positions (u + i) / k x total along the running sum of w[:n] (u in
    [0, 1)), each the index whose share covers it, in order."""
    j = 0
    acc = w[0]
    for i in range(k):
        target = (u + i) / k * total
        while acc <= target and j < n - 1:
            j += 1
            acc += w[j]
        picks[i] = j
