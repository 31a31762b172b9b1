"""Scanning the text: the header, the preamble lines before the first
table, and every bordered table as a block of cell lists."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from gpcnet.infra.errors import GpcnetError
from gpcnet.parse_text import settings
from gpcnet.results_json import results_limits

# Each pattern is anchored with \A, so even a search tries the one
# position (an unanchored `\s+Test with` searched in a line of spaces
# rescans the spaces from every start: quadratic), and has no two
# quantifiers that can share a run of characters, so an attempt is linear
# in the line. The indentation is stripped with str methods first. A count
# has at most 18 digits (an int() of more than 4300 raises).
_HEADER = re.compile(r"\A(NetworkLoad|Network) Tests v(\S+)")
_RANKS = re.compile(r"\ATest with (\d{1,18}) MPI ranks \((\d{1,18}) nodes\)")
_CANARY_NODES = re.compile(r"\A(\d{1,18}) nodes running Network Tests")
_CONGESTOR_NODES = re.compile(r"\A(\d{1,18}) nodes running Congestion Tests"
                              r"(?: \(min (\d{1,18}) nodes per congestor\))?")
_SETTINGS_HEADING = re.compile(r"\ASettings\b")
_OUTER_BAR = re.compile(r"\A\+-{20,}\+")
# A line of the real output is at most a few kB (the MPI library's version
# string, the JSON path); a longer one is not GPCNeT output.
MAX_LINE = 2**20
# The text of one run (sweeps and --repeat are refused) has a table per
# phase and, verbose, one per canary: about 25, each a row per test or
# congestor. The results document's bounds (results_limits.py) hold the
# tables parse builds from them, so each is checked as a table is read:
# a text of a million rows is refused at row 101 of its first table, not
# after building and validating all of them (a 16 MB text took 90 s and
# 794 MB). A block has its rows and at most two header rows (Key Results).
MAX_BLOCK_ROWS = results_limits.MAX_ROWS_PER_TABLE + 2
MAX_BLOCKS = results_limits.MAX_TABLES_PER_REPETITION


@dataclass
class Block:
    """One bordered table: its title and the cell lists of its `|` lines."""
    title: str
    first_line: int  # 1-based, for messages
    lines: list = field(default_factory=list)  # (line number, [cells])


class Scanner:
    def __init__(self, text: str, where: str):
        self.where = where
        self.lines = text.splitlines()
        for i, line in enumerate(self.lines):
            if len(line) > MAX_LINE:
                self.fail(i + 1, f"a line longer than {MAX_LINE // 2**20} MiB, so not GPCNeT text output")
        self.header: Optional[tuple] = None
        self.ranks = self.nodes = self.canary_nodes = self.congestor_nodes = None
        self.min_per_congestor = None
        self.settings: dict = {}
        self.settings_heading: Optional[str] = None
        self.blocks: list = []
        self.truncated = False
        self._in_settings = False

    def fail(self, lineno: int, problem: str):
        raise GpcnetError(f"{self.where}:{lineno}: {problem}")

    def scan(self) -> "Scanner":
        i = 0
        n = len(self.lines)
        while i < n:
            line = self.lines[i].rstrip()
            if self.header is None:
                m = _HEADER.fullmatch(line.lstrip(" \t"))
                if m:
                    self.header = (m.group(1), m.group(2))
            elif _OUTER_BAR.fullmatch(line) and i + 1 < n and self.lines[i + 1].rstrip().startswith("|"):
                i = self._read_block(i)
                continue
            elif not self.blocks:
                self._preamble_line(line)
            i += 1
        if self.header is None:
            raise GpcnetError(f"{self.where}: not GPCNeT text output (no 'Network Tests vX' or "
                              "'NetworkLoad Tests vX' line)")
        return self

    def _preamble_line(self, line: str):
        # Every preamble line the parser reads is indented.
        indented = line[:1].isspace()
        body = line.lstrip() if indented else ""
        m = _RANKS.match(body)
        if m:
            self.ranks, self.nodes = int(m.group(1)), int(m.group(2))
            return
        m = _CANARY_NODES.match(body)
        if m:
            self.canary_nodes = int(m.group(1))
            return
        m = _CONGESTOR_NODES.match(body)
        if m:
            self.congestor_nodes = int(m.group(1))
            if m.group(2) is not None:
                self.min_per_congestor = int(m.group(2))
            return
        if _SETTINGS_HEADING.match(body):
            # e.g. "  Settings (official default configuration: no; differs: seed)"
            self._in_settings = True
            self.settings_heading = line.strip()
            return
        if not line.strip() or line.strip() == "Legend":
            self._in_settings = False
            return
        if self._in_settings:
            # Ours prints its settings as indented `key = value`; the legend
            # uses `=` too, hence the section tracking.
            self.settings.update(settings.setting_line(line))

    def _read_block(self, start: int) -> int:
        """Collect a bordered table starting at its top bar; return the index after it."""
        title_line = self.lines[start + 1].rstrip()
        block = Block(title_line.strip("|").strip(), start + 1)
        i = start + 2
        while i < len(self.lines):
            line = self.lines[i].rstrip()
            if line.startswith("+"):
                pass
            elif line.startswith("|"):
                if not line.endswith("|") or line.count("|") < 3:
                    self._malformed(i, line)
                    break
                if len(block.lines) == MAX_BLOCK_ROWS:
                    self.fail(i + 1, f"table '{block.title[:60]}' has more than {MAX_BLOCK_ROWS} rows, "
                                     "more than any run prints, so not GPCNeT text output")
                block.lines.append((i + 1, [c.strip() for c in line.split("|")[1:-1]]))
            else:
                break
            i += 1
        if len(self.blocks) == MAX_BLOCKS:
            self.fail(start + 1, f"more than {MAX_BLOCKS} tables, more than any run prints, "
                                 "so not GPCNeT text output")
        self.blocks.append(block)
        return i

    def _malformed(self, index: int, line: str):
        # A run killed while printing leaves a partial last line; anything
        # else malformed inside a table is an error worth reporting.
        if all(not rest.strip() for rest in self.lines[index + 1:]):
            self.truncated = True
            return
        self.fail(index + 1, f"malformed table line: {line.strip()[:60]!r}")
