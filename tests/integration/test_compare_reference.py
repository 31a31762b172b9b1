"""bench/compare_reference.sh and its gethostname shim (docs/fidelity.md).

The reference itself is never part of the repository, so the end-to-end
test stands a wrapper around our own network_test in for it: the wrapper
finds its nodes from the faked host names only, as the reference does.
"""
import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "compare_reference.sh"
SHIM = REPO / "bench" / "gethostname_shim.c"

PROCESSOR_NAME = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(name, &len);
    printf("%d %s\n", rank, name);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def shim_and_probe(harness, tmp_path_factory):
    d = tmp_path_factory.mktemp("shim")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", d / "shim.so", SHIM, "-ldl"], check=True)
    (d / "probe.c").write_text(PROCESSOR_NAME)
    mpicc = "mpicc" if harness.MPI == "openmpi" else (shutil.which("mpicc.mpich") or "mpicc")
    subprocess.run([mpicc, "-o", d / "probe", d / "probe.c"], check=True)
    return d / "shim.so", d / "probe"


def launch_probe(harness, shim, probe, np, env):
    if harness.MPI == "openmpi":
        cmd = harness.launcher(np) + ["-x", f"LD_PRELOAD={shim}"] + \
            [a for k, v in env.items() for a in ("-x", f"{k}={v}")]
    else:
        cmd = harness.launcher(np) + ["-genv", "LD_PRELOAD", str(shim)] + \
            [a for k, v in env.items() for a in ("-genv", k, v)]
    p = subprocess.run(cmd + [str(probe)], capture_output=True, text=True, timeout=120,
                       env=harness.mpi_env(), stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return dict(line.split(" ", 1) for line in p.stdout.splitlines())


def test_shim_groups_consecutive_ranks_into_named_nodes(harness, shim_and_probe):
    names = launch_probe(harness, *shim_and_probe, 5, {"GPCNET_SHIM_PPN": "2"})
    assert names == {"0": "emunode00000", "1": "emunode00000", "2": "emunode00001",
                     "3": "emunode00001", "4": "emunode00002"}
    names = launch_probe(harness, *shim_and_probe, 2,
                         {"GPCNET_SHIM_PPN": "1", "GPCNET_SHIM_PREFIX": "n"})
    assert names == {"0": "n00000", "1": "n00001"}


@pytest.mark.parametrize("ppn", [None, "0", "two"])
def test_shim_keeps_the_real_name_without_a_valid_ppn(harness, shim_and_probe, ppn):
    env = {} if ppn is None else {"GPCNET_SHIM_PPN": ppn}
    names = launch_probe(harness, *shim_and_probe, 2, env)
    assert set(names.values()) == {socket.gethostname()}


def fake_reference(harness, folder: Path) -> Path:
    """A stand-in for the reference build: our network_test, grouping ranks
    into nodes by nothing but the shim's host names (K from its setting)."""
    folder.mkdir()
    wrapper = folder / "network_test"
    quick = " ".join(harness.QUICK)
    wrapper.write_text(
        "#!/bin/sh\n"
        'echo "${GPCNET_AT_PPN:-}" > launcher_env.txt\n'
        f'exec "{harness.binary("network_test").resolve()}" --emulate-nodes "$GPCNET_SHIM_PPN" '
        f"--tests rr_two_sided_lat {quick} --quiet --force\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return folder


def run_script(harness, *args, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    # The script preloads its host-name shim; an ASan build wants its
    # runtime first unless told that the order is fine.
    env["ASAN_OPTIONS"] = harness.preload_env("")["ASAN_OPTIONS"]
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("order", [None, "ref-first"])
def test_side_by_side_end_to_end(harness, tmp_path, order):
    ref = fake_reference(harness, tmp_path / "ref")
    out = tmp_path / "out"
    # Launcher arguments for PPN 2 only: an environment variable for the ranks.
    at = "2=-x GPCNET_AT_PPN=2" if harness.MPI == "openmpi" else "2=-genv GPCNET_AT_PPN 2"
    p = run_script(harness, *(["--order", order] if order else []),
                   "--program", "network_test", "--nodes", "2", "--ppn", "1 2",
                   "--launcher-args-at", at,
                   "--pairs", "2", "--mpi", harness.MPI, "--build", harness.build_dir().resolve(),
                   "--lock", tmp_path / "lock", "--out", out,
                   "--ours-args", "--tests rr_two_sided_lat " + " ".join(harness.QUICK), ref)
    # Two builds of the same program: the values may still differ by noise.
    assert p.returncode in (0, 3), p.stdout + p.stderr
    for k in (1, 2):
        for side in ("ref", "ours"):
            for i in (1, 2):
                assert (out / f"ppn{k}" / f"{side}-{i}.json").is_file()
        # The stand-in saw the shim's host names: node names come from them.
        doc = harness.load_json(out / f"ppn{k}" / "ref-1.d" / "network_test.json")
        assert doc["environment"]["hostname"] == "emunode00000"
        assert doc["environment"]["ranks"] == 2 * k and doc["environment"]["nodes"] == 2
        seen = (out / f"ppn{k}" / "ref-1.d" / "launcher_env.txt").read_text().strip()
        assert seen == ("2" if k == 2 else "")
    # The default order: the second pair of each PPN runs ours first.
    second = (("ref", 2), ("ours", 2)) if order == "ref-first" else (("ours", 2), ("ref", 2))
    ran = [line.split()[0] for line in (out / "runs.log").read_text().splitlines()]
    assert ran == [f"{side}-{i}(ppn" for _ in (1, 2)
                   for side, i in (("ref", 1), ("ours", 1)) + second]
    assert f"order: {order or 'abba'}" in (out / "setup.txt").read_text()
    text = (out / "side_by_side.txt").read_text()
    assert text == p.stdout
    assert text.count("2 reference run(s), 2 of ours") == 2
    rows = [line for line in text.splitlines() if line.startswith("RR Two-sided Lat (8 B)")]
    assert [r.split()[5:7] for r in rows] == [["isolated", "Avg"], ["isolated", "99%"]] * 2
    assert all(r.split()[-2] == "2/2" or r.split()[-1] == "OUTSIDE" for r in rows)
    # Each PPN's calibration: 2 + 2 runs can be relabelled in 6 ways.
    assert text.count("the runs relabelled (all 6 ways)") == 2


@pytest.mark.parametrize("args,needle", [
    ([], "REF_DIR is missing"),
    (["--pairs", "0", "REF"], "--pairs must be a positive integer"),
    (["--ppn", "1 x", "REF"], "--ppn values must be positive integers"),
    (["--program", "other", "REF"], "--program must be"),
    (["--bogus", "REF"], "unknown option --bogus"),
    (["--launcher-args-at", "4", "REF"], "--launcher-args-at needs K=ARGS"),
    (["--order", "random", "REF"], "--order must be abba or ref-first"),
    (["REF"], "no executable network_load_test in"),
    (["/nonexistent/ref"], "is not a folder"),
])
def test_bad_usage_exits_2(harness, tmp_path, args, needle):
    (tmp_path / "REF").mkdir()
    args = [str(tmp_path / "REF") if a == "REF" else a for a in args]
    p = run_script(harness, *args, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert needle in p.stderr and p.stdout == ""
