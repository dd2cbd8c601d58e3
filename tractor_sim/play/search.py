"""The search policies by name: ``search`` (sampled worlds) and ``oracle`` (the true deal, cheating).

A search policy is a base policy plus a budget: at every burial, lead and
follow of its seats (``decisions``) the compiled search (kernels.search,
driven by kernels.search_play) rolls each candidate out to the end of the
deal with the base policy at every seat, in ``worlds`` worlds x
``rollouts`` rollouts, and plays the best (kernels.search.chosen_candidate);
the base policy declares, bids and calls.  A burial's candidates are the base
policy's and the burials one swap away from it (kernels.candidates).  It is
written wherever a policy is:

* a name: ``search``, ``search:BASE``, ``search:BASE:WORLDS``,
  ``search:BASE:WORLDS:ROLLOUTS`` (``oracle`` alike);
* a table: ``{policy = "search", base = "expert", worlds = 32, rollouts = 1}``
  (also ``max_candidates``, and ``decisions``, a list of the decisions
  searched among ``discard``, ``lead`` and ``follow``, all by default;
  ``base`` may be a policy table).

``oracle`` is the same search given the true deal instead of sampled
worlds: it sees every hand and the kitty, so it cheats; it is the upper
bound of what the search can gain, never a player to compare fairly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tractor_sim.core.kernels.view import DECISIONS

SEARCH = "search"
ORACLE = "oracle"
KINDS = (SEARCH, ORACLE)
DEFAULT_BASE = "expert"
DEFAULT_WORLDS = 32
DEFAULT_ROLLOUTS = 1
DEFAULT_MAX_CANDIDATES = 32
SAMPLER_READY = True  # kernels.sampler is in this build: the search can sample worlds
TABLE_KEYS = ("policy", "name", "base", "worlds", "rollouts", "max_candidates", "record", "decisions")
TRAIN = "train"  # record = "train": the candidates' features and values (tractor-sim train), not the regret
SEARCHABLE = ("discard", "lead", "follow")  # the decisions the search can take (kernels.search_play)


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
        return row


def is_search(spec) -> bool:
    """Whether a policy spec names a search (a name ``search``/``oracle``[:..] or a table with that policy)."""
    if isinstance(spec, str):
        return spec.split(":", 1)[0] in KINDS
    return isinstance(spec, dict) and isinstance(spec.get("policy"), str) and is_search(spec["policy"])


def _whole(value, what: str, low: int, high: int) -> int:
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise SearchSpecError(f"{what}: expected a whole number from {low} to {high}, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise SearchSpecError(f"{what}: expected a whole number from {low} to {high}, got {value!r}")
    return int(value)


def _decisions(value, where: str) -> tuple:
    """The decisions a table's ``decisions`` names, in SEARCHABLE's order; refused when empty or unknown."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or any(d not in SEARCHABLE for d in value):
        raise SearchSpecError(f"{where}: decisions: expected a non-empty list of {', '.join(SEARCHABLE)}, "
                              f"got {value!r}")
    return tuple(d for d in SEARCHABLE if d in value)


def _from_name(name: str) -> dict:
    """The fields a name such as ``search:expert:32`` sets."""
    parts = name.split(":")
    if len(parts) > 4 or any(not p for p in parts):
        raise SearchSpecError(f"policy {name!r}: write {parts[0]}, {parts[0]}:BASE, {parts[0]}:BASE:WORLDS or "
                              f"{parts[0]}:BASE:WORLDS:ROLLOUTS (e.g. {parts[0]}:expert:32)")
    return dict(zip(("policy", "base", "worlds", "rollouts"), parts))


def parse(spec) -> tuple[object, SearchSettings, str]:
    """(the base policy spec, the settings, a display name) of a search spec (``is_search``)."""
    from tractor_sim.core.kernels import candidates as KC
    from tractor_sim.core.kernels import search as KS

    if isinstance(spec, str):
        table = _from_name(spec)
    else:
        for key in spec:
            if key not in TABLE_KEYS:
                raise SearchSpecError(f"search policy: unknown key {key!r}; expected {', '.join(TABLE_KEYS)}")
        table = {**_from_name(spec["policy"]), **{k: v for k, v in spec.items() if k != "policy"}}
    kind = table["policy"]
    where = f"policy {kind!r}"
    base = table.get("base", DEFAULT_BASE)
    if is_search(base):
        raise SearchSpecError(f"{where}: the base policy cannot itself be a search ({base!r})")
    if not isinstance(base, (str, dict)):
        raise SearchSpecError(f"{where}: base must be a policy name or table, got {base!r}")
    settings = SearchSettings(
        kind=kind,
        worlds=_whole(table.get("worlds", DEFAULT_WORLDS), f"{where}: worlds", 1, KS.MAX_WORLDS),
        rollouts=_whole(table.get("rollouts", DEFAULT_ROLLOUTS), f"{where}: rollouts", 1, KS.MAX_ROLLOUTS),
        max_candidates=_whole(table.get("max_candidates", DEFAULT_MAX_CANDIDATES), f"{where}: max_candidates", 2,
                              KC.MAX_CANDIDATES),
        record=table.get("record", False) not in (False, TRAIN),
        train=table.get("record", False) == TRAIN,
        decisions=_decisions(table.get("decisions", SEARCHABLE), where),
    )
    base_name = base if isinstance(base, str) else base.get("name") or base.get("policy") or "custom"
    name = table.get("name") or f"{kind}:{base_name}:{settings.worlds}" + (
        f":{settings.rollouts}" if settings.rollouts != DEFAULT_ROLLOUTS else "") + (
        f"[{','.join(settings.decisions)}]" if settings.decisions != SEARCHABLE else "")
    return base, settings, name
