"""Options and output shared by the studies' subcommands (`gpcnet study
corun | bully | scale`): counter sampling, the node list, progress lines."""

from __future__ import annotations

import math

from gpcnet.infra.errors import GpcnetError

DEFAULT_STALL_THRESHOLD = 1.0   # stalls per second (the paper's is a three-month system median: measure yours)


def sampling_options(p, whose: str) -> None:
    """--counters, --counter-interval, --stall-threshold (checked by check_sampling)."""
    p.add_argument("--counters", choices=["auto", "none"], default="auto",
                   help=f"sample the network counters of {whose} ports during each run (default auto)")
    p.add_argument("--counter-interval", type=float, default=1.0, metavar="SEC",
                   help="seconds between counter samples during a run (default 1, as the paper's LDMS)")
    p.add_argument("--stall-threshold", type=float, default=DEFAULT_STALL_THRESHOLD, metavar="PER_S",
                   help="drop a port's interval whose stalls per second are below this, as the paper "
                        "(default %(default)g: only stall-free intervals)")


def node_list_options(p, example: str) -> None:
    src = p.add_argument_group("node list (one of)")
    src.add_argument("--nodes", metavar="LIST", help=f"Slurm-style list, e.g. {example}")
    src.add_argument("--hostfile", metavar="FILE", help="first word of each line")
    src.add_argument("--slurm", action="store_true", help="the current allocation (scontrol show hostnames)")
    src.add_argument("--testbed", action="store_true", help="the hosts of the running gpcnet testbed")


def check_sampling(args) -> None:
    if not (math.isfinite(args.counter_interval) and args.counter_interval > 0):
        raise GpcnetError(f"--counter-interval {args.counter_interval:g}: expected seconds above 0 (e.g. 1)")
    if not (math.isfinite(args.stall_threshold) and args.stall_threshold >= 0):
        raise GpcnetError(f"--stall-threshold {args.stall_threshold:g}: expected stalls per second, 0 or more")


def say(message: str, stream=None) -> None:
    """A progress line (on standard output unless `stream`); a terminal that
    went away (SIGHUP) loses only the line."""
    try:
        print(message, flush=True, file=stream)
    except OSError:  # the terminal went away (SIGHUP): the study JSON still says it all
        pass
