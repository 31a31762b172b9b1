"""The per-node view of the probe (gpcnet.analysis.nodes, docs/method.md#naming-a-slow-node):
the modified z-score on synthetic data, the flagging rule (z above 3.5 and
1.5 times the median node, slow side only, at least 4 nodes), and the
`gpcnet nodes` and `gpcnet report` outputs that name the flagged node."""
import json

import numpy as np
import pytest

from conftest import read
from gpcnet.analysis import nodes
from gpcnet.results_json import load
def with_probe(values, names=None, rounds=5):
    """network_run.json with a probe whose nodes have these medians."""
    doc = read("network_run.json")
    n = len(values)
    doc["node_probe"] = {
        "rounds": rounds, "exchanges": 4, "bytes": 131072, "wall_s": 0.25,
        "nodes": [{"node": i, "name": (names or [f"nid{i:03d}" for i in range(n)])[i],
                   "usec": v, "partners": [None] * rounds,
                   "round_usec": [v] * rounds} for i, v in enumerate(values)]}
    return doc


def test_modified_z_score_of_known_values():
    # median 3, absolute deviations 2, 1, 0, 1, 9: MAD 1, z = 0.6745 (x - 3).
    z = nodes.robust_z([1, 2, 3, 4, 12])
    assert z == pytest.approx(0.6745 * np.array([-2, -1, 0, 1, 9]))
    # MAD 0 (more than half equal): the mean absolute deviation 1.8 stands in.
    assert nodes.robust_z([1, 2, 2, 2, 10])[-1] == pytest.approx(8 / (1.253314 * 1.8))
    assert list(nodes.robust_z([7.0] * 5)) == [0.0] * 5
    assert nodes.robust_z([]).size == 0


def test_the_outlier_does_not_move_median_or_mad():
    base = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8]
    for slow in (150.0, 1e4, 1e7):
        z = nodes.robust_z(base + [slow])
        assert z[:-1] == pytest.approx(nodes.robust_z(base + [150.0])[:-1])
        assert z[-1] > nodes.THRESHOLD


def test_the_slow_node_is_flagged_and_only_it():
    rng = np.random.default_rng(3)
    values = list(100 + rng.normal(0, 3, 15))
    values[11] = 400.0
    doc = with_probe(values)
    slow = nodes.slow_nodes(doc)
    assert [s["name"] for s in slow] == ["nid011"]
    assert slow[0]["z"] > nodes.THRESHOLD
    rows = nodes.assess(doc)
    assert [r["node"] for r in rows] == list(range(15))
    assert sum(r["slow"] for r in rows) == 1


def test_two_slow_nodes_worst_first():
    doc = with_probe([50, 51, 49, 50, 52, 48, 200, 50, 500])
    assert [s["name"] for s in nodes.slow_nodes(doc)] == ["nid008", "nid006"]


def test_fast_outliers_and_small_spreads_are_not_flagged():
    # A fast node is not a culprit.
    assert nodes.slow_nodes(with_probe([100, 101, 99, 100, 100.5, 10])) == []
    # Nodes that agree to within timer noise: the tiny MAD makes z large,
    # but 30 % over the median is under the 1.5x floor.
    doc = with_probe([100.0, 100.01, 99.99, 100.0, 100.02, 130.0])
    assert max(r["z"] for r in nodes.assess(doc)) > nodes.THRESHOLD
    assert nodes.slow_nodes(doc) == []
    # Everything equal: no z, no flag.
    assert nodes.slow_nodes(with_probe([80.0] * 6)) == []


def test_too_few_nodes_flag_nothing():
    assert nodes.slow_nodes(with_probe([10.0, 10.0, 1000.0])) == []
    assert [s["node"] for s in nodes.slow_nodes(with_probe([10.0, 10.5, 9.5, 1000.0]))] == [3]


def test_threshold_is_a_parameter():
    doc = with_probe([100, 110, 90, 105, 95, 100, 160])  # z of the last: 0.6745 * 60 / 5
    z = nodes.assess(doc)[-1]["z"]
    assert z == pytest.approx(0.6745 * 12)
    assert nodes.slow_nodes(doc, threshold=z + 0.1) == []
    assert [s["node"] for s in nodes.slow_nodes(doc, threshold=z - 0.1)] == [6]


def test_a_node_without_rounds_is_shown_not_scored():
    doc = with_probe([10.0, 10.5, 9.5, 10.2, 100.0])
    doc["node_probe"]["nodes"][0]["usec"] = None
    rows = nodes.assess(doc)
    assert rows[0]["z"] is None and not rows[0]["slow"]
    assert [s["node"] for s in nodes.slow_nodes(doc)] == [4]


def test_synthetic_probe_document_is_valid(write_json):
    doc = with_probe([10.0, 11.0, 9.0, 10.0, 50.0])
    doc["node_probe"]["nodes"][1]["round_usec"][2] = None
    load.load(write_json(doc))  # schema check


def test_cli_names_the_slow_node(cli, write_json):
    path = write_json(with_probe([20.0, 21.0, 19.5, 20.5, 19.0, 90.0]))
    code, out, err = cli("nodes", path)
    assert code == 0, err
    assert "Slow nodes: nid005 (z " in out
    assert [l.split()[0] for l in out.splitlines() if l.endswith("SLOW")] == ["nid005"]
    code, out, _ = cli("nodes", "--json", path)
    got = json.loads(out)
    assert code == 0 and got["slow"] == ["nid005"] and got["threshold"] == nodes.THRESHOLD
    code, out, _ = cli("nodes", path, "--threshold", "1000")
    assert code == 0 and "Slow nodes: none" in out


def test_cli_refuses_a_document_without_probe_and_a_bad_threshold(cli, write_json):
    code, out, err = cli("nodes", write_json(read("network_run.json")))
    assert code == 2 and out == "" and "--node-probe" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli("nodes", write_json(with_probe([1.0] * 4)), "--threshold", "0")
    assert code == 2 and "--threshold" in err


def test_report_has_the_per_node_section(cli, write_json, tmp_path):
    out = tmp_path / "r.html"
    assert cli("report", write_json(with_probe([20.0, 21.0, 19.5, 20.5, 19.0, 90.0])),
               "-o", out)[0] == 0
    html = out.read_text()
    section = html[html.index('<section id="nodes">'):]
    section = section[:section.index("</section>")]
    assert 'Slow nodes: <strong class="slow">nid005</strong>' in section
    assert section.count("<tr>") == 7  # header and 6 nodes
    # Without a probe, no section.
    assert cli("report", write_json(read("network_run.json"), "plain.json"), "-o",
               tmp_path / "p.html")[0] == 0
    assert 'id="nodes"' not in (tmp_path / "p.html").read_text()
