"""Command line: gpcnet report | compare | table | parse | plot | testbed | study.

Every expected failure (missing file, bad JSON, wrong schema, unparseable
text, unwritable output) is a GpcnetError: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from gpcnet import __version__
from gpcnet.errors import GpcnetError

EXIT_OK, EXIT_REGRESSION, EXIT_ERROR = 0, 1, 2


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None


def _check_output_dir(path: str) -> None:
    # Rendering figures takes seconds; find out first that the result can be kept.
    parent = Path(path).parent
    if not parent.is_dir():
        raise GpcnetError(f"{path}: cannot write: directory {parent} does not exist")


def _labels(paths: list) -> list:
    from gpcnet.compare import run_labels
    return run_labels(paths)


def _load_all(paths: list) -> list:
    from gpcnet.load import load
    return list(zip(_labels(paths), [load(p) for p in paths]))


def cmd_report(args) -> int:
    from gpcnet.load import load
    from gpcnet.report import render
    from gpcnet.study.report import is_study, render_study
    if is_study(args.run):
        _check_output_dir(args.output)
        _write(args.output, render_study(args.run))
        print(f"wrote {args.output}")
        return EXIT_OK
    doc = load(args.run)
    _check_output_dir(args.output)
    _write(args.output, render(doc, Path(args.run).name))
    print(f"wrote {args.output}")
    return EXIT_OK


def cmd_compare(args) -> int:
    from gpcnet.compare import compare
    text, regressions = compare(_load_all(args.runs), args.fail_if_worse, args.repetition)
    sys.stdout.write(text)
    if regressions:
        print()
        print("\n".join(regressions))
        return EXIT_REGRESSION
    if args.fail_if_worse is not None:
        print(f"\nno metric is more than {args.fail_if_worse:g}% worse than {_labels(args.runs)[0]}")
    return EXIT_OK


def cmd_table(args) -> int:
    from gpcnet import results
    from gpcnet.table import render
    runs = _load_all(args.runs)
    text = render(runs, args.format, args.published, args.repetition)
    # On stderr: stdout is the table, which may be CSV or LaTeX.
    for label, doc in runs:
        note = results.repetition_note(label, doc, args.repetition)
        if note:
            print(note, file=sys.stderr)
    if args.output:
        _write(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_parse(args) -> int:
    from gpcnet.load import validate
    from gpcnet.parse_text import parse_text
    if args.text == "-":
        where, text = "<stdin>", sys.stdin.read()
    else:
        where = args.text
        try:
            text = Path(args.text).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise GpcnetError(f"{args.text}: no such file") from None
        except OSError as e:
            raise GpcnetError(f"{args.text}: cannot read: {e.strerror}") from None
    doc = parse_text(text, where)
    # Whatever parse writes must load again; a failure here is our bug,
    # reported against the input that triggered it.
    validate(doc, f"{where} (parsed)")
    out = json.dumps(doc, indent=2) + "\n"
    if args.output and args.output != "-":
        _write(args.output, out)
    else:
        sys.stdout.write(out)
    return EXIT_OK


def cmd_plot(args) -> int:
    from gpcnet import figures, results, study_figures
    from gpcnet.load import load
    doc = load(args.run)
    _check_output_dir(args.output)
    if args.kind in ("hist", "ci", "sweep"):
        results.check_repetition(doc, args.repetition, args.run)
    if args.kind in ("hist", "sweep"):
        if not results.has_histograms(doc):
            raise GpcnetError(f"{args.run}: no histograms to plot"
                              + (" (parsed from text output)" if doc["source"] == "text" else ""))
        known = results.canary_tests(doc, args.repetition)
        for test in args.test or []:
            if test not in known:
                raise GpcnetError(f"{args.run}: no test {test!r}; it has {', '.join(known)}")
    if args.kind == "hist":
        fig = figures.histogram_figure(doc, args.test or None, args.repetition)
    elif args.kind == "sweep":
        if not results.sweep_kernels(doc, args.repetition):
            raise GpcnetError(f"{args.run}: no congestor sweep to plot (run network_load_test --congestor-sweep)")
        fig = study_figures.sweep_figure(doc, args.test or None, args.repetition)
    elif args.kind == "ci":
        if not results.impacts(doc, args.repetition):
            raise GpcnetError(f"{args.run}: no Congestion Impact to plot ({doc['program']} run)")
        fig = figures.ci_figure(doc, args.repetition)
    elif args.kind == "repeats":
        if not (doc.get("repeats") or {}).get("metrics"):
            raise GpcnetError(f"{args.run}: no per-repetition values to plot (run network_load_test --repeat N)")
        fig = study_figures.repeats_figure(doc)
    else:
        if not doc.get("impact_matrix"):
            raise GpcnetError(f"{args.run}: no impact_matrix to plot")
        fig = figures.impact_matrix_figure(doc)
    note = results.repetition_note(args.run, doc, args.repetition)
    if note and args.kind in ("hist", "ci", "sweep"):
        print(note, file=sys.stderr)
    figures.save(fig, args.output)
    print(f"wrote {args.output}")
    return EXIT_OK


def _repetition(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a repetition number (1, 2, ...), not {value!r}")
    return number


def _add_repetition(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--repetition", type=_repetition, default=1, metavar="N",
                   help=f"for runs made with --repeat: {what} repetition N (default 1; a note on stderr "
                        "says which was used)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpcnet",
        description="Analyse GPCNeT results (JSON written by network_test / network_load_test, "
                    "or their text output via `gpcnet parse`).",
        epilog="Exit status: 0 ok, 1 regression found by compare --fail-if-worse, 2 error.")
    parser.add_argument("--version", action="version", version=f"gpcnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("report", help="write a self-contained HTML report of one run",
                       description="Write one self-contained HTML file (inline SVG figures, no scripts, "
                                   "no external resources) with the run summary, tables, histograms, "
                                   "Congestion Impact beside the published systems and congestor results.")
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE",
                   help="HTML file to write (default: report.html)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("compare", help="compare runs side by side; optionally fail on regressions",
                       description="Show every canary value and Congestion Impact of each run side by side, "
                                   "with the ratio to the first run (the baseline). Runs are labelled by "
                                   "file name; runs whose file names repeat by the shortest part of their "
                                   "paths that tells them apart (o1/x.json, o2/x.json: o1, o2).")
    p.add_argument("runs", nargs="+", metavar="RUN.json", help="baseline first, then the runs to compare")
    p.add_argument("--fail-if-worse", type=float, metavar="PCT",
                   help="exit 1 if any metric is more than PCT percent worse than the baseline "
                        "(latency up, bandwidth down, CI up), listing them")
    _add_repetition(p, "compare the values of")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("table", help="runs as rows in the layout of the paper's Table 2",
                       description="One row per run: isolated Avg, loaded Avg, isolated 99%%, loaded 99%% "
                                   "for Lat, BW (BW+Sync) and Allreduce, as in the SC'19 paper's Table 2.")
    p.add_argument("runs", nargs="+", metavar="RUN.json")
    p.add_argument("--format", choices=["md", "csv", "latex"], default="md", help="default: md")
    p.add_argument("--published", action="store_true", help="append the published systems' rows")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    _add_repetition(p, "one row from")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("parse", help="turn text output into a results JSON document",
                       description="Read the text output of network_test / network_load_test (ours or the "
                                   "reference v1.3, default or verbose) and write the results JSON "
                                   "(source \"text\", no histograms, null where the text has no value).")
    p.add_argument("text", metavar="OUTPUT.txt", help="text output file, or - for stdin")
    p.add_argument("-o", "--output", metavar="RUN.json", help="JSON file to write (default: stdout)")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("plot", help="draw one figure to PNG, SVG or PDF",
                       description="hist: per-test histograms isolated vs loaded (paper Figures 1-3); "
                                   "ci: Congestion Impact beside the published systems (Figure 11); "
                                   "sweep: histograms isolated, under each congestor alone and under all "
                                   "(--congestor-sweep; paper Figures 4-5); "
                                   "matrix: the congestor impact matrix (--congestor-sweep); "
                                   "repeats: spread of every value across the repetitions (--repeat).")
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("--kind", choices=["hist", "ci", "sweep", "matrix", "repeats"], required=True)
    p.add_argument("--test", action="append", metavar="ID",
                   help="hist, sweep: only this test id (repeatable), e.g. rr_two_sided_lat")
    _add_repetition(p, "hist, ci, sweep: draw")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="output file; the format follows the extension (.png, .svg, .pdf)")
    p.set_defaults(func=cmd_plot)

    from gpcnet.testbed.cli import add_parser as add_testbed_parser
    add_testbed_parser(sub)
    from gpcnet.study.cli import add_parser as add_study_parser
    add_study_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except GpcnetError as e:
        print(f"gpcnet {args.command}: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in gpcnet, not in the input
        if os.environ.get("GPCNET_DEBUG"):
            raise
        print(f"gpcnet {args.command}: internal error: {type(e).__name__}: {e} "
              "(set GPCNET_DEBUG=1 for a traceback and please report it)", file=sys.stderr)
        return EXIT_ERROR
