"""What the testbed is made of, before anything is created: hosts, switches,
links, addresses and queues, computed from the user's options.

Which switches there are and where each NIC of each host is cabled is the
shape's (one module of gpcnet.testbed.shapes per --topology); the rest is
the same for every shape. Everything created later (namespaces, veths,
bridges, qdiscs, Slurm configuration, the drawing) is derived from the
Topology built here, so the checks of impossible shapes happen once,
before anything exists.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import shapes
from gpcnet.testbed import routing as routing_modes

# RFC 2544 benchmarking range 198.18.0.0/15: management in 198.18.0.0/24,
# the data fabric in 198.19.0.0/16: NIC i of host n is 198.19.i.n/24 (NIC 0,
# the only one of a one-NIC host, in 198.19.0.0/24). Both are flat L2 segments.
MGMT_NET, MGMT_PREFIX = "198.18.0", 24
DATA_NET, DATA_PREFIX = "198.19.0", 24
MGMT_CIDR = f"{MGMT_NET}.0/{MGMT_PREFIX}"
DATA_CIDR = f"{DATA_NET}.0/{DATA_PREFIX}"
DATA_FABRIC_NET, DATA_FABRIC_PREFIX = "198.19.0.0", 16   # every NIC of every rail
HEAD_HOST_NUMBER = 254
MAX_HOSTS = 200
MAX_NICS = 8
# What one testbed holds beyond hosts (checked by the shapes that can grow
# past it, fat-tree3): every switch is a bridge (or, under ecmp, a routing
# table and a rule per port) and every switch port a veth end with up to
# three queues, all in the one fabric namespace; `up` and `down` take time
# in proportion (docs/testbed.md gives the measured figures). 128 switches
# hold the largest k-ary tree within MAX_HOSTS (k=8: 80 switches);
# 2048 switch ports hold it too (k=8: 128 host ports + 512 trunk ends).
MAX_SWITCHES = 128
MAX_FABRIC_PORTS = 2048
TOPOLOGIES = shapes.names()   # --topology: the registry's shapes
QDISCS = ("pfifo", "fq_codel", "codel")


# tbf keeps the rate in bytes/s in 32 bits, so 34 Gbit/s is its ceiling;
# a delay beyond 10 s is no network's.
MAX_RATE = 32 * 10**9
MAX_DELAY_US = 10 * 10**6


def _shown(text) -> str:
    t = str(text)
    return repr(t if len(t) <= 40 else t[:40] + "...")


def parse_rate(text: str) -> int:
    """'100mbit', '1gbit', '500kbit', '0'/'none' (unlimited) -> bits/s."""
    t = str(text).strip().lower()
    if t in ("0", "none", "unlimited"):
        return 0
    m = re.fullmatch(r"(\d{1,15}(?:\.\d{1,15})?)\s*(bit|kbit|mbit|gbit)?", t)
    if not m:
        raise GpcnetError(f"rate {_shown(text)}: expected e.g. 100mbit, 1gbit, 500kbit or none")
    scale = {"bit": 1, None: 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}[m.group(2)]
    value = int(float(m.group(1)) * scale)
    if value < 8000:
        raise GpcnetError(f"rate {_shown(text)}: below 8kbit (use none for unlimited)")
    if value > MAX_RATE:
        raise GpcnetError(f"rate {_shown(text)}: above {MAX_RATE // 10**9}gbit, the most a testbed link can be "
                          "limited to (use none for unlimited)")
    return value


def parse_delay(text: str) -> int:
    """'0', '100us', '1ms' -> microseconds."""
    t = str(text).strip().lower()
    m = re.fullmatch(r"(\d{1,15}(?:\.\d{1,15})?)\s*(us|ms|s)?", t)
    if not m:
        raise GpcnetError(f"delay {_shown(text)}: expected e.g. 0, 50us, 1ms")
    value = int(float(m.group(1)) * {"us": 1, None: 1, "ms": 1000, "s": 10**6}[m.group(2)])
    if value > MAX_DELAY_US:
        raise GpcnetError(f"delay {_shown(text)}: above 10s")
    return value


def format_rate(bps: int) -> str:
    if not bps:
        return "unlimited"
    for unit, scale in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bps >= scale:
            return f"{bps / scale:g}{unit}"
    return f"{bps}bit"


@dataclass
class Port:
    """One switch port (the switch side of a link) or host NIC: where a
    queue lives. rate in bit/s (0: unlimited), delay in us."""
    ns: str           # namespace holding the interface
    ifname: str
    rate: int
    delay: int
    tier: str         # "host", "edge" (switch->host), "uplink" (leaf->spine), "downlink" (spine->leaf)
    switch: str = ""  # switch name for switch ports, "" for host NICs
    rail: int = -1    # host NICs and edge ports: the NIC's index; rail leaves' up/downlinks: the rail


@dataclass
class Link:
    a: Port
    b: Port


@dataclass
class Nic:
    """One data NIC of a host. On a rail topology its index is its rail."""
    index: int        # NIC i of the host: data<i>, 198.19.<i>.<host>
    ifname: str
    ip: str
    mac: str          # fixed, so switch tables can be static
    leaf: str         # the switch it is cabled to
    port: str         # that switch's port (in the fabric namespace)


@dataclass
class Host:
    name: str         # host name (UTS) and Slurm node name
    number: int       # 1-based; addresses end in it
    ns: str           # network namespace
    leaf: str         # the switch its data NIC (NIC 0) is cabled to
    mac: str          # data NIC (NIC 0) MAC (fixed, so switch tables can be static)
    nics: list = field(default_factory=list)   # every data NIC, NIC 0 first

    @property
    def mgmt_ip(self) -> str:
        return f"{MGMT_NET}.{self.number}"

    @property
    def data_ip(self) -> str:
        return f"{DATA_NET}.{self.number}"


@dataclass
class Topology:
    kind: str
    hosts: list
    switches: list                      # data switches (bridges) in the fabric namespace
    spines: list = field(default_factory=list)
    links: list = field(default_factory=list)  # data links
    qdisc: str = "pfifo"
    ecn: bool = False
    queue: int = 100                    # packets per switch port queue
    params: dict = field(default_factory=dict)
    prefix: str = "gtb"
    routing: str = "static"             # --routing (gpcnet.testbed.routing)
    classes: dict = field(default_factory=dict)  # --traffic-classes (gpcnet.testbed.classes); {}: none

    @property
    def fabric_ns(self) -> str:
        return f"{self.prefix}-fabric"

    @property
    def head_ns(self) -> str:
        return f"{self.prefix}-head"

    @property
    def head_name(self) -> str:
        return "tbhead"

    @property
    def head_ip(self) -> str:
        return f"{MGMT_NET}.{HEAD_HOST_NUMBER}"

    def namespaces(self) -> list:
        return [self.fabric_ns, self.head_ns] + [h.ns for h in self.hosts]

    def spine_for(self, host: Host, nic: int = 0) -> str:
        """Destination-based (d-mod-k) choice of spine for traffic to NIC
        `nic` of host (NICs of one host spread over the spines)."""
        k = self.params.get("nics_per_host", 1)
        return self.spines[((host.number - 1) * k + nic) % len(self.spines)]

    @property
    def levels(self) -> list:
        """The switches level by level, bottom up: [leaves, spines] of a
        two-level shape, [leaves] of a star, as the shape said for more."""
        if "levels" in self.params:
            return self.params["levels"]
        lower = [s for s in self.switches if s not in self.spines]
        return [lower, list(self.spines)] if self.spines else [lower]

    @property
    def nics_per_host(self) -> int:
        return self.params.get("nics_per_host", 1)

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict) -> "Topology":
        hosts = [Host(**{**h, "nics": [Nic(**n) for n in h.get("nics", [])]}) for h in d["hosts"]]
        links = [Link(Port(**l["a"]), Port(**l["b"])) for l in d["links"]]
        rest = {k: v for k, v in d.items() if k not in ("hosts", "links")}
        return Topology(hosts=hosts, links=links, **rest)


def host_name(number: int, count: int) -> str:
    return f"node{number:0{max(2, len(str(count)))}d}"


def parse_nics(text) -> int:
    """--nics-per-host: a whole number of data NICs per host, 1 to MAX_NICS."""
    t = str(text).strip()
    if not re.fullmatch(r"\d{1,3}", t) or not 1 <= int(t) <= MAX_NICS:
        raise GpcnetError(f"--nics-per-host {_shown(text)}: expected a whole number of data NICs "
                          f"per host, 1 to {MAX_NICS}")
    return int(t)


def nic_port(number: int, index: int, nics: int) -> str:
    """The switch port of NIC `index` of host `number`: d<n> as ever for a
    one-NIC host, d<n>n<i> for each NIC of a multi-NIC one."""
    return f"d{number}" if nics == 1 else f"d{number}n{index}"


def nic_mac(number: int, index: int) -> str:
    return f"02:67:74:{index:02x}:{number >> 8:02x}:{number & 255:02x}"


def build(kind: str, hosts, hosts_per_leaf: int = 0, spines: int = 1,
          taper: float = 1.0, host_rate: str = "100mbit", host_delay: str = "0",
          uplink_delay: str = "0", qdisc: str = "pfifo", ecn: bool = False,
          queue: int = 100, nics_per_host=1, routing: str = "static",
          **shape_options) -> Topology:
    """Check the shape and compute every host, switch, link and queue.

    The shape's module (gpcnet.testbed.shapes) says which switches there
    are and where each NIC of each host is cabled; the rest is the same for
    every shape: NIC i of host n is data<i> at 198.19.i.n, every link gets
    its rate, delay and queue, and each leaf's uplinks share the bandwidth
    of its host ports divided by --taper (and, in a shape of more levels,
    each level's uplinks their downlinks' bandwidth by that level's taper).

    hosts None: 10, or as many as the shape's own options say (fat-tree3
    --k). shape_options: options of one shape alone (None: not given)."""
    if kind not in TOPOLOGIES:
        raise GpcnetError(f"unknown topology {kind!r} (known: {', '.join(TOPOLOGIES)})")
    shape = shapes.get(kind)
    opts = {k: v for k, v in shape_options.items() if v is not None}
    for name in opts:
        if name not in shape.options:
            owners = [s for s in TOPOLOGIES if name in shapes.get(s).options]
            raise GpcnetError(f"--{name.replace('_', '-')}: not an option of --topology {kind} "
                              f"(only of {', '.join(owners) or 'no shape'})")
    hosts, hosts_per_leaf = shape.sized(hosts, hosts_per_leaf, **opts)
    if not 2 <= hosts <= MAX_HOSTS:
        raise GpcnetError(f"--hosts {hosts}: expected 2 to {MAX_HOSTS}")
    nics = parse_nics(nics_per_host)
    shape.check_nics(nics)
    if qdisc not in QDISCS:
        raise GpcnetError(f"unknown queueing discipline {qdisc!r} (known: {', '.join(QDISCS)})")
    if ecn and qdisc == "pfifo":
        raise GpcnetError("--ecn needs an AQM queue that marks: --qdisc fq_codel or codel")
    if not 1 <= queue <= 100000:
        raise GpcnetError(f"--queue {queue}: expected 1 to 100000 packets")
    rate = parse_rate(host_rate)
    hdelay, udelay = parse_delay(host_delay), parse_delay(uplink_delay)
    fabric = "gtb-fabric"
    lay = shape.layout(hosts, nics, hosts_per_leaf, spines, taper, rate, **opts)
    per_leaf = lay.hosts_per_leaf
    routing_modes.check(routing, kind, len(lay.spines), lay.paths)

    topo = Topology(kind=kind, hosts=[], switches=lay.leaves + lay.spines, spines=list(lay.spines),
                    qdisc=qdisc, ecn=ecn, queue=queue, routing=routing)
    for n in range(1, hosts + 1):
        group = (n - 1) // per_leaf
        h = Host(name=host_name(n, hosts), number=n, ns=f"gtb-{host_name(n, hosts)}",
                 leaf=lay.nic_leaf(group, 0), mac=nic_mac(n, 0))
        for i in range(nics):
            leaf = lay.nic_leaf(group, i)
            nic = Nic(i, f"data{i}", f"198.19.{i}.{n}", nic_mac(n, i), leaf, nic_port(n, i, nics))
            h.nics.append(nic)
            topo.links.append(Link(Port(h.ns, nic.ifname, rate, hdelay, "host", rail=i),
                                   Port(fabric, nic.port, rate, hdelay, "edge", leaf, rail=i)))
        topo.hosts.append(h)
    uplink_rate = 0
    level_rates = []
    if lay.trunks:
        # taper = bandwidth of a leaf's host ports / bandwidth of its uplinks, spread over
        # the uplinks (a fat-tree leaf has every NIC of its hosts, a rail leaf one per host).
        uplink_rate = int(lay.host_ports * rate / taper / lay.uplinks) if rate else 0
        level_rates = [_checked_uplink_rate(uplink_rate, rate, "--taper", taper, "uplinks")]
        for lv, up in enumerate(lay.upper, start=1):
            # each level above: the bandwidth coming up from below / its taper
            below = level_rates[-1]
            level_rates.append(_checked_uplink_rate(
                int(up.downlinks * below / up.taper / up.uplinks) if below else 0, below,
                up.option, up.taper, f"level-{lv} uplinks"))
        for t in lay.trunks:
            r = level_rates[t.level]
            topo.links.append(Link(Port(fabric, t.lower_port, r, udelay, "uplink", t.lower, t.rail),
                                   Port(fabric, t.upper_port, r, udelay, "downlink", t.upper,
                                        t.rail)))
    topo.params = {"hosts": hosts, "hosts_per_leaf": per_leaf, "spines": len(lay.spines),
                   "taper": taper if lay.trunks else None, "host_rate": rate,
                   "uplink_rate": uplink_rate, "host_delay_us": hdelay,
                   "uplink_delay_us": udelay, "nics_per_host": nics}
    if lay.levels:
        # only shapes of more than two levels: the others' state stays as it was
        topo.params.update(levels=lay.levels, level_uplink_rates=level_rates, **lay.params)
    return topo


def _checked_uplink_rate(value: int, below: int, option: str, taper: float, what: str) -> int:
    if below and value < 8000:
        raise GpcnetError(f"{option} {taper:g} leaves {what} below 8kbit")
    if value > MAX_RATE:
        raise GpcnetError(f"{option} {taper:g} makes {what} faster than {MAX_RATE // 10**9}gbit")
    return value
