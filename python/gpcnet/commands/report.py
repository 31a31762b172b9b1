"""`gpcnet report RUN.json | STUDY.json`: one self-contained HTML file."""

from __future__ import annotations

from gpcnet.commands.common import EXIT_OK, add_force, labels, load_all, preflight, source_name, write_output
from gpcnet.infra.errors import GpcnetError
from gpcnet.text import text_safe


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write a self-contained HTML report of one run",
                       description="Write one self-contained HTML file (inline SVG figures, no scripts, "
                                   "no external resources) with the run summary, tables, histograms, "
                                   "Congestion Impact beside the published systems and congestor results.")
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE",
                   help="HTML file to write (default: report.html)")
    p.add_argument("--one-class", metavar="ONE_CLASS.json",
                   help="RUN.json ran the canaries in their own traffic class; this run is the same seed "
                        "with every role in one class: add the isolation figure (each canary's Congestion "
                        "Impact in both, the share the class gave back, Welch's significance)")
    add_force(p)
    p.set_defaults(func=run)


def _isolation(args, doc: dict):
    """The isolation section: this run (canaries in their own class)
    against --one-class (every role in one class)."""
    # deferred, as in run()
    from gpcnet.analysis import isolation
    from gpcnet.report import isolation_view
    one_doc = load_all([args.one_class])[0][1]
    own_label, one_label = labels([args.run, args.one_class])  # told apart as compare tells them
    return isolation_view.section_body(isolation.rows(one_doc, doc), (one_label, own_label), (one_doc, doc))


def run(args) -> int:
    # deferred: jsonschema, jinja2 and matplotlib load only when a report is written, not for --help
    from gpcnet.report import kinds
    from gpcnet import report as html_report
    kind, doc = kinds.read(args.run)
    isolation_section = None
    if args.one_class is not None:
        if kind == kinds.STUDY:
            raise GpcnetError(f"--one-class: {text_safe.path(args.run)} is a study; the isolation figure "
                              "compares two network_load_test runs (gpcnet report OWN.json --one-class ONE.json)")
        isolation_section = _isolation(args, doc)
    preflight(args.output, args.force)
    if kind == kinds.STUDY:
        text = html_report.render_study(doc)
    else:
        text = html_report.render(doc, source_name(args.run), isolation_section)
    write_output(args.output, text, args.force)
    print(f"wrote {text_safe.path(args.output)}")
    return EXIT_OK
