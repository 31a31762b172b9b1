"""Memory checking of small jobs (docs/reliability.md, "Memory").

- valgrind memcheck on every rank: no error and no definite leak, apart
  from the MPI library's own, suppressed by tests/suppressions/valgrind-mpi.supp;
- LeakSanitizer in the ASan+UBSan build, with full unwinding so that the
  MPI library's own leaks are recognised by tests/suppressions/lsan-mpi.supp.

The ASan+UBSan build runs the integration and reliability suites with
ASAN_OPTIONS=detect_leaks=0 (scripts/test-reliability.sh); leaks are
checked here, on two small jobs, because full unwinding makes every
allocation slow.

Run with GPCNET_HEAVY=1 and GPCNET_MPI=openmpi. Build directories:
GPCNET_VALGRIND_BUILD_DIR (default build-openmpi), GPCNET_ASAN_BUILD_DIR
(default build-openmpi-asan).
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from relsupport import TINY, TINY_CONGESTORS, mpi_harness

REPO = Path(__file__).resolve().parents[3]
SUPP = REPO / "tests" / "suppressions"
VALGRIND_BUILD = Path(os.environ.get("GPCNET_VALGRIND_BUILD_DIR", REPO / "build-openmpi"))
ASAN_BUILD = Path(os.environ.get("GPCNET_ASAN_BUILD_DIR", REPO / "build-openmpi-asan"))

JOBS = {
    # np, program, arguments: every canary kernel, and every congestor kernel
    # with its isolated baseline (--verbose) and under load.
    "network_test": (4, "network_test", ["--emulate-nodes", "1", *TINY]),
    "network_load_test": (10, "network_load_test",
                          ["--emulate-nodes", "1", *TINY, *TINY_CONGESTORS, "--verbose",
                           "--seed", "2"]),
    "network_load_test-other-congestors": (6, "network_load_test",
                                           ["--emulate-nodes", "1", *TINY, *TINY_CONGESTORS,
                                            "--congestors", "dl_allreduce,p2p_bcast",
                                            "--tests", "multiple_allreduce", "--seed", "2"]),
}


@pytest.mark.cap(240)
@pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind not installed")
@pytest.mark.parametrize("job", sorted(JOBS))
def test_valgrind_memcheck(tmp_path, job):
    np, program, args = JOBS[job]
    binary = VALGRIND_BUILD / program
    if not binary.exists():
        pytest.skip(f"{binary} not built (scripts/build.sh --mpi openmpi)")
    logs = tmp_path / "vg"
    logs.mkdir()
    valgrind = ["valgrind", f"--suppressions={SUPP / 'valgrind-mpi.supp'}",
                "--leak-check=full", "--errors-for-leak-kinds=definite",
                "--show-leak-kinds=definite", "--error-exitcode=99", "--num-callers=40",
                f"--log-file={logs}/rank.%p.log"]
    cmd = mpi_harness.launcher(np) + valgrind + [str(binary), *args, "--output-dir",
                                                 str(tmp_path)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=220,
                       env=mpi_harness.mpi_env(), stdin=subprocess.DEVNULL)
    reports = sorted(logs.glob("rank.*.log"))
    summaries = [re.findall(r"ERROR SUMMARY: (\d+) errors", r.read_text()) for r in reports]
    bad = [r.name for r, s in zip(reports, summaries) if s != ["0"]]
    details = "".join(reports[0].read_text() if not bad else
                      (logs / bad[0]).read_text())[-6000:]
    assert p.returncode == 0, p.stderr[-2000:] + details
    assert len(reports) == np and not bad, details


@pytest.mark.cap(240)
@pytest.mark.parametrize("job", ["network_test", "network_load_test"])
def test_asan_leak_check(tmp_path, job):
    np, program, args = JOBS[job]
    binary = ASAN_BUILD / program
    if not binary.exists():
        pytest.skip(f"{binary} not built (scripts/build.sh --mpi openmpi --sanitize)")
    logs = tmp_path / "asan"
    env = mpi_harness.mpi_env({
        "ASAN_OPTIONS": f"fast_unwind_on_malloc=0:log_path={logs}",
        "LSAN_OPTIONS": f"suppressions={SUPP / 'lsan-mpi.supp'}:print_suppressions=0",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    })
    cmd = mpi_harness.launcher(np) + [str(binary), *args, "--output-dir", str(tmp_path)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=220, env=env,
                       stdin=subprocess.DEVNULL)
    reports = sorted(tmp_path.glob("asan.*"))
    text = "".join(r.read_text() for r in reports)
    assert p.returncode == 0 and not reports, p.stderr[-2000:] + text[-6000:]
