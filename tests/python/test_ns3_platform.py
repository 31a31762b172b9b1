"""platforms/ns3_platform.py writes platforms SimGrid's ns-3 model accepts:
explicit hosts, routers, links and one symmetrical one-hop route per cable,
every host reachable from every other (both ways), the fat-tree's uplinks
carrying 1/taper of what the hosts below a leaf inject; bad arguments are
one line on stderr, exit 2, nothing written."""
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict, deque
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "platforms" / "ns3_platform.py"


def generate(tmp_path, *args):
    out = tmp_path / "p.xml"
    hosts = tmp_path / "hosts.txt"
    p = subprocess.run([sys.executable, str(SCRIPT), *args, "-o", str(out), "--hostfile", str(hosts)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return ET.parse(out).getroot(), hosts.read_text().split()


def graph(root):
    zone = root.find("zone")
    assert zone.get("routing") == "Floyd" and root.find(".//cluster") is None
    hosts = [h.get("id") for h in zone.findall("host")]
    routers = {r.get("id") for r in zone.findall("router")}
    links = {lk.get("id"): float(lk.get("bandwidth").removesuffix("Bps")) for lk in zone.findall("link")}
    adjacent = defaultdict(set)
    cables = []
    for route in zone.findall("route"):
        ctn = route.findall("link_ctn")
        assert len(ctn) == 1, "ns-3 only uses one-hop routes"
        assert route.get("symmetrical", "YES") == "YES"  # one cable carries both ways
        a, b = route.get("src"), route.get("dst")
        assert {a, b} <= set(hosts) | routers and a != b
        adjacent[a].add(b)
        adjacent[b].add(a)
        cables.append((a, b, links[ctn[0].get("id")]))
    assert len(cables) == len(links), "every link is one cable"
    return hosts, routers, adjacent, cables


def reachable(adjacent, start):
    seen, todo = {start}, deque([start])
    while todo:
        for n in adjacent[todo.popleft()] - seen:
            seen.add(n)
            todo.append(n)
    return seen


def check_connected(hosts, adjacent):
    for h in hosts:
        assert len(adjacent[h]) == 1, f"{h} has one cable"
        assert set(hosts) <= reachable(adjacent, h)


def test_star(tmp_path):
    root, listed = generate(tmp_path, "star", "--hosts", "5")
    hosts, routers, adjacent, cables = graph(root)
    assert hosts == listed == [f"node-{i}" for i in range(5)] and routers == {"switch"}
    check_connected(hosts, adjacent)
    assert len(cables) == 5


@pytest.mark.parametrize("taper", ["1", "4", "2.5"])
def test_fat_tree_taper(tmp_path, taper):
    root, listed = generate(tmp_path, "fat-tree", "--leaves", "3", "--hosts-per-leaf", "4",
                            "--spines", "2", "--taper", taper, "--bw", "10GBps")
    hosts, routers, adjacent, cables = graph(root)
    assert hosts == listed and len(hosts) == 12 and len(routers) == 5
    check_connected(hosts, adjacent)
    for leaf in (r for r in routers if r.startswith("leaf-")):
        down = sum(bw for a, b, bw in cables if leaf in (a, b) and (a + b).count("node-"))
        up = sum(bw for a, b, bw in cables if leaf in (a, b) and (a + b).count("spine-"))
        assert down == pytest.approx(4 * 10e9)
        assert down / up == pytest.approx(float(taper), rel=1e-6)


def test_dragonfly(tmp_path):
    root, _ = generate(tmp_path, "dragonfly", "--groups", "4", "--routers", "3",
                       "--hosts-per-router", "2")
    hosts, routers, adjacent, cables = graph(root)
    assert len(hosts) == 24 and len(routers) == 12
    check_connected(hosts, adjacent)
    global_cables = [(a, b) for a, b, _ in cables
                     if a.startswith("g") and b.startswith("g") and a.split("-")[0] != b.split("-")[0]]
    pairs = {frozenset((a.split("-")[0], b.split("-")[0])) for a, b in global_cables}
    assert len(global_cables) == len(pairs) == 6  # one cable per pair of groups


@pytest.mark.parametrize("args", [
    ["star", "--hosts", "0"],
    ["fat-tree", "--leaves", "2", "--hosts-per-leaf", "4", "--taper", "0.5"],
    ["fat-tree", "--leaves", "2", "--hosts-per-leaf", "4", "--bw", "fast"],
    ["dragonfly", "--groups", "5", "--routers", "2", "--hosts-per-router", "1"],
    ["torus", "--hosts", "4"],
])
def test_bad_arguments_one_line_exit_2(tmp_path, args):
    out = tmp_path / "p.xml"
    p = subprocess.run([sys.executable, str(SCRIPT), *args, "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("ns3_platform.py: ")
    assert not out.exists()


def test_refuses_existing_file_and_symlink(tmp_path):
    out = tmp_path / "p.xml"
    out.write_text("mine")
    p = subprocess.run([sys.executable, str(SCRIPT), "star", "--hosts", "2", "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and out.read_text() == "mine"
    link = tmp_path / "l.xml"
    link.symlink_to(out)
    p = subprocess.run([sys.executable, str(SCRIPT), "star", "--hosts", "2", "-o", str(link),
                        "--force"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and out.read_text() == "mine"


SMPIRUN_SH = REPO / "scripts" / "smpirun.sh"


def smpirun_sh(tmp_path, *args):
    """What scripts/smpirun.sh hands to smpirun (a fake one that prints its
    arguments and the ns-3 attribute defaults it got)."""
    fake = tmp_path / "smpirun"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\necho "NS=${NS_ATTRIBUTE_DEFAULT:-}"\n')
    fake.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "SMPIRUN": str(fake)}
    return subprocess.run(["bash", str(SMPIRUN_SH), *args], capture_output=True, text=True,
                          timeout=60, env=env)


def test_smpirun_sh_flow_model_is_the_default_and_unchanged(tmp_path):
    default = smpirun_sh(tmp_path, "-np", "2", "prog")
    flow = smpirun_sh(tmp_path, "--model", "flow", "-np", "2", "prog")
    assert default.returncode == flow.returncode == 0
    assert default.stdout == flow.stdout
    assert "network/model" not in default.stdout and "NS=\n" in default.stdout


def test_smpirun_sh_model_ns3(tmp_path):
    p = smpirun_sh(tmp_path, "--model", "ns-3", "-np", "2", "prog")
    args = p.stdout.splitlines()
    assert p.returncode == 0 and "--cfg=network/model:ns-3" in args
    assert args.index("--cfg=network/model:ns-3") < args.index("-np")
    # A send buffer above the message of the abort (131088 bytes, a 128 KiB test message).
    size = int(args[-1].split("ns3::TcpSocket::SndBufSize=")[1])
    assert size > 131088


@pytest.mark.parametrize("args", [["--model", "packet"], ["--model"]])
def test_smpirun_sh_bad_model_one_line_exit_2(tmp_path, args):
    p = smpirun_sh(tmp_path, *args)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "--model must be flow or ns-3" in p.stderr
