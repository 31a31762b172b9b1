"""Reading an input file in bounded time and memory: a regular file only,
at most so many bytes, UTF-8, and for JSON at most so many values, counted
in the text before it is parsed.

Every problem is one GpcnetError line naming the file.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.text import text_safe

# Far above anything but a results document (a 10,000-run study is tens
# of MB, a testbed counters file less); a larger file cannot be ours.
MAX_JSON_BYTES = 256 * 2**20
# Twice the largest results document a run writes: a default load test on
# 10,600 nodes of 8 NICs with 133,800 ranks is 381 MB (results_limits.py,
# where the sizes are derived); --repeat 100 of a congestor sweep is about
# 100 MB.
MAX_RESULTS_BYTES = 768 * 2**20

# What json.loads builds is bounded before it runs. The C programs write
# every value on its own indented line: that 381 MB document holds 12.9
# million values and 1.7 million lists and objects, the fixtures in
# tests/python/fixtures/real 24 bytes a value and 100 bytes a list or
# object on average. The limits are twice that document's (the lists and
# objects rounded up). A list or object costs about 64 bytes of memory, a
# number 32: the 381 MB document took 1.1 GB to read (the text, and what
# json.loads built from it), not the 25 GB of 256 MiB of "[],".
MAX_JSON_VALUES = 26_000_000
MAX_JSON_CONTAINERS = 4_000_000

_KINDS = ((stat.S_ISFIFO, "named pipe"), (stat.S_ISCHR, "character device"),
          (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


def _open_regular(path: Path, what: str) -> int:
    """A descriptor of `path`, which must be a regular file. A link the
    user named is followed like any path they type; O_NONBLOCK keeps a
    named pipe from blocking the open, and it is then refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise GpcnetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GpcnetError(f"{path}: is a directory, not a {what} file") from None
    except OSError as e:
        raise GpcnetError(f"{path}: cannot read: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return fd
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise GpcnetError(f"{path}: is a directory, not a {what} file")
    kind = next((name for test, name in _KINDS if test(mode)), "special file")
    raise GpcnetError(f"{path}: is a {kind}, not a regular file, so not read as a {what} file")


def read_text(path, what: str, max_bytes: int = MAX_JSON_BYTES) -> str:
    """A whole UTF-8 text file, or one GpcnetError line naming it. Only a
    regular file is read (a pipe or a device such as /dev/zero is refused
    before any byte is read), and at most max_bytes of it."""
    path = Path(path)
    fd = _open_regular(path, what)
    limit = f"{max_bytes // 2**20} MiB" if max_bytes >= 2**20 else f"{max_bytes} bytes"
    if os.fstat(fd).st_size > max_bytes:  # said before a byte is read; a file still growing is cut below
        os.close(fd)
        raise GpcnetError(f"{path}: larger than {limit}, so not a {what} file")
    data = bytearray()  # grows in place: no second copy for a join
    try:
        with os.fdopen(fd, "rb", buffering=0) as f:
            while len(data) <= max_bytes:
                chunk = f.read(min(2**20, max_bytes + 1 - len(data)))
                if not chunk:
                    break
                nul = chunk.find(b"\0")
                if nul >= 0:  # binary: said at once
                    line = data.count(b"\n") + chunk.count(b"\n", 0, nul) + 1
                    raise GpcnetError(f"{path}:{line}: a NUL byte, so not a {what} file")
                data += chunk
    except OSError as e:
        raise GpcnetError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > max_bytes:
        raise GpcnetError(f"{path}: larger than {limit}, so not a {what} file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise GpcnetError(f"{path}: not UTF-8 text (line {line}), so not a {what} file") from None


# A JSON string, also one cut off at the end of the text. Linear in any
# mode: each repeat starts with a character the one before cannot take, so
# there is one way to match and nothing to retry (tests/security/
# test_regex_linear.py).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\(?:.|\Z)[^"\\]*)*(?:"|\Z)', re.S)


def json_counts(text: str) -> tuple:
    """(values, lists and objects) of a JSON text, counted without parsing
    it: every value but the first follows a comma or is the first in its
    list or object, so commas plus brackets bound the values from above.
    Brackets and commas inside strings are left out. Linear and C-speed;
    the strings are stripped only when the plain count is over a limit."""
    def count(t: str) -> tuple:
        containers = t.count("[") + t.count("{")
        return containers + t.count(",") + 1, containers

    values, containers = count(text)
    if values > MAX_JSON_VALUES or containers > MAX_JSON_CONTAINERS:
        values, containers = count(_JSON_STRING.sub('""', text))
    return values, containers


def _reject_constant(name: str):
    # Python's json accepts NaN/Infinity, which are not JSON; the schema
    # says a missing value is null, so a NaN means a writer bug.
    raise ValueError(f"non-standard JSON constant {name} (missing values must be null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:40]} is out of range (overflows a double)")
    return value


# An integer of more digits than the largest double has cannot be a count,
# a size or a time of any run (the largest a run writes, bytes moved, has
# about 20): refused like a float that overflows a double, so no reader
# meets an integer of thousands of digits.
MAX_INT_DIGITS = 308


def _bounded_int(text: str) -> int:
    digits = len(text) - (text[:1] == "-")
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits is out of range (more than a double holds)")
    return int(text)


def read_json(path, what: str, max_bytes: int = MAX_JSON_BYTES):
    """Read and parse a JSON file; every problem is one GpcnetError line
    naming the file. At most max_bytes, MAX_JSON_VALUES values and
    MAX_JSON_CONTAINERS lists and objects, counted before parsing, so time
    and memory are bounded. NaN, Infinity, numbers that overflow a double
    and integers of more than MAX_INT_DIGITS digits are refused."""
    path = Path(path)
    text = read_text(path, what, max_bytes)
    values, containers = json_counts(text)
    if values > MAX_JSON_VALUES:
        raise GpcnetError(f"{path}: about {values} values, more than any {what} file holds "
                          f"(limit {MAX_JSON_VALUES}); not parsed")
    if containers > MAX_JSON_CONTAINERS:
        raise GpcnetError(f"{path}: {containers} lists and objects, more than any {what} file holds "
                          f"(limit {MAX_JSON_CONTAINERS}); not parsed")
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          parse_int=_bounded_int)
    except json.JSONDecodeError as e:
        raise GpcnetError(f"{path}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise GpcnetError(f"{path}: malformed JSON: nested too deeply for a {what} file") from None
    except ValueError as e:  # NaN/Infinity, overflow, an integer of thousands of digits
        raise GpcnetError(f"{path}: malformed JSON: {text_safe.shorten(str(e))}") from None
