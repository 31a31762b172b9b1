"""What the commands share: exit codes, the --repetition and --force
options, run labels, and writing their output files (through safe_write)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from gpcnet import safe_write
from gpcnet.errors import GpcnetError

EXIT_OK, EXIT_REGRESSION, EXIT_ERROR = 0, 1, 2


def _is_stream(st: os.stat_result) -> bool:
    return stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)


def _existing_stream(path: str) -> bool:
    """-o /dev/null, /dev/stdout or a named pipe: written into, not replaced."""
    try:
        return _is_stream(os.lstat(path))
    except OSError:
        return False


def preflight(path: str, force: bool) -> None:
    """Before seconds of rendering, make sure the result can be kept: the
    directory exists (missing ones are created, with their parents) and the
    name is free, or --force allows replacing the file there."""
    if not _existing_stream(path):
        safe_write.prepare(path, force=force)


def _write_stream(path: str, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    with os.fdopen(fd, "wb") as f:
        if not _is_stream(os.fstat(f.fileno())):  # swapped for a file since the check
            raise GpcnetError(f"{path}: changed while being opened; not written")
        f.write(data)


def write_output(path: str, data, force: bool) -> None:
    """Write a whole output file: text or bytes, never through a link, never
    over an existing file without --force (safe_write); a device or pipe
    given by name (/dev/stdout) is written into."""
    data = data if isinstance(data, bytes) else data.encode("utf-8")
    if _existing_stream(path):
        _write_stream(path, data)
    else:
        safe_write.write_bytes(path, data, force=force)


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace the output file if it exists")


def labels(paths: list) -> list:
    from gpcnet.compare import run_labels
    return run_labels(paths)


def load_all(paths: list) -> list:
    """(label, document) of each results file."""
    from gpcnet.load import load
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
