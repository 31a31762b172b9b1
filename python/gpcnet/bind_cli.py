"""gpcnet-bind: bind every rank of a node to one of its NICs, then exec the
benchmark (docs/running.md#multi-nic-nodes).

    mpirun -np 8 gpcnet-bind --nics eth1,eth2 -- ./network_test
    srun --ntasks-per-node=4 gpcnet-bind --nics-per-node 4 -- ./network_load_test

On the testbed it also puts the rank in a traffic class (docs/testbed.md#traffic-classes):

    gpcnet testbed run -- gpcnet-bind --traffic-class 1 -- ./network_load_test

Refusals (a NIC this host does not have, no local rank from the launcher,
bad usage) are one line on stderr and exit status 2, before the benchmark
starts. Only the standard library is imported: this runs in every rank.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

from gpcnet.binding import traffic_class
from gpcnet.text.number_text import whole_number
from gpcnet.binding.nic_bind import MPIS, SPLITTERS, BindError, bound_environment, choose, local_rank, \
    local_size, mpi_variables, node_nics

WORLD_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PALS_RANKID", "SLURM_PROCID")


class _Parser(argparse.ArgumentParser):
    def error(self, message):                 # one line, exit 2, no usage dump
        sys.stderr.write(f"gpcnet-bind: {message} (gpcnet-bind --help)\n")
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpcnet-bind", description=__doc__.split("\n\n")[0],
                usage="gpcnet-bind [--nics A,B,... | --nics-per-node K] [--splitter S] "
                      "[--mpi M] [--traffic-class K [--class-hosts H,...]] [--show] -- PROGRAM [ARGS...]")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--nics", help="the node's NICs, comma-separated: netdevs (eth1) or "
                       "RDMA ports as UCX names them (mlx5_0:1); index in the list = rail")
    which.add_argument("--nics-per-node", type=int, metavar="K",
                       help="the first K network interfaces of the host by name (lo left out)")
    p.add_argument("--splitter", choices=SPLITTERS, default="rr",
                   help="rr (default): local rank modulo K; nic: contiguous blocks of local "
                        "ranks; socket, numa: a NIC on the rank's own socket or NUMA node "
                        "(hwloc-calc, else /sys), round robin when that does not decide")
    p.add_argument("--mpi", choices=MPIS, default="all",
                   help="whose variables to set (default all: harmless to the others)")
    p.add_argument("--traffic-class", metavar="K",
                   help="testbed: join traffic class K (0 to N-1 of up --traffic-classes N): every TCP "
                        "connection of the rank and its children carries the class; default: "
                        f"${traffic_class.ENV} when set, else class 0")
    p.add_argument("--class-hosts", metavar="H1,H2,...",
                   help="join --traffic-class only on these hosts (by host name); ranks elsewhere stay "
                        "in class 0 (e.g. the canary nodes of a placement seed)")
    p.add_argument("--show", action="store_true",
                   help="print the rank's choice and variables instead of starting PROGRAM")
    p.add_argument("command", nargs=argparse.REMAINDER)
    return p


def _rank_label(env) -> str:
    rank = next((r for v in WORLD_RANK_VARS if (r := whole_number(env.get(v))) is not None), None)
    who = f"rank {rank}" if rank is not None else "a rank"
    return f"{who} on host {socket.gethostname()}"


def _class_only(args, command: list, env: dict, label: str, tclass: tuple) -> int:
    """No NIC to bind: the rank only joins its traffic class (number, and
    the option or variable that gave it)."""
    if args.show:
        traffic_class.join_check(*tclass)
        print(f"{label}: traffic class {tclass[0]}")
        return 0
    traffic_class.join(*tclass)
    try:
        os.execvpe(command[0], command, env)
    except OSError as e:
        sys.stderr.write(f"gpcnet-bind: {label}: cannot start {command[0]}: {e.strerror}\n")
        return 2


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command and not args.show:
        _parser().error("no program to start: give it after --")
    tclass_text, source = args.traffic_class, "--traffic-class"
    if tclass_text is None and os.environ.get(traffic_class.ENV, "").strip():
        tclass_text, source = os.environ[traffic_class.ENV], traffic_class.ENV
    if args.class_hosts is not None and args.traffic_class is None:
        _parser().error("--class-hosts needs --traffic-class K")
    if args.nics is None and args.nics_per_node is None and tclass_text is None:
        _parser().error("give --nics, --nics-per-node or --traffic-class (or set "
                        f"{traffic_class.ENV})")
    if args.nics_per_node is not None and args.nics_per_node < 1:
        _parser().error(f"--nics-per-node must be at least 1, not {args.nics_per_node}")
    nics = [n.strip() for n in args.nics.split(",")] if args.nics is not None else None
    if nics is not None and (not all(nics) or len(set(nics)) != len(nics)):
        _parser().error(f"--nics {args.nics!r}: give distinct names, comma-separated")
    env = dict(os.environ)
    label = _rank_label(env)
    try:
        tclass = None if tclass_text is None else traffic_class.parse(tclass_text, source)
        if tclass is not None:
            classes = traffic_class.join_check(tclass, source)   # refused before anything: no such class
            if args.class_hosts is not None and \
                    socket.gethostname() not in traffic_class.check_hosts(args.class_hosts, classes):
                tclass = 0                             # not one of the hosts named: the default class
            env[traffic_class.ENV] = str(tclass)
        if args.nics is None and args.nics_per_node is None:
            return _class_only(args, command, env, label, (tclass, source))
        lrank = local_rank(env)
        node = node_nics(nics, args.nics_per_node, label)
        choice = choose(node, lrank, args.splitter, local_size(env))
        if tclass is not None and not args.show:
            traffic_class.join(tclass, source)   # last: after every other refusal
    except BindError as e:
        sys.stderr.write(f"gpcnet-bind: {e}\n")
        return 2
    if lrank == 0:                        # once per node, not once per rank
        for note in choice.notes:
            sys.stderr.write(f"gpcnet-bind: {socket.gethostname()}: {note}\n")
    if args.show:
        print(f"{label}: local rank {lrank} -> NIC {choice.nic} (index {choice.index}; "
              f"{choice.how})" + (f", traffic class {tclass}" if tclass is not None else ""))
        for k, v in sorted(mpi_variables(choice.nic, args.mpi).items()):
            print(f"  {k}={v}")
        return 0
    try:
        os.execvpe(command[0], command, bound_environment(env, choice, args.mpi))
    except OSError as e:
        sys.stderr.write(f"gpcnet-bind: {label}: cannot start {command[0]}: {e.strerror}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
