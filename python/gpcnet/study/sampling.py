"""Counters sampled while the application runs, every --counter-interval
seconds, and the run's record of them: one series of every port read, the
stall metric on the network tiles (the ports between switches, `ports`),
and the stall rates of the network and of the processor tiles (the ports
facing the application's nodes, `ptile_ports`) apart, as the co-run paper's
Fig. 6 shows them.

Which counters a run reads, and how, is its counter source's
(gpcnet.study.sources: the registry of them); every source's sampler gives
its readings and scopes the same way, and `record` makes any source's
readings the run's record.
"""

from __future__ import annotations

from gpcnet.study import sources, stall


def node_scope(by_host: dict) -> dict:
    """Every port the application's nodes reported (HOST/DEV/PORT, or
    HOST/DEV/PORT@switchLID/PORT): a switch port's router is its switch,
    an adapter port's its node (its switch is not known)."""
    scope = {}
    for readings in by_host.values():
        for r in readings:
            for port in r["ports"]:
                router = port.split("@", 1)[1].split("/", 1)[0] if "@" in port else port.split("/", 1)[0]
                scope.setdefault(port, {"router": router})
    return scope


def join(per_host: list) -> list:
    """The intervals of several nodes on one time axis (each node's t and
    dt as its own sampler measured them, t in seconds since the
    application started), in the order they end. Never joined into one
    interval per step: a node's short last interval keeps its own length,
    and the metric weighs each by it (gpcnet.study.stall)."""
    return sorted((iv for s in per_host for iv in s), key=lambda iv: (iv["t"], iv["dt"]))


NO_NETWORK_TILE = ("no network tile read: only the ports facing the application's nodes (processor tiles, "
                   "kept apart in ptile_ports) could be found from the nodes; give the fabric's discovery "
                   "(GPCNET_IB_FABRIC=ibnetdiscover output, or ibnetdiscover on this host) for the ports "
                   "between switches")


def counter_set(by_host: dict) -> dict | None:
    """Which InfiniBand counters gave the flits: {"extended": ports read
    with the 64-bit PortXmitData (perfquery -x), "basic": ports read with
    the 32-bit base one, "basic_reasons": {port: why} (the first 5)}; None
    when no switch port was read with perfquery."""
    extended, basic = set(), {}
    for readings in by_host.values():
        for r in readings:
            extended.update(p for p, c in r["ports"].items()
                            if isinstance(c, dict) and (c.get("bits") or {}).get("flit") == 64)
            for port, why in (r.get("basic") or {}).items():
                basic.setdefault(port, str(why))
    if not (extended or basic):
        return None
    return {"extended": len(extended), "basic": len(basic),
            "basic_reasons": {p: basic[p] for p in sorted(basic)[:5]}}


def basic_note(cset: dict | None) -> str | None:
    """One line saying which ports fell back to the 32-bit counters and why."""
    if not cset or not cset["basic"]:
        return None
    port, why = next(iter(cset["basic_reasons"].items()))
    return (f"{cset['basic']} of {cset['basic'] + cset['extended']} switch ports read with the 32-bit base "
            f"PortXmitData, which saturates (e.g. {port}: {why})")


def record(sampler, app_start: float, interval: float, threshold: float) -> dict:
    """Stop `sampler` and turn its readings into the run's counter record:
    the metric over the network tiles (`ports`), the processor tiles
    (`ptile_ports`) apart. A sampler that knows no network tile read the
    nodes' own ports: those are processor tiles, and there is no ratio."""
    by_host, errors = sampler.stop()
    scope, ptile = sampler.scope, getattr(sampler, "ptile_scope", None)
    nodes_only = scope is None
    if nodes_only:
        scope, ptile = {}, node_scope(by_host)
    ptile = ptile or {}
    # Every node's readings are wall-clock times (time.time()), like the
    # application's start: the nodes' intervals are placed on the one axis
    # of seconds since that start (the clocks are taken to agree, as a
    # cluster's do under NTP; the weighting does not depend on it: each
    # interval weighs its own node's dt).
    series = join([stall.intervals(rs, app_start) for rs in by_host.values() if rs])
    stall.add_means(series, scope)
    stall.add_means(series, ptile, prefix="ptile_")
    metric = stall.stall_ratio(series, scope, threshold)
    if nodes_only and ptile and metric["stall_ratio"] is None:
        metric["reason"] = NO_NETWORK_TILE
    cset = counter_set(by_host)
    if metric["stall_ratio"] is None and metric["reason"] and basic_note(cset):
        metric["reason"] += f"; {basic_note(cset)}"
    stall_name, flit_name = sources.counter_names(sampler.source)
    out = {"source": sampler.source, "stall_counter": stall_name, "flit_counter": flit_name,
           "interval_s": interval, "stall_threshold": threshold, "ports": scope, "ptile_ports": ptile,
           "series": series, "metric": metric,
           "tiles": {"ntile": stall.tile_stall_rate(series, scope), "ptile": stall.tile_stall_rate(series, ptile)},
           "errors": errors}
    if getattr(sampler, "fabric", None):
        out["fabric"] = sampler.fabric
    if cset:
        out["counter_set"] = cset
    return out

