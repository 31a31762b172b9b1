"""gpcnet-bind: bind every rank of a node to one of its NICs, then exec the
benchmark (docs/running.md#multi-nic-nodes).

    mpirun -np 8 gpcnet-bind --nics eth1,eth2 -- ./network_test
    srun --ntasks-per-node=4 gpcnet-bind --nics-per-node 4 -- ./network_load_test

Refusals (a NIC this host does not have, no local rank from the launcher,
bad usage) are one line on stderr and exit status 2, before the benchmark
starts. Only the standard library is imported: this runs in every rank.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

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
                usage="gpcnet-bind (--nics A,B,... | --nics-per-node K) [--splitter S] "
                      "[--mpi M] [--show] -- PROGRAM [ARGS...]")
    which = p.add_mutually_exclusive_group(required=True)
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
    p.add_argument("--show", action="store_true",
                   help="print the rank's choice and variables instead of starting PROGRAM")
    p.add_argument("command", nargs=argparse.REMAINDER)
    return p


def _rank_label(env) -> str:
    rank = next((r for v in WORLD_RANK_VARS if (r := whole_number(env.get(v))) is not None), None)
    who = f"rank {rank}" if rank is not None else "a rank"
    return f"{who} on host {socket.gethostname()}"


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command and not args.show:
        _parser().error("no program to start: give it after --")
    if args.nics_per_node is not None and args.nics_per_node < 1:
        _parser().error(f"--nics-per-node must be at least 1, not {args.nics_per_node}")
    nics = [n.strip() for n in args.nics.split(",")] if args.nics is not None else None
    if nics is not None and (not all(nics) or len(set(nics)) != len(nics)):
        _parser().error(f"--nics {args.nics!r}: give distinct names, comma-separated")
    env = dict(os.environ)
    label = _rank_label(env)
    try:
        lrank = local_rank(env)
        node = node_nics(nics, args.nics_per_node, label)
        choice = choose(node, lrank, args.splitter, local_size(env))
    except BindError as e:
        sys.stderr.write(f"gpcnet-bind: {e}\n")
        return 2
    if lrank == 0:                        # once per node, not once per rank
        for note in choice.notes:
            sys.stderr.write(f"gpcnet-bind: {socket.gethostname()}: {note}\n")
    if args.show:
        print(f"{label}: local rank {lrank} -> NIC {choice.nic} (index {choice.index}; "
              f"{choice.how})")
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
