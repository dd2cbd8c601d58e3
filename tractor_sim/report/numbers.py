"""How every report writes a number: a count, an estimate with its interval, a ± and a p-value.

One rule each, so a table of the run report, the contexts section, a Finding
Friends report and the regret analysis read the same way.
"""

from __future__ import annotations

import math

import numpy as np


def _missing(v) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and not math.isfinite(v))


def number(v, decimals: int = 3) -> str:
    """A count with thousands separators; a float to ``decimals`` places (whole above 1,000); "" if missing."""
    if _missing(v):
        return ""
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{v:,.{decimals}f}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def interval(mean, low, high, decimals: int = 3, signed: bool = False, missing: str = "") -> str:
    """'0.123 [0.100, 0.146]'; ``signed``: '+0.123 [+0.100, +0.146]' (a difference, whose sign is the
    finding); the estimate alone where it has no interval; ``missing`` where there is no estimate."""
    if _missing(mean):
        return missing
    f = f"{'+' if signed else ''}.{decimals}f"
    if _missing(low):
        return f"{mean:{f}}"
    return f"{mean:{f}} [{low:{f}}, {high:{f}}]"


def plus_minus(mean: float, half: float) -> str:
    """'+0.123 ± 0.034': the uncertainty to two significant digits, the estimate to as many places."""
    d = max(1, 1 - math.floor(math.log10(float(f"{half:.1g}")))) if half > 0 else 3  # 0.00997 -> 0.010
    return f"{mean:+.{d}f} ± {half:.{d}f}"


def p_value(p: float) -> str:
    """'0.012', '< 0.001', or 'n/a' where no test was possible."""
    return "n/a" if _missing(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"
