"""The flow-level eBB model (gpcnet/testbed/ebb_model.py) against cases
computed by hand, and its matching generator's own properties. That the
generator draws the same pairs as network_test --ebb is
tests/integration/test_ebb.py."""
import itertools

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.ebb_model import (TwoLevelTree, matching_partners, max_min_rates,
                                      pair_fractions, predict)


def test_max_min_hands_a_bottleneck_share_on():
    # B (1) shared by f1, f2, f3: 1/3 each; f0 alone on A with f1 takes the
    # 2/3 that f1 leaves of A, not 1/2.
    rates = max_min_rates([["A"], ["A", "B"], ["B"], ["B"]], {"A": 1.0, "B": 1.0})
    assert rates == pytest.approx([2 / 3, 1 / 3, 1 / 3, 1 / 3])


def test_static_routing_collides_on_an_uplink():
    # 6 hosts, 3 leaves of 2 (hosts 1-2, 3-4, 5-6), 2 spines, taper 1: each
    # leaf-spine link carries one host rate. Pairs (1,3), (2,5), (4,6):
    # 1->3 and 2->5 both go to odd hosts, so up through spine 0 from leaf 0:
    # half each; 5->2 and 6->4 both to even hosts from leaf 2 through
    # spine 1: half each; 3->1 and 4->6 alone at full rate. Each pair runs
    # at its slower way: 1/2, 1/2, 1/2.
    tree = TwoLevelTree(6, 2, 2)
    partner = [2, 4, 0, 5, 1, 3]  # nodes 0-based: host = node + 1
    assert pair_fractions(tree, partner) == pytest.approx([0.5, 0.5, 0.5])
    # Pairs within their leaf never leave it: full rate.
    assert pair_fractions(tree, [1, 0, 3, 2, 5, 4]) == pytest.approx([1.0, 1.0, 1.0])


def test_a_tapered_tree_over_every_matching():
    # 4 hosts, 2 leaves, 1 spine, taper 2: each leaf's uplink carries one
    # host rate for its two hosts. The three matchings of 4: {12, 34} stays
    # in the leaves (1); {13, 24} and {14, 23} put both flows of a leaf on
    # its uplink (1/2). Over the three: 2/3.
    tree = TwoLevelTree(4, 2, 1, taper=2)
    by_hand = {((0, 1), (2, 3)): 1.0, ((0, 2), (1, 3)): 0.5, ((0, 3), (1, 2)): 0.5}
    got = {}
    for pairs in by_hand:
        partner = [0] * 4
        for a, b in pairs:
            partner[a], partner[b] = b, a
        fr = pair_fractions(tree, partner)
        got[pairs] = sum(fr) / len(fr)
    assert got == pytest.approx(by_hand)
    # Many seeded matchings come near the mean of the three.
    assert predict(tree, 7, 600)["fraction"] == pytest.approx(2 / 3, abs=0.04)


def test_two_leaves_under_d_mod_k_do_not_block():
    # 8 hosts on 2 leaves of 4 with 2 spines: a leaf's hosts send at most two
    # flows to each residue of the other leaf, which its uplink (2 host
    # rates) carries: every matching is at full rate.
    tree = TwoLevelTree(8, 4, 2)
    assert predict(tree, 1000, 30)["per_matching"] == [1.0] * 30


@pytest.mark.parametrize("n", [2, 4, 6, 10, 64])
def test_every_node_is_matched_once(n):
    for m in range(20):
        partner = matching_partners(1000, m, n)
        assert sorted(partner) == list(range(n))
        assert all(partner[partner[i]] == i and partner[i] != i for i in range(n))


def test_matchings_follow_the_seed():
    a = [matching_partners(5, m, 8) for m in range(10)]
    assert a == [matching_partners(5, m, 8) for m in range(10)]
    assert a != [matching_partners(6, m, 8) for m in range(10)]
    assert len({tuple(p) for p in a}) > 1  # the matchings of one run differ


def test_every_matching_of_four_turns_up():
    seen = {tuple(matching_partners(3, m, 4)) for m in range(60)}
    assert seen == {(1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0)}


@pytest.mark.parametrize("n", [0, 1, 3, 7])
def test_an_odd_node_count_is_refused(n):
    with pytest.raises(GpcnetError, match="even number of nodes"):
        matching_partners(1, 0, n)


def test_a_tree_that_does_not_fill_its_leaves_is_refused():
    with pytest.raises(GpcnetError, match="do not fill leaves"):
        TwoLevelTree(6, 4, 2)


def synthetic_ebb(tree, seed, matchings, names, link_gbit=0.1):
    """An ebb member whose pairs ran at exactly the model's rates for the
    hosts the names say."""
    from gpcnet.testbed.ebb_model import host_numbers
    host_of = host_numbers(names, tree.hosts)
    link = link_gbit * 1e9 / 8 / (1 << 20)
    per = []
    for m in range(matchings):
        fr = pair_fractions(tree, matching_partners(seed, m, tree.hosts), host_of)
        per.append({"mean_mib_s": sum(fr) / len(fr) * link})
    return {"seed": seed, "matchings": matchings, "nodes": tree.hosts, "node_names": names,
            "link_rate_gbit": link_gbit, "per_matching": per}


def test_compare_maps_nodes_to_hosts_by_name():
    from gpcnet.testbed.ebb_model import compare
    tree = TwoLevelTree(8, 2, 2)
    # node i is not host i + 1: the model must follow the names
    hosts = [1, 3, 5, 7, 2, 4, 6, 8]
    got = compare(synthetic_ebb(tree, 11, 12, [f"node{n:02d}" for n in hosts]), tree)
    assert got["measured"] == pytest.approx(got["model"])
    assert got["model"] == predict(tree, 11, 12, hosts)["per_matching"]
    assert got["model"] != predict(tree, 11, 12)["per_matching"]  # the mapping matters here


def test_compare_refuses_what_it_cannot_compare():
    from gpcnet.testbed.ebb_model import compare
    tree = TwoLevelTree(4, 2, 1)
    ebb = synthetic_ebb(tree, 1, 2, ["node01", "node02", "node03", "node04"])
    with pytest.raises(GpcnetError, match="not the 4 testbed hosts"):
        compare({**ebb, "node_names": ["nid001", "nid002", "nid003", "nid004"]}, tree)
    with pytest.raises(GpcnetError, match="no link rate"):
        compare({**ebb, "link_rate_gbit": None}, tree)


def test_the_command_says_what_is_wrong_in_one_line(tmp_path, capsys):
    from gpcnet.testbed.ebb_model import main
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert main([str(bad), "--hosts-per-leaf", "2", "--spines", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ebb_model: ") and err.count("\n") == 1 and "Traceback" not in err
