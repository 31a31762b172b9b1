"""A flow-level model of traffic patterns on a k-ary three-level fat-tree
under the testbed's two routings (docs/testbed.md#against-published-results).

The patterns are Hedera's (Al-Fares et al., NSDI 2010; the paper is not
among the project's stored sources, the definitions are given from
memory): each host sends one flow,

- stride(i): host x (0-based) to host (x + i) mod N;
- random: to a host drawn uniformly among the others (destinations may
  repeat, so a host may receive several flows or none);
- randbij: a random derangement (every host receives exactly one flow).

The metric is theirs: the aggregate throughput of all flows (their sum)
as a fraction of N host link rates, the total a non-blocking switch could
carry if no destination received more than one flow.

The tree is the testbed's `--topology fat-tree3 --k K` (shapes/fat_tree3.py):
K pods of K/2 leaves and K/2 aggregation switches, (K/2)^2 cores in K/2
groups, K/2 hosts per leaf, every link at the host rate (no taper).
Host number h (1-based) is on leaf (h-1) div (K/2), pod leaf div (K/2).

- static (d-mod-k, `--routing static`): to destination d = h-1, up to
  aggregation switch d mod A of the source's pod, then to core
  (d mod A) x G + (d div A) mod G (A aggregation switches per pod, G
  cores per group), down the one path to d's leaf;
- ecmp (`--routing ecmp`): each flow draws its aggregation switch and its
  core uniformly, independently of the others (what an L4 hash of a new
  TCP connection's random source port does on average). The expected
  fraction is a mean over draws (Monte Carlo with a seed), or exact over
  every draw for a handful of flows.

Each flow gets its max-min fair share of the links on its path
(ebb_model.max_min_rates, progressive filling): long-lived flows of TCP
sharing a bottleneck come near it. Not modelled: TCP's unfairness, the
hash's real values, flows' start-up, the host's CPUs.
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
from dataclasses import dataclass

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed.ebb_model import max_min_rates
from gpcnet.testbed.topology import host_name

ROUTINGS = ("static", "ecmp", "nonblocking")


@dataclass(frozen=True)
class FatTree3:
    k: int = 4

    def __post_init__(self):
        if self.k < 2 or self.k % 2:
            raise GpcnetError(f"--k {self.k}: a k-ary fat-tree needs an even k of 2 or more")

    @property
    def half(self) -> int:          # hosts per leaf, leaves and aggs per pod, cores per group
        return self.k // 2

    @property
    def hosts(self) -> int:
        return self.k ** 3 // 4

    def leaf(self, h: int) -> int:
        return (h - 1) // self.half

    def pod(self, h: int) -> int:
        return self.leaf(h) // self.half

    def capacity(self) -> dict:
        """Every link, each way, in host link rates (all 1: no taper)."""
        caps = {}
        for h in range(1, self.hosts + 1):
            caps[("up", h)] = caps[("down", h)] = 1.0
        for leaf in range(self.k * self.half):
            for j in range(self.half):
                agg = (leaf // self.half) * self.half + j
                caps[("la", leaf, agg)] = caps[("al", agg, leaf)] = 1.0
        for pod in range(self.k):
            for j in range(self.half):
                for c in range(self.half):
                    agg, core = pod * self.half + j, j * self.half + c
                    caps[("ac", agg, core)] = caps[("ca", core, agg)] = 1.0
        return caps

    def choices(self, src: int, dst: int) -> tuple[int, int]:
        """How many aggregation switches and cores a flow may cross
        (1 where it stays below that level)."""
        if self.leaf(src) == self.leaf(dst):
            return 1, 1
        if self.pod(src) == self.pod(dst):
            return self.half, 1
        return self.half, self.half

    def path(self, src: int, dst: int, j: int, c: int) -> list:
        """The links from host src to host dst through aggregation switch j
        of the pod and core c of group j (ignored below that level)."""
        if src == dst:
            raise GpcnetError(f"a flow from host {src} to itself")
        links = [("up", src)]
        ls, ld = self.leaf(src), self.leaf(dst)
        if ls != ld:
            a_src = self.pod(src) * self.half + j
            a_dst = self.pod(dst) * self.half + j
            links.append(("la", ls, a_src))
            if a_src != a_dst:
                core = j * self.half + c
                links += [("ac", a_src, core), ("ca", core, a_dst)]
            links.append(("al", a_dst, ld))
        return links + [("down", dst)]

    def static_choice(self, dst: int) -> tuple[int, int]:
        """d-mod-k: the aggregation switch and core every flow to dst takes."""
        d = dst - 1
        return d % self.half, (d // self.half) % self.half


def pattern(name: str, hosts: int, seed: int = 1) -> list[tuple[int, int]]:
    """The flows (src, dst), host numbers 1-based, of a pattern: strideI,
    random or randbij."""
    rng = random.Random(seed)
    if name.startswith("stride"):
        try:
            step = int(name[len("stride"):])
        except ValueError:
            step = 0
        if not 0 < step < hosts:
            raise GpcnetError(f"pattern {name}: stride wants a step from 1 to {hosts - 1} (stride4)")
        return [(x + 1, (x + step) % hosts + 1) for x in range(hosts)]
    if name == "random":
        return [(x, rng.choice([y for y in range(1, hosts + 1) if y != x]))
                for x in range(1, hosts + 1)]
    if name == "randbij":
        while True:
            dst = list(range(1, hosts + 1))
            rng.shuffle(dst)
            if all(d != x for x, d in enumerate(dst, 1)):
                return list(zip(range(1, hosts + 1), dst))
    raise GpcnetError(f"pattern {name}: expected strideI (e.g. stride4), random or randbij")


def _fraction(tree: FatTree3, flows, picks) -> tuple[float, list[float]]:
    paths = [tree.path(s, d, j, c) for (s, d), (j, c) in zip(flows, picks)]
    rates = max_min_rates(paths, tree.capacity())
    return sum(rates) / tree.hosts, rates


def static(tree: FatTree3, flows) -> dict:
    fr, rates = _fraction(tree, flows, [tree.static_choice(d) for _s, d in flows])
    return {"fraction": fr, "rates": rates}


def nonblocking(tree: FatTree3, flows) -> dict:
    """One switch: only the hosts' own links limit a flow."""
    paths = [[("up", s), ("down", d)] for s, d in flows]
    rates = max_min_rates(paths, {link: 1.0 for p in paths for link in p})
    return {"fraction": sum(rates) / tree.hosts, "rates": rates}


def ecmp_exact(tree: FatTree3, flows) -> float:
    """The expected fraction over every draw of every flow, each equally
    likely: for a few flows only (the draws multiply)."""
    options = [list(itertools.product(range(a), range(c))) for a, c in
               (tree.choices(s, d) for s, d in flows)]
    count = 1
    for o in options:
        count *= len(o)
    if count > 200_000:
        raise GpcnetError(f"{count} draws to enumerate: use ecmp_monte_carlo")
    total = sum(_fraction(tree, flows, picks)[0] for picks in itertools.product(*options))
    return total / count


def ecmp_monte_carlo(tree: FatTree3, flows, draws: int = 400, seed: int = 1) -> dict:
    """The mean fraction over `draws` random path choices (and their spread)."""
    if draws < 1:
        raise GpcnetError(f"--draws {draws}: 1 or more")
    rng = random.Random(seed)
    got = []
    for _ in range(draws):
        picks = []
        for s, d in flows:
            a, c = tree.choices(s, d)
            picks.append((rng.randrange(a), rng.randrange(c)))
        got.append(_fraction(tree, flows, picks)[0])
    return {"fraction": sum(got) / draws, "lowest": min(got), "highest": max(got), "draws": draws}


def flows_text(tree: FatTree3, flows) -> str:
    """The flows as network_congestor --flows lines (testbed host names)."""
    return "".join(f"{host_name(s, tree.hosts)} {host_name(d, tree.hosts)}\n" for s, d in flows)


def predict(tree: FatTree3, name: str, seed: int = 1, draws: int = 400) -> dict:
    flows = pattern(name, tree.hosts, seed)
    return {"pattern": name, "flows": flows,
            "nonblocking": nonblocking(tree, flows)["fraction"],
            "static": static(tree, flows)["fraction"],
            "ecmp": ecmp_monte_carlo(tree, flows, draws, seed)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m gpcnet.testbed.ecmp_model",
        description="Hedera's stride and random patterns on a k-ary fat-tree3: the aggregate "
                    "throughput (fraction of hosts x link rate) a non-blocking switch, static "
                    "d-mod-k and ECMP (expected over random path draws) would give.")
    ap.add_argument("patterns", nargs="*", default=["stride1", "stride2", "stride4", "stride8",
                                                     "random", "randbij"],
                    help="strideI, random, randbij (default: Hedera's set on 16 hosts)")
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1, help="for random, randbij and the ECMP draws")
    ap.add_argument("--draws", type=int, default=400, help="ECMP path draws to average")
    ap.add_argument("--flows-file", metavar="PATTERN", help="print PATTERN's flows as "
                    "network_congestor --flows lines instead")
    a = ap.parse_args(argv)
    try:
        tree = FatTree3(a.k)
        if tree.hosts > 200:
            raise GpcnetError(f"--k {a.k}: {tree.hosts} hosts; the testbed's largest is --k 8")
        if a.flows_file:
            sys.stdout.write(flows_text(tree, pattern(a.flows_file, tree.hosts, a.seed)))
            return 0
        rows = [predict(tree, p, a.seed, a.draws) for p in a.patterns]
    except GpcnetError as e:
        print(f"ecmp_model: {e}", file=sys.stderr)
        return 2
    print(f"{'pattern':<10} {'nonblocking':>11} {'static':>7} {'ecmp':>7} {'ecmp range':>14}")
    for r in rows:
        e = r["ecmp"]
        print(f"{r['pattern']:<10} {r['nonblocking']:>11.3f} {r['static']:>7.3f} "
              f"{e['fraction']:>7.3f} {e['lowest']:>6.3f}-{e['highest']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
