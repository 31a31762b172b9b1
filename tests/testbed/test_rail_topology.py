"""Hosts with several NICs and the rail topology, on paper (no root
needed): which NIC goes to which leaf, addresses, ports, uplink rates,
the placements' neighbour entries, the drawing, and the refusals of bad
--nics-per-host values (one line, exit 2, before anything is created)."""
import os
import subprocess
import sys

import pytest

from conftest import REPO
from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import rails, topology

pytestmark = pytest.mark.no_root_needed


def test_rail_nic_i_on_the_leaf_of_rail_i():
    t = topology.build("rail", 6, hosts_per_leaf=3, spines=2, taper=3, host_rate="100mbit",
                       nics_per_host=3)
    # Two groups of 3 hosts, one leaf per rail in each group, then the spines.
    assert t.switches == ["rail0g0", "rail1g0", "rail2g0", "rail0g1", "rail1g1", "rail2g1",
                          "spine0", "spine1"]
    h5 = t.hosts[4]
    assert [(n.ifname, n.ip, n.leaf, n.port) for n in h5.nics] == [
        ("data0", "198.19.0.5", "rail0g1", "d5n0"), ("data1", "198.19.1.5", "rail1g1", "d5n1"),
        ("data2", "198.19.2.5", "rail2g1", "d5n2")]
    assert len({n.mac for h in t.hosts for n in h.nics}) == 18
    # A rail leaf has one port per host of its group: 3 x 100 Mbit/s / taper 3 over 2 spines.
    assert t.params["uplink_rate"] == 50_000_000 and t.params["nics_per_host"] == 3
    edges = [l.b for l in t.links if l.b.tier == "edge"]
    assert len(edges) == 18 and {p.rail for p in edges} == {0, 1, 2}
    ups = [l.a for l in t.links if l.a.tier == "uplink"]
    assert [(p.switch, p.rail) for p in ups[:4]] == [("rail0g0", 0), ("rail0g0", 0),
                                                    ("rail1g0", 1), ("rail1g0", 1)]
    # A host's NICs spread over the spines (d-mod-k per NIC).
    assert [t.spine_for(h5, i) for i in range(3)] == ["spine0", "spine1", "spine0"]
    assert topology.Topology.from_dict(t.to_dict()) == t


def test_one_group_by_default_and_fat_tree_with_nics_on_one_leaf():
    t = topology.build("rail", 4, host_rate="100mbit", taper=4, nics_per_host=2)
    assert t.switches == ["rail0", "rail1", "spine0"] and t.params["hosts_per_leaf"] == 4
    assert t.params["uplink_rate"] == 100_000_000        # 4 ports x 100 / 4
    f = topology.build("fat-tree", 8, hosts_per_leaf=4, taper=4, host_rate="100mbit", nics_per_host=2)
    assert all(n.leaf == h.leaf for h in f.hosts for n in h.nics)
    assert f.params["uplink_rate"] == 200_000_000        # 4 hosts x 2 NICs x 100 / 4


def test_one_nic_topologies_unchanged():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2)
    assert [l.b.ifname for l in t.links if l.b.tier == "edge"] == ["d1", "d2", "d3", "d4"]
    assert [(n.ifname, n.ip, n.mac) for n in t.hosts[2].nics] == [("data0", "198.19.0.3",
                                                                   "02:67:74:00:00:03")]
    assert t.hosts[2].mac == "02:67:74:00:00:03" and t.hosts[2].data_ip == "198.19.0.3"


def test_placements_neighbour_entries():
    t = topology.build("rail", 3, nics_per_host=2)
    h1, h2 = t.hosts[0], t.hosts[1]
    same = rails.neighbour_lines(t, h1, "same-rail")
    cross = rails.neighbour_lines(t, h1, "cross-rail")
    # Sent by data0, a message to either address of node02 lands at node02's NIC 0 (same
    # rail) or NIC 1 (the next rail).
    for dest in h2.nics:
        assert f"neigh replace {dest.ip} lladdr {h2.nics[0].mac} dev data0 nud permanent" in same
        assert f"neigh replace {dest.ip} lladdr {h2.nics[1].mac} dev data0 nud permanent" in cross
        assert f"neigh replace {dest.ip} lladdr {h2.nics[0].mac} dev data1 nud permanent" in cross
    assert not any(n.ip in line for line in same for n in h1.nics)   # never its own addresses
    assert rails.neighbour_lines(t, h1, None) == ["neigh flush dev data0 nud all",
                                                  "neigh flush dev data1 nud all"]


def test_placement_refused_where_it_means_nothing():
    with pytest.raises(GpcnetError, match="hosts have one data NIC; bring it up with --nics-per-host"):
        rails.check_placement(topology.build("star", 3), "cross-rail")
    with pytest.raises(GpcnetError, match="expected one of same-rail, cross-rail"):
        rails.check_placement(topology.build("rail", 3, nics_per_host=2), "diagonal")


@pytest.mark.parametrize("args, message", [
    (["--nics-per-host", "0"], "--nics-per-host '0': expected a whole number of data NICs per host, 1 to 8"),
    (["--nics-per-host", "9"], "--nics-per-host '9': expected a whole number"),
    (["--nics-per-host", "two"], "--nics-per-host 'two': expected a whole number"),
    (["--nics-per-host", "1.5"], "--nics-per-host '1.5': expected a whole number"),
    (["--topology", "rail"], "--nics-per-host 1: --topology rail needs 2 to 8 NICs per host"),
    (["--topology", "rail", "--nics-per-host", "2", "--hosts", "4", "--hosts-per-leaf", "3"],
     "--hosts 4 is not divisible by --hosts-per-leaf 3"),
], ids=["zero", "nine", "word", "fraction", "rail-one-nic", "rail-groups"])
def test_bad_nics_refused_in_one_line(args, message):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.run([sys.executable, "-m", "gpcnet", "testbed", "up", *args], capture_output=True,
                       text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert p.stdout == ""


def test_draw_shows_rails(tmp_path):
    from gpcnet.testbed import draw
    t = topology.build("rail", 4, spines=2, taper=2, nics_per_host=3)
    draw.save(t, str(tmp_path / "r.svg"))
    svg = (tmp_path / "r.svg").read_text()
    assert all(f"rail{i}" in svg for i in range(3)) and "spine1" in svg
    assert "3 data NICs per host" in svg and "cabled to rail i" in svg


def test_faults_name_each_nic_by_its_port():
    """A fault on NIC 1 of a host is its own link, not the host's NIC 0 link."""
    from gpcnet.testbed import faults
    t = topology.build("rail", 3, nics_per_host=2)
    name, link = faults._link(t, "d2n1")
    assert (name, link.a.ns, link.a.ifname) == ("d2n1", "gtb-node02", "data1")
    name, link = faults._link(t, "node02")
    assert (name, link.a.ifname) == ("node02", "data0") and faults._link(t, "d2n0")[0] == "node02"
    with pytest.raises(GpcnetError, match="host ports d1n0 to d3n1"):
        faults._link(t, "d9")
