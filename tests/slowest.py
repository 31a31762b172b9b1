"""Print the slowest test cases of a test run from its JUnit XML files
(scripts/test.sh writes one per pytest stage), as a Markdown table:

    python3 tests/slowest.py [--top N] FILE.xml ...

A file's name (without .xml) names its stage."""
from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def cases(path: Path):
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":")
        yield float(case.get("time") or 0), path.stem, name


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    found = []
    for path in args.files:
        try:
            found.extend(cases(path))
        except (OSError, ET.ParseError) as e:
            print(f"slowest.py: {path}: {e}", file=sys.stderr)
    found.sort(reverse=True)
    total = sum(t for t, _, _ in found)
    print(f"{len(found)} cases, {total:.0f} s in all; the slowest {min(args.top, len(found))}:")
    print("| s | stage | test |\n|---:|---|---|")
    for t, stage, name in found[:args.top]:
        print(f"| {t:.1f} | {stage} | `{name}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
