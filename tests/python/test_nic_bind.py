"""gpcnet-bind (docs/running.md#multi-nic-nodes): the local rank each
launcher gives, the NIC each rank gets, the variables set for each MPI,
and the refusal of NICs the host does not have. No MPI is started: the
launchers are stood in for by their variables."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpcnet.binding import nic_bind
from gpcnet.binding.nic_bind import BindError

REPO = Path(__file__).resolve().parents[2]


def fake_sys(root: Path, nets=("eth0", "eth1", "eth2", "eth3"), numa_of_nic=None,
             cpus_per_numa=2, numas=2, ib=()):
    """A /sys with netdevs, RDMA ports and a NUMA layout."""
    for n in ("lo",) + tuple(nets):
        (root / "class" / "net" / n).mkdir(parents=True)
    for n, numa in (numa_of_nic or {}).items():
        (root / "class" / "net" / n / "device").mkdir(parents=True)
        (root / "class" / "net" / n / "device" / "numa_node").write_text(f"{numa}\n")
    for dev in ib:
        name, port = dev.split(":")
        (root / "class" / "infiniband" / name / "ports" / port).mkdir(parents=True)
    for node in range(numas):
        for c in range(node * cpus_per_numa, (node + 1) * cpus_per_numa):
            (root / "devices" / "system" / "cpu" / f"cpu{c}" / f"node{node}").mkdir(parents=True)
    return str(root)


@pytest.mark.parametrize("var", nic_bind.LOCAL_RANK_VARS)
def test_each_launchers_local_rank_is_read(var):
    assert nic_bind.local_rank({var: "5"}) == 5


def test_the_mpi_launchers_rank_wins_over_slurms():
    # mpirun inside an allocation: SLURM_LOCALID is its daemon's, not the rank's.
    assert nic_bind.local_rank({"SLURM_LOCALID": "0", "OMPI_COMM_WORLD_LOCAL_RANK": "3"}) == 3
    assert nic_bind.local_rank({"SLURM_LOCALID": "0", "MPI_LOCALRANKID": "2"}) == 2


BAD_NUMBERS = ["²", "٣", "7" * 5000]    # str.isdigit() accepts each; int() refuses or misreads them


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_local_rank_that_is_not_ascii_digits_is_one_clear_line(value):
    with pytest.raises(BindError) as e:
        nic_bind.local_rank({"OMPI_COMM_WORLD_LOCAL_RANK": value})
    text = str(e.value)
    assert text.startswith("OMPI_COMM_WORLD_LOCAL_RANK='") and "not a whole number (ASCII digits, at most 20)" in text
    assert len(text) < 200 and "\n" not in text
    assert nic_bind.local_size({"OMPI_COMM_WORLD_LOCAL_SIZE": "4", "SLURM_TASKS_PER_NODE": value}) == 4
    assert nic_bind.local_size({"SLURM_TASKS_PER_NODE": value}) is None
    with pytest.raises(BindError, match="^MPI_LOCALNRANKS="):
        nic_bind.local_size({"MPI_LOCALNRANKS": value})


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_the_wrapper_says_one_line_for_a_bad_local_rank(value):
    p = _bind(["--nics", "lo", "--show"], {"OMPI_COMM_WORLD_LOCAL_RANK": value, "OMPI_COMM_WORLD_RANK": value})
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpcnet-bind: OMPI_COMM_WORLD_LOCAL_RANK='"), p.stderr
    assert "Traceback" not in p.stderr and len(lines[0]) < 200


def test_no_launcher_is_refused():
    with pytest.raises(BindError, match="no local rank"):
        nic_bind.local_rank({})


def test_round_robin_by_local_rank():
    nics = ["eth1", "eth2"]
    got = [nic_bind.choose(nics, r).nic for r in range(6)]
    assert got == ["eth1", "eth2"] * 3
    assert [nic_bind.choose(nics, r).index for r in range(4)] == [0, 1, 0, 1]


def test_nic_splitter_gives_contiguous_blocks():
    nics = ["eth0", "eth1"]
    assert [nic_bind.choose(nics, r, "nic", lsize=4).nic for r in range(4)] == \
        ["eth0", "eth0", "eth1", "eth1"]
    c = nic_bind.choose(nics, 1, "nic", lsize=None)
    assert c.nic == "eth1" and "round robin" in c.notes[0]


def test_numa_splitter_takes_the_nic_of_the_ranks_numa_node(tmp_path):
    root = fake_sys(tmp_path, numa_of_nic={"eth0": 0, "eth1": 1, "eth2": 0, "eth3": 1})
    nics = ["eth0", "eth1", "eth2", "eth3"]
    # A rank bound to NUMA node 1's cores gets a NIC of node 1, whatever its local rank.
    for lrank in range(4):
        c = nic_bind.choose(nics, lrank, "numa", cpus={2, 3}, sys_root=root, use_hwloc=False)
        assert c.nic in ("eth1", "eth3") and not c.notes, c
    c = nic_bind.choose(nics, 0, "numa", cpus={0}, sys_root=root, use_hwloc=False)
    assert c.nic == "eth0" and c.how.startswith("numa 0")


def test_numa_splitter_falls_back_to_round_robin_and_says_so(tmp_path):
    root = fake_sys(tmp_path, numa_of_nic={"eth0": 0, "eth1": 1})
    # Not bound within one NUMA node: round robin, with the reason.
    c = nic_bind.choose(["eth0", "eth1"], 1, "numa", cpus={0, 1, 2, 3}, sys_root=root,
                        use_hwloc=False)
    assert c.nic == "eth1" and "not bound within one numa" in c.notes[0]
    # NICs without locality (virtual ones): round robin too.
    root2 = fake_sys(tmp_path / "v")
    c = nic_bind.choose(["eth0", "eth1"], 1, "socket", cpus={0}, sys_root=root2,
                        use_hwloc=False)
    assert c.nic == "eth1" and c.notes


def test_open_mpi_variables():
    v = nic_bind.mpi_variables("eth1", "openmpi")
    assert v == {"OMPI_MCA_btl_tcp_if_include": "eth1", "UCX_NET_DEVICES": "eth1"}


def test_mpich_variables():
    v = nic_bind.mpi_variables("eth1", "mpich")
    assert v["FI_TCP_IFACE"] == "eth1" and v["UCX_NET_DEVICES"] == "eth1"
    assert "OMPI_MCA_btl_tcp_if_include" not in v


def test_an_rdma_port_goes_to_ucx_and_verbs_only():
    v = nic_bind.mpi_variables("mlx5_1:1", "all")
    assert v == {"UCX_NET_DEVICES": "mlx5_1:1", "FI_VERBS_DEVICE_NAME": "mlx5_1"}


def test_bound_environment_records_the_nic_and_drops_a_conflicting_exclude():
    choice = nic_bind.choose(["eth0", "eth1"], 3)
    env = nic_bind.bound_environment({"OMPI_MCA_btl_tcp_if_exclude": "lo", "PATH": "/bin"},
                                     choice)
    assert env["GPCNET_NIC"] == "eth1" and env["GPCNET_NIC_INDEX"] == "1"
    assert env["GPCNET_NICS"] == "eth0,eth1" and env["PATH"] == "/bin"
    assert env["OMPI_MCA_btl_tcp_if_include"] == "eth1" and env["FI_TCP_IFACE"] == "eth1"
    assert "OMPI_MCA_btl_tcp_if_exclude" not in env


def test_node_nics_refuses_what_the_host_does_not_have(tmp_path):
    root = fake_sys(tmp_path, nets=("eth0", "eth1"), ib=("mlx5_0:1",))
    assert nic_bind.node_nics(None, 2, "rank 0 on host h", root) == ["eth0", "eth1"]
    assert nic_bind.node_nics(["eth1", "mlx5_0:1"], None, "r", root) == ["eth1", "mlx5_0:1"]
    with pytest.raises(BindError, match=r"rank 0 on host h: --nics-per-node 3 .* 2 NIC"):
        nic_bind.node_nics(None, 3, "rank 0 on host h", root)
    with pytest.raises(BindError, match=r"NIC eth7 is not on this host \(its network "
                                        r"interfaces: eth0, eth1\)"):
        nic_bind.node_nics(["eth0", "eth7"], None, "r", root)
    with pytest.raises(BindError, match="mlx5_0:2"):
        nic_bind.node_nics(["mlx5_0:2"], None, "r", root)


def _bind(args, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in nic_bind.LOCAL_RANK_VARS}
    env.update(env_extra, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "gpcnet.bind_cli", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def _host_nic():
    have = nic_bind.host_netdevs()
    if not have:
        pytest.skip("this host has no network interface besides lo")
    return have[0]


@pytest.mark.parametrize("launcher", [{"OMPI_COMM_WORLD_LOCAL_RANK": "1"},
                                      {"MPI_LOCALRANKID": "1"},
                                      {"SLURM_LOCALID": "1", "SLURM_PROCID": "5"}])
def test_the_wrapper_execs_the_program_with_the_ranks_nic(launcher):
    nic = _host_nic()
    p = _bind(["--nics", f"lo,{nic}", "--", "sh", "-c",
               'echo "$GPCNET_NIC $GPCNET_NIC_INDEX $FI_TCP_IFACE $OMPI_MCA_btl_tcp_if_include '
               '$UCX_NET_DEVICES"'], launcher)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [nic, "1", nic, nic, nic]


def test_the_wrapper_refuses_a_nic_list_the_host_does_not_have():
    p = _bind(["--nics", "gpcnet-none0", "--", "true"],
              {"SLURM_LOCALID": "0", "SLURM_PROCID": "3"})
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "rank 3 on host " in lines[0] and "NIC gpcnet-none0 is not on this host" in lines[0]


def test_the_wrapper_refuses_a_nic_count_the_host_does_not_have():
    k = len(nic_bind.host_netdevs()) + 1
    p = _bind(["--nics-per-node", str(k), "--", "true"], {"OMPI_COMM_WORLD_LOCAL_RANK": "0",
                                                          "OMPI_COMM_WORLD_RANK": "0"})
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1
    assert f"rank 0 on host " in p.stderr and f"--nics-per-node {k} but this host has" in p.stderr


@pytest.mark.parametrize("args", [["--", "true"], ["--nics", "a,a", "--", "true"],
                                  ["--nics-per-node", "0", "--", "true"],
                                  ["--nics", "lo"], ["--nics", "lo", "--splitter", "x", "--",
                                                     "true"]])
def test_bad_usage_is_one_line_and_exit_2(args):
    p = _bind(args, {"SLURM_LOCALID": "0"})
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stderr.startswith("gpcnet-bind: ") and "Traceback" not in p.stderr
