"""Which nodes and links are slow: the all-pairs matrix of a results JSON
(`all_pairs`, written by network_test --all-pairs; docs/method.md#all-pairs).

The matrix holds, for every ordered pair (sender, receiver) of nodes, the
bandwidth the receiver saw while every other pair streamed too. A slow
node (or the link between a node and its switch) makes its whole row
(what it sends) or column (what it receives) slow; a slow link between
switches makes the cells of the pairs routed over it slow.

The rule, applied to bandwidths where low is bad, is the per-node probe's
(gpcnet.analysis.nodes) on the logarithm of the values: a value is an
outlier when the modified z-score of its logarithm, 0.6745 (log x -
median) / MAD, is below -THRESHOLD (3.5) AND it is at most the median
divided by MIN_RATIO (1.5), i.e. at most two thirds of it. Bandwidths
spread by factors rather than by amounts (on a loaded host some pairs ran
50 to 500 times faster than others, tests/integration/test_all_pairs.py), and on
the logarithm a spread of factors has a MAD a slow node cannot hide in.
The second condition keeps a tight, noisy matrix (tiny MAD) from naming
cells a few percent low. It is applied

1. to the nodes' row means (send) and column means (receive), among the
   nodes: a node whose row or column stands out is a slow node;
2. to the cells, among all cells, with CELL_RATIO (2) in place of
   MIN_RATIO: an outlier cell neither of whose nodes is slow names a slow
   pair (both hosts). A matrix has N (N - 1) cells, so a floor of two
   thirds would let noise through: with a spread of 10 % (the noise of
   tests/python/test_all_pairs_view.py) two thirds is 4 standard
   deviations, reached by one of 40,000 cells; one half is 7.

Fewer than MIN_NODES nodes name nothing (with three, half of every
other node's cells meet the slow one). Above the matrix cap
(matrix_max_nodes) the document has no cells: the nodes are judged by
their means, and the listed slowest pairs by the receivers' median mean.
"""

from __future__ import annotations

import numpy as np

from gpcnet.analysis.nodes import MIN_NODES, MIN_RATIO, THRESHOLD, robust_z

CELL_RATIO = 2.0


def has_all_pairs(doc: dict) -> bool:
    return isinstance(doc.get("all_pairs"), dict) and bool(doc["all_pairs"].get("nodes"))


def names(doc: dict) -> list:
    return [name or f"node {i}" for i, name in enumerate(doc["all_pairs"]["nodes"])]


def low_outliers(values, ratio: float = MIN_RATIO) -> np.ndarray:
    """Which of values (NaN: unknown, never an outlier) are low outliers,
    at most median / ratio."""
    x = np.asarray(values, dtype=float)
    known = ~np.isnan(x)
    out = np.zeros(x.shape, dtype=bool)
    if known.sum() < 2:
        return out
    z = robust_z(np.log(np.maximum(x[known], 1e-300)))
    median = float(np.median(x[known]))
    out[known] = (z < -THRESHOLD) & (x[known] <= median / ratio)
    return out


def matrix(doc: dict, key: str = "bandwidth_mib_s"):
    """The N x N matrix as floats (NaN: diagonal or not measured), or None
    when the document holds none (above the matrix cap)."""
    rows = doc["all_pairs"].get(key)
    if not rows:
        return None
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def _means(doc: dict, key: str) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in doc["all_pairs"][key]], dtype=float)


def assess(doc: dict) -> dict:
    """slow_nodes: [{node, name, send, recv}] (send/recv: whether its row /
    column stands out), slow_pairs: [{from, to, from_name, to_name, mib_s}],
    named: the hosts behind them, in node order, and median_mib_s."""
    ap = doc["all_pairs"]
    label = names(doc)
    n = len(label)
    send, recv = _means(doc, "send_mib_s"), _means(doc, "recv_mib_s")
    cells = matrix(doc)
    if cells is not None:
        median = float(np.nanmedian(cells)) if np.any(~np.isnan(cells)) else float("nan")
    else:
        median = float(np.nanmedian(recv)) if np.any(~np.isnan(recv)) else float("nan")
    result = {"slow_nodes": [], "slow_pairs": [], "named": [], "median_mib_s": median}
    if n < MIN_NODES:
        return result
    slow_send, slow_recv = low_outliers(send), low_outliers(recv)
    slow = slow_send | slow_recv
    result["slow_nodes"] = [{"node": i, "name": label[i], "send": bool(slow_send[i]),
                             "recv": bool(slow_recv[i])} for i in range(n) if slow[i]]
    if cells is not None:
        flagged = low_outliers(cells.ravel(), CELL_RATIO).reshape(cells.shape)
        pairs = [(i, j, cells[i, j]) for i, j in zip(*np.nonzero(flagged))]
    else:  # only the slowest pairs were kept: judged against the median receiver
        pairs = [(p["from"], p["to"], p["mib_s"]) for p in ap.get("slowest_pairs", [])
                 if p["mib_s"] is not None and p["mib_s"] <= median / CELL_RATIO]
    pairs = [(int(i), int(j), float(v)) for i, j, v in pairs
             if i < n and j < n and not slow[i] and not slow[j]]
    result["slow_pairs"] = [{"from": i, "to": j, "from_name": label[i], "to_name": label[j], "mib_s": v}
                            for i, j, v in sorted(pairs, key=lambda p: p[2])]
    hosts = {s["node"] for s in result["slow_nodes"]} | {p["from"] for p in result["slow_pairs"]} \
        | {p["to"] for p in result["slow_pairs"]}
    result["named"] = [label[i] for i in sorted(hosts)]
    return result
