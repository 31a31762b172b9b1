"""rail: NIC i of every host cabled to the leaf of rail i (one leaf per
rail, or one per rail and group of --hosts-per-leaf hosts), the rails'
leaves joined by the spines."""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.shapes.base import Layout
from gpcnet.testbed.shapes.two_level import TwoLevel
from gpcnet.testbed.topology import MAX_NICS


class Rail(TwoLevel):
    name = "rail"
    help = ("rail: --nics-per-host K NICs per host, NIC i of every host to the leaf of rail i, "
            "the rails' leaves joined by the spines.")

    def check_nics(self, nics):
        if nics < 2:
            raise GpcnetError(f"--nics-per-host {nics}: --topology rail needs 2 to {MAX_NICS} NICs per "
                              "host, one per rail (with one NIC it is a fat-tree)")

    def check_hosts_per_leaf(self, hosts, hosts_per_leaf):
        if hosts_per_leaf == 0:
            hosts_per_leaf = hosts          # one leaf per rail holds every host
        if not 1 <= hosts_per_leaf <= hosts:
            raise GpcnetError(f"--hosts-per-leaf {hosts_per_leaf}: a rail needs 1 to {hosts} "
                              "hosts per leaf (default: all)")
        return hosts_per_leaf

    def leaf_names(self, groups, nics):
        # One leaf per rail (and group of hosts): rail r's leaves hold NIC r of their hosts.
        return [f"rail{r}" if groups == 1 else f"rail{r}g{g}"
                for g in range(groups) for r in range(nics)]

    def leaf_rail(self, leaf_index, nics):
        return leaf_index % nics

    def cabling(self, leaf_names, spine_names, hosts_per_leaf, nics, trunks):
        # A rail leaf has one NIC of each of its hosts.
        return Layout(leaves=leaf_names, spines=spine_names, hosts_per_leaf=hosts_per_leaf,
                      nic_leaf=lambda group, i: leaf_names[group * nics + i],
                      host_ports=hosts_per_leaf, uplinks=len(spine_names), trunks=trunks)

    def leaf_positions(self, topo, host_x):
        # The rails' leaves side by side (each has a NIC of every host of its group).
        names = [s for s in topo.switches if s not in topo.spines]
        n = len(topo.hosts)
        return {leaf: (i + 0.5) * n / len(names) - 0.5 for i, leaf in enumerate(names)}

    def nic_note(self, topo):
        return ", cabled to rail i"

    def summary(self, topo):
        p = topo.params
        leaves = (len(topo.switches) - len(topo.spines)) // topo.nics_per_host
        return (f"{topo.nics_per_host} rails x {leaves} leaf/leaves x {p['hosts_per_leaf']} hosts "
                f"(NIC i of every host on rail i, 198.19.i.N), {p['spines']} spine(s), "
                f"taper {p['taper']:g}")


SHAPE = Rail()
