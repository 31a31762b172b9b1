"""MPICH on the testbed (`gpcnet testbed run --mpi mpich`): Hydra starts the
ranks on 4 hosts over the management network, the data crosses the
switches in proportion to the traffic, and every job ends (Debian's
MPICH, ch4:ucx, hung in MPI_Finalize; the testbed's MPICH uses ch4:ofi)."""
import os
import subprocess

import pytest

import mpi_harness
from conftest import QUICK, REPO, gpcnet, load, make_testbed

star4 = make_testbed("--topology", "star", "--hosts", "4")
HOSTS = [f"node{i:02d}" for i in range(1, 5)]
PAYLOAD = 131072 * 8 * 2          # RR Two-sided BW: 8 messages each way per iteration


def bw_run(mpich_programs, tmp_path, iterations):
    """One RR Two-sided BW measurement of 2 rings; the edge ports' bytes."""
    out = tmp_path / f"it{iterations}"
    counters = tmp_path / f"counters{iterations}.json"
    p = gpcnet("testbed", "run", "--mpi", "mpich", "--timeout", 120, "--counters", counters, "--",
               mpich_programs / "network_test", "--tests", "rr_two_sided_bw", "--time-limit", "60",
               "--measurements", "1", "--rings", "2", "--iterations", iterations, "--warmup", "1",
               "--output-dir", out, timeout=180)
    assert "Test with 4 MPI ranks (4 nodes)" in p.stdout
    assert "MPI = MPICH Version:" in p.stdout
    doc = load(out / "network_test.json")
    assert doc["status"] == "complete" and doc["environment"]["hostname"] in HOSTS
    delta = load(counters)["delta"]["ports"]
    edge = [v["bytes"] for v in delta.values() if v["tier"] == "edge"]
    assert len(edge) == 4 and all(b > 0 for b in edge), delta
    return sum(edge)


def test_mpich_bytes_cross_the_fabric_in_proportion(star4, mpich_programs, tmp_path):
    few = bw_run(mpich_programs, tmp_path, 2)
    many = bw_run(mpich_programs, tmp_path, 8)
    # One rank per host: every message crosses the switch once, at the
    # receiver's edge port. The difference of the two runs is 4 ranks x
    # 2 rings x 6 iterations of payload (warm-up and set-up cancel), plus
    # the headers of TCP, IP and Ethernet (a few per cent).
    expected = 4 * 2 * 6 * PAYLOAD
    assert 0.98 * expected <= many - few <= 1.2 * expected, (few, many, expected)


def test_mpich_two_ranks_per_host_end(star4, mpich_programs, tmp_path):
    """8 ranks, 2 per host (on a host MPICH's shared memory, between hosts
    the fabric): the job ends, three times in a row (Debian's MPICH hung
    at the end in most such jobs)."""
    for i in range(3):
        out = tmp_path / f"run{i}"
        p = gpcnet("testbed", "run", "--mpi", "mpich", "--ppn", 2, "--timeout", 90, "--",
                   mpich_programs / "network_test", *QUICK, "--tests", "rr_two_sided_lat,rr_get_lat",
                   "--output-dir", out, timeout=150)
        assert "Test with 8 MPI ranks (4 nodes)" in p.stdout
        doc = load(out / "network_test.json")
        assert doc["status"] == "complete"
        assert (doc["environment"]["ppn_min"], doc["environment"]["ppn_max"]) == (2, 2)


def test_mpich_load_test_across_hosts(star4, mpich_programs, tmp_path):
    """The load test under Hydra, its congestors on the hosts (4 hosts: one
    congestor, the a2a one, and 2 canary nodes)."""
    gpcnet("testbed", "run", "--mpi", "mpich", "--ppn", 2, "--timeout", 150, "--",
           mpich_programs / "network_load_test", *QUICK, "--tests", "rr_two_sided_lat",
           "--congestors", "a2a", "--canary-fraction", "0.5", "--congestor-measurements", "2",
           "--congestor-iterations", "2", "--output-dir", tmp_path, timeout=200)
    doc = load(tmp_path / "network_load_test.json")
    assert doc["status"] == "complete"
    assert sorted(doc["placement"]["all_nodes"]) == HOSTS


def test_program_of_another_mpi_refused(star4):
    """A program built against Debian's MPICH (it would hang at the end) or
    Open MPI (its ranks would each start alone) is refused, nothing started."""
    p = gpcnet("testbed", "run", "--mpi", "mpich", "--", mpi_harness.binary("network_test"),
               check=False)
    assert p.returncode == 2
    assert "built against Open MPI; run it without --mpi mpich" in p.stderr
    assert p.stdout == ""


def test_setup_installs_it_with_debians_python(tmp_path):
    """scripts/setup-testbed.sh under Debian's own Python, whose pip puts a
    --prefix install under PREFIX/local unless told otherwise (a fresh
    machine has only that Python); a prefix that is a link is refused."""
    if subprocess.run(["/usr/bin/python3", "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("Debian's /usr/bin/python3 has no pip here")
    env = dict(os.environ, PATH="/usr/bin:/bin:/usr/sbin:/sbin",
               GPCNET_MPICH_PREFIX=str(tmp_path / "mpich"))
    p = subprocess.run(["bash", str(REPO / "scripts" / "setup-testbed.sh")], env=env, text=True,
                       capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    version = subprocess.run([str(tmp_path / "mpich" / "bin" / "mpichversion")],
                             capture_output=True, text=True).stdout
    assert "MPICH Version:      5.0.2" in version and "ofi" in version
    assert (tmp_path / "mpich" / "bin" / "mpiexec.hydra").exists()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    env["GPCNET_MPICH_PREFIX"] = str(tmp_path / "link")
    p = subprocess.run(["bash", str(REPO / "scripts" / "setup-testbed.sh")], env=env, text=True,
                       capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "is a symbolic link; refusing to install through it" in p.stderr
    assert not (tmp_path / "elsewhere").exists()
