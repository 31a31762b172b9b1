"""Escaping in one place: every HTML writer goes through gpcnet.report.html,
so no writer can forget to escape. Checked three ways: the source of the
report modules builds no markup by hand, the layer escapes what it is
given, and markup planted in every text field of a run or a study never
reaches the page raw."""

import ast
import json
from pathlib import Path

import pytest

import gpcnet.report
from conftest import fixture, read
from gpcnet.report import html as layer

REPORT_DIR = Path(gpcnet.report.__file__).parent
PAYLOAD = '<x-evil a="1">&</x-evil>'
RAW = "<x-evil"


def _html_modules():
    return sorted(REPORT_DIR.glob("*.py"))


def test_report_modules_build_no_markup_by_hand():
    """An f-string with a tag in it, or Markup() of anything but a literal,
    would skip escaping; only the layer may call Markup on a non-literal."""
    problems = []
    for path in _html_modules():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
                if "<" in literal:
                    problems.append(f"{path.name}:{node.lineno}: f-string with markup")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Markup" \
                    and path.name != "html.py":
                if not (len(node.args) <= 1 and all(isinstance(a, ast.Constant) for a in node.args)):
                    problems.append(f"{path.name}:{node.lineno}: Markup() of a computed value")
    assert not problems, problems


def test_no_other_module_writes_html():
    """The HTML writers all live in gpcnet/report/: nothing else in the
    package spells a document or a table."""
    package = REPORT_DIR.parent
    outside = [p for p in package.rglob("*.py") if REPORT_DIR not in p.parents
               and any(tag in p.read_text() for tag in ("<html", "<table", "<td", "<!DOCTYPE"))]
    assert not outside, outside


def test_fmt_escapes_arguments_but_not_fragments():
    inner = layer.fmt("<b>{}</b>", PAYLOAD)
    assert RAW not in inner and "&lt;x-evil" in inner
    outer = layer.fmt("<p>{}</p>", inner)
    assert outer.startswith("<p><b>") and RAW not in outer
    assert layer.fmt('<td title="{!r}">{:.1f}</td>', 2.25, 2.25) == '<td title="2.25">2.2</td>'
    assert RAW not in layer.join(["a", PAYLOAD]) and RAW not in layer.fmt("{x}", x=PAYLOAD)


def test_page_escapes_plain_text_given_as_the_body():
    text = layer.page(PAYLOAD, "<h1>" + PAYLOAD + "</h1>")  # a body built by hand shows as text
    assert RAW not in text and "&lt;h1&gt;" in text and text.startswith("<!DOCTYPE html>")


_STRUCTURAL = {"schema", "program", "source", "status", "better", "unit", "test", "kernel", "id", "metric"}


def _plant(value, key=None):
    """The payload in every text field the report may show."""
    if isinstance(value, dict):
        return {k: _plant(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_plant(v, key) for v in value]
    if isinstance(value, str) and key not in _STRUCTURAL:
        return PAYLOAD + value
    return value


@pytest.mark.parametrize("name", ["load_verbose_matrix.json", "network_run.json"])
def test_markup_in_any_text_field_of_a_run_is_escaped(name):
    doc = _plant(read(name))
    for table in doc["tables"]:
        for row in table["rows"]:
            row["histogram"] = None  # no figures needed here
    text = gpcnet.report.render(doc, PAYLOAD)
    assert RAW not in text and "&lt;x-evil" in text


def _study():
    runs = []
    for setting, times in {"I": [1.0, 2.0], "III": [2.0, 3.0]}.items():
        for k, t in enumerate(times):
            runs.append({"id": f"{setting}-r{k}", "setting": setting, "rotation": k, "status": "ok",
                         "wall_s": t, "fom": t, "counters": {"switch_stall": {"leaf0": {"stall_ratio": t}}}})
    runs.append({"id": "III-r9", "setting": "III", "rotation": 9, "status": "failed", "error": PAYLOAD})
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["n1", "n2"], "runs": runs,
            "config": {"study": "corun", "settings": ["I", "III"], "app_command": [PAYLOAD, "x"], "n": 1,
                       "ppn": 1, "rotations": 2, "launcher": "local", "congestor_args": [PAYLOAD],
                       "patterns": None}}


def test_markup_in_a_study_is_escaped_by_the_writer_itself():
    """Straight to the writer, past the schema: launcher, setting names and
    number-typed fields holding markup still arrive as text."""
    study = _study()
    study["config"]["launcher"] = PAYLOAD
    study["config"]["ppn"] = PAYLOAD
    study["config"]["rotations"] = PAYLOAD
    for run in study["runs"]:
        run["setting"] = run["setting"] + PAYLOAD
    study["config"]["settings"] = [s + PAYLOAD for s in study["config"]["settings"]]
    text = gpcnet.report.render_study(study)
    assert RAW not in text and text.count("&lt;x-evil") >= 5


def test_study_report_through_the_command(cli, tmp_path):
    path = tmp_path / "study.json"
    path.write_text(json.dumps(_study()))
    code, out, err = cli("report", path, "-o", tmp_path / "s.html")
    assert code == 0, err
    text = (tmp_path / "s.html").read_text()
    assert RAW not in text and "&lt;x-evil" in text and text.count("<svg") == 2
    assert "table.gpcnet" in text, "the one style sheet of every report"


def test_run_and_study_reports_share_one_style_sheet(cli, tmp_path):
    path = tmp_path / "study.json"
    path.write_text(json.dumps(_study()))
    cli("report", path, "-o", tmp_path / "s.html")
    cli("report", fixture("network_run.json"), "-o", tmp_path / "r.html")
    style = [p.read_text().split("<style>")[1].split("</style>")[0] for p in (tmp_path / "s.html", tmp_path / "r.html")]
    assert style[0] == style[1] == str(layer.CSS)
