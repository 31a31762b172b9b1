"""Network counters of one node, read during a run for the stall metric.

Read what exists: Linux interface statistics (/sys/class/net/IF/statistics)
and InfiniBand port counters (/sys/class/infiniband/DEV/ports/P/counters).
A counter that is not there is absent from the sample, never zero.

`python3 -m gpcnet.study.counters` prints one node's sample as JSON; with
--interval S it prints one reading of the stall metric's counters per line
every S seconds (and one more when stopped: --stop-file, SIGTERM or
--duration). The study's launchers run it on the application's nodes.

The metric's counters on InfiniBand (docs/studies.md): PortXmitWait (ticks
a port had data and could not send: the stall) and PortXmitData (the flit
analogue). With --tiles FILE (written by gpcnet.study.sampling from the
fabric's discovery, gpcnet.study.fabric) a node reads the switch ports the
file gives it with perfquery: its own node-facing port (a processor tile)
and, for the first application node of each switch, the ports sending into
that switch from the others (its network tiles). Without it, only what a
node can find alone: the switch port cabled to its adapter (smpquery, then
perfquery) or the adapter's own port (sysfs), both processor tiles.
With --cxi (HPE Slingshot) it reads the node's Cassini NICs instead
(gpcnet.study.cassini), processor tiles; the switch ports between
Slingshot switches come from the fabric manager (gpcnet.study.slingshot).
The metric itself: gpcnet.study.stall.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

NET_FIELDS = ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_dropped", "tx_dropped",
              "rx_errors", "tx_errors")
IB_FIELDS = ("port_xmit_data", "port_rcv_data", "port_xmit_wait", "port_xmit_packets",
             "port_rcv_packets", "port_xmit_discards")
# Base IB PMA counters are 32 bits and saturate (stop at 2^32-1); the
# extended ones wrap at 2^64. Linux interface statistics are 64-bit (some
# drivers 32-bit): a decrease is taken as one wrap at the smallest width
# that explains it.
IB_SATURATED = 2 ** 32 - 1


def _read_int(path: Path):
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def sample(sys_root: str = "/sys") -> dict:
    root = Path(sys_root)
    out = {"host": socket.gethostname(), "time": time.time(), "net": {}, "ib": {}}
    net = root / "class" / "net"
    for iface in sorted(net.iterdir()) if net.is_dir() else []:
        vals = {f: v for f in NET_FIELDS
                if (v := _read_int(iface / "statistics" / f)) is not None}
        if vals:
            out["net"][iface.name] = vals
    ib = root / "class" / "infiniband"
    for dev in sorted(ib.iterdir()) if ib.is_dir() else []:
        for port in sorted((dev / "ports").iterdir()) if (dev / "ports").is_dir() else []:
            vals = {f: v for f in IB_FIELDS
                    if (v := _read_int(port / "counters" / f)) is not None}
            if vals:
                out["ib"][f"{dev.name}/{port.name}"] = vals
    return out


def counter_delta(before, after):
    """after - before, allowing one wrap; None if either is absent."""
    if before is None or after is None:
        return None
    if after >= before:
        return after - before
    for bits in (32, 64):
        if before < 2 ** bits:
            return after + 2 ** bits - before
    return None


def hca_ports(smp: dict) -> dict:
    """The metric's counters of a sysfs sample: each adapter port's
    port_xmit_wait (stall) and port_xmit_data (flit), keyed HOST/DEV/PORT."""
    out = {}
    for key, c in smp.get("ib", {}).items():
        if "port_xmit_wait" in c and "port_xmit_data" in c:
            out[f"{smp['host']}/{key}"] = {"stall": c["port_xmit_wait"], "flit": c["port_xmit_data"],
                                           "saturates": True}
    return out


def _tool(cmd: list) -> dict:
    """infiniband-diags output `Name:......value` as {name: value}; {} on any failure."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if p.returncode:
        return {}
    out = {}
    for line in p.stdout.splitlines():
        name, dots, value = line.partition(":")
        if dots and not name.startswith("#"):
            out[name.strip()] = value.strip(". \t")
    return out


def find_switch_ports(smp: dict) -> dict:
    """{DEV/PORT: (switch LID, switch port)} for each adapter port whose
    neighbour answers: the neighbour's NodeInfo LocalPort is the port our
    direct-routed query came in on, its port 0's PortInfo the switch's LID."""
    if not (shutil.which("smpquery") and shutil.which("perfquery")):
        return {}
    found = {}
    for key in smp.get("ib", {}):
        dev, port = key.split("/", 1)
        where = ["-C", dev, "-P", port, "-D", "0," + port]
        info = _tool(["smpquery", *where[:4], "nodeinfo", *where[4:]])
        lid = _tool(["smpquery", *where[:4], "portinfo", *where[4:], "0"]).get("Lid")
        if info.get("NodeType") == "Switch" and info.get("LocalPort", "").isdigit() and (lid or "").isdigit():
            found[key] = (lid, info["LocalPort"])
    return found


def switch_port_reading(host: str, key: str, lid: str, port: str) -> dict:
    c = _tool(["perfquery", lid, port])
    try:
        return {f"{host}/{key}@switch{lid}/{port}": {"stall": int(c["PortXmitWait"]),
                                                      "flit": int(c["PortXmitData"]), "saturates": True}}
    except (KeyError, ValueError):
        return {}


def fabric_reading(node: str, targets: list) -> dict:
    """One reading of the switch ports `targets` ([{"key", "lid", "port"}])
    with perfquery; a port that does not answer is absent."""
    ports = {}
    for t in targets:
        c = _tool(["perfquery", str(t["lid"]), str(t["port"])])
        try:
            ports[t["key"]] = {"stall": int(c["PortXmitWait"]), "flit": int(c["PortXmitData"]), "saturates": True}
        except (KeyError, ValueError):
            continue
    return {"host": node, "time": time.time(), "source": "infiniband-fabric", "ports": ports}


RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID")


def my_targets(tiles: dict) -> tuple:
    """(this node's study name, its targets) from a tiles file: by the
    launcher's rank (one rank per node, in the study's node order), else by
    host name."""
    nodes, by_node = tiles.get("nodes") or [], tiles.get("by_node") or []
    for var in RANK_VARIABLES:
        if os.environ.get(var, "").isdigit() and int(os.environ[var]) < len(nodes):
            i = int(os.environ[var])
            return nodes[i], by_node[i]
    me = socket.gethostname().split(".")[0]
    for node, targets in zip(nodes, by_node):
        if node.split(".")[0] == me:
            return node, targets
    return me, []


def reading(root: str, switch_ports: dict | None) -> dict:
    """One reading of the metric's counters on this node: the switch ports
    (perfquery) when found, else the adapter ports (sysfs)."""
    smp = sample(root)
    ports = {}
    for key, (lid, port) in (switch_ports or {}).items():
        ports.update(switch_port_reading(smp["host"], key, lid, port))
    source = "infiniband-switch" if ports else "infiniband-hca"
    if not ports:
        ports = hca_ports(smp)
    return {"host": smp["host"], "time": smp["time"], "source": source if ports else "none", "ports": ports}


def _sampler(root: str, interval: float, stop_file: str | None, duration: float, tiles: str | None,
             cxi: bool = False) -> int:
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    if cxi:
        from gpcnet.study import cassini
        read = lambda: cassini.reading(root)           # noqa: E731
    elif tiles:
        with open(tiles) as f:
            node, targets = my_targets(json.load(f))
        read = lambda: fabric_reading(node, targets)   # noqa: E731
    else:
        switch_ports = find_switch_ports(sample(root))
        read = lambda: reading(root, switch_ports)     # noqa: E731
    end = time.monotonic() + duration
    while True:
        print(json.dumps(read()), flush=True)
        wake = time.monotonic() + interval
        while time.monotonic() < wake:
            if stopping or (stop_file and os.path.exists(stop_file)) or time.monotonic() > end:
                print(json.dumps(read()), flush=True)
                return 0
            time.sleep(min(0.05, max(0.0, wake - time.monotonic())))


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m gpcnet.study.counters")
    ap.add_argument("root", nargs="?", default=os.environ.get("GPCNET_SYS_ROOT", "/sys"))
    ap.add_argument("--interval", type=float, help="print a reading every SEC seconds until stopped")
    ap.add_argument("--stop-file", help="stop (after one last reading) once this file exists")
    ap.add_argument("--duration", type=float, default=86400.0, help="stop after SEC seconds in any case")
    ap.add_argument("--tiles", help="read the switch ports this JSON file gives this node (perfquery)")
    ap.add_argument("--cxi", action="store_true", help="read this node's HPE Cassini NICs (Slingshot)")
    args = ap.parse_args(argv)
    if args.interval is None:
        if args.cxi:
            from gpcnet.study import cassini
            print(json.dumps(cassini.reading(args.root)))
        else:
            print(json.dumps(sample(args.root)))
        return 0
    if not args.interval > 0:
        print(f"--interval {args.interval:g}: expected a number of seconds above 0", file=sys.stderr)
        return 2
    return _sampler(args.root, args.interval, args.stop_file, args.duration, args.tiles, args.cxi)


if __name__ == "__main__":
    sys.exit(main())
