"""The local launcher's one host (every study node is a group of ranks
here): its InfiniBand adapters, or the switch ports cabled to them, read
on this host by a forked sampler (gpcnet.infra.fork_sampler). It records
InfiniBand's names (gpcnet.study.sources.infiniband)."""

from __future__ import annotations

import os

from gpcnet.infra.fork_sampler import ForkSampler
from gpcnet.study import counters

NAMES: dict = {}    # infiniband's SWITCH and HCA, or none


def wanted(launcher, env) -> bool:
    return launcher.name == "local"


def reader():
    """(read, the source its first reading names): this host's adapters (or
    their switch ports)."""
    root = os.environ.get("GPCNET_SYS_ROOT", "/sys")
    switch_ports = counters.find_switch_ports(counters.sample(root))
    first = counters.reading(root, switch_ports)
    return (lambda: counters.reading(root, switch_ports)), first["source"]


def sampler(launcher, nodes: list, interval: float, tag: str, duration: float):
    # One host: every study node shares its adapters; read here.
    read, source = reader()
    return ForkSampler(read, interval, source, None, launcher.workdir / f"{tag}.jsonl")
