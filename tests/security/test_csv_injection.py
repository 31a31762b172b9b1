"""`gpcnet table --format csv` cannot carry a formula into a spreadsheet
(issue 55): a text cell starting with = + - @, tab or carriage return is
written with a `'` in front (OWASP's advice on CSV injection); a number
cell stays a number."""

from __future__ import annotations

import json

import pytest

from conftest import fixture_doc


@pytest.mark.parametrize("name", ["=HYPERLINK(\"x\",\"y\")", "+1+cmd", "-2+3", "@SUM(A1)"])
def test_table_csv_neutralises_a_formula_in_a_text_cell(cli, tmp_path, name):
    """`gpcnet table --format csv` wrote a run label `=HYPERLINK(...)` as it
    was: a spreadsheet runs it (CSV injection). A text cell starting with
    = + - @ (tab, carriage return) gets a `'` in front (OWASP)."""
    import csv
    import io
    run = tmp_path / f"{name}.json"
    run.write_text(json.dumps(fixture_doc("load_run.json")))
    code, out, err = cli("table", run, "--format", "csv")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[1][0] == "'" + name
    assert rows[1][1] == "10" and float(rows[1][3]) > 0        # numbers stay numbers


def test_csv_cells_keep_numbers_and_neutralise_text():
    import csv
    import io
    from gpcnet.analysis import table
    for text in ("=1+1", "+1", "-1", "@x", "\tx", "\rx"):
        assert table.csv_text(text) == "'" + text
    assert table.csv_text("run1") == "run1" and table.csv_text("a=b") == "a=b"
    row = {"label": "-run", "nodes": 4, "pport": 1.0, **{c: -3.5 for c in table.COLUMNS}}
    out = list(csv.reader(io.StringIO(table.as_csv([row]))))
    assert out[1][:3] == ["'-run", "4", "1"] and out[1][3:] == ["-3.5"] * len(table.COLUMNS)
