"""Figures of network_load_test's own experiments in one job: the congestor
sweep (--congestor-sweep, the paper's Figures 4 and 5) and the run-to-run
spread of --repeat. (The application studies of `gpcnet study` draw theirs
in report/study_page.py.)

Kept apart from figures.py, which draws what every single run has.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from matplotlib.figure import Figure

from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics import catalog
from gpcnet.metrics.impact import congestion_impact, lower_is_better
from gpcnet.plots.figures import decades, drawable, histogram_grid, readable_log_ticks
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe

# Isolated and all-together keep the colours of the single-run figures;
# each congestor alone gets one of these, in sweep order.
_ALONE_COLORS = ("tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
                 "tab:cyan", "tab:gray")


def sweep_rows(doc: dict, repetition: int = results.FIRST) -> list:
    """(table id, label, colour) per histogram row: isolated, each congestor alone, all together."""
    kernels = results.sweep_kernels(doc, repetition)
    if not kernels:
        raise GpcnetError("no congestor sweep in this document (network_load_test --congestor-sweep writes one)")
    rows = [("isolated", "Isolated", "tab:blue")]
    rows += [(f"loaded_by:{k}", f"{catalog.short_name(k)} alone", _ALONE_COLORS[i % len(_ALONE_COLORS)])
             for i, k in enumerate(kernels)]
    if results.table(doc, "loaded", repetition) is not None:
        rows.append(("loaded", "All congestors", "tab:red"))
    return rows


def sweep_figure(doc: dict, tests: Optional[list] = None, repetition: int = results.FIRST) -> Figure:
    """The paper's Figures 4 and 5: per canary (columns) the histogram
    isolated on top, then under each congestor alone, then under all
    together, on one log x-axis per column; each loaded panel names its CI."""
    rows = sweep_rows(doc, repetition)
    tests = tests or results.canary_tests(doc, repetition)

    def ci_note(table_id: str, test: str) -> str:
        if table_id == "isolated":
            return ""
        iso = results.row(doc, "isolated", test, repetition)
        loaded = results.row(doc, table_id, test, repetition)
        if not iso or not loaded:
            return ""
        ci = [congestion_impact(iso[s], loaded[s], lower_is_better(loaded["better"])) for s in ("avg", "p99")]
        shown = [number_text.fixed(v, 2, "–") for v in ci]
        return f"\nCI {shown[0]} Avg, {shown[1]} 99%"

    return histogram_grid(doc, tests, rows, repetition, row_height=1.45, note=ci_note)


# Per test: one panel per statistic, one box per metric of that statistic.
_REPEAT_PANELS = (("Avg", (("isolated_avg", "Isolated"), ("loaded_avg", "Loaded"))),
                  ("99%", (("isolated_p99", "Isolated"), ("loaded_p99", "Loaded"))),
                  ("Congestion Impact", (("ci_avg", "Avg"), ("ci_p99", "99%"))))
_BOX_COLORS = {"isolated_avg": "tab:blue", "isolated_p99": "tab:blue", "loaded_avg": "tab:red",
               "loaded_p99": "tab:red", "ci_avg": "tab:blue", "ci_p99": "tab:orange"}


def percent(fraction: Optional[float]) -> str:
    x = number_text.as_float(fraction)
    return number_text.percent(None if x is None else 100 * x, 1, "–")


def repeat_metrics(doc: dict) -> dict:
    """(test, metric) -> the repeats.metrics entry."""
    rep = doc.get("repeats") or {}
    if not rep.get("metrics"):
        raise GpcnetError("no per-repetition values in this document (network_load_test --repeat N writes them)")
    return {(m["test"], m["metric"]): m for m in rep["metrics"]}


def repeats_figure(doc: dict) -> Figure:
    """Spread across repetitions: per test (rows) the isolated and loaded
    Avg, the isolated and loaded 99% and the two CIs (columns), each a box
    from min to max with the quartiles, every repetition a dot, the mean a
    diamond, on log y-axes (the CV is a relative spread)."""
    by_key = repeat_metrics(doc)
    tests = list(dict.fromkeys(test for test, _ in by_key))
    runs = doc["repeats"]["runs"]
    fig = Figure(figsize=(11.0, 2.5 * len(tests) + 0.5), layout="constrained")
    axes = fig.subplots(len(tests), len(_REPEAT_PANELS), squeeze=False)
    for row_i, test in enumerate(tests):
        for col, (stat, metrics) in enumerate(_REPEAT_PANELS):
            ax = axes[row_i][col]
            present = [(key, label, by_key[(test, key)]) for key, label in metrics if (test, key) in by_key]
            drawn = [(key, label, m, [v for v in m["values"] if drawable(v) and v > 0])
                     for key, label, m in present]
            drawn = [d for d in drawn if d[3]]
            ax.set_title(text_safe.label(f"{catalog.short_name(test)}: {stat}"), fontsize=9)
            ax.tick_params(labelsize=7)
            if not drawn:
                ax.text(0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center")
                continue
            positions = np.arange(1, len(drawn) + 1)
            # whis=(0, 100): the whiskers are min and max, as the statistics table.
            ax.boxplot([d[3] for d in drawn], positions=positions, widths=0.5, whis=(0, 100),
                       showfliers=False, medianprops={"color": "black", "linewidth": 0.8})
            for x, (key, _, m, values) in zip(positions, drawn):
                # Spread the dots a little sideways so equal values stay countable.
                offsets = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else np.zeros(1)
                ax.scatter(x + offsets, values, s=14, color=_BOX_COLORS[key], zorder=3,
                           label=None)
                if drawable(m.get("mean")) and m["mean"] > 0:
                    ax.scatter([x + 0.32], [m["mean"]], marker="D", s=18, color="black", zorder=3)
            ax.set_xticks(positions)
            ax.set_xticklabels([f"{label}\nCV {percent(m['cv'])}" for _, label, m, _ in drawn], fontsize=7)
            ax.set_xlim(0.4, len(drawn) + 0.6)
            ax.set_yscale("log")
            if stat == "Congestion Impact":
                ax.axhline(1.0, color="black", linewidth=0.6, linestyle=":")
                ax.set_ylabel("CI (log)", fontsize=8)
            else:
                ax.set_ylabel(text_safe.label(f"{drawn[0][2]['unit']} (log)"), fontsize=8)
            ax.autoscale_view()
            readable_log_ticks(ax.yaxis, decades(*ax.get_ylim()))
    fig.suptitle(f"Spread over {text_safe.quote(runs)} repetitions (dots: repetitions; box: quartiles, whiskers min-max; "
                 "diamond: mean)", fontsize=9)
    return fig
