"""The paper's figures drawn with matplotlib: latency/bandwidth histograms
isolated vs loaded (Figures 1-3), Congestion Impact bars beside the
published systems (Figure 11), and the congestor impact matrix
(Figures 4-5).

Figures are built on matplotlib.figure.Figure directly (no pyplot), so no
GUI backend or global state is involved.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Optional

import matplotlib
import numpy as np
from matplotlib import ticker
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics import catalog, reference
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe

PHASES = (("isolated", "Isolated", "tab:blue"), ("loaded", "With congestors", "tab:red"))

# Strings from files reach labels, titles, ticks and legends through
# text_safe.label, which makes them literal for matplotlib's own mathtext
# ($ -> \$). A matplotlibrc with text.usetex would hand them to LaTeX
# instead, where other characters are special: figures are built and
# drawn with it off.
LITERAL_TEXT_RC = {"text.usetex": False}


@contextlib.contextmanager
def literal_text():
    """The context figures are built and drawn in: LaTeX off (see
    LITERAL_TEXT_RC); numpy's overflow warnings and matplotlib's warnings
    (an empty legend, a singular axis range from odd values in a file)
    kept off stderr, where the only line is the command's result."""
    with matplotlib.rc_context(LITERAL_TEXT_RC), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _stairs(bins: list) -> tuple:
    """Sparse [lower, upper, count] bins -> contiguous edges and sample fractions.

    Only non-empty bins are stored, so gaps become zero-height steps. The
    buckets have constant relative width, so on a log axis the fraction per
    bucket reads as a density.
    """
    total = sum(c for _, _, c in bins) or 1
    edges: list = []
    heights: list = []
    for lower, upper, count in bins:
        if not drawable(lower) or lower <= 0 or not drawable(upper) or not upper > lower:
            continue  # cannot be drawn on a log axis (0, or beyond what an axis can span)
        if not edges:
            edges.append(lower)
        elif lower > edges[-1]:
            heights.append(0.0)
            edges.append(lower)
        heights.append(count / total)
        edges.append(upper)
    return np.array(edges), np.array(heights)


def drawable(value) -> bool:
    """A value a figure can place: finite, and 0 or of a magnitude within
    number_text.MEASURED_MIN..MEASURED_MAX. Matplotlib computes an axis'
    limits with margins and its ticks with differences, which overflow
    for values near a double's limits (1.7e308, or a range from 0 to it);
    nothing measured comes near these bounds."""
    return number_text.measured(value) is not None


def points(values) -> list:
    """Values as floats for plotting, NaN (not drawn) where not drawable()."""
    return [float(v) if drawable(v) else float("nan") for v in values]


def readable_log_ticks(axis, span_decades: float = 2.0):
    """Label a log axis 1, 2, 5, 10, ... (or only powers of ten over a wide
    range) instead of matplotlib's mantissa-times-power labels, which
    collide on narrow ranges."""
    subs = (1.0, 2.0, 5.0) if span_decades <= 2.5 else (1.0,)
    axis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def decades(lo: float, hi: float) -> float:
    return float(np.log10(hi / lo)) if lo > 0 and hi > lo else 0.0


def _mark(ax, value: Optional[float], color: str, style: str, label: str):
    if drawable(value) and value > 0:
        ax.axvline(value, color=color, linestyle=style, linewidth=1.2, label=f"{label} {value:.4g}")


def hist_panel(ax, row: Optional[dict], color: str, note: str = "") -> None:
    """One result's histogram on a log x-axis, Avg (solid) and 99% (dashed)
    marked; `note` is added under the sample count in the legend."""
    hist = row.get("histogram") if row else None
    ax.set_xscale("log")
    edges, heights = _stairs(hist["bins"]) if hist else ([], [])
    if not len(edges):
        why = "no histogram" if not hist or not hist["bins"] else "no bin that a log axis can show"
        ax.text(0.5, 0.5, why, transform=ax.transAxes, ha="center", va="center")
        return
    ax.stairs(heights, edges, fill=True, color=color, alpha=0.35)
    ax.stairs(heights, edges, color=color, linewidth=0.8)
    _mark(ax, row["avg"], "black", "-", "Avg")
    _mark(ax, row["p99"], "black", "--", "99%")
    ax.legend(fontsize=7, loc="upper right", title=text_safe.label(f"{row['samples']} samples{note}"),
              title_fontsize=7)


def histogram_grid(doc: dict, tests: list, phases: list, repetition: int, row_height: float = 2.2,
                   note=lambda table_id, test: "") -> Figure:
    """One column per test, one row per (table id, label, colour) in `phases`;
    the panels of a column share their log x-axis. `note(table_id, test)`
    adds a line to a panel's legend."""
    fig = Figure(figsize=(4.8 * len(tests), row_height * len(phases) + 0.6), layout="constrained")
    axes = fig.subplots(len(phases), len(tests), sharex="col", squeeze=False)
    for col, test in enumerate(tests):
        for row_i, (table_id, label, color) in enumerate(phases):
            ax = axes[row_i][col]
            row = results.row(doc, table_id, test, repetition)
            hist_panel(ax, row, color, note(table_id, test))
            ax.set_ylabel(text_safe.label(label) + "\nfraction of samples", fontsize=8)
            ax.tick_params(labelsize=7)
            if row_i == 0:
                ax.set_title(text_safe.label(catalog.display_name(test)), fontsize=9)
            if row_i == len(phases) - 1:
                unit = row["unit"] if row else (catalog.BY_ID[test].unit if test in catalog.BY_ID else "")
                ax.set_xlabel(text_safe.label(unit), fontsize=8)
                # The panels of a column share this axis; set ticks once its range is final.
                ax.autoscale_view()
                readable_log_ticks(ax.xaxis, decades(*ax.get_xlim()))
    return fig


def histogram_figure(doc: dict, tests: Optional[list] = None, repetition: int = results.FIRST) -> Figure:
    """One column per test; rows isolated and (load test) loaded, sharing a log x-axis."""
    tests = tests or results.canary_tests(doc, repetition)
    phases = [p for p in PHASES if results.table(doc, p[0], repetition) is not None]
    return histogram_grid(doc, tests, phases, repetition)


def ci_figure(doc: dict, repetition: int = results.FIRST) -> Figure:
    """CI (Avg and 99%) per canary on a log axis beside the published systems
    at the closest PPort, as in the paper's Figure 11."""
    entries = results.impacts(doc, repetition)
    if not entries:
        raise GpcnetError("no Congestion Impact in this document (network_test measures none)")
    pport, _ = results.pport(doc)
    neighbours = reference.closest_per_system(pport) if pport is not None else []
    metrics = [(m, t) for m, t in catalog.PAPER_METRICS.items() if results.impact(doc, t, repetition)]
    extra = [e["test"] for e in entries if e["test"] not in catalog.PAPER_METRICS.values()]
    panels = metrics + [(None, t) for t in extra]
    here = (f"This run\n({text_safe.quote(doc['environment']['nodes'])} nodes, {number_text.general(pport, 6)} PPort)"
            if pport else "This run")
    fig = Figure(figsize=(max(5.0, 0.55 * (len(neighbours) + 1)) * len(panels) / 1.2, 5.2),
                 layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (metric, test) in zip(axes, panels):
        entry = results.impact(doc, test, repetition)
        labels = [here]
        avg = [results.ci(entry, "avg")]
        p99 = [results.ci(entry, "p99")]
        if metric is not None:
            for pub in neighbours:
                labels.append(pub.label.replace(" (", "\n("))
                avg.append(pub.ci(metric, "avg"))
                p99.append(pub.ci(metric, "p99"))
        x = np.arange(len(labels))
        clean = [np.nan if not drawable(v) or v <= 0 else v for v in avg], \
                [np.nan if not drawable(v) or v <= 0 else v for v in p99]
        bars_avg = ax.bar(x - 0.2, clean[0], 0.4, label="Avg", color="tab:blue")
        bars_p99 = ax.bar(x + 0.2, clean[1], 0.4, label="99%", color="tab:orange")
        # This run stands out from the published systems.
        for bar in (bars_avg[0], bars_p99[0]):
            bar.set_edgecolor("black")
            bar.set_hatch("//")
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([text_safe.label(x) for x in labels], rotation=70, fontsize=7, ha="right",
                           rotation_mode="anchor")
        ax.set_title(text_safe.label(catalog.display_name(test)), fontsize=9)
        ax.set_ylabel("Congestion Impact (log)", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.legend(fontsize=7)
        ax.autoscale_view()
        readable_log_ticks(ax.yaxis, decades(*ax.get_ylim()))
    return fig


def impact_matrix_figure(doc: dict) -> Figure:
    """Heat maps of CI for each congestor set (rows) and canary (columns)."""
    matrix = doc.get("impact_matrix")
    if not matrix:
        raise GpcnetError("no impact_matrix in this document")
    rows = [results.congestor_set_label(s, matrix["congestor_sets"]) for s in matrix["congestor_sets"]]
    reps = results.matrix_repetitions(doc)
    mean = f" (mean of {reps} repetitions)" if reps > 1 else ""
    cols = [catalog.short_name(t) for t in matrix["tests"]]
    fig = Figure(figsize=(2.0 + 2.4 * len(cols), 1.2 + 0.45 * len(rows)), layout="constrained")
    axes = fig.subplots(1, 2, squeeze=False)[0]
    for ax, stat, title in zip(axes, ("avg", "p99"), ("Avg", "99%")):
        values = np.array([points(r) for r in matrix[stat]], dtype=float)
        positive = values[np.isfinite(values) & (values > 0)]
        norm = LogNorm(vmin=min(1.0, positive.min()), vmax=max(2.0, positive.max())) if positive.size else None
        # pcolormesh stays vector in SVG (imshow would embed a PNG).
        image = ax.pcolormesh(np.ma.masked_invalid(values), cmap="Reds", norm=norm,
                              edgecolors="white", linewidth=0.5)
        ax.invert_yaxis()
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                dark = norm is not None and norm(v) > 0.6  # keep the number readable on dark cells
                ax.text(j + 0.5, i + 0.5, number_text.formatted(v, "{:.2f}"), ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
        ax.set_xticks(np.arange(len(cols)) + 0.5)
        ax.set_xticklabels([text_safe.label(c) for c in cols], rotation=30, ha="right", fontsize=7)
        ax.set_yticks(np.arange(len(rows)) + 0.5)
        ax.set_yticklabels([text_safe.label(r) for r in rows], fontsize=7)
        ax.set_title(f"Congestion Impact, {title}{mean}", fontsize=9)
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.solids.set_rasterized(False)  # keep the SVG free of embedded bitmaps
        readable_log_ticks(bar.ax.yaxis, decades(*bar.ax.get_ylim()))
    return fig


FORMATS = ("png", "svg", "pdf")


def file_format(path: str) -> str:
    """The figure format a file name asks for, refused unless drawable."""
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if fmt not in FORMATS:
        raise GpcnetError(f"{path}: unsupported figure format {fmt!r}; use .png, .svg or .pdf")
    return fmt


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as the bytes of a PNG, SVG or PDF file (no dates: the
    same document gives the same file)."""
    metadata = {"CreationDate": None} if fmt == "pdf" else {"Date": None} if fmt == "svg" else None
    buf = io.BytesIO()
    with literal_text():
        fig.savefig(buf, format=fmt, dpi=150, metadata=metadata)
    return buf.getvalue()


def save(fig: Figure, path: str, *, force: bool = False) -> None:
    """Write the figure to ``path`` in the format its extension names,
    through safe_write (no link followed, no file replaced without force)."""
    safe_write.write_bytes(path, render(fig, file_format(path)), force=force)
