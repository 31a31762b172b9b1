"""`gpcnet compare BASELINE.json RUN.json ...`: side by side, optionally a gate."""

from __future__ import annotations

import sys

from gpcnet.analysis import isolation
from gpcnet.analysis.compare import compare
from gpcnet.commands.common import EXIT_OK, EXIT_REGRESSION, add_repetition, labels, load_all
from gpcnet.infra.errors import GpcnetError


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help="compare runs side by side; optionally fail on regressions",
                       description="Show every canary value and Congestion Impact of each run side by side, "
                                   "with the ratio to the first run (the baseline). Runs are labelled by "
                                   "file name; runs whose file names repeat by the shortest part of their "
                                   "paths that tells them apart (o1/x.json, o2/x.json: o1, o2).")
    p.add_argument("runs", nargs="+", metavar="RUN.json", help="baseline first, then the runs to compare")
    p.add_argument("--fail-if-worse", type=float, metavar="PCT",
                   help="exit 1 if any metric is more than PCT percent worse than the baseline "
                        "(latency up, bandwidth down, CI up), listing them")
    p.add_argument("--isolation", action="store_true",
                   help="with exactly two load-test runs of the same seed, the first with canaries and "
                        "congestors in one traffic class and the second with the canaries in their own: "
                        "add, per canary, both Congestion Impacts, the share of the impact the class gave "
                        "back ((I1 - I2) / (I1 - 1)) and Welch's significance over the runs' repetitions")
    add_repetition(p, "compare the values of")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.fail_if_worse is not None and len(args.runs) < 2:
        # A gate with nothing to judge must not pass: a CI job that lost
        # its new run would otherwise go green.
        raise GpcnetError("--fail-if-worse needs a run to compare with the baseline "
                          "(gpcnet compare BASELINE.json RUN.json ... --fail-if-worse PCT)")
    if args.isolation and len(args.runs) != 2:
        raise GpcnetError(f"--isolation compares exactly two runs, got {len(args.runs)} "
                          "(gpcnet compare ONE_CLASS.json OWN_CLASS.json --isolation)")
    docs = load_all(args.runs)
    # The figure first: runs it refuses (another placement) print nothing.
    figure = isolation.rows(docs[0][1], docs[1][1]) if args.isolation else None
    text, regressions = compare(docs, args.fail_if_worse, args.repetition)
    sys.stdout.write(text)
    if args.isolation:
        sys.stdout.write("\n" + isolation.text(figure, (docs[0][0], docs[1][0]),
                                                     (docs[0][1], docs[1][1])))
    if regressions:
        print()
        print("\n".join(regressions))
        return EXIT_REGRESSION
    if args.fail_if_worse is not None:
        print(f"\nno metric is more than {args.fail_if_worse:g}% worse than {labels(args.runs)[0]}")
    return EXIT_OK
