"""Read-only accessors for a loaded results document.

The commands ask the same questions of a document (a row of a table, the
CI of a canary, the PPort); answering them in one place keeps the commands
free of dictionary plumbing and of the run/text differences.
"""

from __future__ import annotations

from typing import Optional


def table(doc: dict, table_id: str) -> Optional[dict]:
    for t in doc["tables"]:
        if t["id"] == table_id:
            return t
    return None


def row(doc: dict, table_id: str, test: str) -> Optional[dict]:
    t = table(doc, table_id)
    if t is None:
        return None
    for r in t["rows"]:
        if r["test"] == test:
            return r
    return None


def impact(doc: dict, test: str) -> Optional[dict]:
    for entry in doc.get("impact") or []:
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


def canary_tests(doc: dict) -> list[str]:
    """Test ids measured by the run, in run order.

    The isolated table lists them all (for the load test, the canaries);
    a loaded row without an isolated one is kept too, so a partial
    document still shows everything it has.
    """
    tests = []
    for table_id in ("isolated", "loaded"):
        t = table(doc, table_id)
        for r in (t["rows"] if t else []):
            if r["test"] not in tests:
                tests.append(r["test"])
    return tests


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
