"""The shapes behind one interface (gpcnet.testbed.shapes), no root
needed: each registered shape's description, its forwarding, and a new
shape added as one module plus one registry line in a copy of the tree,
read by planning, drawing, counters, `status` and the study's tiles."""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpcnet.testbed import shapes, topology
from gpcnet.testbed.shapes.base import Forwarding, Layout, Shape

pytestmark = pytest.mark.no_root_needed

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", shapes.names())
def test_every_registered_shape_implements_the_interface(name):
    shape = shapes.get(name)
    assert isinstance(shape, Shape) and shape.name == name and shape.help.startswith(f"{name}: ")
    nics = 2 if name == "rail" else 1
    lay = shape.layout(8, nics, 4 if name != "star" else 0, 2, 1.0, 10**8)
    assert isinstance(lay, Layout) and lay.leaves
    t = topology.build(name, 8, hosts_per_leaf=4 if name != "star" else 0, spines=2, nics_per_host=nics)
    assert isinstance(shape.forwarding(t), Forwarding)
    assert set(shape.leaf_positions(t, {h.name: i for i, h in enumerate(t.hosts)})) == set(lay.leaves)


def test_the_topology_list_is_the_registry():
    assert topology.TOPOLOGIES == tuple(shapes.SHAPES) == ("star", "fat-tree", "rail", "fat-tree3")
    with pytest.raises(topology.GpcnetError, match=r"unknown topology 'ring' \(known: star, fat-tree, rail, fat-tree3\)"):
        topology.build("ring", 4)
    with pytest.raises(topology.GpcnetError, match=r"unknown topology 'ring' \(known: star, fat-tree, rail, fat-tree3\)"):
        shapes.get("ring")      # a state file's kind that this version has no module for


def test_two_level_forwarding_is_d_mod_k():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2)
    fwd = shapes.get("fat-tree").forwarding(t)
    # Up-links learn nothing and flood only through spine0; down-links flood.
    assert fwd.ports == {"l0s0": 1, "s0l0": 1, "l0s1": 0, "s1l0": 1,
                         "l1s0": 1, "s0l1": 1, "l1s1": 0, "s1l1": 1}
    by_mac = {}
    for port, mac in fwd.entries:
        by_mac.setdefault(mac, []).append(port)
    # node01 (leaf0) is reached by spine0 from leaf1, node02 by spine1; every spine sends down.
    assert by_mac[t.hosts[0].mac] == ["d1", "s0l0", "s1l0", "l1s0"]
    assert by_mac[t.hosts[1].mac] == ["d2", "s0l0", "s1l0", "l1s1"]
    assert by_mac[t.hosts[2].mac] == ["d3", "s0l1", "s1l1", "l0s0"]


def test_star_learns():
    t = topology.build("star", 4)
    assert shapes.get("star").forwarding(t) == Forwarding()


LINE = '''\
"""line: two switches in a row, half the hosts on each, one link between them."""

from gpcnet.testbed.shapes.base import Layout, Shape, Trunk, check_taper


class Line(Shape):
    name = "line"
    help = "line: two switches joined by one link, half the hosts on each."

    def layout(self, hosts, nics, hosts_per_leaf, spines, taper, rate):
        check_taper(taper, rate)
        half = (hosts + 1) // 2
        return Layout(leaves=["sw0", "sw1"], spines=[], hosts_per_leaf=half,
                      nic_leaf=lambda group, i: ("sw0", "sw1")[group],
                      host_ports=half * nics, uplinks=1,
                      trunks=[Trunk("sw0", "sw1", "sw0sw1", "sw1sw0")])


SHAPE = Line()
'''

CONSUMERS = '''\
import json, sys
from gpcnet.study.sources import testbed as testbed_tiles
from gpcnet.testbed import cli, counters, shapes, topology
t = topology.build("line", 5, host_rate="100mbit", taper=2)
back = topology.Topology.from_dict(json.loads(json.dumps(t.to_dict())))
print(json.dumps({
    "same": back == t,
    "switches": t.switches, "leaves": [h.leaf for h in t.hosts],
    "trunks": [(l.a.switch, l.a.ifname, l.b.switch, l.b.ifname, l.a.rate) for l in t.links
               if l.a.tier == "uplink"],
    "forwarding": [shapes.get("line").forwarding(t).ports, shapes.get("line").forwarding(t).entries],
    "ntiles": counters.network_tiles(t, ["node01"]),
    "ptiles": testbed_tiles.processor_tiles(t, ["node05"]),
    "up": cli._up_shape(t), "status": cli._status_line(t)}))
'''


def _changed(a: Path, b: Path) -> list:
    """Files added, removed or differing between trees a and b."""
    out = []
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    stack = [(cmp, Path())]
    while stack:
        c, rel = stack.pop()
        out += [str(rel / n) for n in c.left_only + c.right_only + c.diff_files + c.funny_files]
        stack += [(sub, rel / name) for name, sub in c.subdirs.items()]
    return sorted(out)


def test_a_new_shape_is_one_module_and_one_registry_line(tmp_path):
    tree = tmp_path / "python"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(REPO / "python", tree, ignore=ignore)
    # what the checkout holds beside its sources (the test venv's editable
    # install writes python/gpcnet.egg-info) is left out of both sides
    base = tmp_path / "base"
    shutil.copytree(REPO / "python", base, ignore=ignore)
    pkg = tree / "gpcnet" / "testbed" / "shapes"
    (pkg / "line.py").write_text(LINE)
    registry = pkg / "__init__.py"
    text = registry.read_text()
    start = text.index("SHAPES = {")
    end = text.index("\n}", start)
    registry.write_text(text[:end] + '\n    "line": "line",' + text[end:])
    assert _changed(base, tree) == ["gpcnet/testbed/shapes/__init__.py",
                                               "gpcnet/testbed/shapes/line.py"]

    env = dict(os.environ, PYTHONPATH=str(tree))

    def run(*argv):
        return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)

    p = run("-c", CONSUMERS)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["same"] and got["switches"] == ["sw0", "sw1"]
    assert got["leaves"] == ["sw0"] * 3 + ["sw1"] * 2
    # 3 host ports of 100 Mbit/s over taper 2 on the one link out of a switch.
    assert got["trunks"] == [["sw0", "sw0sw1", "sw1", "sw1sw0", 150_000_000]]
    assert got["forwarding"] == [{}, []]                      # no loop: learning bridges
    assert got["ntiles"] == {"sw1/sw1sw0": {"router": "sw0"}}
    assert got["ptiles"] == {"sw1/d5": {"router": "sw1", "node": "node05"}}
    assert got["up"] == "2 switches"
    assert got["status"] == ("line: 5 hosts, host links 100mbit, uplinks 150mbit x 1 per leaf "
                             "(taper 2), queue pfifo 100 pkts, routing static")

    svg = tmp_path / "line.svg"
    p = run("-m", "gpcnet", "testbed", "draw", "--topology", "line", "--hosts", "5",
            "--host-rate", "100mbit", "--output", str(svg))
    assert p.returncode == 0, p.stderr
    drawing = svg.read_text()
    assert "sw0" in drawing and "sw1" in drawing and "node05" in drawing and "gpcnet testbed: line" in drawing

    p = run("-m", "gpcnet", "testbed", "up", "--help")
    assert "star, fat-tree, rail, fat-tree3 or line (default: star)" in " ".join(p.stdout.split())
    assert "line: two switches joined by one link" in " ".join(p.stdout.split())
    p = run("-m", "gpcnet", "testbed", "draw", "--topology", "ring", "--output", str(tmp_path / "r.svg"))
    assert p.returncode != 0 and "known: star, fat-tree, rail, fat-tree3, line" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "r.svg").exists()


def test_a_state_file_of_an_unknown_shape_is_refused_in_one_line(tmp_path):
    # A testbed brought up by a version with a shape this one has no module for.
    doc = topology.build("star", 3).to_dict()
    doc["kind"] = "torus"
    (tmp_path / "state.json").write_text(json.dumps({"status": "up", "owner": None, "topology": doc}))
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), GPCNET_TESTBED_DIR=str(tmp_path))
    out = tmp_path / "t.svg"
    p = subprocess.run([sys.executable, "-m", "gpcnet", "testbed", "draw", "--output", str(out)],
                       capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and not out.exists()
    assert p.stderr.strip().splitlines() == [
        "gpcnet testbed: unknown topology 'torus' (known: star, fat-tree, rail, fat-tree3)"]
