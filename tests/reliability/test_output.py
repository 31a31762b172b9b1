"""Output directory and results file faults (catalogue section D).

Small, full and read-only file systems are tmpfs mounts made inside a
private mount namespace (unshare), so nothing outside the test sees them;
where no namespace can be made the test is skipped with the reason.
"""
import json
import os
import subprocess

import pytest

from relsupport import FAST_FAIL, SLOW, TINY, no_temporary_files, table_rows

QUICK_NET = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", *TINY]


def failed_at_start(p, needle):
    assert p.returncode == 1, p.stderr[-2000:]
    assert p.stderr.count(needle) == 1, p.stderr[-2000:]
    assert p.stdout == ""  # nothing measured, not even the preamble


def test_output_dir_missing_is_created(harness, tmp_path):
    """A missing --output-dir is made with its parents (docs/testbed.md's
    worked example used to fail on it)."""
    out = tmp_path / "made" / "here"
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", out)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads((out / "network_test.json").read_bytes())["status"] == "complete"
    no_temporary_files(out)


def test_output_dir_under_a_file_names_the_cause(harness, tmp_path):
    (tmp_path / "file").write_text("x")
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path / "file" / "sub",
                    env=FAST_FAIL)
    failed_at_start(p, "cannot create output directory")
    assert "Not a directory" in p.stderr and f"at '{tmp_path / 'file'}'" in p.stderr


def test_output_dir_that_takes_no_files_says_so(harness):
    """/proc exists but accepts no new files: the message must not say the
    directory is missing without saying that it exists."""
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", "/proc",
                    env=FAST_FAIL)
    failed_at_start(p, "cannot write to output directory '/proc'")
    assert "it exists, but its file system accepts no new files" in p.stderr


def test_output_dir_is_a_file(harness, tmp_path):
    (tmp_path / "file").write_text("x")
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path / "file",
                    env=FAST_FAIL)
    failed_at_start(p, "cannot write to output directory")
    assert "Not a directory" in p.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere: "
                    "test_output_dir_read_only_filesystem covers it for root")
def test_output_dir_without_permission(harness, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", locked,
                    env=FAST_FAIL)
    failed_at_start(p, "cannot write to output directory")


def test_json_in_missing_directory_is_created(harness, tmp_path):
    """--json elsewhere than --output-dir: its directory is made too."""
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path,
                    "--json", tmp_path / "nowhere" / "r.json")
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads((tmp_path / "nowhere" / "r.json").read_bytes())["status"] == "complete"


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_json_path_is_a_directory(harness, tmp_path, force):
    (tmp_path / "r.json").mkdir()
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path,
                    "--json", tmp_path / "r.json", *(["--force"] if force else []),
                    env=FAST_FAIL)
    failed_at_start(p, "is not a regular file")
    assert (tmp_path / "r.json").is_dir()
    no_temporary_files(tmp_path)


def test_existing_results_refused_and_kept_without_force(harness, tmp_path):
    first = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    before = (tmp_path / "network_test.json").read_bytes()
    again = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path,
                        env=FAST_FAIL)
    failed_at_start(again, "already exists; use --force")
    assert (tmp_path / "network_test.json").read_bytes() == before
    forced = harness.run(2, "network_test", *QUICK_NET, "--output-dir", tmp_path, "--force")
    assert forced.returncode == 0
    assert json.loads((tmp_path / "network_test.json").read_bytes())["status"] == "complete"
    no_temporary_files(tmp_path)


def test_non_utf8_output_dir_gives_valid_json(harness, tmp_path):
    """A Latin-1 directory name ends up in config.output_dir: the document
    must stay UTF-8 (it used to be unreadable for every JSON reader)."""
    odd = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(odd)
    cmd = harness.launcher(2) + [str(harness.binary("network_test")), *QUICK_NET,
                                 "--output-dir", odd]  # bytes: harness.run would quote it
    p = subprocess.run(cmd, capture_output=True, timeout=240, env=harness.mpi_env(),
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    raw = open(odd + b"/network_test.json", "rb").read()
    doc = json.loads(raw.decode("utf-8"))  # strict UTF-8
    assert doc["config"]["output_dir"].endswith("caf\ufffd")


# --------------------------------------------------- private file systems

def in_namespace(private_mount, harness, script, fast_fail=False, timeout=240):
    """Run a shell script (with $MPIRUN and $BIN set) in a private mount
    namespace; returns CompletedProcess."""
    env = harness.mpi_env(FAST_FAIL if fast_fail else None)
    env["MPIRUN"] = " ".join(harness.launcher(2)[:-1])  # launcher without the count
    env["BIN"] = str(harness.build_dir())
    return subprocess.run(private_mount + ["sh", "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def test_output_dir_read_only_filesystem(harness, tmp_path, private_mount):
    mnt = tmp_path / "ro"
    mnt.mkdir()
    p = in_namespace(private_mount, harness, f"""
        mount -t tmpfs -o size=1m,ro tmpfs '{mnt}' || exit 97
        exec $MPIRUN 2 "$BIN/network_test" {' '.join(QUICK_NET)} --output-dir '{mnt}'
    """, fast_fail=True)
    failed_at_start(p, "cannot write to output directory")
    assert "Read-only file system" in p.stderr


def test_output_dir_full_at_start(harness, tmp_path, private_mount):
    mnt = tmp_path / "full"
    mnt.mkdir()
    p = in_namespace(private_mount, harness, f"""
        mount -t tmpfs -o size=64k tmpfs '{mnt}' || exit 97
        dd if=/dev/zero of='{mnt}/filler' bs=4k 2>/dev/null
        exec $MPIRUN 2 "$BIN/network_test" {' '.join(QUICK_NET)} --output-dir '{mnt}'
    """, fast_fail=True)
    failed_at_start(p, "cannot write the results file")
    assert "No space left on device" in p.stderr


def test_disk_fills_during_the_run(harness, tmp_path, private_mount):
    """The disk fills after the first phase: the last complete results file
    stays on disk, every table is still printed, and the run fails (it
    used to exit 0)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    keep = tmp_path / "kept.json"
    p = in_namespace(private_mount, harness, f"""
        mount -t tmpfs -o size=4m tmpfs '{mnt}' || exit 97
        $MPIRUN 4 "$BIN/network_test" --emulate-nodes 1 {' '.join(SLOW)} \\
            --output-dir '{mnt}' &
        job=$!
        while [ ! -f '{mnt}/network_test.json' ]; do
            kill -0 $job 2>/dev/null || break
            sleep 0.02
        done
        dd if=/dev/zero of='{mnt}/filler' bs=4k 2>/dev/null
        wait $job
        rc=$?
        cp '{mnt}/network_test.json' '{keep}'
        exit $rc
    """)
    assert p.returncode == 1, p.stderr[-3000:]
    assert "failed (disk full?)" in p.stderr
    assert p.stderr.count("error: the results could not be written") == 1
    doc = json.loads(keep.read_bytes())
    assert doc["status"] == "running" and 1 <= len(doc["phases"]) < 8
    assert len(table_rows(p.stdout)) == 8  # the text view is complete
