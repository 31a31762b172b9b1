"""The co-run paper's Fig. 6 in the report of a study: per setting the
mean normalised time against the mean stalls per second on the network
tiles (links between switches) and on the processor tiles (ports facing
the application's nodes), each averaged over routers and duration
(gpcnet.study.summary.tile_stalls computes the numbers)."""

from __future__ import annotations

import math

from matplotlib.figure import Figure

from gpcnet.report.html import Figures, Markup, fmt, join


def _ok(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and abs(x) < 1e30


def _f(x, spec="{:.3f}") -> str:
    return spec.format(x) if _ok(x) else "-"


def tiles_figure(summary: dict) -> Figure:
    """Two panels sharing the time axis: network tiles (left), processor
    tiles (right); a cross per setting with standard errors, a dashed
    least-squares line through the crosses of each."""
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, t in zip(axes, summary["tile_stalls"].values()):
        shown = [p for p in t["points"] if _ok(p["stall_mean"]) and _ok(p["time_mean"])]
        for p in shown:
            err = [v if _ok(v) else 0 for v in (p["stall_se"] or 0, p["time_se"] or 0)]
            ax.errorbar([p["stall_mean"]], [p["time_mean"]], xerr=[err[0]], yerr=[err[1]], fmt="x", ms=8,
                        capsize=3, label=f"{p['setting']} ({p['tile_runs']} of {p['runs']} runs)")
        f = t["fit"]
        if f and shown:
            xs = [p["stall_mean"] for p in shown]
            ax.plot([min(xs), max(xs)], [f["intercept"] + f["slope"] * x for x in (min(xs), max(xs))], "k--", lw=1,
                    label=f"linear fit, r = {f['r']:.2f}" if f["r"] is not None else "linear fit")
        ax.set_xlabel(f"{t['label']}: stalls per second")
        ax.set_title(t["label"], fontsize=9)
        if shown:
            ax.legend(fontsize=7)
    axes[0].set_ylabel(f"mean time / median of setting {summary['baseline']}")
    return fig


def tiles_section(s: dict, figs: Figures) -> Markup:
    t = s.get("tile_stalls") or {}
    if not any(k["points"] for k in t.values()):
        return Markup("<p>No tile stall rates in this study (counters not sampled, or sampled before the two "
                      "tile kinds were kept apart).</p>")
    out = figs.embed(tiles_figure(s), "tiles", "Per setting: mean normalised time against mean stalls per second "
                     "on the network tiles (links between switches) and on the processor tiles (ports facing the "
                     "application's nodes), averaged over routers and duration; error bars are standard errors.")
    rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", k["label"],
                    p["setting"], p["tile_runs"], _f(p["time_mean"]), _f(p["stall_mean"], "{:.4g}"),
                    _f(p["stall_se"], "{:.3g}"))
                for k in t.values() for p in k["points"])
    out += fmt('<table class="summary"><tr><th>tiles</th><th>setting</th><th>runs with a rate</th>'
               "<th>mean normalised time</th><th>mean stalls/s</th><th>standard error</th></tr>{}</table>", rows)
    for k in t.values():
        f = k["fit"]
        if f and f["r"] is not None:
            out += fmt("<p>{}: normalised time = {} + {} x stalls/s, r = {}</p>", k["label"],
                       _f(f["intercept"]), _f(f["slope"], "{:.4g}"), _f(f["r"], "{:.2f}"))
    return out
