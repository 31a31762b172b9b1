"""The testbed's counters of a co-run study: its switch queues live on the
machine running gpcnet, which reads them itself (gpcnet.testbed.counters)
in a forked sampler (gpcnet.infra.fork_sampler.ForkSampler): the network tiles
of the application's switches (the metric's scope) and the ports facing
its nodes (processor tiles, kept apart)."""

from __future__ import annotations

from pathlib import Path

from gpcnet.infra.fork_sampler import ForkSampler
from gpcnet.testbed import counters as tbc
from gpcnet.testbed.counters import port_key

TC = "testbed-tc"
NAMES = {TC: ("overlimits", "packets")}


def wanted(launcher, env) -> bool:
    return launcher.name == "testbed"


def processor_tiles(topo, nodes: list) -> dict:
    """The testbed's processor tiles of the application: the leaf port
    facing each application host (its queue sends to the host: overlimits
    are packets held back on the way to the node, packets what reached it)."""
    hosts = {h.ns: h.name for h in topo.hosts if h.name in set(nodes)}
    out = {}
    for link in topo.links:
        for near, far in ((link.a, link.b), (link.b, link.a)):
            if near.ns in hosts and near.tier == "host" and far.switch:
                out[port_key(far)] = {"router": far.switch, "node": hosts[near.ns]}
    return out


def topology_sampler(topo, nodes: list, interval: float, path: Path) -> ForkSampler:
    """The network tiles of the application's leaves (the metric's scope)
    and its nodes' processor tiles, read here every `interval` seconds."""
    scope, ptile = tbc.network_tiles(topo, nodes), processor_tiles(topo, nodes)
    keys = list(scope) + [k for k in ptile if k not in scope]
    return ForkSampler(lambda: tbc.reading(topo, keys), interval, TC, scope, path, ptile_scope=ptile)


def sampler(launcher, nodes: list, interval: float, tag: str, duration: float) -> ForkSampler:
    return topology_sampler(launcher.topo, nodes, interval, launcher.workdir / f"{tag}.jsonl")
