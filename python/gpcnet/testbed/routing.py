"""--routing: how the testbed's data switches forward.

static (the default): every switch is a Linux bridge with the shape's
static, destination-based entries (gpcnet.testbed.shapes), as an
InfiniBand fabric's linear forwarding tables route a fat-tree: one
destination, one spine.

ecmp: every switch is a router, as in the layer-3 Clos fabric of an
Ethernet/RoCE cluster. A leaf reaches every host of another leaf by one
equal-cost multipath route over all its uplinks, and the kernel picks the
uplink of each packet by a hash of its flow's addresses and ports
(net.ipv4.fib_multipath_hash_policy=1, the L4 hash): two flows can then
share an uplink while another idles, the flow collisions of hashed Clos
fabrics.

All switches live in the one fabric namespace (counters, faults and
drawings read their ports there). This kernel offers no VRF devices, so
each switch is a routing table of its own, chosen by policy rules on the
port a packet came in by (`ip rule iif PORT lookup TABLE`). Forwarding and
the hash policy are switched on by sysctls of the fabric namespace only:
nothing is routed, addressed or forwarded in the machine's own namespace,
and no route leads outside the testbed.
"""

from __future__ import annotations

import ipaddress
import subprocess
from dataclasses import dataclass, field

from gpcnet.infra.errors import GpcnetError

MODES = ("static", "ecmp")
# Point-to-point /31 of trunk k: in 198.18.128.0/17 (the benchmarking range
# of the testbed's other networks, clear of the management /24).
TRUNK_NET = ipaddress.IPv4Network("198.18.128.0/17")
MAX_TRUNKS = TRUNK_NET.num_addresses // 2
TABLE_BASE = 1000          # switch i routes by table TABLE_BASE + i
RULE_PRIORITY = 1000       # before the main table's rule (32766)
# In the fabric namespace: forward, hash flows over addresses and ports, take
# packets in whichever uplink the hash of the other side chose, and accept
# ARP from a trunk's other end although its address is of this namespace too
# (every switch's addresses are, without VRFs).
SYSCTLS = {"net/ipv4/ip_forward": "1", "net/ipv4/fib_multipath_hash_policy": "1",
           "net/ipv4/conf/all/rp_filter": "0", "net/ipv4/conf/default/rp_filter": "0",
           "net/ipv4/conf/all/accept_local": "1",
           # an uplink whose far end is down drops out of the hash (its route withdrawn)
           "net/ipv4/conf/all/ignore_routes_with_linkdown": "1"}


def check(mode: str, shape_name: str, spines: int, paths: int = 0) -> None:
    """--routing MODE for a shape with `spines` spines (or, for a shape of
    more levels, `paths` paths between its farthest hosts): ecmp needs two
    paths between the leaves at least."""
    if mode not in MODES:
        raise GpcnetError(f"--routing {str(mode)[:40]!r}: expected static or ecmp")
    if mode == "ecmp" and paths and paths < 2:
        raise GpcnetError(f"--routing ecmp: this {shape_name} has one path between any two hosts "
                          "(one core); use --aggs 2 or more (or --k 4 or more), or --routing static")
    if mode == "ecmp" and not paths and spines < 2:
        where = "a star" if not spines else f"a {shape_name} with one spine"
        raise GpcnetError(f"--routing ecmp: {where} has one path between any two hosts; "
                          "use --topology fat-tree or rail with --spines 2 or more, or --routing static")


@dataclass
class Plan:
    """What `ecmp` creates in the fabric namespace: tables {switch: id},
    rules [(port, table)], addresses [(port, 'a.b.c.d/31')], neighbours
    [(port, ip, mac)] (a leaf's hosts, static), routes [(table, dst,
    [(gateway, port), ...])] (one nexthop: a plain route), the weights of
    the nexthops of routes that are not split evenly ({(table, dst):
    [weight, ...]}, see _unpolarized) and the host ports that answer ARP
    for the addresses they route to (proxy ARP)."""
    tables: dict = field(default_factory=dict)
    rules: list = field(default_factory=list)
    addresses: list = field(default_factory=list)
    neighbours: list = field(default_factory=list)
    routes: list = field(default_factory=list)
    proxy_arp: list = field(default_factory=list)
    weights: dict = field(default_factory=dict)


def plan(topo, cut=frozenset()) -> Plan:
    """The routers' tables of an ecmp testbed, from its links; `cut`: names
    of leaf-spine ports that are down, whose paths are left out, as a
    fabric's routing protocol would withdraw them (a leaf then reaches a
    host through the spines that still reach that host's leaf)."""
    p = Plan(tables={s: TABLE_BASE + i for i, s in enumerate(topo.switches)})
    trunks = [link for link in topo.links if link.a.tier == "uplink"]
    if len(trunks) > MAX_TRUNKS:
        raise GpcnetError(f"--routing ecmp: {len(trunks)} leaf-spine links, more than the "
                          f"{MAX_TRUNKS} point-to-point subnets of {TRUNK_NET}")
    for link in topo.links:
        for port in (link.a, link.b):
            if port.switch:
                p.rules.append((port.ifname, p.tables[port.switch]))
    # Each trunk a /31: lower side even, upper side odd.
    up = {}                 # switch -> [(upper switch, lower-side port, upper-side address)]
    down = {}               # switch -> [(lower switch, upper-side port, lower-side address)]
    for k, link in enumerate(trunks):
        lo = TRUNK_NET.network_address + 2 * k
        p.addresses += [(link.a.ifname, f"{lo}/31"), (link.b.ifname, f"{lo + 1}/31")]
        if link.a.ifname in cut or link.b.ifname in cut:
            continue
        up.setdefault(link.a.switch, []).append((link.b.switch, link.a.ifname, str(lo + 1)))
        down.setdefault(link.b.switch, []).append((link.a.switch, link.b.ifname, str(lo)))
    cabled_up = {}          # switch -> its uplinks' switches, as cabled (cut or not)
    for link in trunks:
        cabled_up.setdefault(link.a.switch, []).append(link.b.switch)
    below = _below(down)
    for h in topo.hosts:
        for nic in h.nics:
            leaf = nic.leaf
            # Its leaf: the host is one port away (static neighbour, proxy ARP for the rest).
            p.routes.append((p.tables[leaf], f"{nic.ip}/32", [(None, nic.port)]))
            p.neighbours.append((nic.port, nic.ip, nic.mac))
            p.proxy_arp.append(nic.port)
            # A switch with the host's leaf below it: down every link toward that leaf.
            for s in topo.switches:
                if leaf in below.get(s, ()):
                    p.routes.append((p.tables[s], f"{nic.ip}/32",
                                     [(gw, port) for lower, port, gw in down[s]
                                      if lower == leaf or leaf in below.get(lower, ())]))
            # Any other switch with uplinks: up through all of them at once (the hash
            # picks) that lead down to the leaf, or else that lead further up to it.
            for s in (s for s in topo.switches if s in cabled_up):
                if s != leaf and leaf not in below.get(s, ()):
                    hops = _up_hops(s, leaf, up, below)
                    p.routes.append((p.tables[s], f"{nic.ip}/32", hops))
                    weights = _unpolarized(s, len(hops), cabled_up)
                    if weights:
                        p.weights[(p.tables[s], f"{nic.ip}/32")] = weights
    return p


def _unpolarized(s, n: int, cabled_up: dict):
    """Weights of the n uplinks of a switch s that its own lower switches
    reach by hashing (an aggregation switch of a three-level tree), or None
    for even ones. Every switch here hashes with the one kernel's hash
    (one namespace: no per-switch seed): the kernel gives nexthop i of a
    multipath route the i-th share of the hash range (hash-threshold), so
    a lower switch that sent s the flows of the j-th of its A equal shares
    would see s send them all to one uplink (hash polarization: half the
    cores of a k=4 tree idle). Weighting s's uplinks so that their shares
    split that j-th share evenly, as switches hashing with seeds of their
    own would on average, sends them over every one of its uplinks."""
    lower = next((x for x, ups in cabled_up.items() if s in ups), None)
    if n < 2 or lower is None or len(cabled_up[lower]) < 2:
        return None
    j, a = cabled_up[lower].index(s), len(cabled_up[lower])
    return [j * n + 1] + [1] * (n - 2) + [1 + (a - 1 - j) * n]


def _below(down: dict) -> dict:
    """{switch: the switches reachable from it going down only}."""
    memo: dict = {}

    def reach(s):
        if s not in memo:
            memo[s] = set()
            for lower, _port, _gw in down.get(s, ()):
                memo[s] |= {lower} | reach(lower)
        return memo[s]
    return {s: reach(s) for s in down}


def _up_hops(s, leaf, up, below) -> list:
    """The uplinks of s on shortest up-down paths to `leaf`: to the switches
    above that have it below them, or else to those that reach it further
    up (none: every uplink toward it is cut)."""
    ups = up.get(s, [])
    direct = [(gw, port) for upper, port, gw in ups if leaf in below.get(upper, ())]
    if direct or not ups:
        return direct
    return [(gw, port) for upper, port, gw in ups if _up_hops(upper, leaf, up, below)]


def apply(ipr, fabric_ns: str, p: Plan) -> None:
    """Create the plan in the fabric namespace (ipr: its netlink socket).
    The switch ports are already there and up."""
    _sysctls(fabric_ns, p.proxy_arp)
    idx = {}

    def index(port):
        if port not in idx:
            idx[port] = ipr.link_lookup(ifname=port)[0]
        return idx[port]

    for port, table in p.rules:
        ipr.rule("add", iifname=port, table=table, priority=RULE_PRIORITY)
    for port, cidr in p.addresses:
        ip, plen = cidr.split("/")
        ipr.addr("add", index=index(port), address=ip, prefixlen=int(plen))
    for port, ip, mac in p.neighbours:
        ipr.neigh("add", dst=ip, lladdr=mac, ifindex=index(port), state=0x80)   # NUD_PERMANENT
    for table, dst, hops in p.routes:
        _route(ipr, "add", table, dst, hops, index, p.weights.get((table, dst)))


def _route(ipr, how, table, dst, hops, index, weights=None) -> None:
    if not hops:
        return                      # no path left (every uplink toward it cut)
    if len(hops) == 1:
        gw, port = hops[0]
        kw = {"gateway": gw} if gw else {"scope": 253}                          # link scope
        ipr.route(how, dst=dst, table=table, oif=index(port), **kw)
    else:
        weights = weights or [1] * len(hops)
        ipr.route(how, dst=dst, table=table,       # a nexthop's "hops" is its weight - 1
                  multipath=[{"gateway": gw, "oif": index(port), "hops": w - 1}
                             for (gw, port), w in zip(hops, weights)])


def reroute(ipr, topo) -> None:
    """After a link of an ecmp testbed went down or came back (a fault):
    plan again without the leaf-spine ports that are down, and replace
    every route and neighbour entry by the plan's. The kernel itself only
    drops a dead nexthop at the switch that has it; withdrawing the paths
    through a spine that lost a leaf is a routing protocol's work, done
    here instead. A host link going down takes its leaf's route to it with
    it, and its coming back puts it back."""
    # deferred: pyroute2 only where a testbed is changed (gpcnet imports without it)
    from pyroute2.netlink.exceptions import NetlinkError
    up_ports = {link.get_attr("IFLA_IFNAME") for link in ipr.get_links()
                if link["flags"] & 1}                                            # IFF_UP
    cut = {p.ifname for link in topo.links if link.a.tier == "uplink"
           for p in (link.a, link.b) if p.ifname not in up_ports}
    p = plan(topo, frozenset(cut))

    def index(port):
        return ipr.link_lookup(ifname=port)[0]

    for port, ip, mac in p.neighbours:
        if port in up_ports:
            ipr.neigh("replace", dst=ip, lladdr=mac, ifindex=index(port), state=0x80)
    for table, dst, hops in p.routes:
        live = [(gw, port) for gw, port in hops if port in up_ports]
        if live:
            _route(ipr, "replace", table, dst, live, index, p.weights.get((table, dst))
                   if len(live) == len(hops) else None)
        else:
            try:
                ipr.route("del", dst=dst, table=table)
            except NetlinkError:
                pass                # gone already: the kernel removed it with its port


def _sysctls(fabric_ns: str, proxy_arp: list) -> None:
    """SYSCTLS, and proxy ARP on the host ports (a host's data NIC is on a
    /24 and asks for its peers by ARP; its leaf answers for those it routes
    to), written inside the fabric namespace: /proc/sys/net is per
    namespace, so a shell entered into it writes them."""
    writes = [f"echo {v} > /proc/sys/{k}" for k, v in SYSCTLS.items()]
    writes += [f"echo 1 > /proc/sys/net/ipv4/conf/{port}/proxy_arp" for port in proxy_arp]
    p = subprocess.run(["nsenter", f"--net=/run/netns/{fabric_ns}", "--", "/bin/sh", "-ec",
                        "; ".join(writes)], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if p.returncode:
        raise GpcnetError(f"{fabric_ns}: cannot switch on routing: {p.stderr.strip()[-300:]}")
