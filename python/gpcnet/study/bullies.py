"""The bullies of the LLNL Quartz fat-tree poster (docs/studies.md, "Bullies
on a fat-tree") and the placement of the application beside them.

The poster's machine: leaves of 32 node ports, 31 user nodes and 1 system
node each, with a 2:1 taper (16 links up per leaf: the second-level switches
have "two links to each leaf switch"), pods of 8 leaves under the second
level; the application on N = 224 nodes. Its counts are kept literally where
they are counts of nodes (3 senders per leaf, 7 leaves, 10 instances) and
scaled where they are shares of a leaf or of its uplinks (10 pairs of 16
links, 28 of a leaf's 31 user nodes):

- control: the application alone, packed within the first pod, 28 of every
  31 listed nodes of a leaf (floor(28 L / 31) of a leaf listing L: 28 for
  31 or 32), leaf after leaf; the poster's 3 free nodes per leaf remain.
- pairs-light: the application spread over the leaves of the first two pods
  (14 per leaf for 224 on 16 leaves); between adjacent leaves (0-1, 2-3,
  ...) round(10 U / 16) node pairs sending both ways, U the uplinks in host
  links of the pair's two leaves (the fewer): 10 pairs, 62.5%, on Quartz.
- pairs-full: the same with U + 1 pairs (17 on 16 links): more than 100%.
- bisection: the full bully's U + 1 pairs between leaf i of the first pod
  and leaf i of the second, so that all its traffic crosses the top level
  (a tree of one pod: its first half of leaves with its second half).
- incast: the application as in the control; 3 receivers in the last leaf
  of the first pod holding application nodes (the pod's 8th at N = 224, as
  the poster's, which held 28), 3 senders in each of the pod's first 7
  other leaves (the pod's free nodes: 24 = 3 per leaf beside 28); receiver
  j gets one sender of every sending leaf (7 to 1).
- interleaved: 10 instances at once, each on N nodes drawn at random
  (seeded by the repetition) from the whole tree; the first instance is the
  one measured, the others run the study's application or, with --mix, the
  listed applications in turn. When 10 N nodes do not exist, as many
  instances as fit (at least 2), recorded and said.

U, the uplink capacity of a leaf in host links, is never guessed from the
nodes a topology.conf lists: --uplinks-per-leaf U, or ceil(L / T) from
--taper T (a leaf listing its 31 user nodes still has 32 ports: 16 up at
2:1), or the running testbed's own rates (bully_capacity, which also
refuses capacities that cannot be). Without any of these a pattern that
needs it is refused.

Bully nodes are taken from the end of each leaf, the application's from
its start, so the pairs patterns share the application's nodes.
"""

from __future__ import annotations

import random

from gpcnet.infra.errors import GpcnetError
from gpcnet.study.bully_capacity import size_leaf_pairs, testbed_uplinks  # noqa: F401 (the planner's API)
from gpcnet.study.nodelists import choice_list
from gpcnet.study.topology import Tree

PATTERNS = ("pairs-light", "pairs-full", "bisection", "incast", "interleaved")
CONTROL = "control"
# The rows of the poster's Table I.
TABLE_NAMES = {"pairs-light": "Light bully", "pairs-full": "Adjacent leaf bully",
               "bisection": "Bisection bully", "incast": "Incast bully", "interleaved": "Interleaved"}
COMPACT_NODES, USER_NODES = 28, 31             # "within a pod using 28 nodes per switch";
                                               # "31 user nodes and 1 system node" per leaf
SPREAD_PODS = 2                                # "spread over two pods"
INCAST_SENDERS_PER_LEAF = 3                    # "three nodes in each of seven leaf switches"
INCAST_SOURCE_LEAVES = 7
INCAST_RECEIVERS = 3
INTERLEAVED_INSTANCES = 10                     # "We ran 10 applications at once"


def check_patterns(text: str) -> list:
    names = [p.strip() for p in text.split(",") if p.strip()]
    return choice_list("--patterns", "pattern", text, PATTERNS, names)


def pods(tree: Tree) -> list:
    """[[leaf, ...], ...]: the leaves under each pod (first parent), pods in
    the order their first leaf appears."""
    out: dict = {}
    for leaf, pod in tree.pod_of().items():
        out.setdefault(pod, []).append(leaf)
    return list(out.values())


def compact_per_leaf(size: int) -> int:
    """The control's nodes on a leaf listing `size` nodes: 28 of the poster's
    31 user nodes, scaled (28 for 31 or 32 listed, 7 for 8)."""
    return max(1, COMPACT_NODES * size // USER_NODES)


def control_placement(tree: Tree, n_app: int, why: str = CONTROL) -> dict:
    """{leaf: [app nodes]}: packed in the first pod, leaf after leaf."""
    pod = pods(tree)[0]
    room = {leaf: compact_per_leaf(len(tree.switches[leaf].nodes)) for leaf in pod}
    if n_app > sum(room.values()):
        raise GpcnetError(f"{why}: the application of {n_app} nodes does not fit packed in one pod: "
                          f"pod of leaves {pod[0]}..{pod[-1]} holds {sum(room.values())} "
                          f"({COMPACT_NODES} of every {USER_NODES} listed nodes of a leaf); give -n "
                          f"{sum(room.values())} or fewer")
    out, left = {}, n_app
    for leaf in pod:
        take = min(room[leaf], left)
        out[leaf] = tree.switches[leaf].nodes[:take]
        left -= take
    return out


def spread_leaves(tree: Tree) -> list:
    return [leaf for pod in pods(tree)[:SPREAD_PODS] for leaf in pod]


def spread_placement(tree: Tree, n_app: int, why: str) -> dict:
    """{leaf: [app nodes]}: dealt evenly over the leaves of the first two pods."""
    leaves = spread_leaves(tree)
    base, extra = divmod(n_app, len(leaves))
    out = {}
    for i, leaf in enumerate(leaves):
        want = base + (i < extra)
        have = len(tree.switches[leaf].nodes)
        if want > have:
            raise GpcnetError(f"{why}: the application of {n_app} nodes spread over {len(leaves)} leaves "
                              f"needs {want} in leaf {leaf}, which has {have}")
        out[leaf] = tree.switches[leaf].nodes[:want]
    return out


def leaf_pairs(tree: Tree, pattern: str) -> list:
    leaves = spread_leaves(tree)
    if len(leaves) < 2:
        raise GpcnetError(f"{pattern}: needs at least 2 leaf switches; the topology has {len(leaves)}")
    if pattern == "bisection":
        two = pods(tree)[:SPREAD_PODS]
        if len(two) == 2:
            return list(zip(two[0], two[1]))
        half = len(leaves) // 2  # one pod: no level above it to cross
        return list(zip(leaves[:half], leaves[half:2 * half]))
    return [(leaves[i], leaves[i + 1]) for i in range(0, len(leaves) - 1, 2)]


def _free_end(tree: Tree, leaf: str, app: dict, count: int, pattern: str, what: str) -> list:
    nodes = tree.switches[leaf].nodes
    taken = len(app.get(leaf, []))
    if taken + count > len(nodes):
        raise GpcnetError(f"{pattern}: leaf {leaf} is too small: it has {len(nodes)} nodes, the application "
                          f"takes {taken} there and {what} {count}")
    return nodes[len(nodes) - count:]


def plan(tree: Tree, pattern: str | None, n_app: int, repeat: int = 0, taper=None, uplinks=None) -> dict:
    """One run: {"app", "bully", "flows", "about"} (and "instances" for
    interleaved); pattern None or "control" is the control."""
    if n_app < 1:
        raise GpcnetError(f"-n must be at least 1 (got {n_app})")
    if pattern in (None, CONTROL):
        app = control_placement(tree, n_app)
        return {"app": [n for v in app.values() for n in v], "bully": [], "flows": [],
                "about": {"placement": "packed in one pod",
                          "app_per_leaf": {k: len(v) for k, v in app.items() if v}}}
    if pattern not in PATTERNS:
        raise GpcnetError(f"unknown bully pattern {pattern!r} (choose from {', '.join(PATTERNS)})")
    if pattern == "interleaved":
        return _interleaved(tree, n_app, repeat)
    if pattern == "incast":
        return _incast(tree, n_app)
    app = spread_placement(tree, n_app, pattern)
    pairs = leaf_pairs(tree, pattern)
    counts, sizes = size_leaf_pairs(tree, pattern, pairs, taper, uplinks)
    flows = []
    for (a, b), k in zip(pairs, counts):
        need = f"the bully's {k} pairs per leaf pair need"
        for x, y in zip(_free_end(tree, a, app, k, pattern, need), _free_end(tree, b, app, k, pattern, need)):
            flows += [(x, y), (y, x)]
    about = {"placement": f"spread over {len(app)} leaves", **sizes, "leaf_pairs": [list(p) for p in pairs],
             "app_per_leaf": {leaf: len(v) for leaf, v in app.items() if v}}
    return {"app": [n for v in app.values() for n in v], "bully": _used(tree, flows), "flows": flows,
            "about": about}


def _used(tree: Tree, flows: list) -> list:
    where = {n: i for i, n in enumerate(tree.nodes)}
    return sorted({n for f in flows for n in f}, key=where.__getitem__)


def incast_leaves(pod: list, target: str) -> list:
    """The sending leaves: the pod's first 7 other than the target."""
    return [leaf for leaf in pod if leaf != target][:INCAST_SOURCE_LEAVES]


def incast_fits(tree: Tree, n_app: int) -> int:
    """The largest N below n_app at which the incast fits (0: none). With
    N packed as the control, the target is the last leaf holding part of
    it, pod[m]: the leaves before it are full (28 of 31), those after it
    empty, so N = full(0..m-1) + a fits when pod[m] has 3 nodes free beside
    a and every sending leaf 3 beside its share."""
    pod = pods(tree)[0]
    size = {leaf: len(tree.switches[leaf].nodes) for leaf in pod}
    best, before = 0, 0
    for m, target in enumerate(pod):
        full = set(pod[:m])
        free = all(size[leaf] - (compact_per_leaf(size[leaf]) if leaf in full else 0) >= INCAST_SENDERS_PER_LEAF
                   for leaf in incast_leaves(pod, target))
        most = min(compact_per_leaf(size[target]), size[target] - INCAST_RECEIVERS, n_app - 1 - before)
        if free and most >= 1:
            best = before + most
        before += compact_per_leaf(size[target])
    return best


def _incast(tree: Tree, n_app: int) -> dict:
    pod = pods(tree)[0]
    if len(pod) < 2:
        raise GpcnetError(f"incast: the first pod has {len(pod)} leaf switch; the pattern needs at least 2 "
                          "(senders in up to 7 leaves, receivers in another); leave incast out of --patterns")
    app = control_placement(tree, n_app, "incast")
    # The receivers beside the application (the poster's 8th leaf held 28 of
    # its nodes): the last leaf of the pod holding some, not a fixed leaf
    # that a small N leaves empty.
    target = [leaf for leaf in pod if app.get(leaf)][-1]
    sources = incast_leaves(pod, target)
    try:
        receivers = _free_end(tree, target, app, INCAST_RECEIVERS, "incast", "the incast's receivers need")
        flows = []
        for leaf in sources:
            senders = _free_end(tree, leaf, app, INCAST_SENDERS_PER_LEAF, "incast", "the incast's senders need")
            flows += [(s, receivers[j % INCAST_RECEIVERS]) for j, s in enumerate(senders)]
    except GpcnetError as e:
        fits = incast_fits(tree, n_app)
        lower = f"give -n {fits} (the largest below {n_app} that leaves the incast room) or " if fits else ""
        raise GpcnetError(f"{e}; {lower}leave incast out of --patterns") from None
    return {"app": [n for v in app.values() for n in v], "bully": _used(tree, flows), "flows": flows,
            "about": {"placement": "packed in one pod", "source_leaves": sources, "target_leaf": target,
                      "senders": len(flows), "receivers": len(receivers),
                      "app_per_leaf": {k: len(v) for k, v in app.items() if v}}}


def interleaved_instances(tree: Tree, n_app: int) -> int:
    fit = len(tree.nodes) // n_app
    if fit < 2:
        raise GpcnetError(f"interleaved: {len(tree.nodes)} nodes hold {fit} instance(s) of {n_app} nodes; the "
                          f"pattern needs at least 2 at once (the poster ran {INTERLEAVED_INSTANCES}); "
                          f"give -n {len(tree.nodes) // 2} or fewer")
    return min(INTERLEAVED_INSTANCES, fit)


def _interleaved(tree: Tree, n_app: int, repeat: int) -> dict:
    k = interleaved_instances(tree, n_app)
    drawn = random.Random(f"interleaved-{repeat}").sample(tree.nodes, k * n_app)
    instances = [drawn[i * n_app:(i + 1) * n_app] for i in range(k)]
    return {"app": instances[0], "bully": [], "flows": [], "instances": instances,
            "about": {"placement": "random nodes", "instances": k, "instances_asked": INTERLEAVED_INSTANCES,
                      "seed": f"interleaved-{repeat}"}}


def flows_text(flows: list, names: dict | None = None, comment: str = "") -> str:
    """The flows file of network_congestor --flows: one `SRC DST` per line,
    node names as the program sees them (`names` maps study names to those)."""
    names = names or {}
    lines = [f"# {line}" for line in comment.splitlines()] if comment else []
    lines += [f"{names.get(s, s)} {names.get(d, d)}" for s, d in flows]
    return "\n".join(lines) + "\n"
