"""gpcnet-bind on the rail testbed (docs/running.md#multi-nic-nodes): 4
hosts with 2 data NICs each, NIC i on the leaf of rail i. A rank bound to
NIC 1 moves its bytes through NIC 1's port and none through NIC 0's,
under Open MPI and under MPICH, and the results JSON says which NIC each
rank used; with one rank per NIC (round robin) each node slice stays on
its rail; a NIC the hosts do not have is refused before anything runs.
A checkout below /tmp (the hosts' own) reaches the hosts as a copy."""
import shutil
import sys
import tempfile
from pathlib import Path

import mpi_harness
import pytest
from mpi_harness import python_on_every_host

from conftest import QUICK, binary, gpcnet, load, make_testbed

rail4 = make_testbed("--topology", "rail", "--nics-per-host", "2", "--hosts", "4", "--host-rate", "100mbit")
BYTES = 4_000_000


def bound_job(tmp_path, name, bind, ppn=1, mpi=(), program=None):
    """One RR Two-sided BW job through gpcnet-bind; the counters' delta
    and the results JSON."""
    counters = tmp_path / f"{name}.json"
    prog = [str(program or binary("network_test")), "--tests", "rr_two_sided_bw", *QUICK,
            "--output-dir", str(tmp_path / name)]
    p = gpcnet("testbed", "run", *mpi, "--ppn", ppn, "--timeout", 180, "--counters", counters,
               "--", *python_on_every_host(), "-m", "gpcnet.bind_cli", *bind, "--", *prog, timeout=240)
    assert f"Test with {4 * ppn} MPI ranks (4 nodes)" in p.stdout, p.stdout[-2000:]
    return load(counters)["delta"], load(tmp_path / name / "network_test.json")


def to_hosts(delta, rail):
    return delta["rails"][str(rail)]["to_hosts_bytes"]


def sent_by_nic(delta, nic):
    """Bytes every host sent through its NIC `nic` (the hosts' own ports)."""
    return sum(p["link_tx_bytes"] for k, p in delta["ports"].items() if k.endswith(f"/data{nic}"))


def test_open_mpi_ranks_bound_to_nic_1_send_nothing_through_nic_0(rail4, tmp_path):
    # The testbed puts Open MPI on NIC 0 (btl_tcp_if_include): gpcnet-bind overrides it.
    d, doc = bound_job(tmp_path, "ompi1", ["--nics", "data1"])
    assert sent_by_nic(d, 1) > 10 * BYTES and sent_by_nic(d, 0) < sent_by_nic(d, 1) / 100
    assert to_hosts(d, 1) > 10 * BYTES and to_hosts(d, 0) < to_hosts(d, 1) / 100
    assert [n["nics"] for n in doc["nics"]["nodes"]] == [["data1"]] * 4


def test_mpich_ranks_bound_to_nic_1_send_nothing_through_nic_0(rail4, mpich_programs, tmp_path):
    # The testbed's MPICH uses FI_TCP_IFACE=data0: gpcnet-bind overrides it.
    d, doc = bound_job(tmp_path, "mpich1", ["--nics", "data1"], mpi=("--mpi", "mpich"),
                       program=mpich_programs / "network_test")
    assert sent_by_nic(d, 1) > 10 * BYTES and sent_by_nic(d, 0) < sent_by_nic(d, 1) / 100
    assert [n["nics"] for n in doc["nics"]["nodes"]] == [["data1"]] * 4


def test_one_rank_per_nic_keeps_every_slice_on_its_rail(rail4, tmp_path):
    # Local rank k on NIC k: slice k (local rank k of every node) is rail k.
    d, doc = bound_job(tmp_path, "rr", ["--nics-per-node", "2"], ppn=2)
    assert to_hosts(d, 0) > 5 * BYTES and to_hosts(d, 1) > 5 * BYTES
    assert d["spines"]["bytes"] < (to_hosts(d, 0) + to_hosts(d, 1)) / 100
    assert [n["nics"] for n in doc["nics"]["nodes"]] == [["data0", "data1"]] * 4
    entry = doc["nics"]["canaries"][0]
    assert [r["rail"] for r in entry["rails"]] == [0, 1] and len(entry["nics"]) == 8


def test_a_nic_the_hosts_lack_is_refused_before_the_program_starts(rail4, tmp_path):
    p = gpcnet("testbed", "run", "--timeout", 120, "--", *python_on_every_host(), "-m", "gpcnet.bind_cli",
               "--nics", "data0,data2", "--", str(binary("network_test")), "--output-dir",
               str(tmp_path / "x"), timeout=180, check=False)
    assert p.returncode != 0
    lines = [l for l in p.stderr.splitlines() if l.startswith("gpcnet-bind: ")]
    assert lines and all("NIC data2 is not on this host" in l for l in lines), p.stderr[-2000:]
    assert any(" on host node0" in l for l in lines)
    assert not (tmp_path / "x" / "network_test.json").exists()


@pytest.mark.no_root_needed
def test_a_package_below_tmp_reaches_the_hosts_as_a_copy(monkeypatch):
    # An editable install of a checkout in /tmp: the hosts' /tmp is their own.
    import gpcnet
    src = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        (src / "gpcnet" / "__pycache__").mkdir(parents=True)
        (src / "gpcnet" / "__init__.py").write_text("MARK = 7\n")
        monkeypatch.setattr(gpcnet, "__file__", str(src / "gpcnet" / "__init__.py"))
        monkeypatch.setattr(mpi_harness, "_shared_dirs", {})
        cmd = python_on_every_host()
        assert cmd[0] == "env" and cmd[1].startswith("PYTHONPATH=/var/tmp/")
        assert cmd[-1] == mpi_harness.interpreter_on_every_host()
        copy = Path(cmd[1].split("=", 1)[1])
        assert (copy / "gpcnet" / "__init__.py").read_text() == "MARK = 7\n"
        assert not (copy / "gpcnet" / "__pycache__").exists()
        assert python_on_every_host() == cmd  # once per session
        shutil.rmtree(copy)
    finally:
        shutil.rmtree(src)


@pytest.mark.no_root_needed
def test_a_venv_below_tmp_gives_the_hosts_its_base_python(monkeypatch):
    """The test command's venv is beside the build (scripts/venv-lib.sh): a
    checkout in /tmp has it in a directory every host has to itself, so
    the hosts run the Python it was made from, which they see."""
    monkeypatch.setattr(sys, "executable", "/tmp/clone/build-venv/bin/python3")
    monkeypatch.setattr(sys, "_base_executable", "/usr/bin/python3", raising=False)
    assert mpi_harness.interpreter_on_every_host() == "/usr/bin/python3"
    assert python_on_every_host()[-1] == "/usr/bin/python3"
    monkeypatch.setattr(sys, "executable", "/var/tmp/clone/build-venv/bin/python3")
    assert mpi_harness.interpreter_on_every_host() == "/var/tmp/clone/build-venv/bin/python3"
