"""Nothing lost: the results file on disk is complete, valid JSON after every
finished phase (catalogue section F). A reader polls it while the run goes
on; every version it sees must parse, hold one more phase than the one
before or the same, and hold exactly the rows of the finished phases.
Every phase lasts its 1 s time limit at least (relsupport.SLOW), however
quick or slow the host, so a reader that polls every 5 ms sees most
versions even when it shares the cores with the job and other work."""
import json
import time

from relsupport import SLOW, TINY_CONGESTORS, WAIT_GUARD, no_temporary_files, table_rows

CANARIES = ["rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"]
# One phase per finished test: nothing is lost when a run ends mid-block.
LOADED_PHASES = [f"isolated:{t}" for t in CANARIES] + [f"loaded:{t}" for t in CANARIES]


def watch(job, path):
    """Every distinct version of the file while the job runs."""
    seen, last = [], None
    while True:
        running = job.proc.poll() is None
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raw = None
        if raw is not None and raw != last:
            # Parse the bytes just read, not a second read of the file: the
            # run may have replaced it in between, and the newer version
            # would then be recorded twice (a "complete" before the last).
            seen.append(json.loads(raw.decode("utf-8")))  # must parse, whenever it is read
            last = raw
        if not running:
            break
        time.sleep(0.005)
    job.wait(timeout=WAIT_GUARD)
    return seen


def check_versions(versions, final_phases):
    assert versions, "the results file never appeared"
    counts = [len(v["phases"]) for v in versions]
    assert counts == sorted(counts), counts
    assert all(v["status"] == "running" for v in versions[:-1])
    assert versions[-1]["status"] == "complete" and versions[-1]["finished_at"]
    assert [p["name"] for p in versions[-1]["phases"]] == final_phases
    # Earlier versions are prefixes of the final record.
    for v in versions:
        assert [p["name"] for p in v["phases"]] == final_phases[:len(v["phases"])]
    return counts


def test_network_test_json_after_every_phase(jobs, tmp_path):
    job = jobs(4, "network_test", "--emulate-nodes", "1", *SLOW, "--output-dir", tmp_path)
    versions = watch(job, tmp_path / "network_test.json")
    assert job.returncode == 0, job.stderr()[-2000:]
    names = [f"isolated:{t}" for t in versions[-1]["config"]["tests"]]
    counts = check_versions(versions, names)
    assert len(set(counts)) >= 3, f"too few versions seen to tell: {counts}"
    for v in versions:
        assert len(v["tables"][0]["rows"]) == len(v["phases"])
    assert len(table_rows(job.stdout())) == 8
    no_temporary_files(tmp_path)


def test_load_test_json_after_every_phase(jobs, tmp_path):
    job = jobs(10, "network_load_test", "--emulate-nodes", "1", *SLOW,
               *TINY_CONGESTORS, "--seed", "3", "--output-dir", tmp_path)
    versions = watch(job, tmp_path / "network_load_test.json")
    assert job.returncode == 0, job.stderr()[-2000:]
    counts = check_versions(versions, LOADED_PHASES)
    # The reader shares 2 cores with 10 busy ranks: it may miss a version.
    assert len(set(counts)) >= 2, f"too few versions seen to tell: {counts}"
    for v in versions:
        tables = {t["id"]: t for t in v["tables"]}
        isolated = min(len(v["phases"]), 3)
        assert len(tables["isolated"]["rows"]) == isolated
        loaded = len(v["phases"]) - isolated
        assert len(tables.get("loaded", {"rows": []})["rows"]) == loaded
        assert sum(t.startswith("congestors_during:") for t in tables) == loaded
        assert v["placement"]["canary_nodes"]  # placement is there from the first write
    assert len(versions[-1]["impact"]) == 3
    no_temporary_files(tmp_path)
