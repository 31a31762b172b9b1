"""Welch's two-sided t-test and the significance levels the comparisons
mark (0.01 and 0.05, as the fat-tree poster's Table I does): one place
for the bully study's Table I and compare's isolation figure."""

from __future__ import annotations

import statistics
import warnings

from scipy import stats as sps

LEVELS = (0.01, 0.05)


def welch_p(control: list, pattern: list) -> float | None:
    """Two-sided p-value of Welch's t-test; None with fewer than 2 values on a
    side (no variance to test against). Two constant groups: 1 when equal,
    0 when not (the t statistic is infinite)."""
    if len(control) < 2 or len(pattern) < 2:
        return None
    if statistics.pvariance(control) == 0 and statistics.pvariance(pattern) == 0:
        return 1.0 if statistics.fmean(control) == statistics.fmean(pattern) else 0.0
    with warnings.catch_warnings():  # one constant side: scipy warns of cancellation, the test stands
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(sps.ttest_ind(pattern, control, equal_var=False).pvalue)


def significance(p: float | None) -> float | None:
    """The smallest of the levels (0.01, 0.05) that p is below."""
    if p is None:
        return None
    return next((a for a in LEVELS if p < a), None)
