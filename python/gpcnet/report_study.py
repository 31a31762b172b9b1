"""Report sections of the congestion studies in one job: the repetitions
(--repeat) with their seeds and placements, the congestor sweep
(--congestor-sweep) and its impact matrix, and the repeat statistics.

`figs` is the report's figure embedder (report._Figures); every function
returns an HTML fragment.
"""

from __future__ import annotations

import html
from typing import Optional

from gpcnet import catalog, figures, results, study_figures

# Rows of the statistics table, in the order the text output prints them.
METRIC_LABELS = {"isolated_avg": "Isolated Avg", "isolated_p99": "Isolated 99%", "loaded_avg": "Loaded Avg",
                 "loaded_p99": "Loaded 99%", "ci_avg": "CI Avg", "ci_p99": "CI 99%"}


def _e(value) -> str:
    return html.escape(str(value))


def _cell(value: Optional[float], fmt: str = "{:.2f}") -> str:
    if value is None:
        return '<td class="num">–</td>'
    return f'<td class="num" title="{value!r}">{fmt.format(value)}</td>'


def repetition_count(doc: dict) -> int:
    return len(results.repetitions(doc))


def repetitions_summary(doc: dict) -> str:
    """Per repetition its seed and who ran what; empty without --repeat."""
    reps = doc.get("repetitions") or []
    if len(reps) < 2:
        return ""
    rows = ""
    for r in reps:
        p = r.get("placement") or {}
        kernels = "; ".join(f"{catalog.short_name(k['kernel'])}: {', '.join(k['nodes'])}"
                            for k in p.get("congestor_kernels") or [])
        rows += (f"<tr><td>{r['repetition']}</td><td>{_e(r['seed'])}</td>"
                 f"<td>{_e(', '.join(p.get('canary_nodes') or []))}</td><td>{_e(kernels)}</td></tr>")
    return ('<h3>Repetitions</h3><p class="note">Each repetition places the nodes with its own seed. The tables, '
            f"distributions and figures of single runs show repetition {results.FIRST}; the placement above is "
            "its placement.</p>"
            '<table class="summary" id="table-repetitions"><tr><th>Repetition</th><th>Seed</th>'
            f"<th>Canary nodes</th><th>Congestor nodes per kernel</th></tr>{rows}</table>")


def sweep_section(doc: dict, figs) -> str:
    tests = results.canary_tests(doc)
    kernels = results.sweep_kernels(doc)
    which = (f" Repetition {results.FIRST} of {repetition_count(doc)}."
             if repetition_count(doc) > 1 else "")
    caption = ("Congestor sweep, as the paper's Figures 4 and 5: per canary (columns) the distribution of "
               "fine-grained samples isolated (top), under each congestor alone ("
               + ", ".join(catalog.display_name(k) for k in kernels) +
               ") on all congestor nodes, then under all congestors together (bottom); one log x-axis per "
               "column, Avg (solid) and 99% (dashed) marked, each loaded panel with its Congestion Impact."
               + which)
    return figs.embed(study_figures.sweep_figure(doc, tests), "sweep", caption)


def matrix_section(doc: dict, figs) -> str:
    m = doc["impact_matrix"]
    reps = results.matrix_repetitions(doc)
    mean = f", mean of {reps} repetitions" if reps > 1 else ""
    head = "<tr><th>Congestors</th>" + "".join(
        f"<th>{_e(catalog.short_name(t))} Avg</th><th>{_e(catalog.short_name(t))} 99%</th>" for t in m["tests"]) + "</tr>"
    rows = ""
    for i, kernels in enumerate(m["congestor_sets"]):
        cells = "".join(_cell(m[s][i][j]) for j in range(len(m["tests"])) for s in ("avg", "p99"))
        rows += f'<tr><td class="name">{_e(results.congestor_set_label(kernels, m["congestor_sets"]))}</td>{cells}</tr>'
    table = (f'<table class="gpcnet" id="table-impact-matrix"><caption>Congestion Impact per congestor set{mean}'
             f"</caption>{head}{rows}</table>")
    return table + figs.embed(figures.impact_matrix_figure(doc), "impact-matrix",
                              "Congestion Impact of each congestor set (rows) on each canary (columns), "
                              f"as in the paper's Figures 4 and 5{mean}.")


def repeats_section(doc: dict, figs) -> str:
    rep = doc["repeats"]
    if not rep.get("metrics"):
        # Only the CV of the CIs was recorded.
        rows = "".join(f'<tr><td class="name">{_e(catalog.display_name(t))}</td>'
                       + "".join(_cell(v[s], "{:.1%}") for s in ("avg", "p99")) + "</tr>"
                       for t, v in rep["cv"].items())
        return (f"<p>{rep['runs']} repeated runs; run-to-run coefficient of variation of the Congestion Impact:</p>"
                f'<table class="gpcnet" id="table-repeat-cv"><tr><th>Test</th><th>CI Avg CV</th>'
                f"<th>CI 99% CV</th></tr>{rows}</table>")
    runs = rep["runs"]
    seeds = rep.get("seeds") or []
    head = ("<tr><th>Test</th><th>Metric</th><th>Unit</th>"
            + "".join(f"<th>Rep. {i + 1}</th>" for i in range(runs))
            + "<th>Mean</th><th>Min</th><th>Max</th><th>CV</th></tr>")
    rows = ""
    for m in rep["metrics"]:
        values = list(m["values"]) + [None] * (runs - len(m["values"]))
        rows += (f'<tr><td class="name">{_e(catalog.short_name(m["test"]))}</td>'
                 f'<td>{_e(METRIC_LABELS.get(m["metric"], m["metric"]))}</td><td class="unit">{_e(m["unit"])}</td>'
                 + "".join(_cell(v) for v in values[:runs])
                 + "".join(_cell(m[k]) for k in ("mean", "min", "max")) + _cell(m["cv"], "{:.1%}") + "</tr>")
    seed_note = f" (seeds {', '.join(map(str, seeds))})" if seeds else ""
    table = (f"<p>{runs} repetitions in one job{_e(seed_note)}. CV = standard deviation / mean across the "
             "repetitions.</p>"
             f'<table class="gpcnet" id="table-repeats"><caption>Repeatability over {runs} repetitions</caption>'
             f"{head}{rows}</table>")
    caption = ("Spread of each value across the repetitions: per canary (rows) the isolated and loaded Avg, the "
               "isolated and loaded 99% and the two Congestion Impacts; a dot per repetition, the box spans the "
               "quartiles with whiskers at min and max, the diamond is the mean, the CV is under each box.")
    return table + figs.embed(study_figures.repeats_figure(doc), "repeats", caption)
