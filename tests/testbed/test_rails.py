"""The rail testbed up, run and down (docs/testbed.md#rails): 4 hosts with 2
data NICs each, NIC i on the leaf of rail i, one spine. Traffic to NIC i of
another host leaves by this host's NIC i and stays on rail i; traffic sent
from NIC i's address to another rail crosses the spine; a job under Open
MPI and under MPICH moves its bytes on the NIC its ranks are given (by
hand here: OMPI_MCA_btl_tcp_if_include, FI_TCP_IFACE); status counts per
rail; down leaves nothing."""
import os
import subprocess
import sys

from conftest import QUICK, STATE_DIR, binary, gpcnet, load, make_testbed, our_mounts, our_namespaces

rail4 = make_testbed("--topology", "rail", "--nics-per-host", "2", "--hosts", "4", "--host-rate", "100mbit")
BYTES = 4_000_000

# A TCP receiver (prints how much it got) and sender, optionally bound to a source address.
SERVE = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5017)); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(65536)
    if not b: break
    n += len(b)
print(n, flush=True)
"""
SEND = """
import socket, sys
c = socket.socket()
if sys.argv[3]: c.bind((sys.argv[3], 0))
c.connect((sys.argv[1], 5017)); c.sendall(b"x" * int(sys.argv[2])); c.close()
"""


def in_host(host, script, *args, **kw):
    return subprocess.Popen(["ip", "netns", "exec", f"gtb-{host}", sys.executable, "-c", script, *args],
                            stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, **kw)


def sample():
    from gpcnet.testbed import counters, launch
    topo = launch.current()
    return topo, counters.sample(topo)


def tcp(dest, source=""):
    """BYTES from node01 to dest (bound to source), node02 receiving; the
    per-port delta of the switches' and NICs' counters."""
    from gpcnet.testbed import counters
    server = in_host("node02", SERVE)
    assert server.stdout.readline().strip() == "ready"
    topo, before = sample()
    sender = in_host("node01", SEND, dest, str(BYTES), source)
    assert sender.wait(timeout=120) == 0
    assert int(server.communicate(timeout=120)[0]) == BYTES
    return counters.delta(before, counters.sample(topo))["ports"]


def sent(ports, key):
    return ports[key]["link_tx_bytes"]


def test_same_rail_stays_on_its_leaf(rail4):
    d = tcp("198.19.1.2")                     # NIC 1 of node02: leaves by node01's NIC 1
    assert sent(d, "node01/data1") > BYTES and sent(d, "node01/data0") < BYTES / 100
    assert d["rail1/d2n1"]["bytes"] > BYTES
    assert sum(p["bytes"] for p in d.values() if p["tier"] in ("uplink", "downlink")) < BYTES / 100


def test_sent_from_nic0_to_rail1_crosses_the_spine(rail4):
    d = tcp("198.19.1.2", "198.19.0.1")
    assert sent(d, "node01/data0") > BYTES and sent(d, "node01/data1") < BYTES / 100
    for port in ("rail0/l0s0", "spine0/s0l1", "rail1/d2n1"):   # rail 0's leaf, spine, rail 1's leaf
        assert d[port]["bytes"] > BYTES, port


def bw_job(tmp_path, name, wrapper="", mpi=(), program=None):
    """One RR Two-sided BW job on the 4 hosts; the per-rail counters."""
    counters = tmp_path / f"{name}.json"
    prog = [str(program or binary("network_test")), "--tests", "rr_two_sided_bw", *QUICK,
            "--output-dir", str(tmp_path / name)]
    cmd = ["sh", "-c", f'{wrapper} exec "$0" "$@"', *prog] if wrapper else prog
    p = gpcnet("testbed", "run", *mpi, "--timeout", 180, "--counters", counters, "--", *cmd, timeout=240)
    assert "Test with 4 MPI ranks (4 nodes)" in p.stdout
    return load(counters)["delta"]


def to_hosts(delta, rail):
    return delta["rails"][str(rail)]["to_hosts_bytes"]


PARITY = 'n=$(( $(hostname | tr -dc 0-9 | sed "s/^0*//") % 2 )); '   # odd hosts NIC 1, even NIC 0


def each_host_sent_by(delta, nic_of):
    """Every host sent its share by the NIC it was given and (almost) nothing by the other."""
    for n in range(1, 5):
        given = nic_of(n)
        by_given = delta["ports"][f"node{n:02d}/data{given}"]["link_tx_bytes"]
        by_other = delta["ports"][f"node{n:02d}/data{1 - given}"]["link_tx_bytes"]
        assert by_given > 5 * BYTES and by_other < by_given / 100, (n, by_given, by_other)


def test_open_mpi_job_on_the_nic_it_is_given(rail4, tmp_path):
    # The testbed's default: every rank on NIC 0 (btl_tcp_if_include 198.19.0.0/24).
    d = bw_job(tmp_path, "nic0")
    assert to_hosts(d, 0) > 10 * BYTES and to_hosts(d, 1) < to_hosts(d, 0) / 100
    d = bw_job(tmp_path, "nic1", "OMPI_MCA_btl_tcp_if_include=data1")
    assert to_hosts(d, 1) > 10 * BYTES and to_hosts(d, 0) < to_hosts(d, 1) / 100
    assert d["spines"]["bytes"] < to_hosts(d, 1) / 100
    # Odd hosts on NIC 1, even on NIC 0: messages between them cross the spine.
    d = bw_job(tmp_path, "mixed", PARITY + "OMPI_MCA_btl_tcp_if_include=data$n")
    assert to_hosts(d, 0) > 5 * BYTES and to_hosts(d, 1) > 5 * BYTES
    assert d["spines"]["bytes"] > (to_hosts(d, 0) + to_hosts(d, 1)) / 5
    each_host_sent_by(d, lambda n: n % 2)


def test_mpich_job_on_the_nic_it_is_given(rail4, mpich_programs, tmp_path):
    prog = mpich_programs / "network_test"
    d = bw_job(tmp_path, "mpich0", mpi=("--mpi", "mpich"), program=prog)   # FI_TCP_IFACE=data0
    assert to_hosts(d, 0) > 10 * BYTES and to_hosts(d, 1) < to_hosts(d, 0) / 100
    d = bw_job(tmp_path, "mpich1", "FI_TCP_IFACE=data1", ("--mpi", "mpich"), prog)
    assert to_hosts(d, 1) > 10 * BYTES and to_hosts(d, 0) < to_hosts(d, 1) / 100
    d = bw_job(tmp_path, "mpich-mixed", PARITY + "FI_TCP_IFACE=data$n", ("--mpi", "mpich"), prog)
    assert d["spines"]["bytes"] > (to_hosts(d, 0) + to_hosts(d, 1)) / 5
    each_host_sent_by(d, lambda n: n % 2)


def test_status_counts_per_rail(rail4, tmp_path):
    out = gpcnet("testbed", "status", "--json", tmp_path / "s.json").stdout
    assert out.startswith("rail: 4 hosts, host links 100mbit, uplinks 400mbit x 1 per leaf")
    assert "rail1/d4n1" in out and "spine0/s0l1" in out and "per rail (NIC i of every host" in out
    doc = load(tmp_path / "s.json")
    assert set(doc["rails"]) == {"0", "1"} and doc["topology"]["nics_per_host"] == 2
    assert doc["ports"]["rail1/d4n1"]["rail"] == 1


def test_bad_placement_refused_before_the_job(rail4, tmp_path):
    marker = tmp_path / "ran"
    p = gpcnet("testbed", "run", "--placement", "diagonal", "--", "touch", marker, check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "--placement 'diagonal': expected one of same-rail, cross-rail" in p.stderr
    assert not marker.exists()


def test_down_leaves_nothing(clean):
    gpcnet("testbed", "up", "--topology", "rail", "--nics-per-host", "3", "--hosts", "3",
           "--hosts-per-leaf", "1", "--spines", "2")
    assert len(our_namespaces()) == 5
    gpcnet("testbed", "run", "--placement", "cross-rail", "--timeout", 60, "--", "true")
    assert "removed 5 namespaces" in gpcnet("testbed", "down").stdout
    assert our_namespaces() == [] and our_mounts() == [] and not STATE_DIR.exists()
    names = set(os.listdir("/sys/class/net"))
    assert not names & {"mgmt", "rail0g0", "rail2g2", "spine1", "d1n0", "d3n2", "l8s1", "s1l8"}
