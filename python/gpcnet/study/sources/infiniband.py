"""InfiniBand: the stall metric's PortXmitWait (stall) and PortXmitData
(flit) of each application node, read on the nodes by
`python3 -m gpcnet.study.counters` (gpcnet.study.counters). Where the
fabric's discovery is at hand (gpcnet.study.fabric), each node reads the
switch ports a tiles file gives it: both tile kinds; else what a node finds
alone, its own node-facing port: processor tiles only."""

from __future__ import annotations

import json

from gpcnet.infra import safe_write
from gpcnet.study import fabric
from gpcnet.study.node_jobs import JobSampler
from gpcnet.study.sources import NONE

FABRIC = "infiniband-fabric"   # switch ports from the fabric's discovery (perfquery)
SWITCH = "infiniband-switch"   # the switch port cabled to a node's adapter (smpquery, perfquery)
HCA = "infiniband-hca"         # the adapter's own port (sysfs)
NAMES = {FABRIC: ("PortXmitWait", "PortXmitData"),
         SWITCH: ("PortXmitWait", "PortXmitData"),
         HCA: ("port_xmit_wait", "port_xmit_data")}


def wanted(launcher, env) -> bool:
    return True     # the last resort: what a node can read of its own network


def recorded(seen: set) -> str:
    """The run's source from its readings' (the widest view any node had)."""
    real = seen - {NONE, None}
    return FABRIC if FABRIC in real else SWITCH if SWITCH in real else HCA if real else NONE


class Sampler(JobSampler):
    """A node sampler per application node; with the fabric's discovery, a
    tiles file tells each node the switch ports it reads."""

    def __init__(self, launcher, nodes: list, interval: float, workdir, tag: str, duration: float):
        notes, fabric_info, scope, ptile_scope, extra = [], None, None, None, []
        switches, origin = fabric.discover()
        if switches:
            t = fabric.tiles(switches, nodes)
            fabric_info = {"from": origin, "switches": len(switches), "missing": t["missing"]}
            if t["missing"]:
                notes.append(f"fabric ({origin}) does not describe {', '.join(t['missing'][:5])}: "
                             "no port read for them")
            if any(t["by_node"]):
                tiles_file = workdir / f"{tag}-tiles.json"
                safe_write.write_text(tiles_file, json.dumps({"nodes": nodes, "by_node": t["by_node"]}) + "\n",
                                      force=True)
                extra = ["--tiles", launcher.child_path(tiles_file)]
                scope, ptile_scope = t["ntile"], t["ptile"]
        super().__init__(launcher, nodes, interval, workdir, tag, duration, extra)
        self.notes, self.fabric, self.scope, self.ptile_scope = notes, fabric_info, scope, ptile_scope

    def recorded_source(self, seen: set) -> str:
        return recorded(seen)


def sampler(launcher, nodes: list, interval: float, tag: str, duration: float) -> Sampler:
    return Sampler(launcher, nodes, interval, launcher.workdir, tag, duration)
