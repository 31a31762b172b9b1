"""The repository stands alone: a reader who clones it can follow every
reference it makes.

- No tracked file cites the internal brief the project was started from
  (its name is built below so that this file does not cite it either).
- Every `docs/<file>.md#<anchor>` reference, in code or docs (most of them
  to docs/method.md), names an anchor that the file defines.
- Every relative Markdown link in README.md and docs/ points to a file that
  exists, and its `#anchor`, if any, to a heading or an explicit
  `<a id="...">` of that file.
"""

from __future__ import annotations

import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
METHOD = ROOT / "docs" / "method.md"

BRIEF_CITATION = re.compile(r"\b" + "SP" + r"EC\b")
DOC_REF = re.compile(r"\bdocs/([A-Za-z0-9_.-]+\.md)#([A-Za-z0-9_-]+)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode()
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and ".git" not in p.parts]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def text_of(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def prose_lines(text: str):
    """(line number, line) outside fenced code, with inline code removed."""
    in_fence = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield n, re.sub(r"`[^`]*`", "", line)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML such as <a id>
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors_of(path: Path) -> frozenset[str]:
    text = text_of(path) or ""
    found: set[str] = set(EXPLICIT_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    in_fence = False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = None if in_fence else HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        k = seen.get(base, 0)
        seen[base] = k + 1
        found.add(base if k == 0 else f"{base}-{k}")
    return frozenset(found)


def markdown_docs() -> list[Path]:
    return [p for p in tracked_files()
            if p.suffix == ".md" and (p == ROOT / "README.md"
                                      or p.is_relative_to(ROOT / "docs"))]


def test_no_file_cites_the_internal_brief():
    offenders = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if BRIEF_CITATION.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, ("cite docs/method.md instead:\n" + "\n".join(offenders))


def test_method_document_has_the_stable_anchors():
    anchors = anchors_of(METHOD)
    for name in ("canaries", "congestors", "load-sequence", "statistics",
                 "congestion-impact", "official-defaults", "options", "json-record"):
        assert name in anchors, name


def section_refs(path: Path):
    """(line, file name, anchor, resolves) of each docs/<file>.md#<anchor>."""
    for n, line in enumerate((text_of(path) or "").splitlines(), 1):
        for name, anchor in DOC_REF.findall(line):
            target = ROOT / "docs" / name
            yield n, name, anchor, target.is_file() and anchor in anchors_of(target)


def test_section_references_in_code_and_docs_resolve():
    """`docs/<file>.md#<anchor>` anywhere (code comments, --help, docs)."""
    broken, method_used = [], set()
    this = Path(__file__).resolve()
    for path in tracked_files():
        if path == this:
            continue
        for n, name, anchor, ok in section_refs(path):
            if name == METHOD.name:
                method_used.add(anchor)
            if not ok:
                broken.append(f"{shown(path)}:{n}: docs/{name}#{anchor}")
    assert not broken, "no such section:\n" + "\n".join(broken)
    assert method_used, "nothing refers to docs/method.md sections"


def test_a_broken_section_reference_is_reported(tmp_path):
    code = tmp_path / "probe.c"
    code.write_text("/* docs/method.md#loops docs/method.md#no-such-section\n"
                    " * docs/no-such-doc.md#x docs/running.md#official-runs */\n")
    found = [(name, anchor) for _, name, anchor, ok in section_refs(code) if not ok]
    assert found == [("method.md", "no-such-section"), ("no-such-doc.md", "x")]


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def broken_links(path: Path) -> list[str]:
    text = text_of(path) or ""
    out = []
    for n, line in prose_lines(text):
        for target in LINK.findall(line):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, mailto: ...
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{shown(path)}:{n}: ({target})"
            if not dest.exists():
                out.append(f"{where} no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors_of(dest):
                out.append(f"{where} no such anchor")
    return out


def test_relative_links_in_readme_and_docs_resolve():
    docs = markdown_docs()
    assert ROOT / "README.md" in docs and METHOD in docs
    broken = [b for p in docs for b in broken_links(p)]
    assert not broken, "broken links:\n" + "\n".join(broken)


@pytest.mark.parametrize("heading, anchor", [
    ("Figures of merit for wrappers", "figures-of-merit-for-wrappers"),
    ("`--repeat N`: run-to-run variation", "--repeat-n-run-to-run-variation"),
    ("Slurm on the testbed", "slurm-on-the-testbed"),
    ("Measured here (2026-11-24, Open MPI 4.1.4)", "measured-here-2026-11-24-open-mpi-414"),
])
def test_heading_anchors_as_github_makes_them(heading, anchor):
    assert slug(heading) == anchor


def test_a_broken_link_is_reported(tmp_path):
    (tmp_path / "method.md").write_text('# Only\n\n<a id="kept"></a>\n')
    doc = tmp_path / "probe.md"
    doc.write_text("# Probe\n\n[a](method.md#no-such-anchor-here) [b](no-such-file.md)\n"
                   "```\n[c](ignored-in-code.md)\n```\n[d](#probe) [e](method.md#kept)\n"
                   "[f](method.md#only) `[g](inline-code.md)`\n")
    found = broken_links(doc)
    assert len(found) == 2, found
    assert "no such anchor" in found[0] and "no such file" in found[1]


@pytest.mark.parametrize("line, cites", [
    ("/* (" + "SP" + "EC A.4) */", True),
    ("see " + "SP" + "EC Part C", True),
    ("_LATEX_" + "SP" + "ECIAL = {}", False),
    ("docs/method.md#loops", False),
], ids=["section", "part", "inside-a-word", "method-link"])
def test_what_counts_as_a_citation_of_the_brief(line, cites):
    assert bool(BRIEF_CITATION.search(line)) is cites
