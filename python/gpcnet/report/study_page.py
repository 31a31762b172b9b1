"""`gpcnet report` on a study JSON (`gpcnet study`), the co-run paper's
figures: normalised execution times per setting (Fig. 4's box plots:
median, quartiles, min/max whiskers), CI_app of the paired settings, per
setting the mean time against the mean stall/flit ratio with standard
errors and a linear fit (Fig. 5), and one run's stall-rate series per
setting; one self-contained HTML file through the shared layer. A scale
sweep (`gpcnet study scale`) has its own page: gpcnet.report.scale."""

from __future__ import annotations

from matplotlib.figure import Figure

from gpcnet.plots.figures import drawable, points
from gpcnet.report import bully_table, load_overlap, scale
from gpcnet.report.html import Figures, Markup, fmt, join, page
from gpcnet.report.study_tiles import tiles_section
from gpcnet.study.sampling import basic_note
from gpcnet.study.summary import summarise
from gpcnet.text import number_text
from gpcnet.text.text_safe import label


def box_figure(summary: dict, title: str) -> Figure:
    # A normalised time that no axis can show (1e90 / 1e-90) is left out.
    boxes = {s: [v for v in summary["settings"][s]["normalised"] if drawable(v)] for s in summary["settings"]}
    names = [s for s, v in boxes.items() if v]
    fig = Figure(figsize=(1.4 * len(names) + 2, 3.6), layout="constrained")
    ax = fig.subplots()
    if names:
        ax.boxplot([boxes[s] for s in names], whis=(0, 100))
        ax.set_xticks(range(1, len(names) + 1), [label(s) for s in names])
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_ylabel(label(f"time / median of setting {summary['baseline']}"))
    ax.set_title(label(title))
    return fig


def means_figure(summary: dict) -> Figure:
    """Fig. 5 of the co-run paper: per setting the mean normalised time
    against the mean stall/flit ratio, standard errors as error bars, and
    the dashed least-squares line through the means."""
    pts = summary["per_setting"]
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    shown = [p for p in pts if drawable(p["metric_mean"]) and drawable(p["time_mean"])]
    for p in shown:
        err = [v if drawable(v) else 0 for v in (p["metric_se"] or 0, p["time_se"] or 0)]
        ax.errorbar([p["metric_mean"]], [p["time_mean"]], xerr=[err[0]], yerr=[err[1]],
                    fmt="x", ms=8, capsize=3, label=label(_point_label(p)))
    f = summary.get("fit")
    if f and shown:
        xs = [p["metric_mean"] for p in shown]
        lo, hi = min(xs), max(xs)
        ys = points([f["intercept"] + f["slope"] * x for x in (lo, hi)])
        ax.plot([lo, hi], ys, "k--", lw=1,
                label=f"linear fit, r = {f['r']:.2f}" if f["r"] is not None else "linear fit")
    ax.set_xlabel(label(pts[0]["what"]))
    ax.set_ylabel(label(f"mean time / median of setting {summary['baseline']}"))
    ax.legend(fontsize=7)
    return fig


def _point_label(p: dict) -> str:
    """A Fig. 5 cross: its setting and the runs behind it (the time over
    every finished run, the ratio over those that have one)."""
    with_ratio = p.get("ratio_runs", p["runs"])
    return (f"{p['setting']} ({p['runs']} runs)" if with_ratio == p["runs"]
            else f"{p['setting']} ({p['runs']} runs, {with_ratio} with a ratio)")


def series_figure(summary: dict) -> Figure:
    """The stall rate during one run of each setting (mean over the
    metric's ports per interval), with the threshold below which an
    interval's ports do not count."""
    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    for x in summary["series"]:
        ax.plot(points(x["t"]), points(x["stall_per_s"]), marker=".", label=label(f"{x['setting']} ({x['id']})"))
    thr = summary["series"][0].get("threshold")
    if thr and drawable(thr):
        ax.axhline(thr, color="grey", lw=0.8, ls=":", label=f"threshold {thr:g}/s")
    ax.set_xlabel("seconds since the application started")
    ax.set_ylabel(label(f"{summary['series'][0].get('counter') or 'stalls'} per second"))
    ax.legend(fontsize=7)
    return fig


def _f(x, spec="{:.3f}") -> str:
    return number_text.formatted(x, spec)


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


def _means_table(s: dict) -> Markup:
    rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    p["setting"], p["runs"], _f(p["time_mean"]), _f(p["time_se"]), p.get("ratio_runs", p["runs"]),
                    _f(p["metric_mean"], "{:.4g}"), _f(p["metric_se"], "{:.3g}"))
                for p in s["per_setting"])
    return fmt('<table class="summary"><tr><th>setting</th><th>runs</th><th>mean normalised time (every run)</th>'
               "<th>standard error</th><th>runs with a ratio</th><th>mean stall/flit ratio</th>"
               "<th>standard error</th></tr>{}</table>", rows)


def _metric_section(s: dict, figs: Figures) -> Markup:
    if not s["per_setting"]:
        return Markup("<p>No stall/flit ratio in this study (no counters sampled, or none over the "
                      "threshold): nothing to correlate.</p>")
    out = figs.embed(means_figure(s), "metric", "Per setting: mean normalised time against mean stall/flit "
                     "ratio; error bars are standard errors; dashed: linear fit through the means.")
    out += _means_table(s)
    if s.get("fit"):
        f = s["fit"]
        out += fmt("<p>linear fit through the {} setting means: normalised time = {:.3f} + {:.4g} x ratio, "
                   "r = {}</p>", f["points"], f["intercept"], f["slope"], _f(f["r"], "{:.2f}"))
    else:
        out += Markup("<p>No fit: fewer than two settings with a ratio, or all with the same ratio.</p>")
    return out


def _counter_set_note(study: dict) -> Markup:
    """The runs whose InfiniBand flits came from the 32-bit base counters
    (the port did not answer `perfquery -x`), and why: such a counter may
    sit at its ceiling, which leaves the interval without a rate."""
    notes = [(r.get("id"), note) for r in study["runs"] if isinstance(r, dict)
             and (note := basic_note((r.get("counters") or {}).get("counter_set")))]
    if not notes:
        return Markup("")
    rid, note = notes[0]
    return fmt("<p>Counters: {} of {} runs read switch ports with the 32-bit base counters; run {}: {}.</p>",
               len(notes), len(study["runs"]), str(rid), note)


def _series_section(s: dict, figs: Figures) -> Markup:
    if not s["series"]:
        return Markup("<p>No counter time series in this study (counters not sampled during the runs).</p>")
    return figs.embed(series_figure(s), "series", "Stall rate per sampling interval during one run of each "
                      "setting (its first rotation with a series).")


def render(study: dict) -> str:
    """The HTML page of a loaded study document."""
    cfg = study["config"]
    if cfg["study"] == "scale":
        return scale.render(study)
    s = summarise(study)
    figs = Figures()
    title = f"{cfg['study']} study: {' '.join(map(str, cfg['app_command']))} on {cfg['n']} nodes"
    parts = [fmt("<h1>{}</h1>", title),
             fmt("<p>{} runs, {} failed; launcher {}, {} ranks per node, {} rotations; congestor {}; baseline "
                 "median {} (setting {}); time measured by {}.</p>", len(study["runs"]), len(s["failed"]),
                 cfg["launcher"], cfg["ppn"], cfg["rotations"], " ".join(map(str, cfg["congestor_args"])),
                 _f(s["baseline_median_s"]), s["baseline"],
                 "the figure of merit" if s["time_measure"] == "fom" else "the launcher's wall time (s)"),
             Markup("<h2>Normalised execution time</h2>"), _times_table(s)]
    if s["baseline_median_s"] is None:
        parts.append(fmt("<p>No successful run of setting {} (the baseline): nothing is normalised.</p>",
                         s["baseline"]))
    elif any(v["normalised"] for v in s["settings"].values()):
        parts.append(figs.embed(box_figure(s, title), "times",
                                f"Execution time of each setting divided by the median of setting {s['baseline']}."))
    parts += [Markup("<h2>CI_app = t_congested / t_isolated</h2>"), _ci_app_table(s),
              Markup("<h2>Stall/flit ratio vs time (per setting)</h2>"), _metric_section(s, figs),
              _counter_set_note(study),
              Markup("<h2>Stalls per second on network and processor tiles vs time (per setting)</h2>"),
              tiles_section(s, figs),
              Markup("<h2>Stall rate during a run</h2>"), _series_section(s, figs)]
    if cfg.get("congestor_kind") == "load-test":   # how much of each run met the loaded phases
        parts.append(load_overlap.section(study))
    if cfg["study"] == "bully":  # the fat-tree poster's Table I
        parts.append(bully_table.section(study))
    if s["failed"]:
        parts.append(fmt("<h2>Failed runs</h2><ul>{}</ul>",
                         join(fmt("<li>{}: {}</li>", f["id"], str(f["error"])) for f in s["failed"])))
    return page(title, join(parts, "\n"))
