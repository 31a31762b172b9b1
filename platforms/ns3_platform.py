#!/usr/bin/env python3
"""Write a SimGrid platform that SimGrid's ns-3 network model accepts.

The ns-3 binding of SimGrid 3.32 builds its network from one-hop routes
only: every <route> of exactly one link becomes an ns-3 point-to-point
link, longer routes are ignored, and ns-3's own global (shortest path)
routing carries packets across routers. A <cluster> zone other than a
flat one is refused ("NS-3 is supported only by flat clusters"). So the
platforms written here declare every host, router and link explicitly,
with one symmetrical one-hop <route> per cable, in a Floyd zone (which
also lets SimGrid's flow model run on the same file):

  star       N hosts on one switch
  fat-tree   L leaf switches of H hosts, S spine switches; each leaf has
             one cable to each spine, of bandwidth H*bw/(S*taper), so the
             leaf's uplinks carry 1/taper of what its hosts can inject
  dragonfly  G groups of A routers of P hosts; routers of a group all
             linked, one global cable between every pair of groups
             (spread round-robin over each group's routers)

Hosts are node-0 .. node-(N-1) (as in the other platforms/, so the
hostfiles and the rank placement read the same), with the scalable SMPI
settings of scripts/smpirun.sh in a <config> block. docs/portability.md
("Packet-level simulation") shows the use:

  python3 platforms/ns3_platform.py fat-tree --leaves 4 --hosts-per-leaf 4 \
      --spines 1 --taper 4 -o platforms/ns3-fat-tree-16-taper4.xml

Bad arguments: one line on stderr, exit 2, nothing written.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

# SimGrid units this script writes (and accepts for --bw / --lat).
_BW = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(GBps|MBps|kBps|Bps)$")
_LAT = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(s|ms|us|ns)$")
_BW_SCALE = {"GBps": 1e9, "MBps": 1e6, "kBps": 1e3, "Bps": 1.0}
_LAT_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}

SMPI_CONFIG = [("smpi/bcast", "binomial_tree"), ("smpi/reduce", "binomial"),
               ("smpi/allreduce", "rdb"), ("smpi/allgather", "bruck"),
               ("smpi/gather", "ompi_binomial"), ("smpi/barrier", "ompi_bruck"),
               ("smpi/shared-malloc", "local"), ("smpi/send-is-detached-thresh", "0")]


class UsageError(Exception):
    """Bad arguments: reported as one line, exit 2."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def bandwidth(text: str) -> float:
    m = _BW.match(text)
    if not m or float(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"bandwidth '{text}' is not a positive number with "
                                         "GBps, MBps, kBps or Bps")
    return float(m.group(1)) * _BW_SCALE[m.group(2)]


def latency(text: str) -> str:
    m = _LAT.match(text)
    if not m:
        raise argparse.ArgumentTypeError(f"latency '{text}' is not a number with s, ms, us or ns")
    return text


def count(text: str) -> int:
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return int(text)


def ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value >= 1.0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"taper '{text}' is not a number >= 1")
    return value


class Platform:
    """Hosts, routers and cables (one-hop symmetrical routes) of one zone."""

    def __init__(self):
        self.hosts: list[str] = []
        self.routers: list[str] = []
        self.cables: list[tuple[str, str, str, float]] = []  # link id, end a, end b, bytes/s

    def host(self) -> str:
        name = f"node-{len(self.hosts)}"
        self.hosts.append(name)
        return name

    def router(self, name: str) -> str:
        self.routers.append(name)
        return name

    def cable(self, a: str, b: str, bw: float) -> None:
        self.cables.append((f"{a}--{b}", a, b, bw))

    def xml(self, title: str, lat: str) -> str:
        out = ["<?xml version='1.0'?>",
               '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
               f"<!-- GPCNeT under SimGrid, for the ns-3 model (network/model:ns-3): {title}.",
               "     Written by platforms/ns3_platform.py: explicit hosts, routers and one",
               "     symmetrical one-hop route per cable (docs/portability.md). -->",
               '<platform version="4.1">', "  <config>"]
        out += [f'    <prop id="{k}" value="{v}"/>' for k, v in SMPI_CONFIG]
        out += ["  </config>", '  <zone id="world" routing="Floyd">']
        out += [f'    <host id="{h}" speed="100Gf" core="4"/>' for h in self.hosts]
        out += [f'    <router id="{r}"/>' for r in self.routers]
        out += [f'    <link id="{lid}" bandwidth="{round(bw)}Bps" latency="{lat}"/>'
                for lid, _, _, bw in self.cables]
        out += [f'    <route src="{a}" dst="{b}"><link_ctn id="{lid}"/></route>'
                for lid, a, b, _ in self.cables]
        out += ["  </zone>", "</platform>", ""]
        return "\n".join(out)


def star(args) -> tuple[Platform, str]:
    p = Platform()
    switch = p.router("switch")
    for _ in range(args.hosts):
        p.cable(p.host(), switch, args.bw)
    return p, f"star of {args.hosts} hosts on one switch"


def fat_tree(args) -> tuple[Platform, str]:
    p = Platform()
    spines = [p.router(f"spine-{s}") for s in range(args.spines)]
    up_bw = args.hosts_per_leaf * args.bw / (args.spines * args.taper)
    for leaf_index in range(args.leaves):
        leaf = p.router(f"leaf-{leaf_index}")
        for _ in range(args.hosts_per_leaf):
            p.cable(p.host(), leaf, args.bw)
        for spine in spines:
            p.cable(leaf, spine, up_bw)
    return p, (f"two-level fat-tree, {args.leaves} leaves of {args.hosts_per_leaf} hosts, "
               f"{args.spines} spines, taper {args.taper:g}:1")


def dragonfly(args) -> tuple[Platform, str]:
    if args.groups - 1 > args.routers * args.global_ports:
        raise UsageError(f"dragonfly: {args.groups} groups need {args.groups - 1} global ports "
                         f"per group, more than {args.routers} routers x {args.global_ports}")
    p = Platform()
    groups = []
    for g in range(args.groups):
        routers = [p.router(f"g{g}-r{r}") for r in range(args.routers)]
        for r in routers:
            for _ in range(args.hosts_per_router):
                p.cable(p.host(), r, args.bw)
        for i, a in enumerate(routers):
            for b in routers[i + 1:]:
                p.cable(a, b, args.bw)
        groups.append(routers)
    next_port = [0] * args.groups  # round-robin over each group's routers
    for g in range(args.groups):
        for h in range(g + 1, args.groups):
            a = groups[g][next_port[g] % args.routers]
            b = groups[h][next_port[h] % args.routers]
            next_port[g] += 1
            next_port[h] += 1
            p.cable(a, b, args.bw)
    return p, (f"dragonfly, {args.groups} groups of {args.routers} routers of "
               f"{args.hosts_per_router} hosts, one global cable per pair of groups")


def parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="ns3_platform.py", description=__doc__.split("\n\n")[0])
    common = OneLineParser(add_help=False)
    common.add_argument("-o", "--output", required=True, help="platform file to write")
    common.add_argument("--hostfile", help="also write a hostfile, one rank per host")
    common.add_argument("--bw", type=bandwidth, default=bandwidth("12.5GBps"),
                        help="host link bandwidth (default 12.5GBps = 100 Gb/s)")
    common.add_argument("--lat", type=latency, default="1us", help="latency per link (default 1us)")
    common.add_argument("--force", action="store_true", help="replace existing files")
    sub = ap.add_subparsers(dest="topology", required=True, parser_class=OneLineParser)
    s = sub.add_parser("star", parents=[common])
    s.add_argument("--hosts", type=count, required=True)
    f = sub.add_parser("fat-tree", parents=[common])
    f.add_argument("--leaves", type=count, required=True)
    f.add_argument("--hosts-per-leaf", type=count, required=True)
    f.add_argument("--spines", type=count, default=1)
    f.add_argument("--taper", type=ratio, default=1.0,
                   help="host bandwidth below a leaf / uplink bandwidth above it (>= 1)")
    d = sub.add_parser("dragonfly", parents=[common])
    d.add_argument("--groups", type=count, required=True)
    d.add_argument("--routers", type=count, required=True, help="routers per group")
    d.add_argument("--hosts-per-router", type=count, required=True)
    d.add_argument("--global-ports", type=count, default=1, help="global cables per router at most")
    return ap


BUILDERS = {"star": star, "fat-tree": fat_tree, "dragonfly": dragonfly}


def main(argv=None) -> int:
    try:
        args = parser().parse_args(argv)
        platform, title = BUILDERS[args.topology](args)
    except UsageError as e:
        print(f"ns3_platform.py: {e}", file=sys.stderr)
        return 2
    from gpcnet.infra import safe_write
    from gpcnet.infra.errors import GpcnetError
    try:
        safe_write.prepare(args.output, force=args.force)
        if args.hostfile:
            safe_write.prepare(args.hostfile, force=args.force)
        safe_write.write_text(args.output, platform.xml(title, args.lat), force=args.force)
        if args.hostfile:
            safe_write.write_text(args.hostfile, "".join(f"{h}\n" for h in platform.hosts),
                                  force=args.force)
    except GpcnetError as e:
        print(f"ns3_platform.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
