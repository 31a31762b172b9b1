"""Command line: gpcnet report | compare | table | parse | plot | nodes | testbed | study.

Each command lives in its own module (gpcnet.commands). Every expected
failure (missing file, bad JSON, wrong schema, unparseable text,
unwritable output) is a GpcnetError: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

from gpcnet import __version__, commands
from gpcnet.commands.common import EXIT_ERROR
from gpcnet.infra.errors import GpcnetError
from gpcnet.text import text_safe

# What a shell reports for a program that a closed pipe ended (128 +
# SIGPIPE): `gpcnet compare a.json b.json | head -1` stops quietly, and a
# script with `set -o pipefail` still sees that the output was cut short.
EXIT_BROKEN_PIPE = 141


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpcnet",
        description="Analyse GPCNeT results (JSON written by network_test / network_load_test, "
                    "or their text output via `gpcnet parse`).",
        epilog="Exit status: 0 ok, 1 regression found by compare --fail-if-worse, 2 error, "
               "141 standard output was a pipe that its reader closed.")
    parser.add_argument("--version", action="version", version=f"gpcnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in commands.modules():
        module.add_parser(sub)
    return parser


def _say(command: str, text) -> None:
    """One line on stderr; every error goes out here, escaped (a message
    may hold a file name or a value from a file: no control character, no
    undecodable byte reaches the terminal)."""
    try:
        print(f"gpcnet{' ' + command if command else ''}: {text_safe.message(text)}", file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr is gone as well: there is no one left to tell


def _reserve_standard_fds() -> None:
    """A closed stdin, stdout or stderr (`gpcnet ... >&-`) is opened on
    /dev/null, so that no file gpcnet opens (a study JSON being written)
    gets number 0, 1 or 2 and receives a child's output."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError as e:
            if e.errno != errno.EBADF:
                continue
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


class _ClosedStdout:
    """sys.stdout when the process started without one (`>&-`): writing
    is an error, as for any program whose standard output is closed."""

    def write(self, text):
        raise OSError(errno.EBADF, "it is closed")

    def flush(self):
        pass


class _StdoutFailed(Exception):
    """Writing stdout failed with `error`: told apart from the failures
    of the files a command reads and writes (a BrokenPipeError from an
    output file that is a named pipe is not the reader of stdout going
    away)."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


class _Stdout:
    """sys.stdout for the time of one command: a write that fails says it
    failed on stdout, and text the stream's encoding cannot hold (a
    Latin-1 terminal) is written with backslash escapes instead of
    failing."""

    def __init__(self, stream):
        self._stream = stream

    def _call(self, method, *args):
        try:
            return getattr(self._stream, method)(*args)
        except OSError as e:
            raise _StdoutFailed(e) from None

    def write(self, text):
        try:
            return self._call("write", text)
        except UnicodeEncodeError:
            encoding = getattr(self._stream, "encoding", None) or "utf-8"
            return self._call("write", text.encode(encoding, "backslashreplace").decode(encoding))

    def flush(self):
        return self._call("flush")

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout(stream) -> None:
    # What is still buffered (and the interpreter's flush at exit) goes
    # to /dev/null instead of failing a second time.
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass


def main(argv=None) -> int:
    _reserve_standard_fds()
    stream = sys.stdout if sys.stdout is not None else _ClosedStdout()
    sys.stdout = _Stdout(stream)
    try:
        return _main(argv, stream)
    finally:
        sys.stdout = None if isinstance(stream, _ClosedStdout) else stream


def _main(argv, stream) -> int:
    try:
        try:
            args = build_parser().parse_args(argv)
        finally:
            sys.stdout.flush()  # --help, --version: their output too meets a closed pipe here
    except _StdoutFailed as failed:
        return _stdout_failed("", failed, stream)
    try:
        code = args.func(args)
        sys.stdout.flush()  # buffered output meets a closed pipe or a full disk here, not at exit
        return code
    except GpcnetError as e:
        _say(args.command, e)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except _StdoutFailed as failed:
        return _stdout_failed(args.command, failed, stream)
    except Exception as e:  # a bug in gpcnet, not in the input
        return _internal_error(args.command, e)


def _stdout_failed(command: str, failed: _StdoutFailed, stream) -> int:
    _silence_stdout(stream)
    if isinstance(failed.error, BrokenPipeError):
        return EXIT_BROKEN_PIPE  # the reader has all it wanted: nothing to say
    _say(command, f"cannot write to standard output: {failed.error.strerror or failed.error}")
    return EXIT_ERROR


def _internal_error(command: str, e: Exception) -> int:
    if os.environ.get("GPCNET_DEBUG"):
        raise e
    _say(command, f"internal error: {type(e).__name__}: {e} "
                  "(set GPCNET_DEBUG=1 for a traceback and please report it)")
    return EXIT_ERROR
