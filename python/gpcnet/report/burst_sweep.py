"""The burst sweep of network_load_test (--burst-sweep,
docs/experiments.md#burst-sweep): the Congestion Impact of every
ON x OFF cell as a heat map with the numbers in the cells, one panel per
canary (rows) and per intensity (columns), and the same values as a table.

Everything comes from the results JSON's "burst_matrix" member
(docs/results-json.md#burst-matrix): the mean over repetitions of each
cell's CI, and the CI of the run's steady loaded phase for reference.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics import catalog
from gpcnet.plots.figures import drawable
from gpcnet.report.html import Markup, fmt, join
from gpcnet.text import number_text, text_safe

STATS = {"avg": "Avg", "p99": "99%"}


def has_burst_sweep(doc: dict) -> bool:
    return bool(doc.get("burst_matrix"))


def burst_matrix(doc: dict) -> dict:
    m = doc.get("burst_matrix")
    if not m:
        raise GpcnetError("no burst sweep in this document (network_load_test --burst-sweep writes one)")
    return m


def duration_label(seconds: float) -> str:
    """10ms, 250us, 1.5s: as the printed matrix names them."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:g}us"
    if seconds < 1.0:
        return f"{seconds * 1e3:g}ms"
    return f"{seconds:g}s"


def _value(v) -> float:
    # NaN (no cell drawn) for a value no axis or colour scale can take.
    return float(v) if drawable(v) else np.nan


def cell_grid(m: dict, test: int, intensity: float, stat: str = "avg") -> np.ndarray:
    """CI of one canary at one intensity as an [ON, OFF] array in the
    grid's list order; NaN where the cell has no value (yet)."""
    grid = np.full((len(m["on_s"]), len(m["off_s"])), np.nan)
    for cell in m["cells"]:
        if cell["intensity"] != intensity:
            continue
        i, j = m["on_s"].index(cell["on_s"]), m["off_s"].index(cell["off_s"])
        grid[i, j] = _value(cell[stat][test])
    return grid


def burst_sweep_figure(doc: dict, stat: str = "avg", tests: Optional[list] = None) -> Figure:
    """Per canary (rows) and intensity (columns) a heat map of the CI of
    each ON (y) x OFF (x) cell, the value written in the cell; one log
    colour scale for all panels, so colours compare across panels."""
    m = burst_matrix(doc)
    if stat not in STATS:
        raise GpcnetError(f"no statistic {stat!r} in the burst matrix (one of {', '.join(STATS)})")
    tests = tests or m["tests"]
    rows = [m["tests"].index(t) for t in tests]
    grids = [[cell_grid(m, r, x, stat) for x in m["intensity"]] for r in rows]
    values = np.array([g for row in grids for g in row])
    positive = values[np.isfinite(values) & (values > 0)]
    norm = LogNorm(vmin=min(1.0, positive.min()), vmax=max(2.0, positive.max())) if positive.size else None
    n_on, n_off = len(m["on_s"]), len(m["off_s"])
    fig = Figure(figsize=(1.6 + len(m["intensity"]) * (1.2 + 0.75 * n_off),
                          0.6 + len(rows) * (0.9 + 0.45 * n_on)), layout="constrained")
    axes = fig.subplots(len(rows), len(m["intensity"]), squeeze=False)
    reps = m.get("repetitions", 1)
    image = None
    for r, test_index in enumerate(rows):
        steady = _value(m["steady"][stat][test_index])
        for c, intensity in enumerate(m["intensity"]):
            ax, grid = axes[r][c], grids[r][c]
            # pcolormesh stays vector in SVG (imshow would embed a PNG).
            image = ax.pcolormesh(np.ma.masked_invalid(grid), cmap="Reds", norm=norm,
                                  edgecolors="white", linewidth=0.5)
            for (i, j), v in np.ndenumerate(grid):
                if np.isfinite(v):
                    dark = norm is not None and norm(v) > 0.6  # keep the number readable
                    ax.text(j + 0.5, i + 0.5, number_text.formatted(v, "{:.2f}"), ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
            ax.set_xticks(np.arange(n_off) + 0.5)
            ax.set_xticklabels([duration_label(s) for s in m["off_s"]], fontsize=7)
            ax.set_yticks(np.arange(n_on) + 0.5)
            ax.set_yticklabels([duration_label(s) for s in m["on_s"]], fontsize=7)
            ax.set_xlabel("OFF", fontsize=7)
            ax.set_ylabel("ON", fontsize=7)
            steady_text = "–" if not np.isfinite(steady) else f"{steady:.2f}"
            ax.set_title(text_safe.label(f"{catalog.short_name(m['tests'][test_index])}, {100 * intensity:g}% rate\n"
                                         f"(steady: {steady_text})"), fontsize=8)
    mean = f", mean of {reps} repetitions" if reps > 1 else ""
    fig.suptitle(f"Congestion Impact ({STATS[stat]}) by burst shape{mean}", fontsize=9)
    if image is not None and norm is not None:
        bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8)
        bar.solids.set_rasterized(False)  # keep the SVG free of embedded bitmaps
    return fig


def _num(v) -> Markup:
    if v is None:
        return Markup('<td class="num">–</td>')
    return fmt('<td class="num" title="{!r}">{}</td>', v, number_text.formatted(v, "{:.2f}"))


def table(doc: dict) -> Markup:
    """Every cell's CI (Avg, 99%) per canary, in the printed matrix's order."""
    m = burst_matrix(doc)
    head = fmt("<tr><th>ON</th><th>OFF</th><th>Rate</th>{}</tr>", join(
        fmt("<th>{0} Avg</th><th>{0} 99%</th>", catalog.short_name(t)) for t in m["tests"]))
    rows = [fmt("<tr><td>{}</td><td>{}</td><td>{}</td>{}</tr>", duration_label(c["on_s"]),
                duration_label(c["off_s"]), f"{100 * c['intensity']:g}%",
                join(_num(c[s][i]) for i in range(len(m["tests"])) for s in STATS))
            for c in m["cells"]]
    rows.append(fmt("<tr><td>steady</td><td>–</td><td>100%</td>{}</tr>",
                    join(_num(m["steady"][s][i]) for i in range(len(m["tests"])) for s in STATS)))
    return fmt('<table class="gpcnet" id="table-burst-matrix"><caption>Congestion Impact per burst shape'
               "</caption>{}{}</table>", head, join(rows))


def section(doc: dict, figs) -> Markup:
    """The report section: the heat map of CI Avg, then the table."""
    m = burst_matrix(doc)
    caption = ("Burst sweep: Congestion Impact (Avg; 99% in the table below) of each ON (rows) x OFF "
               "(columns) cell, one panel per canary (rows of panels) and per intensity (columns of "
               "panels), the value in each cell; one log colour scale for all panels. Each panel names "
               "the CI of the run's steady loaded phase for reference."
               + (f" Mean of {m['repetitions']} repetitions." if m.get("repetitions", 1) > 1 else ""))
    note = Markup('<p class="note">Each cell\'s canary results are the table <code>loaded_burst:&lt;cell&gt;'
                  "</code> of the results JSON, in the order of <code>burst_matrix.cells</code>.</p>")
    return figs.embed(burst_sweep_figure(doc), "burst-sweep", caption) + table(doc) + note
