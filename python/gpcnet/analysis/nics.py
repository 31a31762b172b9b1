"""Per NIC: the canaries' results per rail and per NIC of each node, and
which NIC is slow (the `nics` member of a results JSON, written when the
ranks were started through gpcnet-bind; docs/method.md#multi-nic-nodes).

The canaries' per-NIC numbers show how each rail and NIC did, but cannot
single out a slow NIC: a ring test paces every member to its slowest
(docs/method.md#naming-a-slow-node). With --node-probe the run also
probes every NIC in isolated pairs, one rail after the other, and a NIC
is flagged from that probe exactly as a node is (gpcnet.analysis.nodes): its
modified z-score over the NICs above THRESHOLD and its time at least
MIN_RATIO times the median NIC's, with at least MIN_NODES NICs.
"""

from __future__ import annotations

import numpy as np

from gpcnet.analysis.nodes import MIN_NODES, MIN_RATIO, THRESHOLD, robust_z


def has_nics(doc: dict) -> bool:
    return bool((doc.get("nics") or {}).get("nodes"))


def has_probe(doc: dict) -> bool:
    return bool(((doc.get("nics") or {}).get("probe") or {}).get("nics"))


def nic_label(entry: dict) -> str:
    return f"{entry.get('node') or '?'}/{entry.get('nic') or '?'}"


def _row_names(doc: dict) -> dict:
    """(table, repetition, test) -> the printed name of that table row."""
    names = {}
    for table in doc.get("tables") or []:
        for row in table.get("rows") or []:
            names[(table.get("id"), table.get("repetition", 1), row.get("test"))] = row.get("name")
    return names


def canaries(doc: dict) -> list:
    """One dict per canary test as recorded (table, repetition, test, unit,
    better, rails, nics), with name: its table row's printed name."""
    names = _row_names(doc)
    out = []
    for entry in (doc.get("nics") or {}).get("canaries") or []:
        key = (entry.get("table"), entry.get("repetition", 1), entry.get("test"))
        out.append(dict(entry, name=names.get(key) or entry.get("test"),
                        nics=[dict(n, label=nic_label(n)) for n in entry.get("nics") or []]))
    return out


def assess(doc: dict, threshold: float = THRESHOLD) -> list:
    """Every NIC of the probe, by node then rail: node, nic, rail, label,
    usec (None when it met no partner), z (None likewise) and slow."""
    nics = ((doc.get("nics") or {}).get("probe") or {}).get("nics") or []
    timed = [n for n in nics if n.get("usec") is not None]
    z_of, median = {}, None
    if timed:
        values = [n["usec"] for n in timed]
        median = float(np.median(values))
        z_of = {id(n): float(z) for n, z in zip(timed, robust_z(values))}
    out = []
    for n in nics:
        z = z_of.get(id(n))
        slow = (z is not None and len(timed) >= MIN_NODES and z > threshold
                and n["usec"] >= MIN_RATIO * median)
        out.append(dict(node=n.get("node"), nic=n.get("nic"), rail=n.get("rail"), label=nic_label(n),
                        usec=n.get("usec"), z=z, slow=slow))
    return out


def slow_nics(doc: dict, threshold: float = THRESHOLD) -> list:
    """The flagged NICs, slowest first."""
    return sorted((a for a in assess(doc, threshold) if a["slow"]), key=lambda a: -a["z"])
