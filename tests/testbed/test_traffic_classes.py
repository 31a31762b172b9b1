"""Traffic classes on the testbed (docs/testbed.md#traffic-classes): a
scheduler on every switch port, a rank's class chosen at launch by
gpcnet-bind --traffic-class K (a cgroup whose sock_ops program marks its
TCP connections), per-class counters per port, bad input refused before
anything exists, and nothing left after down, even mid-run.

The flows: two plain TCP senders on the hosts of leaf0 (node01 in class
0, node02 in class 1) into a receiver on node03, across leaf0's one
uplink, which the taper makes the bottleneck. Assertions are on the
per-class byte counters of that uplink, never on time."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import QUICK, REPO, binary, gpcnet, load, our_namespaces
from mpi_harness import python_on_every_host

UP = ["--topology", "fat-tree", "--hosts", "4", "--hosts-per-leaf", "2", "--taper", "2",
      "--host-rate", "100mbit"]
UPLINK = "leaf0/l0s0"
PORT = 47123
SECONDS = 4

RECEIVER = r"""
import json, socket, sys, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((sys.argv[1], int(sys.argv[2]))); srv.listen(8)
got = {}
def drain(c, peer):
    n = 0
    while True:
        b = c.recv(1 << 16)
        if not b: break
        n += len(b)
    got[peer] = n
threads = []
for _ in range(int(sys.argv[3])):
    c, (peer, _) = srv.accept()
    t = threading.Thread(target=drain, args=(c, peer)); t.start(); threads.append(t)
for t in threads: t.join()
open(sys.argv[4], "w").write(json.dumps(got))
"""

SENDER = r"""
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
print(s.getsockopt(socket.IPPROTO_IP, socket.IP_TOS), flush=True)
end = time.monotonic() + float(sys.argv[3]); chunk = b"x" * (1 << 16)
while time.monotonic() < end:
    s.sendall(chunk)
s.close()
"""


def cgroup_dir():
    from gpcnet.testbed import class_marking
    return class_marking.group_dir()


def _env():
    return dict(os.environ, PYTHONPATH=str(REPO / "python"))


def in_host(host, *cmd, **kw):
    return subprocess.Popen(["nsenter", f"--net=/run/netns/gtb-{host}", *map(str, cmd)], env=_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def classes_at(path):
    return load(path)["ports"][UPLINK]["classes"]


def uplink_classes(path):
    """Per class, the bytes summed over every leaf's uplinks."""
    out = {}
    for p in load(path)["ports"].values():
        if p["tier"] == "uplink":
            for k, c in p["classes"].items():
                out[k] = out.get(k, 0) + c["bytes"]
    return out


def two_classes_flow(tmp_path, seconds=SECONDS, every_uplink=False):
    """node01 sends in class 0 and node02 in class 1 to node03, at once;
    returns (bytes each class put through leaf0's uplink, or with
    every_uplink through all uplinks, bytes the receiver got from each,
    the TOS each sender's socket carried)."""
    recv_py, send_py = tmp_path / "recv.py", tmp_path / "send.py"
    recv_py.write_text(RECEIVER)
    send_py.write_text(SENDER)
    got = tmp_path / "got.json"
    gpcnet("testbed", "status", "--json", tmp_path / "before.json")
    receiver = in_host("node03", sys.executable, recv_py, "198.19.0.3", PORT, 2, got)
    time.sleep(1)   # listening (a connect before it would be refused: the test fails, it does not pass)
    senders = [in_host(f"node0{k + 1}", sys.executable, "-m", "gpcnet.bind_cli", "--traffic-class", k, "--",
                       sys.executable, send_py, "198.19.0.3", PORT, seconds) for k in (0, 1)]
    tos = []
    for s in senders:
        out, err = s.communicate(timeout=120)
        assert s.returncode == 0, err
        tos.append(int(out.split()[0]))
    receiver.communicate(timeout=60)
    gpcnet("testbed", "status", "--json", tmp_path / "after.json")
    if not every_uplink:
        before, after = classes_at(tmp_path / "before.json"), classes_at(tmp_path / "after.json")
        port = {k: after[k]["bytes"] - before[k]["bytes"] for k in ("0", "1")}
    else:   # several spines: leaf0's traffic is spread over its uplinks
        before, after = uplink_classes(tmp_path / "before.json"), uplink_classes(tmp_path / "after.json")
        port = {k: after[k] - before[k] for k in ("0", "1")}
    received = json.loads(got.read_text())
    return port, {"0": received["198.19.0.1"], "1": received["198.19.0.2"]}, tos


def test_strict_priority_gives_the_high_class_the_uplink(clean, tmp_path):
    gpcnet("testbed", "up", *UP, "--traffic-classes", "2", timeout=180)
    port, received, tos = two_classes_flow(tmp_path)
    assert tos == [0, 32]          # CS0 and CS1, set by the cgroup's program, not by the sender
    # Each class's bytes at the port: what its sender's peer received, plus headers.
    for k in ("0", "1"):
        assert received[k] <= port[k] <= received[k] * 1.1 + 200_000
    assert port["1"] > 5 * port["0"] and port["1"] > 0   # a ratio: how many bytes 4 s carry depends on the host
    # status --counters shows the table.
    out = gpcnet("testbed", "status", "--counters").stdout
    assert "traffic classes:" in out and any(l.startswith(UPLINK) and l.split()[1] == "1" for l in out.splitlines())
    assert "2 traffic classes, strict priority (class 1 first)" in out.splitlines()[0]


def test_routed_switches_classify_alike(clean, tmp_path):
    """--routing ecmp: the switches route (the class is read from the
    packet at every hop, as when they bridge); each class's bytes over the
    uplinks are what its receiver got, plus headers, on whichever spine
    each flow was hashed to."""
    # Weighted, so that neither class is starved: under strict priority
    # what the low class gets in 2 s depends on how busy the host is (a
    # loaded run got 0.8 MB), which says nothing about classifying.
    gpcnet("testbed", "up", *UP, "--spines", "2", "--routing", "ecmp", "--traffic-classes", "2",
           "--class-weights", "50,50", timeout=180)
    port, received, tos = two_classes_flow(tmp_path, seconds=2, every_uplink=True)
    assert tos == [0, 32]
    for k in ("0", "1"):
        assert received[k] > 0 and received[k] <= port[k] <= received[k] * 1.1 + 200_000, (port, received)


def test_weighted_sharing_follows_the_weights(clean, tmp_path):
    gpcnet("testbed", "up", *UP, "--traffic-classes", "2", "--class-weights", "70,30", timeout=180)
    port, received, _ = two_classes_flow(tmp_path)
    share = port["0"] / (port["0"] + port["1"])
    assert 0.55 < share < 0.85, port       # 70% guaranteed to class 0, against strict's ~0%
    for k in ("0", "1"):
        assert received[k] <= port[k] <= received[k] * 1.1 + 200_000


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_ranks_of_either_mpi_join_their_class(clean, tmp_path, mpi):
    """The launcher's daemons start gpcnet-bind, which joins the class before
    the program starts: the same under Open MPI's mpirun and MPICH's Hydra."""
    gpcnet("testbed", "up", "--hosts", "2", "--host-rate", "100mbit", "--traffic-classes", "3", timeout=180)
    show = "import sys; sys.stdout.write(open('/proc/self/cgroup').read())"
    p = gpcnet("testbed", "run", "--mpi", mpi, "--timeout", 120, "--",
               *python_on_every_host(), "-m", "gpcnet.bind_cli", "--traffic-class", "2", "--",
               *python_on_every_host(), "-c", show, timeout=180)
    lines = [l for l in p.stdout.splitlines() if l.startswith("0::")]
    assert len(lines) == 2 and all(l.endswith("/gpcnet-testbed/class-2") for l in lines), p.stdout


def test_open_mpi_benchmark_traffic_is_in_its_class(clean, tmp_path):
    gpcnet("testbed", "up", *UP, "--traffic-classes", "2", timeout=180)
    counters = tmp_path / "c.json"
    gpcnet("testbed", "run", "--timeout", 180, "--counters", counters, "--counters-interval", "0.2", "--",
           *python_on_every_host(), "-m", "gpcnet.bind_cli", "--traffic-class", "1", "--",
           binary("network_test"), "--tests", "rr_two_sided_bw", *QUICK, "--output-dir", tmp_path / "o",
           timeout=240)
    edges = [p["classes"] for p in load(counters)["delta"]["ports"].values() if p["tier"] == "edge"]
    one, zero = sum(c["1"]["bytes"] for c in edges), sum(c["0"]["bytes"] for c in edges)
    assert one > 1_000_000 and zero < one / 20
    # The series has each interval's per-class counters too: they add up to at most the
    # delta's (the series starts at the sampler's first reading, inside the job).
    samples = load(counters)["series"]["samples"]
    edge_keys = [k for k, p in load(counters)["delta"]["ports"].items() if p["tier"] == "edge"]
    edge_series = sum(s["ports"][k]["classes"]["1"]["bytes"] for s in samples for k in edge_keys)
    assert 0 < edge_series <= one


def test_down_mid_run_leaves_no_cgroup_nor_process(clean, tmp_path):
    gpcnet("testbed", "up", *UP, "--traffic-classes", "2", timeout=180)
    base = cgroup_dir()
    assert (base / "class-1" / "cgroup.procs").exists()
    send_py = tmp_path / "send.py"
    send_py.write_text(SENDER)
    # A rank in class 1 that would run for minutes (nobody listens: it retries).
    sleeper = in_host("node01", sys.executable, "-m", "gpcnet.bind_cli", "--traffic-class", "1", "--",
                      "sleep", "300")
    for _ in range(100):
        if (base / "class-1" / "cgroup.procs").read_text().strip():
            break
        time.sleep(0.1)
    assert (base / "class-1" / "cgroup.procs").read_text().split() == [str(sleeper.pid)]
    gpcnet("testbed", "down")
    sleeper.wait(timeout=30)
    assert not base.exists() and our_namespaces() == []


@pytest.mark.parametrize("args, message", [
    (["--traffic-classes", "9"], "--traffic-classes '9': expected 2 to 8 classes"),
    (["--traffic-classes", "two"], "--traffic-classes 'two': expected 2 to 8"),
    (["--traffic-classes", "2", "--class-weights", "70,20"], "the weights sum to 90, not 100"),
    (["--traffic-classes", "2", "--class-weights", "70,30,0"], "expected 2 whole percentages"),
    (["--traffic-classes", "2", "--class-scheduler", "wrr"], "--class-scheduler 'wrr': unknown scheduler"),
    (["--traffic-classes", "2", "--class-scheduler", "strict", "--class-weights", "50,50"], "strict priority has no weights"),
    (["--traffic-classes", "2", "--class-scheduler", "weighted"], "needs --class-weights"),
    (["--class-weights", "70,30"], "need --traffic-classes N"),
    (["--traffic-classes", "2", "--host-rate", "none"], "needs rate-limited links"),
])
def test_bad_classes_are_refused_before_anything_exists(clean, args, message):
    p = gpcnet("testbed", "up", "--hosts", "2", *args, check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert our_namespaces() == [] and not cgroup_dir().exists()


def test_gpcnet_bind_refuses_a_class_the_testbed_lacks(clean, tmp_path):
    def bind(*args):
        return subprocess.run([sys.executable, "-m", "gpcnet.bind_cli", *args, "--", "true"], env=_env(),
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
    p = bind("--traffic-class", "1")
    assert p.returncode == 2 and "no testbed is up" in p.stderr
    gpcnet("testbed", "up", "--hosts", "2", "--host-rate", "100mbit", "--traffic-classes", "2", timeout=180)
    for args, message in ((["--traffic-class", "2"], "--traffic-class 2: the testbed has 2 traffic classes, 0 to 1"),
                          (["--traffic-class", "best"], "--traffic-class 'best': unknown class"),
                          (["--traffic-class", "1", "--class-hosts", "node01,node5"],
                           "--class-hosts 'node01,node5': 'node5' is not a host of the testbed (node01 to node02)")):
        p = bind(*args)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert not (cgroup_dir() / "class-1" / "cgroup.procs").read_text().strip()
    p = subprocess.run([sys.executable, "-m", "gpcnet.bind_cli", "--", "true"], env=dict(_env(), GPCNET_TRAFFIC_CLASS="7"),
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "GPCNET_TRAFFIC_CLASS 7: the testbed has 2 traffic classes" in p.stderr


def test_a_degraded_port_keeps_its_classes(clean):
    """`fault degrade` rebuilds a port's queues: with classes, the class
    scheduler at the degraded rate; `fault clear` puts the full rate back."""
    gpcnet("testbed", "up", *UP, "--traffic-classes", "2", "--class-weights", "60,40", timeout=180)

    def classes_of(port):
        return subprocess.run(["tc", "-n", "gtb-fabric", "class", "show", "dev", port], capture_output=True,
                              text=True, check=True).stdout
    gpcnet("testbed", "fault", "degrade", "l0s0", "--percent", "50")
    shown = classes_of("l0s0")
    assert "class htb 1:1 root rate 50Mbit ceil 50Mbit" in shown
    assert "class htb 1:10 parent 1:1" in shown and "rate 30Mbit ceil 50Mbit" in shown   # 60% of 50
    assert "class htb 1:11 parent 1:1" in shown and "rate 20Mbit ceil 50Mbit" in shown
    gpcnet("testbed", "fault", "clear", "l0s0")
    shown = classes_of("l0s0")
    assert "class htb 1:1 root rate 100Mbit ceil 100Mbit" in shown and "rate 60Mbit ceil 100Mbit" in shown


@pytest.mark.no_root_needed
@pytest.mark.parametrize("n", [2, 3, 8])
def test_strict_priority_guarantees_the_highest_class_the_link(n):
    """Strict priority: the highest class is guaranteed the whole link (sent
    as it comes, never waiting to borrow), the others 8 kbit/s, borrowing
    in class order; weighted sharing keeps its weights."""
    from types import SimpleNamespace
    from gpcnet.testbed import classes
    rate = 125_000_000
    topo = SimpleNamespace(classes=classes.plan(n, "strict", None), qdisc="pfifo", queue=100, ecn=False)
    lines = [line for line in classes.tc_lines("l0s0", rate, None, 1, topo, 98304)
             if line.startswith("class add") and "parent 1:1 " in line]
    assert len(lines) == n
    for k, line in enumerate(lines):
        guaranteed = rate if k == n - 1 else classes.STRICT_FLOOR
        assert f"rate {guaranteed}bit ceil {rate}bit" in line and f"prio {n - 1 - k} " in line, line
    topo.classes = classes.plan(2, "weighted", "70,30")
    lines = [line for line in classes.tc_lines("l0s0", rate, None, 1, topo, 98304)
             if line.startswith("class add") and "parent 1:1 " in line]
    assert [f"rate {rate * w // 100}bit" in line for line, w in zip(lines, (70, 30))] == [True, True]
