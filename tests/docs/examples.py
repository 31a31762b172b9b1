"""The code blocks of README.md and docs/*.md, with the class each one is
marked with.

Every fenced block is preceded by a mark, an HTML comment that a reader of
the rendered page does not see (other comments may stand between the mark
and the fence):

    <!-- example: CLASS [option ...] -->

Classes:
  run       a command block that runs on this machine exactly as written,
            in a fresh copy of the repository (tests/docs/test_examples.py)
  python    a Python snippet, run with python3 the same way
  slow      runs here but takes minutes or installs packages: run only with
            GPCNET_DOCS_SLOW=1 (the lead's and CI's full runs)
  cluster   needs a cluster, Spack, the internet or a reference build; the
            block names its runnable form with here=ID (a block of the same
            document with id=ID), unless none can exist (here=none)
  output    what a program prints, a file's content, a configuration
            fragment or a synopsis: not a command

  system    installs packages or changes the host (apt, pip, sysctl):
            run by scripts/test.sh itself or by hand, never by a test

Options: id=NAME names a block; root: run only as root (skipped
otherwise); build: the build under test is in build/ first, as after the
README's build step; scratch: run in an empty directory of its own (a
block about the user's own files) instead of a copy of the repository;
given=NAME[:STEM],...: results documents are there first under these
names (STEM.json of tests/python/fixtures, by default
real/network_load_test: a real 10-node run). In a `console` block only the lines after `$ ` are run.

What a console block shows as printed is checked: its lines that are not
typed must appear in that order in what it printed (a line `...` stands
for any lines).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLASSES = ("run", "python", "slow", "cluster", "system", "output")
RUNNABLE = ("run", "python", "slow")
MARK = re.compile(r"<!--\s*example:\s*(\S+)(.*?)-->")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(\S*)")


@dataclass
class Block:
    doc: str           # path relative to the repository
    line: int          # line of the opening fence (1-based)
    lang: str
    text: str
    cls: str | None
    options: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.doc}:{self.line}"


def documents() -> list:
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def parse_options(text: str) -> dict:
    options = {}
    for word in text.split():
        key, _, value = word.partition("=")
        options[key] = value if value else True
    return options


def mark_before(lines: list, index: int):
    """The example mark above the fence at lines[index], skipping blank
    lines and other HTML comments; None when there is none."""
    i = index - 1
    while i >= 0 and (not lines[i].strip() or COMMENT.match(lines[i])):
        m = MARK.search(lines[i])
        if m:
            return m.group(1), parse_options(m.group(2))
        i -= 1
    return None


def blocks(path: Path) -> list:
    lines = path.read_text().split("\n")
    doc = str(path.relative_to(REPO))
    found = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[:3]):
            j += 1
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line
                         for line in lines[i + 1:j])
        mark = mark_before(lines, i)
        found.append(Block(doc, i + 1, lang, body + "\n", mark[0] if mark else None,
                           mark[1] if mark else {}))
        i = j + 1
    return found


def indented_code(path: Path) -> list:
    """Lines that start an indented (unfenced) code block outside a list:
    such a block could not carry a mark, so it is not allowed."""
    lines = path.read_text().split("\n")
    found = []
    in_fence = False
    in_list = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if re.match(r"^\s*([-*+]|\d+\.)\s", line):
            in_list = True
        elif line.strip() and not line.startswith(" "):
            in_list = False
        if (line.startswith("    ") and line.strip() and not in_list
                and (i == 0 or not lines[i - 1].strip())):
            found.append(f"{path.relative_to(REPO)}:{i + 1}")
    return found


def script(block: Block) -> str:
    """What a user types: the block, or a console block's `$ ` lines
    (with their continuation lines)."""
    if block.lang != "console":
        return block.text
    typed, more = [], False
    for line in block.text.split("\n"):
        if line.startswith("$ ") or more:
            typed.append(line[2:] if line.startswith("$ ") and not more else line)
            more = line.endswith("\\")
    return "\n".join(typed) + "\n"


def shown_output(block: Block) -> list:
    """The lines a console block shows as printed (not typed); `...` and
    blank lines left out."""
    lines, more = [], False
    for line in block.text.split("\n"):
        typed = block.lang == "console" and (line.startswith("$ ") or more)
        more = typed and line.endswith("\\")
        if not typed and line.strip() and line.strip() != "...":
            lines.append(line.rstrip())
    return lines


def in_order(expected: list, printed: str) -> list:
    """The expected lines that are not found, in order, among the printed
    ones (empty when all are)."""
    got = iter(line.rstrip() for line in printed.split("\n"))
    return [line for line in expected if not any(line == g for g in got)]


def all_blocks() -> list:
    return [b for path in documents() for b in blocks(path)]
