"""Rule options and presets, encoded as an int array for the kernels.

Every point that docs/rules.md marks as a decision is an option here, so a user can
switch it; the kernels read the options from an int64 array (``Rules.encode``)
and never recompile for a variant.  See docs/decisions.md for each option.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields, replace
from typing import Any

from tractor_sim.rules.fields import Whole, shown

# Index of each option in the encoded array (read by the kernels).
R_RANK_TRUMPS_NT = 0
R_THROW_CHECK = 1
R_THROW_FORCED = 2
R_THROW_PENALTY = 3
R_KITTY_MULT = 4
R_MATCH_END = 5
R_SELF_OVERRIDE = 6
R_NO_DECLARE_R1 = 7
R_FOLLOW_TRACTOR = 8
R_PAIR_OVERRIDE = 9
R_JOKER_OVERRIDE = 10
R_MUST_DEFEND = 11
R_DECLARING = 12
N_RULE_FIELDS = 13

# Codes of some choices, as the kernels test them.
FOLLOW_TRACTOR_LEAD = 1  # follow_tractor = "tractor"
FOLLOW_SHAPE_FIRST = 2  # follow_tractor = "shape_first"
DECLARING_AUCTION = 1  # declaring = "auction"

# Choice options: name -> allowed values, in the order of their codes.
CHOICES: dict[str, tuple[str, ...]] = {
    "throw_check": ("all_others", "opponents_only"),
    "throw_forced_part": ("fewest_then_lowest", "lowest", "highest"),
    "kitty_multiplier": ("twice_lead_size", "pow2_pairs", "twice_largest_unit"),
    "match_end": ("pass_ace", "reach_ace"),
    "self_override": ("strengthen_only", "any"),
    "no_declaration_round1": ("redeal",),
    "follow_tractor": ("none", "tractor", "shape_first"),
    "pair_override": ("none", "suit_order"),
    "must_defend": ("none", "ace", "ace_5_10_k"),
    "declaring": ("draw", "auction"),
}

DESCRIPTIONS = {
    "rank_trumps_in_no_trump": "in a no-trump round the trump-rank cards stay trumps, just below BJ",
    "throw_check": "whose cards can block a throw: every other player, or opponents only",
    "throw_forced_part": "which beatable part a failed throw must lead",
    "throw_penalty": "points per card taken back after a failed throw (0: no penalty)",
    "kitty_multiplier": "how the last lead multiplies the kitty's points",
    "match_end": "a match ends when a team passes the Ace, or reaches it",
    "self_override": "a player may override his own declaration only to strengthen it, or freely",
    "no_declaration_round1": "what happens when nobody declares in round 1",
    "follow_tractor": "tractor: a follower holding a tractor of the led length must play it; "
                      "shape_first: also a throw's tractors, as far as the hand allows",
    "pair_override": "suit_order: a trump-rank pair overrides a pair of a lower suit (S > H > D > C)",
    "joker_pair_override": "a red-joker pair may override a black-joker pair",
    "must_defend": "levels a team cannot pass without winning them as declarers (A; or 5, 10, K and A)",
    "declaring": "draw: declare trump-rank cards while drawing; auction: the Russian text's bids "
                 "and shown cards",
}


class RulesError(ValueError):
    """An unknown option or a bad value; the message names it."""


# The whole-number options, declared once (tractor_sim.rules.fields). The records store a deal's
# penalties and the opponents' points in 16 bits (deals.parquet: int16): 100 points for each of the
# 216 cards of the largest game, taken back, plus every point of its deck, stays below 32,767.
WHOLE = {
    "throw_penalty": Whole("throw_penalty", 0, 100, DESCRIPTIONS["throw_penalty"],
                           "a deal's penalties are stored in 16 bits: 100 points x 216 cards at most"),
}


@dataclass(frozen=True)
class Rules:
    """One rule set. ``Rules()`` is the ``standard`` preset."""

    rank_trumps_in_no_trump: bool = False
    throw_check: str = "all_others"
    throw_forced_part: str = "fewest_then_lowest"
    throw_penalty: int = 10
    kitty_multiplier: str = "twice_lead_size"
    match_end: str = "pass_ace"
    self_override: str = "strengthen_only"
    no_declaration_round1: str = "redeal"
    follow_tractor: str = "none"
    pair_override: str = "none"
    joker_pair_override: bool = False
    must_defend: str = "none"
    declaring: str = "draw"

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in CHOICES:
                if value not in CHOICES[f.name]:
                    raise RulesError(
                        f"rule option {f.name!r}: bad value {shown(value)}; "
                        f"expected one of {', '.join(CHOICES[f.name])}{_suggest(value, CHOICES[f.name])}"
                    )
            elif f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise RulesError(f"rule option {f.name!r}: expected true or false, got {shown(value)}")
            elif f.name in WHOLE:
                object.__setattr__(self, f.name, WHOLE[f.name].check(value, "rule option ", RulesError))

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None = None, preset: str | None = None) -> "Rules":
        """A preset (default ``standard``) with options overridden by name."""
        options = dict(options or {})
        preset = options.pop("preset", preset) or "standard"
        if not isinstance(preset, str) or preset not in PRESETS:
            raise RulesError(f"unknown rules preset {shown(preset)}{_suggest(preset, PRESETS)}")
        known = {f.name for f in fields(cls)}
        for name in options:
            if name not in known:
                raise RulesError(f"unknown rule option {shown(name)}{_suggest(name, known)}")
        return replace(PRESETS[preset], **options)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def encode(self):
        """The int64 array the kernels read (indices R_*)."""
        import numpy as np

        a = np.zeros(N_RULE_FIELDS, dtype=np.int64)
        a[R_RANK_TRUMPS_NT] = int(self.rank_trumps_in_no_trump)
        a[R_THROW_CHECK] = CHOICES["throw_check"].index(self.throw_check)
        a[R_THROW_FORCED] = CHOICES["throw_forced_part"].index(self.throw_forced_part)
        a[R_THROW_PENALTY] = self.throw_penalty
        a[R_KITTY_MULT] = CHOICES["kitty_multiplier"].index(self.kitty_multiplier)
        a[R_MATCH_END] = CHOICES["match_end"].index(self.match_end)
        a[R_SELF_OVERRIDE] = CHOICES["self_override"].index(self.self_override)
        a[R_NO_DECLARE_R1] = CHOICES["no_declaration_round1"].index(self.no_declaration_round1)
        a[R_FOLLOW_TRACTOR] = CHOICES["follow_tractor"].index(self.follow_tractor)
        a[R_PAIR_OVERRIDE] = CHOICES["pair_override"].index(self.pair_override)
        a[R_JOKER_OVERRIDE] = int(self.joker_pair_override)
        a[R_MUST_DEFEND] = CHOICES["must_defend"].index(self.must_defend)
        a[R_DECLARING] = CHOICES["declaring"].index(self.declaring)
        return a


def _suggest(name: str, valid) -> str:
    close = difflib.get_close_matches(str(name), sorted(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "russian": Rules(match_end="reach_ace", declaring="auction"),
}


def as_rules(rules: "Rules | dict | str | None") -> Rules:
    """Accept a Rules, a dict of options (with optional 'preset'), a preset name or None."""
    if rules is None:
        return PRESETS["standard"]
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.from_dict({}, preset=rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise RulesError(f"rules must be a preset name or a table of options, got {type(rules).__name__}")
