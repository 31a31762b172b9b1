"""Numbers from files, used and printed safely.

A file can hold any JSON number: 1.7e308 (whose ratio to 2.2 is 7.7e307,
printed by "{:.3f}" as 308 digits), 5e-324 (whose inverse is infinite), or
an integer of 4000 digits (which float() refuses with OverflowError).
Arithmetic goes through as_float(), and every ratio and percentage is
printed here, in a bounded form: at most a dozen characters, in
scientific notation when fixed notation would be long, and a percentage
too large to mean anything as '>999999%'.
"""

from __future__ import annotations

import math
from typing import Optional

# Fixed notation up to here; beyond, scientific (and a percentage beyond
# it is said to be beyond it).
_FIXED_MAX = 1e6


# What a measurement can be: times, rates, ratios and counts all lie far
# inside. Summaries and figures use only values in this range (or 0):
# their squares, sums and axis margins then cannot overflow a double.
MEASURED_MAX = 1e100
MEASURED_MIN = 1e-100


# A whole number read from text (an environment variable, a tool's output)
# has at most this many digits: 2^64 - 1 has 20. int() of 5,000 digits
# raises (Python 3.11+), and str.isdigit() accepts "²" and "٣", which
# int() refuses or reads as another digit.
WHOLE_MAX_DIGITS = 20


def whole_number(text, digits: int = WHOLE_MAX_DIGITS) -> Optional[int]:
    """`text` as a whole number when it is 1 to `digits` ASCII digits
    (spaces around allowed), else None."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if 0 < len(text) <= digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def as_float(value) -> Optional[float]:
    """A JSON number as a finite float, or None: None, booleans, strings,
    NaN, infinities and integers beyond a double's range are all None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        # Compared as exact integers: float(10**4000) would raise.
        return float(value) if abs(value) <= 2**1023 else None
    return value if math.isfinite(value) else None


def measured(value) -> Optional[float]:
    """as_float(value) when it is 0 or its magnitude is between
    MEASURED_MIN and MEASURED_MAX, else None."""
    x = as_float(value)
    if x is None or (x != 0 and not MEASURED_MIN <= abs(x) <= MEASURED_MAX):
        return None
    return x


def formatted(value, spec: str, missing: str = "-") -> str:
    """value formatted with `spec` ("{:.2f}", "{:.3g}", "{:.1%}"), except
    that fixed notation of a value beyond a million becomes 4 significant
    digits in scientific notation."""
    x = as_float(value)
    if x is None:
        return missing if value is None else _not_a_double(value)
    if spec.endswith(("f}", "%}")) and abs(x) * (100 if spec.endswith("%}") else 1) >= _FIXED_MAX:
        return f"{x * 100:.4g}%" if spec.endswith("%}") else f"{x:.4g}"
    return spec.format(x)


def ratio(a, b) -> Optional[float]:
    """a / b as a finite float, or None when either is not a finite number,
    b is zero, or the quotient overflows (1e308 / 1e-10)."""
    a, b = as_float(a), as_float(b)
    if a is None or b is None or b == 0:
        return None
    q = a / b
    return q if math.isfinite(q) else None


def fixed(value, decimals: int = 1, missing: str = "-") -> str:
    """A value with `decimals` decimals while that is short; beyond a
    million, 4 significant digits in scientific notation."""
    x = as_float(value)
    if x is None:
        return missing if value is None else _not_a_double(value)
    if abs(x) >= _FIXED_MAX:
        return f"{x:.4g}"
    return f"{x:.{decimals}f}"


def general(value, digits: int = 4, missing: str = "-") -> str:
    """A value with `digits` significant digits ("{:.4g}": at most a dozen
    characters for any double)."""
    x = as_float(value)
    if x is None:
        return missing if value is None else _not_a_double(value)
    return f"{x:.{digits}g}"


def percent(value, decimals: int = 1, missing: str = "-") -> str:
    """A percentage: '12.3%', or '>999999%' / '<-999999%' beyond a million
    percent (a ratio that large says only 'far worse')."""
    # An infinite percentage (a ratio that overflowed) is simply beyond.
    x = value if isinstance(value, float) and math.isinf(value) else as_float(value)
    if x is None:
        return missing if value is None else _not_a_double(value)
    if x >= _FIXED_MAX:
        return ">999999%"
    if x <= -_FIXED_MAX:
        return "<-999999%"
    return f"{x:.{decimals}f}%"


def _not_a_double(value) -> str:
    if isinstance(value, float):  # NaN, inf
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return "<beyond a double>"
    return "?"
