"""The fat-tree poster's Table I in the report of a bully study
(gpcnet.study.stats computes it): per pattern the mean difference from the
control, its significance by Welch's t-test, and the slowest bully rank."""

from __future__ import annotations

from gpcnet.report.html import Markup, fmt, join


def _num(x, spec: str) -> str:
    return "-" if x is None else spec.format(x)


def _mark(row: dict) -> str:
    """The poster marks significance by colour; here by stars: ** at 0.01,
    * at 0.05."""
    return {0.01: " **", 0.05: " *"}.get(row["significant_at"], "")


def section(study: dict) -> Markup:
    # deferred: scipy loads only for a bully study's page, not for every report
    from gpcnet.study.stats import table_i
    t = table_i(study)
    rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    r["label"], r["runs"], _num(r["mean_difference_pct"], "{:+.2f}%"), _mark(r),
                    _num(r["p_value"], "{:.3g}"),
                    _num((r["slowest_rank"] or {}).get("median_gbit_s"), "{:.3g}"),
                    _num((r["slowest_rank"] or {}).get("min_gbit_s"), "{:.3g}"))
                for r in t["rows"])
    direction = "higher is better" if t["higher_is_better"] else "lower is better"
    return join([
        Markup("<h2>Table I: mean performance difference compared to control</h2>"),
        fmt('<table class="summary"><tr><th>congestion type</th><th>runs</th><th>mean difference</th>'
            "<th>p (Welch)</th><th>slowest bully rank, Gbit/s (median of runs)</th><th>(min)</th></tr>"
            "{}</table>", rows),
        fmt('<p class="note">Mean performance of each pattern\'s runs against the mean performance of the '
            "{} runs of the control ({}), performance being each run's {} ({}): pattern / control - 1 (a "
            "doubled time is -50%); negative: worse than the control. "
            "{}: * significant at &alpha; = 0.05, "
            "** also at &alpha; = 0.01. Slowest bully rank: the bully rank that sent the least, per run "
            "(network_congestor's JSON).</p>",
            t["control_runs"], t["control"], "1 / " + t["value"] if t["performance"] == "1 / value" else t["value"],
            direction, t["test"]),
    ], "\n")
