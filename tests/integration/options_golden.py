"""What the option table produces, against golden files: the --help of the
three programs, the error line and exit status of bad options, and the
settings lines and JSON `config` of a few option combinations.

    python3 tests/integration/options_golden.py [--build DIR] [--write]

compares the build in DIR (default: GPCNET_BUILD_DIR or build) with
tests/integration/golden_options/; --write rewrites the golden files from
that build instead. The first ones came from the commit before the option
table (de5edce), so the table changed none of this output; since then the
two help lines that cited an external document cite docs/method.md. Settings and config need
MPI runs of a few seconds; --help and bad options run as MPI singletons.
tests/integration/test_options_golden.py runs the comparison under pytest.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import mpi_harness  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden_options"
PROGRAMS = ("network_test", "network_load_test", "network_congestor")

# Bad input: (program, arguments). The golden file holds each one's exit
# status and first line of stderr (the usage that follows is --help's).
BAD = [
    ("network_test", ["--bogus"]),
    ("network_test", ["stray"]),
    ("network_test", ["--time-limit", "0"]),
    ("network_test", ["--time-limit"]),
    ("network_test", ["--time-limit", "--quiet"]),
    ("network_test", ["--force=1"]),
    ("network_test", ["--seed", "4"]),
    ("network_test", ["--duration", "4"]),
    ("network_test", ["--canary-fraction", "0.5"]),
    ("network_test", ["--tests", "nope"]),
    ("network_test", ["--tests", "rr_get_lat,rr_get_lat"]),
    ("network_test", ["--tests", "rr_get_lat:2"]),
    ("network_test", ["--tests", "rr_get_lat,"]),
    ("network_test", ["--rings", "100001"]),
    ("network_test", ["--warmup", "-1"]),
    ("network_test", ["--measurements", "1x"]),
    ("network_test", ["--converge", "1"]),
    ("network_test", ["--emulate-nodes", "2", "--emulate-node-count", "2"]),
    ("network_test", ["--json", ""]),
    ("network_test", ["--output-dir", "x" * 5000]),
    ("network_test", ["--" + "y" * 70]),
    ("network_load_test", ["--seed", "-1"]),
    ("network_load_test", ["--seed", "2147483648"]),
    ("network_load_test", ["--canary-fraction", "0.95"]),
    ("network_load_test", ["--canary-fraction", "0"]),
    ("network_load_test", ["--congestors", "a2a:0"]),
    ("network_load_test", ["--congestors", "a2a:"]),
    ("network_load_test", ["--congestors", "a2a:65"]),
    ("network_load_test", ["--congestors", ",a2a"]),
    ("network_load_test", ["--congestor-bytes", "12"]),
    ("network_load_test", ["--congestor-bytes", "4"]),
    ("network_load_test", ["--placement", "mixed"]),
    ("network_load_test", ["--repeat", "0"]),
    ("network_load_test", ["--nics-per-node", "1025"]),
    ("network_load_test", ["--deadline", "nan"]),
    ("network_load_test", ["--time-limit", "inf"]),
    ("network_load_test", ["--report-interval", "1"]),
    ("network_congestor", ["--flows", "f", "--congestors", "a2a"]),
    ("network_congestor", ["--tests", "a2a"]),
    ("network_congestor", ["--verbose"]),
    ("network_congestor", ["--duration", "-1"]),
    ("network_congestor", ["--congestor-measurements", "3"]),
    ("network_congestor", ["--stop-file"]),
    ("network_load_test", ["--burst", "0,0"]),
    ("network_load_test", ["--burst", "50ms"]),
    ("network_load_test", ["--burst", "50xs,1s"]),
    ("network_load_test", ["--burst", "20s,1s"]),
    ("network_load_test", ["--burst-intensity", "0"]),
    ("network_load_test", ["--burst-intensity", "1.5"]),
    ("network_load_test", ["--burst-jitter", "0.2"]),
    ("network_congestor", ["--burst", "2s,1s", "--duration", "1"]),
    ("network_congestor", ["--timeline"]),
    ("network_test", ["--burst", "1s,1s"]),
    ("network_load_test", ["--burst-sweep", "ON=;OFF=50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=0"]),
    ("network_load_test", ["--burst-sweep", "ON=-10ms;OFF=50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=50ms;INTENSITY=0,1"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=50ms;INTENSITY=1.5"]),
    ("network_load_test", ["--burst-sweep", "OFF=50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;ON=20ms;OFF=50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms,20s;OFF=50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=50ms", "--burst", "10ms,50ms"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=50ms", "--burst-intensity", "0.5"]),
    ("network_load_test", ["--burst-sweep", "ON=10ms;OFF=50ms", "--congestor-sweep"]),
    ("network_congestor", ["--burst-sweep", "ON=10ms;OFF=50ms"]),
]

TINY = ["--measurements", "1", "--rings", "1", "--iterations", "1", "--warmup", "0"]
# (label, ranks, program, arguments) of the runs whose settings and config
# are kept. Fixed seeds; --output-dir relative to a fresh directory.
RUNS = [
    ("nt-verbose", 2, "network_test",
     ["--emulate-nodes", "1", "-v", "--ring-seed", "7", "--converge", "0.5",
      "--time-limit", "30", *TINY, "--tests", "rr_two_sided_lat,multiple_allreduce"]),
    ("nt-groups", 4, "network_test",
     ["--emulate-node-count", "2", "--measurements", "1", "--iterations", "1",
      "--nics-per-node", "2", "--output-dir", "out", "--json", "res.json",
      "--tests", "multiple_allreduce,rr_get_lat"]),
    ("lt-plain", 10, "network_load_test",
     ["--emulate-nodes", "1", "--seed", "3", *TINY, "--congestor-measurements", "1",
      "--congestor-iterations", "1", "--tests", "rr_two_sided_lat"]),
    ("lt-knobs", 10, "network_load_test",
     ["--emulate-nodes", "1", "--seed", "3", "--ring-seed", "1000", *TINY,
      "--congestor-measurements", "1", "--congestor-iterations", "1",
      "--tests", "rr_two_sided_lat", "--congestors", "a2a:2,p2p_incast",
      "--congestor-bytes", "1024", "--placement", "split", "--canary-fraction", "0.25",
      "--repeat", "2", "--time-limit", "5", "--output-dir", "out"]),
    ("nc-plain", 4, "network_congestor",
     ["--emulate-nodes", "1", "--seed", "5", "--duration", "0.2", "--report-interval", "0.1",
      "--congestors", "a2a,p2p_incast", "--congestor-bytes", "2048",
      "--congestor-iterations", "2", "--stop-file", "stop.never"]),
]


def singleton(build, program, args):
    cmd = [str(Path(build) / program), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env=mpi_harness.mpi_env(), stdin=subprocess.DEVNULL)


def settings_lines(stdout):
    """The settings block of the preamble; the MPI library is this host's."""
    out, inside = [], False
    for line in stdout.splitlines():
        if line.startswith("  Settings"):
            inside = True
        if inside:
            out.append("   MPI = #" if line.startswith("   MPI = ") else line)
            if line.startswith("   JSON = "):
                break
    return out


def run_case(label, ranks, program, args):
    """The settings lines and the JSON config of one run."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(Path(tmp) / "out", exist_ok=True)
        p = mpi_harness.run(ranks, program, *args, "--quiet", cwd=tmp, timeout=120)
        if p.returncode != 0:
            raise SystemExit(f"{label}: exit {p.returncode}\n{p.stderr[-2000:]}")
        doc_path = Path(tmp) / ("res.json" if "res.json" in args else
                                f"{'out/' if 'out' in args else ''}{program}.json")
        config = json.loads(doc_path.read_text())["config"]
    if config.get("seed_source") == "time":
        config["seed"] = "#"      # rank 0's clock
    return "\n".join(settings_lines(p.stdout)) + "\n" + json.dumps(config, indent=1) + "\n"


def outputs(build):
    """Every golden text this build produces: {file name: text}."""
    got = {}
    for program in PROGRAMS:
        p = singleton(build, program, ["--help"])
        got[f"help-{program}.txt"] = p.stdout + f"[exit {p.returncode}]\n"
    lines = []
    for program, args in BAD:
        p = singleton(build, program, args)
        first = p.stderr.splitlines()[0] if p.stderr else ""
        lines.append(f"{program} {' '.join(args)}\n  [exit {p.returncode}] {first}\n")
    got["bad-options.txt"] = "".join(lines)
    saved = os.environ.get("GPCNET_BUILD_DIR")
    os.environ["GPCNET_BUILD_DIR"] = str(build)   # where mpi_harness finds the programs
    try:
        for label, ranks, program, args in RUNS:
            got[f"run-{label}.txt"] = run_case(label, ranks, program, args)
    finally:
        if saved is None:
            del os.environ["GPCNET_BUILD_DIR"]
        else:
            os.environ["GPCNET_BUILD_DIR"] = saved
    return got


def compare(build):
    """Differences between this build and the golden files, as text."""
    diffs = []
    for name, text in outputs(build).items():
        path = GOLDEN / name
        want = path.read_text() if path.exists() else "(missing golden file)\n"
        if text != want:
            diffs.append("".join(difflib.unified_diff(
                want.splitlines(True), text.splitlines(True), f"golden/{name}", f"build/{name}")))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(mpi_harness.build_dir()))
    ap.add_argument("--write", action="store_true", help="rewrite the golden files")
    a = ap.parse_args()
    if a.write:
        GOLDEN.mkdir(exist_ok=True)
        for name, text in outputs(a.build).items():
            (GOLDEN / name).write_text(text)
        return 0
    diffs = compare(a.build)
    sys.stdout.write("".join(diffs) or "options output identical to the golden files\n")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
