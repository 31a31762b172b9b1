"""A study JSON (`gpcnet study`) read and summarised: normalised execution
times per setting, CI_app of the paired settings, and the counter metric
against time with a linear fit. gpcnet.report.study draws the page."""

from __future__ import annotations

import statistics

from gpcnet.impact import congestion_impact


CORUN_PAIRS = (("II", "IV"), ("I", "III"))


def load(path: str) -> dict:
    from gpcnet.study import document
    return document.load(path)


def baseline_setting(study: dict) -> str:
    from gpcnet.study import document
    return document.baseline(study["config"])


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
        per = [congestion_impact(by[(iso, k)], by[(cong, k)], lower_is_better=True)
               for (s, k) in sorted(by) if s == iso and (cong, k) in by]
        per = [ci for ci in per if ci is not None]
        med = (congestion_impact(statistics.median(times[iso]), statistics.median(times[cong]), lower_is_better=True)
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
