"""Counters sampled while the application runs, every --counter-interval
seconds, and the run's record of them: one series of every port read, the
stall metric on the network tiles (the ports between switches, `ports`),
and the stall rates of the network and of the processor tiles (the ports
facing the application's nodes, `ptile_ports`) apart, as the co-run paper's
Fig. 6 shows them.

Two ways to sample: from a child of this process (gpcnet.infra.fork_sampler:
the testbed's switch queues, which live on this host; the local
launcher's one host) or as a job of one sampler per application node
(`python3 -m gpcnet.study.counters --interval`, mpirun/srun), stopped by
a stop file, then by signal.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from gpcnet.study import procs, stall

COUNTER_NAMES = {"testbed-tc": ("overlimits", "packets"),
                 "infiniband-fabric": ("PortXmitWait", "PortXmitData"),
                 "infiniband-switch": ("PortXmitWait", "PortXmitData"),
                 "infiniband-hca": ("port_xmit_wait", "port_xmit_data"),
                 "slingshot": ("switch dot3HCOutPauseFrames; NIC hni_rx_paused_T",
                               "switch ifHCInOctets; NIC hni_pkts_recv_by_tc_T"),
                 "none": (None, None)}


class JobSampler:
    """One sampler per node, started through the launcher (ppn 1); each
    node's readings are timed by its own clock (wall-clock seconds) and
    make intervals of their own. Where the InfiniBand
    fabric's discovery is at hand (gpcnet.study.fabric), each node reads the
    switch ports a tiles file gives it: both tile kinds; else what a node
    finds alone, its own node-facing port: processor tiles only."""

    def __init__(self, launcher, nodes: list, interval: float, workdir: Path, tag: str, duration: float):
        from gpcnet.study import fabric
        self.launcher, self.nodes, self.source, self.scope, self.ptile_scope = launcher, nodes, None, None, None
        self.notes, self.fabric = [], None
        self.stop_file = workdir / f"stop-{tag}"
        self.out, self.err = workdir / f"{tag}.out", workdir / f"{tag}.err"
        extra = []
        switches, origin = fabric.discover()
        if switches:
            t = fabric.tiles(switches, nodes)
            self.fabric = {"from": origin, "switches": len(switches), "missing": t["missing"]}
            if t["missing"]:
                self.notes.append(f"fabric ({origin}) does not describe {', '.join(t['missing'][:5])}: "
                                  "no port read for them")
            if any(t["by_node"]):
                from gpcnet.infra import safe_write
                tiles_file = workdir / f"{tag}-tiles.json"
                safe_write.write_text(tiles_file, json.dumps({"nodes": nodes, "by_node": t["by_node"]}) + "\n",
                                      force=True)
                extra = ["--tiles", launcher.child_path(tiles_file)]
                self.scope, self.ptile_scope = t["ntile"], t["ptile"]
        self.cmd = launcher.job(nodes, [sys.executable, "-m", "gpcnet.study.counters", "--interval",
                                        f"{interval:g}", "--stop-file", launcher.child_path(self.stop_file),
                                        "--duration", f"{duration:g}", *extra], tag, ppn=1)
        self.proc = None

    def start(self) -> None:
        self.stop_file.unlink(missing_ok=True)
        self.proc = procs.spawn(self.cmd, self.launcher.env, self.out, self.err)

    def stop(self) -> tuple:
        procs.signal_stop(self.stop_file)
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass
        procs.stop(self.proc, 5)
        by_host, errors, sources = {}, [], set()
        try:
            lines = self.out.read_text(errors="replace").splitlines()
        except OSError as e:
            lines, errors = [], [f"sampler output unreadable: {e.strerror}"]
        for line in lines:
            try:
                r = json.loads(line)
                host = str(r["host"]).split(".")[0]
                by_host.setdefault(host, []).append({"time": float(r["time"]), "ports": dict(r["ports"]),
                                                     "basic": dict(r.get("basic") or {})})
                sources.add(r.get("source", "none"))
            except (ValueError, KeyError, TypeError):
                continue
        missing = [n for n in self.nodes if n.split(".")[0] not in by_host]
        if missing:
            errors.append(f"no readings from {', '.join(missing[:5])} (sampler exit {self.proc.returncode}: "
                          + procs.tail(self.err) + ")")
        real = sources - {"none"}
        self.source = ("infiniband-fabric" if "infiniband-fabric" in real else
                       "infiniband-switch" if "infiniband-switch" in real else
                       "infiniband-hca" if real else "none")
        return by_host, self.notes + errors


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
    stall_name, flit_name = COUNTER_NAMES[sampler.source]
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


def local_reader():
    """The local launcher's one host: its adapters (or their switch ports)."""
    from gpcnet.study import counters
    root = os.environ.get("GPCNET_SYS_ROOT", "/sys")
    switch_ports = counters.find_switch_ports(counters.sample(root))
    first = counters.reading(root, switch_ports)
    return (lambda: counters.reading(root, switch_ports)), first["source"]
