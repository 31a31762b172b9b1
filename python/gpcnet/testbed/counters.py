"""Switch port counters: what the queues of the emulated network did.

For every port (switch side of each data link, and each host NIC) the
root qdisc's statistics (bytes, packets, drops, backlog, overlimits: the
analogue of a router's stall counters) and the link's own counters.

The co-run stall metric (gpcnet.study.stall) reads, during a run, only the
network tiles of the application's switches (network_tiles): a tile of
switch R is one of its switch-to-switch links, and its "incoming flits" are
the packets the queue at the link's far end sends into R, its stalls the
times that queue held a packet back for the link (overlimits).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.fork_sampler import ForkSampler
from gpcnet.testbed import classes
from gpcnet.testbed.topology import Topology, format_rate

FIELDS = ("bytes", "packets", "drops", "backlog", "overlimits")


def _qdisc_stats(ipr, idx: int) -> dict:
    for msg in ipr.get_qdiscs(index=idx):
        if msg.get("parent") == 0xFFFFFFFF:   # the root qdisc holds the totals
            return _root_stats(msg)
    return {"qdisc": "none", **{f: 0 for f in FIELDS}}


def _root_stats(msg) -> dict:
    st = msg.get_attr("TCA_STATS2")
    basic = st.get_attr("TCA_STATS_BASIC") if st else None
    queue = st.get_attr("TCA_STATS_QUEUE") if st else None
    return {"qdisc": msg.get_attr("TCA_KIND"),
            "bytes": basic["bytes"] if basic else 0,
            "packets": basic["packets"] if basic else 0,
            "drops": queue["drops"] if queue else 0,
            "backlog": queue["backlog"] if queue else 0,
            "overlimits": queue["overlimits"] if queue else 0}


def sample(topo: Topology) -> dict:
    """One reading of every port, keyed "namespace/interface". In a shape
    of more than two levels each switch port also says its switch's level
    (0: a leaf), since "uplink" is then a tier of more than one level."""
    # deferred: pyroute2 only where a testbed is read (gpcnet imports without it)
    from pyroute2 import IPRoute
    ports = {}
    level = ({s: i for i, switches in enumerate(topo.levels) for s in switches}
             if len(topo.levels) > 2 else {})
    by_ns = {}
    for link in topo.links:
        for p in (link.a, link.b):
            by_ns.setdefault(p.ns, []).append(p)
    for ns, plist in by_ns.items():
        with IPRoute(netns=ns) as ipr:
            for p in plist:
                idx = ipr.link_lookup(ifname=p.ifname)[0]
                link = ipr.get_links(idx)[0]
                s64 = link.get_attr("IFLA_STATS64") or {}
                ports[port_key(p)] = {
                    "switch": p.switch, "interface": p.ifname, "tier": p.tier, "rail": p.rail,
                    "rate_bps": p.rate, **_qdisc_stats(ipr, idx),
                    "link_tx_bytes": s64.get("tx_bytes", 0),
                    "link_rx_bytes": s64.get("rx_bytes", 0),
                    "link_tx_dropped": s64.get("tx_dropped", 0)}
                if p.switch in level:
                    ports[port_key(p)]["level"] = level[p.switch]
                if topo.classes and p.switch and p.rate:
                    ports[port_key(p)]["classes"] = classes.class_stats(ipr, idx, topo.classes["count"])
    return {"time": time.time(), "ports": ports}


def port_key(p) -> str:
    return f"{p.switch or p.ns.removeprefix('gtb-')}/{p.ifname}"


def network_tiles(topo: Topology, nodes: list) -> dict:
    """{port key: {"router": switch}} for every switch-to-switch link of a
    switch that has one of `nodes` cabled to it (the paper's ntiles of the
    routers holding the application's nodes; host-facing ports are ptiles)."""
    routers = {h.leaf for h in topo.hosts if h.name in set(nodes)}
    out = {}
    for link in topo.links:
        for near, far in ((link.a, link.b), (link.b, link.a)):
            if near.switch in routers and far.switch:
                out[port_key(far)] = {"router": near.switch}
    return out


def reading(topo: Topology, keys) -> dict:
    """The metric's counters of the ports `keys`: {"time", "ports": {key:
    {"stall": overlimits, "flit": packets}}} (cumulative, from the qdiscs)."""
    # deferred: pyroute2 only where a testbed is read (gpcnet imports without it)
    from pyroute2 import IPRoute
    want = set(keys)
    by_ns: dict = {}
    for link in topo.links:
        for p in (link.a, link.b):
            if port_key(p) in want:
                by_ns.setdefault(p.ns, []).append(p)
    ports = {}
    t = time.time()
    for ns, plist in by_ns.items():
        with IPRoute(netns=ns) as ipr:
            for p in plist:
                q = _qdisc_stats(ipr, ipr.link_lookup(ifname=p.ifname)[0])
                ports[port_key(p)] = {"stall": q["overlimits"], "flit": q["packets"]}
    return {"time": t, "ports": ports}


def delta(before: dict, after: dict) -> dict:
    """after - before for the cumulative counters (backlog is a level: kept as after)."""
    out = {}
    for key, a in after["ports"].items():
        b = before["ports"].get(key, {})
        out[key] = {k: (v - b.get(k, 0) if isinstance(v, int) and k not in ("backlog", "rate_bps", "rail")
                        else v) for k, v in a.items()}
        if "classes" in a:
            out[key]["classes"] = classes.delta(b.get("classes") or {}, a["classes"])
    return {"seconds": after["time"] - before["time"], "ports": out}


SERIES_FIELDS = ("bytes", "packets", "drops", "backlog", "overlimits")


def series(readings: list, start: float, interval: float, errors: list) -> dict:
    """Readings (sample(), switch_reader()) taken every `interval` seconds -> the job's
    counter series: per interval (t: its end in seconds since `start`, the
    job's start; dt: its length) and per port the bytes, packets, drops and
    overlimits in it and the backlog at its end."""
    samples = []
    for before, after in zip(readings, readings[1:]):
        d = delta(before, after)
        if d["seconds"] <= 0:
            continue
        samples.append({"t": round(after["time"] - start, 6), "dt": round(d["seconds"], 6),
                        "ports": {k: {**{f: p[f] for f in SERIES_FIELDS},
                                      **({"classes": p["classes"]} if "classes" in p else {})}
                                  for k, p in d["ports"].items()}})
    return {"interval_s": interval, "start_epoch_s": start, "samples": samples, "errors": errors}


def switch_reader(topo: Topology):
    """A function reading the queues of every switch port (all in the
    fabric's namespace) at once: one dump of its root qdiscs over one
    netlink socket, kept open between readings. sample() looks each port
    up in turn in every namespace, which takes a large part of a second on
    a busy 2-core machine: too slow for a series."""
    names = {p.ifname: port_key(p) for link in topo.links for p in (link.a, link.b) if p.switch}
    sock = []

    def read() -> dict:
        if not sock:
            from pyroute2 import IPRoute  # deferred: as in sample
            sock.append(IPRoute(netns=topo.fabric_ns))
        ipr = sock[0]
        t = time.time()
        index = {link["index"]: link.get_attr("IFLA_IFNAME") for link in ipr.get_links()}
        ports = {}
        for msg in ipr.get_qdiscs():
            name = index.get(msg["index"])
            if msg.get("parent") == 0xFFFFFFFF and name in names:
                ports[names[name]] = _root_stats(msg)
                if topo.classes and msg.get_attr("TCA_KIND") == "htb":
                    # A class dump is per interface: one more request per port.
                    ports[names[name]]["classes"] = classes.class_stats(ipr, msg["index"],
                                                                        topo.classes["count"])
        return {"time": t, "ports": ports}
    return read


@contextlib.contextmanager
def sampled(topo: Topology, interval):
    """Sample every switch port every `interval` seconds while the block runs (with
    the periodic sampler gpcnet study uses too, gpcnet.infra.fork_sampler: a forked
    child, its readings in a private temporary directory); the yielded dict
    is filled with the series when the block ends. interval None: nothing is
    sampled."""
    out: dict = {}
    if not interval:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="gpcnet-counters-") as tmp:
        sampler = ForkSampler(switch_reader(topo), interval, "testbed-tc", None,
                              Path(tmp) / "readings.jsonl")
        start = time.time()
        sampler.start()
        try:
            yield out
        finally:
            by_host, errors = sampler.stop()
            out.update(series(by_host[""], start, interval, errors))


def render(ports: dict, only_switches: bool = False) -> str:
    head = f"{'port':<18} {'tier':<9} {'rate':>10} {'bytes':>14} {'packets':>10} " \
           f"{'drops':>8} {'backlog':>8} {'overlimits':>10}"
    lines = [head, "-" * len(head)]
    for key, p in ports.items():
        if only_switches and not p["switch"]:
            continue
        lines.append(f"{key:<18} {p['tier']:<9} {format_rate(p['rate_bps']):>10} {p['bytes']:>14} "
                     f"{p['packets']:>10} {p['drops']:>8} {p['backlog']:>8} {p['overlimits']:>10}")
    return "\n".join(lines) + "\n"


def write(path: str, force: bool, doc: dict) -> None:
    safe_write.write_text(path, json.dumps(doc, indent=2) + "\n", force=force)
