"""Reading the rows of a bordered table: result rows under a `Name` header
row, and the Key Results (Congestion Impact) rows."""

from __future__ import annotations

from typing import Optional

from gpcnet.metrics import catalog

# Header cell -> result key.
COLUMNS = {
    "Name": "name", "Min": "min", "Max": "max", "Avg": "avg", "Avg(Worst)": "avg_worst",
    "99%": "p99", "99.9%": "p999", "Units": "unit",
}
# Not in the text: sample counts, loop counts, timings, histograms.
_NOT_IN_TEXT = dict(median=None, samples=None, ranks=None, measurements=None, rings=None,
                    iterations=None, wall_s=None, timed_out=None, histogram=None)


def number(fail, lineno: int, cell: str, what: str) -> Optional[float]:
    cell = cell.rstrip("X").strip()
    try:
        value = float(cell)
    except ValueError:
        fail(lineno, f"{what}: {cell[:40]!r} is not a number")
    # The C side prints nan/inf where a test had no samples.
    return None if value != value or value in (float("inf"), float("-inf")) else value


def result_rows(fail, block) -> list:
    """The rows of a result table; `fail(lineno, problem)` raises."""
    header = None
    rows = []
    for lineno, cells in block.lines:
        if header is None:
            if cells and cells[0] == "Name":
                header = cells
                missing = {"Name", "Avg", "99%", "Units"} - set(cells)
                if missing:
                    fail(lineno, f"table '{block.title}' lacks column(s) {', '.join(sorted(missing))}")
            continue
        if len(cells) != len(header):
            fail(lineno, f"expected {len(header)} columns as in the header, found {len(cells)}")
        rows.append(_result(fail, lineno, dict(zip(header, cells))))
    if header is None:
        fail(block.first_line, f"table '{block.title}' has no 'Name' header row")
    return rows


def _result(fail, lineno: int, cells: dict) -> dict:
    unit = cells["Units"]
    if unit not in (catalog.USEC, catalog.MIBS):
        fail(lineno, f"unknown unit {unit[:40]!r}")
    result = {"test": catalog.id_for_name(cells["Name"]), "name": cells["Name"], "unit": unit,
              "better": catalog.better_for_unit(unit)}
    for column, key in COLUMNS.items():
        if key in ("name", "unit"):
            continue
        result[key] = number(fail, lineno, cells[column], column) if column in cells else None
    result.update(_NOT_IN_TEXT)
    return result


def impact_rows(fail, block) -> list:
    impact = []
    for lineno, cells in block.lines:
        if len(cells) != 3 or cells[0] in ("Name", "") or not cells[1].endswith("X"):
            continue  # the two header rows
        name = cells[0]
        impact.append({
            "test": catalog.id_for_name(name), "name": name,
            # Only the ratio of the printed values survives in the text.
            "avg": None, "p99": None,
            "avg_printed": number(fail, lineno, cells[1], "Avg"),
            "p99_printed": number(fail, lineno, cells[2], "99%"),
        })
    return impact
