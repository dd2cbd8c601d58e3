"""Declared input numbers: each field declared once (its type, range and meaning) and checked by one function.

Every number a user hands the tool (a rule option, an experiment's count or
seed, a strategy parameter, a command-line count) is declared with ``Whole``
or ``Real`` next to its input kind, and checked by the declaration's
``check`` before anything runs: the right type, finite, inside the range.
A value outside is refused naming the field and the allowed range (for a
value the kernels or the records cannot hold: the largest allowed value).
The property tests (tests/test_inputs.py) generate values from the same
declarations, so what is declared is what is tested.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def shown(value) -> str:
    """A value as a message shows it: short even when the input is huge."""
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + f"... ({len(text)} characters)"


def _label(where: str, name: str) -> str:
    """How a message names the field: ``where`` then the quoted name ("rule option 'throw_penalty'")."""
    return f"{where}{name!r}" if name else where.rstrip(" .:")


def _range(low, high) -> str:
    return f"from {low:g} to {high:g}" if isinstance(low, float) or isinstance(high, float) else f"from {low} to {high}"


@dataclass(frozen=True)
class Whole:
    """A whole number from ``low`` to ``high`` (both included); ``why`` says why ``high`` is the largest."""

    name: str
    low: int
    high: int
    meaning: str = ""
    why: str = ""

    def check(self, value, where: str = "", error=ValueError) -> int:
        """``value`` as an int, or ``error`` naming ``where`` + the field."""
        field = _label(where, self.name)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise error(f"{field}: expected a whole number {_range(self.low, self.high)}, got {shown(value)}")
        value = int(value)
        if value > self.high:
            because = f" ({self.why})" if self.why else ""
            raise error(f"{field}: {shown(value)} is too large; the largest allowed value is {self.high}{because}")
        if value < self.low:
            raise error(f"{field}: {shown(value)} is too small; the smallest allowed value is {self.low}")
        return value

    @property
    def bounds(self) -> str:
        return _range(self.low, self.high)


@dataclass(frozen=True)
class Real:
    """A finite number from ``low`` to ``high`` (both included); true/false count as 1/0 (switches)."""

    name: str
    low: float = -1e300
    high: float = 1e300
    meaning: str = ""

    def check(self, value, where: str = "", error=ValueError) -> float:
        field = _label(where, self.name)
        if not isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
            raise error(f"{field}: expected a number{self.bounds}, got {shown(value)}")
        try:
            number = float(value)
        except OverflowError:  # an int beyond float
            number = math.inf if value > 0 else -math.inf
        if not math.isfinite(number):
            raise error(f"{field}: expected a finite number{self.bounds}, got {shown(value)}")
        if not self.low <= number <= self.high:
            raise error(f"{field}: {number:g} is outside its range{self.bounds}")
        return number

    @property
    def bounds(self) -> str:
        """' from LOW to HIGH', or nothing for any finite number."""
        return "" if (self.low, self.high) == (-1e300, 1e300) else " " + _range(self.low, self.high)

