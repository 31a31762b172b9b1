"""`gpcnet table RUN.json ...`: runs as rows of the paper's Table 2."""

from __future__ import annotations

import sys

from gpcnet.analysis.table import render
from gpcnet.commands.common import EXIT_OK, add_force, add_repetition, load_all, write_output
from gpcnet.results_json import results


def add_parser(sub) -> None:
    p = sub.add_parser("table", help="runs as rows in the layout of the paper's Table 2",
                       description="One row per run: isolated Avg, loaded Avg, isolated 99%%, loaded 99%% "
                                   "for Lat, BW (BW+Sync) and Allreduce, as in the SC'19 paper's Table 2.")
    p.add_argument("runs", nargs="+", metavar="RUN.json")
    p.add_argument("--format", choices=["md", "csv", "latex"], default="md", help="default: md")
    p.add_argument("--published", action="store_true", help="append the published systems' rows")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    add_force(p)
    add_repetition(p, "one row from")
    p.set_defaults(func=run)


def run(args) -> int:
    runs = load_all(args.runs)
    text = render(runs, args.format, args.published, args.repetition)
    # On stderr: stdout is the table, which may be CSV or LaTeX.
    for label, doc in runs:
        note = results.repetition_note(label, doc, args.repetition)
        if note:
            print(note, file=sys.stderr)
    if args.output:
        write_output(args.output, text, args.force)
    else:
        sys.stdout.write(text)
    return EXIT_OK
