"""What searching the declaration and the burial adds: a search over every decision against the same
search over leads and follows only, head to head on duplicate deals, and the time per searched decision
by decision type.

Run: python benchmarks/bench_search_decisions.py [--deals 200] [--worlds 16] [--seed 1] [--game 4:2]
[--only declare] [--matches 200] [--vs-base] [--rules '{"declaring": "auction"}'] [--time bid,call] [--out F.csv]

``--game 5:2f`` plays Finding Friends (every player his own level: a side's score in a deal is the mean
level gain of the seats its policy holds, and a deal's observation is A's minus B's).  ``--vs-base``:
``search:expert:W`` searching every decision against ``expert``.  ``--out``: the per-deal observations
(deal id, A over B in levels, the mean of the two halves) as CSV, the raw data of the printed estimate.

Both sides play the same deals in both seats (duplicate): per deal id, the levels the side searching
every decision gains minus those its opponent gains, summed over the two halves, is one observation;
the mean per deal and its 95% interval (t over deal ids) are printed, and as they come in (``--progress``:
the deals whose two halves are done) so that a run cut short still says something.  The time per searched decision
is measured on a chunk where a team searches one decision type only (``decisions = [...]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np
from scipy import stats

from tractor_sim.runs import engine as E
from tractor_sim.play import search as S


def levels_for_team(deals, team: int) -> np.ndarray:
    """Levels gained by ``team`` minus levels gained by the other team, per deal (fixed levels).  In
    Finding Friends (a level per player): the mean gain of the seats of ``team`` (seat % 2) minus the
    mean gain of the others' (5 players: three seats against two)."""
    names = deals.dtype.names if hasattr(deals, "dtype") and deals.dtype.names else tuple(deals.columns)
    if "level2_after" in names:  # a level per player
        seats = sum(1 for n in names if n.startswith("level") and n.endswith("_after"))
        gains = np.stack([np.asarray(deals[f"level{s}_after"], np.int64) - np.asarray(deals[f"level{s}_before"],
                                                                                        np.int64)
                          for s in range(seats)], axis=1).astype(float)
        mine = np.arange(seats) % 2 == team
        return gains[:, mine].mean(axis=1) - gains[:, ~mine].mean(axis=1)
    gain, gainer = np.asarray(deals["gain"], np.int64), np.asarray(deals["gain_team"], np.int64)
    return np.where(gainer == team, gain, np.where(gainer == 1 - team, -gain, 0))


def interval(per_deal: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean per deal and its 95% t interval."""
    n = len(per_deal)
    mean = per_deal.mean()
    half = stats.t.ppf(0.975, n - 1) * per_deal.std(ddof=1) / np.sqrt(n) if n > 1 else np.inf
    return mean, mean - half, mean + half


def landlord_gain(deals, team: int) -> np.ndarray:
    """Finding Friends: the landlord's own level gain, + when ``team``'s policy (seat % 2) holds his
    seat, - when the other's does.  A deal's two halves share the landlord's seat, so their sum is
    what the landlord gains playing A rather than B: the search's own objective (kernels.search)."""
    starter = np.asarray(deals["starter"], np.int64)
    after = np.stack([np.asarray(deals[f"level{s}_after"], np.int64) for s in range(LANDLORD_SEATS)], axis=1)
    before = np.stack([np.asarray(deals[f"level{s}_before"], np.int64) for s in range(LANDLORD_SEATS)], axis=1)
    rows = np.arange(len(starter))
    gain = after[rows, starter] - before[rows, starter]
    return np.where(starter % 2 == team, gain, -gain)


LANDLORD_SEATS = 0  # set by main: the players of a Finding Friends game (0: a tractor game)


def head_to_head(a, b, deals: int, seed: int, game, progress: bool = False, rules=None,
                 out=None, chunk_size: int = 25) -> tuple[float, float, float, float]:
    """(mean levels per deal of a over b, low, high, seconds) on duplicate deals (``out``: a CSV file for
    the per-deal observations).  In Finding Friends the landlord's own gain, A minus B, is printed too."""
    t0 = time.perf_counter()
    specs = E.plan_chunks([(a, b)], n=deals, seed=seed, chunk_size=chunk_size, game=game, rules=rules)
    specs.sort(key=lambda s: (s.first_id, s.half))  # both halves of a chunk's deals together: a running estimate
    per_deal = np.zeros(deals)
    landlord = np.zeros(deals)
    halves = np.zeros(deals, dtype=np.int64)
    for spec in specs:
        r = E.run_chunk(spec)
        team_of_a = 0 if r.spec.half == 0 else 1
        ids = r.deals["deal_id"].astype(np.int64)
        np.add.at(per_deal, ids, levels_for_team(r.deals, team_of_a))
        if LANDLORD_SEATS:
            np.add.at(landlord, ids, landlord_gain(r.deals, team_of_a))
        np.add.at(halves, ids, 1)
        done = halves == 2
        if out and r.spec.half == 1:  # the pairs done so far: a run cut short keeps its data
            _write_pairs(out, per_deal, done)
        if progress and done.sum() > 1 and r.spec.half == 1:
            mean, low, high = interval(per_deal[done] / 2)
            print(f"  {done.sum()} deals: {mean:+.4f} [{low:+.4f}, {high:+.4f}] "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    seconds = time.perf_counter() - t0
    mean, low, high = interval(per_deal / 2)  # per deal played
    if LANDLORD_SEATS:
        m, lo, hi = interval(landlord)
        print(f"  the landlord's own gain, A minus B: {m:+.4f} [{lo:+.4f}, {hi:+.4f}] levels per deal", flush=True)
    if out:
        _write_pairs(out, per_deal, halves == 2)
    return mean, low, high, seconds


def _write_pairs(out, per_deal, done) -> None:
    """The per-deal observations of the deals whose two halves are done, as CSV."""
    with open(out, "w") as f:
        f.write("deal_id,a_over_b\n")
        f.writelines(f"{i},{per_deal[i] / 2:.6f}\n" for i in np.flatnonzero(done))


def round_one(a, b, matches: int, seed: int, game, progress: bool = False) -> dict:
    """Whole matches on duplicate deals (match mode: round 1 is where a declaration makes the declaring
    team): per match id, a's levels gained minus b's in the round-1 deal, and a's matches won minus b's
    (over both halves, halved); means with their 95% intervals."""
    t0 = time.perf_counter()
    specs = E.plan_chunks([(a, b)], mode="match", n=matches, seed=seed, chunk_size=10, game=game)
    specs.sort(key=lambda s: (s.first_id, s.half))
    first = np.zeros(matches)
    wins = np.zeros(matches)
    for spec in specs:
        deals, match_rows = E.to_frames([E.run_chunk(spec)])[:2]
        team_of_a = 0 if spec.half == 0 else 1
        one = deals[deals["deal_in_match"] == 0]
        np.add.at(first, one["match_id"].to_numpy(np.int64), levels_for_team(one, team_of_a))
        won = np.where(match_rows["winner"] == team_of_a, 1, np.where(match_rows["winner"] == 1 - team_of_a, -1, 0))
        np.add.at(wins, match_rows["match_id"].to_numpy(np.int64), won)
        done = spec.first_id + spec.count
        if progress and spec.half == 1 and done > 1:
            m, lo, hi = interval(first[:done] / 2)
            print(f"  {done} matches: round 1 {m:+.4f} [{lo:+.4f}, {hi:+.4f}] ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    return {"round1": interval(first / 2), "wins": interval(wins / 2), "seconds": time.perf_counter() - t0}


def search_cost(pol, deals: int, seed: int, game=None, rules=None):
    """(the chunk's result, seconds per searched decision) of ``pol`` against expert on ``deals`` deals:
    the same deals' time with expert at every seat taken off, both compiled outside the timing."""
    kw = dict(n=deals, seed=seed, chunk_size=deals, duplicate=False, game=game, rules=rules)
    base = E.plan_chunks([("expert", "expert")], **kw)[0]
    spec = E.plan_chunks([(pol, "expert")], **kw)[0]
    E.run_chunk(dataclasses.replace(spec, count=1))
    E.run_chunk(dataclasses.replace(base, count=1))
    t0 = time.perf_counter()
    E.run_chunk(base)
    plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = E.run_chunk(spec)
    searched = time.perf_counter() - t0 - plain
    return result, searched / max(result.extra.get("decisions", 0), 1)


def time_per_decision(decision: str, worlds: int, deals: int, seed: int, game, rules=None) -> tuple[int, float]:
    """(decisions searched, milliseconds each) for a search of ``decision`` only against its base."""
    pol = {"policy": "search", "base": "expert", "worlds": worlds, "decisions": [decision]}
    result, seconds = search_cost(pol, deals, seed, game, rules)
    return result.extra.get("decisions", 0), 1000 * seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="duplicate deals head to head (0: timing only)")
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", default="4:2", help="PLAYERS:DECKS (tractor teams), PLAYERS:DECKSf (Finding Friends)")
    ap.add_argument("--rules", default="{}", help="rule options as JSON, e.g. '{\"declaring\": \"auction\"}'")
    ap.add_argument("--time", default=None, help="the decision types timed, e.g. bid,call (default: those the game "
                                                 "asks)")
    ap.add_argument("--vs-base", action="store_true", help="instead: search:expert:W (every decision) against "
                                                           "expert")
    ap.add_argument("--out", default=None, help="a CSV file for the per-deal observations")
    ap.add_argument("--chunk-size", type=int, default=25, help="deals per kernel call (the progress lines' step)")
    ap.add_argument("--timing-deals", type=int, default=20, help="deals per decision type timed (0: no timing)")
    ap.add_argument("--progress", action="store_true", help="print the estimate after every chunk")
    ap.add_argument("--matches", type=int, default=0, help="instead: whole matches (round 1 and match wins)")
    ap.add_argument("--only", default=None, help="instead: search:expert:W[ONLY] against expert (one decision "
                                                 "type's gain alone, less noisy)")
    args = ap.parse_args()
    players, decks = args.game.rstrip("f").split(":")
    friends = args.game.endswith("f")
    global LANDLORD_SEATS
    LANDLORD_SEATS = int(players) if friends else 0
    game = {"players": int(players), "decks": int(decks), "teams": "friends" if friends else "tractor"}
    rules = json.loads(args.rules)
    auction = rules.get("declaring") == "auction"
    every = {"policy": "search", "base": "expert", "worlds": args.worlds}
    plays = {**every, "decisions": ["lead", "follow"]}
    asked = ("bid" if auction else "declare", "discard") + (("call",) if friends else ()) + ("lead", "follow")
    timed = args.time.split(",") if args.time else asked
    for decision in timed if args.timing_deals else ():
        n, ms = time_per_decision(decision, args.worlds, args.timing_deals, args.seed + 1, game, rules)
        print(f"{decision:8s} searched {n:5d} decisions, {ms:7.2f} ms each ({args.worlds} worlds, {args.game})",
              flush=True)
    if args.deals == 0:  # timing only
        return
    if args.matches:
        a = {**every, "decisions": [args.only]} if args.only else every
        b = "expert" if args.only else plays
        got = round_one(a, b, args.matches, args.seed, game, args.progress)
        (m1, l1, h1), (mw, lw, hw) = got["round1"], got["wins"]
        print(f"{S.parse(a)[2]} over {b if isinstance(b, str) else S.parse(b)[2]}, {args.matches} duplicate "
              f"matches: round 1 {m1:+.4f} levels per deal [{l1:+.4f}, {h1:+.4f}], matches won minus lost per match {mw:+.4f} [{lw:+.4f}, {hw:+.4f}] "
              f"({got['seconds']:.0f} s, {args.game})")
        return
    if args.vs_base:
        mean, low, high, seconds = head_to_head(every, "expert", args.deals, args.seed, game, args.progress, rules,
                                                args.out, args.chunk_size)
        print(f"search:expert:{args.worlds} over expert: {mean:+.4f} levels per deal, 95% CI "
              f"[{low:+.4f}, {high:+.4f}] on {args.deals} duplicate deals ({seconds:.0f} s, {args.game}, "
              f"rules {rules})")
        return
    if args.only:
        mean, low, high, seconds = head_to_head({**every, "decisions": [args.only]}, "expert", args.deals, args.seed,
                                                game, args.progress, rules, args.out, args.chunk_size)
        print(f"search:expert:{args.worlds}[{args.only}] over expert: {mean:+.4f} levels per deal, 95% CI "
              f"[{low:+.4f}, {high:+.4f}] on {args.deals} duplicate deals ({seconds:.0f} s, {args.game}, "
              f"rules {rules})")
        return
    mean, low, high, seconds = head_to_head(every, plays, args.deals, args.seed, game, args.progress, rules, args.out,
                                            args.chunk_size)
    print(f"search:expert:{args.worlds} (every decision) over search:expert:{args.worlds}[lead,follow]: "
          f"{mean:+.4f} levels per deal, 95% CI [{low:+.4f}, {high:+.4f}] on {args.deals} duplicate deals "
          f"({seconds:.0f} s, {args.game})")


if __name__ == "__main__":
    main()
