"""Roles from an MPMD launch on hosts that are hosts (issue 54,
docs/method.md#roles-from-the-launch): mpirun's application 0 runs the
canaries and application 1 the congestors, each with its own class
variable and its own traffic class of the testbed (gpcnet-bind
--traffic-class); the JSON names the nodes of each role and the class each
role's ranks saw, and the switches' per-class counters show each role's
bytes in its class. A two-leaf tree, the canaries (the hostfile's first
two hosts) one on each leaf, so that their class crosses the uplinks."""
import shlex

from conftest import QUICK, STATE_DIR, gpcnet, load, make_testbed
from mpi_harness import on_every_host, python_on_every_host

six = make_testbed("--topology", "fat-tree", "--hosts", "6", "--hosts-per-leaf", "3", "--taper", "3",
                   "--host-rate", "100mbit", "--traffic-classes", "2")
CANARIES, CONGESTORS = (1, 4), (2, 3, 5, 6)


def test_mpmd_launch_gives_each_role_its_class(six, tmp_path):
    prog = on_every_host("network_load_test")
    bind = " ".join(map(shlex.quote, [*map(str, python_on_every_host()), "-m", "gpcnet.bind_cli"]))
    hostfile = tmp_path / "hosts"
    lines = gpcnet("testbed", "hostfile").stdout.splitlines()
    # Application 0 takes the hostfile's first hosts: node01 (leaf0) and node04 (leaf1).
    first = [l for h in CANARIES for l in lines if l.split()[0] == f"node{h:02d}"]
    hostfile.write_text("\n".join(first + [l for l in lines if l not in first]) + "\n")
    # A bandwidth canary, so that the canaries' class carries megabytes
    # against the few kilobytes of the job's world-wide synchronisation.
    args = f"--quiet --congestors a2a --tests rr_two_sided_bw {' '.join(QUICK)} " \
           f"--congestor-measurements 2 --congestor-iterations 2 " \
           f"--output-dir {tmp_path / 'out'}"
    # The testbed's Open MPI settings are in the environment of --no-mpi;
    # the agent that enters a host is named here, as mpirun_command does.
    line = (f"mpirun --mca plm_rsh_agent {STATE_DIR / 'rsh-agent'} --hostfile {hostfile} "
            f"-np 2 -x UCX_IB_SL=1 {bind} --traffic-class 1 -- {prog} {args} : "
            f"-np 4 -x UCX_IB_SL=3 {bind} --traffic-class 0 -- {prog} {args}")
    counters = tmp_path / "counters.json"
    p = gpcnet("testbed", "run", "--no-mpi", "--timeout", 200, "--counters", counters, "--",
               "sh", "-c", line, timeout=300)
    assert "canary share: from the launch (2 of 6 nodes)" in p.stdout, p.stdout[-2000:]
    doc = load(tmp_path / "out" / "network_load_test.json")
    assert sorted(doc["placement"]["canary_nodes"]) == [f"node{h:02d}" for h in CANARIES]
    assert sorted(doc["placement"]["congestor_nodes"]) == [f"node{h:02d}" for h in CONGESTORS]
    roles = doc["roles"]
    assert (roles["source"], roles["canary_nodes"], roles["congestor_nodes"]) == ("launch", 2, 4)
    lv = roles["launch_variables"]
    assert [(v["value"], v["nodes"]) for v in lv["canaries"]["UCX_IB_SL"]["values"]] == [("1", 2)]
    assert [(v["value"], v["nodes"]) for v in lv["congestors"]["UCX_IB_SL"]["values"]] == [("3", 4)]
    # The testbed's class as each rank joined it (gpcnet-bind sets GPCNET_TRAFFIC_CLASS).
    assert [(v["value"], v["ranks"]) for v in lv["canaries"]["GPCNET_TRAFFIC_CLASS"]["values"]] == [("1", 2)]
    assert [(v["value"], v["ranks"]) for v in lv["congestors"]["GPCNET_TRAFFIC_CLASS"]["values"]] == [("0", 4)]
    # Each role's bytes went in its class: the switches' ports to the canary
    # hosts carry class 1, those to the congestor hosts class 0 (the other
    # class there is the job's synchronisation between the roles).
    ports = load(counters)["delta"]["ports"]
    uplinks = [v["classes"] for v in ports.values() if v["tier"] == "uplink"]
    assert len(uplinks) == 2 and all(c["1"]["bytes"] > 1_000_000 for c in uplinks), uplinks
    to_host = {int(k.rsplit("/d", 1)[1]): v["classes"] for k, v in ports.items() if v["tier"] == "edge"}
    assert sorted(to_host) == [1, 2, 3, 4, 5, 6], sorted(ports)
    for h, classes in to_host.items():
        mine, other = ("1", "0") if h in CANARIES else ("0", "1")
        assert classes[mine]["bytes"] > (1_000_000 if h in CANARIES else 100_000), (h, classes)
        assert classes[other]["bytes"] < classes[mine]["bytes"] / 10, (h, classes)
    # Every packet leaves the fabric by one switch port to a host (an edge
    # port), so each class's bytes over the edge ports are the bytes its
    # role's hosts sent (their NICs' counters; ARP, unmarked, is class 0
    # from either role), however many switches it crossed.
    sent = {int(k.split("/")[0][4:]): v["bytes"] for k, v in ports.items() if v["tier"] == "host"}
    for cls, role_hosts in (("1", CANARIES), ("0", CONGESTORS)):
        by_role = sum(sent[h] for h in role_hosts)
        in_class = sum(c[cls]["bytes"] for c in to_host.values())
        assert abs(in_class - by_role) <= 0.01 * by_role + 20_000, (cls, in_class, by_role)
