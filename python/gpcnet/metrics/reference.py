"""Published GPCNeT results (SC'19 paper Table 2, HPE white paper), so a run
can be set beside the systems in the paper."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from gpcnet.metrics.impact import congestion_impact

METRICS = ("lat", "bw", "allreduce")  # RR Two-sided Lat, RR Two-sided BW+Sync, Multiple Allreduce
LOWER_IS_BETTER = {"lat": True, "bw": False, "allreduce": True}


@dataclass(frozen=True)
class Published:
    system: str
    network: str
    topology: str
    taper: float  # global-to-injection bandwidth
    nodes: int
    pport: float
    values: dict  # ("iso"|"load", "avg"|"p99", metric) -> float
    source: str

    @property
    def label(self) -> str:
        return f"{self.system} ({self.nodes} nodes, {self.pport:g} PPort)"

    def ci(self, metric: str, stat: str) -> float:
        """Congestion Impact as the paper defines it (always >= 1 means harm)."""
        return congestion_impact(self.values[("iso", stat, metric)], self.values[("load", stat, metric)],
                                 LOWER_IS_BETTER[metric])


@lru_cache(maxsize=None)
def published() -> tuple:
    text = resources.files("gpcnet").joinpath("data/published_results.csv").read_text("utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    out = []
    for r in rows:
        values = {(phase, stat, m): float(r[f"{phase}_{stat}_{m}"])
                  for phase in ("iso", "load") for stat in ("avg", "p99") for m in METRICS}
        out.append(Published(r["system"], r["network"], r["topology"], float(r["global_to_injection"]),
                             int(r["nodes"]), float(r["pport"]), values, r["source"]))
    return tuple(out)


def closest_per_system(pport: float) -> list:
    """For each published system, its run whose PPort is nearest `pport`.

    Ties go to the larger node count: the paper's point is behaviour at
    scale, so the biggest comparable run is the fairest neighbour.
    """
    best: dict[str, Published] = {}
    for run in published():
        key = (abs(run.pport - pport), -run.nodes)
        if run.system not in best or key < (abs(best[run.system].pport - pport), -best[run.system].nodes):
            best[run.system] = run
    return list(best.values())
