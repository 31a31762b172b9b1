"""Report sections of network_load_test's own experiments in one job
(docs/experiments.md): the repetitions (--repeat) with their seeds and placements, the
congestor sweep (--congestor-sweep) and its impact matrix, and the repeat
statistics. (The application studies of `gpcnet study` are report/study_page.py.)

`figs` is the page's figure embedder (report.html.Figures); every function
returns an HTML fragment.
"""

from __future__ import annotations

from typing import Optional

from gpcnet.metrics import catalog
from gpcnet.plots import figures, sweep_figures
from gpcnet.report.html import Markup, fmt, join
from gpcnet.results_json import results
from gpcnet.text import number_text

# Rows of the statistics table, in the order the text output prints them.
METRIC_LABELS = {"isolated_avg": "Isolated Avg", "isolated_p99": "Isolated 99%", "loaded_avg": "Loaded Avg",
                 "loaded_p99": "Loaded 99%", "ci_avg": "CI Avg", "ci_p99": "CI 99%"}


def _cell(value: Optional[float], spec: str = "{:.2f}") -> Markup:
    if value is None:
        return Markup('<td class="num">–</td>')
    return fmt('<td class="num" title="{!r}">{}</td>', value, number_text.formatted(value, spec))


def repetition_count(doc: dict) -> int:
    return len(results.repetitions(doc))


def repetitions_summary(doc: dict) -> Markup:
    """Per repetition its seed and who ran what; empty without --repeat."""
    reps = doc.get("repetitions") or []
    if len(reps) < 2:
        return Markup()
    rows = []
    for r in reps:
        p = r.get("placement") or {}
        kernels = "; ".join(f"{catalog.short_name(k['kernel'])}: {', '.join(k['nodes'])}"
                            for k in p.get("congestor_kernels") or [])
        rows.append(fmt("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", r["repetition"], r["seed"],
                        ", ".join(p.get("canary_nodes") or []), kernels))
    return fmt('<h3>Repetitions</h3><p class="note">Each repetition places the nodes with its own seed. The '
               "tables, distributions and figures of single runs show repetition {}; the placement above is "
               'its placement.</p><table class="summary" id="table-repetitions"><tr><th>Repetition</th>'
               "<th>Seed</th><th>Canary nodes</th><th>Congestor nodes per kernel</th></tr>{}</table>",
               results.FIRST, join(rows))


def sweep_section(doc: dict, figs) -> Markup:
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
    return figs.embed(sweep_figures.sweep_figure(doc, tests), "sweep", caption)


def matrix_section(doc: dict, figs) -> Markup:
    m = doc["impact_matrix"]
    reps = results.matrix_repetitions(doc)
    mean = f", mean of {reps} repetitions" if reps > 1 else ""
    head = fmt("<tr><th>Congestors</th>{}</tr>", join(
        fmt("<th>{0} Avg</th><th>{0} 99%</th>", catalog.short_name(t)) for t in m["tests"]))
    rows = join(
        fmt('<tr><td class="name">{}</td>{}</tr>', results.congestor_set_label(kernels, m["congestor_sets"]),
            join(_cell(m[s][i][j]) for j in range(len(m["tests"])) for s in ("avg", "p99")))
        for i, kernels in enumerate(m["congestor_sets"]))
    table = fmt('<table class="gpcnet" id="table-impact-matrix"><caption>Congestion Impact per congestor set{}'
                "</caption>{}{}</table>", mean, head, rows)
    return table + figs.embed(figures.impact_matrix_figure(doc), "impact-matrix",
                              "Congestion Impact of each congestor set (rows) on each canary (columns), "
                              f"as in the paper's Figures 4 and 5{mean}.")


def _cv_only(rep: dict) -> Markup:
    """Only the CV of the CIs was recorded."""
    rows = join(fmt('<tr><td class="name">{}</td>{}</tr>', catalog.display_name(t),
                    join(_cell(v[s], "{:.1%}") for s in ("avg", "p99"))) for t, v in rep["cv"].items())
    return fmt("<p>{} repeated runs; run-to-run coefficient of variation of the Congestion Impact:</p>"
               '<table class="gpcnet" id="table-repeat-cv"><tr><th>Test</th><th>CI Avg CV</th>'
               "<th>CI 99% CV</th></tr>{}</table>", rep["runs"], rows)


def repeats_section(doc: dict, figs) -> Markup:
    rep = doc["repeats"]
    if not rep.get("metrics"):
        return _cv_only(rep)
    runs = rep["runs"]
    seeds = rep.get("seeds") or []
    head = fmt("<tr><th>Test</th><th>Metric</th><th>Unit</th>{}<th>Mean</th><th>Min</th><th>Max</th>"
               "<th>CV</th></tr>", join(fmt("<th>Rep. {}</th>", i + 1) for i in range(runs)))
    rows = []
    for m in rep["metrics"]:
        values = list(m["values"]) + [None] * (runs - len(m["values"]))
        rows.append(fmt('<tr><td class="name">{}</td><td>{}</td><td class="unit">{}</td>{}{}{}</tr>',
                        catalog.short_name(m["test"]), METRIC_LABELS.get(m["metric"], m["metric"]), m["unit"],
                        join(_cell(v) for v in values[:runs]),
                        join(_cell(m[k]) for k in ("mean", "min", "max")), _cell(m["cv"], "{:.1%}")))
    seed_note = f" (seeds {', '.join(map(str, seeds))})" if seeds else ""
    table = fmt("<p>{} repetitions in one job{}. CV = standard deviation / mean across the repetitions.</p>"
                '<table class="gpcnet" id="table-repeats"><caption>Repeatability over {} repetitions</caption>'
                "{}{}</table>", runs, seed_note, runs, head, join(rows))
    caption = ("Spread of each value across the repetitions: per canary (rows) the isolated and loaded Avg, the "
               "isolated and loaded 99% and the two Congestion Impacts; a dot per repetition, the box spans the "
               "quartiles with whiskers at min and max, the diamond is the mean, the CV is under each box.")
    return table + figs.embed(sweep_figures.repeats_figure(doc), "repeats", caption)
