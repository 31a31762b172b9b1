"""The uplink capacity of a fat-tree's leaves, and the pairs bullies sized
from it, per pair of leaves (docs/studies.md, "A leaf's uplinks U").

U, a leaf's links up in host links, is never guessed from topology.conf,
which names parent switches, not links: it is --uplinks-per-leaf U, or
ceil(L / T) for a leaf listing L nodes under --taper T, or the running
testbed's own rates. The poster sizes its bullies per pair of switches
("10 communicating pairs ... 62.5% of the bandwidth between the two
switches"), so each leaf pair gets the pairs of its own capacity: the
smaller of its two leaves' (a pair's traffic goes up one leaf and down the
other), never the smallest leaf of the whole tree.

What cannot be is refused before anything is planned: a non-finite taper
or one below 1 (more links up than nodes), both options at once (the
taper would be ignored), U above every leaf's nodes, a taper leaving every
leaf under one link. What may be a mistake is said in the plan
(`warnings`): U equal to a leaf's parent-switch count (the mistake the docs
warn about: Quartz has 8 second-level switches but 16 links up per leaf),
U above one leaf's nodes.
"""

from __future__ import annotations

import math
from collections import Counter

from gpcnet.infra.errors import GpcnetError
from gpcnet.study.topology import Tree

LIGHT_PAIRS, REFERENCE_LINKS = 10, 16          # "10 communicating pairs ... 62.5%"
POSTER = "16 on the poster's Quartz: 8 second-level switches with 2 links to each leaf"


def check_options(uplinks, taper) -> None:
    """--uplinks-per-leaf (a whole number >= 1) and --taper (a finite
    number >= 1), never both."""
    if uplinks is not None and (isinstance(uplinks, bool) or not isinstance(uplinks, int) or uplinks < 1):
        raise GpcnetError(f"--uplinks-per-leaf {uplinks}: expected a whole number of links, 1 or more "
                          "(16 on the poster's Quartz)")
    if taper is not None and not math.isfinite(taper):
        raise GpcnetError(f"--taper {taper:g}: expected a finite number, 1 or more (2 for a 2:1 taper)")
    if taper is not None and taper < 1:
        raise GpcnetError(f"--taper {taper:g}: a taper below 1 gives every leaf more links up than nodes; "
                          "T is a leaf's hosts over its links up (1 for a full fat-tree, 2 for 2:1)")
    if uplinks is not None and taper is not None:
        raise GpcnetError(f"--uplinks-per-leaf {uplinks} and --taper {taper:g}: give one of them "
                          "(--uplinks-per-leaf states every leaf's links up; --taper derives them from "
                          "each leaf's nodes)")


def _names(leaves: list) -> str:
    shown = ", ".join(leaves[:3])
    return shown + (f" and {len(leaves) - 3} more" if len(leaves) > 3 else "")


def check_on_tree(tree: Tree, uplinks, taper) -> list:
    """The options as given, against the tree: refuses what cannot be,
    returns the warnings (one line each) for what may be a mistake."""
    sizes = {leaf.name: len(leaf.nodes) for leaf in tree.leaves}
    largest = max(sizes, key=sizes.__getitem__)
    if taper is not None and taper > sizes[largest]:
        raise GpcnetError(f"--taper {taper:g}: every leaf would have less than one link up (the largest, "
                          f"{largest}, lists {sizes[largest]} nodes: {sizes[largest]} / {taper:g}); T is a "
                          "leaf's hosts over its links up (2 for a 2:1 taper)")
    if uplinks is None:
        return []
    if uplinks > sizes[largest]:
        raise GpcnetError(f"--uplinks-per-leaf {uplinks}: more links up than any leaf has nodes (the largest, "
                          f"{largest}, lists {sizes[largest]}); U is a leaf's links up in host links ({POSTER})")
    warnings = []
    parents = [name for name in sizes if tree.uplinks(name) == uplinks]
    if parents:
        warnings.append(f"--uplinks-per-leaf {uplinks} is the number of parent switches of leaf "
                        f"{_names(parents)} in the topology: U counts links up in host links, not switches "
                        f"({POSTER}); check it")
    small = [name for name in sizes if sizes[name] < uplinks]
    if small:
        warnings.append(f"--uplinks-per-leaf {uplinks} is more than the nodes of leaf {_names(small)} "
                        f"({min(sizes[n] for n in small)} or fewer): more links up than nodes; check it")
    return warnings


def leaf_capacity(tree: Tree, leaf: str, taper: float | None, uplinks: int | None = None) -> int:
    """A leaf's links up, in host links: --uplinks-per-leaf, else the leaf's
    node ports / taper with its listed nodes rounded up to a whole number
    of uplinks (a leaf listing 31 user nodes at 2:1 has 16)."""
    if uplinks is not None:
        return uplinks
    if taper:
        return max(1, math.ceil(len(tree.switches[leaf].nodes) / taper - 1e-9))
    raise GpcnetError("the leaves' uplink capacity is unknown (topology.conf lists parent switches, not links): "
                      "give --uplinks-per-leaf U (links up per leaf, in host links; 16 on the poster's Quartz) "
                      "or --taper T (U = hosts per leaf / T, rounded up)")


def pairs_for(pattern: str, capacity: int) -> int:
    """Node pairs of a leaf pair of this capacity: 10 of 16 links for the
    light bully (62.5%, rounded half to even), U + 1 for the full one."""
    if pattern == "pairs-light":
        return max(1, round(LIGHT_PAIRS * capacity / REFERENCE_LINKS))
    return capacity + 1


def size_leaf_pairs(tree: Tree, pattern: str, pairs: list, taper, uplinks=None) -> tuple:
    """([node pairs of each leaf pair], about): each leaf pair sized from
    the smaller capacity of its two leaves. about holds the count of most
    leaf pairs (`uplink_capacity`, `pairs_per_leaf_pair`, as before) and,
    only when some differ, `differing_leaf_pairs` saying which and why."""
    leaves = [leaf for p in pairs for leaf in p]
    if any(tree.uplinks(leaf) == 0 for leaf in leaves):
        raise GpcnetError(f"{pattern}: the leaves have no uplinks in the topology (no parent switch)")
    try:
        caps = {leaf: leaf_capacity(tree, leaf, taper, uplinks) for leaf in leaves}
    except GpcnetError as e:
        raise GpcnetError(f"{pattern}: {e}") from None
    sized = [(min(caps[a], caps[b]), a if caps[a] <= caps[b] else b) for a, b in pairs]
    usual = Counter(cap for cap, _ in sized).most_common(1)[0][0]
    about = {"uplink_capacity": usual, "pairs_per_leaf_pair": pairs_for(pattern, usual)}
    differing = []
    for (a, b), (cap, small) in zip(pairs, sized):
        if cap != usual:
            differing.append({"leaf_pair": [a, b], "pairs": pairs_for(pattern, cap), "uplink_capacity": cap,
                              "why": f"leaf {small} lists {len(tree.switches[small].nodes)} nodes: "
                                     f"{cap} links up at --taper {taper:g} (most leaf pairs: {usual}); a "
                                     "leaf pair is sized by the fewer links of its two leaves"})
    if differing:
        about["differing_leaf_pairs"] = differing
    return [pairs_for(pattern, cap) for cap, _ in sized], about


def testbed_uplinks(topo) -> int | None:
    """A running gpcnet testbed's leaf uplinks in host links: spines x
    uplink rate / host rate (its own numbers, not a guess); None when its
    links are unlimited or it has no spine."""
    p = getattr(topo, "params", None) or {}
    per_leaf = p.get("spines")
    if p.get("levels"):     # more levels (fat-tree3): "spines" counts every switch above the leaves
        leaf = p["levels"][0][0]
        per_leaf = sum(1 for link in topo.links if link.a.tier == "uplink" and link.a.switch == leaf)
    if not (per_leaf and p.get("uplink_rate") and p.get("host_rate")):
        return None
    return max(1, round(per_leaf * p["uplink_rate"] / p["host_rate"]))
