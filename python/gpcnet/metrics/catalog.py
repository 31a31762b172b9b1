"""Names, ids, units and directions of every GPCNeT test and congestor.

The text output identifies tests only by their printed names, so the parser
and the figures need one place that maps names to the ids used in the JSON.
The kernels themselves come from the C tables: the build writes them to
data/catalog.json (`kernel_table_dump --json`), which is checked in so that
the tool works where no program is built, and a test fails when it differs
from what the built tables print (docs/design.md, "The Python catalogue").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources

USEC = "usec"
MIBS = "MiB/s/rank"


def without_size(name: str) -> str:
    """`RR Get Lat (8 B)` -> `RR Get Lat`: a final `(DIGITS B)` and the
    spaces before it dropped. Only for a name the catalogue does not know
    (a later kernel's, read from its output), whose id becomes a slug of it;
    a known kernel's short name is its label from the C tables. String methods, not a regular expression: a
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
    name: str  # as printed in the tables, at the published sizes
    unit: str
    label: str  # the name before its size, as the C tables give it

    @property
    def better(self) -> str:
        # Latency-like units improve downwards, bandwidth upwards.
        return better_for_unit(self.unit)

    @property
    def short(self) -> str:
        # The name without the message size: the kernel's label, which the
        # programs print where the size is left out (the repeatability
        # table), so the two cannot disagree.
        return self.label


def _tables() -> dict:
    text = resources.files("gpcnet").joinpath("data/catalog.json").read_text("utf-8")
    return json.loads(text)


_TABLES = _tables()
# In the C tables' order: network_test's published canaries, then its
# extras (the collectives at the message sizes of AI training).
CANARIES = [Kernel(k["id"], k["name"], k["unit"], k["label"]) for k in _TABLES["canaries"]]
CONGESTORS = [Kernel(k["id"], k["name"], k["unit"], k["label"]) for k in _TABLES["congestors"]]

# The three canaries of network_load_test, whose CI the paper publishes
# (Table 2 columns lat, bw, allreduce).
LOAD_CANARIES = [k["id"] for k in _TABLES["canaries"] if k["load_canary"]]
PAPER_METRICS = {"lat": "rr_two_sided_lat", "bw": "rr_two_sided_bw_sync",
                 "allreduce": "multiple_allreduce"}

BY_ID = {k.id: k for k in CANARIES + CONGESTORS}
_BY_NAME = {k.name: k for k in CANARIES + CONGESTORS}
# dl_allreduce is printed as the reference prints it; outputs before 0.2.0
# called it "DL Allreduce".
_BY_NAME["DL Allreduce (6553600 B)"] = BY_ID["dl_allreduce"]
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
