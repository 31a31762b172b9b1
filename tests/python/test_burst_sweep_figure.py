"""The burst-sweep heat map (gpcnet.report.burst_sweep) on a synthetic
result with known numbers: the cells land where their ON and OFF are, the
numbers are written in them, one panel per canary and intensity, and the
report gets its section; the schema takes the member and refuses a bad one."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from conftest import REAL, read
from gpcnet import report
from gpcnet.infra.errors import GpcnetError
from gpcnet.report import burst_sweep
from gpcnet.results_json.load import load

ON, OFF, RATES = [0.01, 0.05], [0.05, 0.2, 1.5], [0.5, 1.0]
TESTS = ["rr_two_sided_lat", "multiple_allreduce"]


def _ci(test, on, off, rate):
    # A value that names its cell: 1.TOOR (test, ON, OFF, rate indices).
    return 1.0 + 0.1 * test + 0.01 * on + 0.001 * off + 0.0001 * rate


@pytest.fixture
def doc():
    d = copy.deepcopy(read("load_run.json"))
    cells = []
    for r, rate in enumerate(RATES):
        for i, on in enumerate(ON):
            for j, off in enumerate(OFF):
                cells.append({"on_s": on, "off_s": off, "intensity": rate,
                              "table": f"loaded_burst:{len(cells)}",
                              "avg": [_ci(t, i, j, r) for t in range(2)],
                              "p99": [2 * _ci(t, i, j, r) for t in range(2)]})
    d["burst_matrix"] = {"on_s": ON, "off_s": OFF, "intensity": RATES, "jitter": 0, "tests": TESTS,
                         "cells": cells, "steady": {"avg": [3.0, 4.0], "p99": [5.0, 6.0]},
                         "repetitions": 1}
    return d


def test_cell_grid_puts_each_cell_at_its_on_and_off(doc):
    m = doc["burst_matrix"]
    grid = burst_sweep.cell_grid(m, 1, 1.0, "avg")
    assert grid.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            assert grid[i, j] == pytest.approx(_ci(1, i, j, 1))
    assert burst_sweep.cell_grid(m, 0, 0.5, "p99")[1, 2] == pytest.approx(2 * _ci(0, 1, 2, 0))


def test_figure_has_a_panel_per_canary_and_intensity_with_the_numbers(doc):
    fig = burst_sweep.burst_sweep_figure(doc)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == len(TESTS) * len(RATES)
    # Row-major: canary 0 at 50 %, canary 0 at 100 %, canary 1 at 50 %, ...
    first = panels[0]
    assert "50% rate" in first.get_title() and "steady: 3.00" in first.get_title()
    assert "100% rate" in panels[1].get_title()
    texts = {(t.get_position(), t.get_text()) for t in first.texts}
    assert ((2.5, 1.5), f"{_ci(0, 1, 2, 0):.2f}") in texts     # ON 50 ms (row 1), OFF 1.5 s (col 2)
    assert len(first.texts) == len(ON) * len(OFF)
    assert [t.get_text() for t in first.get_xticklabels()] == ["50ms", "200ms", "1.5s"]
    assert [t.get_text() for t in first.get_yticklabels()] == ["10ms", "50ms"]


def test_missing_cells_are_blank_not_numbers(doc):
    doc["burst_matrix"]["cells"][0]["avg"][0] = None           # not measured yet
    fig = burst_sweep.burst_sweep_figure(doc, tests=["rr_two_sided_lat"])
    first = [ax for ax in fig.axes if ax.get_title()][0]
    assert len(first.texts) == len(ON) * len(OFF) - 1
    assert np.isnan(burst_sweep.cell_grid(doc["burst_matrix"], 0, 0.5)[0, 0])


def test_no_sweep_and_unknown_statistic_are_errors(doc):
    with pytest.raises(GpcnetError, match="statistic"):
        burst_sweep.burst_sweep_figure(doc, stat="p50")
    with pytest.raises(GpcnetError, match="--burst-sweep"):
        burst_sweep.burst_sweep_figure(read("load_run.json"))


def test_report_section_and_schema(doc, write_json):
    html = report.render(doc, "synthetic.json")
    assert 'id="burst-sweep"' in html and 'id="table-burst-matrix"' in html
    assert 'id="fig-burst-sweep"' in html
    assert "<td>1.5s</td>" in html and "<td>steady</td>" in html
    assert 'id="burst-sweep"' not in report.render(read("load_run.json"), "load_run.json")
    load(write_json(doc))                                     # the schema takes it
    doc["burst_matrix"]["cells"][0]["intensity"] = 1.5
    with pytest.raises(Exception):
        load(write_json(doc, "bad.json"))


def test_parse_refuses_burst_sweep_text(cli, tmp_path):
    """The text of a sweep has tables a one-run document cannot hold: the
    JSON has them (docs/reliability.md K6)."""
    lines = (REAL / "network_load_test.txt").read_text().splitlines(True)
    at = next(i for i, line in enumerate(lines) if line.startswith("   time limit = "))
    lines.insert(at, "   burst sweep = ON (s) 0.02,0.05; OFF (s) 0.02; intensity 1; jitter 0\n")
    source = tmp_path / "run.txt"
    source.write_text("".join(lines))
    code, out, err = cli("parse", source)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "not parsed (found 'burst sweep ='); use the JSON the run wrote" in err
