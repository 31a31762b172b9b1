"""The data of the co-run paper's figures (Zhang et al.), on synthetic study
documents with known answers: per-setting mean and standard error of time
and stall/flit ratio with a linear fit through the setting means (Fig. 5),
one run's stall-rate series per setting, the scale sweep's bandwidth ratio
against stall ratio (Fig. 7); the report pages carry every figure."""
import json
import math

import numpy as np
import pytest

from gpcnet.cli import main
from gpcnet.report import study_page
from gpcnet.study import summary


def _counters(ratio, series=None):
    series = series or []
    return {"source": "testbed-tc", "stall_counter": "overlimits", "flit_counter": "packets", "interval_s": 1.0,
            "stall_threshold": 1.0, "ports": {"spine0/s0l0": {"router": "leaf0"}},
            "series": [{"t": t, "dt": 1.0, "rates": {}, "stall_per_s": v, "flit_per_s": 10.0} for t, v in series],
            "metric": {"stall_ratio": ratio, "reason": None if ratio is not None else "none kept",
                       "samples_kept": 1, "samples_dropped": 0, "intervals": len(series)}, "errors": []}


# setting -> (wall times, stall/flit ratios) of rotations 0, 1, 2
CORUN = {"I": ([1.0, 2.0, 3.0], [0.1, 0.1, 0.1]),
         "II": ([4.0, 4.0, 4.0], [0.2, 0.3, 0.4]),
         "III": ([6.0, 6.0, 6.0], [0.5, 0.5, 0.5])}


def corun_doc(series=True):
    runs = []
    for s, (times, ratios) in CORUN.items():
        for k, (t, m) in enumerate(zip(times, ratios)):
            ser = [(1.0, 10.0 * (k + 1)), (2.0, None), (3.0, 30.0 * (k + 1))] if series and not (s == "II" and k == 0) \
                else []
            runs.append({"id": f"{s}-r{k}", "setting": s, "rotation": k, "status": "ok", "wall_s": t,
                         "app_nodes": ["a", "b"], "congestor_nodes": [], "counters": _counters(m, ser)})
    runs.append({"id": "III-r3", "setting": "III", "rotation": 3, "status": "failed", "error": "x"})
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["a", "b", "c", "d", "e", "f"], "runs": runs,
            "config": {"study": "corun", "app_command": ["app"], "n": 2, "ppn": 1, "rotations": 3,
                       "launcher": "local", "settings": list(CORUN), "baseline": "I", "congestor_args": []}}


def test_mean_and_standard_error():
    assert summary.mean_se([1.0, 2.0, 3.0]) == (2.0, pytest.approx(1.0 / math.sqrt(3)))
    assert summary.mean_se([5.0]) == (5.0, None)
    assert summary.mean_se([]) == (None, None)


def test_linear_fit_recovers_a_known_line():
    xs = [0.0, 1.0, 2.0, 5.0]
    f = summary.linear_fit(xs, [2.0 + 3.0 * x for x in xs])
    assert f["slope"] == pytest.approx(3.0) and f["intercept"] == pytest.approx(2.0)
    assert f["r"] == pytest.approx(1.0) and f["points"] == 4
    assert summary.linear_fit([1.0, 1.0], [1.0, 2.0]) is None   # x constant: no line
    assert summary.linear_fit([1.0], [1.0]) is None


def test_fig5_one_point_per_setting_with_standard_errors_and_a_fit_through_the_means():
    s = summary.summarise(corun_doc())
    per = {p["setting"]: p for p in s["per_setting"]}
    assert sorted(per) == ["I", "II", "III"]
    # times normalised to the median of setting I (2 s)
    assert per["I"]["time_mean"] == pytest.approx(1.0)
    assert per["I"]["time_se"] == pytest.approx(0.5 / math.sqrt(3))
    assert per["I"]["metric_mean"] == pytest.approx(0.1) and per["I"]["metric_se"] == pytest.approx(0.0)
    assert per["II"]["time_mean"] == pytest.approx(2.0) and per["II"]["time_se"] == pytest.approx(0.0)
    assert per["II"]["metric_mean"] == pytest.approx(0.3)
    assert per["II"]["metric_se"] == pytest.approx(0.1 / math.sqrt(3))
    assert per["III"]["runs"] == 3   # the failed run is not a point
    # means (0.1, 1), (0.3, 2), (0.5, 3): slope 5, intercept 0.5
    assert s["fit"]["points"] == 3
    assert s["fit"]["slope"] == pytest.approx(5.0) and s["fit"]["intercept"] == pytest.approx(0.5)
    assert s["fit"]["r"] == pytest.approx(1.0)
    # a fit through the 9 runs would be another line: the means are what is fitted
    runs = s["metric"]
    per_run = np.polyfit([p["metric"] for p in runs], [p["normalised"] for p in runs], 1)[0]
    assert abs(per_run - 5.0) > 0.1


def test_a_run_without_a_stall_ratio_is_no_point_and_one_setting_is_no_fit():
    doc = corun_doc()
    for r in doc["runs"]:
        if r["setting"] != "I" and "counters" in r:
            r["counters"] = _counters(None)
    s = summary.summarise(doc)
    assert [p["setting"] for p in s["per_setting"]] == ["I"]
    assert "fit" not in s
    html = study_page.render(doc)
    assert "No fit: fewer than two settings" in html


def test_one_stall_rate_series_per_setting_from_its_first_rotation_that_has_one():
    s = summary.summarise(corun_doc())
    got = {x["setting"]: x for x in s["series"]}
    assert got["I"]["id"] == "I-r0" and got["I"]["t"] == [1.0, 2.0, 3.0]
    assert got["I"]["stall_per_s"] == [10.0, None, 30.0] and got["I"]["threshold"] == 1.0
    assert got["II"]["id"] == "II-r1"   # rotation 0 has no series
    assert summary.summarise(corun_doc(series=False))["series"] == []


def test_the_corun_page_has_the_box_plot_the_means_and_the_series():
    html = study_page.render(corun_doc())
    for fid in ("times", "metric", "series"):
        assert f'id="fig-{fid}"' in html, fid
    assert html.count("<svg") == 3
    assert "linear fit through the 3 setting means" in html
    empty = study_page.render(corun_doc(series=False))
    assert "No counter time series" in empty and empty.count("<svg") == 2


def scale_doc():
    runs = []
    # bandwidth ratio (loaded / isolated) = 1 - 10 x stall ratio exactly
    for k, ratios in ((4, [0.01, 0.02]), (6, [0.05, 0.07])):
        for r, m in enumerate(ratios):
            runs.append({"id": f"n{k}-r{r}", "setting": str(k), "rotation": r, "status": "ok", "wall_s": 1.0,
                         "nodes_used": k, "app_nodes": [f"n{i}" for i in range(k)], "congestor_nodes": [],
                         "counters": _counters(m),
                         "load_test": {"impact": [], "bandwidth_test": "rr_two_sided_bw_sync",
                                       "bandwidth_ratio": 1.0 - 10.0 * m, "bandwidth_ratio_is": "loaded / isolated"}})
    runs.append({"id": "n6-r2", "setting": "6", "rotation": 2, "status": "failed", "error": "boom"})
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": [f"n{i}" for i in range(6)], "runs": runs,
            "config": {"study": "scale", "app_command": ["network_load_test"], "n": 6, "ppn": 1, "rotations": 2,
                       "launcher": "local", "settings": ["4", "6"], "node_counts": [4, 6]}}


def test_fig7_scale_points_means_and_fit():
    s = summary.summarise_scale(scale_doc())
    assert [(p["nodes"], p["stall_ratio"]) for p in s["points"]] == [(4, 0.01), (4, 0.02), (6, 0.05), (6, 0.07)]
    c = {x["nodes"]: x for x in s["counts"]}
    assert c[4]["bandwidth_mean"] == pytest.approx(0.85) and c[6]["stall_mean"] == pytest.approx(0.06)
    assert c[6]["bandwidth_se"] == pytest.approx(np.std([0.5, 0.3], ddof=1) / math.sqrt(2))
    assert s["fit"]["slope"] == pytest.approx(-10.0) and s["fit"]["intercept"] == pytest.approx(1.0)
    # a document written before the paper's ratio was followed holds the Congestion Impact
    # (isolated / loaded) there: the report turns it around
    old = scale_doc()
    for r in old["runs"]:
        if "load_test" in r:
            r["load_test"]["bandwidth_ratio"] = 1.0 / r["load_test"].pop("bandwidth_ratio")
            del r["load_test"]["bandwidth_ratio_is"]
    assert [p["bandwidth_ratio"] for p in summary.summarise_scale(old)["points"]] == pytest.approx([0.9, 0.8, 0.5, 0.3])
    assert s["failed"] == [{"id": "n6-r2", "error": "boom"}]


def test_scale_report_through_the_cli(tmp_path, capsys):
    src = tmp_path / "scale.json"
    src.write_text(json.dumps(scale_doc()))
    assert main(["report", str(src), "-o", str(tmp_path / "s.html")]) == 0
    html = (tmp_path / "s.html").read_text()
    assert html.count("<svg") == 2 and "linear fit over 4 runs" in html and "boom" in html
