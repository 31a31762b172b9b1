"""A study JSON (`gpcnet study`) read and summarised as the co-run paper's
figures (Zhang et al., Section IV) need it: normalised times per setting
(Fig. 4's box plots), per setting the mean and standard error of time and
of the stall/flit ratio with a linear fit through the settings' means
(Fig. 5), one run's stall-rate series per setting, and CI_app of the
paired settings. gpcnet.report.study_page draws the page."""

from __future__ import annotations

import math
import statistics

from gpcnet.metrics.impact import congestion_impact
from gpcnet.text.number_text import measured

# Every number of a run is read through measured(): a value a file can
# hold but no measurement can (1.7e308, 5e-324, an integer of 400 digits)
# counts as missing, so that the means, standard errors and fits below
# cannot overflow and the figures can draw what is left.


CORUN_PAIRS = (("II", "IV"), ("I", "III"))


def load(path: str) -> dict:
    # deferred: jsonschema loads only when a study file is read
    from gpcnet.study import document
    return document.load(path)


def baseline_setting(study: dict) -> str:
    # deferred: as in load
    from gpcnet.study import document
    return document.baseline(study["config"])


def pairs(study: dict) -> list:
    if study["config"]["study"] == "corun":
        return [p for p in CORUN_PAIRS if set(p) <= set(study["config"]["settings"])]
    return [(baseline_setting(study), p) for p in study["config"]["patterns"]]


def run_metric(run: dict):
    """(the run's stall/flit ratio, what it is) or (None, None). Counters
    sampled during the run carry the paper's metric; a document written
    before them has before/after deltas: the mean switch stall ratio
    (testbed), else the mean of the nodes' InfiniBand ratios."""
    c = run.get("counters") or {}
    if "metric" in c:
        value = measured((c.get("metric") or {}).get("stall_ratio"))
        what = f"stall/flit ratio ({c.get('stall_counter')} / {c.get('flit_counter')})"
        return (value, what) if value is not None else (None, None)
    sw = [v for s in (c.get("switch_stall") or {}).values() if (v := measured(s.get("stall_ratio"))) is not None]
    if sw:
        return statistics.fmean(sw), "switch overlimits / packets"
    nd = [v for n in (c.get("nodes") or {}).values() if (v := measured(n.get("stall_ratio"))) is not None]
    if nd:
        return statistics.fmean(nd), "InfiniBand port_xmit_wait / port_xmit_data"
    return None, None


def by_setting(runs: list) -> dict:
    """{setting: its runs, in the document's order}, in one pass over the
    runs: every per-setting figure reads its runs from here, so a study of
    many settings costs its number of runs, not runs x settings."""
    out: dict = {}
    for r in runs:
        out.setdefault(r["setting"], []).append(r)
    return out


def time_of(run: dict, measure: str) -> float | None:
    """What a run's time is for normalising: its figure of merit when the
    study measures by it (config time_measure "fom"), else the wall time."""
    return measured(run.get("fom") if measure == "fom" else run.get("wall_s"))


def normalised_times(ok: list, measure: str, ref, lower: bool) -> dict:
    """{run id: its time over the baseline's median `ref`}; a rate (not
    `lower`) is turned around (ref / value) so that above 1 is slower."""
    if not ref:
        return {}
    return {r["id"]: (time_of(r, measure) / ref if lower else ref / time_of(r, measure))
            for r in ok if time_of(r, measure)}


def mean_se(values: list) -> tuple:
    """(mean, standard error of the mean = sample standard deviation /
    sqrt(n)); the error is None for a single value, both None for none."""
    if not values:
        return None, None
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) >= 2 else None
    return statistics.fmean(values), se


def linear_fit(xs: list, ys: list) -> dict | None:
    """Least-squares line y = intercept + slope x and Pearson's r (None when
    y does not vary); None with fewer than 2 points or x constant."""
    if len(xs) < 2 or max(xs) == min(xs):
        return None
    import numpy as np  # deferred: numpy loads only for a fit, not with every summary
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    # Values of very different magnitudes (1e-90 beside 1e90) can make the
    # least squares fail or overflow: then there is no line to show.
    with np.errstate(all="ignore"):
        try:
            slope, icpt = np.polyfit(x, y, 1)
            r = float(np.corrcoef(x, y)[0, 1]) if np.ptp(y) > 0 else None
        except (np.linalg.LinAlgError, ValueError):
            return None
    if not (math.isfinite(slope) and math.isfinite(icpt)) or (r is not None and not math.isfinite(r)):
        return None
    return {"slope": float(slope), "intercept": float(icpt), "r": r, "points": len(xs)}


def stall_series(run: dict) -> dict | None:
    """The run's per-interval stall rate (mean over the metric's ports of
    stalls per second; None where no port had a rate), or None. Where one
    sampler ran per node, the intervals of a node that read none of the
    metric's ports (only its own node-facing port) are not the metric's:
    left out, not drawn as gaps between the others."""
    c = run.get("counters") or {}
    series = c.get("series") or []
    scope = c.get("ports")
    if scope and isinstance(scope, dict):
        series = [iv for iv in series if not iv.get("rates") or any(p in scope for p in iv["rates"])]
    if not series:
        return None
    return {"id": run["id"], "setting": run["setting"], "t": [measured(iv["t"]) for iv in series],
            "stall_per_s": [measured(iv.get("stall_per_s")) for iv in series],
            "threshold": measured(c.get("stall_threshold")), "counter": c.get("stall_counter")}


TILE_KINDS = (("ntile", "network tiles"), ("ptile", "processor tiles"))


def run_tile_stalls(run: dict, kind: str):
    """A run's stalls per second on its network ("ntile") or processor
    ("ptile") tiles, averaged over routers and duration, or None."""
    return measured((((run.get("counters") or {}).get("tiles") or {}).get(kind) or {}).get("stall_per_s"))


def tile_stalls(study: dict, ok_by: dict, out: dict) -> dict:
    """The paper's Fig. 6: per setting the mean normalised time (every
    finished run) against the mean stalls per second of each tile kind
    (the runs that have it), with standard errors, and a least-squares line
    per kind through the setting means. `ok_by`: by_setting of the
    finished runs."""
    res = {}
    for kind, label in TILE_KINDS:
        pts = []
        for s in study["config"]["settings"]:
            vals = [v for r in ok_by.get(s, ()) if (v := run_tile_stalls(r, kind)) is not None]
            norm = out["settings"][s]["normalised"]
            if vals and norm:
                (tm, tse), (vm, vse) = mean_se(norm), mean_se(vals)
                pts.append({"setting": s, "runs": len(norm), "tile_runs": len(vals), "time_mean": tm,
                            "time_se": tse, "stall_mean": vm, "stall_se": vse})
        res[kind] = {"label": label, "points": pts,
                     "fit": linear_fit([p["stall_mean"] for p in pts], [p["time_mean"] for p in pts])}
    return res


def summarise(study: dict) -> dict:
    cfg = study["config"]
    # The figure of merit or the wall time ("time_measure", written by the
    # runner; older documents: the wall time), over the baseline's median.
    measure = cfg.get("time_measure") or "wall_s"
    lower = not (measure == "fom" and cfg.get("higher_is_better"))
    ok = [r for r in study["runs"] if r.get("status") == "ok" and time_of(r, measure) is not None]
    ok_by = by_setting(ok)
    settings = cfg["settings"]
    base = baseline_setting(study)
    times = {s: [time_of(r, measure) for r in ok_by.get(s, ())] for s in settings}
    ref = statistics.median(times[base]) if times.get(base) else None
    scaled = {"runs": normalised_times(ok, measure, ref, lower)}
    out = {"baseline": base, "baseline_median_s": ref, "time_measure": measure, "settings": {}, "ci_app": [],
           "failed": [], "metric": [], "series": []}
    for s in settings:
        t = sorted(times[s])
        norm = sorted(v for r in ok_by.get(s, ()) if (v := scaled["runs"].get(r["id"])) is not None)
        q = statistics.quantiles(norm, n=4, method="inclusive") if len(norm) >= 2 else norm * 3
        foms = [v for r in ok_by.get(s, ()) if (v := measured(r.get("fom"))) is not None]
        out["settings"][s] = {"runs": len(t), "median_s": statistics.median(t) if t else None,
                              "median_fom": statistics.median(foms) if foms else None,
                              "normalised": norm,
                              "stats": ({"min": norm[0], "q1": q[0], "median": statistics.median(norm),
                                         "q3": q[-1], "max": norm[-1]} if norm else None)}
    # {setting: {rotation: time}} (a rotation run twice: its last run), once
    by = {s: {r["rotation"]: time_of(r, measure) for r in rs} for s, rs in ok_by.items()}
    for iso, cong in pairs(study):
        iso_t, cong_t = by.get(iso, {}), by.get(cong, {})
        per = [congestion_impact(iso_t[k], cong_t[k], lower_is_better=lower)
               for k in sorted(iso_t) if k in cong_t]
        per = [ci for ci in per if ci is not None]
        med = (congestion_impact(statistics.median(times[iso]), statistics.median(times[cong]), lower_is_better=lower)
               if times.get(iso) and times.get(cong) else None)
        out["ci_app"].append({"isolated": iso, "congested": cong, "paired": per,
                              "median_paired": statistics.median(per) if per else None,
                              "ratio_of_medians": med})
    for r in study["runs"]:
        if r.get("status") != "ok":
            out["failed"].append({"id": r["id"], "error": r.get("error")})
    for r in ok:
        m, what = run_metric(r)
        if m is not None and scaled["runs"].get(r["id"]) is not None:
            out["metric"].append({"id": r["id"], "setting": r["setting"], "metric": m, "what": what,
                                  "normalised": scaled["runs"][r["id"]]})
    # Fig. 5: a cross per setting, the average of the setting's (ten) runs
    # with standard errors, and a dashed linear fit through the crosses.
    # The time is the mean over every finished run of the setting; the
    # ratio over those that have one (both counts are kept and shown).
    out["per_setting"] = []
    metric_by = by_setting(out["metric"])
    for s in settings:
        pts = metric_by.get(s)
        if pts:
            norm = out["settings"][s]["normalised"]
            (tm, tse), (mm, mse) = mean_se(norm), mean_se([p["metric"] for p in pts])
            out["per_setting"].append({"setting": s, "runs": len(norm), "ratio_runs": len(pts),
                                       "time_mean": tm, "time_se": tse,
                                       "metric_mean": mm, "metric_se": mse, "what": pts[0]["what"]})
    fit = linear_fit([p["metric_mean"] for p in out["per_setting"]], [p["time_mean"] for p in out["per_setting"]])
    if fit:
        out["fit"] = fit
    out["tile_stalls"] = tile_stalls(study, ok_by, out)
    # One run's stall-rate series per setting: its first rotation that has one.
    for s in settings:
        runs = sorted(ok_by.get(s, ()), key=lambda r: r["rotation"])
        got = next((x for x in map(stall_series, runs) if x and any(v is not None for v in x["stall_per_s"])), None)
        if got:
            out["series"].append(got)
    return out


def paper_bandwidth_ratio(load_test: dict) -> float | None:
    """The paper's bandwidth ratio, loaded / isolated. Documents written
    before it was followed (no "bandwidth_ratio_is") hold the load test's
    Congestion Impact there, isolated / loaded: turned around."""
    value = measured(load_test["bandwidth_ratio"])
    if value is None or value == 0:
        return None
    return value if load_test.get("bandwidth_ratio_is") == "loaded / isolated" else 1.0 / value


def _node_count(run: dict):
    """How many nodes a scale run used: its app_nodes, else the node count
    its setting names ("16"); None when neither says."""
    setting = run["setting"]
    return len(run.get("app_nodes") or []) or (int(setting) if setting.isdigit() and len(setting) <= 9 else None)


def summarise_scale(study: dict) -> dict:
    """A `gpcnet study scale` document as its Fig. 7 needs it: per run the
    node count, the bandwidth ratio and the stall/flit ratio ("Each point
    represents an experiment run"), per node count their means and
    standard errors, and a linear fit of bandwidth ratio on stall ratio."""
    ok = [r for r in study["runs"] if r.get("status") == "ok"
          and (r.get("load_test") or {}).get("bandwidth_ratio")
          and paper_bandwidth_ratio(r["load_test"]) is not None and _node_count(r)]
    points = []
    for r in ok:
        m, what = run_metric(r)
        points.append({"id": r["id"], "nodes": _node_count(r),
                       "bandwidth_ratio": paper_bandwidth_ratio(r["load_test"]), "stall_ratio": m, "what": what,
                       "test": r["load_test"].get("bandwidth_test")})
    counts = []
    for k in sorted({p["nodes"] for p in points}):
        pts = [p for p in points if p["nodes"] == k]
        (bm, bse) = mean_se([p["bandwidth_ratio"] for p in pts])
        (sm, sse) = mean_se([p["stall_ratio"] for p in pts if p["stall_ratio"] is not None])
        counts.append({"nodes": k, "runs": len(pts), "bandwidth_mean": bm, "bandwidth_se": bse,
                       "stall_mean": sm, "stall_se": sse})
    with_ratio = [p for p in points if p["stall_ratio"] is not None]
    return {"points": points, "counts": counts,
            "fit": linear_fit([p["stall_ratio"] for p in with_ratio], [p["bandwidth_ratio"] for p in with_ratio]),
            "failed": [{"id": r["id"], "error": r.get("error")} for r in study["runs"] if r.get("status") != "ok"]}
