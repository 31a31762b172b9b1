"""`gpcnet parse` under the results documents' bounds (issue 55): a text
whose tables are longer or more numerous than any run prints is refused
in one line at the first row or table over the bound, before the document
is built and long before jsonschema sees it (a 16 MB text took 90 s and
794 MB); the document parse builds passes the same results_limits check
as every other reader."""

from __future__ import annotations

import tracemalloc

import pytest

from conftest import FIXTURES, one_line_error
from gpcnet.commands import parse as parse_command
from gpcnet.infra.errors import GpcnetError
from gpcnet.parse_text import parse_text, scan
from gpcnet.results_json import load, results_limits

REAL = FIXTURES / "real" / "network_test.txt"


def _parts():
    """(preamble, the Isolated table with its bars, what follows) of a real text."""
    lines = REAL.read_text().splitlines(True)
    top = next(i for i, line in enumerate(lines) if "Isolated Network Tests" in line) - 1
    end = max(i for i, line in enumerate(lines) if line.startswith("+")) + 1
    return "".join(lines[:top]), "".join(lines[top:end]), "".join(lines[end:])


def _no_schema(monkeypatch):
    def refuse(*_):
        raise AssertionError("the parsed document reached jsonschema")
    monkeypatch.setattr(load, "validator", refuse)


def test_a_table_of_more_rows_than_any_run_prints_is_refused_at_the_row(cli, tmp_path, monkeypatch):
    """50,000 rows in one table (8 MB): refused at the first row over the
    bound, before any row is read into the document."""
    head, table, tail = _parts()
    lines = table.splitlines(True)
    row = "".join(lines[4:6])  # a result row and the bar under it
    text = head + "".join(lines[:6]) + row * 50_000 + "".join(lines[6:]) + tail
    assert len(text) < parse_command.MAX_TEXT_BYTES
    (tmp_path / "rows.txt").write_text(text)
    _no_schema(monkeypatch)
    monkeypatch.setattr(parse_text.__globals__["row_reader"], "result_rows",
                        lambda *_: pytest.fail("a row was read into the document"))
    code, out, err = cli("parse", tmp_path / "rows.txt")
    line = one_line_error(code, err)
    assert f"has more than {scan.MAX_BLOCK_ROWS} rows, more than any run prints" in line, line
    assert "rows.txt:" in line and out == ""


def test_a_title_printed_again_and_again_is_bounded_in_all(tmp_path, cli, monkeypatch):
    """Each table short, the same title 20 times: its rows add up past the
    bound and are refused while the tables are assembled."""
    head, table, tail = _parts()
    (tmp_path / "again.txt").write_text(head + (table + "\n") * 20 + tail)
    _no_schema(monkeypatch)
    code, _, err = cli("parse", tmp_path / "again.txt")
    line = one_line_error(code, err)
    assert f"more than {results_limits.MAX_ROWS_PER_TABLE} rows in all" in line, line


def test_more_tables_than_any_run_prints_are_refused_at_the_table(tmp_path, cli, monkeypatch):
    head, table, tail = _parts()
    other = table.replace("Isolated Network Tests", "Another Table Title   ")
    (tmp_path / "tables.txt").write_text(head + table + "\n" + (other + "\n") * (scan.MAX_BLOCKS + 5) + tail)
    _no_schema(monkeypatch)
    code, _, err = cli("parse", tmp_path / "tables.txt")
    assert f"more than {scan.MAX_BLOCKS} tables" in one_line_error(code, err)


def test_a_text_over_the_byte_bound_is_refused_before_it_is_scanned(tmp_path, cli, monkeypatch):
    head, table, tail = _parts()
    path = tmp_path / "big.txt"
    path.write_text(head + table + " " * parse_command.MAX_TEXT_BYTES + "\n" + tail)
    monkeypatch.setattr(scan.Scanner, "__init__", lambda *_: pytest.fail("the text was scanned"))
    code, _, err = cli("parse", path)
    assert f"larger than {parse_command.MAX_TEXT_BYTES // 2**20} MiB" in one_line_error(code, err)


def test_the_parsed_document_passes_the_results_limits(tmp_path, cli, monkeypatch):
    """parse applies results_limits.check to what it built: a bound made
    smaller than the real text's isolated table refuses it with the
    readers' own line."""
    monkeypatch.setattr(results_limits, "MAX_LIST_ITEMS", 5)
    code, _, err = cli("parse", REAL)
    line = one_line_error(code, err)
    assert "(parsed): $.tables[0].rows: 8 items, more than any run writes (limit 5)" in line, line


def test_a_real_text_is_parsed_in_bounded_memory(tmp_path, cli):
    tracemalloc.start()
    try:
        code, out, err = cli("parse", REAL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0, err
    assert '"source": "text"' in out
    assert peak < 50 * 2**20, peak


def test_the_bounds_are_the_readers_bounds():
    assert scan.MAX_BLOCK_ROWS == results_limits.MAX_ROWS_PER_TABLE + 2
    assert scan.MAX_BLOCKS == results_limits.MAX_TABLES_PER_REPETITION
    with pytest.raises(GpcnetError):
        parse_text("Network Tests v1\n", "t.txt")
