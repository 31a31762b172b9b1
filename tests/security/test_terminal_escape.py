"""Strings from files reach the terminal and figures only escaped (issue
39, findings 5 and 6): terminal escape sequences, C1 controls, bidi
overrides and lone surrogates in row names, node names and file names are
shown as visible escapes on stdout and stderr; a `$...$` from a file is
literal text in a figure; error messages quote at most about 200
characters of a value."""

from __future__ import annotations

import json
import os

import pytest

from conftest import FIXTURES, fixture_doc, one_line_error
from gpcnet.text import text_safe
REAL = str(FIXTURES / "load_run.json")
WORSE = str(FIXTURES / "load_run_worse.json")
# What must never reach a terminal raw: ESC (CSI), a C1 CSI, DEL, BEL,
# a right-to-left override, a left-to-right isolate, a lone surrogate.
HOSTILE = "\x1b[2J\x9b31m\x7f\x07\u202e\u2066\ud800"
RAW = {ch for ch in HOSTILE if not ch.isprintable()}


def _raw_in(text: str) -> set:
    return RAW & set(text)


def _write(tmp_path, doc, name="doc.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))  # ensure_ascii: the surrogate travels as \ud800
    return str(p)


def test_terminal_escapes_every_control_and_format_character():
    shown = text_safe.terminal("a" + HOSTILE + "\n\tb")
    assert not _raw_in(shown) and "\n" not in shown and "\t" not in shown
    assert shown == "a\\x1b[2J\\x9b31m\\x7f\\x07\\u202e\\u2066\\ud800\\x0a\\x09b"
    # Printable text, in any script, is left alone; so is a backslash.
    assert text_safe.terminal("nœud-é 日本 a\\b") == "nœud-é 日本 a\\b"


def test_quote_is_short_and_never_prints_a_huge_number():
    assert text_safe.quote("x" * 5000) == "'" + "x" * 200 + "...'"
    assert text_safe.quote(10**5000) == "<an integer of about 5001 digits>"
    assert text_safe.quote(-10**250) == "-<an integer of about 251 digits>"
    assert text_safe.quote(12345) == "12345" and text_safe.quote(None) == "null"
    assert text_safe.quote({"a": [[]]}) == "an object of 1 keys"
    assert text_safe.quote("\x1b]0;title\x07") == "'\\x1b]0;title\\x07'"


def test_file_names_that_are_not_utf8_are_shown_by_their_bytes():
    assert text_safe.path(b"run\xff\x1b.json") == "run\\xff\\x1b.json"
    assert text_safe.path(os.fsdecode(b"run\xff.json")) == "run\\xff.json"


def test_compare_escapes_row_names_in_the_table_and_the_regression_lines(cli, tmp_path):
    base = fixture_doc("load_run.json")
    worse = fixture_doc("load_run_worse.json")
    for doc in (base, worse):
        for t in doc["tables"]:
            for row in t["rows"]:
                row["name"] = "evil" + HOSTILE + row["name"]
    code, out, err = cli("compare", _write(tmp_path, base, "a.json"), _write(tmp_path, worse, "b.json"),
                         "--fail-if-worse", "5")
    assert code == 1, err
    regressions = [line for line in out.splitlines() if line.startswith("REGRESSION")]
    assert any("evil\\x1b[2J\\x9b31m" in line for line in regressions)
    assert not _raw_in(out) and not _raw_in(err)


def _with_probe(names):
    doc = fixture_doc("network_run.json")
    doc["node_probe"] = {"rounds": 3, "exchanges": 4, "bytes": 8, "wall_s": 0.25,
                         "nodes": [{"node": i, "name": name, "usec": 10.0 + i, "partners": [None] * 3,
                                    "round_usec": [10.0 + i] * 3} for i, name in enumerate(names)]}
    return doc


def test_nodes_escapes_node_names(cli, tmp_path):
    code, out, err = cli("nodes", _write(tmp_path, _with_probe(["n0", "n1" + HOSTILE, "n2", "n3"])))
    assert code == 0, err
    assert "n1\\x1b[2J" in out and not _raw_in(out)


def test_error_messages_escape_file_names_and_values(cli, tmp_path):
    name = tmp_path / ("bad\x1b[2J\u202e.json")
    name.write_text('{"schema": "gpcnet-results", "x": ' + "[" * 10 + "]" * 9 + "}")
    line = one_line_error(*cli("report", name, "-o", tmp_path / "r.html")[::2])
    assert "bad\\x1b[2J\\u202e.json" in line and not _raw_in(line)
    line = one_line_error(*cli("plot", REAL, "--kind", "hist", "--test", "x" * 500 + "\x1b", "-o",
                               tmp_path / "p.svg")[::2])
    assert not _raw_in(line) and len(line) < 2500


def test_non_utf8_file_names_everywhere(cli, tmp_path):
    """A name with a byte that is not UTF-8 (from the command line) in a
    label, a 'wrote' line and an error: shown as \\xff, never an encoding
    error (the captured streams are strict UTF-8, as a UTF-8 terminal)."""
    raw = os.fsencode(str(tmp_path)) + b"/run\xff.json"
    with open(raw, "wb") as f:
        f.write((FIXTURES / "load_run.json").read_bytes())
    name = os.fsdecode(raw)
    code, out, err = cli("table", name)
    assert code == 0 and "run\\xff" in out, err
    out_name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/r\xfe.svg")
    code, out, err = cli("plot", name, "--kind", "hist", "--test", "rr_two_sided_lat", "-o", out_name)
    assert code == 0 and "r\\xfe.svg" in out, err
    missing = os.fsdecode(os.fsencode(str(tmp_path)) + b"/gone\xff.json")
    assert "gone\\xff.json" in one_line_error(*cli("compare", missing, name)[::2])


def test_report_page_survives_a_lone_surrogate(cli, tmp_path):
    doc = fixture_doc("network_run.json")
    doc["tables"][0]["rows"][0]["name"] = "lat\ud800"
    out = tmp_path / "r.html"
    code, _, err = cli("report", _write(tmp_path, doc), "-o", out)
    assert code == 0, err
    assert "lat\\ud800" in out.read_text(encoding="utf-8")


def _counters(start_epoch_s: float, ports: list) -> dict:
    """A counter series of `gpcnet testbed run --counters-interval`, each
    port sending 1 MB per 0.1 s from the timeline's start on."""
    samples = [{"t": round(0.1 * (k + 1), 6), "dt": 0.1,
                "ports": {p: {"bytes": 1_000_000, "packets": 700, "drops": 0, "backlog": 0, "overlimits": 0}
                          for p in ports}} for k in range(5)]
    return {"after": {"ports": {p: {"tier": "uplink"} for p in ports}},
            "series": {"interval_s": 0.1, "start_epoch_s": start_epoch_s, "samples": samples, "errors": []}}


TIMELINE = FIXTURES / "real" / "network_load_test_timeline.json"


def test_a_dollar_from_a_file_is_literal_text_in_a_figure(cli, tmp_path):
    """A port key `$\\notacommand$` once made matplotlib's mathtext fail
    with a many-line error: it is drawn as it is written."""
    epoch = json.loads(TIMELINE.read_text())["timeline"][0]["start_epoch_s"]
    counters = _write(tmp_path, _counters(epoch, ["$\\notacommand$"]), "c.json")
    out = tmp_path / "t.svg"
    code, _, err = cli("plot", TIMELINE, "--kind", "timeline", "--test", "rr_two_sided_lat",
                       "--counters", counters, "-o", out)
    assert code == 0 and err == "", err
    assert "$\\notacommand$ sent" in out.read_text()   # the SVG names each text in a comment


def test_a_huge_port_key_is_cut_in_the_figure(cli, tmp_path):
    """An 80,000-character port key was drawn whole (a 13 MB SVG): it is
    cut as `gpcnet nodes` cuts names (text_safe.NAME_LIMIT characters)."""
    epoch = json.loads(TIMELINE.read_text())["timeline"][0]["start_epoch_s"]
    key = "leaf1/" + "x" * 80_000
    counters = _write(tmp_path, _counters(epoch, [key]), "c.json")
    out = tmp_path / "t.svg"
    code, _, err = cli("plot", TIMELINE, "--kind", "timeline", "--test", "rr_two_sided_lat",
                       "--counters", counters, "--port", key, "-o", out)
    assert code == 0 and err == "", err
    small = tmp_path / "small.svg"
    code, _, err = cli("plot", TIMELINE, "--kind", "timeline", "--test", "rr_two_sided_lat",
                       "--counters", _write(tmp_path, _counters(epoch, ["leaf1/x"]), "s.json"), "-o", small)
    assert code == 0, err
    # the same figure with a short key, plus at most the cut name's glyphs
    assert out.stat().st_size < small.stat().st_size + 200_000
    assert "leaf1/" + "x" * (text_safe.NAME_LIMIT - 6) + "..." in out.read_text()
    assert "x" * text_safe.NAME_LIMIT not in out.read_text()


def test_label_makes_mathtext_literal():
    from matplotlib.figure import Figure
    import io
    fig = Figure()
    fig.subplots().set_title(text_safe.label("$\\notacommand$ costs $5 \x1b"))
    fig.savefig(io.BytesIO(), format="svg")  # raw, this raises a mathtext ParseFatalException


@pytest.mark.parametrize("kind", ["corun", "bully", "scale"])
def test_control_characters_from_a_study_are_escaped_in_the_html_report(cli, tmp_path, kind):
    """ESC, C1, DEL, BEL, bidi overrides and a lone surrogate in a study's
    application command, congestor arguments and a failed run's error were
    written raw (HTML-escaped, but still acting in a terminal the page is
    copied into): the page shows them as the terminal does, \\x1b[2J."""
    import study_docs
    doc = study_docs.KINDS[kind]()
    doc["config"]["app_command"] = ["app" + HOSTILE, "--size", "8"]
    doc["config"]["congestor_args"] = ["--congestors", "a2a" + HOSTILE]
    doc["runs"].append({"id": "x-r9", "setting": doc["config"]["settings"][0], "rotation": 9, "status": "failed",
                        "error": "exit 1: " + HOSTILE})
    out = tmp_path / "r.html"
    code, _, err = cli("report", _write(tmp_path, doc), "-o", out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert _raw_in(page) == set()
    assert not any(c in page for c in "\x00\x1b\x9b\x7f\x07")
    assert "app\\x1b[2J\\x9b31m\\x7f\\x07\\u202e\\u2066\\ud800" in page
    if kind != "scale":
        assert "exit 1: \\x1b[2J" in page
