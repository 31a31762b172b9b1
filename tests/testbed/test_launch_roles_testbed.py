"""Roles from an MPMD launch on hosts that are hosts (issue 54,
docs/method.md#roles-from-the-launch): mpirun's application 0 runs the
canaries and application 1 the congestors, each with its own class
variable; the JSON names the nodes of each role and the class each
role's ranks saw."""
from conftest import QUICK, STATE_DIR, binary, gpcnet, load, make_testbed

six = make_testbed("--topology", "star", "--hosts", "6")


def test_mpmd_launch_gives_each_role_its_class(six, tmp_path):
    prog = binary("network_load_test")
    hostfile = tmp_path / "hosts"
    hostfile.write_text(gpcnet("testbed", "hostfile").stdout)
    args = f"--quiet --congestors a2a --tests rr_two_sided_lat {' '.join(QUICK)} " \
           f"--congestor-measurements 2 --congestor-iterations 2 " \
           f"--output-dir {tmp_path / 'out'}"
    # The testbed's Open MPI settings are in the environment of --no-mpi;
    # the agent that enters a host is named here, as mpirun_command does.
    line = (f"mpirun --mca plm_rsh_agent {STATE_DIR / 'rsh-agent'} --hostfile {hostfile} "
            f"-np 2 -x UCX_IB_SL=1 {prog} {args} : -np 4 -x UCX_IB_SL=3 {prog} {args}")
    p = gpcnet("testbed", "run", "--no-mpi", "--timeout", 200, "--", "sh", "-c", line,
               timeout=300)
    assert "canary share: from the launch (2 of 6 nodes)" in p.stdout, p.stdout[-2000:]
    doc = load(tmp_path / "out" / "network_load_test.json")
    # The hostfile lists node01..node06 in order: application 0 got the first two.
    assert sorted(doc["placement"]["canary_nodes"]) == ["node01", "node02"]
    assert sorted(doc["placement"]["congestor_nodes"]) == ["node03", "node04", "node05", "node06"]
    roles = doc["roles"]
    assert (roles["source"], roles["canary_nodes"], roles["congestor_nodes"]) == ("launch", 2, 4)
    lv = roles["launch_variables"]
    assert [(v["value"], v["nodes"]) for v in lv["canaries"]["UCX_IB_SL"]["values"]] == [("1", 2)]
    assert [(v["value"], v["nodes"]) for v in lv["congestors"]["UCX_IB_SL"]["values"]] == [("3", 4)]
