"""The --timeline figures (gpcnet.report.timeline): canary values over time
with the ON periods shaded, the recovery-time distribution, the report's
"Bursts over time" section, and `gpcnet plot --kind timeline|recovery`
with the testbed's counter series on a second axis.

A synthetic document has a known schedule and known numbers; the real one
(fixtures/real/network_load_test_timeline.json, regenerate.sh) is what the
program writes."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from conftest import REAL, fixture, read
from gpcnet import report
from gpcnet.report import timeline
from gpcnet.results_json.load import load

REAL_TIMELINE = str(REAL / "network_load_test_timeline.json")
EPOCH = 1_800_000_000.0
WIDTH = 0.01


def _record(test="rr_two_sided_lat", table="loaded", recovered=3, median=0.02):
    # Bins 0.1 .. 1.1 s: ON [0.1, 0.3) and [0.6, 0.8), and one ON period
    # that ends a quarter into bin 0.95 .. 0.96 (share 0.25), then OFF.
    n = 100
    start = 0.1
    on = [0.0] * n
    for i in range(n):
        t = start + i * WIDTH
        if 0.1 - 1e-9 <= t < 0.3 - 1e-9 or 0.6 - 1e-9 <= t < 0.8 - 1e-9:
            on[i] = 1.0
    on[84] = 0.5          # 0.94 .. 0.95: the ON period starts half-way in
    on[85] = 0.25         # 0.95 .. 0.96: ends a quarter in
    mean = [30.0 if s > 0 else 10.0 for s in on]
    mean[50] = None       # an empty bin
    count = [0 if m is None else 40 for m in mean]
    return {"table": table, "test": test, "repetition": 1, "unit": "usec", "start_spread_s": 0.001,
            "schedule_agreed": True, "start_epoch_s": EPOCH, "isolated_avg": 9.5,
            "during_bursts": {"avg": 30.0, "p99": 50.0, "values": 1000},
            "between_bursts": {"avg": 10.0, "p99": 20.0, "values": 2000},
            "recovery": {"tolerance": 0.1, "window_bins": 3, "bursts": 3, "recovered": recovered,
                         "median_s": median if recovered else None,
                         "p25_s": 0.01 if recovered else None, "p75_s": 0.03 if recovered else None,
                         "min_s": 0.0 if recovered else None, "max_s": 0.05 if recovered else None},
            "bins": {"width_s": WIDTH, "start_s": start, "count": count, "mean": mean, "on": on}}


@pytest.fixture
def doc():
    d = read("load_run.json")
    d["config"]["burst"] = {"on_s": 0.2, "off_s": 0.3, "intensity": 1, "jitter": 0}
    d["config"]["timeline"] = True
    d["timeline"] = [_record(), _record("multiple_allreduce", recovered=0)]
    return d


def _counters(offset=0.5):
    """A counter series that starts `offset` s before the timeline's start:
    the uplink sends 1 MB per 0.1 s interval, an edge port 10x less."""
    samples = [{"t": round(0.1 * (k + 1), 6), "dt": 0.1,
                "ports": {"leaf1/l1s0": {"bytes": 1_000_000, "packets": 700, "drops": 0, "backlog": 0,
                                         "overlimits": 3},
                          "leaf1/l1n1": {"bytes": 100_000, "packets": 70, "drops": 0, "backlog": 0,
                                         "overlimits": 0}}}
               for k in range(30)]
    ports = {"leaf1/l1s0": {"tier": "uplink"}, "leaf1/l1n1": {"tier": "edge"}}
    return {"before": {"ports": ports}, "after": {"ports": ports}, "delta": {},
            "series": {"interval_s": 0.1, "start_epoch_s": EPOCH - offset, "samples": samples, "errors": []}}


def test_on_spans_follow_the_bins_shares(doc):
    spans = timeline.on_spans(doc["timeline"][0]["bins"])
    assert len(spans) == 3
    assert spans[0] == pytest.approx((0.1, 0.3))
    assert spans[1] == pytest.approx((0.6, 0.8))
    # Half of the first bin (its end), a quarter of the last (its start).
    assert spans[2] == pytest.approx((0.945, 0.9525))


def test_timeline_figure_one_panel_per_loaded_test(doc):
    fig = timeline.timeline_figure(doc)
    panels = fig.axes
    assert len(panels) == 2
    for ax, rec in zip(panels, doc["timeline"]):
        iso = [ln for ln in ax.get_lines() if ln.get_label() == "isolated Avg"]
        assert len(iso) == 1 and set(iso[0].get_ydata()) == {rec["isolated_avg"]}
        series = [ln for ln in ax.get_lines() if ln.get_label().startswith("mean per")][0]
        y = np.asarray(series.get_ydata(), dtype=float)
        assert np.isnan(y[50]) and np.nanmax(y) == 30.0 and np.nanmin(y) == 10.0
        assert len(ax.patches) == 3       # the three ON periods shaded
        assert ax.get_xlim() == pytest.approx((0.1, 1.1))


def test_timeline_figure_only_some_tests(doc):
    assert len(timeline.timeline_figure(doc, tests=["multiple_allreduce"]).axes) == 1


def test_recovery_figure_draws_the_json_quantiles(doc):
    fig = timeline.recovery_figure(doc)
    (ax,) = fig.axes
    texts = [t.get_text() for t in ax.texts]
    assert "median 20 ms" in texts                      # 0.02 s
    assert any("none" in t for t in texts)              # multiple_allreduce recovered none
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0].endswith("3/3 recovered") and labels[1].endswith("0/3 recovered")
    # The whiskers reach the JSON's min and max (in ms).
    ys = {round(float(v), 6) for ln in ax.get_lines() for v in ln.get_ydata()}
    assert {0.0, 10.0, 20.0, 30.0, 50.0} <= ys


def test_counters_on_the_timeline_clock(doc):
    counters = _counters(offset=0.5)
    assert timeline.busiest_port(counters) == "leaf1/l1s0"
    fig = timeline.timeline_figure(doc, tests=["rr_two_sided_lat"], counters=counters)
    panel, twin = fig.axes
    (line,) = twin.get_lines()
    assert line.get_label() == "leaf1/l1s0 sent"
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    # Interval k (0.1 k .. 0.1 (k+1) s after the job's start) is drawn
    # 0.5 s earlier on the timeline's clock; 1 MB per 0.1 s = 80 Mbit/s.
    # Only the intervals that overlap the bins (0.1 .. 1.1 s) are drawn:
    # k = 6 .. 15, each as its two ends.
    assert len(x) == 20 and x[0] == pytest.approx(0.1) and x[1] == pytest.approx(0.2)
    assert x[-1] == pytest.approx(1.1)
    assert set(np.round(y, 6)) == {80.0}


def test_counters_need_the_timeline_wall_clock(doc):
    del doc["timeline"][0]["start_epoch_s"]
    with pytest.raises(Exception, match="start_epoch_s"):
        timeline.timeline_figure(doc, tests=["rr_two_sided_lat"], counters=_counters())


def test_report_section(doc):
    html = report.render(doc, "synthetic.json")
    assert 'id="timeline"' in html and 'id="table-timeline"' in html
    assert 'id="fig-timeline"' in html and 'id="fig-recovery"' in html
    assert "ON 200 ms, OFF 300 ms, intensity 1" in html
    assert "<td class=\"num\">20.00</td>" in html            # median recovery, ms


def test_no_section_without_a_timeline():
    html = report.render(read("load_run.json"), "load_run.json")
    assert 'id="timeline"' not in html


def test_real_run_validates_and_reports(cli, tmp_path):
    doc = load(REAL_TIMELINE)         # validates against the schema
    recs = doc["timeline"]
    assert [r["test"] for r in recs] == ["rr_two_sided_lat", "multiple_allreduce"]
    assert all(r["start_epoch_s"] > 1.7e9 for r in recs)
    # The program's bins give ON periods where its schedule had them
    # (ON 40 ms every 100 ms from the common start).
    for r in recs:
        for a, b in timeline.on_spans(r["bins"]):
            assert (a + 1e-9) % 0.1 < 0.04 + 1e-6 and b - a <= 0.04 + 1e-9
    out = tmp_path / "r.html"
    code, _, err = cli("report", REAL_TIMELINE, "-o", out)
    assert code == 0, err
    html = out.read_text()
    assert 'id="fig-timeline"' in html and 'id="fig-recovery"' in html
    assert html.count("RR Two-sided Lat (8 B)") >= 2


@pytest.mark.parametrize("kind", ["timeline", "recovery"])
def test_plot_kinds_on_the_real_run(cli, tmp_path, kind):
    out = tmp_path / f"{kind}.png"
    code, stdout, err = cli("plot", REAL_TIMELINE, "--kind", kind, "-o", out)
    assert code == 0, err
    assert out.read_bytes().startswith(b"\x89PNG")


def test_plot_timeline_with_counters(cli, tmp_path, doc, write_json):
    run = write_json(doc, "run.json")
    counters = write_json(_counters(), "counters.json")
    out = tmp_path / "t.svg"
    code, _, err = cli("plot", run, "--kind", "timeline", "--counters", counters, "--port", "leaf1/l1n1",
                       "-o", out)
    assert code == 0, err
    assert "leaf1/l1n1 sent" in out.read_text()


@pytest.mark.parametrize("args, message", [
    (["--kind", "timeline", "--counters", "COUNTERS", "--port", "leaf9/x"], "no port 'leaf9/x'"),
    (["--kind", "timeline", "--counters", "RUN"], "no counter series"),
    (["--kind", "timeline", "--port", "leaf1/l1s0"], "--port needs --counters"),
    (["--kind", "recovery", "--counters", "COUNTERS"], "go with --kind timeline"),
    (["--kind", "timeline", "--test", "nope"], "no timeline of test 'nope'"),
])
def test_plot_bad_input(cli, tmp_path, doc, write_json, args, message):
    paths = {"RUN": write_json(doc, "run.json"), "COUNTERS": write_json(_counters(), "counters.json")}
    out = tmp_path / "t.png"
    code, _, err = cli("plot", paths["RUN"], *[paths.get(a, a) for a in args], "-o", out)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_plot_without_a_timeline(cli, tmp_path):
    code, _, err = cli("plot", fixture("load_run.json"), "--kind", "recovery", "-o", tmp_path / "x.png")
    assert code == 2 and "no timeline" in err


def test_counter_series_from_readings():
    """gpcnet.testbed.counters.series: consecutive readings -> intervals
    timed from the job's start (the testbed run's --counters-interval)."""
    from gpcnet.testbed import counters

    def reading(t, sent, backlog):
        return {"time": t, "ports": {"leaf1/l1s0": {"switch": "leaf1", "interface": "l1s0", "tier": "uplink",
                                                    "rate_bps": 1, "qdisc": "pfifo", "bytes": sent,
                                                    "packets": sent // 1000, "drops": 0, "backlog": backlog,
                                                    "overlimits": 0, "link_tx_bytes": 0, "link_rx_bytes": 0,
                                                    "link_tx_dropped": 0}}}
    rs = [reading(100.05, 0, 0), reading(100.15, 5000, 7), reading(100.25, 5000, 0), reading(100.25, 6000, 0)]
    s = counters.series(rs, 100.0, 0.1, ["x"])
    assert s["interval_s"] == 0.1 and s["start_epoch_s"] == 100.0 and s["errors"] == ["x"]
    assert [iv["t"] for iv in s["samples"]] == [0.15, 0.25]       # a zero-length interval is left out
    first = s["samples"][0]
    assert first["dt"] == pytest.approx(0.1)
    assert first["ports"]["leaf1/l1s0"] == {"bytes": 5000, "packets": 5, "drops": 0, "backlog": 7,
                                            "overlimits": 0}
    assert s["samples"][1]["ports"]["leaf1/l1s0"]["bytes"] == 0
    json.dumps(s)
    copy.deepcopy(s)
