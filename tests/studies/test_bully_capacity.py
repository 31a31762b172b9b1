"""The bully planner on the poster's own geometry (LLNL Quartz: 32-port
leaves with 31 user nodes and 1 system node, 16 links up per leaf, pods of
8 leaves, N = 224), with 31 and with 32 nodes listed per leaf, through
`gpcnet study bully --plan` (the runs as JSON, nothing run): the leaf's
uplinks come from --uplinks-per-leaf or --taper, never from the number of
parent switches, and the counts are the poster's (light 10, full 17,
control 28 per leaf, incast at N = 224)."""
import json

import pytest

from gpcnet.cli import main
from gpcnet.study import bullies, topology


def poster_conf(path, listed: int, leaves: int = 16) -> str:
    """Leaves of `listed` nodes (31: Slurm lists the user nodes), 8 leaves
    per pod under 8 second-level switches, one top level."""
    lines = [f"SwitchName=leaf{i:03d} Nodes=quartz[{32 * i + 1:04d}-{32 * i + listed:04d}]" for i in range(leaves)]
    for pod in range((leaves + 7) // 8):
        first, last = 8 * pod, min(8 * pod + 7, leaves - 1)
        for s in range(8):
            lines.append(f"SwitchName=pod{pod:02d}sw{s} Switches=leaf[{first:03d}-{last:03d}]")
    lines.append("SwitchName=top Switches=" + ",".join(f"pod{p:02d}sw[0-7]" for p in range((leaves + 7) // 8)))
    path.write_text("# LLNL Quartz as Slurm lists it\n" + "\n".join(lines) + "\n")
    return str(path)


def plan_of(capsys, conf, *args) -> dict:
    code = main(["study", "bully", "--topology", conf, "-n", "224", "--rotations", "1", "--plan", *args,
                 "--", "app"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return {r["name"]: r for r in json.loads(out)["runs"]}


def _per_leaf(t, nodes):
    leaf, out = t.leaf_of(), {}
    for n in nodes:
        out[leaf[n]] = out.get(leaf[n], 0) + 1
    return out


def _pairs_per_leaf_pair(t, flows):
    leaf, out = t.leaf_of(), {}
    for s, d in flows:
        key = tuple(sorted((leaf[s], leaf[d])))
        out[key] = out.get(key, 0) + 1
    return {k: v // 2 for k, v in out.items()}      # both ways: 2 flows per node pair


@pytest.mark.parametrize("listed", [31, 32])
@pytest.mark.parametrize("capacity", [["--uplinks-per-leaf", "16"], ["--taper", "2"]])
def test_poster_geometry_plans_the_posters_counts(tmp_path, capsys, listed, capacity):
    conf = poster_conf(tmp_path / "topology.conf", listed)
    t = topology.read(conf)
    runs = plan_of(capsys, conf, *capacity)
    assert list(runs) == ["control", *bullies.PATTERNS]
    control = runs["control"]
    assert control["flows"] == [] and control["congestor"] == []
    assert _per_leaf(t, control["app"]) == {f"leaf{i:03d}": 28 for i in range(8)}      # 28 per switch, one pod
    for name, pairs in (("pairs-light", 10), ("pairs-full", 17), ("bisection", 17)):
        r = runs[name]
        assert r["pattern"] == name and r["about"]["uplink_capacity"] == 16
        assert r["about"]["pairs_per_leaf_pair"] == pairs
        assert set(_pairs_per_leaf_pair(t, r["flows"]).values()) == {pairs}
        assert len(_pairs_per_leaf_pair(t, r["flows"])) == 8
        assert set(_per_leaf(t, r["app"]).values()) == {14}                           # 14 per leaf, two pods
        assert not set(r["app"]) & set(r["congestor"])
    incast = runs["incast"]
    assert incast["app"] == control["app"] and len(incast["flows"]) == 21
    assert len({d for _, d in incast["flows"]}) == 3
    assert runs["interleaved"]["about"]["instances"] == 2    # 16 leaves hold 2 of 224


def test_the_whole_machine_runs_10_interleaved_instances(tmp_path, capsys):
    conf = poster_conf(tmp_path / "topology.conf", 31, leaves=84)     # 2,604 user nodes of 2,688
    runs = plan_of(capsys, conf, "--uplinks-per-leaf", "16", "--patterns", "interleaved,pairs-full")
    inter = runs["interleaved"]
    assert len(inter["instances"]) == 10 and all(len(i) == 224 for i in inter["instances"])
    assert inter["app"] == inter["instances"][0] and inter["about"]["seed"] == "interleaved-0"
    assert len({n for i in inter["instances"] for n in i}) == 2240
    assert runs["pairs-full"]["about"]["pairs_per_leaf_pair"] == 17


def test_every_repetition_is_a_run_and_the_plan_writes_nothing(tmp_path, capsys):
    conf = poster_conf(tmp_path / "topology.conf", 31)
    code = main(["study", "bully", "--topology", conf, "-n", "224", "--rotations", "2", "--taper", "2",
                 "--patterns", "interleaved", "--plan", "-o", str(tmp_path / "s.json"), "--", "app"])
    out, err = capsys.readouterr()
    assert code == 0, err
    runs = json.loads(out)["runs"]
    assert [(r["name"], r["id"]) for r in runs] == [("control", "control-r0"), ("interleaved", "interleaved-r0"),
                                                    ("control", "control-r1"), ("interleaved", "interleaved-r1")]
    assert runs[1]["instances"] != runs[3]["instances"]             # a new draw per repetition
    assert sorted(p.name for p in tmp_path.iterdir()) == ["topology.conf"]


@pytest.mark.parametrize("args,says", [
    ([], "pairs-light: the leaves' uplink capacity is unknown (topology.conf lists parent switches, not links): "
         "give --uplinks-per-leaf U"),
    (["--uplinks-per-leaf", "0"], "--uplinks-per-leaf 0: expected a whole number of links, 1 or more"),
    (["--uplinks-per-leaf", "-3"], "--uplinks-per-leaf -3: expected a whole number"),
    (["--taper", "inf"], "--taper inf: expected a finite number, 1 or more"),
    (["--taper", "2", "-n", "225"], "control: the application of 225 nodes does not fit packed in one pod: pod of "
                                    "leaves leaf000..leaf007 holds 224 (28 of every 31 listed nodes of a leaf)"),
])
def test_bad_capacity_is_one_line_with_or_without_plan(tmp_path, capsys, args, says):
    conf = poster_conf(tmp_path / "topology.conf", 31)
    for plan in ([], ["--plan"]):
        code = main(["study", "bully", "--launcher", "local", "--topology", conf, "-n", "224", *plan, *args,
                     "-o", str(tmp_path / "s.json"), "--", "true"])
        out, err = capsys.readouterr()
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
        assert out == "" and not (tmp_path / "s.json").exists() and not (tmp_path / "s.d").exists()


def test_incast_and_control_need_no_capacity(tmp_path, capsys):
    conf = poster_conf(tmp_path / "topology.conf", 31)
    runs = plan_of(capsys, conf, "--patterns", "incast,interleaved")
    assert len(runs["incast"]["flows"]) == 21


def test_the_testbed_knows_its_uplinks():
    from types import SimpleNamespace as NS
    # 4 hosts per leaf at 100 Mbit/s, taper 2, 2 spines: 2 uplinks of 100 Mbit/s = 2 host links
    assert bullies.testbed_uplinks(NS(params={"spines": 2, "uplink_rate": 10**8, "host_rate": 10**8})) == 2
    assert bullies.testbed_uplinks(NS(params={"spines": 1, "uplink_rate": 4 * 10**8, "host_rate": 10**8})) == 4
    assert bullies.testbed_uplinks(NS(params={"spines": 2, "uplink_rate": 0, "host_rate": 0})) is None


def test_corun_plan_lists_settings_and_congestor_nodes(tmp_path, capsys):
    code = main(["study", "corun", "--nodes", "n[01-12]", "-n", "4", "--rotations", "2", "--plan",
                 "--", "app"])
    out, err = capsys.readouterr()
    assert code == 0, err
    runs = json.loads(out)["runs"]
    assert [r["id"] for r in runs] == ["I-r0", "II-r0", "III-r0", "IV-r0", "I-r1", "II-r1", "III-r1", "IV-r1"]
    iv = runs[3]
    assert iv["name"] == iv["setting"] == "IV" and iv["app"] == ["n01", "n03", "n05", "n07"]
    assert iv["congestor"] == ["n02", "n04", "n06", "n08"] and iv["flows"] == []
    assert runs[4]["about"]["offset"] == 6 and runs[4]["app"] == ["n07", "n08", "n09", "n10"]
    code = main(["study", "corun", "--nodes", "n[01-12]", "-n", "5", "--plan", "--", "app"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "N = 5 needs a list of at least 3N = 15 nodes" in err
