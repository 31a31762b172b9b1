"""Issue 55: the bully planner on trees the poster's tests do not use.
Each leaf pair sized by its own two leaves (not the smallest leaf of the
tree), capacities that cannot be refused and doubtful ones warned of, the
incast's receivers beside the application and its refusal naming the fix.
Every count below is worked by hand in the comments."""
import json

import pytest

from gpcnet.cli import main
from gpcnet.infra.errors import GpcnetError
from gpcnet.study import bullies, topology


def two_pods(sizes: list, parents: int = 2) -> str:
    """Leaves l0.. listing sizes[i] nodes, the first half under `parents`
    switches of pod a, the second half under those of pod b, a top above."""
    half = len(sizes) // 2
    lines = [f"SwitchName=l{i} Nodes=l{i}n[01-{size:02d}]" for i, size in enumerate(sizes)]
    lines += [f"SwitchName=a{s} Switches=l[0-{half - 1}]" for s in range(parents)]
    lines += [f"SwitchName=b{s} Switches=l[{half}-{len(sizes) - 1}]" for s in range(parents)]
    lines.append(f"SwitchName=top Switches=a[0-{parents - 1}],b[0-{parents - 1}]")
    return "\n".join(lines) + "\n"


def one_pod(leaves: int, size: int, spines: int = 2) -> str:
    lines = [f"SwitchName=l{i} Nodes=l{i}n[01-{size:02d}]" for i in range(leaves)]
    lines += [f"SwitchName=s{s} Switches=l[0-{leaves - 1}]" for s in range(spines)]
    return "\n".join(lines) + "\n"


# Eight leaves of 18 nodes, one (l5) of 12, two pods of four.
ONE_SMALL = [18, 18, 18, 18, 18, 12, 18, 18]


def per_leaf_pair(t, flows) -> dict:
    leaf, out = t.leaf_of(), {}
    for s, d in flows:
        key = (leaf[s], leaf[d]) if leaf[s] < leaf[d] else (leaf[d], leaf[s])
        out[key] = out.get(key, 0) + 1
    return {k: v // 2 for k, v in out.items()}      # both ways: 2 flows per node pair


@pytest.mark.parametrize("taper,usual,small", [
    # --taper 2: U = ceil(18 / 2) = 9 and ceil(12 / 2) = 6.
    # light round(10 x 9 / 16) = round(5.625) = 6, round(10 x 6 / 16) = round(3.75) = 4; full 9+1 = 10, 6+1 = 7.
    (2, {"U": 9, "pairs-light": 6, "pairs-full": 10}, {"U": 6, "pairs-light": 4, "pairs-full": 7}),
    # --taper 3: U = 6 and ceil(12 / 3) = 4; light 4 and round(2.5) = 2 (half to even); full 7 and 5.
    (3, {"U": 6, "pairs-light": 4, "pairs-full": 7}, {"U": 4, "pairs-light": 2, "pairs-full": 5}),
])
def test_each_leaf_pair_is_sized_by_its_own_leaves(taper, usual, small):
    t = topology.parse(two_pods(ONE_SMALL), "t.conf")
    # N = 16 spread over 8 leaves: 2 each, so l5 holds 2 + 7 at most of its 12.
    for pattern, pairs in (("pairs-light", [("l0", "l1"), ("l2", "l3"), ("l4", "l5"), ("l6", "l7")]),
                           ("pairs-full", [("l0", "l1"), ("l2", "l3"), ("l4", "l5"), ("l6", "l7")]),
                           ("bisection", [("l0", "l4"), ("l1", "l5"), ("l2", "l6"), ("l3", "l7")])):
        p = bullies.plan(t, pattern, 16, taper=taper)
        kind = "pairs-light" if pattern == "pairs-light" else "pairs-full"
        want = {pair: small[kind] if "l5" in pair else usual[kind] for pair in pairs}
        assert per_leaf_pair(t, p["flows"]) == want, pattern
        about = p["about"]
        assert about["uplink_capacity"] == usual["U"] and about["pairs_per_leaf_pair"] == usual[kind]
        [odd] = about["differing_leaf_pairs"]
        assert odd["leaf_pair"] == list([a for a in pairs if "l5" in a][0]) and odd["pairs"] == small[kind]
        assert odd["uplink_capacity"] == small["U"]
        assert odd["why"].startswith(f"leaf l5 lists 12 nodes: {small['U']} links up at --taper {taper} "
                                     f"(most leaf pairs: {usual['U']})")


def test_a_stated_capacity_sizes_every_pair_alike():
    t = topology.parse(two_pods(ONE_SMALL), "t.conf")
    # --uplinks-per-leaf 9 for every leaf: full 10 pairs everywhere (l5: 2 + 10 = 12 of 12), nothing differs.
    p = bullies.plan(t, "pairs-full", 16, uplinks=9)
    assert set(per_leaf_pair(t, p["flows"]).values()) == {10} and len(p["flows"]) == 4 * 10 * 2
    assert "differing_leaf_pairs" not in p["about"]


def plan_cli(capsys, conf, n, *args):
    code = main(["study", "bully", "--topology", conf, "-n", str(n), "--rotations", "1", "--plan", *args,
                 "--", "app"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else out), err


def test_the_plan_says_which_pairs_differ_and_why(tmp_path, capsys):
    conf = tmp_path / "topology.conf"
    conf.write_text(two_pods(ONE_SMALL))
    code, doc, err = plan_cli(capsys, str(conf), 16, "--taper", "2", "--patterns", "pairs-full")
    assert code == 0, err
    about = {r["name"]: r["about"] for r in doc["runs"]}["pairs-full"]
    assert about["pairs_per_leaf_pair"] == 10
    assert [(d["leaf_pair"], d["pairs"]) for d in about["differing_leaf_pairs"]] == [(["l4", "l5"], 7)]
    assert err.strip() == ("pairs-full: 7 pairs between l4 and l5, not 10: leaf l5 lists 12 nodes: 6 links up "
                           "at --taper 2 (most leaf pairs: 9); a leaf pair is sized by the fewer links of its "
                           "two leaves")


def poster_tree(path, listed=31, leaves=16) -> str:
    """LLNL Quartz as Slurm lists it: leaves of 31 user nodes, 8 per pod
    under 8 second-level switches (each leaf: 8 parents, 16 links up)."""
    lines = [f"SwitchName=leaf{i:03d} Nodes=q[{32 * i + 1:04d}-{32 * i + listed:04d}]" for i in range(leaves)]
    for pod in range(leaves // 8):
        lines += [f"SwitchName=pod{pod}sw{s} Switches=leaf[{8 * pod:03d}-{8 * pod + 7:03d}]" for s in range(8)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_parent_switch_count_as_uplinks_is_warned_of(tmp_path, capsys):
    conf = poster_tree(tmp_path / "topology.conf")
    code, doc, err = plan_cli(capsys, conf, 224, "--uplinks-per-leaf", "8", "--patterns", "pairs-light,incast")
    assert code == 0, err
    # U = 8 (the 8 second-level switches): light round(10 x 8 / 16) = 5 pairs, planned and warned of.
    runs = {r["name"]: r for r in doc["runs"]}
    assert runs["pairs-light"]["about"]["pairs_per_leaf_pair"] == 5
    [warning] = runs["pairs-light"]["about"]["warnings"]
    assert warning.startswith("--uplinks-per-leaf 8 is the number of parent switches of leaf leaf000, leaf001, "
                              "leaf002 and 13 more in the topology: U counts links up in host links, not switches")
    assert err.strip() == f"warning: {warning}"
    assert "warnings" not in runs["incast"]["about"]          # the incast does not use U
    # The right number, 16: no warning.
    code, doc, err = plan_cli(capsys, conf, 224, "--uplinks-per-leaf", "16", "--patterns", "pairs-light")
    assert code == 0 and err == "" and "warnings" not in doc["runs"][1]["about"]


def test_uplinks_above_one_leaf_are_warned_of(tmp_path, capsys):
    conf = tmp_path / "topology.conf"
    conf.write_text(two_pods(ONE_SMALL))
    # 14 links up: more than l5's 12 nodes, fewer than the others' 18. light round(140 / 16) = 9; l5: 2 + 9 of 12.
    code, doc, err = plan_cli(capsys, str(conf), 16, "--uplinks-per-leaf", "14", "--patterns", "pairs-light")
    assert code == 0, err
    assert err.strip() == ("warning: --uplinks-per-leaf 14 is more than the nodes of leaf l5 (12 or fewer): "
                           "more links up than nodes; check it")
    assert doc["runs"][1]["about"]["warnings"] == [err.strip()[len("warning: "):]]


@pytest.mark.parametrize("args,says", [
    (["--taper", "1e9"], "--taper 1e+09: every leaf would have less than one link up (the largest, leaf000, "
                         "lists 31 nodes: 31 / 1e+09)"),
    (["--taper", "0.5"], "--taper 0.5: a taper below 1 gives every leaf more links up than nodes"),
    (["--taper", "nan"], "--taper nan: expected a finite number, 1 or more"),
    (["--uplinks-per-leaf", "100"], "--uplinks-per-leaf 100: more links up than any leaf has nodes (the largest, "
                                    "leaf000, lists 31)"),
    (["--uplinks-per-leaf", "16", "--taper", "2"], "--uplinks-per-leaf 16 and --taper 2: give one of them"),
])
def test_capacities_that_cannot_be_are_refused_naming_the_option(tmp_path, capsys, args, says):
    conf = poster_tree(tmp_path / "topology.conf")
    for patterns in ("pairs-light", "incast"):       # refused whether or not a pattern uses U
        code, out, err = plan_cli(capsys, conf, 224, "--patterns", patterns, *args)
        assert code == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1, err


def test_the_incast_target_holds_application_nodes_at_small_n(tmp_path):
    t = topology.read(poster_tree(tmp_path / "topology.conf"))
    # N = 16 packed: 16 on leaf000. The receivers go beside them (16 + 3 of 31), the senders in leaf001-007.
    p = bullies.plan(t, "incast", 16)
    leaf = t.leaf_of()
    assert p["about"]["target_leaf"] == "leaf000" and p["about"]["app_per_leaf"] == {"leaf000": 16}
    assert p["about"]["source_leaves"] == [f"leaf{i:03d}" for i in range(1, 8)]
    assert {leaf[d] for _, d in p["flows"]} == {"leaf000"} and len(p["flows"]) == 21
    # N = 60: 28 + 28 + 4; the target is leaf002 (4 + 3), the senders the first 7 others (leaf000-001, 003-007).
    p = bullies.plan(t, "incast", 60)
    assert p["about"]["target_leaf"] == "leaf002"
    assert p["about"]["source_leaves"] == ["leaf000", "leaf001"] + [f"leaf{i:03d}" for i in range(3, 8)]


def test_seven_node_leaves(tmp_path):
    t = topology.parse(one_pod(4, 7), "t.conf")
    # 28 x 7 // 31 = 6 per leaf packed, 1 free. N = 4 on l0: 4 + 3 receivers = 7; l1-l3 send 3 each.
    p = bullies.plan(t, "incast", 4)
    assert p["about"]["target_leaf"] == "l0" and p["about"]["source_leaves"] == ["l1", "l2", "l3"]
    assert len(p["flows"]) == 9 and sorted({d for _, d in p["flows"]}) == ["l0n05", "l0n06", "l0n07"]
    assert not set(p["app"]) & set(p["bully"])
    # N = 6 fills l0 (1 free, 3 receivers needed); N = 8: 6 + 2, l0 sends with 1 free. N = 4 is the largest.
    for n, where in ((6, "leaf l0 is too small: it has 7 nodes, the application takes 6 there and the incast's "
                         "receivers need 3"),
                     (8, "leaf l0 is too small: it has 7 nodes, the application takes 6 there and the incast's "
                         "senders need 3")):
        with pytest.raises(GpcnetError) as e:
            bullies.plan(t, "incast", n)
        assert str(e.value) == (f"incast: {where}; give -n 4 (the largest below {n} that leaves the incast room) "
                                "or leave incast out of --patterns")
    # Leaves of 2: never room for 3 senders or receivers; only dropping the pattern helps.
    with pytest.raises(GpcnetError, match=r"receivers need 3; leave incast out of --patterns$"):
        bullies.plan(topology.parse(one_pod(4, 2), "t.conf"), "incast", 1)


def test_leaves_under_21_nodes_refuse_the_default_patterns_naming_the_fix(tmp_path, capsys):
    conf = tmp_path / "topology.conf"
    conf.write_text(one_pod(8, 20))
    # 28 x 20 // 31 = 18 per leaf packed, 2 free: N = 18 fills l0. Every other default pattern fits
    # (spread 3 or 2 per leaf, U = 10 at --taper 2: full 11 pairs, 3 + 11 of 20); the incast does not.
    # N = 17 fits: 17 + 3 receivers on l0.
    code, out, err = plan_cli(capsys, str(conf), 18, "--taper", "2")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.strip().endswith("incast: leaf l0 is too small: it has 20 nodes, the application takes 18 there "
                                "and the incast's receivers need 3; give -n 17 (the largest below 18 that leaves "
                                "the incast room) or leave incast out of --patterns")
    for n, fixed in ((17, []), (18, ["--patterns", "pairs-light,pairs-full,bisection,interleaved"])):
        code, doc, err = plan_cli(capsys, str(conf), n, "--taper", "2", *fixed)
        assert code == 0, err


def test_the_study_json_records_the_differing_pairs_and_warnings(tmp_path, capsys, monkeypatch):
    """The study's config (what the JSON keeps) carries the same plan; a
    real study says the lines on its progress output. The runs themselves
    are left out: the study is caught as it would start running."""
    from gpcnet.study import runner
    started = []
    monkeypatch.setattr(runner, "run_study", lambda study, specs, *a, **k: started.append(study) or 0)
    conf = tmp_path / "topology.conf"
    conf.write_text(two_pods(ONE_SMALL))
    # --uplinks-per-leaf 2: each leaf has 2 parent switches (a0, a1 or b0, b1): said; full 3 pairs everywhere.
    code = main(["study", "bully", "--launcher", "local", "--topology", str(conf), "-n", "16", "--rotations", "1",
                 "--uplinks-per-leaf", "2", "--patterns", "pairs-full", "-o", str(tmp_path / "s.json"),
                 "--", "true"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = started[0]["config"]["bully_plan"]["pairs-full"]
    assert plan["pairs_per_leaf_pair"] == 3 and "differing_leaf_pairs" not in plan
    assert plan["warnings"][0].startswith("--uplinks-per-leaf 2 is the number of parent switches of leaf l0, l1, "
                                          "l2 and 5 more")
    assert out.splitlines()[0] == f"warning: {plan['warnings'][0]}"
    # --taper 3: l5's pair (l4, l5) gets 5 pairs, the others 7 (U 4 and 6, worked above).
    code = main(["study", "bully", "--launcher", "local", "--topology", str(conf), "-n", "16", "--rotations", "1",
                 "--taper", "3", "--patterns", "pairs-full", "-o", str(tmp_path / "s.json"), "--", "true"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = started[1]["config"]["bully_plan"]["pairs-full"]
    assert "warnings" not in plan and plan["pairs_per_leaf_pair"] == 7
    assert [(d["leaf_pair"], d["pairs"]) for d in plan["differing_leaf_pairs"]] == [(["l4", "l5"], 5)]
    assert out.splitlines()[0].startswith("pairs-full: 5 pairs between l4 and l5, not 7: leaf l5 lists 12 nodes")
