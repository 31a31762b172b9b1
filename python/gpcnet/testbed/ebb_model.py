"""A flow-level model of the effective bisection bandwidth (eBB) of a
two-level tree under the testbed's static routing
(docs/testbed.md#effective-bisection-bandwidth).

What it models, and how:

- The shape: `hosts` hosts, `hosts_per_leaf` on each leaf, `spines`
  spines, every leaf cabled to every spine, one NIC per host. Rates are in
  units of the host link rate; each leaf-spine link carries
  hosts_per_leaf / taper / spines each way (the testbed's rule,
  testbed/topology.py build()).
- The routing: static destination-modulo (d-mod-k), as the testbed's
  `--routing static` (Topology.spine_for): traffic to host number h
  (1-based) goes up through spine (h - 1) mod spines and down that spine's
  link to h's leaf, whoever sends it.
- The matchings: the ones network_test --ebb draws
  (src/infra/matching.c), computed again here from the same seed with the
  same generator (SplitMix64), so a measured matching and its prediction are
  the same pairs. Node i of the run is host number i + 1 unless a mapping
  says otherwise.
- The traffic: each pair is two flows, one each way, all flows of a
  matching at once. Each flow gets its max-min fair share of the links on
  its path (progressive filling), the rates while all flows run: a flow that
  would finish early does not hand its share to the others, so the model
  is the sustained rate, not the completion time of a fixed message.
- A pair's bandwidth is its slower flow's (network_test times a pair by its
  slower side); a matching's value is the mean over its pairs, the eBB the
  mean over the matchings (Hoefler, Schneider and Lumsdaine, Cluster 2008).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json.load import load
from gpcnet.testbed.topology import host_name

MASK64 = (1 << 64) - 1
# src/infra/matching.h MATCHING_SALT ("ebb0"): kept apart from the rings'
# and the placement's seeds there; the same here so the pairs agree.
MATCHING_SALT = 0x65626230


def _splitmix64(state: int) -> tuple[int, int]:
    """(new state, output) of one SplitMix64 step (src/infra/rng.c)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def _seed_mix(a: int, b: int, c: int) -> int:
    _, h = _splitmix64(a & MASK64)
    _, h = _splitmix64(h ^ (b & MASK64))
    _, h = _splitmix64(h ^ (c & MASK64))
    return h


def _below(state: int, n: int) -> tuple[int, int]:
    """Uniform in [0, n), rejecting the top partial block as rng_below."""
    limit = MASK64 - (MASK64 % n)
    while True:
        state, v = _splitmix64(state)
        if v < limit:
            return state, v % n


def matching_partners(seed: int, m: int, n: int) -> list[int]:
    """partner[i] of node i in matching m of a run with seed (network_test's
    --ring-seed, the results' ebb.seed) on n nodes, n even."""
    if n < 2 or n % 2:
        raise GpcnetError(f"a perfect matching needs an even number of nodes, got {n}")
    order = list(range(n))
    state = _seed_mix(seed, MATCHING_SALT, m)
    for i in range(n - 1, 0, -1):  # Fisher-Yates, as rng_shuffle
        state, j = _below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    partner = [0] * n
    for i in range(0, n - 1, 2):
        partner[order[i]], partner[order[i + 1]] = order[i + 1], order[i]
    return partner


def max_min_rates(paths: list[list], capacity: dict) -> list[float]:
    """Max-min fair rates of flows, each the list of links it crosses
    (keys of capacity), by progressive filling: the link whose remaining
    capacity shared among its unsettled flows is least settles them at
    that share; repeat until every flow is settled."""
    rate = [None] * len(paths)
    left = dict(capacity)
    users = {link: [] for link in capacity}
    for f, path in enumerate(paths):
        for link in path:
            users[link].append(f)
    while any(r is None for r in rate):
        share, bottleneck = min(
            (left[link] / sum(1 for f in fs if rate[f] is None), link)
            for link, fs in users.items() if any(rate[f] is None for f in fs))
        for f in users[bottleneck]:
            if rate[f] is None:
                rate[f] = share
                for link in paths[f]:
                    left[link] -= share
    return rate


@dataclass(frozen=True)
class TwoLevelTree:
    hosts: int
    hosts_per_leaf: int
    spines: int
    taper: float = 1.0

    def __post_init__(self):
        if self.hosts < 2 or self.hosts_per_leaf < 1 or self.hosts % self.hosts_per_leaf:
            raise GpcnetError(f"{self.hosts} hosts do not fill leaves of {self.hosts_per_leaf}")
        if self.spines < 1 or not self.taper > 0:
            raise GpcnetError("a two-level tree needs at least one spine and a taper > 0")

    def leaf(self, host: int) -> int:
        return (host - 1) // self.hosts_per_leaf

    def capacity(self) -> dict:
        """Every link, each way, in host link rates."""
        trunk = self.hosts_per_leaf / self.taper / self.spines
        caps = {}
        for h in range(1, self.hosts + 1):
            caps[("host-up", h)] = caps[("host-down", h)] = 1.0
        for leaf in range(self.hosts // self.hosts_per_leaf):
            for s in range(self.spines):
                caps[("up", leaf, s)] = caps[("down", s, leaf)] = trunk
        return caps

    def path(self, src: int, dst: int) -> list:
        """The links of a flow from host number src to host number dst under
        static d-mod-k routing."""
        links = [("host-up", src), ("host-down", dst)]
        if self.leaf(src) != self.leaf(dst):
            s = (dst - 1) % self.spines
            links[1:1] = [("up", self.leaf(src), s), ("down", s, self.leaf(dst))]
        return links


def pair_fractions(tree: TwoLevelTree, partner: list[int], host_of=None) -> list[float]:
    """Each pair's bandwidth (its slower flow) as a fraction of the host
    link rate, pairs in the order network_test writes them (the lower node
    first, in node order). host_of[i]: host number of node i (default i+1)."""
    host_of = host_of or [i + 1 for i in range(len(partner))]
    pairs = [(a, b) for a, b in enumerate(partner) if a < b]
    paths = []
    for a, b in pairs:
        paths += [tree.path(host_of[a], host_of[b]), tree.path(host_of[b], host_of[a])]
    rates = max_min_rates(paths, tree.capacity())
    return [min(rates[2 * k], rates[2 * k + 1]) for k in range(len(pairs))]


def predict(tree: TwoLevelTree, seed: int, matchings: int, host_of=None) -> dict:
    """The modelled eBB of network_test --ebb MATCHINGS with --ring-seed
    seed on tree: each matching's mean pair fraction and their mean."""
    per = []
    for m in range(matchings):
        fr = pair_fractions(tree, matching_partners(seed, m, tree.hosts), host_of)
        per.append(sum(fr) / len(fr))
    return {"per_matching": per, "fraction": sum(per) / len(per)}


def host_numbers(names: list, hosts: int) -> list[int]:
    """Host number of each node of a run from its name (ebb.node_names),
    the testbed's names node01, node02, ..."""
    number = {host_name(n, hosts): n for n in range(1, hosts + 1)}
    missing = [x for x in names if x not in number]
    if missing or len(names) != hosts:
        raise GpcnetError(f"the run's nodes {missing[:3] or names[:3]} are not the {hosts} "
                          f"testbed hosts {host_name(1, hosts)}...; give the tree it ran on")
    return [number[x] for x in names]


def compare(ebb: dict, tree: TwoLevelTree) -> dict:
    """The measured fraction of every matching of a results document's ebb
    member beside the model's for the same pairs on tree."""
    if not ebb.get("link_rate_gbit"):
        raise GpcnetError("the run has no link rate (network_test --link-rate, which gpcnet "
                          "testbed run gives): no fraction to compare")
    host_of = host_numbers(ebb["node_names"], tree.hosts)
    link = ebb["link_rate_gbit"] * 1e9 / 8 / (1 << 20)
    model = predict(tree, ebb["seed"], ebb["matchings"], host_of)["per_matching"]
    measured = [per["mean_mib_s"] / link for per in ebb["per_matching"]]
    return {"model": model, "measured": measured,
            "model_mean": sum(model) / len(model), "measured_mean": sum(measured) / len(measured)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m gpcnet.testbed.ebb_model",
        description="network_test --ebb's measured fractions beside the flow-level model of "
                    "the two-level tree it ran on (static routing).")
    ap.add_argument("results", help="network_test.json of a run with --ebb")
    ap.add_argument("--hosts-per-leaf", type=int, required=True)
    ap.add_argument("--spines", type=int, required=True)
    ap.add_argument("--taper", type=float, default=1.0)
    a = ap.parse_args(argv)
    try:
        doc = load(a.results)
        if "ebb" not in doc:
            raise GpcnetError(f"{a.results}: no ebb member (run network_test with --ebb)")
        got = compare(doc["ebb"], TwoLevelTree(doc["ebb"]["nodes"], a.hosts_per_leaf, a.spines,
                                               a.taper))
    except GpcnetError as e:
        print(f"ebb_model: {e}", file=sys.stderr)
        return 2
    print(f"{'matching':>8} {'model':>7} {'measured':>9}")
    for m, (x, y) in enumerate(zip(got["model"], got["measured"])):
        print(f"{m + 1:8d} {x:7.3f} {y:9.3f}")
    print(f"{'mean':>8} {got['model_mean']:7.3f} {got['measured_mean']:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
