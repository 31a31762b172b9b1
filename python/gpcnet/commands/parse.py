"""`gpcnet parse OUTPUT.txt`: text output to a results JSON document."""

from __future__ import annotations

import json
import os
import stat
import sys

from gpcnet.commands.common import EXIT_OK, add_force, write_output
from gpcnet.infra.errors import GpcnetError
from gpcnet.text import text_safe


def add_parser(sub) -> None:
    p = sub.add_parser("parse", help="turn text output into a results JSON document",
                       description="Read the text output of network_test / network_load_test (ours or the "
                                   "reference v1.3, default or verbose) and write the results JSON "
                                   "(source \"text\", no histograms, null where the text has no value).")
    p.add_argument("text", metavar="OUTPUT.txt", help="text output file (a regular file), or - for stdin")
    p.add_argument("-o", "--output", metavar="RUN.json", help="JSON file to write (default: stdout)")
    add_force(p)
    p.set_defaults(func=run)


# Text output is kilobytes whatever the machine's size: no table has a
# row per rank, node or NIC. A text parse reads has at most about 25
# tables of at most 100 rows (parse_text/scan.py) at two lines of 81
# bytes, 0.4 MB, and a preamble of short lines; a few lines may be long
# (the MPI library's version, a path), up to scan.MAX_LINE (1 MiB) each.
# 8 MiB holds that several times over; a larger input, or an endless one
# such as /dev/zero, cannot be ours.
MAX_TEXT_BYTES = 8 * 2**20


def _open_regular(path: str):
    """A file object of `path`, which must be a regular file: a named pipe
    without a writer would block for ever, a device such as /dev/zero
    never ends (a pipe is read with -, from stdin). O_NONBLOCK keeps the
    open itself from blocking on a pipe."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise GpcnetError(f"{text_safe.path(path)}: is a directory, not a text output file")
        raise GpcnetError(f"{text_safe.path(path)}: not a regular file, so not read as text output "
                          "(read a pipe with -, from stdin)")
    return os.fdopen(fd, "rb")


def _read(path: str) -> tuple:
    try:
        if path == "-":
            where, data = "<stdin>", sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            with _open_regular(path) as f:
                where, data = text_safe.path(path), f.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        why = ("no such file" if isinstance(e, FileNotFoundError) else
               "is a directory, not a text output file" if isinstance(e, IsADirectoryError) else
               f"cannot read: {e.strerror}")
        raise GpcnetError(f"{text_safe.path(path)}: {why}") from None
    if len(data) > MAX_TEXT_BYTES:
        raise GpcnetError(f"{where}: larger than {MAX_TEXT_BYTES // 2**20} MiB, so not GPCNeT text output")
    return where, data.decode("utf-8", errors="replace")


def run(args) -> int:
    # deferred: jsonschema loads only for a command that parses text, not for --help
    from gpcnet.results_json import results_limits
    from gpcnet.results_json.load import validate
    from gpcnet.parse_text import parse_text
    where, text = _read(args.text)
    doc = parse_text(text, where)
    # The bounds of every results reader, before the schema walks it.
    results_limits.check(doc, f"{where} (parsed)")
    # Whatever parse writes must load again; a failure here is our bug,
    # reported against the input that triggered it.
    validate(doc, f"{where} (parsed)")
    out = json.dumps(doc, indent=2) + "\n"
    if args.output and args.output != "-":
        write_output(args.output, out, args.force)
    else:
        sys.stdout.write(out)
    return EXIT_OK
