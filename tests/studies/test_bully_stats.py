"""The statistics of the fat-tree poster's Table I on synthetic runs with
known answers, the report's table, and the bully study's bad input (one
line, exit 2, nothing written)."""
import math
import statistics

import pytest
from scipy.stats import t as scipy_t
from scipy.stats import ttest_ind as scipy_ttest

from gpcnet.cli import main
from gpcnet.infra.errors import GpcnetError
from gpcnet.study import stats


def test_mean_difference_sign_as_the_poster():
    # times are turned into performance (1 / time): control / pattern - 1, negative when worse
    assert stats.mean_difference_pct([10, 10], [10.5, 10.5]) == pytest.approx(10 / 10.5 * 100 - 100)   # -4.76%
    assert stats.mean_difference_pct([10, 10], [9.0, 9.0]) == pytest.approx(100 / 9 * 10 - 100)       # +11.1%
    # a doubled run time is half the performance: -50%, not -100%
    assert stats.mean_difference_pct([1.0, 1.0], [2.0, 2.0]) == pytest.approx(-50.0)
    # a rate (higher is better): 5% lower is -5%
    assert stats.mean_difference_pct([100, 100], [95, 95], higher_is_better=True) == pytest.approx(-5.0)
    # the mean of the runs' performance (1 / time), not of their times: mean
    # performances (1 + 1/2 + 1/6) / 3 = 5/9 against 1/2: +11.1%, where the
    # mean times (3 against 2) would say -33.3%
    assert stats.mean_difference_pct([2, 2], [1, 2, 6]) == pytest.approx(100 * (10 / 9 - 1))


def test_welch_on_known_values():
    # control mean 2, pattern mean 5, both variance 1, 3 values each:
    # t = 3 / sqrt(1/3 + 1/3) = 3.674, Welch df = 4, two-sided p = 0.02131
    p = stats.welch_p([1, 2, 3], [4, 5, 6])
    assert p == pytest.approx(0.021311641128756, rel=1e-9)
    assert stats.significance(p) == 0.05                   # at 0.05, not at 0.01
    # unequal variances and sizes: Welch's statistic and Welch-Satterthwaite
    # degrees of freedom, not Student's pooled variance
    a, b = [10, 10.1, 9.9, 10.05, 9.95, 10.0], [11, 13, 9.5, 14]
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    t = (statistics.fmean(b) - statistics.fmean(a)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    p = stats.welch_p(a, b)
    assert p == pytest.approx(2 * scipy_t.sf(abs(t), df), rel=1e-9)
    assert p != pytest.approx(scipy_ttest(a, b).pvalue, rel=1e-3)
    assert stats.significance(p) is None and 0.05 < p < 0.2
    assert stats.significance(stats.welch_p([1, 1.1, 0.9, 1.05], [2, 2.1, 1.9, 2.05])) == 0.01


def test_welch_edge_cases():
    assert stats.welch_p([1.0], [2.0, 3.0]) is None        # no variance from one run
    assert stats.welch_p([2.0, 2.0], [2.0, 2.0]) == 1.0
    assert stats.welch_p([2.0, 2.0], [3.0, 3.0]) == 0.0
    assert stats.significance(None) is None
    with pytest.raises(GpcnetError, match="at least one positive value"):
        stats.mean_difference_pct([], [1.0])
    with pytest.raises(GpcnetError, match="at least one positive value"):
        stats.mean_difference_pct([0.0], [1.0])             # a time of 0 has no performance
    with pytest.raises(GpcnetError, match="positive numbers"):
        stats.mean_difference_pct([0.0], [1.0], higher_is_better=True)   # a rate of 0 is no mean to compare


def _run(setting, t, rot, fom=None, slow=None):
    r = {"id": f"{setting}-r{rot}", "setting": setting, "rotation": rot, "status": "ok", "wall_s": t}
    if fom is not None:
        r["fom"] = fom
    if slow is not None:
        r["congestor"] = {"kernels": [{"kernel": "flows", "slowest_rank": {"rank": 3, "node": "x", "mib_s": slow}}]}
    return r


def synthetic_study():
    runs = [_run("control", t, i) for i, t in enumerate([1, 2, 3])]
    runs += [_run("pairs-full", t, i, slow=s) for i, (t, s) in enumerate(zip([4, 5, 6], [5000, 6000, 7000]))]
    runs += [_run("incast", t, i, slow=4000) for i, t in enumerate([2, 2, 2])]
    runs.append({"id": "bisection-r0", "setting": "bisection", "rotation": 0, "status": "failed", "error": "x"})
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": [],
            "config": {"study": "bully", "app_command": ["a"], "n": 1, "ppn": 1, "rotations": 3, "launcher": "local",
                       "settings": ["control", "pairs-full", "incast", "bisection"], "baseline": "control",
                       "patterns": ["pairs-full", "incast", "bisection"], "congestor_args": []},
            "runs": runs}


def test_table_i_of_a_synthetic_study():
    t = stats.table_i(synthetic_study())
    assert t["value"] == "wall time" and t["control_runs"] == 3
    rows = {r["pattern"]: r for r in t["rows"]}
    full = rows["pairs-full"]
    assert full["label"] == "Adjacent leaf bully" and full["runs"] == 3
    # performance: control 1, 1/2, 1/3 (mean 11/18), pattern 1/4, 1/5, 1/6 (mean 37/180): 37/110 - 1
    assert full["mean_difference_pct"] == pytest.approx(100 * (37 / 110 - 1))      # -66.36%
    assert full["p_value"] == pytest.approx(scipy_ttest([1 / 4, 1 / 5, 1 / 6], [1, 1 / 2, 1 / 3],
                                                        equal_var=False).pvalue)
    assert full["significant_at"] is None          # 0.179 on performance (0.021 on the times)
    assert full["slowest_rank"]["median_mib_s"] == 6000 and full["slowest_rank"]["min_mib_s"] == 5000
    assert full["slowest_rank"]["min_gbit_s"] == pytest.approx(5000 * 2**20 * 8 / 1e9)
    # the same mean time (2 against 2), not the same mean performance: 1/2 against 11/18
    assert rows["incast"]["mean_difference_pct"] == pytest.approx(100 * (9 / 11 - 1))
    assert 0.05 < rows["incast"]["p_value"] < 1 and rows["incast"]["significant_at"] is None
    assert rows["bisection"]["runs"] == 0 and rows["bisection"]["mean_difference_pct"] is None


def test_table_i_uses_the_figure_of_merit_and_its_direction():
    doc = synthetic_study()
    for r in doc["runs"]:
        if r["status"] == "ok":
            r["fom"] = {"control": 100.0, "pairs-full": 90.0, "incast": 100.0}[r["setting"]]
    doc["config"]["time_measure"] = "fom"
    doc["config"]["higher_is_better"] = True
    t = stats.table_i(doc)
    assert t["value"] == "figure of merit" and t["higher_is_better"]
    assert {r["pattern"]: r["mean_difference_pct"] for r in t["rows"]}["pairs-full"] == pytest.approx(-10.0)


def disagreeing_study():
    """Control times 1, 1, 2; pairs-full 3, 12, 12 and incast 3, 3, 3: the
    test on the times and the test on the performance disagree for both."""
    doc = synthetic_study()
    doc["runs"] = ([_run("control", t, i) for i, t in enumerate([1, 1, 2])]
                   + [_run("pairs-full", t, i) for i, t in enumerate([3, 12, 12])]
                   + [_run("incast", t, i) for i, t in enumerate([3, 3, 3])])
    return doc


def test_table_i_tests_the_performance_it_reports():
    rows = {r["pattern"]: r for r in stats.table_i(disagreeing_study())["rows"]}
    # pairs-full. Performance: control 1, 1, 1/2 (mean 5/6, variance 1/12),
    # pattern 1/3, 1/12, 1/12 (mean 1/6, variance 1/48): -80%;
    # t = (2/3) / sqrt(1/36 + 1/144) = 8 / sqrt(5), Welch's
    # df = (5/144)^2 / ((1/36)^2 / 2 + (1/144)^2 / 2) = 50/17: p = 0.0386 (*).
    # On the times (mean 4/3 against 9) Welch gives 0.123: no star.
    full = rows["pairs-full"]
    assert full["mean_difference_pct"] == pytest.approx(-80.0)
    assert full["p_value"] == pytest.approx(2 * scipy_t.sf(8 / math.sqrt(5), 50 / 17), rel=1e-9)
    assert full["p_value"] == pytest.approx(0.0386, abs=5e-5) and full["significant_at"] == 0.05
    assert stats.welch_p([1, 1, 2], [3, 12, 12]) == pytest.approx(0.1233, abs=5e-5)
    # incast. Performance 1/3, 1/3, 1/3 against 1, 1, 1/2: (1/3) / (5/6) - 1 = -60%;
    # t = (1/2) / sqrt(1/36) = 3 on df 2, whose two-sided p is 1 - 3 / sqrt(11) = 0.0955:
    # no star, where the times (t = 5 on df 2: 1 - 5 / sqrt(27) = 0.0377) would have one.
    incast = rows["incast"]
    assert incast["mean_difference_pct"] == pytest.approx(-60.0)
    assert incast["p_value"] == pytest.approx(1 - 3 / math.sqrt(11), rel=1e-9)
    assert incast["significant_at"] is None
    assert stats.welch_p([1, 1, 2], [3, 3, 3]) == pytest.approx(1 - 5 / math.sqrt(27), rel=1e-9)
    assert stats.performance_welch_p([1, 1, 2], [3, 3, 3]) == pytest.approx(incast["p_value"])


def test_table_i_leaves_out_a_time_without_performance():
    doc = disagreeing_study()
    doc["runs"].append(_run("incast", 0.0, 3))       # a time of 0 has no 1 / time
    incast = {r["pattern"]: r for r in stats.table_i(doc)["rows"]}["incast"]
    assert incast["mean_difference_pct"] == pytest.approx(-60.0) and incast["runs"] == 3


def test_report_shows_table_i(tmp_path, capsys):
    import json
    path = tmp_path / "s.json"
    path.write_text(json.dumps(disagreeing_study()))
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "Table I" in html and "Adjacent leaf bully" in html and "-80.00% *" in html
    assert "0.0386" in html and "Incast bully" in html and "-60.00%</td>" in html
    assert "1 / wall time" in html and "on the runs&#39; performance" in html


QUARTZ = "".join(f"SwitchName=leaf{i:02d} Nodes=q[{32 * i + 1:04d}-{32 * i + 32:04d}]\n" for i in range(16)) + \
    "SwitchName=pod0 Switches=leaf[00-07]\nSwitchName=pod1 Switches=leaf[08-15]\nSwitchName=top Switches=pod[0-1]\n"


@pytest.mark.parametrize("args,says", [
    (["-n", "225"], "control: the application of 225 nodes does not fit packed in one pod"),
    (["-n", "8", "--taper", "0.5"], "--taper 0.5: a taper below 1 gives every leaf more links up than nodes"),
    # 1:1, 32 links up: the full bully's 33 pairs do not fit beside 1 node of the application
    (["-n", "8", "--taper", "1", "--patterns", "incast,pairs-full"],
     "pairs-full: leaf leaf00 is too small: it has 32 nodes, the application takes 1 there and the bully's "
     "33 pairs per leaf pair need 33"),
    (["-n", "8", "--taper", "nan"], "--taper nan: expected a finite number, 1 or more"),
    (["-n", "8", "--patterns", "pairs-light,storm"], "--patterns: unknown pattern 'storm'"),
    (["-n", "300", "--patterns", "interleaved"], "control: the application of 300 nodes"),
])
def test_bad_bully_input_is_one_line_and_exit_2(tmp_path, capsys, args, says):
    conf = tmp_path / "topology.conf"
    conf.write_text(QUARTZ)
    code = main(["study", "bully", "--launcher", "local", "--topology", str(conf), "--taper", "2",
                 "-o", str(tmp_path / "s.json"), *args, "--", "true"])
    out, err = capsys.readouterr()
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "s.d").exists()
