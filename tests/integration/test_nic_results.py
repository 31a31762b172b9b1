"""Per-NIC results on emulated nodes (docs/results-json.md#nics): ranks
started through gpcnet-bind with two of this host's interfaces record
their NIC, and the canaries' Avg and 99% come per rail and per (node,
NIC) beside the unchanged tables; with --node-probe every NIC is probed
and `gpcnet nodes` names the NIC whose rank is delayed. Without
gpcnet-bind nothing is added; a NIC the host lacks is refused before
anything is measured."""
import json
import subprocess
import sys

import pytest

from gpcnet.binding import nic_bind
from test_node_probe import SLOW, gpcnet_nodes

NODES, PPN = 4, 2
TESTS = "rr_two_sided_lat,multiple_allreduce"


def two_nics():
    have = nic_bind.host_netdevs()
    if not have:
        pytest.skip("this host has no network interface besides lo")
    return ["lo", have[0]]


def bound_run(harness, out, program, np, nics, *args):
    cmd = harness.launcher(np) + [sys.executable, "-m", "gpcnet.bind_cli", "--nics", ",".join(nics),
                                  "--", harness.built(program), *map(str, args),
                                  "--output-dir", str(out)]
    env = harness.mpi_env({"PYTHONPATH": str(harness.REPO / "python")})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p, harness.load_json(out / f"{program}.json")


@pytest.fixture(scope="module")
def bound(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("nics")
    nics = two_nics()
    p, doc = bound_run(harness, out, "network_test", NODES * PPN, nics, "--emulate-nodes", PPN,
                       "--tests", TESTS, *harness.QUICK)
    return nics, p, doc


def test_every_rank_records_its_nic_round_robin(bound):
    nics, _, doc = bound
    rec = doc["nics"]
    assert rec["source"] == "GPCNET_NIC" and rec["rails"] == 2
    assert len(rec["nodes"]) == NODES
    for node in rec["nodes"]:
        assert node["nics"] == nics and node["rails"] == [0, 1]
    assert len({n["node"] for n in rec["nodes"]}) == NODES


def test_per_rail_and_per_nic_results_add_up_to_the_table_row(bound):
    nics, _, doc = bound
    rows = {r["test"]: r for t in doc["tables"] for r in t["rows"]}
    entries = doc["nics"]["canaries"]
    assert [e["test"] for e in entries] == TESTS.split(",")
    for e in entries:
        row = rows[e["test"]]
        assert e["table"] == "isolated" and e["better"] == row["better"]
        assert [r["rail"] for r in e["rails"]] == [0, 1]
        # Every rank measures as many bulk values: the row's Avg is the mean
        # of the rails' (each NODES ranks), and every sample is in one rail.
        assert all(r["ranks"] == NODES for r in e["rails"])
        assert sum(r["samples"] for r in e["rails"]) == row["samples"]
        assert sum(r["avg"] for r in e["rails"]) / 2 == pytest.approx(row["avg"], rel=1e-9)
        # The row's histogram is the rails' together, so its 99% is not
        # below both rails' (it may be above both: the row takes sample
        # floor(0.99 N) of all N, deeper than the rails' two added up).
        assert row["p99"] >= min(r["p99"] for r in e["rails"]) * (1 - 1e-3)
        assert len(e["nics"]) == NODES * 2
        for rail in (0, 1):
            mine = [n for n in e["nics"] if n["rail"] == rail]
            assert {n["nic"] for n in mine} == {nics[rail]} and all(n["ranks"] == 1 for n in mine)
            assert sum(n["samples"] for n in mine) == e["rails"][rail]["samples"]
            assert sum(n["avg"] for n in mine) / NODES == pytest.approx(e["rails"][rail]["avg"],
                                                                       rel=1e-9)


def test_the_document_passes_the_schema(bound, harness):
    validate = harness.schema_validator()
    if validate is None:
        pytest.skip("gpcnet package not installed")
    validate(bound[2])


def test_without_gpcnet_bind_nothing_is_added(harness, tmp_path):
    p = harness.run(NODES * PPN, "network_test", "--emulate-nodes", PPN, "--tests", TESTS,
                    *harness.QUICK, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "nics" not in harness.load_json(tmp_path / "network_test.json")


def test_the_load_test_has_per_nic_canaries_in_both_tables(harness, tmp_path):
    nics = two_nics()
    _, doc = bound_run(harness, tmp_path, "network_load_test", 10 * 2, nics, "--emulate-nodes", 2,
                       "--tests", "rr_two_sided_lat", "--seed", "7", *harness.QUICK,
                       *harness.QUICK_CONGESTORS)
    entries = doc["nics"]["canaries"]
    assert [e["table"] for e in entries] == ["isolated", "loaded"]
    canary_nodes = set(doc["placement"]["canary_nodes"])
    for e in entries:
        # Only canary nodes measured: the congestors' ranks add nothing.
        assert {n["node"] for n in e["nics"]} == canary_nodes
        assert sum(r["samples"] for r in e["rails"]) == next(
            r["samples"] for t in doc["tables"] if t["id"] == e["table"] for r in t["rows"])


def test_a_nic_the_host_lacks_is_refused_before_measuring(harness, tmp_path):
    p = harness.run(4, "network_test", "--emulate-nodes", 2, "--tests", "rr_two_sided_lat",
                    *harness.QUICK, "--output-dir", tmp_path,
                    env={"GPCNET_NIC": "gpcnet-none0", "GPCNET_NIC_INDEX": "0"})
    assert p.returncode != 0
    lines = [l for l in p.stderr.splitlines() if "gpcnet-none0" in l]
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("network_test: rank 0 on host ")
    assert "is not a NIC of this host" in lines[0]
    assert not (tmp_path / "network_test.json").exists()
    assert "Isolated Network Tests" not in p.stdout


def test_the_nic_probe_names_the_slow_nic(harness, tmp_path, slow_send_shim):
    # 6 nodes of 2 ranks, NIC 1 of node 4 is rank 9's: its sends delayed.
    nics = two_nics()
    env = {**harness.preload_env(slow_send_shim), "GPCNET_SLOW_RANK": "9", **SLOW}
    cmd = harness.launcher(12) + [sys.executable, "-m", "gpcnet.bind_cli", "--nics", ",".join(nics),
                                  "--", harness.built("network_test"), "--emulate-nodes", "2",
                                  "--tests", "rr_two_sided_lat", *harness.QUICK, "--node-probe", "5",
                                  "--output-dir", str(tmp_path)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                       env=harness.mpi_env({**env, "PYTHONPATH": str(harness.REPO / "python")}))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    path = tmp_path / "network_test.json"
    doc = harness.load_json(path)
    probe = doc["nics"]["probe"]
    assert probe["rounds"] == 5 and len(probe["nics"]) == 12
    assert [(n["nic"], n["rail"]) for n in probe["nics"][:2]] == [(nics[0], 0), (nics[1], 1)]
    slow = f"{doc['nics']['nodes'][4]['node']}/{nics[1]}"
    got = json.loads(gpcnet_nodes(["--json", path]))
    assert got["slow_nics"][:1] == [slow], got["slow_nics"]
    assert f"Slow NICs: {slow} (z " in gpcnet_nodes([path])
