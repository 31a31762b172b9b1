"""`gpcnet report RUN.json | STUDY.json`: one self-contained HTML file."""

from __future__ import annotations

from gpcnet.commands.common import EXIT_OK, add_force, preflight, source_name, write_output
from gpcnet.text import text_safe


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write a self-contained HTML report of one run",
                       description="Write one self-contained HTML file (inline SVG figures, no scripts, "
                                   "no external resources) with the run summary, tables, histograms, "
                                   "Congestion Impact beside the published systems and congestor results.")
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE",
                   help="HTML file to write (default: report.html)")
    add_force(p)
    p.set_defaults(func=run)


def run(args) -> int:
    # deferred: jsonschema, jinja2 and matplotlib load only when a report is written, not for --help
    from gpcnet.report import kinds
    from gpcnet import report as html_report
    kind, doc = kinds.read(args.run)
    preflight(args.output, args.force)
    if kind == kinds.STUDY:
        text = html_report.render_study(doc)
    else:
        text = html_report.render(doc, source_name(args.run))
    write_output(args.output, text, args.force)
    print(f"wrote {text_safe.path(args.output)}")
    return EXIT_OK
