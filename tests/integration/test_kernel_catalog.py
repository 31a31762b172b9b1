"""gpcnet's catalogue of kernels (python/gpcnet/catalog.py) says what the C
tables say: the same ids, printed names and units in the same order, and the
same three load-test canaries. A kernel added to a C table and not to the
catalogue (or the other way round) fails here. Runs the build's
kernel_table_dump (no MPI)."""
import subprocess
import sys

import pytest

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "python"))
import mpi_harness  # noqa: E402
from gpcnet import catalog  # noqa: E402


@pytest.fixture(scope="module")
def c_tables():
    exe = mpi_harness.binary("kernel_table_dump")
    if not exe.exists():
        pytest.fail(f"{exe} is not built (cmake -DGPCNET_BUILD_TESTS=ON)")
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return {"canary": [r[1:] for r in rows if r[0] == "canary"],
            "congestor": [r[1:] for r in rows if r[0] == "congestor"]}


def test_canaries_match_the_c_table(c_tables):
    assert [(k.id, k.name, k.unit) for k in catalog.CANARIES] == \
        [(i, n, u) for i, n, u, _ in c_tables["canary"]]
    assert catalog.LOAD_CANARIES == [i for i, _, _, load in c_tables["canary"] if load == "1"]


def test_congestors_match_the_c_table(c_tables):
    assert [(k.id, k.name, k.unit) for k in catalog.CONGESTORS] == \
        [(i, n, u) for i, n, u, _ in c_tables["congestor"]]
