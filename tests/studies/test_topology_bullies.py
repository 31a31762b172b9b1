import pytest

from gpcnet.infra.errors import GpcnetError
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
    # a name of more than 255 characters, refused before its pieces are kept: one long literal, or 300
    # brackets of one digit each (each piece adds a character); 255 pieces still make a name
    for long in ("a" * 256, "n" + "[1]" * 300, "a" * 200 + "[1-2]" + "b" * 60):
        with pytest.raises(ValueError, match="node name of more than 255 characters"):
            topology.plan_hostlist(long)
    assert topology.expand_hostlist("n" + "[1]" * 254) == ["n" + "1" * 254]


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


# The poster's geometry: 2 pods of 8 leaves of 32 nodes (16 leaves), a 2:1
# taper (16 host links up per leaf: 8 second-level switches, two links to
# each leaf, which topology.conf cannot say; --taper 2 does), N = 224.
def quartz_conf(tmp_path):
    lines = [f"SwitchName=leaf{i:02d} Nodes=q[{32 * i + 1:04d}-{32 * i + 32:04d}]" for i in range(16)]
    for pod in range(2):
        for s in range(8):
            lines.append(f"SwitchName=pod{pod}s{s} Switches=leaf[{8 * pod:02d}-{8 * pod + 7:02d}]")
    lines.append("SwitchName=top Switches=pod0s[0-7],pod1s[0-7]")
    path = tmp_path / "topology.conf"
    path.write_text("# LLNL Quartz, two pods\n" + "\n".join(lines) + "\n")
    return path


@pytest.fixture
def quartz(tmp_path):
    return topology.read(str(quartz_conf(tmp_path)))


def _per_leaf_pair(t, flows):
    leaf, out = _leaf(t), {}
    for s, d in flows:
        key = tuple(sorted((leaf[s], leaf[d])))
        out[key] = out.get(key, 0) + 1
    return out


def test_quartz_geometry_plans_every_pattern(quartz):
    assert len(quartz.leaves) == 16 and len(quartz.nodes) == 512
    assert [len(p) for p in bullies.pods(quartz)] == [8, 8]
    for pat in [bullies.CONTROL, *bullies.PATTERNS]:
        p = bullies.plan(quartz, pat, 224, 0, 2)
        assert len(p["app"]) == 224 and len(set(p["app"])) == 224
        assert not set(p["app"]) & set(p["bully"])


def test_quartz_control_packed_in_one_pod_28_per_leaf(quartz):
    p = bullies.plan(quartz, bullies.CONTROL, 224, 0, 2)
    leaf = _leaf(quartz)
    counts = {}
    for n in p["app"]:
        counts[leaf[n]] = counts.get(leaf[n], 0) + 1
    assert counts == {f"leaf{i:02d}": 28 for i in range(8)}
    assert p["bully"] == [] and p["flows"] == []
    # scaled by the leaf size: 28/32 of a leaf of 8 is 7
    assert bullies.compact_per_leaf(32) == 28 and bullies.compact_per_leaf(8) == 7


def test_quartz_light_and_full_bully_10_and_17_pairs(quartz):
    light = bullies.plan(quartz, "pairs-light", 224, 0, 2)
    full = bullies.plan(quartz, "pairs-full", 224, 0, 2)
    assert light["about"]["uplink_capacity"] == 16
    assert light["about"]["pairs_per_leaf_pair"] == 10 and full["about"]["pairs_per_leaf_pair"] == 17
    adjacent = {(f"leaf{i:02d}", f"leaf{i + 1:02d}") for i in range(0, 16, 2)}
    # both ways: 2 flows per node pair, on each of the 8 adjacent leaf pairs
    assert _per_leaf_pair(quartz, light["flows"]) == {k: 20 for k in adjacent}
    assert _per_leaf_pair(quartz, full["flows"]) == {k: 34 for k in adjacent}
    assert len(full["bully"]) == 16 * 17
    # the application spread over both pods, 14 per leaf, on the same nodes for both
    leaf = _leaf(quartz)
    assert light["app"] == full["app"]
    assert sorted({sum(leaf[n] == f"leaf{i:02d}" for n in full["app"]) for i in range(16)}) == [14]


def test_quartz_bisection_is_the_full_bully_across_pods(quartz):
    p = bullies.plan(quartz, "bisection", 224, 0, 2)
    pod, leaf = quartz.pod_of(), _leaf(quartz)
    assert p["about"]["pairs_per_leaf_pair"] == 17
    assert all(pod[leaf[s]][:4] != pod[leaf[d]][:4] for s, d in p["flows"])
    assert _per_leaf_pair(quartz, p["flows"]) == {(f"leaf{i:02d}", f"leaf{i + 8:02d}"): 34 for i in range(8)}
    assert len(p["flows"]) == len(bullies.plan(quartz, "pairs-full", 224, 0, 2)["flows"])


def test_quartz_incast_7_leaves_into_the_pods_8th(quartz):
    p = bullies.plan(quartz, "incast", 224, 0, 2)
    leaf = _leaf(quartz)
    assert p["app"] == bullies.plan(quartz, bullies.CONTROL, 224, 0, 2)["app"]   # packed, as the control
    senders = [s for s, _ in p["flows"]]
    receivers = sorted({d for _, d in p["flows"]})
    assert len(senders) == len(set(senders)) == 21
    assert sorted({leaf[s] for s in senders}) == [f"leaf{i:02d}" for i in range(7)]
    assert all(sum(leaf[s] == f"leaf{i:02d}" for s in senders) == 3 for i in range(7))
    assert len(receivers) == 3 and {leaf[d] for d in receivers} == {"leaf07"}
    # each receiver: one sender from every sending leaf
    for d in receivers:
        assert sorted(leaf[s] for s, dd in p["flows"] if dd == d) == [f"leaf{i:02d}" for i in range(7)]
    assert len(p["bully"]) == 24    # the pod's 3 free nodes per leaf


def test_interleaved_instances_on_random_disjoint_nodes(quartz):
    p = bullies.plan(quartz, "interleaved", 224, 0, 2)
    assert p["about"]["instances"] == 2            # 512 nodes hold 2 of 224
    small = bullies.plan(quartz, "interleaved", 16, 3)
    inst = small["instances"]
    assert len(inst) == 10 and all(len(i) == 16 for i in inst)
    flat = [n for i in inst for n in i]
    assert len(set(flat)) == 160 and small["app"] == inst[0]
    assert bullies.plan(quartz, "interleaved", 16, 3)["instances"] == inst          # seeded by the repetition
    assert bullies.plan(quartz, "interleaved", 16, 4)["instances"] != inst
    assert len({_leaf(quartz)[n] for n in inst[0]}) > 4                            # not packed


def test_small_tree_light_full_bisection():
    t = tree()   # 8 leaves of 8, two pods of 4, taper 2: C = 4
    light = bullies.plan(t, "pairs-light", 16, taper=2)
    assert light["about"]["pairs_per_leaf_pair"] == round(10 * 4 / 16)   # 2 of 4 links: 62.5% rounds to 50%
    assert bullies.plan(t, "pairs-full", 16, taper=2)["about"]["pairs_per_leaf_pair"] == 5
    bis = bullies.plan(t, "bisection", 16, taper=2)
    pod, leaf = t.pod_of(), _leaf(t)
    assert bis["flows"] and all(pod[leaf[s]] != pod[leaf[d]] for s, d in bis["flows"])
    # without a taper or uplinks: refused, never one host link per parent switch
    with pytest.raises(GpcnetError, match="give --uplinks-per-leaf U .* or --taper T"):
        bullies.plan(t, "pairs-full", 16)
    assert bullies.plan(t, "pairs-full", 16, uplinks=3)["about"]["pairs_per_leaf_pair"] == 4


def test_one_pod_bisection_halves_the_leaves():
    t = topology.parse("".join(f"SwitchName=l{i} Nodes=n{i}[1-4]\n" for i in range(4))
                       + "SwitchName=s0 Switches=l[0-3]\nSwitchName=s1 Switches=l[0-3]\n")
    p = bullies.plan(t, "bisection", 4, taper=2)
    assert sorted(_per_leaf_pair(t, p["flows"])) == [("l0", "l2"), ("l1", "l3")]


@pytest.mark.parametrize("pattern,n,message", [
    ("pairs-full", 56, r"pairs-full: leaf leaf0 is too small: it has 8 nodes, the application takes 7 there "
                       r"and the bully's 5 pairs per leaf pair need 5$"),
    ("pairs-light", 72, r"pairs-light: the application of 72 nodes spread over 8 leaves needs 9 in leaf leaf0, "
                        r"which has 8$"),
    # 7 of 8 on leaves 0 and 1, 2 on leaf 2 (the target): leaf 0 sends with 1 free. At N <= 5 leaf 0 is
    # the target (5 + 3 receivers) and leaves 1-3 send: the largest N that fits.
    ("incast", 16, r"incast: leaf leaf0 is too small: it has 8 nodes, the application takes 7 there and the "
                   r"incast's senders need 3; give -n 5 \(the largest below 16 that leaves the incast room\) "
                   r"or leave incast out of --patterns$"),
    ("control", 40, r"control: the application of 40 nodes does not fit packed in one pod: pod of leaves "
                    r"leaf0..leaf3 holds 28"),
    ("interleaved", 40, r"interleaved: 64 nodes hold 1 instance\(s\) of 40 nodes"),
    ("storm", 4, r"unknown bully pattern 'storm'"),
])
def test_leaves_too_small_for_a_pattern(pattern, n, message):
    with pytest.raises(GpcnetError, match=message):
        bullies.plan(tree(), pattern, n, taper=2)


def test_other_bad_trees():
    one_leaf = topology.parse("SwitchName=s0 Nodes=a[1-4]\n")
    with pytest.raises(GpcnetError, match="at least 2 leaf switches"):
        bullies.plan(one_leaf, "pairs-light", 1, taper=2)
    with pytest.raises(GpcnetError, match="incast: the first pod has 1 leaf switch"):
        bullies.plan(one_leaf, "incast", 1)
    flat = topology.parse("SwitchName=s0 Nodes=a[1-4]\nSwitchName=s1 Nodes=b[1-4]\n")
    with pytest.raises(GpcnetError, match="no uplinks"):
        bullies.plan(flat, "pairs-light", 1, taper=2)
    for text in ("", "pairs-light,pairs-light", "storm"):
        with pytest.raises(GpcnetError, match="--patterns"):
            bullies.check_patterns(text)


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
