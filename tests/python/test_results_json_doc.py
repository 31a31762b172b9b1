"""docs/results-json.md, "Figures of merit for wrappers": the Python
example runs as printed and reads the values at the documented paths."""

import json
import re
import shutil

from conftest import REPO, fixture

DOC = (REPO / "docs" / "results-json.md").read_text()
SECTION = DOC.split("## Figures of merit for wrappers", 1)[1].split("\n## ", 1)[0]


def test_python_example_prints_every_figure_of_merit(tmp_path, monkeypatch, capsys):
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    shutil.copy(fixture("load_run.json"), tmp_path / "network_load_test.json")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "results-json.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 18
    doc = json.loads((tmp_path / "network_load_test.json").read_text())
    loaded = next(t for t in doc["tables"] if t["id"] == "loaded")
    lat = next(r for r in loaded["rows"] if r["test"] == "rr_two_sided_lat")
    assert f"loaded_rr_two_sided_lat_p99 {lat['p99']:.6g} usec" in lines
    # The lines the page quotes are what the example prints.
    quoted = re.findall(r"`((?:isolated|impact)_\w+ [\d.]+ \w+)`", SECTION)
    assert len(quoted) == 2 and all(q in lines for q in quoted), quoted


def test_quoted_jq_results_are_the_fixture_values():
    doc = json.loads(open(fixture("load_run.json")).read())
    loaded = next(t for t in doc["tables"] if t["id"] == "loaded")
    p99 = next(r for r in loaded["rows"] if r["test"] == "rr_two_sided_lat")["p99"]
    ci = next(r for r in doc["impact"] if r["test"] == "rr_two_sided_lat")["p99"]
    assert f"network_load_test.json\n{p99!r}\n" in SECTION
    assert f"network_load_test.json\n{ci!r}\n" in SECTION


def test_incomplete_run_is_refused(tmp_path, monkeypatch):
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    doc = json.loads(open(fixture("load_run.json")).read())
    doc.update(status="aborted", abort_reason="deadline")
    (tmp_path / "network_load_test.json").write_text(json.dumps(doc))
    monkeypatch.chdir(tmp_path)
    try:
        exec(compile(code, "results-json.md", "exec"), {})
    except RuntimeError as e:
        assert "run aborted: deadline" in str(e)
    else:
        raise AssertionError("an aborted run was accepted")
