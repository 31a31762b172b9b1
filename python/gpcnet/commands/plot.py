"""`gpcnet plot RUN.json --kind ... -o FILE`: one figure to PNG, SVG or PDF."""

from __future__ import annotations

import sys

from gpcnet.commands.common import EXIT_OK, add_force, add_repetition, preflight, write_output
from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import results
from gpcnet.text import text_safe

KINDS = ("hist", "ci", "sweep", "matrix", "repeats", "timeline", "recovery")


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="draw one figure to PNG, SVG or PDF",
                       description="hist: per-test histograms isolated vs loaded (paper Figures 1-3); "
                                   "ci: Congestion Impact beside the published systems (Figure 11); "
                                   "sweep: histograms isolated, under each congestor alone and under all "
                                   "(--congestor-sweep; paper Figures 4-5); "
                                   "matrix: the congestor impact matrix (--congestor-sweep); "
                                   "repeats: spread of every value across the repetitions (--repeat); "
                                   "timeline: the canaries over time with the bursts shaded, optionally "
                                   "with the testbed's port counters (--timeline); "
                                   "recovery: the recovery time after bursts (--timeline).")
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("--kind", choices=list(KINDS), required=True)
    p.add_argument("--test", action="append", metavar="ID",
                   help="hist, sweep, timeline: only this test id (repeatable), e.g. rr_two_sided_lat")
    p.add_argument("--counters", metavar="FILE",
                   help="timeline: also draw a port's Mbit/s from this file of gpcnet testbed run "
                        "--counters FILE --counters-interval SEC, on a second axis")
    p.add_argument("--port", action="append", metavar="KEY",
                   help="timeline with --counters: this port (repeatable, e.g. leaf1/l1s0; default: "
                        "the uplink that sent the most)")
    add_repetition(p, "hist, ci, sweep, timeline, recovery: draw")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="output file; the format follows the extension (.png, .svg, .pdf)")
    add_force(p)
    p.set_defaults(func=run)


def _check_tests(args, doc: dict) -> None:
    if not results.has_histograms(doc):
        raise GpcnetError(f"{args.run}: no histograms to plot"
                          + (" (parsed from text output)" if doc["source"] == "text" else ""))
    known = results.canary_tests(doc, args.repetition)
    for test in args.test or []:
        if test not in known:
            raise GpcnetError(f"{args.run}: no test {test!r}; it has {', '.join(known)}")


def _figure(args, doc: dict):
    # deferred: matplotlib loads only when a figure is drawn, not for --help
    from gpcnet.plots import figures, sweep_figures
    if args.kind == "hist":
        return figures.histogram_figure(doc, args.test or None, args.repetition)
    if args.kind == "sweep":
        if not results.sweep_kernels(doc, args.repetition):
            raise GpcnetError(f"{args.run}: no congestor sweep to plot (run network_load_test --congestor-sweep)")
        return sweep_figures.sweep_figure(doc, args.test or None, args.repetition)
    if args.kind == "ci":
        if not results.impacts(doc, args.repetition):
            raise GpcnetError(f"{args.run}: no Congestion Impact to plot ({doc['program']} run)")
        return figures.ci_figure(doc, args.repetition)
    if args.kind in ("timeline", "recovery"):
        return _timeline_figure(args, doc)
    if args.kind == "repeats":
        if not (doc.get("repeats") or {}).get("metrics"):
            raise GpcnetError(f"{args.run}: no per-repetition values to plot (run network_load_test --repeat N)")
        return sweep_figures.repeats_figure(doc)
    if not doc.get("impact_matrix"):
        raise GpcnetError(f"{args.run}: no impact_matrix to plot")
    return figures.impact_matrix_figure(doc)


def _timeline_figure(args, doc: dict):
    # deferred: matplotlib loads only when a figure is drawn, not for --help
    from gpcnet.report import timeline
    if not timeline.has_timeline(doc, args.repetition):
        raise GpcnetError(f"{args.run}: no timeline to plot (run network_load_test --timeline)")
    if args.kind == "recovery":
        return timeline.recovery_figure(doc, args.repetition)
    known = sorted({r["test"] for r in timeline.records(doc, args.repetition)})
    for test in args.test or []:
        if test not in known:
            raise GpcnetError(f"{args.run}: no timeline of test {test!r}; it has {', '.join(known)}")
    counters = timeline.read_counters(args.counters) if args.counters else None
    if counters is not None and args.port:
        timeline.check_ports(counters, args.port, args.counters)
    return timeline.timeline_figure(doc, args.repetition, args.test or None, counters, args.port)


def run(args) -> int:
    # deferred: matplotlib (and jsonschema) loads only when a figure is drawn, not for --help
    from gpcnet.plots import figures
    from gpcnet.results_json.load import load
    doc = load(args.run)
    fmt = figures.file_format(args.output)
    if (args.counters or args.port) and args.kind != "timeline":
        raise GpcnetError("--counters and --port go with --kind timeline")
    if args.port and not args.counters:
        raise GpcnetError("--port needs --counters FILE")
    if args.kind in ("hist", "ci", "sweep", "timeline", "recovery"):
        results.check_repetition(doc, args.repetition, args.run)
    if args.kind in ("hist", "sweep"):
        _check_tests(args, doc)
    preflight(args.output, args.force)
    # Labels from files are made literal for matplotlib's mathtext, so it
    # must not hand them to LaTeX; no warning reaches stderr.
    with figures.literal_text():
        fig = _figure(args, doc)
    note = results.repetition_note(text_safe.path(args.run), doc, args.repetition)
    if note and args.kind in ("hist", "ci", "sweep"):
        print(note, file=sys.stderr)
    write_output(args.output, figures.render(fig, fmt), args.force)
    print(f"wrote {text_safe.path(args.output)}")
    return EXIT_OK
