"""What a shape of the testbed is: the interface every module of
gpcnet.testbed.shapes implements.

A shape answers, from the user's options, which switches there are and how
hosts and switches are cabled (a Layout), and, from the built Topology, how
its switches forward (static entries, or none where learning bridges
cannot loop), where its switches are drawn, and how `up` names it. The
hosts, links, addresses, rates and queues are computed from the Layout by
gpcnet.testbed.topology.build, the same for every shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from gpcnet.infra.errors import GpcnetError


@dataclass
class Trunk:
    """One switch-to-switch link: `lower` sends up by port lower_port,
    `upper` sends down by upper_port. rail: the rail of the lower switch
    (-1: none). level: 0 for a leaf's uplink, 1 for an uplink of the level
    above (a three-level tree's aggregation-to-core links), and so on."""
    lower: str
    upper: str
    lower_port: str
    upper_port: str
    rail: int = -1
    level: int = 0


@dataclass
class Layout:
    """The switches of a shape and its cabling, before rates and addresses.

    leaves: the switches hosts are cabled to; spines: the switches above
    them (empty for a one-level shape); nic_leaf(group, i): the leaf of NIC
    i of a host of host group `group` (hosts_per_leaf hosts each);
    host_ports: host ports per leaf (what --taper divides); uplinks: trunks
    leaving each leaf (what the uplink bandwidth is spread over).

    A shape of more than two levels also says, bottom up, which switches
    are at each level (levels: [leaves, level 1, level 2, ...]; spines
    then holds every switch above the leaves), for each level above the
    first the rate of its uplinks (upper: one UpperLevel per level from 1)
    and how many paths join its two farthest hosts (paths; 0: one per
    spine, as in a two-level tree). params: the shape's own numbers, kept
    in the Topology's params (its summary reads them back)."""
    leaves: list
    spines: list
    hosts_per_leaf: int
    nic_leaf: Callable[[int, int], str]
    host_ports: int = 0
    uplinks: int = 0
    trunks: list = field(default_factory=list)
    levels: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    paths: int = 0
    params: dict = field(default_factory=dict)


@dataclass
class UpperLevel:
    """The uplinks of a level above the leaves: each of its switches has
    `downlinks` links from the level below and `uplinks` to the level
    above, whose rate is the downlinks' bandwidth divided by `taper`,
    spread over the uplinks; `option` names the taper in messages."""
    downlinks: int
    uplinks: int
    taper: float
    option: str


@dataclass
class Forwarding:
    """How the switches forward, applied by gpcnet.testbed.netns: ports
    that neither learn nor flood unless `flood` ({port: 0 or 1}, in order),
    then static entries (port, MAC) in order. Empty: learning bridges."""
    ports: dict = field(default_factory=dict)
    entries: list = field(default_factory=list)


class Shape:
    """The interface; the defaults suit a loop-free shape whose hosts are
    cabled NIC by NIC to one leaf each."""
    name = ""
    help = ""              # one sentence for `gpcnet testbed up --help`
    # Options of this shape alone (gpcnet.testbed.topology.build passes
    # them to layout() as keywords; given to another shape, they are refused).
    options: tuple = ()
    takes_spines = True    # --spines sizes it (False: refused, the shape sizes its upper levels)

    def sized(self, hosts, hosts_per_leaf: int, **options) -> tuple:
        """(hosts, hosts_per_leaf) before anything is checked: --hosts
        (10 when not given) as given, unless the shape's own options fix them."""
        return (10 if hosts is None else hosts), hosts_per_leaf

    def check_nics(self, nics: int) -> None:
        """Refuse NIC counts the shape cannot hold (before other options are checked)."""

    def layout(self, hosts: int, nics: int, hosts_per_leaf: int, spines: int, taper: float,
               rate: int) -> Layout:
        raise NotImplementedError

    def forwarding(self, topo) -> Forwarding:
        """No static entries: the bridges learn (right wherever there is no loop)."""
        return Forwarding()

    def leaf_positions(self, topo, host_x: dict) -> dict:
        """x of each leaf in the drawing: above the middle of its hosts."""
        lx = {}
        for leaf in leaves(topo):
            xs = [host_x[h.name] for h in topo.hosts if h.leaf == leaf]
            lx[leaf] = sum(xs) / len(xs)
        return lx

    def nic_note(self, topo) -> str:
        """Added to the drawing's line on multi-NIC hosts."""
        return ""

    def summary(self, topo) -> str:
        """What `gpcnet testbed up` says of the shape."""
        text = self.switch_summary(topo)
        if topo.nics_per_host > 1:
            text += f", {topo.nics_per_host} NICs per host (NIC i: data<i>, 198.19.i.N)"
        return text

    def switch_summary(self, topo) -> str:
        n = len(topo.switches)
        return "one switch" if n == 1 else f"{n} switches"


def leaves(topo) -> list:
    return [s for s in topo.switches if s not in topo.spines]


def check_taper(taper: float, rate: int, option: str = "--taper",
                meaning: str = "host bandwidth / uplink bandwidth of a leaf") -> None:
    """--taper of a shape with uplinks (or another level's taper: option, meaning)."""
    if not 0 < taper <= 1000:  # NaN fails too; infinity would mean no limit at all
        raise GpcnetError(f"{option} {taper:g}: expected a number > 0 and at most 1000 "
                          f"({meaning}; 1 = non-blocking)")
    if taper > 1 and not rate:
        raise GpcnetError(f"{option} needs a host link rate (--host-rate) to compute uplink rates")
