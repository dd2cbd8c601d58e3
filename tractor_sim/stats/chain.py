"""A match as an absorbing Markov chain over (level of A, level of B, declarer).

The deal results enter only as each declaring policy's distribution over
level-table rows, assumed not to depend on the levels. Everything else is the
run's resolved rules, through the kernels' own functions (one level table,
kernels/scoring.py): ``row_change`` of a row, ``defended_gain`` for
``must_defend``, ``match_winner`` for ``match_end``. A row's change is the
same with any number of decks; only the points on it differ (rows ``20 D``
points wide, decisions.md 9.9: ``row_points``, ``stats.row_label``). Who declares next follows
``declaring``: under ``draw`` the declarers keep the deal when they hold and
hand it over when they do not; under ``auction`` every deal's bidding decides
anew, so A's team declares with the share observed in the deals.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from tractor_sim.core.kernels import scoring
from tractor_sim.rules.options import Rules, as_rules
from tractor_sim.stats.summary import LEVEL_NAMES, level_step, policy_codes, row_label

TOP = 13  # levels 0..12 = 2..A; 13 and beyond have passed the Ace
NEVER_ENDS = "the match never ends under these row distributions (e.g. every deal 80-115)"

# The kernels' level functions run as plain Python here (the same source): a first call of a compiled one
# loads it from the Numba cache, 0.13 s of a quick start's report for the chain's one table.
row_change, defended_gain, match_winner = (getattr(f, "py_func", f) for f in
                                           (scoring.row_change, scoring.defended_gain, scoring.match_winner))


def row_points(row: int, decks: int = 2) -> int:
    """The smallest opponents' total p on a level-table row (row 0: p <= 0) with ``decks`` decks:
    rows are the step S = 20 * decks points wide (docs/rules.md section 9, decisions.md 9.9)."""
    return 0 if row <= 0 else (5 if row == 1 else level_step(decks) * (row - 1))


def _step(la: int, lb: int, d: int, row: int, encoded) -> tuple[int, int, bool]:
    """Levels after a deal on ``row`` declared by d (0 = A's team), and whether
    the declarers kept: the kernel's row_change and defended_gain."""
    keep, gain = row_change(row)
    team = d if keep else 1 - d
    levels = [la, lb]
    levels[team] += defended_gain(levels[team], gain, keep, encoded)
    return levels[0], levels[1], bool(keep)


@lru_cache(maxsize=None)
def _targets(rules: Rules, n_rows: int) -> np.ndarray:
    """For every state (la, lb, d) and row: [next state without the declarer
    (la * TOP + lb), or -1 when A has won, -2 when B has; keep], and which
    states are already won (reach_ace: a team on A), -1 for none."""
    encoded = rules.encode()
    out = np.zeros((TOP * TOP * 2, n_rows, 2), dtype=np.int64)
    won = np.full(TOP * TOP * 2, -1, dtype=np.int64)
    for la in range(TOP):
        for lb in range(TOP):
            for d in (0, 1):
                s = (la * TOP + lb) * 2 + d
                won[s] = match_winner(la, lb, encoded)
                for r in range(n_rows):
                    na, nb, keep = _step(la, lb, d, r, encoded)
                    w = match_winner(na, nb, encoded)
                    out[s, r] = (-1 - w if w >= 0 else na * TOP + nb, keep)
    return out, won


@lru_cache(maxsize=None)
def _plan(rules: Rules, n_rows: int):
    """The transitions laid out for back-substitution. Levels never go down, so a deal leaves the
    pair (la, lb) only for pairs of larger la + lb: taken an anti-diagonal at a time from the top,
    each pair is a 2 x 2 system (the declarer at unchanged levels) once the pairs above it are known.

    By [state, row]: ``dest``, the slot of the next state (under ``auction`` the next pair, whose
    declarer the bidding mixes), or ``n`` (a slot holding 0) when the deal stays in the pair, ends
    the match or the state is already won; ``same_to`` [state, row, next declarer], 1 for the deals
    that stay in the pair; ``a_wins``, 1 for those that end the match with A's win. ``groups``: the
    anti-diagonals' states as [pair, declarer], top first."""
    t, won = _targets(rules, n_rows)
    n = len(t)
    d = np.arange(n) % 2
    nxt, keep = t[:, :, 0], t[:, :, 1].astype(bool)
    moves = (won < 0)[:, None]  # a won state goes nowhere
    live = moves & (nxt >= 0)
    pair = np.arange(n) // 2
    la, lb = np.divmod(pair, TOP)
    na, nb = np.divmod(nxt, TOP)
    assert ((na >= la[:, None]) & (nb >= lb[:, None]))[live].all(), "levels went down"
    same = live & (nxt == pair[:, None])
    if rules.declaring == "auction":
        dest, same_to = nxt, np.stack([same, same], axis=-1)
    else:
        then = np.where(keep, d[:, None], 1 - d[:, None])
        dest, same_to = 2 * nxt + then, np.stack([same & (then == 0), same & (then == 1)], axis=-1)
    dest = np.where(live & ~same, dest, n)
    diagonal = (la + lb)[::2]
    groups = [2 * np.flatnonzero(diagonal == k)[:, None] + np.arange(2) for k in range(2 * TOP - 2, -1, -1)]
    return dest, same_to.astype(float), (moves & (nxt == -1)).astype(float), won, groups


def _solve_many(p: np.ndarray, a_declares: np.ndarray, rules: Rules):
    """``solve`` for a stack of row distributions at once: ``p`` [declarer, row, replicate],
    ``a_declares`` [replicate] (the replicates last: numpy's loops then run along them). Returns win
    and deals [level A, level B, declarer, replicate] and which replicates end (a singular 2 x 2 block
    divides by 0: the match never ends from some state)."""
    dest, same_to, a_wins, won, groups = _plan(rules, p.shape[1])
    n, reps = len(won), p.shape[2]
    auction = rules.declaring == "auction"
    mix = np.stack([a_declares, 1 - a_declares]) if auction else np.ones((2, reps))
    known = np.zeros((n + 1, 2, reps))  # the slots dest points at: states, or pairs under the auction
    out = np.zeros((n, 2, reps))  # [state, (A wins, deals left), replicate]
    with np.errstate(divide="ignore", invalid="ignore"):
        for g in groups:
            c = (p[:, :, None] * known[dest[g]]).sum(axis=2)  # [pair, declarer, column, replicate]
            c[:, :, 0] += (p * a_wins[g][..., None]).sum(axis=2) + (won[g] == 0)[..., None]
            c[:, :, 1] += (won[g] < 0)[..., None]
            q = (p[:, :, None] * same_to[g][..., None]).sum(axis=2) * mix  # [pair, declarer, next declarer, rep.]
            m00, m01 = 1 - q[:, 0, 0, None], -q[:, 0, 1, None]
            m10, m11 = -q[:, 1, 0, None], 1 - q[:, 1, 1, None]
            det = m00 * m11 - m01 * m10
            x = np.stack([(m11 * c[:, 0] - m01 * c[:, 1]) / det, (m00 * c[:, 1] - m10 * c[:, 0]) / det], axis=1)
            out[g] = x
            if auction:
                known[g[:, 0] // 2] = (x * mix[:, None]).sum(axis=1)
            else:
                known[g] = x
    ends = np.isfinite(out).all(axis=(0, 1)) & (np.abs(out[:, 1]).max(axis=0) <= 1e9)
    out = out.reshape(TOP, TOP, 2, 2, reps)
    return out[:, :, :, 0], out[:, :, :, 1], ends


def solve(probs_a, probs_b, rules: Rules | dict | str | None = None, a_declares: float = 0.5):
    """Exact match outcome from the row distributions.

    ``probs_a[r]``: probability of row r when A's team declares, ``probs_b``
    when B's does; ``a_declares``: under the auction, the chance that A's team
    wins a deal's bidding. Returns (win, deals): arrays [level A, level B,
    declarer of the next deal (0 = A, 1 = B)] of A's match win probability
    and the expected deals left (states already won are 0 / 1 and 0).
    """
    rules = as_rules(rules)
    n_rows = max(len(probs_a), len(probs_b), 4)
    p = np.zeros((2, n_rows, 1))
    p[0, :len(probs_a), 0] = probs_a
    p[1, :len(probs_b), 0] = probs_b
    win, deals, ends = _solve_many(p, np.array([a_declares], float), rules)
    if not ends[0]:
        raise ValueError(NEVER_ENDS)
    return win[..., 0], deals[..., 0]


BOOT_BLOCKS = 20_000


def _start(values, first_a):
    """The value from 2-2 with A's team declaring first with chance ``first_a`` (and any replicate axis)."""
    return first_a * values[0, 0, 0] + (1 - first_a) * values[0, 0, 1]


def win_probability(deals: pd.DataFrame, policy_a: str, policy_b: str, rules=None,
                    n_boot: int = 200, seed: int = 0, confidence: float = 0.95, decks: int = 2) -> dict:
    """Probability that A wins a match from 2-2, from deal-level results alone.

    Uses the deals of A against B (both seatings). The first declarer is
    50/50 under ``draw``; under ``auction`` every declarer is A's team with
    the observed share. The interval is a seeded bootstrap resampling deal
    (match) ids, so both policies' rows on the same deals move together. Returns win_prob, low, high,
    expected_deals, ``table`` (by starting levels), ``row_probs`` and counts.
    ``decks``: the game's, for the rows' names (their points).
    """
    rules = as_rules(rules)
    names, c0, c1 = policy_codes(deals)
    ia = names.index(policy_a) if policy_a in names else -2
    ib = names.index(policy_b) if policy_b in names else -2
    mine = ((c0 == ia) & (c1 == ib)) | ((c0 == ib) & (c1 == ia))
    rows = deals["row"].to_numpy(np.int64)[mine]
    decl = np.where(deals["declaring_team"].to_numpy()[mine] == 0, c0[mine], c1[mine])
    n_rows = max(8, int(rows.max()) + 1 if len(rows) else 0)
    ca = np.bincount(rows[decl == ia], minlength=n_rows)
    cb = np.bincount(rows[decl == ib], minlength=n_rows)
    for name, c in ((policy_a, ca), (policy_b, cb)):
        if c.sum() == 0:
            raise ValueError(f"no deals of {policy_a} against {policy_b} with {name} declaring")
    auction = rules.declaring == "auction"
    share = ca.sum() / (ca.sum() + cb.sum()) if auction else 0.5
    pa, pb = ca / ca.sum(), cb / cb.sum()
    win, left = solve(pa, pb, rules, share)
    first = share if auction else 0.5

    # bootstrap by deal (match) id: A and B play the same deals, so their rows move together. Ids are
    # pooled into at most BOOT_BLOCKS blocks by id (blocks of independent ids are independent)
    mm = deals["match_id"].to_numpy()[mine]
    key = np.where(mm >= 0, mm, deals["deal_id"].to_numpy()[mine]).astype(np.int64)
    lo = int(key.min()) if len(key) else 0
    nb = max(1, min(int(key.max()) - lo + 1 if len(key) else 1, BOOT_BLOCKS))  # ids are near-consecutive
    block = (key - lo) % nb  # whole ids per block, no sort of millions of keys
    per_a = np.bincount(block[decl == ia] * n_rows + rows[decl == ia], minlength=nb * n_rows).reshape(nb, n_rows)
    per_b = np.bincount(block[decl == ib] * n_rows + rows[decl == ib], minlength=nb * n_rows).reshape(nb, n_rows)
    # the same draws as ever, each kept only as its row counts; then all the replicates' chains in one pass
    rng, uniform, both = np.random.default_rng(seed), np.full(nb, 1 / nb), np.hstack([per_a, per_b])
    counts = np.array([rng.multinomial(nb, uniform) @ both for _ in range(n_boot)]).reshape(n_boot, 2, n_rows)
    ba, bb = counts[:, 0], counts[:, 1]
    sa, sb = ba.sum(axis=1), bb.sum(axis=1)
    drawn = (sa > 0) & (sb > 0)
    s = sa[drawn] / (sa[drawn] + sb[drawn]) if auction else np.full(drawn.sum(), 0.5)
    p = np.stack([ba[drawn].T / sa[drawn], bb[drawn].T / sb[drawn]])
    bw, _, ends = _solve_many(p, s, rules)
    boot = _start(bw, s)[ends]
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [tail, 1 - tail]) if len(boot) > 1 else (math.nan, math.nan)
    top = TOP - 1 if rules.match_end == "reach_ace" else TOP
    names = list(LEVEL_NAMES[:top])
    table = pd.DataFrame(first * win[:top, :top, 0] + (1 - first) * win[:top, :top, 1],
                         index=pd.Index(names, name=f"level of {policy_a}"),
                         columns=pd.Index(names, name=f"level of {policy_b}"))
    labels = [row_label(r, decks) for r in range(n_rows)]
    return {
        "policy_a": policy_a, "policy_b": policy_b, "rules": rules, "match_end": rules.match_end,
        "win_prob": float(_start(win, first)), "low": float(lo), "high": float(hi), "n_boot": len(boot),
        "expected_deals": float(_start(left, first)), "table": table,
        "row_probs": pd.DataFrame([pa, pb], index=[f"{policy_a} declares", f"{policy_b} declares"],
                                  columns=labels),
        "n_declared": {"a": int(ca.sum()), "b": int(cb.sum())}, "a_declares": share,
    }
