"""An InfiniBand fabric as its own discovery tools print it, and the two
kinds of ports of the co-run paper's metric found in it.

The paper (Zhang et al., Section II) averages an Aries router's *network*
tiles, the ports linking it to other routers; its *processor* tiles, the
ports facing the router's own nodes, it shows separately (Fig. 6) and finds
them no indicator of congestion. On InfiniBand the analogues are:

- network tile of a switch R that has an application node: each link from
  R to another switch, read at the far end's port (the port sending into
  R): its PortXmitWait counts the ticks it had data for R and no credit (R's
  input buffer full: R's tile stalled), its PortXmitData the data going
  into R (the tile's incoming flits), as the testbed reads the queue
  sending into a leaf;
- processor tile: R's port facing each application node: PortXmitWait
  ticks it could not deliver to the node, PortXmitData the data it did.

Both are found from `ibnetdiscover` output (the default text topology) or
`iblinkinfo` output, saved in a file named by GPCNET_IB_FABRIC, or from
`ibnetdiscover` run on this host when it is there, and read with
`perfquery LID PORT` by the study's node samplers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_text

MAX_FILE_BYTES = 64 * 2**20
ENV = "GPCNET_IB_FABRIC"


@dataclass
class Switch:
    key: str                  # GUID (both formats give it)
    name: str                 # node description
    lid: int | None = None
    ports: dict = field(default_factory=dict)   # port -> ("switch", key or lid, port) | ("ca", description, port)


# ibnetdiscover: a node line, then one line per connected port.
_NODE = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(.*)$')
_PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\([0-9a-fA-F]+\))?'
                   r'\s*(?:#\s*(.*))?$')
_LID = re.compile(r"\blid\s+(\d+)")
_QUOTED = re.compile(r'"([^"]*)"')
# iblinkinfo: "Switch: 0xGUID DESCRIPTION:" then "LID PORT[..] ==( ... )==> LID PORT[..] "DESC" ( )".
# (.*) then the ':' cut off by a str method: `(.*?):?\s*$` retried `\s*$`
# at every character of the description, quadratic in a run of spaces.
_LI_SWITCH = re.compile(r"^Switch:?\s+(?:0x)?([0-9a-fA-F]+)\s+(.*)$")
_LI_CA = re.compile(r"^CA:\s")
_LI_PORT = re.compile(r'^\s*(\d+)\s+(\d+)\[[^\]]*\]\s+==\(.*?\)==>\s+(\d+)\s+(\d+)\[[^\]]*\]\s+"([^"]*)"')


def parse_ibnetdiscover(text: str) -> dict:
    """{switch GUID: Switch} from ibnetdiscover's topology output."""
    switches, kinds, current = {}, {}, None
    for line in text.splitlines():
        line = line.strip()
        m = _NODE.match(line)
        if m:
            kind, _, guid, desc, rest = m.groups()
            kinds[guid.lower()] = (kind, desc)
            current = None
            if kind == "Switch":
                lid = _LID.search(rest)
                current = switches[guid.lower()] = Switch(guid.lower(), desc, int(lid.group(1)) if lid else None)
            continue
        m = _PORT.match(line)
        if m and current is not None:
            port, ptype, peer, rport, comment = m.groups()
            if ptype == "S":
                current.ports[int(port)] = ("switch", peer.lower(), int(rport))
            else:
                desc = _QUOTED.search(comment or "")
                current.ports[int(port)] = ("ca", desc.group(1) if desc else f"H-{peer}", int(rport))
    return switches


def parse_iblinkinfo(text: str) -> dict:
    """{switch GUID: Switch} from iblinkinfo's output (its switch blocks;
    a peer is a switch when its LID is a switch's)."""
    switches, current = {}, None
    for line in text.splitlines():
        m = _LI_SWITCH.match(line.strip())
        if m:
            current = switches[m.group(1).lower()] = Switch(m.group(1).lower(), m.group(2).removesuffix(":").strip())
            continue
        if _LI_CA.match(line.strip()):
            current = None
            continue
        m = _LI_PORT.match(line)
        if m and current is not None:
            lid, port, rlid, rport, desc = m.groups()
            current.lid = int(lid)
            current.ports[int(port)] = ("lid", int(rlid), int(rport), desc)
    by_lid = {s.lid: s.key for s in switches.values() if s.lid is not None}
    for s in switches.values():
        for p, (_, rlid, rport, desc) in list(s.ports.items()):
            s.ports[p] = ("switch", by_lid[rlid], rport) if rlid in by_lid else ("ca", desc, rport)
    return switches


def parse(text: str, where: str) -> dict:
    """Either format, told apart by its lines; one line naming `where` when
    neither gives a switch."""
    switches = parse_iblinkinfo(text) if re.search(r"(?m)^Switch:", text) else parse_ibnetdiscover(text)
    if not switches:
        raise GpcnetError(f"{where}: no switch found (expected the output of ibnetdiscover or iblinkinfo)")
    missing = sorted(s.name for s in switches.values() if s.lid is None)
    if missing:
        raise GpcnetError(f"{where}: switch {missing[0]!r} has no LID (ibnetdiscover prints it as "
                          "'lid N' on the Switch line)")
    return switches


_CACHE: dict = {}


def discover() -> tuple:
    """(switches, where they came from) or (None, None): the file named by
    GPCNET_IB_FABRIC, else `ibnetdiscover` on this host (once per process)."""
    path = os.environ.get(ENV)
    key = path or "ibnetdiscover"
    if key in _CACHE:
        return _CACHE[key]
    if path:
        got = (parse(read_text(path, "fabric discovery", MAX_FILE_BYTES), f"{ENV} {path}"), f"file {path}")
    elif shutil.which("ibnetdiscover"):
        try:
            p = subprocess.run(["ibnetdiscover"], capture_output=True, text=True, timeout=300)
            got = (parse(p.stdout, "ibnetdiscover"), "ibnetdiscover") if p.returncode == 0 else (None, None)
        except (OSError, subprocess.TimeoutExpired, GpcnetError):
            got = (None, None)
    else:
        got = (None, None)
    _CACHE[key] = got
    return got


def _short(name: str) -> str:
    return name.split(".")[0].lower()


def _router_names(switches: dict) -> dict:
    """A readable, unique name per switch: its description, with its LID
    when two switches share one."""
    seen: dict = {}
    for s in switches.values():
        seen[s.name] = seen.get(s.name, 0) + 1
    return {s.key: s.name if seen[s.name] == 1 else f"{s.name} (lid {s.lid})" for s in switches.values()}


def port_key(switch: Switch, port: int) -> str:
    return f"switch{switch.lid}/{port}"


def tiles(switches: dict, nodes: list) -> dict:
    """The metric's ports for the application's `nodes`:
    {"ntile": {key: {...}}, "ptile": {key: {...}}, "by_node": [[target, ...]
    per node], "missing": [nodes the fabric does not describe]}. A target is
    {"key", "lid", "port"}: what one node's sampler reads with perfquery.
    Each switch's network tiles are read by its first application node."""
    names = _router_names(switches)
    where: dict = {}                      # short host name -> [(switch key, port)]
    for s in switches.values():
        for p, peer in sorted(s.ports.items()):
            if peer[0] == "ca" and peer[1].split():
                where.setdefault(_short(peer[1].split()[0]), []).append((s.key, p))
    ntile, ptile, by_node, missing, reader = {}, {}, [], [], {}
    for i, node in enumerate(nodes):
        mine = []
        for skey, p in where.get(_short(node), []):
            s = switches[skey]
            k = port_key(s, p)
            ptile[k] = {"router": names[skey], "node": node, "lid": s.lid, "port": p}
            mine.append({"key": k, "lid": s.lid, "port": p})
            reader.setdefault(skey, i)
        if not where.get(_short(node)):
            missing.append(node)
        by_node.append(mine)
    for skey, i in reader.items():
        r = switches[skey]
        for p, peer in sorted(r.ports.items()):
            if peer[0] != "switch" or peer[1] not in switches:
                continue
            far, q = switches[peer[1]], peer[2]
            k = port_key(far, q)
            ntile[k] = {"router": names[skey], "lid": far.lid, "port": q, "peer": names[far.key],
                        "into_port": p}
            by_node[i].append({"key": k, "lid": far.lid, "port": q})
    return {"ntile": ntile, "ptile": ptile, "by_node": by_node, "missing": missing}
