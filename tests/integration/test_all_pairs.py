"""network_test --all-pairs (docs/method.md#all-pairs): the N x N node
matrix in the results JSON, the short summary on stdout (80 columns, the
slowest pairs named), the report naming a slow node, a run on one node
refused with one line and exit 2, and nothing added without the option.

One emulated node is made slow by the slow-send preload
(tests/mpi/slow_send_shim.c) on the all-pairs bandwidth messages only, as
a degraded link out of that node would: its row of the matrix (what it
sends) is slow, and the report must name it."""
import math
import re
import subprocess
import sys

import pytest

from mpi_harness import REPO

SOURCE = "src/suite/network_test/all_pairs.c"
# Per send of the slow rank's bandwidth messages: 13 sends a shift, so 5
# shifts cost it about 13 s, while a shift of 64 KiB messages took about a
# millisecond on this host (Open MPI, shared memory). 200 ms as in
# test_node_probe: 50 ms was named under Open MPI, but a clean-clone run
# under MPICH's busy polling on a loaded host named no node.
SLOW_USEC = "200000"
SMALL = ["--all-pairs-bytes", "65536"]


def _tag(name):
    return re.search(rf"#define {name} (\d+)", (REPO / SOURCE).read_text()).group(1)


def gpcnet(*args):
    return subprocess.run([sys.executable, "-m", "gpcnet", *map(str, args)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})


def run_all_pairs(harness, tmp_path, n, env=None):
    p = harness.run(n, "network_test", "--emulate-nodes", "1", *harness.QUICK, "--tests", "rr_two_sided_lat",
                    "--all-pairs", *SMALL, "--output-dir", tmp_path, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    return p, doc


def test_the_matrix_and_its_summary(harness, tmp_path):
    p, doc = run_all_pairs(harness, tmp_path, 5)
    ap = doc["all_pairs"]
    assert ap["matrix"] is True and ap["bytes"] == 65536 and len(ap["nodes"]) == 5
    for key in ("bandwidth_mib_s", "latency_usec"):
        m = ap[key]
        assert len(m) == 5 and all(len(row) == 5 for row in m)
        for i, row in enumerate(m):
            for j, v in enumerate(row):  # every pair measured, the diagonal not
                assert (v is None) == (i == j), (key, i, j, v)
                assert v is None or (v > 0 and math.isfinite(v))
    # The per-node means are the rows' and columns' means.
    bw = ap["bandwidth_mib_s"]
    for i in range(5):
        assert ap["send_mib_s"][i] == pytest.approx(sum(v for v in bw[i] if v is not None) / 4)
        assert ap["recv_mib_s"][i] == pytest.approx(sum(r[i] for r in bw if r[i] is not None) / 4)
    # Every pair is among the 32 slowest kept, slowest first, with its cells.
    pairs = ap["slowest_pairs"]
    assert len(pairs) == 20 and [q["mib_s"] for q in pairs] == sorted(q["mib_s"] for q in pairs)
    for q in pairs:
        assert q["mib_s"] == bw[q["from"]][q["to"]] and q["usec"] == ap["latency_usec"][q["from"]][q["to"]]
    assert doc["phases"][-1]["name"] == "all_pairs"
    assert "] all-pairs: shift 1 of 4 (5 nodes)" in p.stderr  # a progress line, unless --quiet
    block = p.stdout[p.stdout.index("All-pairs matrix: 5 nodes"):].splitlines()
    assert len(block) == 11 and all(len(line) <= 80 for line in block), block
    slowest = pairs[0]
    assert re.search(rf"^    {re.escape(ap['nodes'][slowest['from']])} +-> {re.escape(ap['nodes'][slowest['to']])} ",
                     "\n".join(block), re.M), block


def test_parse_and_table_read_a_run_with_the_matrix(harness, tmp_path):
    # The summary's lines are not a table: `gpcnet parse` gives the same
    # table as the JSON (the matrix stays in the JSON), `gpcnet table`
    # reads the JSON with its all_pairs member.
    p, doc = run_all_pairs(harness, tmp_path, 3)
    text = tmp_path / "out.txt"
    text.write_text(p.stdout)
    parsed = gpcnet("parse", text, "-o", tmp_path / "parsed.json")
    assert parsed.returncode == 0, parsed.stderr
    got = harness.load_json(tmp_path / "parsed.json")
    assert [(t["title"], [r["name"] for r in t["rows"]]) for t in got["tables"]] == \
        [(t["title"], [r["name"] for r in t["rows"]]) for t in doc["tables"]]
    assert "all_pairs" not in got
    table = gpcnet("table", tmp_path / "network_test.json")
    assert table.returncode == 0 and "| network_test | 3 |" in table.stdout, table.stderr


def test_the_report_names_the_slow_node(harness, tmp_path, slow_send_shim):
    env = {**harness.preload_env(slow_send_shim), "GPCNET_SLOW_RANK": "3", "GPCNET_SLOW_USEC": SLOW_USEC,
           "GPCNET_SLOW_TAGS": _tag("TAG_ALL_PAIRS_BW")}
    p, doc = run_all_pairs(harness, tmp_path, 6, env=env)
    slow = doc["all_pairs"]["nodes"][3]
    # Its sends are slow, and so are its receives: the receiver times from
    # the shift's start, and the delayed rank posts its sends first.
    assert all(3 in (q["from"], q["to"]) for q in doc["all_pairs"]["slowest_pairs"][:10])
    assert re.search(rf"^    {re.escape(slow)} +-> ", p.stdout, re.M)
    out = tmp_path / "report.html"
    r = gpcnet("report", tmp_path / "network_test.json", "-o", out)
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    # Named, whatever else the noise of a shared host names beside it.
    named = re.search(r"Hosts behind slow links: (.*?)\.</p>", html).group(1)
    assert f'<strong class="slow">{slow}</strong>' in named, named
    # Named by its row, its column or both: which of them crosses the
    # threshold on a loaded host is chance (its receives are slow too).
    assert re.search(rf"node {re.escape(slow)}: (sends|receives)", html), html[-3000:]


def test_one_node_is_refused_with_one_line(harness, tmp_path):
    p = harness.run(2, "network_test", "--all-pairs", "--output-dir", tmp_path)
    assert p.returncode == 2, p.stderr[-2000:]
    lines = [l for l in p.stderr.splitlines() if l.startswith("network_test:")]
    assert lines == ["network_test: --all-pairs needs at least 2 nodes, found 1 (2 ranks). Run on more "
                     "nodes (one rank per node is enough), or leave --all-pairs out."], p.stderr
    assert "Traceback" not in p.stderr


def test_without_the_option_no_member(harness, tmp_path):
    p = harness.run(3, "network_test", "--emulate-nodes", "1", *harness.QUICK, "--tests", "rr_two_sided_lat",
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    assert "all_pairs" not in doc and "All-pairs" not in p.stdout
    assert all(ph["name"] != "all_pairs" for ph in doc["phases"])
