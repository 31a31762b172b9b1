"""`gpcnet testbed ...`: the command line of the emulated cluster."""

from __future__ import annotations

import argparse
import math
import sys
import time

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import exit_code, ignoring_termination, terminate_as_interrupt
from gpcnet.testbed import (classes, counters, draw, faults, fidelity, launch, netns, rails,
                            run_fidelity, shapes, slurm, teardown, topology)
from gpcnet.testbed.topology import format_rate

def _shape_help() -> str:
    """Each shape's sentence, in the registry's order."""
    return " ".join(shapes.get(name).help for name in shapes.names())


def _shape_list() -> str:
    """'star, fat-tree or rail': the registry's shapes."""
    *first, last = shapes.names()
    return f"{', '.join(first)} or {last}" if first else last


def _add_shape(p) -> None:
    g = p.add_argument_group("topology")
    g.add_argument("--topology", default="star", metavar="KIND",
                   help=f"{_shape_list()} (default: star)")
    g.add_argument("--routing", default="static", metavar="MODE",
                   help="static: switches forward by destination, one spine per destination "
                        "(InfiniBand-like); ecmp: switches route, each flow hashed over every "
                        "spine by its addresses and ports (a RoCE/Ethernet Clos); ecmp needs "
                        "--spines 2 or more (default: static)")
    g.add_argument("--nics-per-host", default="1", metavar="K",
                   help="data NICs per host, 1 to 8 (default: 1); rail: 2 or more, one per rail")
    g.add_argument("--hosts", type=int, default=None, metavar="N",
                   help="number of hosts (default: 10; fat-tree3 --k K: K^3/4)")
    g.add_argument("--hosts-per-leaf", type=int, default=0, metavar="N",
                   help="fat-tree: hosts per leaf switch; rail: hosts per leaf of each rail (default: all)")
    g.add_argument("--spines", type=int, default=None, metavar="N",
                   help="fat-tree and rail: spine switches (default: 1)")
    g.add_argument("--taper", type=float, default=1.0, metavar="T",
                   help="fat-tree and rail: host ports' bandwidth / uplink bandwidth per leaf (default: 1)")
    g.add_argument("--k", type=int, default=None, metavar="K",
                   help="fat-tree3: the k-ary three-level tree (K even: K pods of K/2 leaves and "
                        "K/2 aggregation switches, (K/2)^2 cores, K/2 hosts per leaf)")
    g.add_argument("--pods", type=int, default=None, metavar="N",
                   help="fat-tree3 without --k: pods (default: 2), the leaves split evenly over them")
    g.add_argument("--aggs", type=int, default=None, metavar="N",
                   help="fat-tree3 without --k: aggregation switches per pod, each cabled to every "
                        "leaf of its pod (default: 2)")
    g.add_argument("--cores", type=int, default=None, metavar="N",
                   help="fat-tree3 without --k: core switches, a multiple of --aggs (aggregation "
                        "switch j of every pod is cabled to core group j; default: --aggs)")
    g.add_argument("--core-taper", type=float, default=None, metavar="T",
                   help="fat-tree3: bandwidth from an aggregation switch's leaves / its uplink "
                        "bandwidth to the cores (default: 1)")
    g.add_argument("--host-rate", default="1gbit", metavar="RATE",
                   help="host link rate, e.g. 100mbit, 1gbit, none (default: 1gbit)")
    g.add_argument("--host-delay", default="0", metavar="T", help="host link delay, e.g. 50us (needs netem)")
    g.add_argument("--uplink-delay", default="0", metavar="T", help="leaf-spine link delay (needs netem)")
    g.add_argument("--qdisc", default="pfifo", metavar="Q",
                   help="switch port queue: pfifo, fq_codel, codel (default: pfifo)")
    g.add_argument("--ecn", action="store_true", help="ECN marking by fq_codel/codel instead of dropping")
    g.add_argument("--queue", type=int, default=100, metavar="PKTS",
                   help="switch port queue length in packets (default: 100)")


def _topology(args):
    spines = 1 if args.spines is None else args.spines
    if args.spines is not None and args.topology in topology.TOPOLOGIES \
            and not shapes.get(args.topology).takes_spines:
        raise GpcnetError(f"--spines: not an option of --topology {args.topology} "
                          "(its switches above the leaves are --aggs and --cores)")
    return topology.build(args.topology, args.hosts, args.hosts_per_leaf, spines, args.taper,
                          args.host_rate, args.host_delay, args.uplink_delay, args.qdisc,
                          args.ecn, args.queue, args.nics_per_host, args.routing,
                          k=args.k, pods=args.pods, aggs=args.aggs, cores=args.cores,
                          core_taper=args.core_taper)


def cmd_up(args) -> int:
    topo = _topology(args)          # bad shapes are refused before anything exists
    topo.classes = classes.plan(args.traffic_classes, args.class_scheduler, args.class_weights)
    classes.check_rates(topo.classes, topo)
    netns.require_root("gpcnet testbed up")
    lock = netns.change_lock()  # noqa: F841 (held until exit)
    if netns.load_state() is not None or netns.leftovers():
        if not args.force:
            raise GpcnetError("a testbed is already up; `gpcnet testbed down` first, "
                              "or `up --force` to replace it")
        teardown.destroy()
    try:
        with terminate_as_interrupt():  # SIGTERM/SIGHUP midway: remove what was built, as on Ctrl-C
            netns.create(topo)
            launch.write_launch_files(topo)
            if args.slurm:
                slurm.start(topo)
    except KeyboardInterrupt as e:
        with ignoring_termination():
            teardown.destroy()
        return exit_code(e)
    except BaseException:
        with ignoring_termination():
            teardown.destroy()         # a failed up leaves nothing behind
        raise
    shape = _up_shape(topo)
    print(f"testbed up: {args.topology}, {len(topo.hosts)} hosts ({topo.hosts[0].name}..."
          f"{topo.hosts[-1].name}), {shape}, routing {topo.routing}; data {topo.hosts[0].data_ip}.., "
          f"management {topo.hosts[0].mgmt_ip}..{' ; slurm up' if args.slurm else ''}"
          + (f"; {classes.describe(topo.classes)}" if topo.classes else ""))
    return 0


def _up_shape(topo) -> str:
    """What `up` says of the shape: the shape's own words."""
    return shapes.get(topo.kind).summary(topo)


def _status_line(topo) -> str:
    """The first line of `status`: the links' rates and the queues."""
    p = topo.params
    trunks = [link.a.switch for link in topo.links if link.a.tier == "uplink"]
    per_leaf = trunks.count(trunks[0]) if trunks else 0
    return (f"{topo.kind}: {len(topo.hosts)} hosts, host links {format_rate(p['host_rate'])}"
            + (f", uplinks {format_rate(p['uplink_rate'])} x {per_leaf} per leaf (taper {p['taper']:g})"
               if trunks else "") + _upper_levels(topo) + f", queue {topo.qdisc} {topo.queue} pkts"
            + (" ecn" if topo.ecn else "") + f", routing {topo.routing}"
            + (f", {classes.describe(topo.classes)}" if topo.classes else ""))


def _upper_levels(topo) -> str:
    """The uplinks of each level above the first (none in a two-level shape)."""
    text = ""
    rates = topo.params.get("level_uplink_rates", [])
    for lv, switches in enumerate(topo.levels[1:-1], start=1):
        ups = [link.a.switch for link in topo.links
               if link.a.tier == "uplink" and link.a.switch in switches]
        text += (f", level-{lv} uplinks {format_rate(rates[lv])} x {ups.count(ups[0])} per switch"
                 if ups else "")
    return text


def cmd_down(args) -> int:
    netns.require_root("gpcnet testbed down")
    lock = netns.change_lock()  # noqa: F841 (held until exit)
    if args.if_owner is not None:
        up = _owner_of_running(netns)
        if up is not _NONE_UP and up != args.if_owner:
            print(f"testbed down: left up (brought up by {up or 'someone without an owner label'}, "
                  f"not {args.if_owner})")
            return 0
    removed = teardown.destroy()
    print(f"testbed down: removed {len(removed)} namespaces" if removed else "no testbed was up")
    return 0


_NONE_UP = object()


def _owner_of_running(netns):
    """The owner label of the testbed that is up, None if it has none, or
    _NONE_UP when no testbed (nor any part of one) is there."""
    try:
        st = netns.load_state()
    except GpcnetError:
        return None   # unreadable state: nobody's label matches it
    if st is None:
        return None if netns.leftovers() else _NONE_UP
    return st.get("owner")


def cmd_status(args) -> int:
    netns.require_root("gpcnet testbed status")
    topo = launch.current()
    snap = counters.sample(topo)
    in_force = faults.load()
    if args.json:
        extra = {}
        if topo.nics_per_host > 1:
            extra = rails.summary(topo, snap["ports"])
        counters.write(args.json, args.force, {"topology": topo.params, "kind": topo.kind,
                                               "routing": topo.routing,
                                               "faults": in_force, **snap, **extra})
    print(_status_line(topo))
    print("faults: " + ("; ".join(faults.describe(f) for f in in_force) if in_force else "none"))
    label = _owner_of_running(netns)
    if isinstance(label, str):
        print(f"owner: {label}")
    sys.stdout.write(counters.render(snap["ports"], only_switches=not args.all_ports))
    if args.counters:
        sys.stdout.write(classes.render(snap["ports"]) if topo.classes else
                         "traffic classes: none (gpcnet testbed up --traffic-classes N)\n")
    if topo.nics_per_host > 1:
        sys.stdout.write(rails.render(rails.summary(topo, snap["ports"])))
    return 0


def cmd_run(args) -> int:
    interval = _counters_interval(args)   # bad values: exit 2 before anything else
    netns.require_root("gpcnet testbed run")
    topo = launch.current()
    command = args.job[1:] if args.job[:1] == ["--"] else args.job
    if args.ppn < 1:
        raise GpcnetError(f"--ppn {args.ppn}: expected 1 or more")
    rails.check_placement(topo, args.placement)
    # Every run on a multi-NIC testbed sets its placement (none: neighbours
    # learnt by ARP), so a run never inherits an earlier run's.
    rails.place(topo, args.placement)
    try:
        before = counters.sample(topo) if args.counters else None
        started = time.time()
        # The switch ports are sampled for the fidelity check in any case;
        # the series goes into --counters FILE only with --counters-interval.
        with run_fidelity.measured(topo, interval) as measured:
            rc = launch.run(topo, args.ppn, command, mpi=args.mpi, once=args.no_mpi,
                            timeout=args.timeout)
        fid = measured["fidelity"]
        if args.counters:
            after = counters.sample(topo)
            doc = {"routing": topo.routing, "before": before, "after": after,
                   "delta": counters.delta(before, after)}
            if topo.nics_per_host > 1:
                doc["placement"] = args.placement
                doc["delta"].update(rails.summary(topo, doc["delta"]["ports"]))
            doc = {**doc, "series": measured["series"]} if interval else doc
            counters.write(args.counters, args.force, {**doc, "fidelity": fid})
        # The footer follows a run of our programs only: the output of
        # other commands (sinfo, a script) is left as scripts read it.
        paths = run_fidelity.results_paths(command)
        if paths:
            notes = [run_fidelity.attach(p, fid, started) for p in paths]
            sys.stdout.flush()
            sys.stdout.write(fidelity.footer(fid) + "".join(f"  {n}\n" for n in notes))
    finally:
        if args.placement:
            with ignoring_termination():
                rails.place(topo, None)
    return rc


def _counters_interval(args):
    """--counters-interval SEC: seconds in [0.01, 3600], with --counters."""
    if args.counters_interval is None:
        return None
    try:
        sec = float(args.counters_interval)
    except ValueError:
        sec = math.nan
    if not (math.isfinite(sec) and 0.01 <= sec <= 3600):
        raise GpcnetError(f"--counters-interval {args.counters_interval}: expected seconds between 0.01 "
                          "and 3600, e.g. 0.1")
    if not args.counters:
        raise GpcnetError("--counters-interval needs --counters FILE (where the series goes)")
    return sec


def cmd_hostfile(args) -> int:
    sys.stdout.write(launch.hostfile_text(launch.current(), args.slots))
    return 0


def cmd_draw(args) -> int:
    topo = _topology(args) if args.topology else launch.current()
    draw.save(topo, args.output)
    print(f"wrote {args.output}")
    return 0


def add_parser(sub) -> None:
    tb = sub.add_parser("testbed", help="an emulated cluster on this machine (root): hosts, switches, Slurm",
                        description="A small cluster inside this Linux machine: one network namespace "
                                    "per host (own host name), Linux bridges as switches, veth links "
                                    "with tc rates and queues, a management network for launchers and "
                                    "daemons and a data fabric for MPI. Needs root. See docs/testbed.md.")
    tsub = tb.add_subparsers(dest="testbed_command", metavar="ACTION", required=True)

    p = tsub.add_parser("up", help="create the testbed", description="Create the testbed. " + _shape_help())
    _add_shape(p)
    p.add_argument("--slurm", action="store_true",
                   help="also start munge, slurmctld (head) and one slurmd per host")
    p.add_argument("--force", action="store_true", help="replace a testbed that is already up")
    g = p.add_argument_group("traffic classes (docs/testbed.md#traffic-classes)")
    g.add_argument("--traffic-classes", metavar="N",
                   help="2 to 8 traffic classes on every switch port, a packet's class being its IP "
                        "precedence (DSCP CSk); a rank joins class K with gpcnet-bind --traffic-class K "
                        "(default: no classes, one queue per port)")
    g.add_argument("--class-scheduler", metavar="S",
                   help="strict (the highest class first; the default) or weighted (needs --class-weights)")
    g.add_argument("--class-weights", metavar="W0,W1,...",
                   help="weighted sharing: one whole percentage per class, class 0 first, summing to "
                        "100, e.g. 70,30 (implies --class-scheduler weighted)")
    p.set_defaults(func=cmd_up)

    p = tsub.add_parser("down", help="remove every namespace, link and process of the testbed")
    p.add_argument("--if-owner", metavar="LABEL",
                   help="remove it only if it was brought up with GPCNET_TESTBED_OWNER=LABEL "
                        "(or nothing is up); otherwise leave it and exit 0 (for scripts and test "
                        "runs that share a machine)")
    p.set_defaults(func=cmd_down)

    p = tsub.add_parser("status", help="topology and per-port counters (bytes, packets, drops, backlog, overlimits)")
    p.add_argument("--json", metavar="FILE", help="also write the counters to this JSON file")
    p.add_argument("--all-ports", action="store_true", help="include the hosts' NIC queues")
    p.add_argument("--counters", action="store_true",
                   help="also the per-class counters of every switch port (bytes, packets, drops, "
                        "backlog) of a testbed with --traffic-classes")
    p.add_argument("--force", action="store_true", help="replace an existing --json file")
    p.set_defaults(func=cmd_status)

    p = tsub.add_parser("run", help="run an MPI job on the testbed hosts (Open MPI or MPICH)",
                        description="Run COMMAND on every testbed host with mpirun, or MPICH's Hydra "
                                    "with --mpi mpich (from the head node, daemons over the management "
                                    "network, MPI over the data fabric). A run of network_test, "
                                    "network_load_test or network_congestor ends with its emulation "
                                    "fidelity (faithful, or host-bound: the host's CPUs, not the fabric, "
                                    "set the numbers), also added to its results JSON. Example: gpcnet "
                                    "testbed run --ppn 2 -- ./network_test")
    p.add_argument("--ppn", type=int, default=1, metavar="N", help="ranks per host (default: 1)")
    p.add_argument("--force", action="store_true", help="replace an existing --counters file")
    p.add_argument("--counters", metavar="FILE",
                   help="write the port counters before, after and their difference (and the run's "
                        "emulation fidelity) to this JSON file")
    p.add_argument("--timeout", type=float, metavar="SEC", help="give up (and end the job) after SEC seconds")
    p.add_argument("--counters-interval", metavar="SEC",
                   help="with --counters: also sample every switch port every SEC seconds during the "
                        "job (0.01 to 3600) into the file's series: per interval bytes, packets, drops, "
                        "overlimits and backlog, timed from the job's start")
    p.add_argument("--mpi", choices=("openmpi", "mpich"), default="openmpi",
                   help="launcher: openmpi (Debian's mpirun, the default) or mpich (Hydra of the MPICH "
                        "scripts/setup-testbed.sh installs, ch4:ofi over TCP on the data NIC; programs "
                        "built with scripts/build.sh --mpi mpich-ofi)")
    p.add_argument("--placement", metavar="KIND",
                   help="multi-NIC testbeds: same-rail (every message lands at the receiver's NIC of "
                        "the rail it left by: no spine) or cross-rail (at the receiver's NIC of the "
                        "next rail: every message between hosts crosses a spine), for this run; "
                        "canaries and congestors alike")
    p.add_argument("--no-mpi", action="store_true",
                   help="run COMMAND once on the head node instead (e.g. sbatch, srun), in the "
                        "environment of --mpi's jobs")
    p.add_argument("job", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    p.set_defaults(func=cmd_run)

    faults.add_parser(tsub)

    p = tsub.add_parser("hostfile", help="print an Open MPI hostfile of the testbed hosts")
    p.add_argument("--slots", type=int, default=1, metavar="N", help="slots per host (default: 1)")
    p.set_defaults(func=cmd_hostfile)

    p = tsub.add_parser("draw", help="draw the topology to SVG/PNG/PDF",
                        description="Draw the running testbed, or the one the topology options describe.")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="e.g. topology.svg")
    _add_shape(p)
    p.set_defaults(func=cmd_draw, topology=None)
    for a in p._actions:
        if a.dest == "topology":
            a.default = None
            a.help = f"{_shape_list()} (default: the running testbed)"
