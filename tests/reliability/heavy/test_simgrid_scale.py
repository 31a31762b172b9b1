"""Set-up stays linear in the rank count under SimGrid (docs/scale.md).

network_test runs at 128 and at 512 simulated ranks (one per host of the
flat 4096-host platform) with the shortest loops, so the run is mostly
set-up: MPI_Init, node discovery, the output check, the slice and test
communicators. Two ratios are compared, never absolute times:

- CPU time of the simulation, 512 vs 128 ranks: about 4-5x when the cost
  per rank is flat, 16x when it is quadratic (SimGrid's SMP-aware
  collectives gave 37x here, its all-to-all allgather worse);
- simulated set-up time (JSON setup_s): grows like log N for tree
  collectives (1.3x here), like N with O(N) sequential rounds (the ring
  allgather of SimGrid's Comm::init_smp gave 3.8x).

A third case does the same for network_load_test with one congestor
kernel on all congestor hosts, so most of the run is congestor passes: the
per-measurement agreement of a pass used SMPI's MPI_Iallreduce (G^2
messages on G ranks), 354x the CPU from 64 to 256 ranks; now ~4.5x.

Run with GPCNET_HEAVY=1 (scripts/test-reliability.sh does).
"""
import json
import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
BUILD = Path(os.environ.get("GPCNET_SIMGRID_BUILD_DIR", REPO / "build-simgrid"))
PLATFORM = REPO / "platforms" / "cluster-4096.xml"
SMPIRUN_SH = REPO / "scripts" / "smpirun.sh"
SHORT = ["--tests", "rr_two_sided_lat", "--measurements", "1", "--rings", "1",
         "--iterations", "1", "--warmup", "0", "--quiet", "--force"]
# Linear is ~4.5x, quadratic 16x: fail well before quadratic, well above noise.
MAX_CPU_RATIO = 10.0
# log N is ~1.3x, N is 4x.
MAX_SETUP_RATIO = 2.5

pytestmark = pytest.mark.skipif(
    not shutil.which("smpirun") or not (BUILD / "network_test").exists(),
    reason="SimGrid (smpirun) or build-simgrid missing: apt-get install libsimgrid-dev; "
           "scripts/build.sh --mpi simgrid")


def run_simulation(tmp_path, ranks, extra, program, args, wrapper=(), timeout=300):
    """One simulated run, one rank per host: the finished process and its
    complete JSON. wrapper goes in front of the command."""
    hosts = tmp_path / f"hosts-{ranks}.txt"
    hosts.write_text("".join(f"node-{i}\n" for i in range(ranks)))
    out = tmp_path / f"out-{program}-{ranks}"
    out.mkdir(exist_ok=True)
    cmd = [*wrapper, "bash", str(SMPIRUN_SH), *extra, "-platform", str(PLATFORM), "-hostfile",
           str(hosts), "-np", str(ranks), str(BUILD / program), *args, "--output-dir", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL,
                       cwd=tmp_path)  # smpirun writes a temporary hostfile to the cwd
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    doc = json.loads((out / f"{program}.json").read_text())
    assert doc["environment"]["ranks"] == ranks and doc["environment"]["nodes"] == ranks
    assert doc["status"] == "complete" and doc["setup_s"] > 0
    return p, doc


def simulate(tmp_path, ranks, extra=(), program="network_test", args=SHORT):
    """CPU seconds of the simulation and the simulated set-up time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, doc = run_simulation(tmp_path, ranks, extra, program, args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, doc["setup_s"]


@pytest.mark.cap(300)
def test_setup_is_linear_in_ranks(tmp_path):
    # The best of two runs per size: other jobs on the host only add time.
    small = [simulate(tmp_path, 128) for _ in range(2)]
    large = [simulate(tmp_path, 512) for _ in range(2)]
    cpu_ratio = min(c for c, _ in large) / min(c for c, _ in small)
    setup_ratio = large[0][1] / small[0][1]
    print(f"128 -> 512 ranks: CPU {cpu_ratio:.2f}x, simulated set-up {setup_ratio:.2f}x")
    # Simulated times are deterministic: both runs of a size agree.
    assert small[0][1] == small[1][1] and large[0][1] == large[1][1]
    assert cpu_ratio < MAX_CPU_RATIO, (
        f"512 ranks cost {cpu_ratio:.1f}x the CPU time of 128 (linear ~4.5x): "
        "set-up or the simulator settings went superlinear (docs/scale.md)")
    assert setup_ratio < MAX_SETUP_RATIO, (
        f"simulated set-up grew {setup_ratio:.2f}x from 128 to 512 ranks (log N ~1.3x): "
        "O(N) sequential rounds crept into set-up (docs/scale.md)")


@pytest.mark.cap(300)
def test_scale_check_catches_quadratic_collectives(tmp_path):
    """The check above can fail: SimGrid's SMP-aware mpich collectives (a
    quadratic Comm::init_smp per communicator) push the simulated set-up
    ratio past the bound."""
    mpich = ["--cfg=smpi/bcast:mpich", "--cfg=smpi/allreduce:mpich", "--cfg=smpi/reduce:mpich"]
    old = os.environ.get("SMPI_EXTRA")
    os.environ["SMPI_EXTRA"] = " ".join(mpich)
    try:
        _, small = simulate(tmp_path, 64)
        _, large = simulate(tmp_path, 256)
    finally:
        if old is None:
            del os.environ["SMPI_EXTRA"]
        else:
            os.environ["SMPI_EXTRA"] = old
    print(f"mpich collectives, 64 -> 256 ranks: simulated set-up {large / small:.2f}x")
    assert large / small >= MAX_SETUP_RATIO


# One kernel (P2P Incast: O(G) messages per iteration) on every congestor
# host, the shortest loops: the run is set-up plus congestor passes.
LOAD_SHORT = [*SHORT, "--congestors", "p2p_incast", "--congestor-measurements", "1",
              "--congestor-iterations", "1"]
# Linear ~4.5x; the G^2 agreement gave 354x (64 -> 256 ranks).
MAX_LOAD_CPU_RATIO = 20.0


@pytest.mark.cap(300)
def test_load_test_congestor_passes_are_not_quadratic(tmp_path):
    small = [simulate(tmp_path, 64, program="network_load_test", args=LOAD_SHORT)
             for _ in range(2)]
    large = [simulate(tmp_path, 256, program="network_load_test", args=LOAD_SHORT)
             for _ in range(2)]
    cpu_ratio = min(c for c, _ in large) / min(c for c, _ in small)
    print(f"load test, 64 -> 256 ranks: CPU {cpu_ratio:.2f}x")
    assert cpu_ratio < MAX_LOAD_CPU_RATIO, (
        f"256 ranks cost {cpu_ratio:.1f}x the CPU time of 64 (linear ~4.5x): the load "
        "test's congestor passes went superlinear under SMPI, e.g. a non-blocking "
        "collective per measurement (infra/agree.h, docs/scale.md)")


@pytest.mark.skipif(not (REPO / "build-simgrid" / "network_load_test").exists()
                    or not (REPO / "build-openmpi" / "setup_bench").exists(),
                    reason="bench/scale.sh needs build-simgrid and build-openmpi")
@pytest.mark.cap(120)
def test_scale_sh_passes_the_load_settings_to_the_load_test_only():
    """bench/scale.sh runs the load test with LOAD_SMPI_EXTRA (default:
    none) and says so; network_test runs without it. Small sends are
    rendezvous for both: scripts/smpirun.sh sets that."""
    def scale(load_extra=None):
        env = {**os.environ, "SIZES": "64", "PPNS": "4", "SETUP_SIZES": "10000",
               "PROGRAMS": "network_test network_load_test"}
        env.pop("LOAD_SMPI_EXTRA", None)
        env.pop("SMPI_EXTRA", None)
        if load_extra is not None:
            env["LOAD_SMPI_EXTRA"] = load_extra
        p = subprocess.run(["bash", "bench/scale.sh"], capture_output=True, text=True, cwd=REPO,
                           env=env, timeout=110, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr[-2000:]
        lines = p.stdout.splitlines()
        rows = {ln.split()[0]: ln for ln in lines if ln.split()[:1] in
                (["network_test"], ["network_load_test"]) and len(ln.split()) >= 8}
        header = "\n".join(ln for ln in lines if ln.startswith("#"))
        return header, rows

    header, rows = scale()
    assert "LOAD_SMPI_EXTRA: (none)" in header
    assert "(failed)" not in rows["network_test"] and "(failed)" not in rows["network_load_test"]
    header, rows = scale("--cfg=network/crosstraffic:0")
    assert "LOAD_SMPI_EXTRA: --cfg=network/crosstraffic:0" in header
    assert "(failed)" not in rows["network_load_test"]
    # A setting SimGrid refuses fails the load test alone: it reached that run only.
    header, rows = scale("--cfg=smpi/no-such-setting:1")
    assert "no-such-setting" in header
    assert "(failed)" in rows["network_load_test"] and "(failed)" not in rows["network_test"]


# The alltoall alone on every congestor host, 256 KiB messages: its payload
# is 2 x G x 256 KiB per rank on G ranks (1.3 GB at G = 51).
PAYLOAD_BYTES = 262144
PAYLOAD_ARGS = [*SHORT, "--congestors", "a2a", "--congestor-measurements", "1",
                "--congestor-iterations", "1", "--congestor-bytes", str(PAYLOAD_BYTES)]
PEAK_RSS = ("import resource, subprocess, sys; "
            "rc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL).returncode; "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
            "sys.exit(rc)")


def peak_rss_kib(tmp_path, ranks, extra=()):
    """Peak resident size of one simulated load test (alltoall only), and the
    bytes its congestor ranks' buffers would hold if each were real."""
    p, doc = run_simulation(tmp_path, ranks, extra, "network_load_test", PAYLOAD_ARGS,
                            wrapper=["python3", "-c", PEAK_RSS], timeout=240)
    g = len(doc["placement"]["congestor_nodes"])
    return int(p.stderr.strip().splitlines()[-1]), 2 * g * g * PAYLOAD_BYTES


@pytest.mark.cap(240)
def test_congestor_payload_is_not_resident(tmp_path):
    """Congestor buffers under SMPI are SMPI_SHARED_MALLOC pages nobody
    writes (infra/comm_mem.h) and scripts/smpirun.sh maps them on demand
    (smpi/shared-malloc:local), so a simulation's memory does not grow
    with them: 64 ranks with 1.3 GB of alltoall payload peak near 115 MB
    (every buffer resident: 1.4 GB)."""
    rss, payload = peak_rss_kib(tmp_path, 64)
    print(f"64 ranks, alltoall payload {payload / 2**20:.0f} MiB: peak RSS {rss / 1024:.0f} MiB")
    assert rss * 1024 < payload / 4, (
        f"peak RSS {rss / 1024:.0f} MiB with {payload / 2**20:.0f} MiB of congestor payload: "
        "congestor buffers are resident again under SMPI (comm_alloc_payload, "
        "smpi/shared-malloc:local in scripts/smpirun.sh; docs/scale.md)")


@pytest.mark.cap(240)
def test_payload_check_catches_resident_buffers(tmp_path):
    """The check above can fail: SimGrid's default shared-malloc mode
    (global) maps the shared blocks populated, and the RSS counts them."""
    rss, payload = peak_rss_kib(tmp_path, 64, ["--cfg=smpi/shared-malloc:global"])
    print(f"shared-malloc:global: peak RSS {rss / 1024:.0f} MiB of {payload / 2**20:.0f} MiB")
    assert rss * 1024 >= payload / 4
