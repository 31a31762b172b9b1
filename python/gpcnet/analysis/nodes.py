"""Which node is slow: the per-node probe of a results JSON (`node_probe`,
written with `--node-probe ROUNDS`; docs/method.md#naming-a-slow-node).

Every node's value is the median, over the rounds it took part in, of its
time per exchange with that round's partner (a round's time: the median of
its exchanges). A node is flagged as slow
when its value stands apart on the slow side by the modified z-score of
Iglewicz and Hoaglin,

    z = 0.6745 (x - median) / MAD

over the nodes (median and MAD, the median absolute deviation, are not
moved by the outlier itself as a mean and a standard deviation would be),
above THRESHOLD (3.5, their recommended cut-off), AND it is at least
MIN_RATIO (1.5) times the median node's value. The second condition is a floor
for nodes that agree to within timer noise: their MAD is tiny, and a node
a few percent slower would otherwise get a large z. When MAD is 0 (more
than half the nodes have the same value) the mean absolute deviation
times 1.253314 stands in for it; when that is 0 too, no node differs.
Fewer than MIN_NODES nodes flag nothing: with three, the median node's
rounds are half with the slow one.
"""

from __future__ import annotations

import numpy as np

THRESHOLD = 3.5
MIN_RATIO = 1.5
MIN_NODES = 4


def robust_z(values) -> np.ndarray:
    """The modified z-score of every value (0 everywhere when all agree)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return x
    med = np.median(x)
    dev = np.abs(x - med)
    mad = np.median(dev)
    if mad > 0:
        return 0.6745 * (x - med) / mad
    mean_ad = np.mean(dev)
    if mean_ad > 0:
        return (x - med) / (1.253314 * mean_ad)
    return np.zeros_like(x)


def has_probe(doc: dict) -> bool:
    return bool((doc.get("node_probe") or {}).get("nodes"))


def node_label(node: dict) -> str:
    return node.get("name") or f"node {node['node']}"


def assess(doc: dict, threshold: float = THRESHOLD) -> list:
    """Every node of the probe, in node order, as dicts: node, name, usec
    (None when it took part in no round), z (None likewise) and slow."""
    nodes = (doc.get("node_probe") or {}).get("nodes") or []
    timed = [n for n in nodes if n.get("usec") is not None]
    z_of, median = {}, None
    if timed:
        values = [n["usec"] for n in timed]
        median = float(np.median(values))
        z_of = {n["node"]: float(z) for n, z in zip(timed, robust_z(values))}
    out = []
    for n in nodes:
        z = z_of.get(n["node"])
        slow = (z is not None and len(timed) >= MIN_NODES and z > threshold
                and n["usec"] >= MIN_RATIO * median)
        out.append(dict(node=n["node"], name=node_label(n), usec=n.get("usec"), z=z, slow=slow))
    return out


def slow_nodes(doc: dict, threshold: float = THRESHOLD) -> list:
    """The flagged nodes, slowest first."""
    return sorted((a for a in assess(doc, threshold) if a["slow"]), key=lambda a: -a["z"])
