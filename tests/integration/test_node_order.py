"""Nodes are numbered in sorted host-name order, as the reference numbers
them (it decides the natural ring and the slice order). Host names are
faked with the bench/ shim; the same seed must then give the same
placement whatever the order of the ranks on the names."""
import shutil
import subprocess

import pytest

from mpi_harness import REPO


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the host-name shim")
    out = tmp_path_factory.mktemp("shim") / "gethostname_shim.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out),
                    str(REPO / "bench" / "gethostname_shim.c"), "-ldl"], check=True)
    return out


def placement(harness, tmp_path, shim, descending):
    env = {**harness.preload_env(shim), "GPCNET_SHIM_PPN": "1", "GPCNET_SHIM_PREFIX": "host"}
    if descending:
        env["GPCNET_SHIM_DESCENDING_NODES"] = "10"
    out = tmp_path / ("desc" if descending else "asc")
    out.mkdir()
    # Open MPI passes the environment of mpirun on; MPICH's mpiexec too.
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", "--seed", "12",
                    "--tests", "rr_two_sided_lat", *harness.QUICK, *harness.QUICK_CONGESTORS,
                    "--output-dir", out, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    return harness.load_json(out / "network_load_test.json")


def test_nodes_are_numbered_by_sorted_host_name(harness, tmp_path, shim):
    asc = placement(harness, tmp_path, shim, descending=False)
    desc = placement(harness, tmp_path, shim, descending=True)
    assert desc["environment"]["hostname"] == "host00009"  # rank 0 named last
    assert asc["environment"]["hostname"] == "host00000"
    # Node i is the i-th name in sorted order in both runs, so the same seed
    # shuffles the same names into the same places.
    names = lambda doc: [n.split("#")[0] for n in doc["placement"]["all_nodes"]]
    assert sorted(names(asc)) == [f"host{i:05d}" for i in range(10)]
    assert names(asc) == names(desc)
    assert [n.split("#")[1] for n in asc["placement"]["all_nodes"]] == \
        [n.split("#")[0][-1].lstrip("0") or "0" for n in asc["placement"]["all_nodes"]]
