"""The restructuring of the suites changed no output: the programs built from
the base commit (golden.BASE) and from this tree print the same tables, write
the same node lists and the same JSON for fixed seeds on 10 x 1 and 10 x 4
emulated nodes, measured values, times and timestamps masked (golden.py)."""
import os
import shutil
import subprocess

import pytest

import golden


def have_base():
    return subprocess.run(["git", "-C", str(golden.mpi_harness.REPO), "cat-file", "-e",
                           golden.BASE + "^{commit}"], capture_output=True).returncode == 0


def test_mask_keeps_names_and_hides_numbers():
    line = "|          RR Two-sided Lat (8 B) |         10.9 |         46.6 |         usec |"
    assert golden.mask_text(line) == \
        "|          RR Two-sided Lat (8 B) |            # |            # |         usec |\n"
    doc = {"avg": 1.5, "name": "x", "seed": 3, "seed_source": "time", "reports": [
        {"kernel": "b", "t_s": 1}, {"kernel": "a", "t_s": 2}, {"kernel": "b", "t_s": 2}]}
    assert golden.mask_json(doc) == {"avg": "#", "name": "x", "seed": "#",
                                     "seed_source": "time", "reports": ["a", "b"]}


def sanitized(build):
    cache = build / "CMakeCache.txt"
    return cache.exists() and "GPCNET_SANITIZE:BOOL=ON" in cache.read_text()


@pytest.mark.skipif(not have_base(), reason="the base commit is not in this clone's history")
def test_same_output_as_base_commit(harness):
    # Output is the same whatever the MPI: one comparison, on the plain Open
    # MPI build, is enough (under MPICH's busy polling it takes minutes).
    if golden.mpi_harness.MPI != "openmpi" or sanitized(harness.build_dir()):
        pytest.skip("the comparison runs once, on the plain Open MPI build")
    base = golden.build_base(harness.build_dir(), golden.BASE)
    diffs = golden.compare(base, harness.build_dir())
    assert not diffs, "\n\n".join(diffs)


SIMGRID_BUILD = golden.mpi_harness.REPO / os.environ.get("GPCNET_SIMGRID_BUILD_DIR",
                                                        "build-simgrid")


@pytest.mark.skipif(not have_base() or not shutil.which("smpirun")
                    or not (SIMGRID_BUILD / "network_test").exists(),
                    reason="SimGrid or its build missing (scripts/build.sh --mpi simgrid)")
def test_same_whole_output_as_base_commit_under_simgrid():
    base = golden.build_base(SIMGRID_BUILD, golden.SIMGRID_BASE)
    diffs = golden.compare(base, SIMGRID_BUILD, golden.SIMGRID_CASES, golden.run_simgrid_case)
    assert not diffs, "\n\n".join(diffs)
