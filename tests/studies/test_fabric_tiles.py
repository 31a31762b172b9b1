"""Network tiles and processor tiles of the co-run paper's metric on a
real fabric's shape: an InfiniBand fat-tree (3 leaves of 4 nodes, 2 spines)
as `ibnetdiscover` and `iblinkinfo` print it (tests/studies/fabric/, written
from the tools' documented formats), read with a stand-in `perfquery`; the
testbed's processor tiles; and the run record keeping both kinds apart."""
import json
import os
import time
from pathlib import Path

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.study import counters, fabric, sampling
from gpcnet.study.sources import infiniband
from gpcnet.study.sources import testbed as testbed_source

HERE = Path(__file__).resolve().parent
PY = str(counters.__file__).rsplit("/gpcnet/", 1)[0]
LEAF01, SPINE01, SPINE02 = "MF0;leaf01:MQM8700/U1", "MF0;spine01:MQM8700/U1", "MF0;spine02:MQM8700/U1"


@pytest.fixture(params=["ibnetdiscover.txt", "iblinkinfo.txt"])
def switches(request):
    path = HERE / "fabric" / request.param
    return fabric.parse(path.read_text(), str(path))


def test_both_formats_give_the_same_fabric(switches):
    by_lid = {s.lid: s for s in switches.values()}
    assert sorted(by_lid) == [1, 2, 3, 4, 5]
    assert by_lid[3].name == LEAF01 and by_lid[1].name == SPINE01
    peer = lambda lid, port: by_lid[lid].ports[port]              # noqa: E731
    assert peer(3, 1) == ("ca", "node01 HCA-1", 1)
    assert peer(3, 35)[0] == "switch" and switches[peer(3, 35)[1]].lid == 1 and peer(3, 35)[2] == 1
    assert peer(1, 3)[0] == "switch" and switches[peer(1, 3)[1]].lid == 5 and peer(1, 3)[2] == 35
    assert 4 not in by_lid[1].ports                                 # a port that is down is no link


def test_tiles_of_the_applications_switches(switches):
    t = fabric.tiles(switches, ["node01", "node02", "node05"])
    # processor tiles: the leaf ports facing the application's nodes
    assert t["ptile"] == {
        "switch3/1": {"router": LEAF01, "node": "node01", "lid": 3, "port": 1},
        "switch3/2": {"router": LEAF01, "node": "node02", "lid": 3, "port": 2},
        "switch4/1": {"router": "MF0;leaf02:MQM8700/U1", "node": "node05", "lid": 4, "port": 1}}
    # network tiles: for leaf01 and leaf02 (not leaf03), the spine ports sending into them
    assert set(t["ntile"]) == {"switch1/1", "switch2/1", "switch1/2", "switch2/2"}
    assert t["ntile"]["switch2/1"] == {"router": LEAF01, "lid": 2, "port": 1, "peer": SPINE02, "into_port": 36}
    # each leaf's network tiles read by its first application node
    keys = [[x["key"] for x in targets] for targets in t["by_node"]]
    assert keys == [["switch3/1", "switch1/1", "switch2/1"], ["switch3/2"], ["switch4/1", "switch1/2", "switch2/2"]]
    assert t["missing"] == []
    assert fabric.tiles(switches, ["node01", "gpu7"])["missing"] == ["gpu7"]
    assert fabric.tiles(switches, ["NODE01.cluster.example"])["ptile"]["switch3/1"]["node"] == "NODE01.cluster.example"


@pytest.mark.parametrize("text", ["", "# nothing here\n", "vendid=0x2c9\n"])
def test_not_a_fabric_is_one_line(text):
    with pytest.raises(GpcnetError, match=r"^fab.txt: no switch found \(expected the output of ibnetdiscover or "
                                          r"iblinkinfo\)$"):
        fabric.parse(text, "fab.txt")


PERFQUERY = r"""#!/bin/sh
# perfquery LID PORT, as infiniband-diags prints it; each call adds one step
# to the port's counters (kept in $STATE), a step per port as below.
case "$1 $2" in
  "1 1") w=30; d=300;;
  "2 1") w=60; d=200;;
  "3 1") w=5; d=1000;;
  *) echo "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (Lid $1)" >&2; exit 1;;
esac
f="$STATE/$1_$2"; n=$(cat "$f" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$f"
cat <<END
# Port counters: Lid $1 port $2 (CapMask: 0x5A00)
PortSelect:......................$2
CounterSelect:...................0x0000
SymbolErrorCounter:..............0
LinkErrorRecoveryCounter:........0
LinkDownedCounter:...............0
PortRcvErrors:...................0
PortRcvRemotePhysicalErrors:.....0
PortRcvSwitchRelayErrors:........0
PortXmitDiscards:................0
PortXmitConstraintErrors:........0
PortRcvConstraintErrors:.........0
CounterSelect2:..................0x00
LocalLinkIntegrityErrors:........0
ExcessiveBufferOverrunErrors:....0
QP1Dropped:......................0
VL15Dropped:.....................0
PortXmitData:....................$((n * d))
PortRcvData:.....................$((n * d * 2))
PortXmitPkts:....................$((n * 10))
PortRcvPkts:.....................$((n * 20))
PortXmitWait:....................$((n * w))
END
"""


def test_node_sampler_reads_both_tile_kinds_and_the_metric_is_the_network_tiles(tmp_path, monkeypatch):
    """The mpirun/srun path without MPI: the job is the sampler on this host,
    as rank 0 of node01; perfquery answers for the three ports node01's
    sampler is given (its own port on leaf01, the two spine ports into it)."""
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    (bin_dir / "perfquery").write_text(PERFQUERY)
    (bin_dir / "perfquery").chmod(0o755)
    monkeypatch.setenv(fabric.ENV, str(HERE / "fabric" / "ibnetdiscover.txt"))

    class OneHost:
        env = {"PYTHONPATH": PY, "PATH": f"{bin_dir}:/usr/bin:/bin", "STATE": str(state),
               "OMPI_COMM_WORLD_RANK": "0"}

        child_path = staticmethod(str)   # the job runs here: the name as given

        def job(self, nodes, command, tag, ppn=None):
            return command

    s = infiniband.Sampler(OneHost(), ["node01"], 0.1, tmp_path, "sampler-f", 60)
    assert "--tiles" in s.cmd and s.fabric["switches"] == 5
    s.start()
    deadline = time.monotonic() + 60
    while (not s.out.exists() or len(s.out.read_text().splitlines()) < 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    rec = sampling.record(s, 0.0, 0.1, 0.0)
    assert rec["source"] == "infiniband-fabric" and rec["stall_counter"] == "PortXmitWait"
    assert set(rec["ports"]) == {"switch1/1", "switch2/1"} and set(rec["ptile_ports"]) == {"switch3/1"}
    assert all(set(iv["rates"]) == {"switch1/1", "switch2/1", "switch3/1"} for iv in rec["series"])
    # spine01 into leaf01: 30 stalls per 300 flits (0.1); spine02: 60 per 200 (0.3); one router: 0.2.
    # The node's own port (5 per 1000) is a processor tile: not in the ratio.
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.2)
    assert rec["tiles"]["ptile"]["stall_per_s"] > 0 and rec["tiles"]["ntile"]["routers"] == 1
    nt, pt = rec["tiles"]["ntile"], rec["tiles"]["ptile"]
    assert nt["stall_per_s"] / pt["stall_per_s"] == pytest.approx(45 / 5, rel=0.02)   # mean(30, 60) per step vs 5
    assert rec["errors"] == [] and rec["fabric"]["missing"] == []
    lines = [json.loads(x) for x in s.out.read_text().splitlines()]
    assert {x["host"] for x in lines} == {"node01"}


def test_without_the_fabric_a_node_finds_only_processor_tiles(tmp_path, monkeypatch):
    monkeypatch.setenv(fabric.ENV, str(tmp_path / "none.txt"))
    with pytest.raises(GpcnetError, match="none.txt: no such file"):
        fabric.discover()
    monkeypatch.delenv(fabric.ENV)
    monkeypatch.setenv("PATH", "/nonexistent")                   # no ibnetdiscover here
    assert fabric.discover() == (None, None)


def test_record_keeps_the_two_kinds_apart():
    """A sampler that knows both scopes (the testbed): heavy stalls on a
    processor tile never reach the ratio; they are in the ptile rates."""
    readings = [{"time": 0.0, "ports": {"n": {"stall": 0, "flit": 0}, "p": {"stall": 0, "flit": 0}}},
                {"time": 1.0, "ports": {"n": {"stall": 10, "flit": 100}, "p": {"stall": 900, "flit": 1000}}}]

    class Done:
        source = "testbed-tc"
        scope, ptile_scope = {"n": {"router": "leaf0"}}, {"p": {"router": "leaf0", "node": "node01"}}

        def stop(self):
            return {"": readings}, []

    rec = sampling.record(Done(), 0.0, 1.0, 1.0)
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.1)
    assert rec["tiles"]["ntile"]["stall_per_s"] == 10.0 and rec["tiles"]["ptile"]["stall_per_s"] == 900.0
    assert rec["series"][0]["stall_per_s"] == 10.0 and rec["series"][0]["ptile_stall_per_s"] == 900.0


def test_testbed_processor_tiles_are_the_leaf_ports_facing_the_nodes():
    from gpcnet.testbed.topology import build
    tree = build("fat-tree", 6, hosts_per_leaf=2, spines=2, taper=2)
    assert testbed_source.processor_tiles(tree, ["node01", "node04"]) == {
        "leaf0/d1": {"router": "leaf0", "node": "node01"}, "leaf1/d4": {"router": "leaf1", "node": "node04"}}
    assert set(testbed_source.processor_tiles(build("star", 4), ["node02"])) == {"star/d2"}
