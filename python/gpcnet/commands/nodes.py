"""`gpcnet nodes RUN.json`: the per-node probe and the nodes it names as
slow; the canaries per NIC (runs started through gpcnet-bind) and the NICs
named as slow."""

from __future__ import annotations

import json
import sys

from gpcnet.commands.common import EXIT_OK
from gpcnet.infra.errors import GpcnetError
from gpcnet.text import number_text, text_safe  # names from the file escaped; extreme numbers bounded


def add_parser(sub) -> None:
    p = sub.add_parser("nodes", help="name the slow nodes of a --node-probe run and the slow NICs "
                                     "of a gpcnet-bind run (robust z-score)",
                       description="Every node's time per exchange in the per-node probe of a "
                                   "network_test or network_load_test run with --node-probe, its "
                                   "modified z-score over the nodes, and the nodes flagged as slow "
                                   "(z above the threshold and at least 1.5 times the median node; "
                                   "docs/method.md#naming-a-slow-node); with ranks started "
                                   "through gpcnet-bind, the canaries' Avg and 99% per rail and "
                                   "per NIC, and with --node-probe the NICs' probe and the NICs "
                                   "flagged as slow by the same rule "
                                   "(docs/method.md#multi-nic-nodes). Exit 0 whether or not a "
                                   "node or NIC is flagged.")
    p.add_argument("json", metavar="RUN.json",
                   help="results JSON of a run with --node-probe or through gpcnet-bind")
    p.add_argument("--threshold", type=float, default=None, metavar="Z",
                   help="flag a node above this modified z-score (default 3.5)")
    p.add_argument("--json", dest="as_json", action="store_true",
                   help="print every node's value, z-score and flag as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    # deferred: numpy (and jsonschema) load only when the command runs, not for --help
    from gpcnet.analysis import nics, nodes
    from gpcnet.results_json import load
    threshold = nodes.THRESHOLD if args.threshold is None else args.threshold
    if not threshold > 0:
        raise GpcnetError(f"--threshold must be a positive number, not {args.threshold}")
    doc = load.load(args.json)
    if not nodes.has_probe(doc) and not nics.has_nics(doc):
        raise GpcnetError(f"{args.json}: no per-node probe in this document "
                          "(run network_test or network_load_test with --node-probe ROUNDS)"
                          " and no per-NIC results (start the ranks through gpcnet-bind)")
    rows = nodes.assess(doc, threshold)
    slow = nodes.slow_nodes(doc, threshold)
    if args.as_json:
        out = {"threshold": threshold, "nodes": rows, "slow": [s["name"] for s in slow]}
        if nics.has_nics(doc):
            out.update(nic_canaries=nics.canaries(doc), nics=nics.assess(doc, threshold),
                       slow_nics=[s["label"] for s in nics.slow_nics(doc, threshold)])
        # Written as it is encoded: joined first, a document of 84,800
        # NICs made 2 GB of string pieces (tests/security/test_machine_scale.py).
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return EXIT_OK
    if nodes.has_probe(doc):
        _print_probe(doc, rows, slow, threshold)
    if nics.has_nics(doc):
        _print_nics(doc, threshold)
    return EXIT_OK


def _print_probe(doc: dict, rows: list, slow: list, threshold: float) -> None:
    # deferred: numpy loads only when the command runs, not for --help
    from gpcnet.analysis import nodes
    probe = doc["node_probe"]
    # Cut too: the table pads every name to the longest, so one name of a
    # million characters would make every line that long.
    rows, slow = ([dict(r, name=text_safe.name(r["name"])) for r in group]
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


def _print_nics(doc: dict, threshold: float) -> None:
    """Per canary test each rail's and each NIC's Avg and 99%; the NIC
    probe with every NIC's z-score; the slow NICs."""
    # deferred: numpy loads only when the command runs, not for --help
    from gpcnet.analysis import nics, nodes
    def name(text) -> str:
        return text_safe.name(text)
    print(f"Per-NIC canaries (gpcnet-bind): {doc['nics'].get('rails')} rails")
    for t in nics.canaries(doc):
        print(f"{name(t.get('table'))} (repetition {t.get('repetition')}): {name(t['name'])} "
              f"[{name(t.get('unit'))}]")
        for r in t.get("rails") or []:
            print(f"  rail {r.get('rail')}: avg {number_text.fixed(r.get('avg'))}  "
                  f"99% {number_text.fixed(r.get('p99'))}  ({r.get('ranks')} ranks)")
        width = max([len("node/nic")] + [len(name(n["label"])) for n in t["nics"]])
        print(f"  {'node/nic':<{width}}  {'rail':>4}  {'avg':>12}  {'99%':>12}")
        for n in t["nics"]:
            print(f"  {name(n['label']):<{width}}  {str(n.get('rail')):>4}  "
                  f"{number_text.fixed(n.get('avg')):>12}  {number_text.fixed(n.get('p99')):>12}")
    if not nics.has_probe(doc):
        print("Slow NICs: not assessed (the canaries' rings pace every NIC to the slowest; "
              "run with --node-probe ROUNDS to probe every NIC)")
        return
    probe = doc["nics"]["probe"]
    rows = nics.assess(doc, threshold)
    print(f"Per-NIC probe: {len(rows)} NICs, {probe['rounds']} rounds of {probe['exchanges']} "
          f"exchanges of {probe['bytes']} bytes each way per rail "
          f"({number_text.fixed(probe['wall_s'], 2)} s)")
    width = max([len("node/nic")] + [len(name(r["label"])) for r in rows])
    print(f"{'node/nic':<{width}}  {'rail':>4}  {'usec/exchange':>14}  {'z':>8}")
    for r in rows:
        print(f"{name(r['label']):<{width}}  {str(r['rail']):>4}  {number_text.fixed(r['usec']):>14}  "
              f"{number_text.fixed(r['z']):>8}{'  SLOW' if r['slow'] else ''}")
    slow = nics.slow_nics(doc, threshold)
    if slow:
        print("Slow NICs: " + ", ".join(f"{name(s['label'])} (z {number_text.fixed(s['z'])})"
                                        for s in slow))
    else:
        print(f"Slow NICs: none (no NIC above z {threshold:g} and {nodes.MIN_RATIO:g}x the median"
              + (f"; {nodes.MIN_NODES} NICs needed" if len(rows) < nodes.MIN_NODES else "") + ")")
