"""The per-NIC view (gpcnet.analysis.nics, docs/method.md#multi-nic-nodes), from
crafted documents: a slow NIC of the per-NIC probe named by `gpcnet nodes`
and `gpcnet report` as a slow node is; the canaries per rail and per NIC
shown (never used to name a NIC); nothing named when the NICs agree or
without a probe; the published tables unchanged."""
import json

from conftest import read
from gpcnet.analysis import nics
from gpcnet.results_json import load
def with_nics(probe_usec=None, nodes=6, rails=2, avg=2.0):
    """network_run.json with per-NIC canaries and, when probe_usec
    ([node][rail]) is given, the per-NIC probe."""
    doc = read("network_run.json")
    row = doc["tables"][0]["rows"][0]
    names = [f"nid{i:03d}" for i in range(nodes)]
    nic_names = [f"hsn{r}" for r in range(rails)]
    groups = [{"node": names[n], "nic": nic_names[r], "rail": r, "ranks": 1, "avg": avg,
               "p99": 2 * avg, "samples": 100} for n in range(nodes) for r in range(rails)]
    rail_rows = [{"rail": r, "ranks": nodes, "avg": avg, "p99": 2 * avg, "samples": 100 * nodes}
                 for r in range(rails)]
    doc["nics"] = {"source": "GPCNET_NIC", "rails": rails,
                   "nodes": [{"node": n, "nics": nic_names, "rails": list(range(rails))} for n in names],
                   "canaries": [{"table": doc["tables"][0]["id"], "repetition": 1, "test": row["test"],
                                 "unit": row["unit"], "better": row["better"], "rails": rail_rows,
                                 "nics": groups}]}
    if probe_usec is not None:
        doc["nics"]["probe"] = {
            "rounds": 5, "exchanges": 5, "bytes": 131072, "wall_s": 0.1,
            "nics": [{"node": names[n], "nic": nic_names[r], "rail": r, "usec": probe_usec[n][r]}
                     for n in range(nodes) for r in range(rails)]}
    return doc, row["name"]


SLOW_ONE = [[20.0, 21.0], [20.5, 19.5], [20.0, 20.0], [19.0, 21.0], [20.0, 90.0], [21.0, 20.0]]


def test_crafted_documents_are_valid(write_json):
    load.load(write_json(with_nics(SLOW_ONE)[0]))
    load.load(write_json(with_nics()[0], "noprobe.json"))


def test_the_slow_nic_is_flagged_and_only_it():
    doc, _ = with_nics(SLOW_ONE)
    assert [n["label"] for n in nics.assess(doc) if n["slow"]] == ["nid004/hsn1"]
    assert [s["label"] for s in nics.slow_nics(doc)] == ["nid004/hsn1"]


def test_nics_that_agree_or_no_probe_name_nothing():
    assert nics.slow_nics(with_nics([[20.0, 20.2]] * 6)[0]) == []
    assert nics.slow_nics(with_nics()[0]) == []


def test_canaries_carry_their_table_rows_name():
    doc, name = with_nics()
    got = nics.canaries(doc)
    assert got[0]["name"] == name and got[0]["nics"][3]["label"] == "nid001/hsn1"


def test_cli_names_the_slow_nic(cli, write_json):
    doc, name = with_nics(SLOW_ONE)
    path = write_json(doc)
    code, out, err = cli("nodes", path)
    assert code == 0, err
    assert "Slow NICs: nid004/hsn1 (z " in out
    assert [l.split()[0] for l in out.splitlines() if l.endswith("SLOW")] == ["nid004/hsn1"]
    assert "rail 1: avg " in out and name in out
    code, out, _ = cli("nodes", "--json", path)
    got = json.loads(out)
    assert code == 0 and got["slow_nics"] == ["nid004/hsn1"] and got["slow"] == []
    code, out, _ = cli("nodes", path, "--threshold", "1000")
    assert code == 0 and "Slow NICs: none" in out


def test_cli_without_probe_says_nics_were_not_assessed(cli, write_json):
    code, out, err = cli("nodes", write_json(with_nics()[0]))
    assert code == 0, err
    assert "Slow NICs: not assessed" in out and "--node-probe" in out


def test_cli_without_nics_or_probe_is_refused_in_one_line(cli, write_json):
    code, out, err = cli("nodes", write_json(read("network_run.json")))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "gpcnet-bind" in err and "--node-probe" in err


def test_report_has_the_per_nic_section_and_unchanged_tables(cli, write_json, tmp_path):
    out, plain = tmp_path / "r.html", tmp_path / "p.html"
    assert cli("report", write_json(with_nics(SLOW_ONE)[0]), "-o", out)[0] == 0
    html = out.read_text()
    section = html[html.index('<section id="nics">'):]
    section = section[:section.index("</section>")]
    assert 'Slow NICs: <strong class="slow">nid004/hsn1</strong>' in section
    # probe: header and 12 NICs; canaries: rails' header and 2, NICs' header and 12
    assert section.count("<tr>") == 13 + 3 + 13
    assert cli("report", write_json(read("network_run.json"), "plain.json"), "-o", plain)[0] == 0
    plain_html = plain.read_text()
    assert 'id="nics"' not in plain_html
    # The published tables are the same with or without the per-NIC member.
    results = [h[h.index('<section id="results">'):] for h in (html, plain_html)]
    results = [h[:h.index("</section>")] for h in results]
    assert results[0] == results[1]


def test_names_from_the_file_are_escaped(cli, write_json):
    doc, _ = with_nics(SLOW_ONE)
    doc["nics"]["probe"]["nics"][9]["node"] = "nid004\x1b[2J"
    doc["nics"]["canaries"][0]["nics"][0]["nic"] = "hsn0\x1b]0;x\x07"
    code, out, err = cli("nodes", write_json(doc))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "Slow NICs: nid004" in out
