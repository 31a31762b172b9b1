"""Read-only accessors for a loaded results document.

The commands ask the same questions of a document (a row of a table, the
CI of a canary, the PPort); answering them in one place keeps the commands
free of dictionary plumbing and of the run/text differences.

With --repeat a document holds every repetition's tables and impact
entries, each tagged "repetition" (1-based). Every accessor here answers
for ONE repetition, repetition 1 unless asked otherwise, so a view of a
single run never mixes repetitions; the across-repetition statistics are
the document's "repeats" section.
"""

from __future__ import annotations

from typing import Optional

from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics import catalog


FIRST = 1  # the repetition that single-run views (tables, figures, compare) show


def repetition_of(item: dict) -> int:
    """Repetition number of a table or impact entry; documents written
    without --repeat (or before it existed) have only repetition 1."""
    return item.get("repetition", FIRST)


def repetitions(doc: dict) -> list[int]:
    """Repetition numbers present in the document, in order ([1] without --repeat)."""
    found = {repetition_of(t) for t in doc["tables"]} | {repetition_of(e) for e in doc.get("impact") or []}
    return sorted(found) or [FIRST]


def check_repetition(doc: dict, repetition: int, where: str) -> None:
    """Refuse a repetition the document does not have, naming those it has."""
    have = repetitions(doc)
    if repetition not in have:
        # Sorted and distinct, so 1..N exactly when it has N numbers ending
        # in N (never range(1, N): N comes from the file, 10**15 say).
        if have[0] == 1 and have[-1] == len(have):
            listed = f"1 to {have[-1]}"
        else:
            listed = ", ".join(map(str, have[:10])) + (f" and {len(have) - 10} more" if len(have) > 10 else "")
        raise GpcnetError(f"{where}: no repetition {repetition}; it has {listed}")


# The readers look tables up in loops (per test, per kernel); a scan of
# doc["tables"] per lookup would make a document of 100,000 tables cost
# billions of steps. So the first table of each (id, repetition) is found
# through an index made once per tables list. A list changed in place to
# the same length would keep a stale index: the documents are read, not
# edited, once loaded.
_TABLE_INDEX: dict = {}  # id(tables) -> (tables, len(tables), {(id, repetition): table})
_MAX_INDEXED = 8


def _table_index(tables: list) -> dict:
    cached = _TABLE_INDEX.get(id(tables))
    if cached is not None and cached[0] is tables and cached[1] == len(tables):
        return cached[2]
    index: dict = {}
    for t in tables:
        index.setdefault((t["id"], repetition_of(t)), t)
    if len(_TABLE_INDEX) >= _MAX_INDEXED:
        _TABLE_INDEX.clear()
    _TABLE_INDEX[id(tables)] = (tables, len(tables), index)  # holding the list keeps its id unique
    return index


def table(doc: dict, table_id: str, repetition: int = FIRST) -> Optional[dict]:
    return _table_index(doc["tables"]).get((table_id, repetition))


def row(doc: dict, table_id: str, test: str, repetition: int = FIRST) -> Optional[dict]:
    t = table(doc, table_id, repetition)
    if t is None:
        return None
    for r in t["rows"]:
        if r["test"] == test:
            return r
    return None


def impacts(doc: dict, repetition: int = FIRST) -> list[dict]:
    """The Congestion Impact entries of one repetition, in canary order."""
    return [e for e in doc.get("impact") or [] if repetition_of(e) == repetition]


def impact(doc: dict, test: str, repetition: int = FIRST) -> Optional[dict]:
    for entry in impacts(doc, repetition):
        if entry["test"] == test:
            return entry
    return None


def ci(entry: Optional[dict], stat: str) -> Optional[float]:
    """Congestion Impact for `stat` ("avg" or "p99").

    The unrounded ratio when the document has it; parsed text only carries
    the ratio of the printed values.
    """
    if entry is None:
        return None
    value = entry.get(stat)
    return value if value is not None else entry.get(f"{stat}_printed")


def canary_tests(doc: dict, repetition: int = FIRST) -> list[str]:
    """Test ids measured by the run, in run order.

    The isolated table lists them all (for the load test, the canaries);
    a loaded row without an isolated one is kept too, so a partial
    document still shows everything it has.
    """
    tests = {}  # ordered, and a lookup per row (rows are up to 100,000)
    for table_id in ("isolated", "loaded"):
        t = table(doc, table_id, repetition)
        for r in (t["rows"] if t else []):
            tests.setdefault(r["test"], None)
    return list(tests)


def is_load_test(doc: dict) -> bool:
    return doc["program"] == "network_load_test"


def pport(doc: dict) -> tuple[Optional[float], str]:
    """PPort of the run and how it was obtained.

    Text output from the reference does not say how many NICs a node has,
    so PPN (one NIC per node) is the best stand-in; the note says so.
    """
    env = doc["environment"]
    if env.get("pport") is not None:
        return float(env["pport"]), ""
    ppn = env.get("ppn_max")
    if ppn is None and env.get("ranks") and env.get("nodes"):
        ppn = env["ranks"] / env["nodes"]
    if ppn is None:
        return None, "PPort unknown"
    return float(ppn), "PPort not recorded; assumed 1 NIC per node (PPort = PPN)"


def has_histograms(doc: dict) -> bool:
    return any(r.get("histogram") for t in doc["tables"] for r in t["rows"])


def sweep_kernels(doc: dict, repetition: int = FIRST) -> list[str]:
    """Congestor kernels the sweep ran alone (tables loaded_by:<kernel>), in run order."""
    return [t["id"].split(":", 1)[1] for t in doc["tables"]
            if t["id"].startswith("loaded_by:") and repetition_of(t) == repetition]


def repetition_note(label: str, doc: dict, repetition: int = FIRST) -> Optional[str]:
    """Say which repetition a single-run view shows, when there is a choice."""
    have = repetitions(doc)
    if len(have) < 2:
        return None
    return (f"note: {label} has {len(have)} repetitions; showing repetition {repetition} "
            "(--repetition N picks another; the repeats section has their statistics)")


def congestor_set_label(kernels: list, sets: list) -> str:
    """Label of an impact_matrix row: the kernel's short name, or "All
    together" for the set holding every kernel of the sweep."""
    if not kernels:
        return "(none)"
    everything = {k for s in sets for k in s}
    if len(kernels) > 1 and set(kernels) == everything:
        return "All together"
    return " + ".join(catalog.short_name(k) for k in kernels)


def matrix_repetitions(doc: dict) -> int:
    """How many repetitions the impact matrix averages (1 without --repeat)."""
    return (doc.get("impact_matrix") or {}).get("repetitions") or 1
