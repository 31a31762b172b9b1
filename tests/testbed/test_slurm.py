"""Slurm on the testbed: controller on the head node, one slurmd per host.
The batch example of docs/running.md runs for real."""
import re

from conftest import REPO, binary, gpcnet, make_testbed

slurm4 = make_testbed("--topology", "star", "--hosts", "4", "--slurm")


def running_md_batch_script() -> str:
    """The sbatch script of docs/running.md, as written there."""
    text = (REPO / "docs" / "running.md").read_text()
    m = re.search(r"<!-- testbed-batch -->\s*```bash\n(.*?)```", text, re.S)
    assert m, "docs/running.md lost its testbed batch example"
    return m.group(1)


def test_sinfo_sees_every_host(slurm4):
    out = gpcnet("testbed", "run", "--no-mpi", "--", "sinfo", "-h", "-N", "-o", "%N %t").stdout
    assert sorted(out.split()) == sorted(["node01", "node02", "node03", "node04"] + ["idle"] * 4)


def test_batch_job_runs_network_test_across_hosts(slurm4, tmp_path):
    script = running_md_batch_script()
    job = tmp_path / "job.sh"
    job.write_text(script.replace("./network_test", str(binary("network_test")))
                   .replace("--output-dir .", f"--output-dir {tmp_path}"))
    out = tmp_path / "job.out"
    p = gpcnet("testbed", "run", "--no-mpi", "--timeout", 240, "--", "sbatch", "--wait",
               "-o", out, "-D", tmp_path, job, timeout=300)
    assert "Submitted batch job" in p.stdout
    text = out.read_text()
    assert "Test with 4 MPI ranks (4 nodes)" in text, text[-2000:]
    assert "Multiple Alltoall (4096 B)" in text
    first = text.split()[0]
    assert first == "node01"             # the batch script runs on the first allocated host


def test_salloc_mpirun(slurm4, tmp_path):
    p = gpcnet("testbed", "run", "--no-mpi", "--timeout", 240, "--", "salloc", "-N", "4",
               "mpirun", binary("network_test"), "--tests", "rr_two_sided_lat", "--time-limit", "0.2",
               "--measurements", "2", "--rings", "2", "--iterations", "4",
               "--output-dir", tmp_path, timeout=300)
    assert "Test with 4 MPI ranks (4 nodes)" in p.stdout
    assert "RR Two-sided Lat (8 B)" in p.stdout
