"""`gpcnet report` on a study JSON: normalised execution times per setting
(box plots: median, quartiles, min/max whiskers), CI_app of the paired
settings, and the counter metric against time with a linear fit; one
self-contained HTML file (inline SVG)."""

from __future__ import annotations

import html
import io
import json
import statistics

from gpcnet.errors import GpcnetError

CORUN_PAIRS = (("II", "IV"), ("I", "III"))


def is_study(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            head = f.read(4096)
    except OSError:
        return False
    return '"kind": "gpcnet_study"' in head


def load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise GpcnetError(f"{path}: cannot read the study: {e}") from None
    if doc.get("kind") != "gpcnet_study":
        raise GpcnetError(f"{path}: not a gpcnet study")
    return doc


def baseline_setting(study: dict) -> str:
    return "I" if study["config"]["study"] == "corun" else "none"


def pairs(study: dict) -> list:
    if study["config"]["study"] == "corun":
        return [p for p in CORUN_PAIRS if set(p) <= set(study["config"]["settings"])]
    return [("none", p) for p in study["config"]["patterns"]]


def run_metric(run: dict):
    """The run's stall metric: mean switch stall ratio (testbed), else the
    mean of the nodes' InfiniBand stall ratios; None when neither exists."""
    c = run.get("counters") or {}
    sw = [s["stall_ratio"] for s in (c.get("switch_stall") or {}).values() if s.get("stall_ratio") is not None]
    if sw:
        return statistics.fmean(sw), "switch overlimits / packets"
    nd = [n["stall_ratio"] for n in (c.get("nodes") or {}).values() if n.get("stall_ratio") is not None]
    if nd:
        return statistics.fmean(nd), "InfiniBand port_xmit_wait / port_xmit_data"
    return None, None


def summarise(study: dict) -> dict:
    ok = [r for r in study["runs"] if r.get("status") == "ok"]
    settings = study["config"]["settings"]
    base = baseline_setting(study)
    times = {s: [r["wall_s"] for r in ok if r["setting"] == s] for s in settings}
    ref = statistics.median(times[base]) if times.get(base) else None
    out = {"baseline": base, "baseline_median_s": ref, "settings": {}, "ci_app": [], "failed": [],
           "metric": []}
    for s in settings:
        t = sorted(times[s])
        norm = [x / ref for x in t] if ref else []
        q = statistics.quantiles(norm, n=4, method="inclusive") if len(norm) >= 2 else norm * 3
        foms = [r["fom"] for r in ok if r["setting"] == s and r.get("fom") is not None]
        out["settings"][s] = {"runs": len(t), "median_s": statistics.median(t) if t else None,
                              "median_fom": statistics.median(foms) if foms else None,
                              "normalised": norm,
                              "stats": ({"min": norm[0], "q1": q[0], "median": statistics.median(norm),
                                         "q3": q[-1], "max": norm[-1]} if norm else None)}
    by = {(r["setting"], r["rotation"]): r["wall_s"] for r in ok}
    for iso, cong in pairs(study):
        per = [by[(cong, k)] / by[(iso, k)] for (s, k) in sorted(by) if s == iso and (cong, k) in by]
        med = (statistics.median(times[cong]) / statistics.median(times[iso])
               if times.get(iso) and times.get(cong) else None)
        out["ci_app"].append({"isolated": iso, "congested": cong, "paired": per,
                              "median_paired": statistics.median(per) if per else None,
                              "ratio_of_medians": med})
    for r in study["runs"]:
        if r.get("status") != "ok":
            out["failed"].append({"id": r["id"], "error": r.get("error")})
    for r in ok:
        m, what = run_metric(r)
        if m is not None and ref:
            out["metric"].append({"id": r["id"], "setting": r["setting"], "metric": m, "what": what,
                                  "normalised": r["wall_s"] / ref})
    if len(out["metric"]) >= 3:
        import numpy as np
        x = np.array([p["metric"] for p in out["metric"]])
        y = np.array([p["normalised"] for p in out["metric"]])
        if np.ptp(x) > 0:
            slope, icpt = np.polyfit(x, y, 1)
            r = float(np.corrcoef(x, y)[0, 1]) if np.ptp(y) > 0 else None
            out["fit"] = {"slope": float(slope), "intercept": float(icpt), "r": r, "points": len(x)}
    return out


def _svg(fig) -> str:
    import matplotlib.pyplot as plt
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def box_figure(summary: dict, title: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [s for s, v in summary["settings"].items() if v["normalised"]]
    fig, ax = plt.subplots(figsize=(1.4 * len(names) + 2, 3.6))
    ax.boxplot([summary["settings"][s]["normalised"] for s in names], whis=(0, 100))
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_ylabel(f"time / median of setting {summary['baseline']}")
    ax.set_title(title)
    return fig


def scatter_figure(summary: dict):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = summary["metric"]
    fig, ax = plt.subplots(figsize=(5, 3.6))
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


def _f(x, fmt="{:.3f}") -> str:
    return "-" if x is None else fmt.format(x)


def render_study(path: str) -> str:
    study = load(path)
    s = summarise(study)
    cfg = study["config"]
    title = f"{cfg['study']} study: {' '.join(cfg['app_command'])} on {cfg['n']} nodes"
    parts = [f"<h1>{html.escape(title)}</h1>",
             f"<p>{len(study['runs'])} runs, {len(s['failed'])} failed; launcher {cfg['launcher']}, "
             f"{cfg['ppn']} ranks per node, {cfg['rotations']} rotations; congestor "
             f"{html.escape(' '.join(cfg['congestor_args']))}; baseline median "
             f"{_f(s['baseline_median_s'])} s (setting {s['baseline']}).</p>",
             "<h2>Normalised execution time</h2><table><tr><th>setting</th><th>runs</th><th>median s</th>"
             "<th>min</th><th>q1</th><th>median</th><th>q3</th><th>max</th><th>median figure of merit</th></tr>"]
    for name, v in s["settings"].items():
        st = v["stats"] or {}
        parts.append(f"<tr><td>{name}</td><td>{v['runs']}</td><td>{_f(v['median_s'])}</td>"
                     + "".join(f"<td>{_f(st.get(k))}</td>" for k in ("min", "q1", "median", "q3", "max"))
                     + f"<td>{_f(v['median_fom'], '{:.6g}')}</td></tr>")
    parts.append("</table>")
    if any(v["normalised"] for v in s["settings"].values()):
        parts.append(_svg(box_figure(s, title)))
    parts.append("<h2>CI_app = t_congested / t_isolated</h2><table><tr><th>pair</th>"
                 "<th>median of paired runs</th><th>ratio of medians</th><th>pairs</th></tr>")
    for c in s["ci_app"]:
        parts.append(f"<tr><td>{c['isolated']} &rarr; {c['congested']}</td><td>{_f(c['median_paired'])}</td>"
                     f"<td>{_f(c['ratio_of_medians'])}</td><td>{len(c['paired'])}</td></tr>")
    parts.append("</table>")
    parts.append("<h2>Network counter metric vs time</h2>")
    if s["metric"]:
        parts.append(_svg(scatter_figure(s)))
        if s.get("fit"):
            f = s["fit"]
            parts.append(f"<p>linear fit: normalised time = {f['intercept']:.3f} + {f['slope']:.3g} x metric, "
                         f"r = {_f(f['r'], '{:.2f}')} over {f['points']} runs</p>")
    else:
        parts.append("<p>No stall counters in this study (no InfiniBand port counters and no testbed "
                     "switch statistics): nothing to correlate.</p>")
    if s["failed"]:
        parts.append("<h2>Failed runs</h2><ul>" + "".join(
            f"<li>{html.escape(f['id'])}: {html.escape(str(f['error']))}</li>" for f in s["failed"]) + "</ul>")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + html.escape(title)
            + "</title><style>body{font-family:sans-serif;max-width:60em;margin:auto}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}</style>"
              "</head><body>" + "\n".join(parts) + "</body></html>\n")
