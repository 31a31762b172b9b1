import pytest

from gpcnet.errors import GpcnetError
from gpcnet.study import bullies, topology

# 2:1 tapered three-level tree: 8 leaves of 8 nodes, two pods of 4 leaves.
FAT_TREE = """# two pods
SwitchName=leaf[0-7] LinkSpeed=100
""".replace("SwitchName=leaf[0-7] LinkSpeed=100\n", "".join(
    f"SwitchName=leaf{i} Nodes=n[{8 * i:02d}-{8 * i + 7:02d}]\n" for i in range(8))) + """\
SwitchName=pod0 Switches=leaf[0-3]
SwitchName=pod1 Switches=leaf[4-7]  # comment after
SwitchName=top \\
   Switches=pod[0-1]
"""


def tree():
    return topology.parse(FAT_TREE, "fat.conf")


def test_hostlists():
    assert topology.expand_hostlist("n[01-03,7],gpu5") == ["n01", "n02", "n03", "n7", "gpu5"]
    assert topology.expand_hostlist("r[1-2]c[0-1]") == ["r1c0", "r1c1", "r2c0", "r2c1"]
    for bad in ("n[1-", "n1]", "n[3-1]", "n[a]", "a,,b"):
        with pytest.raises(ValueError):
            topology.expand_hostlist(bad)


def test_parse_tree_levels_and_continuation():
    t = tree()
    assert [l.name for l in t.leaves] == [f"leaf{i}" for i in range(8)]
    assert len(t.nodes) == 64 and t.nodes[8] == "n08"
    assert t.pod_of()["leaf5"] == "pod1"
    assert t.switches["top"].children == ["pod0", "pod1"]
    assert t.uplinks("leaf0") == 1


@pytest.mark.parametrize("text,message", [
    ("SwitchName=s0 Nodes=a[1-2]\nSwitchName=s1 Nodez=b1\n", r"t.conf:2: unknown key 'Nodez'"),
    ("SwitchName=s0 Nodes=a1\nNodes=b1\n", r"t.conf:2: line has no SwitchName="),
    ("\n\nSwitchName=s0 Nodes=a1\nSwitchName=s0 Nodes=a2\n", r"t.conf:4: switch 's0' already defined on line 3"),
    ("SwitchName=s0 Nodes=a1\nSwitchName=s1 Switches=s[0-2]\n", r"t.conf:2: switch 's1' lists unknown switch 's2'"),
    ("# c\nSwitchName=s0 Nodes=a[1-\n", r"t.conf:2: unbalanced"),
    ("SwitchName=s0 Nodes=a1\nSwitchName=s1 Nodes=a[0-1]\n", r"t.conf:2: node 'a1' is already under switch 's0' \(line 1\)"),
    ("SwitchName=s0 garbage\n", r"t.conf:1: expected KEY=VALUE, got 'garbage'"),
    ("SwitchName=s0 Nodes=\n", r"t.conf:1: Nodes has no value"),
    ("SwitchName=s0 Nodes=a1 LinkSpeed=fast\n", r"t.conf:1: LinkSpeed must be a number"),
    ("# nothing\n", r"t.conf: no switches"),
    ("SwitchName=s0\n", r"t.conf: no switch has Nodes="),
])
def test_bad_topology_files_name_the_line(text, message):
    with pytest.raises(GpcnetError, match=message):
        topology.parse(text, "t.conf")


def test_missing_file(tmp_path):
    with pytest.raises(GpcnetError, match="no such file"):
        topology.read(str(tmp_path / "none.conf"))


def _leaf(t):
    return t.leaf_of()


def test_pairs_light_uses_about_62_percent_of_the_uplinks():
    t = tree()
    p = bullies.plan(t, "pairs-light", 16, taper=2)   # 8 hosts / 2 = 4 host links up
    leaf = _leaf(t)
    # round(0.62 * 4) = 2 pairs per adjacent leaf pair, both directions
    assert len(p["flows"]) == 4 * 2 * 2
    for s, d in p["flows"]:
        a, b = int(leaf[s][4:]), int(leaf[d][4:])
        assert {a, b} in ({0, 1}, {2, 3}, {4, 5}, {6, 7})
    out = {}
    for s, d in p["flows"]:
        out[leaf[s]] = out.get(leaf[s], 0) + 1
    assert set(out.values()) == {2} and 2 / 4 == pytest.approx(0.5)
    assert not set(p["app"]) & set(p["bully"])


def test_pairs_full_oversubscribes_and_bisection_crosses_pods():
    t = tree()
    full = bullies.plan(t, "pairs-full", 8, taper=2)
    per_leaf = {}
    for s, d in full["flows"]:
        per_leaf[_leaf(t)[s]] = per_leaf.get(_leaf(t)[s], 0) + 1
    assert min(per_leaf.values()) > 4          # more than the 4 host links up: > 100%
    bis = bullies.plan(t, "bisection", 8, taper=2)
    pod = t.pod_of()
    assert bis["flows"] and all(pod[_leaf(t)[s]] != pod[_leaf(t)[d]] for s, d in bis["flows"])
    assert len(bis["flows"]) == len(bullies.plan(t, "pairs-light", 8, taper=2)["flows"])


def test_incast_three_nodes_in_each_of_seven_leaves_into_the_eighth():
    t = tree()
    p = bullies.plan(t, "incast", 8)
    dests = {d for _, d in p["flows"]}
    assert len(dests) == 1 and _leaf(t)[dests.pop()] == "leaf7"
    src_leaves = [_leaf(t)[s] for s, _ in p["flows"]]
    assert len(p["flows"]) == 21 and all(src_leaves.count(f"leaf{i}") == 3 for i in range(7))
    assert len(p["bully"]) == 22


def test_application_spread_over_leaves_on_the_same_nodes_with_and_without_bully():
    t = tree()
    reserve = {}
    for pat in bullies.PATTERNS:
        for leaf, c in bullies.demand(t, pat, 2).items():
            reserve[leaf] = max(reserve.get(leaf, 0), c)
    for rep in range(3):
        apps = [bullies.plan(t, pat, 12, rep, 2, reserve)["app"] for pat in [None, *bullies.PATTERNS]]
        assert all(a == apps[0] for a in apps)
        counts = [sum(_leaf(t)[n] == f"leaf{i}" for n in apps[0]) for i in range(8)]
        assert max(counts) - min(counts) <= 1
        for pat in bullies.PATTERNS:
            p = bullies.plan(t, pat, 12, rep, 2, reserve)
            assert not set(p["app"]) & set(p["bully"])
    assert bullies.plan(t, None, 12, 0, 2, reserve)["app"] != bullies.plan(t, None, 12, 1, 2, reserve)["app"]


def test_bully_errors():
    t = tree()
    with pytest.raises(GpcnetError, match="unknown bully pattern 'storm'"):
        bullies.demand(t, "storm")
    with pytest.raises(GpcnetError, match="nodes are left beside the bully"):
        bullies.plan(t, "pairs-full", 64, taper=2)
    one_leaf = topology.parse("SwitchName=s0 Nodes=a[1-4]\n")
    with pytest.raises(GpcnetError, match="at least 2 leaf switches"):
        bullies.plan(one_leaf, "incast", 1)
    flat = topology.parse("SwitchName=s0 Nodes=a[1-4]\nSwitchName=s1 Nodes=b[1-4]\n")
    with pytest.raises(GpcnetError, match="no uplinks"):
        bullies.plan(flat, "pairs-light", 1)


def test_flows_file_uses_the_programs_names():
    text = bullies.flows_text([("a", "b"), ("c", "b")], {"a": "h#0", "b": "h#1"}, "incast\nrun 1")
    assert text == "# incast\n# run 1\nh#0 h#1\nc h#1\n"


def test_topology_conf_of_a_testbed_shape():
    from types import SimpleNamespace as NS
    hosts = [NS(name=f"node{i:02d}", leaf=f"leaf{(i - 1) // 2}") for i in range(1, 9)]
    topo = NS(hosts=hosts, switches=["leaf0", "leaf1", "leaf2", "leaf3", "spine0", "spine1"],
              spines=["spine0", "spine1"])
    t = topology.parse(topology.testbed_text(topo))
    assert [l.name for l in t.leaves] == ["leaf0", "leaf1", "leaf2", "leaf3"]
    assert t.switches["leaf3"].nodes == ["node07", "node08"] and t.uplinks("leaf2") == 2
