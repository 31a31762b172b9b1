"""The co-run study's counter sources: where the stall metric's counters
of a run come from. Each source is one module of this package with

- NAMES: {name: (stall counter, flit counter)}, the names the source
  records as a run's counters.source (the study schema's enum is made
  from them: gpcnet.study.document), and the counters each name means;
- wanted(launcher, env) -> bool: whether it samples the runs of this
  launcher (gpcnet.study.launch) under this environment;
- sampler(launcher, nodes, interval, tag, duration): an object started
  just before the application and stopped after it (start(), stop() ->
  ({host: [readings]}, [errors])) with the attributes gpcnet.study.sampling
  turns into the run's record: source (set by stop), scope (the network
  tiles, or None: the nodes' own ports), ptile_scope, notes, fabric.

SOURCES is the registry: one line per source, in the order they are asked;
the first that wants a run samples it (the last wants every run).
"""

from __future__ import annotations

import importlib
from types import ModuleType

SOURCES = (
    "testbed",      # the testbed's switch queues, read on this host
    "local_host",   # the local launcher's one host: its InfiniBand adapters
    "slingshot",    # HPE Slingshot: the fabric manager's switch ports, the nodes' Cassini NICs
    "infiniband",   # InfiniBand: switch ports by the fabric's discovery, else the nodes' own ports
)

NONE = "none"   # recorded when no counter of any source was read


def modules() -> list:
    return [importlib.import_module(f"{__name__}.{name}") for name in SOURCES]


def names() -> dict:
    """Every name a run's counters.source may hold -> (stall counter, flit
    counter); NONE -> (None, None)."""
    out = {}
    for mod in modules():
        for name, counters in mod.NAMES.items():
            if out.get(name, counters) != counters:
                raise ValueError(f"counter source {name!r} named twice with different counters")
            out[name] = tuple(counters)
    out[NONE] = (None, None)
    return out


def counter_names(source: str) -> tuple:
    """(stall counter, flit counter) of a recorded source name."""
    return names()[source]


def choose(launcher, env) -> ModuleType:
    """The source that samples this launcher's runs."""
    for mod in modules():
        if mod.wanted(launcher, env):
            return mod
    raise LookupError("no counter source wants these runs (the registry's last one should want every run)")
