"""Declared input numbers: each field declared once (its type, range and meaning) and checked by one function.

Every number a user hands the tool (a rule option, an experiment's count or
seed, a strategy parameter, a search's budget, a seat of the judge's trick)
is declared with ``Whole`` or ``Real`` next to its input kind, and checked by
the declaration's ``check`` before anything runs: the right type, finite,
inside the range.  A value outside is refused naming the field and the
allowed range (for a value the kernels or the records cannot hold: the
largest allowed value).  The other fields of a table are declared beside
them (``Choice``, ``Flag``, ``Text``, ``Shape``: a field whose content its
own parser reads), and a ``Table`` refuses unknown and missing keys.  The
property tests (tests/test_inputs.py) generate values from the same
declarations, so what is declared is what is tested.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, replace

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

    def parse(self, text, where: str = "", error=ValueError) -> int:
        """A whole number written as decimal text (a policy name's ``search:expert:32``), checked."""
        if isinstance(text, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
            try:
                text = int(text)
            except ValueError:  # more digits than int() converts: beyond every declared range
                text = 10**400 * (-1 if text.strip().startswith("-") else 1)
        return self.check(text, where, error)

    def within(self, **changes) -> Whole:
        """This declaration with a range known only from another field (a seat: up to the players)."""
        return replace(self, **changes)

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



def _closest(value, options) -> str:
    close = difflib.get_close_matches(value, [str(o) for o in options], n=1) if isinstance(value, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (text); with ``many``, a non-empty list of them (one alone may be written
    bare), returned in the declared order."""

    name: str
    options: tuple
    meaning: str = ""
    many: bool = False

    def check(self, value, where: str = "", error=ValueError):
        field = _label(where, self.name)
        if self.many:
            values = [value] if isinstance(value, str) else value
            if not isinstance(values, (list, tuple)) or not values or \
                    any(not isinstance(v, str) or v not in self.options for v in values):
                raise error(f"{field}: expected a non-empty list of {', '.join(self.options)}, got {shown(value)}")
            return tuple(o for o in self.options if o in values)
        if not isinstance(value, str) or value not in self.options:
            raise error(f"{field}: expected one of {', '.join(self.options)}, got {shown(value)}"
                        f"{_closest(value, self.options)}")
        return value

    @property
    def bounds(self) -> str:
        return ("some of " if self.many else "one of ") + ", ".join(self.options)


@dataclass(frozen=True)
class Flag:
    """true or false, nothing else (a 0 or a "no" would be taken as one of them by accident)."""

    name: str
    meaning: str = ""

    def check(self, value, where: str = "", error=ValueError) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise error(f"{_label(where, self.name)}: expected true or false, got {shown(value)}")
        return bool(value)

    bounds = "true or false"


@dataclass(frozen=True)
class Text:
    """Printable text of 1 to ``longest`` characters (a name shown in reports and messages)."""

    name: str
    meaning: str = ""
    longest: int = 100

    def check(self, value, where: str = "", error=ValueError) -> str:
        if not isinstance(value, str) or not value.strip() or len(value) > self.longest or not value.isprintable():
            raise error(f"{_label(where, self.name)}: expected printable text of 1 to {self.longest} characters, "
                        f"got {shown(value)}")
        return value

    @property
    def bounds(self) -> str:
        return f"text of 1 to {self.longest} characters"


@dataclass(frozen=True)
class Shape:
    """A field whose content its own parser reads (cards, a policy, rule options): declared here for
    its key, its meaning and its JSON type (``types``, described by ``expects``), which ``check`` holds,
    and for a list its length (``least`` to ``most`` items)."""

    name: str
    types: tuple
    expects: str
    meaning: str = ""
    least: int = 0
    most: int | None = None

    def check(self, value, where: str = "", error=ValueError):
        field = _label(where, self.name)
        if isinstance(value, bool) and bool not in self.types or not isinstance(value, self.types):
            raise error(f"{field}: expected {self.expects}, got {shown(value)}")
        if isinstance(value, (list, tuple)) and not self.least <= len(value) <= (self.most or len(value)):
            count = f"{self.least}" if self.least == self.most else \
                f"{self.least} to {self.most}" if self.most is not None else f"at least {self.least}"
            raise error(f"{field}: {len(value)} items; expected {count} ({self.expects})")
        return value

    def within(self, **changes) -> Shape:
        """This declaration with a length known only from another field (a card list per player)."""
        return replace(self, **changes)

    @property
    def bounds(self) -> str:
        return self.expects


@dataclass(frozen=True)
class Table:
    """A table's fields, each declared once: ``check`` refuses anything but a table, an unknown field
    (naming the closest declared one) and a missing required one, then checks every field present."""

    what: str  # the table as a message names it: "a search policy table"
    fields: tuple
    required: tuple = ()

    def __getitem__(self, name: str):
        return next(f for f in self.fields if f.name == name)

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def check(self, data, where: str = "", error=ValueError, **narrowed) -> dict:
        """The checked values of the keys present in ``data``, in declared order.  ``narrowed``: a
        field's declaration replaced where its range depends on another field (``Whole.within``)."""
        self.check_keys(data, where, error)
        return {f.name: narrowed.get(f.name, f).check(data[f.name], f"{where}field ", error)
                for f in self.fields if f.name in data}

    def check_keys(self, data, where: str = "", error=ValueError) -> None:
        """A table of declared keys with the required ones, its values not yet read."""
        if not isinstance(data, dict):
            raise error(f"{where}expected {self.what}, got {shown(data)}")
        for key in data:
            if key not in self.names:
                raise error(f"{where}unknown field {shown(key)}{_closest(key, self.names)}; "
                            f"expected some of {', '.join(self.names)}")
        for key in self.required:
            if key not in data:
                raise error(f"{where}missing field {key!r} ({self[key].meaning or self[key].bounds})")
