"""A node's HPE Cassini (Slingshot 11) NICs as the co-run paper's
processor tiles: the link between a node and its switch, read on the node.

The cxi driver publishes each NIC's counters as one file per counter,
/sys/class/cxi/cxiN/device/telemetry/NAME, holding `VALUE@SECONDS.NANOSECONDS`
(the value, then the wall-clock time the driver read it). We read, for
every traffic class T (0 to 7) the file exists for:

- stall: hni_rx_paused_T, the NIC holding back what the switch sends it
  (the network delivers faster than the node takes it in): the paper's
  processor-tile stall, the router-to-node link stalled;
- flit: hni_pkts_recv_by_tc_T, the packets of class T the NIC received:
  the paper's processor-tile flits, "received by a node".

Each is summed over the classes present, as the paper sums the request and
response counters. A NIC without both counters is left out, never zero.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_text
from gpcnet.study.sources import NONE
from gpcnet.study.sources.slingshot import NIC

TRAFFIC_CLASSES = range(8)
STALL = "hni_rx_paused_{tc}"
FLIT = "hni_pkts_recv_by_tc_{tc}"
# A telemetry file holds one short line; anything longer is not one.
MAX_FILE_BYTES = 256
_VALUE = re.compile(r"\A(\d{1,20})@(\d{1,20})\.(\d{9})\n?\Z")


def parse_value(text: str):
    """`VALUE@SECONDS.NANOSECONDS` -> (value, seconds as a float), or None
    when the text is not of that form."""
    m = _VALUE.match(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)) + int(m.group(3)) / 1e9


def _counter(path: Path):
    try:
        return parse_value(read_text(path, "Cassini telemetry", MAX_FILE_BYTES))
    except GpcnetError:        # absent, unreadable, not a regular file: no value
        return None


def nic_counters(sys_root: str = "/sys") -> dict:
    """{"cxiN": {"stall": n, "flit": n, "time": t}} for each NIC with both
    counters; t is the driver's time of its last read."""
    cxi = Path(sys_root) / "class" / "cxi"
    out = {}
    for dev in sorted(cxi.iterdir()) if cxi.is_dir() else []:
        tel = dev / "device" / "telemetry"
        stall = [_counter(tel / STALL.format(tc=tc)) for tc in TRAFFIC_CLASSES]
        flit = [_counter(tel / FLIT.format(tc=tc)) for tc in TRAFFIC_CLASSES]
        stall, flit = [v for v in stall if v], [v for v in flit if v]
        if stall and flit:
            out[dev.name] = {"stall": sum(v for v, _ in stall), "flit": sum(v for v, _ in flit),
                             "time": max(t for _, t in stall + flit)}
    return out


def reading(sys_root: str = "/sys", host: str | None = None) -> dict:
    """One node sampler reading of this node's NICs, keyed HOST/cxiN."""
    host = host or socket.gethostname().split(".")[0]
    nics = nic_counters(sys_root)
    ports = {f"{host}/{dev}": {"stall": c["stall"], "flit": c["flit"]} for dev, c in nics.items()}
    return {"host": host, "time": time.time(), "source": NIC if ports else NONE, "ports": ports}
