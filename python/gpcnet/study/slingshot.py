"""An HPE Slingshot fabric and the two kinds of ports of the co-run
paper's metric in it (docs/studies.md, "Slingshot").

The paper averages the *network* tiles of the routers that hold the
application (the ports linking a router to other routers) and shows the
*processor* tiles (the ports facing its nodes) apart. On Slingshot:

- router: a Rosetta switch with an application node;
- network tiles: its fabric ports, each cabled to another switch (local
  links within the dragonfly group, global links to other groups), read
  at the switch's own port: stall = the PAUSE frames the switch sent on it
  (its input from that link was full: RFC 3635's dot3HCOutPauseFrames),
  flit = the octets it received on it (RFC 2863's ifHCInOctets). Only the
  fabric manager reads these; a user gets them as a record (below);
- processor tiles: the Cassini NIC of each application node, read on the
  node from the cxi driver's telemetry (gpcnet.study.cassini).

Which switch ports face nodes and which face switches comes from the
Fabric Controller's `GET /apis/fc/v2/port-links` answer, `{"ports":
{"edge": [PORT...], "fabric": [PORT...]}, "links": [{"endpoint1": PORT,
"endpoint2": PORT}...]}` with PORT a port xname `xXcCrRjJpP` (its switch is
`xXcCrR`), saved in the file GPCNET_SLINGSHOT_FABRIC names. That answer
does not say which node an edge port serves; the file adds it, ours:
`"edge_nodes": {PORT: "HOST" or "HOST/cxiN"}` (the site's hardware
database knows it: the HSN connectors' NodeNics and the nodes' aliases). A
node with NICs on several switches has an edge port on each; naming the
NIC says which of its NICs (processor tiles) each switch serves.

The switch counters are read by whoever runs the fabric manager, as a
record that GPCNET_SLINGSHOT_SWITCH_COUNTERS names: one JSON object a line,
`{"time": EPOCH_SECONDS, "statistics": ANSWER}` with ANSWER the Fabric
Controller's `GET /apis/fc/v2/port-sets/{name}/statistics/{type}/{group}`
answer, `[{"ports": [{"xname": PORT, "status": {"name": GROUP, "stat":
[{"name": COUNTER, "value": "N"}]}}]}]`, taken every second or so while
the study runs.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from gpcnet.infra import reading
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_json
from gpcnet.text import text_safe

FABRIC_ENV = "GPCNET_SLINGSHOT_FABRIC"
SWITCH_ENV = "GPCNET_SLINGSHOT_SWITCH_COUNTERS"
SWITCH_STALL = "dot3HCOutPauseFrames"
SWITCH_FLIT = "ifHCInOctets"
MAX_FABRIC_BYTES = 64 * 2**20
MAX_RECORD_BYTES = 256 * 2**20
MAX_NODES = 200_000

_PORT = re.compile(r"\A(x\d{1,9}c\d{1,9}r\d{1,9})j\d{1,9}p\d{1,9}\Z")
_EDGE_NODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,254}(?:/cxi\d{1,4})?")


def switch_of(port: str):
    """The switch xname of a port xname, or None when it is not one."""
    m = _PORT.match(port) if isinstance(port, str) else None
    return m.group(1) if m else None


def _q(value, limit: int = 80) -> str:
    """A value from a file as an error line shows it (quoted, short, escaped)."""
    return text_safe.quote(value, limit)


def parse_fabric(doc, where: str) -> dict:
    """The port-links answer (with edge_nodes) -> {"edge": {port: node},
    "links": {port: peer port}}, every problem one GpcnetError line naming
    `where` and the field."""
    def bad(field: str, what: str):
        raise GpcnetError(f"{where}: {field}: {what}")

    if not isinstance(doc, dict):
        bad("$", "expected the Fabric Controller's port-links object ({\"ports\": ..., \"links\": ...})")
    ports, links, nodes = doc.get("ports"), doc.get("links"), doc.get("edge_nodes")
    if not isinstance(ports, dict) or not isinstance(ports.get("edge"), list) \
            or not isinstance(ports.get("fabric"), list):
        bad("$.ports", "expected {\"edge\": [port xnames], \"fabric\": [port xnames]}")
    if not isinstance(links, list):
        bad("$.links", "expected a list of {\"endpoint1\": port, \"endpoint2\": port}")
    if not isinstance(nodes, dict):
        bad("$.edge_nodes", "expected {edge port xname: node host name} (the port-links answer has no "
                            "node names: add them from the site's hardware database)")
    if len(ports["edge"]) + len(ports["fabric"]) + len(links) + len(nodes) > 4 * MAX_NODES:
        bad("$", f"more ports and links than a fabric of {MAX_NODES} nodes has")
    for kind in ("edge", "fabric"):
        for i, p in enumerate(ports[kind]):
            if switch_of(p) is None:
                bad(f"$.ports.{kind}[{i}]", f"{_q(p)} is not a switch port xname (xXcCrRjJpP)")
    edge, fabric = set(ports["edge"]), set(ports["fabric"])
    peer = {}
    for i, link in enumerate(links):
        ends = [link.get(k) if isinstance(link, dict) else None for k in ("endpoint1", "endpoint2")]
        for k, p in zip(("endpoint1", "endpoint2"), ends):
            if switch_of(p) is None:
                bad(f"$.links[{i}].{k}", f"{_q(p)} is not a switch port xname (xXcCrRjJpP)")
            if p in edge:
                bad(f"$.links[{i}].{k}", f"{p} is listed as an edge port, but a link joins it to a switch")
        a, b = ends
        peer[a], peer[b] = b, a
    out = {}
    for port, node in nodes.items():
        if port not in edge:
            bad(f"$.edge_nodes[{_q(port)}]", "not one of $.ports.edge")
        if not isinstance(node, str) or not _EDGE_NODE.fullmatch(node):
            bad(f"$.edge_nodes[{_q(port)}]", f"{_q(node)} is not a host name (HOST or HOST/cxiN)")
        out[port] = node
    return {"edge": out, "links": {p: q for p, q in peer.items() if p in fabric}}


def read_fabric(path: str) -> dict:
    return parse_fabric(read_json(path, "Slingshot port-links", MAX_FABRIC_BYTES), f"{FABRIC_ENV} {path}")


def _short(name: str) -> str:
    return name.split(".")[0].lower()


def tiles(fab: dict, nodes: list) -> dict:
    """The metric's ports for the application's `nodes`: {"ntile": {port:
    {"router", "peer"}}, "routers": {short node name: [its switches]},
    "nics": {"node/cxiN": switch}, "missing": [nodes no edge port serves]}.
    The processor tiles are the nodes' NICs, named by what each node
    reports (ptile_scope)."""
    switches: dict = {}      # short node name -> its switches, a plainly named one first
    nics: dict = {}
    for port, name in sorted(fab["edge"].items(), key=lambda kv: ("/" in kv[1], kv[0])):
        host, _, nic = name.partition("/")
        switches.setdefault(_short(host), [])
        if switch_of(port) not in switches[_short(host)]:
            switches[_short(host)].append(switch_of(port))
        if nic:
            nics[f"{_short(host)}/{nic}"] = switch_of(port)
    routers = {_short(n): switches[_short(n)] for n in nodes if _short(n) in switches}
    missing = [n for n in nodes if _short(n) not in switches]
    hosting = {sw for sws in routers.values() for sw in sws}
    ntile = {p: {"router": switch_of(p), "peer": q} for p, q in sorted(fab["links"].items())
             if switch_of(p) in hosting}
    return {"ntile": ntile, "routers": routers, "nics": {k: v for k, v in nics.items() if k.split("/")[0] in routers},
            "missing": missing}


def ptile_scope(by_host: dict, t: dict) -> dict:
    """Each NIC the nodes reported (HOST/cxiN): its router is the switch
    the fabric names for that NIC, else its node's first switch (the
    node's name when the fabric does not know it)."""
    scope = {}
    for host, readings in by_host.items():
        for r in readings:
            for port in r["ports"]:
                nic = f"{_short(host)}/{port.rsplit('/', 1)[-1]}"
                router = t["nics"].get(nic) or (t["routers"].get(_short(host)) or [host])[0]
                scope.setdefault(port, {"router": router, "node": host})
    return scope


def _count(value, where: str, field: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"\d{1,20}", value.strip()):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    raise GpcnetError(f"{where}: {field}: expected a counter value (a whole number as text), "
                      f"not {_q(value, 40)}")


def parse_switch_line(item, where: str) -> dict:
    """One record line -> {"time": t, "ports": {port: {"stall", "flit"}}}
    with the ports that report both counters."""
    if not isinstance(item, dict) or not isinstance(item.get("statistics"), list):
        raise GpcnetError(f"{where}: expected {{\"time\": seconds, \"statistics\": [the Fabric Controller's "
                          "port-set statistics answer]}")
    t = item.get("time")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < 1e11:
        raise GpcnetError(f"{where}: time: expected seconds since the epoch, not {_q(t, 40)}")
    found: dict = {}
    for i, group in enumerate(item["statistics"]):
        if not isinstance(group, dict) or not isinstance(group.get("ports"), list):
            raise GpcnetError(f"{where}: statistics[{i}]: expected {{\"ports\": [...]}}")
        for j, entry in enumerate(group["ports"]):
            field = f"statistics[{i}].ports[{j}]"
            port = entry.get("xname") if isinstance(entry, dict) else None
            if switch_of(port) is None:
                raise GpcnetError(f"{where}: {field}.xname: expected a switch port xname (xXcCrRjJpP)")
            status = entry.get("status")
            if not isinstance(status, dict) or not isinstance(status.get("stat"), list):
                raise GpcnetError(f"{where}: {field}.status: expected {{\"name\": group, \"stat\": [...]}}")
            for k, s in enumerate(status["stat"]):
                if not isinstance(s, dict) or not isinstance(s.get("name"), str):
                    raise GpcnetError(f"{where}: {field}.status.stat[{k}]: expected {{\"name\", \"value\"}}")
                key = {SWITCH_STALL: "stall", SWITCH_FLIT: "flit"}.get(s["name"])
                if key:
                    found.setdefault(port, {})[key] = _count(s.get("value"), where,
                                                             f"{field}.status.stat[{k}].value")
    return {"time": float(t), "ports": {p: c for p, c in found.items() if len(c) == 2}}


def read_switch_record(path: str) -> list:
    """Every reading of the switch counter record, in time order; one
    GpcnetError line naming the file, the line and the field otherwise."""
    text = reading.read_text(path, "Slingshot switch counter record", MAX_RECORD_BYTES)
    values, containers = reading.json_counts(text)
    if values > reading.MAX_JSON_VALUES or containers > reading.MAX_JSON_CONTAINERS:
        raise GpcnetError(f"{path}: more values than any switch counter record holds; not parsed")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{SWITCH_ENV} {path}:{n}"
        try:
            item = json.loads(line, parse_constant=reading._reject_constant,
                              parse_float=reading._finite_float, parse_int=reading._bounded_int)
        except RecursionError:
            raise GpcnetError(f"{where}: nested too deeply for a switch counter record") from None
        except ValueError as e:
            raise GpcnetError(f"{where}: not a JSON line: {text_safe.shorten(str(e), 120)}") from None
        r = parse_switch_line(item, where)
        if out and r["time"] <= out[-1]["time"]:
            raise GpcnetError(f"{where}: time: {r['time']:g} does not follow the line before ({out[-1]['time']:g})")
        out.append(r)
    return out


def during(readings: list, start: float, stop: float) -> list:
    """The readings that cover [start, stop]: those inside it, the last one
    before it and the first one after it (the record's own times; the
    fabric manager's clock is taken to agree with this host's)."""
    before = [r for r in readings if r["time"] < start]
    inside = [r for r in readings if start <= r["time"] <= stop]
    after = [r for r in readings if r["time"] > stop]
    return before[-1:] + inside + after[:1]


def main(argv=None) -> int:
    """`python3 -m gpcnet.study.slingshot FABRIC NODE...`: the tiles the
    study would read for those nodes, as JSON (a check of the files before
    a study); --switch-counters FILE also checks a record."""
    ap = argparse.ArgumentParser(prog="python3 -m gpcnet.study.slingshot")
    ap.add_argument("fabric", help="the Fabric Controller's port-links answer with edge_nodes (JSON)")
    ap.add_argument("nodes", nargs="*", help="the application's nodes")
    ap.add_argument("--switch-counters", help="a switch counter record (JSON lines) to check")
    args = ap.parse_args(argv)
    try:
        t = tiles(read_fabric(args.fabric), args.nodes)
        out = {"ntile": t["ntile"], "routers": t["routers"], "nics": t["nics"], "missing": t["missing"]}
        if args.switch_counters:
            rs = read_switch_record(args.switch_counters)
            out["switch_readings"] = len(rs)
        print(json.dumps(out, indent=1))
    except GpcnetError as e:
        print(text_safe.message(str(e)), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
