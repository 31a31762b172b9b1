"""--routing on a running testbed (root): an ecmp fat-tree of 4 hosts on
2 leaves and 2 spines routes every pair, hashes flows that differ only in
their TCP source port over both uplinks of a leaf, and says so in status,
the state file and the counters; under static one destination always
takes one spine; a failed ecmp up and a down leave nothing."""
import json
import subprocess
import sys

import pytest

from conftest import STATE_DIR, gpcnet, make_testbed, our_namespaces

SHAPE = ["--topology", "fat-tree", "--hosts", "4", "--hosts-per-leaf", "2", "--spines", "2",
         "--host-rate", "none"]
UPLINKS = ("l0s0", "l0s1")          # leaf0's uplinks, to spine0 and spine1
FLOW_BYTES = 200_000
ecmp_testbed = make_testbed(*SHAPE, "--routing", "ecmp")

# A TCP sink on a host: takes `count` connections, reads each to its end.
SINK = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5001)); s.listen(64); print("ready", flush=True)
for _ in range(int(sys.argv[2])):
    c, _a = s.accept()
    while c.recv(65536):
        pass
    c.close()
"""
# One TCP flow of FLOW_BYTES from a fixed source address and port.
SEND = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.settimeout(20)
s.connect((sys.argv[3], 5001)); s.sendall(b"x" * int(sys.argv[4])); s.close()
"""


def in_ns(ns, *argv, **kw):
    return subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, **kw)


def sink(ns, ip, count):
    p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", SINK, ip, str(count)],
                         stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    assert p.stdout.readline().strip() == "ready"
    return p


def send(src_ns, src_ip, port, dst_ip, nbytes=FLOW_BYTES):
    p = in_ns(src_ns, sys.executable, "-c", SEND, src_ip, str(port), dst_ip, str(nbytes))
    assert p.returncode == 0, f"{src_ip}:{port} -> {dst_ip}: {p.stderr[-500:]}"


def uplink_bytes():
    return {u: int(in_ns("gtb-fabric", "cat", f"/sys/class/net/{u}/statistics/tx_bytes").stdout)
            for u in UPLINKS}


def uplinks_of_flows(ports):
    """Send one flow node01 -> node03 (leaf0 -> leaf1) per source port, one
    after the other; the uplink of leaf0 each went out by (the one that
    carried nearly all its bytes)."""
    k = sink("gtb-node03", "198.19.0.3", len(ports))
    chosen = []
    try:
        for port in ports:
            before = uplink_bytes()
            send("gtb-node01", "198.19.0.1", port, "198.19.0.3")
            grew = {u: n - before[u] for u, n in uplink_bytes().items()}
            busiest = max(grew, key=grew.get)
            assert grew[busiest] >= FLOW_BYTES, grew
            # One flow, one path: the other uplink saw at most stray packets.
            assert sum(grew.values()) - grew[busiest] < FLOW_BYTES // 10, grew
            chosen.append(busiest)
        k.wait(timeout=60)
    finally:
        k.kill()
        k.wait()
    return chosen


def every_pair_reaches_every_other(hosts):
    """A short TCP transfer from every host (namespace, address) to every other."""
    sinks = [sink(ns, ip, len(hosts) - 1) for ns, ip in hosts]
    try:
        for ns, ip in hosts:
            for _dns, dip in hosts:
                if dip != ip:
                    send(ns, ip, 0, dip, 20_000)
        for k in sinks:
            assert k.wait(timeout=60) == 0
    finally:
        for k in sinks:
            k.kill()
            k.wait()


def test_every_pair_reaches_every_other(ecmp_testbed):
    every_pair_reaches_every_other([(f"gtb-node0{n}", f"198.19.0.{n}") for n in range(1, 5)])


def test_flows_differing_only_in_port_take_both_uplinks(ecmp_testbed):
    # 24 flows between one pair of hosts, source ports 41000...: the L4 hash
    # sends all of them one way with probability 2 * 2**-24.
    chosen = uplinks_of_flows(range(41000, 41024))
    assert set(chosen) == set(UPLINKS), chosen


def test_a_cut_uplink_leaves_the_hash_and_clearing_brings_everything_back(ecmp_testbed):
    try:
        gpcnet("testbed", "fault", "link-down", "l0s0")
        assert uplinks_of_flows(range(42000, 42008)) == ["l0s1"] * 8
        gpcnet("testbed", "fault", "link-down", "node03")   # node03's one route on leaf1 goes
    finally:
        gpcnet("testbed", "fault", "clear")
    # Cleared: node03 routed to again (its route and neighbour put back), over both uplinks.
    assert set(uplinks_of_flows(range(43000, 43024))) == set(UPLINKS)


def test_status_state_and_counters_say_ecmp(ecmp_testbed, tmp_path):
    st = json.loads((STATE_DIR / "state.json").read_text())
    assert st["topology"]["routing"] == "ecmp"
    p = gpcnet("testbed", "status", "--json", tmp_path / "c.json")
    assert p.stdout.splitlines()[0].endswith(", routing ecmp")
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["routing"] == "ecmp"
    assert {f"leaf0/{u}" for u in UPLINKS} <= set(doc["ports"])    # still counted per port
    # No route, address or forwarding of the testbed outside its namespaces.
    assert "198.18.128." not in subprocess.run(["ip", "-4", "addr"], capture_output=True,
                                               text=True).stdout
    assert "198.19." not in subprocess.run(["ip", "-4", "route"], capture_output=True,
                                           text=True).stdout


def test_static_sends_one_destination_by_one_spine(clean):
    gpcnet("testbed", "up", *SHAPE, timeout=180)
    assert json.loads((STATE_DIR / "state.json").read_text())["topology"]["routing"] == "static"
    assert gpcnet("testbed", "status").stdout.splitlines()[0].endswith(", routing static")
    # node03 is reached through spine (3-1) mod 2 = 0 whatever the port.
    assert uplinks_of_flows(range(41000, 41008)) == ["l0s0"] * 8


def test_a_failed_ecmp_up_leaves_nothing(clean, monkeypatch, capsys):
    from gpcnet import cli
    from gpcnet.infra.errors import GpcnetError
    from gpcnet.testbed import routing

    def fail(*_a):
        raise GpcnetError("injected: routing could not be set")

    monkeypatch.setattr(routing, "apply", fail)
    assert cli.main(["testbed", "up", *SHAPE, "--routing", "ecmp"]) != 0
    assert "injected" in capsys.readouterr().err
    assert our_namespaces() == [] and not STATE_DIR.exists()
    p = gpcnet("testbed", "down")
    assert p.stdout.strip() == "no testbed was up"


def test_down_leaves_nothing(clean):
    gpcnet("testbed", "up", *SHAPE, "--routing", "ecmp", timeout=180)
    gpcnet("testbed", "down")
    assert our_namespaces() == [] and not STATE_DIR.exists()
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    for name in ("l0s0", "s1l1", "d1:", "d4:", "data0"):
        assert f" {name}" not in links, name
