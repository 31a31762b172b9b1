"""The testbed's MPICH launcher without a testbed (no root): its command,
its environment, and the programs and installs it refuses. The jobs
themselves: tests/testbed/test_mpich.py."""
import subprocess

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import mpich, netns, topology


@pytest.fixture
def prefix(tmp_path, monkeypatch):
    """A fake MPICH install and a private testbed state directory."""
    (tmp_path / "mpich" / "bin").mkdir(parents=True)
    (tmp_path / "mpich" / "bin" / "mpiexec.hydra").write_text("#!/bin/sh\n")
    monkeypatch.setattr(mpich, "MPICH_PREFIX", tmp_path / "mpich")
    (tmp_path / "state").mkdir()
    monkeypatch.setattr(netns, "STATE_DIR", tmp_path / "state")
    return tmp_path / "mpich"


def test_hydra_over_the_management_network(prefix):
    topo = topology.build("star", 4)
    cmd = mpich.mpiexec_command(topo, 2, ["./network_test", "--time-limit", "1"])
    assert cmd[0] == str(prefix / "bin" / "mpiexec.hydra")
    opts = dict(zip(cmd[1:-3:2], cmd[2:-3:2]))
    assert opts == {"-f": str(netns.STATE_DIR / "hostfile-mpich-2"), "-n": "8", "-ppn": "2",
                    "-launcher": "rsh", "-launcher-exec": str(netns.STATE_DIR / "rsh-agent"),
                    "-iface": "mgmt0"}
    assert cmd[-3:] == ["./network_test", "--time-limit", "1"]
    hosts = (netns.STATE_DIR / "hostfile-mpich-2").read_text().splitlines()
    assert hosts == ["node01:2", "node02:2", "node03:2", "node04:2"]


def test_data_on_the_fabric_through_ofi():
    env = mpich.settings()
    assert env["MPIR_CVAR_CH4_NETMOD"] == "ofi"
    assert (env["FI_PROVIDER"], env["FI_TCP_IFACE"]) == ("tcp", "data0")


def test_missing_install_named(tmp_path, monkeypatch):
    monkeypatch.setattr(mpich, "MPICH_PREFIX", tmp_path / "none")
    with pytest.raises(GpcnetError, match=r"no MPICH for the testbed at .*none .*run "
                                          r"scripts/setup-testbed.sh, which installs it"):
        mpich.mpiexec()


@pytest.mark.parametrize("linked, refused", [
    ("libmpich.so.12 => /lib/x86_64-linux-gnu/libmpich.so.12", "built against Debian's MPICH"),
    ("libmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40", "built against Open MPI"),
    ("libmpi.so.12 => /opt/gpcnet-mpich/lib/libmpi.so.12", None),
])
def test_programs_of_another_mpi_refused(tmp_path, monkeypatch, linked, refused):
    program = tmp_path / "network_test"
    program.write_bytes(b"\x7fELF")
    seen = []

    def fake_ldd(cmd, **kw):
        seen.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout=f"\t{linked} (0x0)\n", stderr="")
    monkeypatch.setattr(mpich.subprocess, "run", fake_ldd)
    if refused:
        with pytest.raises(GpcnetError, match=refused):
            mpich.check_program([str(program)])
    else:
        mpich.check_program([str(program)])
    assert seen == [["ldd", str(program)]]


def test_commands_not_files_left_alone(monkeypatch):
    monkeypatch.setattr(mpich.subprocess, "run", lambda *a, **k: pytest.fail("ldd run"))
    mpich.check_program(["hostname"])
    mpich.check_program([])


def test_unknown_mpi_refused(capsys):
    from gpcnet.cli import main
    with pytest.raises(SystemExit) as e:
        main(["testbed", "run", "--mpi", "mvapich", "--", "true"])
    assert e.value.code == 2
    assert "invalid choice: 'mvapich'" in capsys.readouterr().err
