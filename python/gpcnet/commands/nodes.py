"""`gpcnet nodes RUN.json`: the per-node probe, and the nodes it names as slow."""

from __future__ import annotations

import json
import sys

from gpcnet.commands.common import EXIT_OK
from gpcnet.errors import GpcnetError

# The most of a node name the table shows (a host name has at most 255 bytes).
NAME_WIDTH = 255


def add_parser(sub) -> None:
    p = sub.add_parser("nodes", help="name the slow nodes of a --node-probe run (robust z-score)",
                       description="Every node's time per exchange in the per-node probe of a "
                                   "network_test or network_load_test run with --node-probe, its "
                                   "modified z-score over the nodes, and the nodes flagged as slow "
                                   "(z above the threshold and at least 1.5 times the median node; "
                                   "docs/method.md#naming-a-slow-node). Exit 0 whether or not a "
                                   "node is flagged.")
    p.add_argument("json", metavar="RUN.json", help="results JSON of a run with --node-probe")
    p.add_argument("--threshold", type=float, default=None, metavar="Z",
                   help="flag a node above this modified z-score (default 3.5)")
    p.add_argument("--json", dest="as_json", action="store_true",
                   help="print every node's value, z-score and flag as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from gpcnet import load, nodes
    threshold = nodes.THRESHOLD if args.threshold is None else args.threshold
    if not threshold > 0:
        raise GpcnetError(f"--threshold must be a positive number, not {args.threshold}")
    doc = load.load(args.json)
    if not nodes.has_probe(doc):
        raise GpcnetError(f"{args.json}: no per-node probe in this document "
                          "(run network_test or network_load_test with --node-probe ROUNDS)")
    rows = nodes.assess(doc, threshold)
    slow = nodes.slow_nodes(doc, threshold)
    if args.as_json:
        sys.stdout.write(json.dumps({"threshold": threshold, "nodes": rows,
                                     "slow": [s["name"] for s in slow]}, indent=1) + "\n")
        return EXIT_OK
    probe = doc["node_probe"]
    from gpcnet import number_text, text_safe  # names from the file escaped; extreme numbers bounded
    # Cut too: the table pads every name to the longest, so one name of a
    # million characters would make every line that long.
    rows, slow = ([dict(r, name=text_safe.terminal(text_safe.shorten(r["name"], NAME_WIDTH))) for r in group]
                  for group in (rows, slow))
    print(f"Per-node probe: {len(rows)} nodes, {probe['rounds']} rounds of {probe['exchanges']} "
          f"exchanges of {probe['bytes']} bytes each way ({number_text.fixed(probe['wall_s'], 2)} s)")
    width = max([len("node")] + [len(r["name"]) for r in rows])
    print(f"{'node':<{width}}  {'usec/exchange':>14}  {'z':>8}")
    for r in rows:
        usec, z = number_text.fixed(r["usec"]), number_text.fixed(r["z"])
        print(f"{r['name']:<{width}}  {usec:>14}  {z:>8}{'  SLOW' if r['slow'] else ''}")
    if slow:
        print("Slow nodes: " + ", ".join(f"{s['name']} (z {number_text.fixed(s['z'])})" for s in slow))
    else:
        print(f"Slow nodes: none (no node above z {threshold:g} and {nodes.MIN_RATIO:g}x the median"
              + (f"; {nodes.MIN_NODES} nodes needed" if len(rows) < nodes.MIN_NODES else "") + ")")
    return EXIT_OK
