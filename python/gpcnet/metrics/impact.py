"""The Congestion Impact formula, in one place for every command.

CI = loaded / isolated when lower is better (latency, time), isolated /
loaded when higher is better (bandwidth): a CI above 1 is always harm.
The C programs compute the same ratio for their Key Results table
(docs/method.md); here it serves the published systems, the sweep figure,
values recomputed from parsed text and the application studies' CI_app.
"""

from __future__ import annotations

from typing import Optional

from gpcnet.text.number_text import as_float, ratio


def congestion_impact(isolated: Optional[float], loaded: Optional[float],
                      lower_is_better: bool) -> Optional[float]:
    """The CI of one value, or None when either side is missing, not
    finite or not positive (a ratio of those means nothing)."""
    # as_float: an integer beyond a double (a 400-digit "avg") is no value;
    # ratio: a quotient that overflows (1e308 / 1e-10) is none either.
    isolated, loaded = as_float(isolated), as_float(loaded)
    if isolated is None or loaded is None or not (isolated > 0 and loaded > 0):
        return None
    return ratio(loaded, isolated) if lower_is_better else ratio(isolated, loaded)


def lower_is_better(better: str) -> bool:
    """A result row's "better" field ("lower" or "higher") as the flag above."""
    return better == "lower"
