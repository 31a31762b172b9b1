"""The way issue 42 checks "kernels declare their options": a new canary
with a message size of its own, added as a new contributor would, is its
file and one row of canary_table.c (docs/design.md#adding-a-kernel). In a
copy of this tree the test writes those two and nothing else, builds
network_test, and sees the kernel's option in --help, its value in the
settings lines, in the JSON config and in the official-default check, and
the size in the kernel's printed name, which the run plan derives from the
parameter block the kernel is set up with. Builds network_test alone, with
the configuration of the build under test (10-20 s on two cores)."""
import re
import shutil
import subprocess

import pytest

from textparse import tables

KERNEL = r'''/* RR Sendrecv Lat: MPI_Sendrecv one message with each ring neighbour, of
 * the size --sendrecv-bytes sets (default 8 B). */
#include <stdlib.h>

#include "canary/canary.h"
#include "canary/ring_buffers.h"
#include "infra/comm_mem.h"
#include "infra/fatal.h"

typedef struct {
    long message_bytes;
} sendrecv_params_t;

static const sendrecv_params_t defaults = {.message_bytes = 8};

static const opt_row_t options[] = {
    {"--sendrecv-bytes", NULL, OPT_MEASURING, OT_LONG,
     KERNEL_FIELD(sendrecv_params_t, message_bytes, long), .given = OPT_NO_FIELD, .lo = 1,
     .hi = 1 << 20, .metavar = "N",
     .help = "message size of rr_sendrecv_lat (default {default})", .key = "sendrecv_bytes",
     .official = OPT_ANY, .config = OPT_MEASURING, .label = "sendrecv message", .unit = " B"},
};

typedef struct {
    MPI_Comm comm;
    int bytes;
    char *buf;
} sendrecv_state_t;

static void *setup(MPI_Comm slice, const canary_params_t *p)
{
    sendrecv_state_t *s = xcalloc(1, sizeof(*s));
    s->comm = slice;
    s->bytes = (int)CANARY_OWN(p, sendrecv_params_t)->message_bytes;
    s->buf = comm_alloc(2 * (size_t)s->bytes);
    return s;
}

static void teardown(void *state)
{
    sendrecv_state_t *s = state;
    comm_free(s->buf);
    free(s);
}

static void iterate(void *state, int left, int right)
{
    sendrecv_state_t *s = state;
    MPI_Sendrecv(s->buf, s->bytes, MPI_BYTE, right, TAG_FROM_LEFT, s->buf + s->bytes, s->bytes,
                 MPI_BYTE, left, TAG_FROM_LEFT, s->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(s->buf, s->bytes, MPI_BYTE, left, TAG_FROM_RIGHT, s->buf + s->bytes, s->bytes,
                 MPI_BYTE, right, TAG_FROM_RIGHT, s->comm, MPI_STATUS_IGNORE);
}

static long message_bytes(const canary_params_t *p)
{
    return CANARY_OWN(p, sendrecv_params_t)->message_bytes;
}

static double per_iteration(void *state) { return 2.0; }

const canary_kernel_t rr_sendrecv_lat = {
    .id = "rr_sendrecv_lat",
    .label = "RR Sendrecv Lat",
    .size_bytes = message_bytes,
    .unit = "usec",
    .loop = LOOP_RANDOM_RING,
    .limits = {.measurements = 10000, .rings = 30, .iterations = 200, .warmup = 200},
    .options = KERNEL_OPTIONS(defaults, options),
    .setup = setup,
    .teardown = teardown,
    .iterate = iterate,
    .per_iteration = per_iteration,
};
'''

LAST_ROW = "    ROW(multiple_bcast, EXTRA)\n"


@pytest.fixture(scope="module")
def new_kernel_build(tmp_path_factory, harness):
    """network_test built from a copy of this tree plus the new kernel."""
    repo = harness.REPO
    root = tmp_path_factory.mktemp("new-kernel")
    for d in ("src", "cmake", "bench"):
        shutil.copytree(repo / d, root / d)
    for f in ("CMakeLists.txt", "README.md", "docs/results-json.md"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / f, root / f)
    # The contributor's two edits.
    (root / "src/canary/rr_sendrecv_lat.c").write_text(KERNEL)
    table = root / "src/canary/canary_table.c"
    text = table.read_text()
    assert LAST_ROW in text, "the last row of CANARY_TABLE moved: update this test"
    table.write_text(text.replace(LAST_ROW, LAST_ROW.rstrip("\n") + " \\\n"
                                  "    ROW(rr_sendrecv_lat, EXTRA)\n"))
    touched = sorted(str(p.relative_to(root)) for p in (root / "src").rglob("*")
                     if p.is_file() and (not (repo / p.relative_to(root)).exists()
                                         or (repo / p.relative_to(root)).read_bytes()
                                         != p.read_bytes()))
    assert touched == ["src/canary/canary_table.c", "src/canary/rr_sendrecv_lat.c"]
    # Configured as the build under test is (its MPI compiler and type).
    cache = (harness.build_dir() / "CMakeCache.txt").read_text()
    defs = ["-DGPCNET_BUILD_TESTS=OFF"]
    for var in ("CMAKE_C_COMPILER", "MPI_C_COMPILER", "GPCNET_COMPILER_IS_MPI_WRAPPER",
                "CMAKE_BUILD_TYPE", "GPCNET_SANITIZE"):
        m = re.search(rf"^{var}:[A-Z]+=(.*)$", cache, re.M)
        if m and m.group(1):
            defs.append(f"-D{var}={m.group(1)}")
    build = root / "build"
    for cmd in (["cmake", "-S", str(root), "-B", str(build), *defs],
                ["cmake", "--build", str(build), "-j2", "--target", "network_test"]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return build / "network_test"


def run(harness, program, np, *args):
    return subprocess.run(harness.launcher(np) + [str(program), *map(str, args)],
                          capture_output=True, text=True, timeout=240,
                          env=harness.mpi_env(), stdin=subprocess.DEVNULL)


def test_the_kernels_option_is_in_help(harness, new_kernel_build):
    p = run(harness, new_kernel_build, 1, "--help")
    assert p.returncode == 0, p.stderr
    # Under its kernel, after the general options.
    assert "\nOptions of one test or congestor (only in runs that select it):\n" \
           "  rr_sendrecv_lat:\n" \
           "      --sendrecv-bytes N     message size of rr_sendrecv_lat (default 8)\n" \
        in p.stdout
    assert "rr_sendrecv_lat" in " ".join(p.stdout.split("--tests")[1].split()[:40])


def test_the_kernels_option_reaches_settings_json_and_name(harness, new_kernel_build,
                                                           tmp_path):
    p = run(harness, new_kernel_build, 4, "--emulate-nodes", "1", *harness.QUICK,
            "--tests", "rr_sendrecv_lat,rr_two_sided_lat", "--sendrecv-bytes", "64",
            "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "\n   sendrecv message = 64 B\n" in p.stdout
    names = [name for name, _ in tables(p.stdout)["Isolated Network Tests"]]
    assert names == ["RR Sendrecv Lat (64 B)", "RR Two-sided Lat (8 B)"]
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["config"]["sendrecv_bytes"] == 64
    assert "sendrecv_bytes" in doc["config"]["non_default"]
    assert [r["name"] for r in doc["tables"][0]["rows"]] == names


def test_the_default_size_keeps_the_run_and_name(harness, new_kernel_build, tmp_path):
    p = run(harness, new_kernel_build, 4, "--emulate-nodes", "1", *harness.QUICK,
            "--tests", "rr_sendrecv_lat", "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "\n   sendrecv message = 8 B\n" in p.stdout
    assert [n for n, _ in tables(p.stdout)["Isolated Network Tests"]] == \
        ["RR Sendrecv Lat (8 B)"]
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["config"]["sendrecv_bytes"] == 8
    assert "sendrecv_bytes" not in doc["config"]["non_default"]


def settings_block(stdout):
    """The "  Settings" line and the setting lines under it."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  Settings"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("   "))
    return lines[start:end]


def test_a_run_without_the_kernel_is_one_of_a_build_without_it(harness, new_kernel_build,
                                                               tmp_path):
    """Its option is printed and recorded only when the kernel runs: the
    settings and the JSON config of a run that does not select it are those
    of the build without the kernel; its option alone is refused there as
    the build without it refuses an unknown option."""
    args = ["--emulate-nodes", "1", *harness.QUICK, "--tests", "rr_two_sided_lat",
            "--output-dir", tmp_path, "--force"]
    ours = run(harness, new_kernel_build, 4, *args)
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    ours_config = harness.load_json(tmp_path / "network_test.json")["config"]
    base = harness.run(4, "network_test", *args)
    assert base.returncode == 0, base.stdout[-3000:] + base.stderr[-3000:]
    base_config = harness.load_json(tmp_path / "network_test.json")["config"]
    assert "sendrecv" not in "\n".join(settings_block(ours.stdout))
    assert settings_block(ours.stdout) == settings_block(base.stdout)
    for config in (ours_config, base_config):
        assert config["seed_source"] == "time"
        config.pop("seed")  # rank 0's clock, a second apart
    assert ours_config == base_config and "sendrecv_bytes" not in ours_config
    p = run(harness, new_kernel_build, 2, "--emulate-nodes", "1", "--tests", "rr_two_sided_lat",
            "--sendrecv-bytes", "64", "--output-dir", tmp_path / "refused")
    assert p.returncode == 2
    assert p.stderr.count("network_test: --sendrecv-bytes is an option of the test "
                          "rr_sendrecv_lat, which this run does not run (name it in --tests)\n"
                          "See 'network_test --help' for the options.\n") == 1
    assert not (tmp_path / "refused" / "network_test.json").exists()
