"""HPE Slingshot: the fabric ports of the application's switches (network
tiles) from the fabric manager's switch counter record, and each node's
Cassini NICs (processor tiles) read on the node (gpcnet.study.cassini).
The fabric and the record are gpcnet.study.slingshot's; this source
applies when GPCNET_SLINGSHOT_FABRIC names the fabric."""

from __future__ import annotations

import os
import time

from gpcnet.infra.errors import GpcnetError
from gpcnet.study.node_jobs import JobSampler
from gpcnet.study.slingshot import (FABRIC_ENV, SWITCH_ENV, during, ptile_scope, read_fabric,
                                    read_switch_record, tiles)

SLINGSHOT = "slingshot"
NIC = "slingshot-nic"     # a node's reading of its NICs (never a run's source: the run is SLINGSHOT)
NAMES = {SLINGSHOT: ("switch dot3HCOutPauseFrames; NIC hni_rx_paused_T",
                     "switch ifHCInOctets; NIC hni_pkts_recv_by_tc_T")}

NO_SWITCH_RECORD = (f"no switch counter record ({SWITCH_ENV}): the ports between Slingshot switches are read by "
                    "the fabric manager only; the NICs (processor tiles) were read, the network tiles were not")


def wanted(launcher, env) -> bool:
    return bool(env.get(FABRIC_ENV))


class SlingshotSampler(JobSampler):
    """A sampler per application node reading its Cassini NICs (through
    the launcher, as JobSampler does), and the switch counter record, read
    when the run ends: the fabric ports of the application's switches are
    the network tiles."""

    def __init__(self, launcher, nodes: list, interval: float, workdir, tag: str, duration: float):
        super().__init__(launcher, nodes, interval, workdir, tag, duration, ["--cxi"])
        path = os.environ[FABRIC_ENV]
        t = tiles(read_fabric(path), nodes)
        self.tiles, self.record_path = t, os.environ.get(SWITCH_ENV)
        self.scope, self.ptile_scope, self.notes = t["ntile"], None, []
        hosting = {sw for sws in t["routers"].values() for sw in sws}
        self.fabric = {"from": f"file {path}", "switches": len(hosting), "missing": t["missing"]}
        if t["missing"]:
            self.notes.append(f"fabric ({path}) serves none of {', '.join(t['missing'][:5])} from an edge port")
        if self.record_path:
            read_switch_record(self.record_path)   # a bad record is said before the run, not after it
        self.source, self.window = SLINGSHOT, [None, None]

    def recorded_source(self, seen: set) -> str:
        return SLINGSHOT

    def start(self) -> None:
        self.window[0] = time.time()
        super().start()

    def stop(self) -> tuple:
        self.window[1] = time.time()
        by_host, errors = super().stop()         # notes included; the source SLINGSHOT
        self.ptile_scope = ptile_scope(by_host, self.tiles)
        if not self.record_path:
            return by_host, errors + [NO_SWITCH_RECORD]
        try:
            switch = during(read_switch_record(self.record_path), *self.window)
        except GpcnetError as e:    # the record went bad during the run: a gap, said in the run's record
            return by_host, errors + [str(e)]
        by_host["fabric manager"] = [{"time": r["time"], "ports": {p: c for p, c in r["ports"].items()
                                                                   if p in self.scope}} for r in switch]
        if len(switch) < 2:
            errors.append(f"{len(switch)} switch counter reading(s) in {self.record_path} cover the run")
        return by_host, errors


def sampler(launcher, nodes: list, interval: float, tag: str, duration: float) -> SlingshotSampler:
    return SlingshotSampler(launcher, nodes, interval, launcher.workdir, tag, duration)
