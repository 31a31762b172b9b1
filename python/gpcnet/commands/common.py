"""What the commands share: exit codes, the --repetition and --force
options, run labels, and writing their output files (through safe_write)."""

from __future__ import annotations

import argparse
import errno
import os
import stat
from pathlib import Path

from gpcnet.analysis.compare import run_labels
from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError

EXIT_OK, EXIT_REGRESSION, EXIT_ERROR = 0, 1, 2


# Output named as an existing stream rather than a file: written into, not
# replaced. Only names the user gives under /dev or /proc/self/fd count (the
# documented rule: `-o /dev/null`, `-o /dev/stdout`); there only root (or,
# for /proc/self/fd, we) can put anything. A pipe, device or directory at
# any other output name may have been planted by someone else: safe_write
# refuses it, and nothing opens it (a pipe without a reader would block).
_STREAM_DIRS = ("/dev/", "/proc/self/fd/")
# Names of our own descriptors: written to the descriptor itself, so that
# `-o /dev/stdout` appends to a redirected file like the shell's `>`
# does, instead of reopening it at offset 0.
_FD_NAMES = {"/dev/stdout": 1, "/dev/stderr": 2}
_FD_DIRS = ("/dev/fd/", "/proc/self/fd/")


def _fd_named(path: str):
    """The descriptor number `path` names (/dev/stdout, /dev/fd/N), or None."""
    p = os.path.abspath(path)
    if p in _FD_NAMES:
        return _FD_NAMES[p]
    for d in _FD_DIRS:
        if p.startswith(d) and p[len(d):].isdigit() and p[len(d):].isascii():
            return int(p[len(d):])
    return None


def _private_dir(directory: str) -> bool:
    """Only root or we can add names here (not /dev/shm, which is 1777)."""
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return st.st_uid in (0, os.geteuid()) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _named_stream(path: str) -> bool:
    """An existing non-file the user named under /dev or /proc/self/fd."""
    p = os.path.abspath(path)
    if not p.startswith(_STREAM_DIRS) or not _private_dir(os.path.dirname(p)):
        return False
    try:
        return not stat.S_ISREG(os.lstat(p).st_mode)
    except OSError:
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_fd(path: str, number: int, data: bytes) -> None:
    try:
        os.fstat(number)
        _write_all(number, data)
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None


def _write_stream(path: str, data: bytes) -> None:
    """Write into a device or pipe the user named under /dev. Opened
    without blocking (a pipe nobody reads is refused, not waited for), its
    type checked on the open descriptor, then written as usual."""
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise GpcnetError(f"{path}: nothing reads from it; not written") from None
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise GpcnetError(f"{path}: is {safe_write.kind_of(mode)}, not a device or pipe; "
                              "refusing to write to it")
        os.set_blocking(fd, True)  # a slow reader is waited for, as on stdout
        _write_all(fd, data)
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    finally:
        os.close(fd)


def preflight(path: str, force: bool) -> None:
    """Before seconds of rendering, make sure the result can be kept: the
    directory exists (missing ones are created, with their parents) and the
    name is free, or --force allows replacing the file there."""
    number = _fd_named(path)
    if number is not None:
        try:
            os.fstat(number)
        except OSError as e:
            raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    elif not _named_stream(path):
        safe_write.prepare(path, force=force)


def write_output(path: str, data, force: bool) -> None:
    """Write a whole output file: text or bytes, never through a link, never
    over an existing file without --force, never into a pipe, device or
    directory at the name (safe_write). A device or pipe the user names
    under /dev (or /proc/self/fd: /dev/null, /dev/stdout) is written into."""
    data = data if isinstance(data, bytes) else data.encode("utf-8")
    number = _fd_named(path)
    if number is not None:
        _write_fd(path, number, data)
    elif _named_stream(path):
        _write_stream(path, data)
    else:
        safe_write.write_bytes(path, data, force=force)


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace the output file if it exists")


def labels(paths: list) -> list:
    return run_labels(paths)


def load_all(paths: list) -> list:
    """(label, document) of each results file."""
    # deferred: jsonschema loads only for a command that reads a results file, not for --help
    from gpcnet.results_json.load import load
    return list(zip(labels(paths), [load(p) for p in paths]))


def _repetition(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a repetition number (1, 2, ...), not {value!r}")
    return number


def add_repetition(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--repetition", type=_repetition, default=1, metavar="N",
                   help=f"for runs made with --repeat: {what} repetition N (default 1; a note on stderr "
                        "says which was used)")


def source_name(path: str) -> str:
    return Path(path).name
