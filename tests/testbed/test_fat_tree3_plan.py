"""--topology fat-tree3 without root: its cabling, rates, static forwarding
and ecmp routes, each checked against a tree and paths computed here from
the definition of a three-level fat-tree (not from the shape's code), for
sizes and tapers docs/testbed.md does not use; and its bad input."""
from collections import deque

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import routing, shapes, topology
from test_routing_plan import up_is_refused

pytestmark = pytest.mark.no_root_needed


def model(pods, leaves_per_pod, aggs, cores):
    """The cables of the tree as defined: every leaf to every aggregation
    switch of its pod, aggregation switch j of every pod to the cores of
    group j (cores / aggs of them)."""
    group = cores // aggs
    cables = set()
    for pod in range(pods):
        for j in range(aggs):
            agg = f"agg{pod * aggs + j}"
            cables |= {(f"leaf{pod * leaves_per_pod + i}", agg) for i in range(leaves_per_pod)}
            cables |= {(agg, f"core{j * group + g}") for g in range(group)}
    return cables


def shortest_paths(cables, src, dst):
    """Every shortest switch path from src to dst (breadth first, here)."""
    nbr = {}
    for a, b in cables:
        nbr.setdefault(a, set()).add(b)
        nbr.setdefault(b, set()).add(a)
    dist = {src: 0}
    todo = deque([src])
    while todo:
        s = todo.popleft()
        for n in nbr[s]:
            if n not in dist:
                dist[n] = dist[s] + 1
                todo.append(n)

    def back(s):
        if s == src:
            return [[src]]
        return [p + [s] for n in nbr[s] if dist.get(n) == dist[s] - 1 for p in back(n)]
    return {tuple(p) for p in back(dst)}


def port_owner(t):
    """{switch port: (its switch, the switch at the link's other end or None for a host)}."""
    own = {}
    for link in t.links:
        if link.a.tier == "host":
            own[link.b.ifname] = (link.b.switch, None)
        else:
            own[link.a.ifname] = (link.a.switch, link.b.switch)
            own[link.b.ifname] = (link.b.switch, link.a.switch)
    return own


# Sizes the docs do not use: k=6 (54 hosts, 45 switches), and 3 pods of 2
# leaves with 2 aggregation switches and 6 cores (3 per group) under two NICs.
CASES = {
    "k6": dict(hosts=None, k=6, taper=3, core_taper=1.5, host_rate="300mbit"),
    "explicit": dict(hosts=12, hosts_per_leaf=2, pods=3, aggs=2, cores=6, taper=1.5,
                     core_taper=2.5, host_rate="120mbit", nics_per_host=2),
}
GEOMETRY = {"k6": (6, 3, 3, 9, 3), "explicit": (3, 2, 2, 6, 2)}   # pods, leaves/pod, aggs, cores, hosts/leaf


@pytest.mark.parametrize("case", CASES)
def test_cabling_and_rates(case):
    t = topology.build("fat-tree3", **CASES[case])
    pods, per_pod, aggs, cores, hpl = GEOMETRY[case]
    nics = CASES[case].get("nics_per_host", 1)
    assert len(t.hosts) == pods * per_pod * hpl
    assert {(l.a.switch, l.b.switch) for l in t.links if l.a.tier == "uplink"} == model(pods, per_pod, aggs, cores)
    assert [len(level) for level in t.levels] == [pods * per_pod, pods * aggs, cores]
    # Leaf uplinks: the leaf's host bandwidth / taper over its aggs; an aggregation
    # switch's uplinks: what comes up from its leaves / core taper over its group.
    rate = topology.parse_rate(CASES[case]["host_rate"])
    leaf_up = hpl * nics * rate / CASES[case]["taper"] / aggs
    agg_up = per_pod * int(leaf_up) / CASES[case]["core_taper"] / (cores // aggs)
    rates = {(l.a.switch.rstrip("0123456789"), l.b.switch.rstrip("0123456789")): l.a.rate
             for l in t.links if l.a.tier == "uplink"}
    assert rates == {("leaf", "agg"): int(leaf_up), ("agg", "core"): int(agg_up)}
    for h in t.hosts:       # host n on leaf (n-1) // hosts per leaf, every NIC
        assert {nic.leaf for nic in h.nics} == {f"leaf{(h.number - 1) // hpl}"}


@pytest.mark.parametrize("case", CASES)
def test_static_follows_one_path_one_core_per_destination(case):
    t = topology.build("fat-tree3", **CASES[case])
    pods, per_pod, aggs, cores, hpl = GEOMETRY[case]
    cables = model(pods, per_pod, aggs, cores)
    own = port_owner(t)
    fwd = shapes.get("fat-tree3").forwarding(t)
    table = {}
    for port, mac in fwd.entries:
        table.setdefault((own[port][0], mac), []).append(port)
    nics = t.nics_per_host
    used_cores = set()
    for h in t.hosts:
        for nic in h.nics:
            d = (h.number - 1) * nics + nic.index
            # The documented rule: up to aggregation switch d mod A, then core
            # (d mod A) G + (d div A) mod G, down the one way.
            group = cores // aggs
            core = f"core{(d % aggs) * group + (d // aggs) % group}"
            for src in t.levels[0]:
                path, s = [src], src
                while True:
                    ports = table.get((s, nic.mac), [])
                    assert len(ports) == 1, (s, nic.ip, ports)
                    s = own[ports[0]][1]
                    if s is None:
                        assert ports[0] == nic.port
                        break
                    path.append(s)
                if src == nic.leaf:
                    assert path == [src]
                    continue
                assert tuple(path) in shortest_paths(cables, src, nic.leaf)
                if len(path) == 5:          # another pod: always the same core
                    assert path[2] == core, (src, nic.ip, path)
                    used_cores.add(path[2])
    assert len(used_cores) == cores       # the destinations spread over every core


@pytest.mark.parametrize("case", CASES)
def test_ecmp_routes_are_every_shortest_path(case):
    t = topology.build("fat-tree3", routing="ecmp", **CASES[case])
    pods, per_pod, aggs, cores, hpl = GEOMETRY[case]
    cables = model(pods, per_pod, aggs, cores)
    own = port_owner(t)
    plan = routing.plan(t)
    table_of = {v: k for k, v in plan.tables.items()}
    routes = {(table_of[tb], dst): [port for _gw, port in hops] for tb, dst, hops in plan.routes}

    def paths(s, dst, leaf):
        if s == leaf:
            return [[s]]
        out = []
        for port in routes[(s, dst)]:
            out += [[s] + rest for rest in paths(own[port][1], dst, leaf)]
        return out

    for h in t.hosts:
        for nic in h.nics:
            dst = f"{nic.ip}/32"
            assert routes[(nic.leaf, dst)] == [nic.port]
            for src in t.levels[0]:
                if src != nic.leaf:
                    got = paths(src, dst, nic.leaf)
                    assert len(got) == len(set(map(tuple, got)))
                    assert set(map(tuple, got)) == shortest_paths(cables, src, nic.leaf)
    # Between pods: one path per core (each hashed twice, at the leaf and at
    # the aggregation switch); inside a pod one per aggregation switch.
    far = next(h for h in t.hosts if h.leaf == f"leaf{per_pod}")
    assert len(paths("leaf0", f"{far.nics[0].ip}/32", far.leaf)) == cores


@pytest.mark.parametrize("case", CASES)
def test_ecmp_gives_every_core_an_equal_share_of_the_hash(case):
    """The kernel's multipath choice, modelled here: nexthop i of a route
    with weights w takes the hashes up to (w_0 + ... + w_i) / sum(w) of the
    range, and every switch hashes a flow alike (one kernel, one seed).
    Following hash values spread evenly over the range from a leaf to a
    host of another pod, every core must take the same share."""
    t = topology.build("fat-tree3", routing="ecmp", **CASES[case])
    pods, per_pod, aggs, cores, hpl = GEOMETRY[case]
    own = port_owner(t)
    plan = routing.plan(t)
    table_of = {v: k for k, v in plan.tables.items()}
    routes = {(table_of[tb], dst): (tb, [port for _gw, port in hops]) for tb, dst, hops in plan.routes}
    far = next(h for h in t.hosts if h.leaf == f"leaf{per_pod}")
    dst = f"{far.nics[0].ip}/32"
    steps = 1 << 14
    share = {}
    for i in range(steps):
        x, s = (i + 0.5) / steps, "leaf0"
        while not s.startswith("core"):
            tb, ports = routes[(s, dst)]
            w = plan.weights.get((tb, dst), [1] * len(ports))
            bounds = [sum(w[:n + 1]) / sum(w) for n in range(len(w))]
            s = own[ports[next(n for n, b in enumerate(bounds) if x < b)]][1]
        share[s] = share.get(s, 0) + 1
    assert share == {f"core{c}": steps // cores for c in range(cores)} or \
        max(share.values()) - min(share.values()) <= 1 and len(share) == cores, share


def test_ecmp_withdraws_a_cut_core_link_everywhere():
    t = topology.build("fat-tree3", 4, hosts_per_leaf=2, pods=2, aggs=2, cores=4, routing="ecmp")
    # agg2 (pod 1, j=0) lost core1: pod 0 reaches pod 1's hosts through core1 no more.
    routes = {(tb, dst): [port for _gw, port in hops]
              for tb, dst, hops in routing.plan(t, {"a2c1", "c1a2"}).routes}
    tables = routing.plan(t).tables
    far = "198.19.0.3/32"                    # node03 on leaf1, pod 1
    assert routes[(tables["agg0"], far)] == ["a0c0"]          # core1 withdrawn
    assert routes[(tables["leaf0"], far)] == ["l0a0", "l0a1"]  # agg0 still reaches it
    assert (tables["core1"], far) not in routes   # core1: no way down to pod 1 (as a spine)
    assert routes[(tables["core1"], "198.19.0.1/32")] == ["c1a0"]


def test_existing_shapes_are_unchanged_by_levels():
    t = topology.build("fat-tree", 4, hosts_per_leaf=2, spines=2)
    assert "levels" not in t.params and t.levels == [["leaf0", "leaf1"], ["spine0", "spine1"]]
    assert topology.build("star", 3).levels == [["star"]]


@pytest.mark.parametrize("args, message", [
    (dict(k=5), "--k 5: expected an even number of 2 or more"),
    (dict(k=0), "--k 0: expected an even number of 2 or more"),
    (dict(k=10), "--k 10: 250 hosts, more than the testbed's 200"),
    (dict(k=4, pods=3), "--pods: --k 4 sets the pods"),
    (dict(hosts=8, k=4), "--hosts 8: --k 4 has 16 hosts"),
    (dict(hosts=8, pods=1), "--pods 1: a three-level tree needs 2 or more pods"),
    (dict(hosts=8, aggs=0), "--aggs 0: leaves the leaves with no uplink"),
    (dict(hosts=8, aggs=2, cores=3), "--cores 3: leaves an aggregation switch with no uplink"),
    (dict(hosts=8, aggs=2, cores=0), "--cores 0: leaves an aggregation switch with no uplink"),
    (dict(hosts=5), "--hosts 5: does not split into --pods 2 of one leaf each"),
    (dict(hosts=12, hosts_per_leaf=5), "--hosts-per-leaf 5: expected a divisor of --hosts 12"),
    (dict(hosts=12, hosts_per_leaf=2, pods=4), "--pods 4: 6 leaves (12 hosts, 2 per leaf) do not split"),
    (dict(hosts=200, hosts_per_leaf=1, pods=2, aggs=2), "fat-tree3 of 206 switches: more than the 128"),
    (dict(hosts=200, hosts_per_leaf=10, nics_per_host=8, pods=2, aggs=10, cores=80),
     "fat-tree3 of 2320 switch ports: more than the 2048"),
    (dict(hosts=8, core_taper=0), "--core-taper 0: expected a number > 0"),
    (dict(hosts=8, core_taper=1e6, host_rate="1mbit"), "--core-taper 1e+06: expected a number > 0 and at most 1000"),
    (dict(hosts=8, taper=100, core_taper=100, host_rate="1mbit"), "--core-taper 100 leaves level-1 uplinks below 8kbit"),
    (dict(hosts=8, aggs=1, cores=1, routing="ecmp"), "--routing ecmp: this fat-tree3 has one path"),
    (dict(hosts=2, k=2, routing="ecmp"), "--routing ecmp: this fat-tree3 has one path"),
])
def test_bad_shapes_refused(args, message):
    args = {"hosts": None, **args}
    with pytest.raises(GpcnetError) as e:
        topology.build("fat-tree3", args.pop("hosts"), **args)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_options_of_fat_tree3_refused_elsewhere():
    with pytest.raises(GpcnetError, match=r"--k: not an option of --topology fat-tree \(only of fat-tree3\)"):
        topology.build("fat-tree", 4, hosts_per_leaf=2, k=4)


@pytest.mark.parametrize("argv, word", [
    (["--topology", "fat-tree3", "--k", "3"], "--k 3"),
    (["--topology", "fat-tree3", "--hosts", "4", "--aggs", "1", "--cores", "1", "--routing", "ecmp"],
     "--routing ecmp"),
    (["--topology", "fat-tree3", "--k", "4", "--spines", "2"], "--spines: not an option"),
    (["--topology", "fat-tree", "--hosts", "4", "--hosts-per-leaf", "2", "--core-taper", "2"],
     "--core-taper: not an option"),
])
def test_up_refuses_in_one_line_exit_2_before_anything(argv, word, tmp_path):
    up_is_refused(argv, word, tmp_path)


def test_status_up_and_draw_describe_three_levels(tmp_path):
    from gpcnet.testbed import cli, draw
    t = topology.build("fat-tree3", None, k=4, taper=2, core_taper=2, host_rate="1gbit")
    assert cli._up_shape(t) == ("k=4: 4 pods x 2 leaves x 2 hosts, 2 aggregation switch(es) per "
                                "pod, 4 core(s), taper 2, core taper 2")
    assert cli._status_line(t) == ("fat-tree3: 16 hosts, host links 1gbit, uplinks 500mbit x 2 per "
                                   "leaf (taper 2), level-1 uplinks 250mbit x 2 per switch, queue "
                                   "pfifo 100 pkts, routing static")
    assert topology.Topology.from_dict(t.to_dict()) == t
    draw.save(t, str(tmp_path / "t.svg"))
    svg = (tmp_path / "t.svg").read_text()
    assert all(name in svg for name in ("core3", "agg7", "leaf7", "node16", "level-1 uplinks 250mbit"))


def test_the_study_reads_a_three_level_testbed():
    # gpcnet study's topology.conf of the running testbed and its leaf uplinks.
    from gpcnet.study import bully_capacity
    from gpcnet.study import topology as study_topology
    t = topology.build("fat-tree3", None, k=4, taper=2, host_rate="1gbit")
    tree = study_topology.parse(study_topology.testbed_text(t))
    assert [leaf.name for leaf in tree.leaves] == [f"leaf{i}" for i in range(8)]
    text = study_topology.testbed_text(t)
    assert "SwitchName=agg2 Switches=leaf2,leaf3" in text          # its pod's leaves only
    assert "SwitchName=core1 Switches=agg0,agg2,agg4,agg6" in text  # group 0: agg 0 of each pod
    # 2 uplinks of 500 Mbit/s per leaf = 1 host link (not the 12 switches above the leaves).
    assert bully_capacity.testbed_uplinks(t) == 1
