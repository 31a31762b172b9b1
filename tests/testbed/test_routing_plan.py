"""--routing (no root needed): what ecmp plans for the routers, that static
is planned as before, and the shapes ecmp is refused on."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import routing, shapes, topology

pytestmark = pytest.mark.no_root_needed
REPO = Path(__file__).resolve().parents[2]


def test_ecmp_plan_of_a_fat_tree():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2, routing="ecmp")
    assert t.routing == "ecmp" and t.to_dict()["routing"] == "ecmp"
    p = routing.plan(t)
    assert p.tables == {"leaf0": 1000, "leaf1": 1001, "spine0": 1002, "spine1": 1003}
    # Every switch port chooses its switch's table; every host port answers ARP.
    assert dict(p.rules) == {"d1": 1000, "d2": 1000, "d3": 1001, "d4": 1001,
                             "l0s0": 1000, "s0l0": 1002, "l0s1": 1000, "s1l0": 1003,
                             "l1s0": 1001, "s0l1": 1002, "l1s1": 1001, "s1l1": 1003}
    assert p.proxy_arp == ["d1", "d2", "d3", "d4"]
    assert p.addresses[:4] == [("l0s0", "198.18.128.0/31"), ("s0l0", "198.18.128.1/31"),
                               ("l0s1", "198.18.128.2/31"), ("s1l0", "198.18.128.3/31")]
    routes = {(table, dst): hops for table, dst, hops in p.routes}
    # leaf0 reaches node03 (leaf1) over both spines at once: the hash picks.
    assert routes[(1000, "198.19.0.3/32")] == [("198.18.128.1", "l0s0"), ("198.18.128.3", "l0s1")]
    assert routes[(1000, "198.19.0.1/32")] == [(None, "d1")]            # its own host: one port
    assert routes[(1002, "198.19.0.3/32")] == [("198.18.128.4", "s0l1")]  # spine0 down to leaf1
    assert (1001, "198.19.0.3/32") in routes and len(p.routes) == 4 * (1 + 2 + 1)
    assert ("d3", "198.19.0.3", t.hosts[2].mac) in p.neighbours


def test_ecmp_plan_of_a_rail():
    t = topology.build("rail", 4, spines=2, nics_per_host=2, routing="ecmp")
    routes = {(table, dst): hops for table, dst, hops in routing.plan(t).routes}
    # rail0 reaches NIC 1 of node02 (on rail1) up through both spines.
    assert [port for _gw, port in routes[(1000, "198.19.1.2/32")]] == ["l0s0", "l0s1"]
    assert routes[(1000, "198.19.0.2/32")] == [(None, "d2n0")]


def test_static_is_the_default_and_plans_as_before():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2)
    assert t.routing == "static"
    e = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2, routing="ecmp")
    # Only the routing differs: the same hosts, switches, links and queues.
    assert {**e.to_dict(), "routing": "static"} == t.to_dict()
    assert topology.Topology.from_dict(e.to_dict()) == e
    # A state file of a version without --routing reads as static.
    old = {k: v for k, v in t.to_dict().items() if k != "routing"}
    assert topology.Topology.from_dict(old).routing == "static"
    assert shapes.get("fat-tree").forwarding(t).entries       # still d-mod-k entries


@pytest.mark.parametrize("shape,args,where", [
    ("star", {}, "a star"),
    ("fat-tree", {"hosts_per_leaf": 2, "spines": 1}, "a fat-tree with one spine"),
    ("rail", {"nics_per_host": 2, "spines": 1}, "a rail with one spine"),
])
def test_ecmp_refused_where_one_path_exists(shape, args, where):
    with pytest.raises(GpcnetError, match=f"--routing ecmp: {where} has one path between any "
                                          "two hosts; use --topology fat-tree or rail with "
                                          "--spines 2 or more, or --routing static"):
        topology.build(shape, 4, routing="ecmp", **args)


def test_unknown_mode_refused():
    with pytest.raises(GpcnetError, match=r"--routing 'ospf': expected static or ecmp"):
        topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2, routing="ospf")


def up_is_refused(argv, word, tmp_path):
    """`gpcnet testbed up ARGV` refused before root is checked or anything
    is made: exit 2, one line naming `word`, and a state directory of its
    own stays as it was (absent)."""
    state = tmp_path / "state"
    p = subprocess.run([sys.executable, "-m", "gpcnet", "testbed", "up", *argv],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       env=dict(os.environ, PYTHONPATH=str(REPO / "python"),
                                GPCNET_TESTBED_DIR=str(state)))
    assert p.returncode == 2, p.stderr
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert word in p.stderr and "Traceback" not in p.stderr
    assert not state.exists()


@pytest.mark.parametrize("argv", [
    ["--topology", "star", "--hosts", "4", "--routing", "ecmp"],
    ["--topology", "fat-tree", "--hosts", "4", "--hosts-per-leaf", "2", "--spines", "1",
     "--routing", "ecmp"],
    ["--topology", "fat-tree", "--hosts", "4", "--hosts-per-leaf", "2", "--spines", "2",
     "--routing", "ECMP"],
])
def test_up_refuses_in_one_line_exit_2_before_anything(argv, tmp_path):
    up_is_refused(argv, "--routing", tmp_path)


def test_draw_says_the_routing(tmp_path):
    from gpcnet.testbed import draw
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2, routing="ecmp")
    draw.save(t, str(tmp_path / "t.svg"))
    assert "routing ecmp" in (tmp_path / "t.svg").read_text()


def test_a_cut_uplink_is_withdrawn_from_every_leaf():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2, routing="ecmp")
    routes = {(table, dst): hops for table, dst, hops in routing.plan(t, {"l0s0", "s0l0"}).routes}
    # leaf0 goes up by spine1 only; leaf1 reaches leaf0's hosts by spine1 only (spine0 lost
    # leaf0), as a routing protocol would withdraw the path.
    assert [port for _gw, port in routes[(1000, "198.19.0.3/32")]] == ["l0s1"]
    assert [port for _gw, port in routes[(1001, "198.19.0.1/32")]] == ["l1s1"]
    assert (1002, "198.19.0.1/32") not in routes                 # spine0: no way down to leaf0
    assert [port for _gw, port in routes[(1002, "198.19.0.3/32")]] == ["s0l1"]
