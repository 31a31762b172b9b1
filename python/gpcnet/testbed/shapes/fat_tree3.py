"""fat-tree3: a three-level fat-tree. Pods of leaves and aggregation
switches (every leaf of a pod cabled to every aggregation switch of its
pod), the pods joined by core switches in groups: aggregation switch j of
every pod is cabled to each core of group j. --k K builds the k-ary tree
(Al-Fares et al., SIGCOMM 2008): K pods of K/2 leaves and K/2 aggregation
switches, (K/2)^2 cores, K/2 hosts per leaf (K^3/4 hosts)."""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.shapes.base import (Forwarding, Layout, Shape, Trunk, UpperLevel, check_taper,
                                        leaves)
from gpcnet.testbed.topology import MAX_FABRIC_PORTS, MAX_HOSTS, MAX_SWITCHES

_K_OPTIONS = ("pods", "aggs", "cores")


class FatTree3(Shape):
    name = "fat-tree3"
    help = ("fat-tree3: three levels, --k K for the k-ary tree (K pods of K/2 leaves and K/2 "
            "aggregation switches, (K/2)^2 cores, K^3/4 hosts) or --pods, --aggs, --cores with "
            "--hosts and --hosts-per-leaf; --taper at the leaves, --core-taper at the "
            "aggregation switches.")
    options = ("k", "pods", "aggs", "cores", "core_taper")
    takes_spines = False

    def sized(self, hosts, hosts_per_leaf, k=None, **options):
        if k is None:
            return (10 if hosts is None else hosts), hosts_per_leaf
        given = [o for o in _K_OPTIONS if options.get(o) is not None]
        if given:
            raise GpcnetError(f"--{given[0]}: --k {k} sets the pods, aggregation and core switches "
                              "itself; give --k or --pods/--aggs/--cores, not both")
        if not (isinstance(k, int) and 2 <= k and k % 2 == 0):
            raise GpcnetError(f"--k {k}: expected an even number of 2 or more (K/2 leaves and K/2 "
                              "aggregation switches per pod)")
        want = k ** 3 // 4
        if want > MAX_HOSTS:
            raise GpcnetError(f"--k {k}: {want} hosts, more than the testbed's {MAX_HOSTS}; "
                              "the largest k-ary tree here is --k 8 (128 hosts)")
        if hosts is not None and hosts != want:
            raise GpcnetError(f"--hosts {hosts}: --k {k} has {want} hosts (leave --hosts out)")
        if hosts_per_leaf not in (0, k // 2):
            raise GpcnetError(f"--hosts-per-leaf {hosts_per_leaf}: --k {k} has {k // 2} hosts per "
                              "leaf (leave --hosts-per-leaf out)")
        return want, k // 2

    def layout(self, hosts, nics, hosts_per_leaf, spines, taper, rate, k=None, pods=None,
               aggs=None, cores=None, core_taper=None):
        if k is not None:
            pods, aggs, cores = k, k // 2, (k // 2) ** 2
        pods = 2 if pods is None else pods
        aggs = 2 if aggs is None else aggs
        cores = aggs if cores is None else cores
        core_taper = 1.0 if core_taper is None else core_taper
        if pods < 2:
            raise GpcnetError(f"--pods {pods}: a three-level tree needs 2 or more pods (one pod "
                              "is a two-level --topology fat-tree)")
        if aggs < 1:
            raise GpcnetError(f"--aggs {aggs}: leaves the leaves with no uplink; expected 1 or more "
                              "aggregation switches per pod")
        if cores < 1 or cores % aggs:
            raise GpcnetError(f"--cores {cores}: leaves an aggregation switch with no uplink or "
                              f"the groups uneven; expected a multiple of --aggs {aggs} (aggregation "
                              "switch j of every pod is cabled to core group j)")
        if hosts_per_leaf == 0:                     # one leaf per pod
            if hosts % pods:
                raise GpcnetError(f"--hosts {hosts}: does not split into --pods {pods} of one leaf "
                                  "each; give --hosts-per-leaf (a divisor of --hosts)")
            hosts_per_leaf = hosts // pods
        if not 1 <= hosts_per_leaf <= hosts or hosts % hosts_per_leaf:
            raise GpcnetError(f"--hosts-per-leaf {hosts_per_leaf}: expected a divisor of --hosts "
                              f"{hosts} (every leaf has the same number of hosts)")
        n_leaves = hosts // hosts_per_leaf
        if n_leaves % pods:
            raise GpcnetError(f"--pods {pods}: {n_leaves} leaves ({hosts} hosts, "
                              f"{hosts_per_leaf} per leaf) do not split into {pods} equal pods")
        per_pod, group = n_leaves // pods, cores // aggs
        n_switches = n_leaves + pods * aggs + cores
        if n_switches > MAX_SWITCHES:
            raise GpcnetError(f"fat-tree3 of {n_switches} switches: more than the {MAX_SWITCHES} "
                              "one testbed holds; fewer --pods, --aggs or --cores")
        ports = hosts * nics + 2 * (n_leaves * aggs + pods * aggs * group)
        if ports > MAX_FABRIC_PORTS:
            raise GpcnetError(f"fat-tree3 of {ports} switch ports: more than the {MAX_FABRIC_PORTS} "
                              "one testbed holds; fewer hosts, NICs, --aggs or --cores")
        check_taper(taper, rate)
        check_taper(core_taper, rate, "--core-taper",
                    "bandwidth from the leaves / uplink bandwidth of an aggregation switch")
        leaf_names = [f"leaf{i}" for i in range(n_leaves)]
        agg_names = [f"agg{i}" for i in range(pods * aggs)]
        core_names = [f"core{i}" for i in range(cores)]
        trunks = [Trunk(leaf, agg_names[(li // per_pod) * aggs + j], f"l{li}a{(li // per_pod) * aggs + j}",
                        f"a{(li // per_pod) * aggs + j}l{li}")
                  for li, leaf in enumerate(leaf_names) for j in range(aggs)]
        trunks += [Trunk(agg, core_names[c], f"a{ai}c{c}", f"c{c}a{ai}", level=1)
                   for ai, agg in enumerate(agg_names)
                   for c in range((ai % aggs) * group, (ai % aggs + 1) * group)]
        return Layout(leaves=leaf_names, spines=agg_names + core_names,
                      hosts_per_leaf=hosts_per_leaf, nic_leaf=lambda g, i: leaf_names[g],
                      host_ports=hosts_per_leaf * nics, uplinks=aggs, trunks=trunks,
                      levels=[leaf_names, agg_names, core_names],
                      upper=[UpperLevel(per_pod, group, core_taper, "--core-taper")],
                      paths=cores,
                      params={"k": k, "pods": pods, "aggs": aggs, "cores": cores,
                              "core_taper": core_taper})

    def forwarding(self, topo) -> Forwarding:
        """Static, destination-based, as an InfiniBand subnet manager fills
        the linear forwarding tables of a fat-tree (d-mod-k): traffic to
        destination d (host h's NIC i: d = (h-1) NICs + i) goes up from any
        leaf to aggregation switch d mod A of its pod, from there to core
        (d mod A) G + (d div A) mod G (G cores per group), and down the one
        path to d's leaf: one destination, one core. Uplinks do not learn;
        broadcasts go up only through each switch's first uplink (leaves to
        aggregation switch 0, that to the first core of its group), so
        nothing loops."""
        p = topo.params
        aggs, group = p["aggs"], p["cores"] // p["aggs"]
        leaf_index = {leaf: i for i, leaf in enumerate(leaves(topo))}
        per_pod = len(leaf_index) // p["pods"]
        fwd = Forwarding()
        for link in topo.links:
            if link.a.tier != "uplink":
                continue
            lower, upper = link.a.switch, link.b.switch
            if lower.startswith("leaf"):
                first = _index(upper) % aggs == 0
            else:
                first = _index(upper) == (_index(lower) % aggs) * group
            fwd.ports[link.a.ifname] = 1 if first else 0
            fwd.ports[link.b.ifname] = 1
        k = topo.nics_per_host
        for h in topo.hosts:
            for nic in h.nics:
                d = (h.number - 1) * k + nic.index
                hl = leaf_index[nic.leaf]
                pod = hl // per_pod
                up_agg, up_core = d % aggs, (d // aggs) % group
                ports = [nic.port]
                ports += [f"a{pod * aggs + j}l{hl}" for j in range(aggs)]
                ports += [f"c{c}a{pod * aggs + c // group}" for c in range(p["cores"])]
                ports += [f"l{li}a{li // per_pod * aggs + up_agg}" for li in leaf_index.values()
                          if li != hl]
                ports += [f"a{ai}c{(ai % aggs) * group + up_core}" for ai in range(p["pods"] * aggs)
                          if ai // aggs != pod]
                fwd.entries += [(port, nic.mac) for port in ports]
        return fwd

    def switch_summary(self, topo) -> str:
        p = topo.params
        leaves_per_pod = len(leaves(topo)) // p["pods"]
        k = f"k={p['k']}: " if p.get("k") else ""
        return (f"{k}{p['pods']} pods x {leaves_per_pod} leaves x {p['hosts_per_leaf']} hosts, "
                f"{p['aggs']} aggregation switch(es) per pod, {p['cores']} core(s), "
                f"taper {p['taper']:g}, core taper {p['core_taper']:g}")


def _index(switch: str) -> int:
    """agg12 -> 12, core3 -> 3."""
    return int(switch.lstrip("abcdefghijklmnopqrstuvwxyz"))


SHAPE = FatTree3()
