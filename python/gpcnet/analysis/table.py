"""Runs as rows in the layout of the paper's Table 2, as Markdown, CSV or
LaTeX, so new numbers can be pasted beside the published ones.

Column order follows the published table (and published_results.csv):
isolated Avg, loaded Avg, isolated 99%, loaded 99%, each for Lat, BW and
Allreduce. CSV uses the published CSV's column names.
"""

from __future__ import annotations

import csv
import io
from typing import Optional

from gpcnet.metrics import catalog, reference
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe
GROUPS = [("iso", "avg", "Isolated Avg"), ("load", "avg", "Loaded Avg"),
          ("iso", "p99", "Isolated 99%"), ("load", "p99", "Loaded 99%")]
METRIC_LABELS = {"lat": "Lat", "bw": "BW", "allreduce": "Allreduce"}
UNITS = {"lat": "usec", "bw": "MiB/s/rank", "allreduce": "usec"}
COLUMNS = [(phase, stat, metric) for phase, stat, _ in GROUPS for metric in reference.METRICS]


def run_row(label: str, doc: dict, repetition: int = results.FIRST) -> dict:
    pport, _ = results.pport(doc)
    row = {"label": label, "nodes": doc["environment"]["nodes"], "pport": pport}
    for phase, stat, metric in COLUMNS:
        r = results.row(doc, "isolated" if phase == "iso" else "loaded", catalog.PAPER_METRICS[metric],
                        repetition)
        row[(phase, stat, metric)] = r[stat] if r else None
    return row


def published_rows() -> list:
    return [{"label": p.system, "nodes": p.nodes, "pport": p.pport, **p.values} for p in reference.published()]


def _num(value: Optional[float], missing: str) -> str:
    # One decimal, or 4 significant digits for a value beyond a million
    # (1.7e308 would otherwise be 309 digits).
    return number_text.fixed(value, 1, missing)


def _pport(value: Optional[float]) -> str:
    return "" if value is None else number_text.general(value, 6)


def _nodes(value) -> str:
    return text_safe.quote(value)


def _csv_num(value) -> str:
    """A value at full precision (repr of the double), "" when missing."""
    x = number_text.as_float(value)
    if x is None:
        return ""
    return str(value) if isinstance(value, int) and abs(value) < 10**15 else repr(x)


def markdown(rows: list) -> str:
    head = ["Run", "Nodes", "PPort"] + [f"{g} {METRIC_LABELS[m]}" for _, _, g in GROUPS for m in reference.METRICS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "---:|" * len(COLUMNS)]
    for r in rows:
        cells = [r["label"].replace("|", "\\|"), _nodes(r["nodes"]), _pport(r["pport"])]
        cells += [_num(r[c], "–") for c in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    units = ", ".join(f"{METRIC_LABELS[m]} in {UNITS[m]}" for m in reference.METRICS)
    return "\n".join(lines) + f"\n\n{units}; BW = RR Two-sided BW+Sync.\n"


# A spreadsheet takes a cell that starts with one of these as a formula
# (OWASP, CSV injection): `=HYPERLINK(...)` as a run's file name would be
# one. Such a text cell is written with a `'` in front, which shows it as
# text; a number cell is never text, so -3.5 stays the number it is.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """A text cell of the CSV, inert in a spreadsheet."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv_nodes(value) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else csv_text(_nodes(value))


def as_csv(rows: list) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "nodes", "pport"] + [f"{p}_{s}_{m}" for p, s, m in COLUMNS])
    for r in rows:
        writer.writerow([csv_text(r["label"]), _csv_nodes(r["nodes"]), _pport(r["pport"])] +
                        [_csv_num(r[c]) for c in COLUMNS])
    return out.getvalue()


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex(rows: list) -> str:
    spec = "lrr" + "|rrr" * len(GROUPS)
    groups = " & ".join(rf"\multicolumn{{3}}{{c{'|' if i < len(GROUPS) - 1 else ''}}}{{{_latex_escape(g)}}}"
                        for i, (_, _, g) in enumerate(GROUPS))
    metrics = " & ".join(METRIC_LABELS[m] for _ in GROUPS for m in reference.METRICS)
    lines = [
        "% gpcnet table: Lat and Allreduce in usec, BW (RR Two-sided BW+Sync) in MiB/s/rank",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\hline",
        rf"Run & Nodes & PPort & {groups} \\",
        rf" & & & {metrics} \\",
        r"\hline",
    ]
    for r in rows:
        cells = [_latex_escape(r["label"]), _nodes(r["nodes"]), _pport(r["pport"])]
        cells += [_num(r[c], "--") for c in COLUMNS]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


FORMATS = {"md": markdown, "csv": as_csv, "latex": latex}


def render(labelled_docs: list, fmt: str, with_published: bool = False,
           repetition: int = results.FIRST) -> str:
    """The table text. A document with several repetitions contributes one
    of them (repetition 1 unless asked); the caller tells the user."""
    for label, doc in labelled_docs:
        results.check_repetition(doc, repetition, label)
    rows = [run_row(label, doc, repetition) for label, doc in labelled_docs]
    if with_published:
        rows += published_rows()
    return FORMATS[fmt](rows)
