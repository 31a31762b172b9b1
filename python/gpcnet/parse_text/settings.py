"""Our preamble's `Settings` block: its `key = value` lines, and the
document fields read from them."""

from __future__ import annotations

import re
from typing import Optional

from gpcnet.metrics import catalog

# A setting's name as the C program prints it; nothing after it can match
# the same characters, so checking a name is linear in its length. Every
# pattern here is anchored with \A: a search, too, tries one start only,
# and a number has at most 18 digits (20 for the 64-bit seed), so int()
# never meets the 4300 digits it refuses.
_KEY = re.compile(r"\A[A-Za-z][\w .()/+-]*")
_NEXT_KEY = re.compile(r"\A[A-Za-z][\w ]*")
_WORD_GAP = re.compile(r"[,\s]+")
_CONGESTOR = re.compile(r"\A([a-z0-9_]+)(?::(\d{1,18}))?")
_ID = re.compile(r"\A[a-z0-9_]+")
_PPN = re.compile(r"\A(\d{1,18})(?!\d)( \(uneven\))?")


def _key(text: str) -> Optional[str]:
    key = text.strip()
    return key if _KEY.fullmatch(key) else None


def _normal(key: str) -> str:
    return key.strip().lower().replace(" ", "_")


def setting_line(line: str) -> dict:
    """`  key = value` -> {normalised key: value}; {} for any other line.

    "PPN = 1, NICs per node = 1, PPort = 1" holds three settings: a comma
    followed by `name = ` starts the next one.
    """
    if not line[:1].isspace():
        return {}
    left, eq, right = line.partition("=")
    key = _key(left)
    if not eq or key is None:
        return {}
    out = {}
    pieces = right.split(",")
    value = [pieces[0]]
    for piece in pieces[1:]:
        name, eq, rest = piece.partition(" = ")
        name = name.lstrip()
        if eq and _NEXT_KEY.fullmatch(name):
            out[_normal(key)] = ",".join(value).strip()
            key, value = name, [rest]
        else:
            value.append(piece)
    out[_normal(key)] = ",".join(value).strip()
    return out


def _bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word in ("yes", "true", "on", "1"):
        return True
    if word in ("no", "false", "off", "0"):
        return False
    raise ValueError(raw)


def words(raw: str) -> list:
    return [w for w in _WORD_GAP.split(raw.strip()) if w and w not in ("none", "-")]


def _congestors(raw: str) -> list:
    """`a2a:1, p2p_incast:2` (or bare ids, weight 1) -> config.congestors entries."""
    mix = []
    for item in words(raw):
        m = _CONGESTOR.fullmatch(item)
        if not m:
            raise ValueError(item)
        kernel = m.group(1)
        mix.append({"id": kernel, "name": catalog.display_name(kernel),
                    "weight": int(m.group(2)) if m.group(2) else 1})
    return mix


def _first_number(raw: str) -> float:
    return float(raw.split()[0])


_LOOPS = re.compile(r"\A(\d{1,18}) measurements x (\d{1,18}) rings x (\d{1,18}) iterations, (\d{1,18}) warm-up")
_SEED = re.compile(r"\A(\d{1,20})(?: *\((.*)\))?")
_EMULATED = (
    (re.compile(r"\Aemulated, (\d{1,18}) consecutive ranks per node"), "ranks_per_node"),
    (re.compile(r"\Aemulated, (\d{1,18}) equal groups of ranks"), "nodes"),
)
# Searched in the heading: a literal start, then one class that stops at ')'.
_OFFICIAL = re.compile(r"official default configuration: (yes|no)(?:; differs: ([^)]*))?")


class Settings:
    """The `Settings` block read into the document's fields.

    Each reader returns None when its line is absent or unreadable: a
    changed wording in the C program then costs a value, not the parse.
    """

    def __init__(self, heading: Optional[str], raw: dict):
        self.heading = heading or ""
        self.raw = raw

    def get(self, key: str, convert):
        if key not in self.raw:
            return None
        try:
            return convert(self.raw[key])
        except (ValueError, KeyError, AttributeError, IndexError):
            return None

    def official(self) -> tuple:
        m = _OFFICIAL.search(self.heading)
        if not m:
            return None, None
        official = m.group(1) == "yes"
        return official, [] if official else words(m.group(2) or "")

    def seed(self) -> tuple:
        m = self.get("seed", _SEED.fullmatch)
        if not m:
            return None, None
        how = (m.group(2) or "").lower()
        source = "time" if "time" in how else "option" if ("--seed" in how or "option" in how) else None
        return int(m.group(1)), source

    def loops(self) -> Optional[dict]:
        loops = {}
        for key, raw in self.raw.items():
            m = _LOOPS.fullmatch(raw.strip())
            if m and _ID.fullmatch(key):
                loops[key] = dict(zip(("measurements", "rings", "iterations", "warmup"), map(int, m.groups())))
        return loops or None

    def emulated(self) -> tuple:
        """(known, value): real hosts are a known null, unlike a missing line."""
        raw = self.raw.get("nodes")
        if raw is None:
            return False, None
        for pattern, key in _EMULATED:
            m = pattern.fullmatch(raw.strip())
            if m:
                return True, {key: int(m.group(1))}
        return ("shared-memory" in raw), None

    def ppn(self) -> tuple:
        m = self.get("ppn", _PPN.match)
        if not m:
            return None, None
        return (None if m.group(2) else int(m.group(1))), int(m.group(1))

    def number(self, key: str):
        return self.get(key, _first_number)

    def flag(self, key: str):
        return self.get(key, _bool)

    def congestors(self):
        return self.get("congestors", _congestors)
