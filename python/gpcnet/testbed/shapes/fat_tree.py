"""fat-tree: leaves of --hosts-per-leaf hosts (every NIC of a host on its
leaf), each leaf cabled to every one of --spines spines."""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.shapes.base import Layout
from gpcnet.testbed.shapes.two_level import TwoLevel


class FatTree(TwoLevel):
    name = "fat-tree"
    help = ("fat-tree: leaves of --hosts-per-leaf hosts, each cabled to every one of --spines "
            "spines; --taper = hosts' bandwidth / uplink bandwidth of a leaf (1 = non-blocking, "
            "4 = 4:1 tapered).")

    def check_hosts_per_leaf(self, hosts, hosts_per_leaf):
        if hosts_per_leaf <= 0 or hosts_per_leaf >= hosts:
            raise GpcnetError(f"--hosts-per-leaf {hosts_per_leaf}: a fat-tree needs 1 to "
                              f"{hosts - 1} hosts per leaf (at least two leaves)")
        return hosts_per_leaf

    def leaf_names(self, groups, nics):
        return [f"leaf{i}" for i in range(groups)]

    def cabling(self, leaf_names, spine_names, hosts_per_leaf, nics, trunks):
        # A leaf has every NIC of its hosts.
        return Layout(leaves=leaf_names, spines=spine_names, hosts_per_leaf=hosts_per_leaf,
                      nic_leaf=lambda group, i: leaf_names[group],
                      host_ports=hosts_per_leaf * nics, uplinks=len(spine_names), trunks=trunks)


SHAPE = FatTree()
