"""Contexts: one experiment's matchups played again with another policy at every undecided decision.

A finding made against ``basic`` may only say how to beat ``basic``.  An
experiment's ``contexts = ["basic", "expert", "search:expert:8"]`` plays every
matchup once per context, on the same duplicate deals (same seed, same deal
ids).  The context completes a *partial* table, one without ``policy``:
``{discard = "void"}`` in context ``expert`` is ``expert`` burying with
``void``.  A policy name, a table with ``policy`` and a search table are full
policies and play as they are in every context.  A search context keeps its
budget and searches over the completed table the decisions the table does not
name (``decisions``: of the declaration, the burial, the lead and the follow,
those left to the context), so the studied decision is always the table's own; a table that
names every searched decision leaves the search nothing and is refused there.
"""

from __future__ import annotations

import difflib

from tractor_sim.play import search

DECISIONS = ("declare", "discard", "lead", "follow", "bid", "call")  # kernels.view.DECISIONS, without compiling
PARTIAL_KEYS = ("name", "description", "params") + DECISIONS
SEP = "@"  # a matchup's name in a context: NAME@CONTEXT (a run's matchup column; the context column too)


class ContextError(ValueError):
    """A bad context, or a table a context cannot complete; the message names it."""


def is_partial(spec) -> bool:
    """A table without ``policy``: what a context completes."""
    return isinstance(spec, dict) and "policy" not in spec


def partial_name(spec: dict) -> str:
    """A partial table's display name: its ``name``, else the strategies it names ("discard=void")."""
    return spec.get("name") or "+".join(f"{d}={spec[d]}" for d in DECISIONS if d in spec) or "custom"


def context_name(spec) -> str:
    """A context's display name: the policy name, or the table's name (search tables: as the search names it)."""
    if search.is_search(spec):  # a name too: its numbers are read (and checked) when tables complete it
        try:
            name = search.parse(spec)[2]
        except search.SearchSpecError as e:
            raise ContextError(str(e)) from None
        return spec if isinstance(spec, str) else name
    if isinstance(spec, str):
        return spec
    return spec.get("name") or spec.get("policy") or "custom"


def check(contexts, where: str) -> list:
    """Validate the field ``contexts``: a non-empty list of policy names or tables with distinct names."""
    if not isinstance(contexts, list) or not contexts:
        raise ContextError(f"{where}: field 'contexts' must be a non-empty list of policy names or tables, "
                           f"got {contexts!r}")
    names = []
    for i, c in enumerate(contexts):
        if not (isinstance(c, str) and c) and not isinstance(c, dict):
            raise ContextError(f"{where}: contexts[{i}] must be a policy name or a table, got {c!r}")
        if is_partial(c) and not all(d in c for d in DECISIONS[:4]):
            raise ContextError(f"{where}: contexts[{i}] must be a full policy (a name, a table with 'policy', "
                               f"or all four strategies), got {c!r}")
        try:
            names.append(context_name(c))
        except ContextError as e:
            raise ContextError(f"{where}: contexts[{i}]: {e}") from None
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ContextError(f"{where}: contexts must have distinct names; repeated: {', '.join(dup)} "
                           f"(give a table context a name)")
    return list(contexts)


def _flat_params(params) -> dict:
    """{"discard.threshold": 9} or {"discard": {"threshold": 9}} as flat "decision.name" keys."""
    out = {}
    for key, value in (params or {}).items():
        if isinstance(value, dict):
            out.update({f"{key}.{p}": v for p, v in value.items()})
        else:
            out[str(key)] = value
    return out


def _complete_table(spec: dict, base) -> dict:
    """``spec`` (partial) over the full non-search policy ``base`` (a name or a table)."""
    table = {"policy": base} if isinstance(base, str) else {k: v for k, v in base.items()
                                                            if k not in ("name", "description")}
    named = [d for d in DECISIONS if d in spec]
    params = {k: v for k, v in _flat_params(table.pop("params", None)).items() if k.split(".", 1)[0] not in named}
    params.update(_flat_params(spec.get("params")))
    out = {**table, **{d: spec[d] for d in named}, "name": partial_name(spec)}
    if params:
        out["params"] = params
    return out


def complete(spec, context, where: str = "policy"):
    """The policy ``spec`` plays in ``context``: a partial table completed by it, anything else as it is."""
    if not is_partial(spec):
        return spec
    for key in spec:
        if key not in PARTIAL_KEYS:
            close = difflib.get_close_matches(str(key), PARTIAL_KEYS, n=1)
            raise ContextError(f"{where}: unknown policy key {key!r}" + (f" (did you mean {close[0]!r}?)" if close
                                                                          else ""))
    if not search.is_search(context):
        return _complete_table(spec, context)
    table = search._from_name(context) if isinstance(context, str) else dict(context)
    searched = table.get("decisions", search.SEARCHABLE)
    searched = [d for d in ([searched] if isinstance(searched, str) else searched) if d not in spec]
    if not searched:
        raise ContextError(f"{where} names every decision the search context {context_name(context)!r} searches: "
                           "drop that context, or a key")
    table["decisions"] = searched
    table["base"] = _complete_table(spec, table.get("base", search.DEFAULT_BASE))
    table["name"] = partial_name(spec)
    return table


def expand(matchups: list, contexts: list, where: str = "<experiment>") -> list:
    """Every matchup once per context: dicts {name NAME@CONTEXT, a, b, context, key}; without contexts the
    matchups as they are (nothing changes for an experiment without the field)."""
    if not contexts:
        return matchups
    out = []
    for c in contexts:
        cname = context_name(c)
        for m in matchups:
            key = m.get("key", m["name"])
            sides = {s: complete(m[s], c, f"{where}: {key}.{s}") for s in ("a", "b")}
            out.append({**m, **sides, "name": f"{m['name']}{SEP}{cname}", "context": cname})
    return out
