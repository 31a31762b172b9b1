"""`gpcnet report` on a scale sweep (`gpcnet study scale`): the co-run
paper's Fig. 7, GPCNeT's bandwidth ratio (the bandwidth canary's bandwidth
with the congestor over its bandwidth in isolation) against the stall/flit ratio, one point per run and one colour per
node count, and the bandwidth ratio per node count with standard errors."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from gpcnet.plots.figures import drawable, points
from gpcnet.report.html import Figures, Markup, fmt, join, page
from gpcnet.study.summary import summarise_scale
from gpcnet.text import number_text
from gpcnet.text.text_safe import label


def _f(x, spec="{:.3f}") -> str:
    return number_text.formatted(x, spec)


def ratio_figure(s: dict) -> Figure:
    """Fig. 7: bandwidth ratio against stall/flit ratio, per run."""
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    pts = [p for p in s["points"] if p["stall_ratio"] is not None]
    for k in sorted({p["nodes"] for p in pts}):
        mine = [p for p in pts if p["nodes"] == k]
        ax.scatter([p["stall_ratio"] for p in mine], [p["bandwidth_ratio"] for p in mine], s=22, label=f"{k} nodes")
    f = s["fit"]
    if f:
        lo, hi = min(p["stall_ratio"] for p in pts), max(p["stall_ratio"] for p in pts)
        ax.plot([lo, hi], points([f["intercept"] + f["slope"] * x for x in (lo, hi)]), "k--", lw=1,
                label=f"linear fit, r = {f['r']:.2f}" if f["r"] is not None else "linear fit")
    ax.set_xlabel(label(pts[0]["what"]))
    ax.set_ylabel("bandwidth ratio (loaded / isolated)")
    ax.legend(fontsize=7)
    return fig


def counts_figure(s: dict) -> Figure:
    """Mean bandwidth ratio per node count, standard errors as error bars."""
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    c = s["counts"]
    ax.errorbar([x["nodes"] for x in c], points(x["bandwidth_mean"] for x in c),
                yerr=[x["bandwidth_se"] if drawable(x["bandwidth_se"]) else 0 for x in c], fmt="o-", capsize=3)
    ax.set_xticks([x["nodes"] for x in c])
    ax.set_xlabel("nodes running GPCNeT")
    ax.set_ylabel("mean bandwidth ratio")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    return fig


def render(study: dict) -> str:
    s = summarise_scale(study)
    cfg = study["config"]
    figs = Figures()
    title = f"scale study: {Path(cfg['app_command'][0]).name} on {', '.join(cfg['settings'])} nodes"
    parts = [fmt("<h1>{}</h1>", title),
             fmt("<p>{} runs, {} failed; launcher {}, {} ranks per node, {} repetitions per node count; "
                 "options: {}.</p>", len(study["runs"]), len(s["failed"]), cfg["launcher"], cfg["ppn"],
                 cfg["rotations"], " ".join(map(str, cfg["app_command"][1:])) or "none (the published run)")]
    rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", c["nodes"],
                    c["runs"], _f(c["bandwidth_mean"]), _f(c["bandwidth_se"]), _f(c["stall_mean"], "{:.4g}"),
                    _f(c["stall_se"], "{:.3g}")) for c in s["counts"])
    parts.append(fmt('<table class="summary"><tr><th>nodes</th><th>runs</th><th>mean bandwidth ratio</th>'
                     "<th>standard error</th><th>mean stall/flit ratio</th><th>standard error</th></tr>{}</table>",
                     rows))
    if s["counts"]:
        parts.append(figs.embed(counts_figure(s), "counts", "Bandwidth ratio of the load test's bandwidth canary "
                                "(loaded / isolated: below 1 under congestion) per node count; error bars are "
                                "standard errors."))
    parts.append(Markup("<h2>Bandwidth ratio vs stall/flit ratio</h2>"))
    if any(p["stall_ratio"] is not None for p in s["points"]):
        parts.append(figs.embed(ratio_figure(s), "ratio", "Each point is one run; one colour per node count."))
        if s["fit"]:
            f = s["fit"]
            parts.append(fmt("<p>linear fit over {} runs: bandwidth ratio = {:.3f} + {:.4g} x stall/flit ratio, "
                             "r = {}</p>", f["points"], f["intercept"], f["slope"], _f(f["r"], "{:.2f}")))
    else:
        parts.append(Markup("<p>No run has a stall/flit ratio (no counters sampled, or none over the "
                            "threshold): nothing to correlate.</p>"))
    if s["failed"]:
        parts.append(fmt("<h2>Failed runs</h2><ul>{}</ul>",
                         join(fmt("<li>{}: {}</li>", f["id"], str(f["error"])) for f in s["failed"])))
    return page(title, join(parts, "\n"))
