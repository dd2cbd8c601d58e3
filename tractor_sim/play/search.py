"""The search policies by name: ``search`` (sampled worlds) and ``oracle`` (the true deal, cheating).

A search policy is a base policy plus a budget: at every declaration,
burial, lead, follow, auction step and Finding Friends call of its seats
(``decisions``) the compiled search (kernels.search,
driven by kernels.search_play) rolls each candidate out to the end of the
deal with the base policy at every seat, in ``worlds`` worlds x
``rollouts`` rollouts, and plays the best (kernels.search.chosen_candidate);
a decision not searched is the base policy's.  A burial's candidates are the base
policy's and the burials one swap away from it; a declaration's, the pass
and every declaration allowed (kernels.candidates), valued in worlds of
the draw (kernels.draw_worlds); a bid's, the pass and the bids nearest the
base's (a card shown: the cards held; the trump: the suits), in worlds of
the auction; a call's, the base's calls and those one call away.  It is
written wherever a policy is:

* a name: ``search``, ``search:BASE``, ``search:BASE:WORLDS``,
  ``search:BASE:WORLDS:ROLLOUTS`` (``oracle`` alike), each with the
  decisions searched after it if not all: ``search:expert:16[lead,follow]``;
* a table: ``{policy = "search", base = "expert", worlds = 32, rollouts = 1}``
  (also ``max_candidates``, and ``decisions``, a list of the decisions
  searched among ``declare``, ``discard``, ``lead``, ``follow``, ``bid`` and ``call``, all by
  default; ``base`` may be a policy table; ``infer``: ``"none"``, the
  default, for uniform worlds, ``"base"`` or a compiled policy's name or
  table to resample the worlds by how likely the opponents' plays are
  under that policy, kernels.infer, shown in the name as ``[infer=...]``).
  A Python policy or process bot as the
  base needs ``rollout_policy``, a compiled policy rolled out at every seat:
  the base's answer is the first candidate (docs/bots.md).

``oracle`` is the same search given the true deal instead of sampled
worlds: it sees every hand and the kitty, so it cheats; it is the upper
bound of what the search can gain, never a player to compare fairly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from tractor_sim.core.kernels.view import DECISIONS
from tractor_sim.rules.fields import Choice, Flag, Shape, Table, Text, Whole, shown

SEARCH = "search"
ORACLE = "oracle"
KINDS = (SEARCH, ORACLE)
DEFAULT_BASE = "expert"
DEFAULT_WORLDS = 32
DEFAULT_ROLLOUTS = 1
DEFAULT_MAX_CANDIDATES = 32
INFER_NONE = "none"  # infer: uniform worlds (the default: measured, inference did not pay; docs/search.md)
INFER_BASE = "base"  # infer: the base policy models the opponents
SAMPLER_READY = True  # kernels.sampler is in this build: the search can sample worlds
SEARCHABLE = ("declare", "discard", "lead", "follow", "bid", "call")  # the decisions the search can take
assert set(SEARCHABLE) == set(DECISIONS)  # every decision (kernels.search_play)

@functools.cache
def _settings() -> Table:
    """A search's settings, each declared once (tractor_sim.rules.fields), with the compiled search's
    limits: ``SETTINGS``, built at its first use (the limits' modules need not load when a command starts)."""
    from tractor_sim.core.kernels import candidates as KC
    from tractor_sim.core.kernels import search as KS

    return Table("a search policy table", (
        Choice("policy", KINDS, "search: worlds sampled from the seat's knowledge; oracle: the true deal (cheats)"),
        Text("name", "the name shown (default KIND:BASE:WORLDS[:ROLLOUTS][DECISIONS])", 200),
        Shape("base", (str, dict), "a policy name or table", "the policy rolled out at every seat, and playing "
                                                             "the decisions not searched (default expert)"),
        Shape("rollout_policy", (str, dict), "a compiled policy name or table",
              "the policy rolled out at every seat when the base is a Python policy or bot (whose answers the "
              "search then values and replaces, or with record keeps)"),
        Whole("worlds", 1, KS.MAX_WORLDS, f"worlds per searched decision (default {DEFAULT_WORLDS})",
              "the stream keys leave room for these"),
        Whole("rollouts", 1, KS.MAX_ROLLOUTS, f"rollouts per world and candidate (default {DEFAULT_ROLLOUTS})",
              "the stream keys leave room for these"),
        Whole("max_candidates", 2, KC.MAX_CANDIDATES,
              f"candidate plays per decision, at most (default {DEFAULT_MAX_CANDIDATES})",
              "the rows of a candidate list"),
        Flag("record", "play the base policy's own answers and record their regret (analyze; default false)"),
        Flag("train", "play the base policy's own answers and record every candidate's features and value "
                      "(tractor-sim train; default false)"),
        Choice("decisions", SEARCHABLE, "the decisions searched (all by default)", many=True),
        Shape("infer", (str, dict), "none, base, or a compiled policy name or table",
              "the model of the opponents whose plays weigh the worlds (kernels.infer; default none: uniform "
              "worlds)"),
    ), required=("policy",))


def __getattr__(name: str):
    if name == "SETTINGS":
        return _settings()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


NAME_PARTS = ("policy", "base", "worlds", "rollouts")  # search:BASE:WORLDS:ROLLOUTS


class SearchSpecError(ValueError):
    """A bad search policy: the message names the field and the allowed values."""


@dataclass(frozen=True)
class SearchSettings:
    """A search's budget and its world source (``sampled``: the seat's knowledge; ``true``: the deal)."""

    kind: str
    worlds: int = DEFAULT_WORLDS
    rollouts: int = DEFAULT_ROLLOUTS
    max_candidates: int = DEFAULT_MAX_CANDIDATES
    record: bool = False  # play the base policy's own answers and record their regret (analyze)
    train: bool = False  # play them and record every candidate's features and value (tractor-sim train)
    decisions: tuple = SEARCHABLE  # the decisions searched
    rollout_policy: object = None  # the compiled policy rolled out beside a Python or process base (None: the base)
    infer: object = INFER_NONE  # the model of the opponents (kernels.infer): none, base, or a policy spec
    model: object = None  # that policy resolved (registry.resolve), when it is neither none nor base

    @property
    def source(self) -> str:
        return "true" if self.kind == ORACLE else "sampled"

    def row(self) -> np.ndarray:
        """The team's row of the driver's settings (kernels.search SETTINGS)."""
        from tractor_sim.core.kernels import search as KS

        row = np.zeros(KS.SS_FIELDS, dtype=np.int64)
        row[KS.SS_ON] = 1
        row[KS.SS_WORLDS] = self.worlds
        row[KS.SS_ROLLOUTS] = self.rollouts
        row[KS.SS_SOURCE] = KS.WORLD_TRUE if self.kind == ORACLE else KS.WORLD_SAMPLED
        row[KS.SS_MAX_CAND] = self.max_candidates
        row[KS.SS_RECORD] = KS.RECORD_TRAIN if self.train else KS.RECORD_ANALYSIS if self.record else KS.RECORD_OFF
        row[KS.SS_DECISIONS] = sum(1 << DECISIONS.index(d) for d in self.decisions)
        row[KS.SS_INFER] = 0 if self.infer == INFER_NONE else 1  # kernels.infer INFER_NONE, INFER_MODEL
        return row


def is_search(spec) -> bool:
    """Whether a policy spec names a search (a name ``search``/``oracle``[:..] or a table with that policy)."""
    if isinstance(spec, str):
        return spec.split(":", 1)[0] in KINDS
    return isinstance(spec, dict) and isinstance(spec.get("policy"), str) and is_search(spec["policy"])


def _from_name(name: str) -> dict:
    """The fields a name such as ``search:expert:32`` sets (its numbers read by their declarations); a
    name ending in ``[lead,follow]`` also sets the decisions searched, and ``[infer=base]`` the model
    of inference, as the names shown write them."""
    full, groups = name, {}
    while name.endswith("]") and "[" in name:
        name, _, inside = name[:-1].rpartition("[")
        key = "infer" if inside.startswith("infer=") else "decisions"
        if key in groups:
            raise SearchSpecError(f"policy {shown(full)}: two [{key}] groups in one name")
        groups[key] = inside.removeprefix("infer=")
    parts = name.split(":")
    if len(parts) > 4 or any(not p for p in parts):
        raise SearchSpecError(f"policy {shown(full)}: write {parts[0]}, {parts[0]}:BASE, {parts[0]}:BASE:WORLDS or "
                              f"{parts[0]}:BASE:WORLDS:ROLLOUTS (e.g. {parts[0]}:expert:32)")
    table = dict(zip(NAME_PARTS, parts))
    if "decisions" in groups:
        table["decisions"] = [d.strip() for d in groups["decisions"].split(",")]
    if "infer" in groups:
        table["infer"] = groups["infer"].strip()
    for key in ("worlds", "rollouts"):
        if key in table:
            table[key] = _settings()[key].parse(table[key], f"policy {shown(full)}: field ", SearchSpecError)
    return table


def parse(spec) -> tuple[object, SearchSettings, str]:
    """(the base policy spec, the settings, a display name) of a search spec (``is_search``), every
    field checked by its declaration (SETTINGS)."""
    if isinstance(spec, str):
        table = _from_name(spec)
    else:
        _settings().check_keys(spec, "search policy: ", SearchSpecError)  # before the name's fields join them
        table = {**_from_name(spec["policy"]), **{k: v for k, v in spec.items() if k != "policy"}}
    where = f"policy {shown(table['policy'])}: "
    checked = _settings().check(table, where, SearchSpecError)
    kind = checked["policy"]
    base = checked.get("base", DEFAULT_BASE)
    if is_search(base):
        raise SearchSpecError(f"{where}field 'base': the base policy cannot itself be a search ({base!r})")
    settings = SearchSettings(
        kind=kind,
        worlds=checked.get("worlds", DEFAULT_WORLDS),
        rollouts=checked.get("rollouts", DEFAULT_ROLLOUTS),
        max_candidates=checked.get("max_candidates", DEFAULT_MAX_CANDIDATES),
        record=checked.get("record", False),
        train=checked.get("train", False),
        decisions=checked.get("decisions", SEARCHABLE),
        rollout_policy=checked.get("rollout_policy"),
        infer=checked.get("infer", INFER_NONE),
    )
    if is_search(settings.rollout_policy):
        raise SearchSpecError(f"{where}field 'rollout_policy': a search cannot be rolled out "
                              f"({settings.rollout_policy!r})")
    if settings.infer != INFER_NONE and kind == ORACLE:
        raise SearchSpecError(f"{where}field 'infer': the oracle plays on the true deal, with no worlds to weigh; "
                              f"write infer = \"none\" or policy = \"search\"")
    if is_search(settings.infer):
        raise SearchSpecError(f"{where}field 'infer': a search cannot model the opponents ({settings.infer!r})")
    base_name = base if isinstance(base, str) else base.get("name") or base.get("policy") or "custom"
    infer = settings.infer
    infer_name = infer if isinstance(infer, str) else infer.get("name") or infer.get("policy") or "custom"
    name = checked.get("name") or f"{kind}:{base_name}:{settings.worlds}" + (
        f":{settings.rollouts}" if settings.rollouts != DEFAULT_ROLLOUTS else "") + (
        f"[{','.join(settings.decisions)}]" if settings.decisions != SEARCHABLE else "") + (
        f"[infer={infer_name}]" if infer != INFER_NONE else "")
    return base, settings, name
