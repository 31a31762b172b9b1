"""--topology fat-tree3 on a running testbed (root), as small as a
three-level tree with two paths per level gets: 2 pods of 2 leaves (one
host each), 2 aggregation switches per pod, 4 cores (2 per group), 12
switches. Every host reaches every other under both routings; under
static one destination always crosses one core (the one the d-mod-k rule
names); under ecmp flows between the pods that differ only in their
source port cross every core; a failed up, and down after it,
leave nothing."""
import json

import pytest

from conftest import STATE_DIR, gpcnet, make_testbed, our_namespaces
from test_routing import every_pair_reaches_every_other, in_ns, send, sink

SHAPE = ["--topology", "fat-tree3", "--hosts", "4", "--hosts-per-leaf", "1", "--pods", "2",
         "--aggs", "2", "--cores", "4", "--host-rate", "none"]
HOSTS = [(f"gtb-node0{n}", f"198.19.0.{n}") for n in range(1, 5)]
# The cores' links down into pod 1 (core c of group j to aggregation switch 2 + j).
INTO_POD1 = {"core0": "c0a2", "core1": "c1a2", "core2": "c2a3", "core3": "c3a3"}
FLOW_BYTES = 200_000
ecmp_testbed = make_testbed(*SHAPE, "--routing", "ecmp")


def core_bytes():
    return {core: int(in_ns("gtb-fabric", "cat", f"/sys/class/net/{port}/statistics/tx_bytes").stdout)
            for core, port in INTO_POD1.items()}


def cores_of_flows(flows):
    """Send each (source host number, source port, destination host number)
    flow in turn into pod 1; the core each crossed (nearly all its bytes)."""
    dests = [d for _s, _p, d in flows]
    sinks = {d: sink(HOSTS[d - 1][0], HOSTS[d - 1][1], dests.count(d)) for d in set(dests)}
    chosen = []
    try:
        for src, port, dst in flows:
            before = core_bytes()
            send(HOSTS[src - 1][0], HOSTS[src - 1][1], port, HOSTS[dst - 1][1], FLOW_BYTES)
            grew = {c: n - before[c] for c, n in core_bytes().items()}
            busiest = max(grew, key=grew.get)
            assert grew[busiest] >= FLOW_BYTES, grew
            assert sum(grew.values()) - grew[busiest] < FLOW_BYTES // 10, grew   # one flow, one core
            chosen.append(busiest)
        for k in sinks.values():
            assert k.wait(timeout=60) == 0
    finally:
        for k in sinks.values():
            k.kill()
            k.wait()
    return chosen


def test_ecmp_every_pair_reaches_every_other(ecmp_testbed):
    every_pair_reaches_every_other(HOSTS)


def test_ecmp_spreads_flows_between_pods_over_every_core(ecmp_testbed):
    # 40 flows node01 -> node03 differing only in their source port. Each core
    # has a quarter of the hash range (not half of them half each: the hash
    # is not polarized); one idle by chance: 4 (3/4)^40, below 1e-4.
    chosen = cores_of_flows([(1, port, 3) for port in range(44000, 44040)])
    assert set(chosen) == set(INTO_POD1), chosen


def test_ecmp_a_cut_core_link_is_withdrawn_and_cleared(ecmp_testbed):
    # agg0 (pod 0) loses core0: every flow into pod 1 still arrives, none by core0.
    try:
        gpcnet("testbed", "fault", "link-down", "a0c0")
        chosen = cores_of_flows([(1, port, 3) for port in range(46000, 46016)])
        assert "core0" not in chosen and len(set(chosen)) > 1, chosen
    finally:
        gpcnet("testbed", "fault", "clear")
    assert len(set(cores_of_flows([(1, port, 3) for port in range(46100, 46124)]))) > 1


def test_ecmp_status_says_three_levels(ecmp_testbed, tmp_path):
    line = gpcnet("testbed", "status").stdout.splitlines()[0]
    assert line == ("fat-tree3: 4 hosts, host links unlimited, uplinks unlimited x 2 per leaf "
                    "(taper 1), level-1 uplinks unlimited x 2 per switch, queue pfifo 100 pkts, "
                    "routing ecmp")
    st = json.loads((STATE_DIR / "state.json").read_text())["topology"]
    assert st["params"]["levels"][2] == ["core0", "core1", "core2", "core3"]
    gpcnet("testbed", "status", "--json", tmp_path / "c.json")
    ports = json.loads((tmp_path / "c.json").read_text())["ports"]
    # "uplink" at two levels: each switch port says its switch's level too.
    assert (ports["leaf0/l0a0"]["tier"], ports["leaf0/l0a0"]["level"]) == ("uplink", 0)
    assert (ports["agg0/a0c0"]["tier"], ports["agg0/a0c0"]["level"]) == ("uplink", 1)
    assert ports["core0/c0a0"]["level"] == 2 and "level" not in ports["node01/data0"]


def test_static_every_pair_and_one_core_per_destination(clean):
    gpcnet("testbed", "up", *SHAPE, timeout=180)
    every_pair_reaches_every_other(HOSTS)
    # node03 is destination 2: aggregation switch 2 mod 2 = 0, core 0 * 2 + (2 div 2) mod 2
    # = core1, from either host of pod 0 and whatever the port; node04 (3): core3.
    flows = [(src, port, 3) for src in (1, 2) for port in (45000, 45001, 45002)]
    assert cores_of_flows(flows) == ["core1"] * 6
    assert cores_of_flows([(1, 45010, 4), (2, 45011, 4)]) == ["core3"] * 2


def test_a_failed_up_leaves_nothing_and_down_after_it_neither(clean, monkeypatch, capsys):
    from gpcnet import cli
    from gpcnet.infra.errors import GpcnetError
    from gpcnet.testbed import netns

    def fail(*_a):
        raise GpcnetError("injected: forwarding could not be set")

    monkeypatch.setattr(netns, "_apply_forwarding", fail)
    assert cli.main(["testbed", "up", *SHAPE]) != 0
    assert "injected" in capsys.readouterr().err
    assert our_namespaces() == [] and not STATE_DIR.exists()
    assert gpcnet("testbed", "down").stdout.strip() == "no testbed was up"
    assert our_namespaces() == [] and not STATE_DIR.exists()


def test_a_refused_shape_creates_nothing(clean):
    p = gpcnet("testbed", "up", "--topology", "fat-tree3", "--k", "4", "--cores", "2", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert our_namespaces() == [] and not STATE_DIR.exists()
    assert gpcnet("testbed", "down").stdout.strip() == "no testbed was up"
