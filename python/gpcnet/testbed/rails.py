"""Hosts with several data NICs: their routing, the placement of a job's
traffic on the rails, and the counters per rail.

A host with k NICs has NIC i (data<i>) at 198.19.i.<host>/24. Routing in
its namespace, and nowhere else:

- to an address of rail i (198.19.i.0/24) the main table sends by data<i>:
  traffic to NIC i of another host leaves by this host's NIC i (same rail);
- a packet from NIC i's address leaves by NIC i whatever its destination
  (a rule per NIC address, table 100+i: 198.19.0.0/16 on data<i>), so a
  rank bound to NIC i (its sockets bound to that address, as Open MPI's
  btl tcp binds them) sends by NIC i only; to another host's NIC j it
  crosses from rail i to rail j through the spines;
- each NIC answers ARP only for its own address (arp_ignore 1) and asks
  with it (arp_announce 2); reverse-path filtering is off, as a packet
  may arrive at another NIC than the one its reply leaves by.

Placement (`gpcnet testbed run --placement`) decides at which NIC of the
receiving host a message lands, by static neighbour entries on every
host's NICs (the switches' tables are static already): same-rail, at the
receiver's NIC of the rail it left by, so it never leaves that rail's leaf;
cross-rail, at the receiver's NIC of the next rail ((i+1) mod k), so every
message between hosts crosses a spine. Without a placement the neighbour
tables are learnt by ARP: a message lands at the NIC that owns its
destination address.
"""

from __future__ import annotations

import subprocess

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.counters import port_key
from gpcnet.testbed.topology import DATA_FABRIC_NET, DATA_FABRIC_PREFIX, Host, Topology

PLACEMENTS = ("same-rail", "cross-rail")
TABLE_BASE = 100            # routing table of NIC i: 100 + i
RULE_PRIORITY = 1000        # before the main table (32766)


def _in_host(ns: str, argv: list, stdin: str | None = None) -> None:
    p = subprocess.run(["nsenter", f"--net=/run/netns/{ns}", "--", *argv], input=stdin,
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise GpcnetError(f"{ns}: {' '.join(argv[:3])} failed: {(p.stderr or p.stdout).strip()[-300:]}")


def host_routing(h: Host) -> None:
    """ARP and source routing of a multi-NIC host (see the module's docstring)."""
    # deferred: pyroute2 only where a testbed is built (gpcnet imports without it)
    from pyroute2 import IPRoute
    conf = "/proc/sys/net/ipv4/conf"
    # The network namespace's own /proc/sys/net: written by a shell entered into it.
    writes = [f"echo 1 > {conf}/all/arp_ignore", f"echo 2 > {conf}/all/arp_announce",
              f"echo 0 > {conf}/all/rp_filter", f"echo 0 > {conf}/default/rp_filter"]
    writes += [f"echo 0 > {conf}/{nic.ifname}/rp_filter" for nic in h.nics]
    _in_host(h.ns, ["/bin/sh", "-ec", "; ".join(writes)])
    with IPRoute(netns=h.ns) as ipr:
        for nic in h.nics:
            idx = ipr.link_lookup(ifname=nic.ifname)[0]
            ipr.route("add", dst=DATA_FABRIC_NET, dst_len=DATA_FABRIC_PREFIX, oif=idx,
                      table=TABLE_BASE + nic.index, scope=253, prefsrc=nic.ip)
            ipr.rule("add", table=TABLE_BASE + nic.index, priority=RULE_PRIORITY + nic.index,
                     src=nic.ip, src_len=32)


def landing_nic(placement: str, sent_by: int, nics: int) -> int:
    """Which NIC of the receiver a message sent by NIC `sent_by` lands at."""
    return sent_by if placement == "same-rail" else (sent_by + 1) % nics


def neighbour_lines(topo: Topology, host: Host, placement: str | None) -> list:
    """`ip -batch` lines setting the host's neighbour tables for placement
    (None: flushed, learnt by ARP again)."""
    lines = [f"neigh flush dev {nic.ifname} nud all" for nic in host.nics]
    if placement is None:
        return lines
    k = len(host.nics)
    for nic in host.nics:
        land = landing_nic(placement, nic.index, k)
        for other in topo.hosts:
            if other is host:
                continue
            mac = other.nics[land].mac
            lines += [f"neigh replace {dest.ip} lladdr {mac} dev {nic.ifname} nud permanent"
                      for dest in other.nics]
    return lines


def check_placement(topo: Topology, placement: str | None) -> None:
    if placement is None:
        return
    if placement not in PLACEMENTS:
        raise GpcnetError(f"--placement {placement!r}: expected one of {', '.join(PLACEMENTS)}")
    if topo.nics_per_host < 2:
        raise GpcnetError(f"--placement {placement}: the testbed's hosts have one data NIC; bring "
                          "it up with --nics-per-host 2 or more (e.g. --topology rail)")


def place(topo: Topology, placement: str | None) -> None:
    """Set (or, None, clear) the placement on every host of a multi-NIC testbed."""
    if topo.nics_per_host < 2:
        return
    for h in topo.hosts:
        _in_host(h.ns, ["ip", "-batch", "-"], "\n".join(neighbour_lines(topo, h, placement)) + "\n")


def summary(topo: Topology, ports: dict) -> dict:
    """Counters per rail (NIC index) from a sample's or a delta's ports:
    what the switches sent to the hosts' NIC i (to_hosts) and received
    from them (from_hosts), and, on a rail topology, what rail i's leaves
    sent up to the spines and the spines sent down to them; "spines": all
    leaf-spine links together."""
    rail_of = {port_key(p): p.rail for link in topo.links for p in (link.a, link.b)}
    out = {str(i): {"to_hosts_bytes": 0, "from_hosts_bytes": 0, "uplink_bytes": 0,
                    "downlink_bytes": 0, "drops": 0, "overlimits": 0}
           for i in range(topo.nics_per_host)}
    spines = {"bytes": 0, "drops": 0, "overlimits": 0}
    for key, p in ports.items():
        rail = rail_of.get(key, -1)
        if p["tier"] in ("uplink", "downlink"):
            for f in spines:
                spines[f] += p[f]
        if rail < 0 or p["tier"] == "host":
            continue
        r = out[str(rail)]
        if p["tier"] == "edge":
            r["to_hosts_bytes"] += p["bytes"]
            r["from_hosts_bytes"] += p["link_rx_bytes"]
        else:
            r[f"{p['tier']}_bytes"] += p["bytes"]
        r["drops"] += p["drops"]
        r["overlimits"] += p["overlimits"]
    return {"rails": out, "spines": spines}


def render(doc: dict) -> str:
    head = (f"{'rail':<6} {'to hosts':>14} {'from hosts':>14} {'up to spines':>14} "
            f"{'down from spines':>16} {'drops':>8} {'overlimits':>10}")
    lines = ["per rail (NIC i of every host; bytes):", head, "-" * len(head)]
    for rail, r in doc["rails"].items():
        lines.append(f"{rail:<6} {r['to_hosts_bytes']:>14} {r['from_hosts_bytes']:>14} "
                     f"{r['uplink_bytes']:>14} {r['downlink_bytes']:>16} {r['drops']:>8} "
                     f"{r['overlimits']:>10}")
    s = doc["spines"]
    lines.append(f"{'spines':<6} {'':>14} {'':>14} {s['bytes']:>14} {'':>16} {s['drops']:>8} "
                 f"{s['overlimits']:>10}   (every leaf-spine link, both ways)")
    return "\n".join(lines) + "\n"
