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
analogue). With --tiles FILE (written by gpcnet.study.sources.infiniband from the
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

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from gpcnet.text.number_text import whole_number
from gpcnet.study.sources import NONE
from gpcnet.study import cassini
from gpcnet.study.sources.infiniband import FABRIC, HCA, SWITCH
from gpcnet.text.text_safe import shorten

NET_FIELDS = ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_dropped", "tx_dropped",
              "rx_errors", "tx_errors")
IB_FIELDS = ("port_xmit_data", "port_rcv_data", "port_xmit_wait", "port_xmit_packets",
             "port_rcv_packets", "port_xmit_discards")
# Base IB PMA counters (PortCounters) are 32 bits and saturate (stop at
# 2^32-1): on a fabric that never resets them the data counters sit there.
# The extended ones (PortCountersExtended, `perfquery -x`) are 64 bits and
# wrap; they have no PortXmitWait, which is read from the base set.
# Linux interface statistics are 64-bit (some drivers 32-bit): a decrease
# is taken as one wrap at the smallest width that explains it.
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


def counter_delta(before, after, bits: int | None = None):
    """after - before, allowing one wrap (at `bits` when the counter's width
    is known); None if either is absent."""
    if before is None or after is None:
        return None
    if after >= before:
        return after - before
    for bits in (bits,) if bits else (32, 64):
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


def _run_tool(cmd: list) -> tuple:
    """infiniband-diags output `Name:......value` as ({name: value}, None),
    or ({}, why) on any failure (why: the command's last line of stderr)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {}, f"{cmd[0]}: " + (e.strerror if isinstance(e, OSError) else "no answer in 5 s")
    if p.returncode:
        last = (p.stderr.strip().splitlines() or [""])[-1]
        return {}, f"exit {p.returncode}" + (f": {shorten(last, 200)}" if last else "")
    out = {}
    for line in p.stdout.splitlines():
        name, dots, value = line.partition(":")
        if dots and not name.startswith("#"):
            out[name.strip()] = value.strip(". \t")
    return out, None


def _tool(cmd: list) -> dict:
    return _run_tool(cmd)[0]


def counter_value(text):
    """A counter's value as a tool prints it (ASCII digits, at most 20: what
    2^64 - 1 needs), else None: never int() of "²" or of 5,000 digits."""
    return whole_number(text)


class PerfQuery:
    """Reads switch ports with perfquery: PortXmitWait (the stall) from the
    base counters, PortXmitData (the flit) from the 64-bit extended ones
    (`perfquery -x`) where the port answers them, else from the base
    counters, with the reason kept (`basic`). Which set a port uses is
    decided at its first reading and kept: a rate is a difference of two
    readings of the same counter."""

    def __init__(self):
        self.basic = {}      # (lid, port) -> why the 32-bit base PortXmitData is read
        self.extended = set()

    def _choose(self, lid: str, port: str) -> None:
        ext, why = _run_tool(["perfquery", "-x", lid, port])
        if why is None and counter_value(ext.get("PortXmitData")) is not None:
            self.extended.add((lid, port))
        else:
            self.basic[(lid, port)] = (f"perfquery -x {lid} {port}: "
                                       + (why or "no 64-bit PortXmitData in its output")
                                       + "; the 32-bit PortXmitData of the base counters is read (it saturates)")

    def read(self, lid, port) -> dict | None:
        """{"stall", "flit", "saturates", ...} of one switch port, None when it does not answer."""
        lid, port = str(lid), str(port)
        base = _tool(["perfquery", lid, port])
        stall = counter_value(base.get("PortXmitWait"))
        if stall is None:
            return None     # the port does not answer: no choice made on that
        if (lid, port) not in self.extended and (lid, port) not in self.basic:
            self._choose(lid, port)
        if (lid, port) in self.extended:
            flit = counter_value(_tool(["perfquery", "-x", lid, port]).get("PortXmitData"))
            if flit is None:
                return None
            return {"stall": stall, "flit": flit, "saturates": ["stall"], "bits": {"flit": 64}}
        flit = counter_value(base.get("PortXmitData"))
        if flit is None:
            return None
        return {"stall": stall, "flit": flit, "saturates": True}

    def why_basic(self, lid, port) -> str | None:
        return self.basic.get((str(lid), str(port)))


PERFQUERY = PerfQuery()   # this process's choice per port (each sampler is a process)


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
        if (info.get("NodeType") == "Switch" and counter_value(info.get("LocalPort")) is not None
                and counter_value(lid) is not None):
            found[key] = (lid, info["LocalPort"])
    return found


def fabric_reading(node: str, targets: list, pq: PerfQuery | None = None) -> dict:
    """One reading of the switch ports `targets` ([{"key", "lid", "port"}])
    with perfquery; a port that does not answer is absent. `basic`: the
    ports read with the 32-bit base PortXmitData, and why."""
    pq = pq or PERFQUERY
    ports, basic = {}, {}
    for t in targets:
        c = pq.read(t["lid"], t["port"])
        if c is not None:
            ports[t["key"]] = c
            if (why := pq.why_basic(t["lid"], t["port"])) is not None:
                basic[t["key"]] = why
    return {"host": node, "time": time.time(), "source": FABRIC, "ports": ports, "basic": basic}


RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID")


def my_targets(tiles: dict) -> tuple:
    """(this node's study name, its targets) from a tiles file: by the
    launcher's rank (one rank per node, in the study's node order), else by
    host name."""
    nodes, by_node = tiles.get("nodes") or [], tiles.get("by_node") or []
    for var in RANK_VARIABLES:
        i = counter_value(os.environ.get(var))
        if i is not None and i < len(nodes):
            return nodes[i], by_node[i]
    me = socket.gethostname().split(".")[0]
    for node, targets in zip(nodes, by_node):
        if node.split(".")[0] == me:
            return node, targets
    return me, []


def reading(root: str, switch_ports: dict | None, pq: PerfQuery | None = None) -> dict:
    """One reading of the metric's counters on this node: the switch ports
    (perfquery) when found, else the adapter ports (sysfs)."""
    pq = pq or PERFQUERY
    smp = sample(root)
    ports, basic = {}, {}
    for key, (lid, port) in (switch_ports or {}).items():
        c = pq.read(lid, port)
        if c is not None:
            name = f"{smp['host']}/{key}@switch{lid}/{port}"
            ports[name] = c
            if (why := pq.why_basic(lid, port)) is not None:
                basic[name] = why
    source = SWITCH if ports else HCA
    if not ports:
        ports = hca_ports(smp)
    out = {"host": smp["host"], "time": smp["time"], "source": source if ports else NONE, "ports": ports}
    if basic:
        out["basic"] = basic
    return out


def _sampler(root: str, interval: float, stop_file: str | None, duration: float, tiles: str | None,
             cxi: bool = False) -> int:
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    if cxi:
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
