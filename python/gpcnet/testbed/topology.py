"""What the testbed is made of, before anything is created: hosts, switches,
links, addresses and queues, computed from the user's options.

Everything created later (namespaces, veths, bridges, qdiscs, Slurm
configuration, the drawing) is derived from the Topology built here, so the
checks of impossible shapes happen once, before anything exists.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from gpcnet.errors import GpcnetError

# RFC 2544 benchmarking range 198.18.0.0/15: management in 198.18.0.0/24,
# the data fabric in 198.19.0.0/24. Both are flat L2 segments.
MGMT_NET, MGMT_PREFIX = "198.18.0", 24
DATA_NET, DATA_PREFIX = "198.19.0", 24
MGMT_CIDR = f"{MGMT_NET}.0/{MGMT_PREFIX}"
DATA_CIDR = f"{DATA_NET}.0/{DATA_PREFIX}"
HEAD_HOST_NUMBER = 254
MAX_HOSTS = 200
TOPOLOGIES = ("star", "fat-tree")
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


@dataclass
class Link:
    a: Port
    b: Port


@dataclass
class Host:
    name: str         # host name (UTS) and Slurm node name
    number: int       # 1-based; addresses end in it
    ns: str           # network namespace
    leaf: str         # the switch its data NIC is cabled to
    mac: str          # data NIC MAC (fixed, so switch tables can be static)

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

    def spine_for(self, host: Host) -> str:
        """Destination-based (d-mod-k) choice of spine for traffic to host."""
        return self.spines[(host.number - 1) % len(self.spines)]

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict) -> "Topology":
        hosts = [Host(**h) for h in d["hosts"]]
        links = [Link(Port(**l["a"]), Port(**l["b"])) for l in d["links"]]
        rest = {k: v for k, v in d.items() if k not in ("hosts", "links")}
        return Topology(hosts=hosts, links=links, **rest)


def host_name(number: int, count: int) -> str:
    return f"node{number:0{max(2, len(str(count)))}d}"


def build(kind: str, hosts: int, hosts_per_leaf: int = 0, spines: int = 1,
          taper: float = 1.0, host_rate: str = "100mbit", host_delay: str = "0",
          uplink_delay: str = "0", qdisc: str = "pfifo", ecn: bool = False,
          queue: int = 100) -> Topology:
    """Check the shape and compute every host, switch, link and queue."""
    if kind not in TOPOLOGIES:
        raise GpcnetError(f"unknown topology {kind!r} (known: {', '.join(TOPOLOGIES)})")
    if not 2 <= hosts <= MAX_HOSTS:
        raise GpcnetError(f"--hosts {hosts}: expected 2 to {MAX_HOSTS}")
    if qdisc not in QDISCS:
        raise GpcnetError(f"unknown queueing discipline {qdisc!r} (known: {', '.join(QDISCS)})")
    if ecn and qdisc == "pfifo":
        raise GpcnetError("--ecn needs an AQM queue that marks: --qdisc fq_codel or codel")
    if not 1 <= queue <= 100000:
        raise GpcnetError(f"--queue {queue}: expected 1 to 100000 packets")
    rate = parse_rate(host_rate)
    hdelay, udelay = parse_delay(host_delay), parse_delay(uplink_delay)
    fabric = "gtb-fabric"

    if kind == "star":
        leaves = ["star"]
        per_leaf = hosts
        spine_names = []
    else:
        if hosts_per_leaf <= 0 or hosts_per_leaf >= hosts:
            raise GpcnetError(f"--hosts-per-leaf {hosts_per_leaf}: a fat-tree needs 1 to "
                              f"{hosts - 1} hosts per leaf (at least two leaves)")
        if hosts % hosts_per_leaf:
            raise GpcnetError(f"--hosts {hosts} is not divisible by --hosts-per-leaf "
                              f"{hosts_per_leaf}: every leaf must have the same number of hosts")
        if not 1 <= spines <= 16:
            raise GpcnetError(f"--spines {spines}: expected 1 to 16")
        if not 0 < taper <= 1000:  # NaN fails too; infinity would mean no limit at all
            raise GpcnetError(f"--taper {taper:g}: expected a number > 0 and at most 1000 "
                              "(host bandwidth / uplink bandwidth of a leaf; 1 = non-blocking)")
        if taper > 1 and not rate:
            raise GpcnetError("--taper needs a host link rate (--host-rate) to compute uplink rates")
        per_leaf = hosts_per_leaf
        leaves = [f"leaf{i}" for i in range(hosts // hosts_per_leaf)]
        spine_names = [f"spine{i}" for i in range(spines)]

    topo = Topology(kind=kind, hosts=[], switches=leaves + spine_names, spines=spine_names,
                    qdisc=qdisc, ecn=ecn, queue=queue)
    for n in range(1, hosts + 1):
        h = Host(name=host_name(n, hosts), number=n, ns=f"gtb-{host_name(n, hosts)}",
                 leaf=leaves[(n - 1) // per_leaf], mac=f"02:67:74:00:{n >> 8:02x}:{n & 255:02x}")
        topo.hosts.append(h)
        topo.links.append(Link(Port(h.ns, "data0", rate, hdelay, "host"),
                               Port(fabric, f"d{n}", rate, hdelay, "edge", h.leaf)))
    uplink_rate = 0
    if spine_names:
        # taper = bandwidth of a leaf's hosts / bandwidth of its uplinks, spread over the spines.
        uplink_rate = int(per_leaf * rate / taper / len(spine_names)) if rate else 0
        if rate and uplink_rate < 8000:
            raise GpcnetError(f"--taper {taper:g} leaves uplinks below 8kbit")
        if uplink_rate > MAX_RATE:
            raise GpcnetError(f"--taper {taper:g} makes uplinks faster than {MAX_RATE // 10**9}gbit")
        for li, leaf in enumerate(leaves):
            for si, spine in enumerate(spine_names):
                topo.links.append(Link(Port(fabric, f"l{li}s{si}", uplink_rate, udelay, "uplink", leaf),
                                       Port(fabric, f"s{si}l{li}", uplink_rate, udelay, "downlink", spine)))
    topo.params = {"hosts": hosts, "hosts_per_leaf": per_leaf, "spines": len(spine_names),
                   "taper": taper if spine_names else None, "host_rate": rate,
                   "uplink_rate": uplink_rate, "host_delay_us": hdelay,
                   "uplink_delay_us": udelay}
    return topo
