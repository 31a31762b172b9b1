"""gpcnet report: one self-contained HTML file with the sections each kind
of document supports."""

import os
import re
from html.parser import HTMLParser

import pytest

from conftest import REAL, fixture


class _Collect(HTMLParser):
    """Tags, ids and every URL-bearing attribute of an HTML document."""

    def __init__(self):
        super().__init__()
        self.tags = []
        self.ids = set()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id":
                self.ids.add(value)
            if name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
                self.urls.append(value)


def report(cli, tmp_path, source):
    out = tmp_path / "report.html"
    code, stdout, err = cli("report", source, "-o", out)
    assert code == 0, err
    assert stdout == f"wrote {out}\n"
    return _read(out)


def _read(path):
    text = path.read_text()
    page = _Collect()
    page.feed(text)
    return text, page


def assert_self_contained(text, page):
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    # Only in-document references (#glyph ids inside the SVGs).
    assert all(url.startswith("#") for url in page.urls), [u for u in page.urls if not u.startswith("#")][:3]
    assert "@import" not in text and not re.search(r"url\((?!#)", text)


def test_load_test_report_has_every_section(reports):
    text, page = _read(reports["load_verbose_matrix"])
    assert_self_contained(text, page)
    for section in ("summary", "results", "histograms", "impact", "congestors", "impact-matrix", "repeats"):
        assert section in page.ids, section
    for table in ("table-isolated", "table-loaded", "table-impact", "table-isolated_congestors",
                  "table-impact-matrix"):
        assert table in page.ids, table
    for fig in ("fig-hist-rr_two_sided_lat", "fig-hist-rr_two_sided_bw_sync", "fig-hist-multiple_allreduce",
                "fig-ci", "fig-impact-matrix"):
        assert fig in page.ids, fig
    assert text.count("<svg") == 5
    # Summary: official-default status, differing settings, seed, MPI, placement.
    assert "settings that differ: time_limit_s, emulated_nodes" in text
    assert "44 (from option)" in text and "Open MPI v4.1.4" in text
    assert "box#1, box#6" in text
    # Verbose columns as in the text output; printed CI with X.
    assert "Avg(Worst)" in text and re.search(r">\d+\.\dX<", text)
    # The published neighbours at the closest PPort are named.
    assert "Malbec (485 nodes, 20 PPort)" in text


def test_network_test_report_has_no_loaded_sections(reports):
    text, page = _read(reports["network_run"])
    assert_self_contained(text, page)
    assert "table-isolated" in page.ids and "table-loaded" not in page.ids
    assert "impact" not in page.ids and "congestors" not in page.ids
    assert text.count("<svg") == 8  # one histogram figure per test


def test_parsed_text_report_says_there_are_no_histograms(reports):
    text, page = _read(reports["parsed_ref_load_default"])
    assert "no-histograms" in page.ids and "parsed from text output" in text
    assert text.count("<svg") == 1  # only the CI figure
    assert "PPort not recorded; assumed 1 NIC per node" in text
    assert "names not recorded" not in text  # the node counts are known from the text


def test_partial_run_is_flagged(cli, tmp_path):
    text, page = report(cli, tmp_path, REAL / "network_test_running.json")
    assert "Run status is <b>running</b>" in text
    assert text.count("<svg") == 1


@pytest.mark.parametrize("failed,after,named", [
    (["node03"], "deadline", "The fault probe named the failed host: <b>node03</b> (3 of 4 ranks answered rank 0 "
                             "(on node01) before the deadline)."),
    ([], "deadline", "The fault probe named no host: 4 of 4 ranks answered rank 0 (on node01) before the deadline."),
    (["node02", "node04"], "SIGTERM", "The fault probe named the failed hosts: <b>node02, node04</b> (2 of 4 ranks "
                                      "answered rank 0 (on node01) after the launcher&#39;s SIGTERM). One of them is "
                                      "the lost host; the launcher may have ended the others itself."),
], ids=["named", "none", "after-sigterm"])
def test_aborted_run_names_its_step_and_the_failed_host(cli, tmp_path, failed, after, named):
    """An aborted document's step and --fault-probe's verdict are on the page."""
    import json
    doc = json.loads((REAL / "network_test_running.json").read_text())
    doc.update(status="aborted", abort_reason="deadline: --deadline 20 s reached",
               finished_at="2026-11-26T22:00:00Z",
               aborted_in="isolated: RR Two-sided Lat (8 B)", failed_hosts=failed,
               fault_probe={"after": after, "from": "node01", "ranks": 4, "answered": 4 - len(failed),
                            "failed_host_count": len(failed), "silent_hosts": failed,
                            "silent_host_count": len(failed)})
    (tmp_path / "aborted.json").write_text(json.dumps(doc))
    text, _ = report(cli, tmp_path, tmp_path / "aborted.json")
    assert ("Run status is <b>aborted</b>: deadline: --deadline 20 s reached, in isolated: "
            "RR Two-sided Lat (8 B); only the phases that finished are shown.") in text
    assert named in text


def test_real_load_test_report(reports):
    text, page = _read(reports["real_network_load_test_verbose"])
    assert_self_contained(text, page)
    assert text.count("<svg") == 4 and "congestors" in page.ids


def test_text_is_escaped(cli, tmp_path, write_json):
    from conftest import read
    doc = read("network_run.json")
    doc["environment"]["mpi_library"] = "<b>evil</b> & co"
    for row in doc["tables"][0]["rows"]:
        row["histogram"] = None  # no figures needed here
    text, _ = report(cli, tmp_path, write_json(doc))
    assert "&lt;b&gt;evil&lt;/b&gt; &amp; co" in text and "<b>evil</b>" not in text


def test_svg_ids_do_not_collide_between_figures(reports):
    text, _ = _read(reports["load_verbose_matrix"])
    clip_ids = re.findall(r'<clipPath id="([^"]+)"', text)
    assert clip_ids and len(clip_ids) == len(set(clip_ids))


@pytest.mark.parametrize("args, expected", [
    (["missing.json"], "missing.json: no such file"),
])
def test_report_errors(cli, tmp_path, args, expected):
    code, _, err = cli("report", *[tmp_path / a for a in args], "-o", tmp_path / "r.html")
    assert code == 2 and expected in err and err.count("\n") == 1


def test_report_creates_missing_output_directories(cli, tmp_path):
    out = tmp_path / "no" / "dir" / "r.html"
    code, stdout, err = cli("report", fixture("network_run.json"), "-o", out)
    assert code == 0 and stdout == f"wrote {out}\n" and out.read_text().startswith("<!DOCTYPE html>")


def test_report_unwritable_output_names_the_cause(cli, tmp_path):
    (tmp_path / "file").write_text("")
    code, _, err = cli("report", fixture("network_run.json"), "-o", tmp_path / "file" / "dir" / "r.html")
    assert code == 2 and err.count("\n") == 1 and "Not a directory" in err and str(tmp_path / "file") in err


def test_report_does_not_replace_a_file_without_force(cli, tmp_path):
    out = tmp_path / "r.html"
    out.write_text("keep")
    code, _, err = cli("report", fixture("network_run.json"), "-o", out)
    assert code == 2 and "already exists; use --force" in err and out.read_text() == "keep"
    code, _, err = cli("report", fixture("network_run.json"), "-o", out, "--force")
    assert code == 0 and out.read_text().startswith("<!DOCTYPE html>")


def test_report_never_writes_through_a_planted_link(cli, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "r.html").symlink_to(victim)
    for force in ([], ["--force"]):
        code, _, err = cli("report", fixture("network_run.json"), "-o", tmp_path / "r.html", *force)
        assert code == 2 and "symbolic link" in err and victim.read_text() == "keep"


def test_report_to_a_device_writes_into_it(cli):
    code, stdout, _ = cli("report", fixture("network_run.json"), "-o", os.devnull)
    assert code == 0 and stdout == f"wrote {os.devnull}\n"
