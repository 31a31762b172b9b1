"""Showing strings that come from files: escaped for the terminal, quoted
short in messages, literal in plot labels.

Every string that comes from an input file (a row name, a node name, a
port key, a file name the user passed) goes through this module before it
reaches stdout, stderr or a figure. A file can then hold anything: a
terminal escape sequence (ESC [ ... , which can move the cursor, retitle the
window or hide text), a right-to-left override that makes `gpu.exe`
read backwards, a lone surrogate that cannot be encoded at all, or a
`$...$` that matplotlib would parse as mathematics. None of that may act:
it is shown as a visible escape instead (`\\x1b`, `\\u202e`).
"""

from __future__ import annotations

import math
import os

# Error messages quote at most this much of a value: enough to recognise
# it, never a screenful (a 4000-digit number, a 100,000-character name).
QUOTE_LIMIT = 200


def escape_char(ch: str) -> str:
    """One character as a visible escape: \\x1b, \\u202e, \\U0001f600."""
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def terminal(text) -> str:
    """`text` with every character that is not printable shown as an escape.

    Not printable is Python's str.isprintable(): control characters (C0
    including newline, tab and ESC; DEL; C1), format characters (the bidi
    overrides and isolates, zero-width characters, the BOM), line and
    paragraph separators, lone surrogates, private-use and unassigned code
    points, and every space but the ASCII one. The result is one line that
    can be written in any encoding that holds the printable text.
    Backslashes are left as they are, so escaping is for the eye, not
    reversible; use quote() where the exact value matters.
    """
    text = str(text)
    if text.isprintable():  # the common case: one pass in C
        return text
    return "".join(ch if ch.isprintable() else escape_char(ch) for ch in text)


def path(name) -> str:
    """A file name for a message: str, bytes or os.PathLike.

    A name that is not UTF-8 arrives (from the command line or os.listdir)
    with its bad bytes as surrogates U+DC80..U+DCFF (surrogateescape);
    they are shown as the bytes they stand for (`\\xff`), everything else
    as terminal() shows it.
    """
    name = os.fsdecode(name) if isinstance(name, (bytes, os.PathLike)) else str(name)
    if name.isprintable():
        return name
    out = []
    for ch in name:
        if "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xdc00:02x}")
        else:
            out.append(ch if ch.isprintable() else escape_char(ch))
    return "".join(out)


# A whole error line is cut here as a last resort, should a message quote
# more than it should: a line, never a screenful.
MESSAGE_LIMIT = 2000


def message(text) -> str:
    """A whole message for stderr (an error line that names files and
    quotes values): escaped as path() escapes a file name, since it may
    hold one, and cut to MESSAGE_LIMIT characters."""
    return path(shorten(str(text), MESSAGE_LIMIT))


def _int_text(value: int, limit: int) -> str:
    # str() of an int of more than 4300 digits raises ValueError (Python
    # 3.11+), and would be slow anyway: say its size instead.
    if value.bit_length() > limit * 3.33:  # more digits than we would show
        digits = int(value.bit_length() * math.log10(2)) + 1
        return f"{'-' if value < 0 else ''}<an integer of about {digits} digits>"
    return str(value)


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """At most `limit` characters of text, then '...' when cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """A value from a file as an error message shows it: short and escaped.

    Strings are quoted ('abc'), cut to `limit` characters ('abc...') and
    escaped as terminal() does; numbers are written as JSON writes them
    (an integer too long to show is described by its size); null, true
    and false as in JSON; an object or a list by its kind and size, never
    its contents (which may be nested 100,000 deep).
    """
    if isinstance(value, str):
        return "'" + terminal(shorten(value, limit)) + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _int_text(value, limit)
    if isinstance(value, float):
        return repr(value)  # at most 24 characters, inf and nan included
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    return terminal(shorten(f"<{type(value).__name__}>", limit))


# A name from a file (a node, a row, a port key) is shown to at most this
# many characters: tables pad every line to the longest name and figures
# draw it whole, so one name of 80,000 characters would make every line,
# or the SVG, that many times larger.
NAME_LIMIT = 255


def name(text, limit: int = NAME_LIMIT) -> str:
    """A name from a file for a table or a line of text: cut to `limit`
    characters ('...' when cut) and escaped as terminal() does."""
    return terminal(shorten(str(text), limit))


def label(text, limit: int = NAME_LIMIT) -> str:
    """A string from a file as literal text for a matplotlib label, title,
    tick or legend entry.

    Non-printable characters are escaped as terminal() does (a lone
    surrogate would otherwise make saving an SVG or PDF fail), and every
    `$` becomes `\\$`: matplotlib then finds no mathematics in the string
    (a `$\\notacommand$` port key would be a parse error) and draws each
    `\\$` as a plain dollar. This holds as long as text.usetex is off,
    which gpcnet's figures ensure (figures.literal_text_rc). It is cut to
    `limit` characters first, as name() cuts (a label is a name or a title,
    never a paragraph).
    """
    return name(text, limit).replace("$", "\\$")
