"""The statistics of the fat-tree poster's Table I: per bully pattern, the
mean performance difference from the control in percent (negative: the
application did worse than the control, as the poster prints it; a
performance, not a time: a doubled run time is -50%), whether
it is significant at alpha = 0.05 and 0.01 (Welch's two-sided t-test, which
does not assume the two groups have the same variance), and the bandwidth
of the slowest bully rank (network_congestor's per-rank JSON).

The value and its test are on one quantity, each run's performance (1 /
time, or the rate itself): the value compares the two means of
performance and the test asks whether those two means differ. A test on
the raw times asks another question (whether the mean times differ) and
can disagree with it at the poster's levels."""

from __future__ import annotations

import math
import statistics

from gpcnet.analysis.welch import LEVELS, significance, welch_p  # noqa: F401 (the study's names)
from gpcnet.infra.errors import GpcnetError
from gpcnet.study.bullies import CONTROL, TABLE_NAMES
from gpcnet.study.summary import by_setting
from gpcnet.text.number_text import measured

MIB_S_TO_GBIT_S = 2**20 * 8 / 1e9


def performance(values: list, higher_is_better: bool = False) -> list:
    """Each run's performance: 1 / time (a time of 0 or less has none and is
    left out), or the value itself for a rate (higher is better)."""
    if higher_is_better:
        return list(values)
    return [1.0 / v for v in values if v > 0]


def mean_difference_pct(control: list, pattern: list, higher_is_better: bool = False) -> float:
    """The mean performance difference from the control in percent: 100 x
    (mean performance of the pattern / mean performance of the control - 1),
    performance being each run's 1 / time (or the rate itself when higher is
    better). A run twice as long is -50% (not -100%), nothing falls below
    -100%, and negative is worse. Times [2, 2] against [1, 2, 6]: mean
    performances 1/2 and (1 + 1/2 + 1/6) / 3 = 5/9, +11.1%."""
    control, pattern = performance(control, higher_is_better), performance(pattern, higher_is_better)
    if not control or not pattern:
        raise GpcnetError("mean difference: needs at least one positive value on each side")
    c, p = statistics.fmean(control), statistics.fmean(pattern)
    if not (math.isfinite(c) and math.isfinite(p)) or c <= 0 or p <= 0:
        raise GpcnetError(f"mean difference: both mean performances must be positive numbers "
                          f"(got {c!r} and {p!r})")
    return 100.0 * (p / c - 1.0)


def performance_welch_p(control: list, pattern: list, higher_is_better: bool = False) -> float | None:
    """Welch's p on what Table I reports: the runs' performance (see
    performance()), not their times."""
    return welch_p(performance(control, higher_is_better), performance(pattern, higher_is_better))


def _values(runs: list, use_fom: bool) -> list:
    # As the study report reads them (number_text.measured): a value no
    # measurement can be (1.7e308, a 400-digit integer) counts as missing,
    # so the means cannot overflow.
    return [v for r in runs if (v := measured(r.get("fom") if use_fom else r.get("wall_s"))) is not None]


def slowest_rank(runs: list) -> dict | None:
    """Over the runs of one pattern: the slowest bully rank of each run
    (MiB/s), their median and minimum, also in Gbit/s (the poster's unit)."""
    per_run = []
    for r in runs:
        for k in (r.get("congestor") or {}).get("kernels") or []:
            slow = k.get("slowest_rank") or {}
            if isinstance(slow, dict) and measured(slow.get("mib_s")) is not None:
                per_run.append(measured(slow["mib_s"]))
    if not per_run:
        return None
    med, low = statistics.median(per_run), min(per_run)
    return {"runs": len(per_run), "median_mib_s": med, "min_mib_s": low,
            "median_gbit_s": med * MIB_S_TO_GBIT_S, "min_gbit_s": low * MIB_S_TO_GBIT_S}


def table_i(study: dict) -> dict:
    """Table I of a bully study: {"value", "control", "rows": [...]}. The
    value compared is the figure of merit when every finished run has one,
    else the wall time; the difference and its test are on the runs'
    performance (`performance`: "1 / value" or "value")."""
    cfg = study["config"]
    base = cfg.get("baseline") or CONTROL
    ok = [r for r in study["runs"] if r.get("status") == "ok"]
    # The runner's choice ("time_measure") when there is one: the same value
    # as the normalised times.
    measure = cfg.get("time_measure")
    use_fom = (measure == "fom") if measure else bool(ok) and all(r.get("fom") is not None for r in ok)
    higher = bool(cfg.get("higher_is_better")) and use_fom
    ok_by = by_setting(ok)          # one pass: many patterns cost their runs, not runs x patterns
    control = _values(ok_by.get(base, []), use_fom)
    c_perf = performance(control, higher)
    c_ok = bool(c_perf) and 0 < statistics.fmean(c_perf) < math.inf
    rows = []
    for pat in cfg.get("patterns") or []:
        runs = ok_by.get(pat, [])
        vals = _values(runs, use_fom)
        p_perf = performance(vals, higher)
        row = {"pattern": pat, "label": TABLE_NAMES.get(pat, pat), "runs": len(p_perf),
               "mean_difference_pct": None, "p_value": None, "significant_at": None,
               "slowest_rank": slowest_rank(runs)}
        if c_ok and p_perf and 0 < statistics.fmean(p_perf) < math.inf:
            row["mean_difference_pct"] = mean_difference_pct(control, vals, higher)
            row["p_value"] = welch_p(c_perf, p_perf)
            row["significant_at"] = significance(row["p_value"])
        rows.append(row)
    return {"value": "figure of merit" if use_fom else "wall time", "higher_is_better": higher,
            "control": base, "control_runs": len(c_perf), "performance": "value" if higher else "1 / value",
            "test": "Welch's t-test, two-sided, on the runs' performance", "rows": rows}
