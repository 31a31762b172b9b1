"""Topology-aware bullies (the fat-tree study of docs/studies.md) and the
placement of the application beside them.

A leaf's uplink capacity C is counted in host links: by default one per
parent switch (what topology.conf says), or hosts-per-leaf / taper when the
taper is given (a 2:1 tapered leaf of 8 hosts carries 4 host links up).

- pairs-light: between adjacent leaves (0-1, 2-3, ...), round(0.62 C) node
  pairs exchanging traffic both ways: about 62% of the uplinks.
- pairs-full: ceil(1.5 C) pairs (always more than C): the uplinks are
  oversubscribed.
- bisection: the pairs-light count, but leaf i of the first half of the
  leaves (ordered by pod) with leaf i of the second half: across pods, or
  across the spines of a two-level tree.
- incast: 3 nodes in each of (up to) 7 leaves send to one node of the last
  leaf.

Bully nodes are taken from the end of each leaf; the application's N nodes
are spread round-robin over the leaves from what is left (the study spread
its applications so that every one shares leaves with the bully).
"""

from __future__ import annotations

import math

from gpcnet.errors import GpcnetError
from gpcnet.study.topology import Tree

PATTERNS = ("pairs-light", "pairs-full", "bisection", "incast")
LIGHT_SHARE = 0.62
FULL_SHARE = 1.5
INCAST_SOURCES_PER_LEAF = 3
INCAST_SOURCE_LEAVES = 7


def uplink_capacity(tree: Tree, leaf: str, taper: float | None) -> float:
    if taper:
        return len(tree.switches[leaf].nodes) / taper
    return float(tree.uplinks(leaf))


def _pairs_per_leaf(tree: Tree, pattern: str, taper) -> int:
    caps = [uplink_capacity(tree, leaf.name, taper) for leaf in tree.leaves]
    cap = min(caps)
    if cap <= 0:
        raise GpcnetError(f"{pattern}: the leaves have no uplinks in the topology "
                          "(no parent switch); give --taper to state their capacity")
    if pattern == "pairs-full":
        return max(math.floor(cap) + 1, math.ceil(FULL_SHARE * cap))
    return max(1, round(LIGHT_SHARE * cap))


def leaf_pairs(tree: Tree, pattern: str) -> list:
    leaves = [leaf.name for leaf in tree.leaves]
    if len(leaves) < 2:
        raise GpcnetError(f"{pattern}: needs at least 2 leaf switches; the topology has {len(leaves)}")
    if pattern == "bisection":
        pod = tree.pod_of()
        ordered = sorted(leaves, key=lambda l: (list(tree.switches).index(pod[l]), leaves.index(l)))
        half = len(ordered) // 2
        return list(zip(ordered[:half], ordered[half:2 * half]))
    return [(leaves[i], leaves[i + 1]) for i in range(0, len(leaves) - 1, 2)]


def demand(tree: Tree, pattern: str, taper=None) -> dict:
    """How many bully nodes each leaf gives: {leaf: count}."""
    if pattern not in PATTERNS:
        raise GpcnetError(f"unknown bully pattern {pattern!r} (choose from {', '.join(PATTERNS)})")
    need: dict = {}
    if pattern == "incast":
        leaves = [leaf.name for leaf in tree.leaves]
        if len(leaves) < 2:
            raise GpcnetError(f"incast: needs at least 2 leaf switches; the topology has {len(leaves)}")
        target = leaves[-1]
        for src in leaves[:-1][-INCAST_SOURCE_LEAVES:]:
            need[src] = INCAST_SOURCES_PER_LEAF
        need[target] = 1
        return need
    k = _pairs_per_leaf(tree, pattern, taper)
    for a, b in leaf_pairs(tree, pattern):
        need[a] = need.get(a, 0) + k
        need[b] = need.get(b, 0) + k
    return need


def plan(tree: Tree, pattern: str | None, n_app: int, repeat: int = 0, taper=None,
         reserve: dict | None = None) -> dict:
    """Application nodes, bully nodes and flows for one run.

    `reserve` ({leaf: count}) keeps the bully's nodes free even when no bully
    runs (the isolated baseline), so that the application sits on the same
    nodes with and without it."""
    leaves = tree.leaves
    need = demand(tree, pattern, taper) if pattern else {}
    keep = dict(reserve or need)
    for leaf, count in keep.items():
        have = len(tree.switches[leaf].nodes)
        if count > have:
            raise GpcnetError(f"{pattern or 'bully'}: leaf {leaf} has {have} nodes, the bully needs {count}")
    bully_nodes = {leaf: tree.switches[leaf].nodes[len(tree.switches[leaf].nodes) - c:]
                   for leaf, c in keep.items()}
    free = {leaf.name: [n for n in leaf.nodes if n not in bully_nodes.get(leaf.name, [])]
            for leaf in leaves}
    total_free = sum(len(v) for v in free.values())
    if n_app < 1 or n_app > total_free:
        raise GpcnetError(f"application of {n_app} nodes: {total_free} nodes are left beside the bully "
                          f"(of {len(tree.nodes)})")
    # Round-robin over the leaves; repeat r starts r leaves and r slots further on.
    app, order = [], [leaf.name for leaf in leaves]
    order = order[repeat % len(order):] + order[:repeat % len(order)]
    slot = 0
    while len(app) < n_app:
        for leaf in order:
            lst = free[leaf]
            if slot < len(lst) and len(app) < n_app:
                app.append(lst[(slot + repeat) % len(lst)])
        slot += 1
    flows = _flows(tree, pattern, {l: bully_nodes.get(l, []) for l in bully_nodes}, taper) if pattern else []
    used = sorted({n for f in flows for n in f}, key=tree.nodes.index)
    return {"app": app, "bully": used, "flows": flows}


def _flows(tree: Tree, pattern: str, nodes: dict, taper) -> list:
    if pattern == "incast":
        leaves = [leaf.name for leaf in tree.leaves]
        target = nodes[leaves[-1]][0]
        return [(src, target) for leaf in leaves[:-1][-INCAST_SOURCE_LEAVES:]
                for src in nodes[leaf][:INCAST_SOURCES_PER_LEAF]]
    k = _pairs_per_leaf(tree, pattern, taper)
    taken = {leaf: 0 for leaf in nodes}
    flows = []
    for a, b in leaf_pairs(tree, pattern):
        sa = nodes[a][taken[a]:taken[a] + k]
        sb = nodes[b][taken[b]:taken[b] + k]
        taken[a] += k
        taken[b] += k
        for x, y in zip(sa, sb):
            flows += [(x, y), (y, x)]
    return flows


def flows_text(flows: list, names: dict | None = None, comment: str = "") -> str:
    """The flows file of network_congestor --flows: one `SRC DST` per line,
    node names as the program sees them (`names` maps study names to those)."""
    names = names or {}
    lines = [f"# {line}" for line in comment.splitlines()] if comment else []
    lines += [f"{names.get(s, s)} {names.get(d, d)}" for s, d in flows]
    return "\n".join(lines) + "\n"
