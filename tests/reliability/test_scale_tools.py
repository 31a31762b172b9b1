"""Bad input to the scale tools (docs/scale.md): a clear message and a
non-zero exit, nothing run."""
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("GPCNET_BUILD_DIR", REPO / "build"))


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("var,value", [("SIZES", "64 lots"), ("PPNS", "0"),
                                       ("SETUP_SIZES", "-5"), ("TIMEOUT", "1.5")])
def test_scale_sh_refuses_bad_numbers(var, value):
    p = run(["bash", "bench/scale.sh"], {var: value})
    assert p.returncode == 2
    assert "is not a positive integer" in p.stderr and p.stdout == ""


def test_scale_sh_refuses_a_missing_platform():
    p = run(["bash", "bench/scale.sh"], {"PLATFORM": "/nonexistent/platform.xml"})
    assert p.returncode == 2 and "platform /nonexistent/platform.xml not found" in p.stderr


def test_smpirun_sh_without_smpirun():
    p = run(["bash", "scripts/smpirun.sh", "-np", "2", "x"], {"SMPIRUN": "/nonexistent/smpirun"})
    assert p.returncode == 1 and "install libsimgrid-dev" in p.stderr


# What makes a simulation scale (docs/scale.md): without any of these a
# large run turns superlinear (collectives, detached sends) or holds every
# congestor buffer (shared malloc).
SCALING_SETTINGS = {
    "smpi/send-is-detached-thresh": "0", "smpi/shared-malloc": "local",
    "smpi/bcast": "binomial_tree", "smpi/reduce": "binomial", "smpi/allreduce": "rdb",
    "smpi/allgather": "bruck", "smpi/gather": "ompi_binomial", "smpi/barrier": "ompi_bruck",
}


def fake_smpirun(tmp_path, body):
    """An smpirun that runs the shell lines body instead of a simulation."""
    fake = tmp_path / "smpirun"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    return str(fake)


def smpirun_sh_settings(tmp_path, extra=""):
    """The --cfg settings scripts/smpirun.sh hands to smpirun, in order."""
    fake = fake_smpirun(tmp_path, 'for a in "$@"; do echo "$a"; done')
    p = run(["bash", "scripts/smpirun.sh", "-np", "2", "prog"],
            {"SMPIRUN": fake, "SMPI_EXTRA": extra})
    assert p.returncode == 0, p.stderr
    args = p.stdout.split()
    assert args[-3:] == ["-np", "2", "prog"]
    return [a[len("--cfg="):].split(":", 1) for a in args if a.startswith("--cfg=")]


def test_smpirun_sh_passes_the_scaling_settings(tmp_path):
    settings = smpirun_sh_settings(tmp_path)
    assert SCALING_SETTINGS.items() <= dict(settings).items()
    # SMPI_EXTRA comes after them, so it wins.
    later = smpirun_sh_settings(tmp_path, "--cfg=smpi/send-is-detached-thresh:65536")
    assert later[-1] == ["smpi/send-is-detached-thresh", "65536"]


@pytest.mark.parametrize("platform", sorted(p.name for p in (REPO / "platforms").glob("*.xml")))
def test_platforms_carry_the_scaling_settings(platform):
    """A bare smpirun on a platform of ours scales as scripts/smpirun.sh."""
    root = ET.parse(REPO / "platforms" / platform).getroot()
    props = {p.get("id"): p.get("value") for c in root.iter("config") for p in c.iter("prop")}
    assert SCALING_SETTINGS.items() <= props.items(), platform


@pytest.mark.skipif(not (BUILD / "setup_bench").exists(), reason="no setup_bench in the build")
@pytest.mark.parametrize("arg", ["many", "3", "1e6", "200000000"])
def test_setup_bench_refuses_bad_counts(arg):
    p = run([str(BUILD / "setup_bench"), arg])
    assert p.returncode == 2 and "is not a rank count from 4 to 100000000" in p.stderr


@pytest.mark.skipif(not (BUILD / "setup_bench").exists(), reason="no setup_bench in the build")
def test_setup_bench_small_run_is_consistent():
    p = run([str(BUILD / "setup_bench"), "1000", "4096"])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 1 + 4 and "INCONSISTENT" not in p.stdout
    # ranks, ppn, nodes on every line
    assert [ln.split()[:3] for ln in lines[1:]] == [["1000", "1", "1000"], ["1000", "4", "250"],
                                                   ["4096", "1", "4096"], ["4096", "4", "1024"]]


def test_smpirun_sh_refuses_more_ranks_than_memory_mappings_allow(tmp_path):
    """Past vm.max_map_count SimGrid aborts one rank's dlopen ("failed to map
    segment", 8192 ranks with the default 65530): smpirun.sh says what to
    raise instead, and does not start smpirun."""
    limit = int(Path("/proc/sys/vm/max_map_count").read_text())
    fake = fake_smpirun(tmp_path, "echo started")
    too_many = limit // 8 + 1
    p = run(["bash", "scripts/smpirun.sh", "-np", str(too_many), "prog"], {"SMPIRUN": fake})
    assert p.returncode == 1 and "started" not in p.stdout
    assert f"{too_many} simulated ranks need about" in p.stderr
    assert "sysctl -w vm.max_map_count=" in p.stderr
    fits = (limit - 512) // 8
    p = run(["bash", "scripts/smpirun.sh", "-np", str(fits), "prog"], {"SMPIRUN": fake})
    assert p.returncode == 0 and "started" in p.stdout


@pytest.mark.skipif(not (REPO / "build-simgrid" / "network_test").exists()
                    or not (REPO / "build-openmpi" / "setup_bench").exists(),
                    reason="bench/scale.sh needs build-simgrid and build-openmpi")
def test_scale_sh_says_which_sizes_it_skips():
    """A size that is no multiple of the PPN, or needs more hosts than the
    platform has, is skipped with a line on stderr, not silently."""
    p = run(["bash", "bench/scale.sh"], {"SIZES": "6 20000", "PPNS": "4", "PROGRAMS": "network_test",
                                         "SETUP_SIZES": "10000"})
    assert p.returncode == 0, p.stderr
    assert "skipping 6 ranks at PPN 4: not a multiple of 4" in p.stderr
    assert "skipping 20000 ranks at PPN 4: needs 5000 hosts, cluster-4096.xml has 4096" in p.stderr
    assert not any(ln.startswith("network_test ") for ln in p.stdout.splitlines())
