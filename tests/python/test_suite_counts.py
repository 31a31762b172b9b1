"""scripts/stage-lib.sh: the whole suite (scripts/test.sh) counts each
stage's tests from the stage's summary line only. A count inside a test's
output once made a CI run report "2407 passed, 1025 failed" and exit 1
with every stage passed: Open MPI's "connect() to 198.19.0.7:1025 failed",
quoted in a pytest warning of the testbed stage, was the last
"N failed" of that stage's log."""
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

OPEN_MPI_WARNING = """\
  WARNING: Open MPI failed to TCP connect to a peer MPI process.  This
    Message:    connect() to 198.19.0.7:1025 failed
    Error:      Operation now in progress (115)
"""


def counts(tmp_path, log: str) -> tuple:
    f = tmp_path / "stage.log"
    f.write_text(log)
    out = subprocess.run(["bash", "-c", '. scripts/stage-lib.sh && stage_counts "$1"', "counts", f],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    passed, failed = out.split()
    return int(passed), int(failed)


@pytest.mark.parametrize("log, expected", [
    # The testbed stage of that CI run: the warning's count is not a test's.
    ("....\n=== warnings summary ===\n" + OPEN_MPI_WARNING +
     "215 passed, 1 skipped, 1 warning in 698.94s (0:11:38)\n", (215, 0)),
    # A failing pytest stage (decorated summary), errors counted as failed.
    ("F.E\n" + OPEN_MPI_WARNING + "===== 1 failed, 2 passed, 1 error in 3.10s =====\n", (2, 2)),
    ("1 failed, 126 passed, 24 skipped in 152.02s (0:02:32)\n", (126, 1)),
    # The C unit tests' restatement and the reliability lane's last line.
    ("100% tests passed, 0 tests failed out of 22\nctest: 22 passed, 0 failed\n", (22, 0)),
    ("[ 530s] mpich-integration: 73 passed, 0 failed, 0 skipped (348 s)\n"
     "[1542s] total time 1542 s\n512 passed, 0 failed\n", (512, 0)),
    # No summary at all (a stage that died early).
    (OPEN_MPI_WARNING + "Traceback (most recent call last):\n", (0, 0)),
])
def test_only_a_summary_line_counts(tmp_path, log, expected):
    assert counts(tmp_path, log) == expected


def test_the_suite_counts_with_the_library():
    text = (REPO / "scripts" / "test.sh").read_text()
    assert ". scripts/stage-lib.sh" in text and "stage_counts" in text
    assert "grep -Eo '[0-9]+ failed' \"$2\"" not in text
