"""gpcnet's catalogue of kernels is generated from the C tables, not copied:
the build writes python/gpcnet/data/catalog.json with `kernel_table_dump
--json` (cmake/write_catalog.cmake), and the file is checked in so that the
tool works where nothing is built. A kernel added to a C table without the
file regenerated, or the file edited by hand, fails here; so does a
catalogue that python/gpcnet/metrics/catalog.py reads wrongly (docs/design.md, "The
Python catalogue"). Runs the build's kernel_table_dump (no MPI), a tool
of every build (src/tools/), not only of one with the C tests."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
import mpi_harness  # noqa: E402
from gpcnet.metrics import catalog  # noqa: E402

CHECKED_IN = REPO / "python" / "gpcnet" / "data" / "catalog.json"
WRITER = REPO / "cmake" / "write_catalog.cmake"


@pytest.fixture(scope="module")
def dump():
    exe = mpi_harness.binary("kernel_table_dump")
    if not exe.exists():
        pytest.fail(f"{exe} is not built (cmake --build {mpi_harness.build_dir()})")
    return exe


def run_dump(exe, *args):
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def test_checked_in_catalogue_is_what_the_c_tables_print(dump):
    assert CHECKED_IN.read_text() == run_dump(dump, "--json"), \
        "python/gpcnet/data/catalog.json is stale: rebuild (cmake --build build) and commit it"


def test_python_catalogue_reads_the_c_tables(dump):
    # The text listing, one kernel a line, read apart from the JSON.
    rows = [line.split("\t") for line in run_dump(dump).splitlines()]
    canaries = [r[1:] for r in rows if r[0] == "canary"]
    congestors = [r[1:] for r in rows if r[0] == "congestor"]
    assert [(k.id, k.name, k.label, k.unit) for k in catalog.CANARIES] == \
        [(i, n, b, u) for i, n, b, u, _ in canaries]
    assert catalog.LOAD_CANARIES == [i for i, _, _, _, load in canaries if load == "1"]
    assert [(k.id, k.name, k.label, k.unit) for k in catalog.CONGESTORS] == \
        [(i, n, b, u) for i, n, b, u, _ in congestors]


def test_short_names_are_the_c_labels(dump):
    # The programs print a kernel's label where its size is left out (the
    # repeatability table); gpcnet's short name of it must be the same
    # words, even for a size that is not "(N B)" ("1 MiB/rank").
    labels = {r[1]: r[3] for r in (line.split("\t") for line in run_dump(dump).splitlines())}
    assert {k: catalog.short_name(k) for k in labels} == labels
    assert labels["alltoall_1mib"] == "Multiple Alltoall"


def write_catalog(dump, built, checked_in):
    subprocess.run(["cmake", f"-DDUMP={dump}", f"-DBUILT={built}", f"-DCHECKED_IN={checked_in}",
                    "-P", str(WRITER)], capture_output=True, text=True, check=True, timeout=60)


def test_the_build_step_rewrites_a_stale_catalogue_and_only_that(dump, tmp_path):
    target = tmp_path / "catalog.json"
    target.write_text('{"canaries": [], "congestors": []}\n')   # a kernel short of the tables
    write_catalog(dump, tmp_path / "built.json", target)
    assert target.read_text() == run_dump(dump, "--json")
    # An unchanged catalogue is not written again (a read-only source tree
    # builds; nothing looks changed to make or git).
    os.utime(target, (1_000_000_000, 1_000_000_000))
    write_catalog(dump, tmp_path / "built.json", target)
    assert target.stat().st_mtime == 1_000_000_000


def test_a_build_without_the_c_tests_makes_the_catalogue(tmp_path):
    # Configured only (seconds): the targets a plain `cmake --build` makes.
    # The generator is named so that `--target help` lists them.
    cache = (mpi_harness.build_dir() / "CMakeCache.txt").read_text()
    defs = ["-DGPCNET_BUILD_TESTS=OFF"]
    for var in ("CMAKE_C_COMPILER", "MPI_C_COMPILER"):
        m = re.search(rf"^{var}:[A-Z]+=(.*)$", cache, re.M)
        if m and m.group(1):
            defs.append(f"-D{var}={m.group(1)}")
    build = tmp_path / "build"
    for cmd in (["cmake", "-G", "Unix Makefiles", "-S", str(REPO), "-B", str(build), *defs],
                ["cmake", "--build", str(build), "--target", "help"]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    targets = set(re.findall(r"^\.\.\. (\S+)", p.stdout, re.M))
    assert {"kernel_table_dump", "gpcnet_catalog", "network_test"} <= targets, sorted(targets)
    assert "test_run_plan" not in targets  # the C tests are off indeed
