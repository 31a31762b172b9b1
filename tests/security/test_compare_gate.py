"""compare --fail-if-worse cannot be switched off by the baseline (issue 31, rows 12), nor
by leaving out the run to compare (issue 39)."""

from __future__ import annotations

import copy
import json

import pytest

from conftest import FIXTURES, fixture_doc, one_line_error

REAL = str(FIXTURES / "load_run.json")


def _write(tmp_path, doc, name="base.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def _set_all(doc, value):
    for t in doc["tables"]:
        for row in t["rows"]:
            for k in ("avg", "p99", "p999", "median", "min", "max", "avg_worst"):
                row[k] = value
    for e in doc.get("impact", []):
        for k in ("avg", "p99", "avg_printed", "p99_printed"):
            e[k] = value
    return doc


@pytest.mark.parametrize("value", [0, 0.0, None])
def test_zero_or_missing_baseline_fails_the_gate(cli, tmp_path, value):
    base = _write(tmp_path, _set_all(fixture_doc("load_run.json"), value))
    code, out, _ = cli("compare", base, REAL, "--fail-if-worse", "5")
    assert code == 1, out
    assert "cannot be compared against" in out


def test_one_zero_baseline_value_is_flagged(cli, tmp_path):
    doc = fixture_doc("load_run.json")
    doc["tables"][0]["rows"][0]["avg"] = 0
    code, out, _ = cli("compare", _write(tmp_path, doc), REAL, "--fail-if-worse", "5")
    assert code == 1
    flagged = [ln for ln in out.splitlines() if ln.startswith("REGRESSION")]
    assert len(flagged) == 1 and "Isolated" in flagged[0]


def test_run_that_lost_its_values_fails_the_gate(cli, tmp_path):
    run = _write(tmp_path, _set_all(fixture_doc("load_run.json"), None), "run.json")
    code, out, _ = cli("compare", REAL, run, "--fail-if-worse", "5")
    assert code == 1 and "no usable value" in out


def test_dropped_rows_in_the_baseline_fail_the_gate(cli, tmp_path):
    doc = fixture_doc("load_run.json")
    doc["tables"][1]["rows"] = doc["tables"][1]["rows"][:1]
    code, out, _ = cli("compare", _write(tmp_path, doc), REAL, "--fail-if-worse", "5")
    assert code == 1 and "cannot be compared against" in out


@pytest.mark.parametrize("limit", ["nan", "inf", "-1"])
def test_a_limit_that_disarms_is_refused(cli, limit):
    code, _, err = cli("compare", REAL, REAL, "--fail-if-worse", limit)
    assert "--fail-if-worse" in one_line_error(code, err)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_baseline_is_refused_when_read(cli, tmp_path, text):
    doc = fixture_doc("load_run.json")
    raw = json.dumps(doc).replace('"avg": ' + json.dumps(doc["tables"][0]["rows"][0]["avg"]), '"avg": ' + text, 1)
    p = tmp_path / "base.json"
    p.write_text(raw)
    code, _, err = cli("compare", p, REAL, "--fail-if-worse", "5")
    line = one_line_error(code, err)
    assert "base.json" in line


@pytest.mark.parametrize("field", ["avg", "p99", "min", "median"])
def test_negative_latency_is_refused(cli, tmp_path, field):
    doc = fixture_doc("load_run.json")
    doc["tables"][0]["rows"][0][field] = -3.5
    code, _, err = cli("compare", _write(tmp_path, doc), REAL, "--fail-if-worse", "5")
    line = one_line_error(code, err)
    assert f"rows[0].{field}" in line or "minimum" in line


def test_identical_runs_still_pass(cli):
    code, out, _ = cli("compare", REAL, REAL, "--fail-if-worse", "0")
    assert code == 0 and "REGRESSION" not in out


def test_real_regression_still_found(cli, tmp_path):
    doc = fixture_doc("load_run.json")
    worse = copy.deepcopy(doc)
    worse["tables"][0]["rows"][0]["avg"] *= 2
    code, out, _ = cli("compare", REAL, _write(tmp_path, worse, "w.json"), "--fail-if-worse", "5")
    assert code == 1 and "% worse, limit 5%" in out


def test_a_gate_with_nothing_to_compare_fails(cli):
    """`compare base.json --fail-if-worse 5` once passed (exit 0): a CI job
    that lost its new run went green. Without --fail-if-worse, one run is
    still shown."""
    code, out, err = cli("compare", REAL, "--fail-if-worse", "5")
    assert "needs a run to compare" in one_line_error(code, err) and out == ""
    code, out, _ = cli("compare", REAL)
    assert code == 0 and "Metric" in out


@pytest.mark.parametrize("value, shown", [(1.7e308, ">999999% worse"), (5e-300, "0.0%")])
def test_extreme_values_are_judged_and_printed_bounded(cli, tmp_path, value, shown):
    """A value near a double's limit is far worse than any limit and says so
    in a dozen characters, not 'inf% worse'; a ratio is never 300 digits."""
    doc = fixture_doc("load_run.json")
    doc["tables"][0]["rows"][0]["avg"] = value
    code, out, _ = cli("compare", REAL, _write(tmp_path, doc, "run.json"), "--fail-if-worse", "5")
    regressions = [line for line in out.splitlines() if line.startswith("REGRESSION") and "Lat (8 B) Avg" in line]
    if value > 1:
        assert code == 1 and shown in regressions[0] and "inf" not in out
    else:
        assert not [r for r in regressions if "Isolated RR Two-sided Lat (8 B) Avg" in r]
    assert all(len(word) < 25 for word in out.split() if word[:1].isdigit())


def _only_rows(doc, tests):
    for t in doc["tables"]:
        t["rows"] = [r for r in t["rows"] if r["test"] in tests]
    return doc


def test_a_run_of_another_program_with_nothing_in_common_fails_the_gate(cli, tmp_path):
    """Issue 55: a load-test baseline and a network_test run holding only
    rr_get_lat: all 18 baseline metrics showed `-` and the gate passed.
    network_test cannot measure the loaded phase or CI: those 12 are left
    out, said so; the 6 isolated ones it can measure are judged, and fail."""
    run = _write(tmp_path, _only_rows(fixture_doc("network_run.json"), {"rr_get_lat"}), "get.json")
    code, out, _ = cli("compare", REAL, run, "--fail-if-worse", "5")
    assert code == 1, out
    flagged = [ln for ln in out.splitlines() if ln.startswith("REGRESSION")]
    assert len(flagged) == 6 and all(ln.startswith("REGRESSION get: Isolated ") for ln in flagged)
    assert all("no usable value in get" in ln for ln in flagged)
    assert ("note: 12 metrics of the baseline left out of the gate for get: network_test does not measure "
            "the loaded phase and Congestion Impact") in out
    assert "no metric is more than" not in out


def test_a_run_of_another_program_is_judged_on_what_it_measures(cli):
    """The load test's run against network_test's 8 canaries: its 3 isolated
    ones are judged (and pass); its loaded and CI values are not in the
    baseline, so nothing judges them."""
    code, out, _ = cli("compare", REAL, str(FIXTURES / "network_run.json"), "--fail-if-worse", "1000")
    assert code == 0 and "no metric is more than 1000% worse" in out
    assert "left out of the gate for network_run: network_test does not measure" in out


@pytest.mark.parametrize("run_doc", ["load_run.json", "network_run.json"])
def test_a_gate_that_judged_no_metric_fails(cli, tmp_path, run_doc):
    """Neither document has a value the other can be judged against (a
    baseline of parsed text without values; a run of another program): the
    gate compared nothing, so it fails."""
    base = _write(tmp_path, _set_all(fixture_doc("load_run.json"), None))
    run = _write(tmp_path, _set_all(fixture_doc(run_doc), None), "run.json")
    code, out, _ = cli("compare", base, run, "--fail-if-worse", "5")
    assert code == 1, out
    flagged = [ln for ln in out.splitlines() if ln.startswith("REGRESSION")]
    assert flagged == ["REGRESSION run: no metric judged: no metric has a value in both the baseline and run "
                       "(a gate that compares nothing fails; compare runs of the same tests)"]


def test_a_huge_row_name_does_not_pad_every_line(cli, tmp_path):
    """Issue 55: every line was padded to the longest row name; one 2 MB
    name in a 2.6 MB document wrote 404 MB to stdout. Names are cut as
    `gpcnet nodes` cuts them (255 characters)."""
    from gpcnet.text import text_safe
    doc = fixture_doc("load_run.json")
    doc["tables"][0]["rows"][0]["name"] = "RR " + "x" * 2_000_000
    huge = _write(tmp_path, doc, "huge.json")
    worse = copy.deepcopy(doc)
    worse["tables"][0]["rows"][0]["avg"] *= 2
    code, out, _ = cli("compare", huge, _write(tmp_path, worse, "worse.json"), "--fail-if-worse", "5")
    assert code == 1
    code_plain, plain, _ = cli("compare", REAL, REAL)
    # the same table with one name of 258 characters: each line at most that much longer
    assert len(out) < len(plain) + 300 * (len(out.splitlines()) + 1)
    assert max(len(ln) for ln in out.splitlines()) < 500
    assert "RR " + "x" * (text_safe.NAME_LIMIT - 3) + "..." in out
    assert "x" * text_safe.NAME_LIMIT not in out

