"""Which NIC is slow: the canaries' per-NIC results of a results JSON
(`nics`, written when the ranks were started through gpcnet-bind;
docs/method.md#multi-nic-nodes).

For every canary test (each table and repetition) every NIC of every node
has its ranks' merged Avg. A NIC is flagged as slow exactly as a node is
by the per-node probe (gpcnet.nodes): its modified z-score over the NICs
of that test above THRESHOLD and its value at least MIN_RATIO times the
median NIC's, with at least MIN_NODES NICs. Values are compared as times:
a bandwidth's reciprocal, so a NIC with half the bandwidth counts as twice
as slow.

Unlike the probe's isolated pairs, a canary's ranks talk to random
partners, so a slow NIC also slows the NICs it meets; its own value, in
every measurement, stands furthest apart.
"""

from __future__ import annotations

import numpy as np

from gpcnet.nodes import MIN_NODES, MIN_RATIO, THRESHOLD, robust_z


def has_nics(doc: dict) -> bool:
    return bool((doc.get("nics") or {}).get("canaries"))


def nic_label(entry: dict) -> str:
    return f"{entry.get('node') or '?'}/{entry.get('nic') or '?'}"


def _as_time(value, better: str):
    if value is None or value <= 0:
        return None
    return 1.0 / value if better == "higher" else float(value)


def assess(doc: dict, threshold: float = THRESHOLD) -> list:
    """One dict per canary test: table, repetition, test, name, unit,
    better, rails (as recorded) and nics: every NIC with node, nic, rail,
    avg, p99, ranks, z (None when it measured nothing) and slow."""
    out = []
    for entry in (doc.get("nics") or {}).get("canaries") or []:
        better = entry.get("better", "lower")
        nics = entry.get("nics") or []
        timed = [(n, _as_time(n.get("avg"), better)) for n in nics]
        timed = [(n, t) for n, t in timed if t is not None]
        z_of, median = {}, None
        if timed:
            values = [t for _, t in timed]
            median = float(np.median(values))
            z_of = {id(n): float(z) for (n, _), z in zip(timed, robust_z(values))}
        t_of = {id(n): t for n, t in timed}
        rows = []
        for n in nics:
            z = z_of.get(id(n))
            slow = (z is not None and len(timed) >= MIN_NODES and z > threshold
                    and t_of[id(n)] >= MIN_RATIO * median)
            rows.append(dict(node=n.get("node"), nic=n.get("nic"), rail=n.get("rail"),
                             label=nic_label(n), avg=n.get("avg"), p99=n.get("p99"),
                             ranks=n.get("ranks"), z=z, slow=slow))
        out.append(dict(table=entry.get("table"), repetition=entry.get("repetition", 1),
                        test=entry.get("test"), name=entry.get("name"), unit=entry.get("unit"),
                        better=better, rails=entry.get("rails") or [], nics=rows))
    return out


def slow_nics(doc: dict, threshold: float = THRESHOLD) -> list:
    """The NICs flagged in any canary test, each once with its largest z
    and the tests that flagged it, largest z first."""
    named: dict = {}
    for test in assess(doc, threshold):
        for n in test["nics"]:
            if not n["slow"]:
                continue
            seen = named.setdefault(n["label"], dict(label=n["label"], node=n["node"], nic=n["nic"],
                                                     rail=n["rail"], z=n["z"], tests=[]))
            seen["z"] = max(seen["z"], n["z"])
            seen["tests"].append(f"{test['table']}:{test['test']}")
    return sorted(named.values(), key=lambda s: -s["z"])
