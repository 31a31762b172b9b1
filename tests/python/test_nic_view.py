"""The per-NIC view (gpcnet.nics, docs/method.md#multi-nic-nodes): a slow
NIC named by `gpcnet nodes` and `gpcnet report` as a slow node is, from a
crafted document; bandwidths compared as times; nothing named when the
NICs agree; the document without `nics` unchanged in both outputs."""
import json

from conftest import read
from gpcnet import load, nics


def with_nics(avgs, better="lower", unit="usec", nodes=6, rails=2):
    """network_run.json with per-NIC canaries: avgs[node][rail]."""
    doc = read("network_run.json")
    names = [f"nid{i:03d}" for i in range(nodes)]
    nic_names = [f"hsn{r}" for r in range(rails)]
    groups = [{"node": names[n], "nic": nic_names[r], "rail": r, "ranks": 1, "avg": avgs[n][r],
               "p99": 2 * avgs[n][r], "samples": 100} for n in range(nodes) for r in range(rails)]
    rail_rows = [{"rail": r, "ranks": nodes, "avg": sum(a[r] for a in avgs) / nodes,
                  "p99": 2 * max(a[r] for a in avgs), "samples": 100 * nodes} for r in range(rails)]
    doc["nics"] = {"source": "GPCNET_NIC", "rails": rails,
                   "nodes": [{"node": n, "nics": nic_names, "rails": list(range(rails))} for n in names],
                   "canaries": [{"table": "isolated", "repetition": 1, "test": "rr_two_sided_lat",
                                 "name": "RR Two-sided Lat (8 B)", "unit": unit, "better": better,
                                 "rails": rail_rows, "nics": groups}]}
    return doc


SLOW_ONE = [[2.0, 2.1], [2.05, 1.95], [2.0, 2.0], [1.9, 2.1], [2.0, 9.0], [2.1, 2.0]]


def test_crafted_document_is_valid(write_json):
    load.load(write_json(with_nics(SLOW_ONE)))


def test_the_slow_nic_is_flagged_and_only_it():
    tests = nics.assess(with_nics(SLOW_ONE))
    assert [n["label"] for n in tests[0]["nics"] if n["slow"]] == ["nid004/hsn1"]
    assert [s["label"] for s in nics.slow_nics(with_nics(SLOW_ONE))] == ["nid004/hsn1"]


def test_a_bandwidth_nic_is_slow_when_its_bandwidth_is_low():
    bw = [[1000.0, 1010.0], [990.0, 1005.0], [1000.0, 200.0], [995.0, 1000.0], [1002.0, 998.0],
          [1001.0, 999.0]]
    doc = with_nics(bw, better="higher", unit="MiB/s")
    assert [s["label"] for s in nics.slow_nics(doc)] == ["nid002/hsn1"]
    # A NIC with a high bandwidth is not "slow".
    bw[2][1] = 5000.0
    assert nics.slow_nics(with_nics(bw, better="higher", unit="MiB/s")) == []


def test_nics_that_agree_name_nothing():
    assert nics.slow_nics(with_nics([[2.0, 2.02]] * 6)) == []


def test_cli_names_the_slow_nic(cli, write_json):
    path = write_json(with_nics(SLOW_ONE))
    code, out, err = cli("nodes", path)
    assert code == 0, err
    assert "Slow NICs: nid004/hsn1 (z " in out and "isolated:rr_two_sided_lat" in out
    assert [l.split()[0] for l in out.splitlines() if l.endswith("SLOW")] == ["nid004/hsn1"]
    assert "rail 1: avg " in out
    code, out, _ = cli("nodes", "--json", path)
    got = json.loads(out)
    assert code == 0 and got["slow_nics"] == ["nid004/hsn1"] and got["slow"] == []
    code, out, _ = cli("nodes", path, "--threshold", "1000")
    assert code == 0 and "Slow NICs: none" in out


def test_cli_without_nics_or_probe_is_refused_in_one_line(cli, write_json):
    code, out, err = cli("nodes", write_json(read("network_run.json")))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "gpcnet-bind" in err and "--node-probe" in err


def test_report_has_the_per_nic_section_and_unchanged_tables(cli, write_json, tmp_path):
    out, plain = tmp_path / "r.html", tmp_path / "p.html"
    assert cli("report", write_json(with_nics(SLOW_ONE)), "-o", out)[0] == 0
    html = out.read_text()
    section = html[html.index('<section id="nics">'):]
    section = section[:section.index("</section>")]
    assert 'Slow NICs: <strong class="slow">nid004/hsn1</strong>' in section
    assert section.count("<tr>") == 1 + 2 + 1 + 12  # rails' header and 2 rails, NICs' and 12
    assert cli("report", write_json(read("network_run.json"), "plain.json"), "-o", plain)[0] == 0
    plain_html = plain.read_text()
    assert 'id="nics"' not in plain_html
    # The published tables are the same with or without the per-NIC member.
    results = [h[h.index('<section id="results">'):] for h in (html, plain_html)]
    results = [h[:h.index("</section>")] for h in results]
    assert results[0] == results[1]
