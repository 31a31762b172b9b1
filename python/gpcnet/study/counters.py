"""Network counters of one node, their deltas and the stall ratio.

Read what exists: Linux interface statistics (/sys/class/net/IF/statistics)
and InfiniBand port counters (/sys/class/infiniband/DEV/ports/P/counters).
A counter that is not there is absent from the sample (and from the delta),
never zero. `python3 -m gpcnet.study.counters` prints one node's sample as
JSON: the launchers run it on every node before and after each run.

Stall ratio (the study's router stall/flit ratio, docs/studies.md): per port
port_xmit_wait / port_xmit_data on InfiniBand; on the testbed's switch
ports the queue's overlimits / packets (times a packet had to wait for the
shaper). Samples whose data counter moved less than the threshold are
ignored, as the study ignored idle tiles.
"""

from __future__ import annotations

import json
import os
import socket
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
DEFAULT_STALL_THRESHOLD = 1_000_000   # port_xmit_data units (4-byte words): 4 MB


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


def _group_delta(b: dict, a: dict) -> dict:
    out = {}
    for key in sorted(set(b) | set(a)):
        fields = set(b.get(key, {})) | set(a.get(key, {}))
        d = {f: counter_delta(b.get(key, {}).get(f), a.get(key, {}).get(f)) for f in sorted(fields)}
        d = {f: v for f, v in d.items() if v is not None}
        sat = [f for f in fields if IB_SATURATED in (b.get(key, {}).get(f), a.get(key, {}).get(f))]
        if sat and "port_" in " ".join(sat):
            d["saturated"] = sorted(sat)
        out[key] = d
    return out


def delta(before: dict, after: dict) -> dict:
    return {"host": after.get("host"), "seconds": after["time"] - before["time"],
            "net": _group_delta(before.get("net", {}), after.get("net", {})),
            "ib": _group_delta(before.get("ib", {}), after.get("ib", {}))}


def _ratio(stall: int, data: int, threshold: float):
    if data is None or stall is None or data < threshold or data == 0:
        return None
    return stall / data


def node_stall(d: dict, threshold: float = DEFAULT_STALL_THRESHOLD) -> dict:
    """Per node: the mean over its IB ports of xmit_wait / xmit_data (ports
    under the threshold ignored); None with the reason when nothing counts."""
    ratios = []
    for port, c in d.get("ib", {}).items():
        if "saturated" in c:
            continue
        r = _ratio(c.get("port_xmit_wait"), c.get("port_xmit_data"), threshold)
        if r is not None:
            ratios.append(r)
    if not d.get("ib"):
        return {"stall_ratio": None, "reason": "no InfiniBand port counters on this node"}
    if not ratios:
        return {"stall_ratio": None, "reason": f"no port moved {threshold:g} data units"}
    return {"stall_ratio": sum(ratios) / len(ratios), "ports": len(ratios)}


def switch_stall(port_deltas: dict, threshold: float = 100) -> dict:
    """Per switch of the testbed: sum(overlimits) / sum(packets) over its
    ports whose packets moved at least `threshold`."""
    per: dict = {}
    for key, p in port_deltas.items():
        sw = p.get("switch")
        if not sw or p.get("packets") is None or p.get("overlimits") is None:
            continue
        if p["packets"] < threshold:
            continue
        s = per.setdefault(sw, {"overlimits": 0, "packets": 0, "drops": 0, "ports": 0})
        s["overlimits"] += p["overlimits"]
        s["packets"] += p["packets"]
        s["drops"] += p.get("drops", 0) or 0
        s["ports"] += 1
    for s in per.values():
        s["stall_ratio"] = s["overlimits"] / s["packets"] if s["packets"] else None
    return per


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else os.environ.get("GPCNET_SYS_ROOT", "/sys")
    print(json.dumps(sample(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
