"""gpcnet compare: run labels when file names repeat, and a table that
stays within 80 columns."""

import os
import shutil

from conftest import fixture
from gpcnet.analysis.compare import run_labels


def test_unique_file_names_label_by_name():
    assert run_labels(["a/base.json", "b/today.json"]) == ["base", "today"]


def test_sibling_directories_label_by_directory():
    assert run_labels(["o1/network_load_test.json", "o2/network_load_test.json"]) == ["o1", "o2"]
    # The distinguishing directory need not be the nearest one.
    assert run_labels(["runs/o1/out/x.json", "runs/o2/out/x.json", "runs/o3/out/x.json"]) == ["o1", "o2", "o3"]


def test_relative_paths_are_compared_by_what_they_name(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert run_labels(["x.json", "../there/x.json"]) == ["here", "there"]


def test_first_parting_directories_that_repeat_are_joined():
    assert run_labels(["/r/a/b/x.json", "/r/a/c/x.json", "/r/d/b/x.json"]) == ["a/b", "a/c", "d/b"]
    assert run_labels(["/r/a/b/x.json", "/r/a/c/x.json", "/r/d/x.json"]) == ["a/b", "a/c", "d"]


def test_run_inside_another_runs_directory_uses_shortest_unique_tail():
    assert run_labels(["/r/a/x.json", "/r/a/a/x.json"]) == ["r/a", "a/a"]


def test_same_file_twice_is_numbered():
    assert run_labels(["d/x.json", "d/x.json"]) == ["x#1", "x#2"]


def test_directory_label_that_equals_another_run_name_is_qualified():
    labels = run_labels(["o1.json", "o1/x.json", "o2/x.json"])
    assert labels == ["o1", "o1/x", "o2/x"]
    assert len(set(labels)) == 3


def _sibling_runs(tmp_path):
    for name, src in (("o1", "load_run.json"), ("o2", "load_run_worse.json")):
        (tmp_path / name).mkdir()
        shutil.copy(fixture(src), tmp_path / name / "network_load_test.json")


def test_compare_runs_in_sibling_directories_fits_80_columns(cli, tmp_path, monkeypatch):
    _sibling_runs(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("compare", os.path.join("o1", "network_load_test.json"),
                         os.path.join("o2", "network_load_test.json"), "--fail-if-worse", "10")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[-3:] == ["o1", "o2", "o2/o1"]
    table = lines[:lines.index("")]
    assert len(table) > 10 and all(len(l) <= 80 for l in table)
    assert any(l.startswith("REGRESSION o2: Loaded RR Two-sided Lat (8 B) Avg") for l in lines)
    code, out, _ = cli("compare", os.path.join("o1", "network_load_test.json"),
                       os.path.join("o1", "network_load_test.json"), "--fail-if-worse", "0")
    assert code == 0 and out.splitlines()[0].split()[-3:] == ["network_load_test#1", "network_load_test#2", "ratio"]
    assert "no metric is more than 0% worse than network_load_test#1" in out


def test_long_labels_get_a_short_ratio_header_and_a_legend(cli, tmp_path):
    base = tmp_path / "baseline_before_upgrade.json"
    new = tmp_path / "after_upgrade.json"
    shutil.copy(fixture("load_run.json"), base)
    shutil.copy(fixture("load_run_worse.json"), new)
    code, out, _ = cli("compare", base, new)
    assert code == 0
    head = out.splitlines()[0].split()
    assert head[-3:] == ["baseline_before_upgrade", "after_upgrade", "ratio"]
    assert "ratio = the value to its left / the value of baseline_before_upgrade (the baseline)" in out
    line = next(l for l in out.splitlines() if l.startswith("Loaded RR Two-sided Lat (8 B) Avg"))
    base_v, new_v, ratio = line.split()[-3:]
    assert abs(float(new_v) / float(base_v) - float(ratio)) < 0.01


def test_help_explains_the_labels(cli, capsys):
    import pytest
    with pytest.raises(SystemExit):
        cli("compare", "--help")
    out = capsys.readouterr().out
    assert "shortest part of their paths" in " ".join(out.split())
