"""gpcnet testbed run passes network_test --ebb the hosts' link rate
(launch.with_link_rate; docs/testbed.md#effective-bisection-bandwidth),
and leaves every other command, and a rate the user gave, as it was."""
import pytest

from gpcnet.testbed import launch, topology


@pytest.fixture
def tree():
    return topology.build("fat-tree", 8, hosts_per_leaf=2, spines=2, host_rate="100mbit")


def test_network_test_with_ebb_is_told_the_rate(tree, capsys):
    got = launch.with_link_rate(tree, ["./build/network_test", "--ebb", "5"])
    assert got == ["./build/network_test", "--link-rate", "0.1", "--ebb", "5"]
    assert "--link-rate 0.1" in capsys.readouterr().err
    got = launch.with_link_rate(tree, ["network_test", "--ebb=5"])
    assert got[1:3] == ["--link-rate", "0.1"]


@pytest.mark.parametrize("command", [
    ["./network_test", "--ebb", "5", "--link-rate", "25"],
    ["./network_test", "--ebb", "5", "--link-rate=25"],
    ["./network_test", "--tests", "rr_two_sided_bw"],
    ["./network_load_test", "--ebb", "5"],
    ["hostname"],
])
def test_other_commands_pass_unchanged(tree, command):
    assert launch.with_link_rate(tree, command) == command


def test_unlimited_links_have_no_rate_to_give():
    topo = topology.build("fat-tree", 8, hosts_per_leaf=2, spines=2, host_rate="none")
    assert launch.with_link_rate(topo, ["network_test", "--ebb", "2"]) == ["network_test", "--ebb", "2"]
