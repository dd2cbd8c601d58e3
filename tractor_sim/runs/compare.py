"""``compare``: is policy A better than B, on duplicate deals, optionally sequential."""

from __future__ import annotations

import numpy as np

from tractor_sim.rules.sizes import as_size
from tractor_sim.runs import engine

from tractor_sim.stats import sprt as SP

from tractor_sim.stats import summary as stats


def _policy(name: str, decision: str | None):
    if decision is None:
        return name
    return {"policy": "basic", decision: name, "name": f"{name}"}


def compare(a: str, b: str, decision=None, max_deals=20_000, sprt=None, seed=0, chunk_size=2000, modules=(),
            rules=None, game=None):
    """Play duplicate deal pairs chunk by chunk (``rules``, the game size ``game``); stop early when the
    SPRT decides."""
    pa, pb = _policy(a, decision), _policy(b, decision)
    name_a = a if decision is None else f"{a} ({decision})"
    name_b = b if decision is None else f"{b} ({decision})"
    if name_a == name_b:
        raise ValueError("A and B are the same: nothing to compare")
    pa = {**pa, "name": name_a} if isinstance(pa, dict) else {"policy": pa, "name": name_a}
    pb = {**pb, "name": name_b} if isinstance(pb, dict) else {"policy": pb, "name": name_b}
    return duel(pa, pb, max_pairs=max_deals, sprt=sprt, seed=seed, chunk_size=chunk_size, modules=modules,
                rules=rules, game=game)


def paired(deals, name_a: str, name_b: str, game=None) -> dict:
    """A's duplicate advantage over B in levels per deal: per team (stats.summary), or in Finding Friends,
    where the sides mix the two policies, per player sitting for each (report/friends.py)."""
    size = as_size(game)
    if size.teams != "friends":
        return stats.paired_comparison(deals, name_a, name_b)
    from tractor_sim.report import friends

    return friends.paired(deals, size.players, name_a, name_b)


def duel(pa: dict, pb: dict, max_pairs=20_000, sprt=None, seed=0, chunk_size=2000, modules=(), rules=None,
         game=None):
    """A against B (policy tables with distinct names) on duplicate deal pairs at level 2 (``game``: a game
    size, default 4 players and 2 decks); with ``sprt`` = (low, high) the GSPRT looks as the pairs come
    and stops when it decides."""
    name_a, name_b = pa["name"], pb["name"]
    specs = engine.plan_chunks([{"name": "compare", "a": pa, "b": pb}], mode="fixed", n=max_pairs, seed=seed,
                               rules=rules, duplicate=True, chunk_size=chunk_size, modules=modules, game=game)
    test = SP.GSPRT(*sprt) if sprt else None
    results = []
    by_first: dict[int, list] = {}
    for spec in specs:
        by_first.setdefault(spec.first_id, []).append(spec)
    for first in sorted(by_first):
        new = [engine.run_chunk(s) for s in by_first[first]]
        results.extend(new)
        if test is not None:
            part, _ = engine.to_frames(new)
            test.update(paired(part, name_a, name_b, game)["scores"])
            if test.state != "continue":
                break
    deals, _ = engine.to_frames(results)
    cmp = paired(deals, name_a, name_b, game)
    if test is not None:
        test.finish()
    return {"a": name_a, "b": name_b, "pairs": int(cmp["n_pairs"]), "comparison": cmp, "deals": deals,
            "sprt": None if test is None else {"test": test, "estimate": SP.corrected_estimate(test)},
            "mde": stats.min_detectable_effect(cmp["sd"], max(1, cmp["n_pairs"])) if cmp["n_pairs"] > 1 else np.nan}


def in_contexts(pa, pb, contexts: list, max_pairs=20_000, seed=0, chunk_size=2000, modules=(), rules=None,
                game=None) -> dict:
    """A against B once per context (runs/contexts.py: each completes a partial table), on the same
    duplicate deals; ``interaction``: A's advantage in one context minus in another, Holm over the pairs
    of contexts (stats/contexts.py)."""
    import pandas as pd

    from tractor_sim.runs import contexts as CTX
    from tractor_sim.stats import contexts as SC

    if as_size(game).teams == "friends":
        raise CTX.ContextError("--context: not in Finding Friends (the interaction test compares teams, and "
                               "the sides of a Finding Friends deal mix the two policies); compare without it")
    contexts = CTX.check(list(contexts), "--context")
    for side, spec in (("A", pa), ("B", pb)):
        if not CTX.is_partial(spec):
            raise CTX.ContextError(f"--context: {side} ({engine.policy_name(spec)}) is a full policy, which plays as "
                                   "it is in every context; give --decision, or A and B as tables without 'policy'")
    names = (CTX.partial_name(pa), CTX.partial_name(pb))
    if names[0] == names[1]:
        raise ValueError("A and B are the same: nothing to compare")
    from tractor_sim.play import registry

    played = {}
    for c in contexts:  # every context resolved before any deal is played: a typo fails at once
        name = CTX.context_name(c)
        played[name] = [CTX.complete(s, c, f"--context {name}: {side}") for s, side in ((pa, "A"), (pb, "B"))]
        for spec, side in zip(played[name], "AB"):
            try:
                registry.resolve_policy(spec)
            except ValueError as e:
                raise ValueError(f"--context {name}: {side}: {e}") from None
    runs, frames = {}, []
    for name, (sa, sb) in played.items():
        r = duel(sa, sb, max_pairs=max_pairs, seed=seed, chunk_size=chunk_size, modules=modules, rules=rules,
                 game=game)
        runs[name] = r
        frames.append(r.pop("deals").assign(matchup=f"compare{CTX.SEP}{name}", context=name))
    deals = pd.concat(frames, ignore_index=True)
    return {"a": names[0], "b": names[1], "contexts": runs, "interaction": SC.by_context(deals)["interaction"]}


def contexts_text(r: dict) -> str:
    """Each context's comparison, then the interactions."""
    out = []
    for name, run in r["contexts"].items():
        out += [f"context {name}:"] + ["  " + line for line in as_text(run).splitlines()]
    t = r["interaction"]
    if len(t):
        out.append(f"{r['a']} - {r['b']}, difference between contexts (same deals; Holm over {len(t)}):")
        for row in t.itertuples():
            verdict = "differs" if row.resolved else "not resolved"
            out.append(f"  {row.context1} - {row.context2}: {row.interaction:+.4f} (95% CI {row.low:+.4f} .. "
                       f"{row.high:+.4f}, p = {row.p_value:.3g}, Holm p = {row.p_holm:.3g}): {verdict}")
    return "\n".join(out)


def as_text(r: dict) -> str:
    c = r["comparison"]
    if not c["sd"] > 0:
        return (f"{r['a']} vs {r['b']}: {r['pairs']} duplicate deal pairs, identical results on every pair "
                f"(the two never played differently, e.g. a bid strategy under rules without an auction)")
    if r["sprt"]:
        return _sprt_text(r)
    per = "levels per deal" if "unpaired_deals_needed" in c else "levels per player and deal (Finding Friends)"
    return "\n".join([
        f"{r['a']} vs {r['b']}: {r['pairs']} duplicate deal pairs",
        f"  A gains {c['mean']:+.4f} {per} more than B "
        f"(95% CI {c['low']:+.4f} .. {c['high']:+.4f}, p = {c['p_value']:.3g})"]
        + ([f"  pairing saves: unpaired play would need {c['unpaired_deals_needed']:,.0f} deals "
            f"for this precision ({c['efficiency']:.1f}x)"] if "unpaired_deals_needed" in c else [])
        + [f"  minimum detectable effect at this size (alpha 0.05, power 0.8): {r['mde']:.4f} {per}"])


def _sprt_text(r: dict) -> str:
    """After a sequential test only its decision, LLR and bounds, and the
    stopping-corrected estimate: the fixed-sample interval and p-value are
    not valid once the data chose when to stop."""
    t, e = r["sprt"]["test"], r["sprt"]["estimate"]
    return "\n".join([
        f"{r['a']} vs {r['b']}: sequential test (GSPRT on pair scores) of A's advantage "
        f"{t.low:g} (H0) against {t.high:g} (H1) levels per deal, {t.n:,} duplicate deal pairs",
        f"  {SP.verdict(t, 'A', 'B')}",
        f"  LLR {t.llr:.2f}, bounds ({t.lower_bound:.2f}, {t.upper_bound:.2f})",
        f"  stopping-corrected estimate of A's advantage: {SP.estimate_text(e)}"])
