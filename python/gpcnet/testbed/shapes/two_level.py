"""What the two-level shapes (fat-tree, rail) share: leaves joined by every
one of --spines spines, and static destination-based forwarding."""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.shapes.base import Forwarding, Shape, Trunk, check_taper, leaves


class TwoLevel(Shape):
    def check_hosts_per_leaf(self, hosts: int, hosts_per_leaf: int) -> int:
        """--hosts-per-leaf as the shape takes it (0: its default)."""
        raise NotImplementedError

    def leaf_names(self, groups: int, nics: int) -> list:
        raise NotImplementedError

    def leaf_rail(self, leaf_index: int, nics: int) -> int:
        return -1

    def layout(self, hosts, nics, hosts_per_leaf, spines, taper, rate):
        hosts_per_leaf = self.check_hosts_per_leaf(hosts, hosts_per_leaf)
        if hosts % hosts_per_leaf:
            raise GpcnetError(f"--hosts {hosts} is not divisible by --hosts-per-leaf "
                              f"{hosts_per_leaf}: every leaf must have the same number of hosts")
        if not 1 <= spines <= 16:
            raise GpcnetError(f"--spines {spines}: expected 1 to 16")
        check_taper(taper, rate)
        leaf_names = self.leaf_names(hosts // hosts_per_leaf, nics)
        spine_names = [f"spine{i}" for i in range(spines)]
        trunks = [Trunk(leaf, spine, f"l{li}s{si}", f"s{si}l{li}", self.leaf_rail(li, nics))
                  for li, leaf in enumerate(leaf_names) for si, spine in enumerate(spine_names)]
        return self.cabling(leaf_names, spine_names, hosts_per_leaf, nics, trunks)

    def cabling(self, leaf_names, spine_names, hosts_per_leaf, nics, trunks):
        raise NotImplementedError

    def switch_summary(self, topo) -> str:
        p = topo.params
        return (f"{len(leaves(topo))} leaves x {p['hosts_per_leaf']} hosts, "
                f"{p['spines']} spine(s), taper {p['taper']:g}")

    def forwarding(self, topo) -> Forwarding:
        """A two-level tree of bridges has loops through the spines. Instead
        of a spanning tree (which would switch off all spines but one) every
        switch gets static forwarding entries, destination-based as in an HPC
        fabric's d-mod-k routing: traffic to host h goes up through spine
        (h-1) mod spines (to NIC i of a host with k NICs: spine ((h-1) k + i)
        mod spines). Broadcasts (ARP) only go up through spine0, and no
        uplink learns, so nothing loops and nothing is relearnt."""
        fwd = Forwarding()
        leaf_index = {leaf: i for i, leaf in enumerate(leaves(topo))}
        for li in leaf_index.values():
            for si in range(len(topo.spines)):
                for name in (f"l{li}s{si}", f"s{si}l{li}"):
                    fwd.ports[name] = 1 if (si == 0 or name.startswith("s")) else 0
        for h in topo.hosts:
            for nic in h.nics:      # every NIC of a multi-NIC host has its own entries
                hl = leaf_index[nic.leaf]
                si = topo.spines.index(topo.spine_for(h, nic.index))
                ports = [nic.port] + [f"s{s}l{hl}" for s in range(len(topo.spines))]
                ports += [f"l{li}s{si}" for li in leaf_index.values() if li != hl]
                fwd.entries += [(port, nic.mac) for port in ports]
        return fwd
