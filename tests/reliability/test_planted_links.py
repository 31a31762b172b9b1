"""Nothing is written through a link planted in the output directory, and no
existing output is replaced without --force (catalogue section D, D12-D15).

The programs run as root in directories other users may write to: a link at
any name they write (the results file, its temporaries, the write probe,
the node lists, the watchdog's abort file) must neither be followed nor
replaced unless --force says so.
"""
import json
import os
import signal

import pytest

from relsupport import FAR_DEADLINE, FAST_FAIL, SLOW, TINY, TINY_CONGESTORS, job_guard, \
    no_temporary_files

QUICK_NET = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", *TINY]
QUICK_LOAD = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", *TINY, *TINY_CONGESTORS,
              "--seed", "7"]
NODE_LISTS = ["allnodes_congestion.dat", "congestors_nodes_congestion.dat",
              "network_nodes_congestion.dat"]
PRECIOUS = b"precious: must never change\n"


def victim(tmp_path, name="victim"):
    v = tmp_path / name
    v.write_bytes(PRECIOUS)
    return v


def plant(link, target):
    os.symlink(target, link)
    return link


def untouched(v):
    assert v.read_bytes() == PRECIOUS, f"{v} was written through a link"


def refused(p, needle):
    assert p.returncode == 1, p.stderr[-2000:]
    assert needle in p.stderr, p.stderr[-2000:]
    assert p.stdout == ""


@pytest.mark.parametrize("name", ["network_test.json.tmp", "network_test.json.abort",
                                  ".gpcnet-write-test-0", "network_test.json.XXXXXX"])
def test_links_at_temporary_names_are_never_followed(harness, tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    v = victim(tmp_path)
    plant(out / name, v)
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", out)
    assert p.returncode == 0, p.stderr[-2000:]
    untouched(v)
    assert json.loads((out / "network_test.json").read_bytes())["status"] == "complete"
    assert (out / name).is_symlink()  # not ours: left as it was


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_link_at_the_results_name(harness, tmp_path, dangling):
    out = tmp_path / "out"
    out.mkdir()
    v = tmp_path / "nowhere" if dangling else victim(tmp_path)
    plant(out / "network_test.json", v)
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", out,
                    env=FAST_FAIL)
    refused(p, "already exists; use --force")
    assert (out / "network_test.json").is_symlink()
    forced = harness.run(2, "network_test", *QUICK_NET, "--output-dir", out, "--force")
    assert forced.returncode == 0, forced.stderr[-2000:]
    # The link itself was replaced by the results; what it named is as it was.
    assert not (out / "network_test.json").is_symlink()
    assert json.loads((out / "network_test.json").read_bytes())["status"] == "complete"
    if dangling:
        assert not v.exists()
    else:
        untouched(v)
    no_temporary_files(out)


@pytest.mark.parametrize("name", NODE_LISTS)
def test_node_lists_are_not_replaced_without_force(harness, tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    v = victim(tmp_path)
    plant(out / name, v)
    p = harness.run(10, "network_load_test", *QUICK_LOAD, "--output-dir", out,
                    env=FAST_FAIL)
    refused(p, f"node list '{out / name}' already exists; use --force")
    assert not (out / "network_load_test.json").exists()
    forced = harness.run(10, "network_load_test", *QUICK_LOAD, "--output-dir", out, "--force")
    assert forced.returncode == 0, forced.stderr[-2000:]
    untouched(v)
    assert not (out / name).is_symlink()
    assert len((out / name).read_text().splitlines()) >= 2
    no_temporary_files(out)


def test_existing_node_list_of_a_repetition_is_refused(harness, tmp_path):
    (tmp_path / "network_nodes_congestion_r2.dat").write_text("old\n")
    p = harness.run(10, "network_load_test", *QUICK_LOAD, "--repeat", "2", "--output-dir",
                    tmp_path, env=FAST_FAIL)
    refused(p, "network_nodes_congestion_r2.dat' already exists")
    assert (tmp_path / "network_nodes_congestion_r2.dat").read_text() == "old\n"


def test_abort_marking_does_not_follow_a_link(jobs, tmp_path):
    """The watchdog writes <json>.abort and renames it over the results: a
    link planted at that name is removed, not followed. (8 tests of 1 s at
    least: the deadline at 4.5 s comes after the first phase, before the
    end; test_deadline.py::test_deadline_mid_run.)"""
    v = victim(tmp_path)
    plant(tmp_path / "network_test.json.abort", v)
    job = jobs(4, "network_test", "--emulate-nodes", "1", *SLOW, "--deadline", "4.5",
               "--output-dir", tmp_path)
    job.wait(timeout=job_guard(4.5))
    assert job.leftover() == []
    untouched(v)
    doc = json.loads((tmp_path / "network_test.json").read_bytes())
    assert doc["status"] == "aborted" and doc["abort_reason"] == "deadline: --deadline 4.5 s reached"


def test_first_aid_flip_does_not_follow_a_link(jobs, tmp_path):
    """A link planted at the results name mid-run, then SIGTERM: the
    handler's first aid (flipping "running" to "aborted" in place) does not
    write through it. Rank 0 is stopped while the link is planted, so that
    no write of its own replaces the link first."""
    text = b'{"status": "running", "note": "not ours"}\n'
    v = tmp_path / "victim"
    v.write_bytes(text)
    results = tmp_path / "network_test.json"
    job = jobs(4, "network_test", "--emulate-nodes", "1", *SLOW, "--deadline", FAR_DEADLINE,
               "--output-dir", tmp_path)
    job.wait_for_ranks()
    job.wait_for_phases(results, 1)
    job.signal_rank(0, signal.SIGSTOP)
    results.unlink()
    os.symlink(v, results)
    job.signal_rank(0, signal.SIGTERM)
    job.signal_rank(0, signal.SIGCONT)
    job.wait(timeout=job_guard())
    assert "--deadline of" not in job.stderr()   # ended by the SIGTERM
    assert job.leftover() == []
    assert v.read_bytes() == text, "the flip wrote through a link"
