"""`gpcnet report` on a study JSON (`gpcnet study`): normalised execution
times per setting (box plots: median, quartiles, min/max whiskers), CI_app
of the paired settings, and the counter metric against time with a linear
fit; one self-contained HTML file through the shared layer."""

from __future__ import annotations

from matplotlib.figure import Figure

from gpcnet.report.html import Figures, Markup, fmt, join, page
from gpcnet.study.report import summarise


def box_figure(summary: dict, title: str) -> Figure:
    names = [s for s, v in summary["settings"].items() if v["normalised"]]
    fig = Figure(figsize=(1.4 * len(names) + 2, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.boxplot([summary["settings"][s]["normalised"] for s in names], whis=(0, 100))
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_ylabel(f"time / median of setting {summary['baseline']}")
    ax.set_title(title)
    return fig


def scatter_figure(summary: dict) -> Figure:
    pts = summary["metric"]
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    for s in dict.fromkeys(p["setting"] for p in pts):
        ax.scatter([p["metric"] for p in pts if p["setting"] == s],
                   [p["normalised"] for p in pts if p["setting"] == s], label=s, s=18)
    if summary.get("fit"):
        f = summary["fit"]
        xs = sorted(p["metric"] for p in pts)
        ax.plot([xs[0], xs[-1]], [f["intercept"] + f["slope"] * x for x in (xs[0], xs[-1])], "k-", lw=1,
                label=f"fit r={f['r']:.2f}" if f["r"] is not None else "fit")
    ax.set_xlabel(pts[0]["what"])
    ax.set_ylabel("normalised time")
    ax.legend(fontsize=7)
    return fig


def _f(x, spec="{:.3f}") -> str:
    return "-" if x is None else spec.format(x)


def _times_table(s: dict) -> Markup:
    rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>", name, v["runs"], _f(v["median_s"]),
                    join(fmt("<td>{}</td>", _f((v["stats"] or {}).get(k)))
                         for k in ("min", "q1", "median", "q3", "max")),
                    _f(v["median_fom"], "{:.6g}"))
                for name, v in s["settings"].items())
    return fmt('<table class="summary"><tr><th>setting</th><th>runs</th><th>median s</th><th>min</th><th>q1</th>'
               "<th>median</th><th>q3</th><th>max</th><th>median figure of merit</th></tr>{}</table>", rows)


def _ci_app_table(s: dict) -> Markup:
    rows = join(fmt("<tr><td>{} &rarr; {}</td><td>{}</td><td>{}</td><td>{}</td></tr>", c["isolated"],
                    c["congested"], _f(c["median_paired"]), _f(c["ratio_of_medians"]), len(c["paired"]))
                for c in s["ci_app"])
    return fmt('<table class="summary"><tr><th>pair</th><th>median of paired runs</th><th>ratio of medians</th>'
               "<th>pairs</th></tr>{}</table>", rows)


def _metric_section(s: dict, figs: Figures) -> Markup:
    if not s["metric"]:
        return Markup("<p>No stall counters in this study (no InfiniBand port counters and no testbed "
                      "switch statistics): nothing to correlate.</p>")
    out = figs.embed(scatter_figure(s), "metric", "Normalised time of each run against its stall metric.")
    if s.get("fit"):
        f = s["fit"]
        out += fmt("<p>linear fit: normalised time = {:.3f} + {:.3g} x metric, r = {} over {} runs</p>",
                   f["intercept"], f["slope"], _f(f["r"], "{:.2f}"), f["points"])
    return out


def render(study: dict) -> str:
    """The HTML page of a loaded study document."""
    s = summarise(study)
    cfg = study["config"]
    figs = Figures()
    title = f"{cfg['study']} study: {' '.join(map(str, cfg['app_command']))} on {cfg['n']} nodes"
    parts = [fmt("<h1>{}</h1>", title),
             fmt("<p>{} runs, {} failed; launcher {}, {} ranks per node, {} rotations; congestor {}; baseline "
                 "median {} s (setting {}).</p>", len(study["runs"]), len(s["failed"]), cfg["launcher"],
                 cfg["ppn"], cfg["rotations"], " ".join(map(str, cfg["congestor_args"])),
                 _f(s["baseline_median_s"]), s["baseline"]),
             Markup("<h2>Normalised execution time</h2>"), _times_table(s)]
    if s["baseline_median_s"] is None:
        parts.append(fmt("<p>No successful run of setting {} (the baseline): nothing is normalised.</p>",
                         s["baseline"]))
    elif any(v["normalised"] for v in s["settings"].values()):
        parts.append(figs.embed(box_figure(s, title), "times",
                                f"Execution time of each setting divided by the median of setting {s['baseline']}."))
    parts += [Markup("<h2>CI_app = t_congested / t_isolated</h2>"), _ci_app_table(s),
              Markup("<h2>Network counter metric vs time</h2>"), _metric_section(s, figs)]
    if s["failed"]:
        parts.append(fmt("<h2>Failed runs</h2><ul>{}</ul>",
                         join(fmt("<li>{}: {}</li>", f["id"], str(f["error"])) for f in s["failed"])))
    return page(title, join(parts, "\n"))
