"""The option table's output against golden files made from the commit
before it: --help of the three programs, the first error line and exit
status of the bad options, and the settings lines and JSON config of five
option combinations (options_golden.py has the cases)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import options_golden  # noqa: E402


def test_options_output_matches_golden_files(harness):
    diffs = options_golden.compare(harness.build_dir())
    assert not diffs, "".join(diffs)
