"""The suite on a 10-host testbed, no --emulate-nodes: the nodes are the
testbed's hosts (own names, own namespaces), MPI goes over the data fabric,
and the port counters see the traffic."""
import pytest

from conftest import QUICK, binary, gpcnet, load, make_testbed

star10 = make_testbed("--topology", "star", "--hosts", "10")
HOSTS = [f"node{i:02d}" for i in range(1, 11)]
ISOLATED = ["RR Two-sided Lat (8 B)", "RR Get Lat (8 B)", "RR Two-sided BW (131072 B)",
            "RR Put BW (131072 B)", "RR Two-sided BW+Sync (131072 B)", "Nat Two-sided BW (131072 B)",
            "Multiple Allreduce (8 B)", "Multiple Alltoall (4096 B)"]


@pytest.mark.parametrize("ppn", [1, 2])
def test_network_test_across_hosts(star10, tmp_path, ppn):
    counters = tmp_path / "counters.json"
    p = gpcnet("testbed", "run", "--ppn", ppn, "--timeout", 240, "--counters", counters, "--",
               binary("network_test"), *QUICK, "--output-dir", tmp_path, timeout=300)
    assert f"Test with {10 * ppn} MPI ranks (10 nodes)" in p.stdout
    assert "nodes = shared-memory hosts" in p.stdout
    for name in ISOLATED:               # every table row printed
        assert f"| {name:>31} |" in p.stdout, name
    doc = load(tmp_path / "network_test.json")
    env = doc["environment"]
    assert (env["ranks"], env["nodes"], env["hosts"]) == (10 * ppn, 10, 10)
    assert (env["ppn_min"], env["ppn_max"]) == (ppn, ppn)
    assert env["hostname"] in HOSTS          # rank 0 runs on a testbed host
    assert doc["status"] == "complete"
    # The traffic went through the switch ports of the data fabric.
    delta = load(counters)["delta"]["ports"]
    edge = [v for k, v in delta.items() if v["tier"] == "edge"]
    assert len(edge) == 10 and all(v["bytes"] > 100_000 for v in edge), edge


def test_load_test_names_testbed_hosts(star10, tmp_path):
    p = gpcnet("testbed", "run", "--timeout", 240, "--", binary("network_load_test"), *QUICK,
               "--tests", "rr_two_sided_lat", "--congestor-measurements", "2",
               "--congestor-iterations", "2", "--seed", "3", "--output-dir", tmp_path, timeout=300)
    assert "Network Tests running with Congestion Tests - Key Results" in p.stdout
    doc = load(tmp_path / "network_load_test.json")
    pl = doc["placement"]
    assert sorted(pl["all_nodes"]) == HOSTS
    assert len(pl["canary_nodes"]) == 2 and set(pl["canary_nodes"]) <= set(HOSTS)
    listed = (tmp_path / "allnodes_congestion.dat").read_text().split()
    assert sorted(listed) == HOSTS


def test_hostfile_status_and_draw(star10, tmp_path):
    hostfile = gpcnet("testbed", "hostfile", "--slots", "2").stdout
    assert hostfile.splitlines() == [f"{h} slots=2" for h in HOSTS]
    st = gpcnet("testbed", "status", "--json", tmp_path / "s.json").stdout
    assert st.startswith("star: 10 hosts, host links 1gbit")
    assert "star/d10" in st and "drops" in st and "overlimits" in st
    ports = load(tmp_path / "s.json")["ports"]
    assert len([k for k in ports if k.startswith("star/")]) == 10
    assert {"bytes", "packets", "drops", "backlog", "overlimits"} <= set(ports["star/d1"])
    gpcnet("testbed", "draw", "-o", tmp_path / "t.svg")
    svg = (tmp_path / "t.svg").read_text()
    assert svg.startswith("<?xml") and "node10" in svg and "198.19.0.10" in svg
