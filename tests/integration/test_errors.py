"""Bad input and too few nodes: one clear message, non-zero exit, no hang."""
import pytest


def test_network_test_needs_two_nodes(harness, tmp_path):
    p = harness.run(2, "network_test", "--output-dir", tmp_path)  # one real host
    assert p.returncode == 1
    assert p.stderr.count("needs at least 2 nodes, found 1") == 1
    # The reference's own line, on stdout, for wrappers that look for it.
    assert p.stdout.count("ERROR: this application must be run on at least 2 nodes\n") == 1


@pytest.mark.parametrize("np,extra,minimum", [
    (9, [], 10),
    (10, ["--canary-fraction", "0.5"], 16),
    (5, ["--congestors", "a2a"], 6),
    (14, ["--congestors", "a2a,p2p_incast,rma_incast,rma_bcast,dl_allreduce,p2p_bcast"], 15),
])
def test_load_test_minimum_nodes(harness, tmp_path, np, extra, minimum):
    p = harness.run(np, "network_load_test", "--emulate-nodes", "1", *extra,
                    "--output-dir", tmp_path)
    assert p.returncode == 1, p.stderr
    assert p.stderr.count(f"needs at least {minimum} nodes") == 1, p.stderr
    assert p.stdout.count(f"ERROR: this application must be run on at least {minimum} nodes\n") == 1
    assert not (tmp_path / "network_load_test.json").exists()


def test_minimum_is_enough(harness, tmp_path):
    p = harness.run(6, "network_load_test", "--emulate-nodes", "1", "--congestors", "a2a",
                    "--tests", "multiple_allreduce", *harness.QUICK, *harness.QUICK_CONGESTORS,
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("program", ["network_test", "network_load_test"])
@pytest.mark.parametrize("args,needle", [
    (["--bogus"], "unknown option '--bogus'"),
    (["--time-limit", "soon"], "--time-limit: expected a number"),
    (["--tests", "rr_nope"], "unknown name 'rr_nope'"),
    (["--emulate-nodes"], "--emulate-nodes needs a value"),
])
def test_bad_usage_exits_2_with_one_line_and_a_pointer(harness, tmp_path, program, args, needle):
    p = harness.run(3, program, *args, "--output-dir", tmp_path)
    assert p.returncode == 2
    assert p.stderr.count(needle) == 1
    # The message and where the options are; not the whole usage after it.
    assert p.stderr.count(f"See '{program} --help' for the options.") == 1
    assert "Usage: mpirun" not in p.stderr


def test_help_and_version(harness):
    p = harness.run(2, "network_load_test", "--help")
    assert p.returncode == 0 and p.stdout.count("Usage: mpirun") == 1
    assert "--congestors" in p.stdout and "--emulate-nodes" in p.stdout
    v = harness.run(1, "network_test", "--version")
    assert v.returncode == 0 and v.stdout.startswith("network_test (GPCNeT) ")


def test_existing_results_need_force(harness, tmp_path):
    args = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", *harness.QUICK,
            "--output-dir", tmp_path]
    assert harness.run(2, "network_test", *args).returncode == 0
    p = harness.run(2, "network_test", *args)
    assert p.returncode == 1 and "already exists; use --force" in p.stderr
    assert harness.run(2, "network_test", *args, "--force").returncode == 0


def test_missing_output_dir_is_made(harness, tmp_path):
    """A missing --output-dir is made with its parents; one that cannot be
    made (a file in the way) is refused before anything is measured."""
    p = harness.run(2, "network_test", "--emulate-nodes", "1", "--tests", "rr_two_sided_lat",
                    "--time-limit", "0.05", "--measurements", "2", "--rings", "2",
                    "--iterations", "5", "--warmup", "1", "--output-dir", tmp_path / "a" / "b")
    assert p.returncode == 0, p.stderr[-2000:]
    assert (tmp_path / "a" / "b" / "network_test.json").is_file()
    (tmp_path / "file").write_text("x")
    p = harness.run(2, "network_test", "--emulate-nodes", "1",
                    "--output-dir", tmp_path / "file" / "sub")
    assert p.returncode == 1 and "cannot create output directory" in p.stderr
    assert p.stdout == ""


def test_more_emulated_nodes_than_ranks(harness, tmp_path):
    p = harness.run(2, "network_test", "--emulate-node-count", "3", "--output-dir", tmp_path)
    assert p.returncode == 2 and "larger than the 2 ranks" in p.stderr
