"""Names, ids, units and directions of every GPCNeT test and congestor.

The text output identifies tests only by their printed names, so the parser
and the figures need one place that maps names to the ids used in the JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USEC = "usec"
MIBS = "MiB/s/rank"


def without_size(name: str) -> str:
    """`RR Get Lat (8 B)` -> `RR Get Lat`: a final `(DIGITS B)` and the
    spaces before it dropped. String methods, not a regular expression: a
    name comes from a file, and `\\s*\\(\\d+ B\\)$` searched in `a` + 80,000
    spaces + `b` takes seconds (every start in the spaces rescans them)."""
    if not name.endswith(" B)"):
        return name
    open_ = name.rfind("(", 0, len(name) - 3)
    digits = name[open_ + 1:len(name) - 3]
    if open_ < 0 or not (digits.isascii() and digits.isdigit()):
        return name
    return name[:open_].rstrip()


# Runs of anything but a lower-case letter or a digit: each character is
# looked at once (the class cannot start a match inside a run it ended).
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Kernel:
    id: str
    name: str  # as printed in the tables
    unit: str

    @property
    def better(self) -> str:
        # Latency-like units improve downwards, bandwidth upwards.
        return better_for_unit(self.unit)

    @property
    def short(self) -> str:
        # The name without the message size, as in the verbose table titles.
        return without_size(self.name)


CANARIES = [
    Kernel("rr_two_sided_lat", "RR Two-sided Lat (8 B)", USEC),
    Kernel("rr_get_lat", "RR Get Lat (8 B)", USEC),
    Kernel("rr_two_sided_bw", "RR Two-sided BW (131072 B)", MIBS),
    Kernel("rr_put_bw", "RR Put BW (131072 B)", MIBS),
    Kernel("rr_two_sided_bw_sync", "RR Two-sided BW+Sync (131072 B)", MIBS),
    Kernel("nat_two_sided_bw", "Nat Two-sided BW (131072 B)", MIBS),
    Kernel("multiple_allreduce", "Multiple Allreduce (8 B)", USEC),
    Kernel("multiple_alltoall", "Multiple Alltoall (4096 B)", MIBS),
    # Extras (network_test runs them only when --tests names them): the
    # collectives at the message sizes of AI training.
    Kernel("allreduce_1mib", "Multiple Allreduce (1048576 B)", USEC),
    Kernel("allreduce_16mib", "Multiple Allreduce (16777216 B)", USEC),
    Kernel("alltoall_1mib", "Multiple Alltoall (1 MiB/rank)", MIBS),
    Kernel("alltoall_16mib", "Multiple Alltoall (16 MiB/rank)", MIBS),
    Kernel("multiple_allgather", "Multiple Allgather (1 MiB/rank)", MIBS),
    Kernel("multiple_bcast", "Multiple Bcast (1048576 B)", USEC),
]

CONGESTORS = [
    Kernel("a2a", "Alltoall (4096 B)", MIBS),
    Kernel("p2p_incast", "Two-sided Incast (4096 B)", MIBS),
    Kernel("rma_incast", "Put Incast (4096 B)", MIBS),
    Kernel("rma_bcast", "Get Bcast (4096 B)", MIBS),
    # Printed as the reference prints it (before 0.2.0: "DL Allreduce ...").
    Kernel("dl_allreduce", "Allreduce (6553600 B)", MIBS),
    Kernel("p2p_bcast", "Two-sided Bcast (4096 B)", MIBS),
    Kernel("allgather", "Allgather (4096 B)", MIBS),
    Kernel("bcast", "Bcast (4096 B)", MIBS),
]

# The three canaries of network_load_test, whose CI the paper publishes
# (Table 2 columns lat, bw, allreduce).
LOAD_CANARIES = ["rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"]
PAPER_METRICS = {"lat": "rr_two_sided_lat", "bw": "rr_two_sided_bw_sync",
                 "allreduce": "multiple_allreduce"}

BY_ID = {k.id: k for k in CANARIES + CONGESTORS}
_BY_NAME = {k.name: k for k in CANARIES + CONGESTORS}
_BY_NAME["DL Allreduce (6553600 B)"] = BY_ID["dl_allreduce"]  # outputs before 0.2.0
# A short name belongs to the first kernel that has it: "Multiple
# Allreduce" is the published 8 B one, not its large-message extras.
_BY_SHORT = {}
for _k in CANARIES + CONGESTORS:
    _BY_SHORT.setdefault(_k.short, _k)
_BY_SHORT["DL Allreduce"] = BY_ID["dl_allreduce"]


def better_for_unit(unit: str) -> str:
    return "lower" if unit == USEC else "higher"


def id_for_name(name: str) -> str:
    """Map a printed test name to its id.

    Names are printed with %31.31s, so a long name may arrive truncated;
    unknown names (future kernels) get a stable slug instead of an error.
    """
    name = name.strip()
    if name in _BY_NAME:
        return _BY_NAME[name].id
    if name in _BY_SHORT:
        return _BY_SHORT[name].id
    for kernel in CANARIES + CONGESTORS:
        if len(name) == 31 and kernel.name.startswith(name):
            return kernel.id
    return _NOT_SLUG.sub("_", without_size(name).lower().replace("+", "_")).strip("_")


def display_name(test_id: str) -> str:
    kernel = BY_ID.get(test_id)
    return kernel.name if kernel else test_id


def short_name(test_id: str) -> str:
    kernel = BY_ID.get(test_id)
    return kernel.short if kernel else test_id
