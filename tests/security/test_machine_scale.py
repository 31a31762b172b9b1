"""The results readers at the size of the largest machines (issue 55): a
document written by the programs' own writer (tests/unit/results_doc_gen.c)
for 10,600 nodes of 8 NICs and 133,800 ranks is read back by every command
in bounded memory, the bounds of results_limits.py and reading.py keep
twice the headroom over it, and a document over a bound gets one line.

The full-size document is 381 MB and every command takes about a minute
and 1.1 to 1.9 GB to read it on the 2-core test machine: that test runs in
the whole suite only (tests/tiers.py), and there with two commands, `table`
(the cheapest) and `nodes --json` (the one that once went past its memory
bound); GPCNET_SCALE_ALL=1 runs every command on it (about 8 minutes
here, docs/scale.md). The same reading at 64 nodes, by every command, and
the bounds on documents built here, run in every tier.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

import mpi_harness
from conftest import fixture_doc, one_line_error
import gpcnet
from gpcnet.infra import reading
from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import bulk_lists, load, results_limits
from gpcnet.study import congestor_job, scale

LARGEST = (results_limits.LARGEST_NODES, 8, results_limits.LARGEST_RANKS)
PROBE_ROUNDS = 100  # the rounds the derivation in results_limits.py assumes


def _generate(path: Path, nodes: int, nics: int, ranks: int, rounds: int) -> Path:
    subprocess.run([mpi_harness.built("results_doc_gen"), str(path), str(nodes), str(nics), str(ranks),
                    str(rounds)], check=True, timeout=600)
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """64 nodes of 8 NICs, 806 ranks (12 or 13 a node), 10 probe rounds."""
    return _generate(tmp_path_factory.mktemp("scale") / "small.json", 64, 8, 806, 10)


def _commands(doc: Path, out: Path) -> list:
    """Every command that reads a results document, on `doc`."""
    return [["report", doc, "-o", out / "r.html", "--force"], ["compare", doc, doc],
            ["table", doc, "-o", out / "t.md", "--force"], ["nodes", doc], ["nodes", "--json", doc],
            ["plot", doc, "--kind", "hist", "-o", out / "h.svg", "--force"],
            ["plot", doc, "--kind", "ci", "-o", out / "ci.svg", "--force"]]


# ------------------------------------------------------- what the writer writes

def test_the_writer_s_document_is_valid_and_takes_the_quick_path(small):
    doc = load.load(small)
    found = bulk_lists.find(doc)
    assert {kind for kind, _, _ in found} >= {"bins", "partners", "round_usec", "nic_results", "nic_probe",
                                              "nic_nodes"}
    for kind, where, items in found:
        assert all(map(bulk_lists.KINDS[kind][1], items)), (kind, where)
    assert len(doc["nics"]["canaries"][0]["nics"]) == 64 * 8
    assert doc["environment"]["ranks"] == 806 and doc["environment"]["ppn_max"] == 13
    assert all(len(p["counters"]) == 64 for p in doc["phases"])


def test_the_per_nic_lists_never_reach_jsonschema(small):
    thin, problems = bulk_lists.thinned(load.load(small))
    assert problems == []
    assert thin["nics"]["nodes"] == [] and thin["nics"]["probe"]["nics"] == []
    assert all(entry["nics"] == [] for entry in thin["nics"]["canaries"])


def test_every_command_reads_the_writer_s_document(small, cli, tmp_path):
    for args in _commands(small, tmp_path):
        code, out, err = cli(*args)
        assert code == 0 and err == "", (args, err)
    assert "nid000064/hsn7" in (tmp_path / "r.html").read_text()
    # the study's readers of a load test's JSON
    assert congestor_job.isolated_done(small)
    assert scale.bandwidth_ratio(reading.read_json(small, "load test JSON", reading.MAX_RESULTS_BYTES))[0]


_ODD = [None, True, -1, 0.5, 2**70, "", "x", [], {}, [None], [True], [-1], ["hsn0"]]


@pytest.mark.parametrize("kind", ["nic_results", "nic_probe", "nic_nodes"])
def test_the_quick_check_of_a_nic_item_is_never_looser_than_the_schema(small, kind):
    """Every key of an item the writer wrote, set to each odd value, and
    the item with a key more or less: what the quick check accepts, the
    schema accepts; a wrong type is never accepted."""
    ok, validator = bulk_lists.KINDS[kind][1], bulk_lists.item_validator(kind)
    item = next(items[0] for k, _, items in bulk_lists.find(load.load(small)) if k == kind)
    assert ok(item)
    variants = [dict(item, extra=1), {k: v for k, v in list(item.items())[1:]}]
    variants += [dict(item, **{key: odd}) for key in item for odd in _ODD]
    accepted = 0
    for variant in variants:
        if ok(variant):
            accepted += 1
            assert not list(validator.iter_errors(variant)), variant
    assert not ok(dict(item, rail=True)) if "rail" in item else not ok(dict(item, rails=[True]))
    assert 0 < accepted < len(variants)


# ---------------------------------------------------------------- the bounds

def _with_nics(entries: int, nics: int, nodes: int = 2, probe: int = 1) -> dict:
    doc = fixture_doc("network_run.json")
    nic = {"node": "n", "nic": "hsn0", "rail": 0, "ranks": 1, "avg": 1.0, "p99": 2.0, "samples": 10}
    entry = {"table": "isolated", "repetition": 1, "test": "rr_two_sided_lat", "unit": "usec",
             "better": "lower", "rails": [], "nics": [nic] * nics}
    doc["nics"] = {"source": "GPCNET_NIC", "rails": 1,
                   "nodes": [{"node": "n", "nics": ["hsn0"], "rails": [0]}] * nodes,
                   "canaries": [entry] * entries,
                   "probe": {"rounds": 1, "exchanges": 1, "bytes": 8, "wall_s": 1.0,
                             "nics": [{"node": "n", "nic": "hsn0", "rail": 0, "usec": 1.0}] * probe}}
    return doc


def _with_counters(nodes: int) -> dict:
    doc = fixture_doc("load_run.json")
    port = {"hsn0": {"kind": "interface", "tx_bytes": 1, "rx_bytes": 1, "tx_dropped": 0, "rx_dropped": 0}}
    doc["phases"][0]["counters"] = {f"nid{n:06d}": port for n in range(nodes)}
    return doc


LIST = results_limits.MAX_LIST_ITEMS
PER_NIC = results_limits.MAX_TOTAL["nic_results"]
OVER = {
    "per-NIC results in all": (lambda: _with_nics(PER_NIC // LIST + 1, LIST),
                               f"more than {PER_NIC} per-NIC canary results in all"),
    "per-NIC results of one entry": (lambda: _with_nics(1, LIST + 1), f"$.nics.canaries[0].nics: {LIST + 1} items"),
    "NIC probe": (lambda: _with_nics(1, 1, probe=LIST + 1), f"$.nics.probe.nics: {LIST + 1} items"),
    "NIC nodes": (lambda: _with_nics(1, 1, nodes=LIST + 1), f"$.nics.nodes: {LIST + 1} items"),
    "counters of a phase": (lambda: _with_counters(LIST + 1), f"$.phases[0].counters: {LIST + 1} items"),
}


@pytest.mark.parametrize("case", sorted(OVER))
def test_a_document_over_a_machine_bound_is_refused_before_the_schema(case, monkeypatch):
    build, says = OVER[case]
    monkeypatch.setattr(load, "validator", lambda *_: pytest.fail("the document reached jsonschema"))
    with pytest.raises(GpcnetError) as e:
        load.check(build(), "r.json")
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_at_the_machine_bounds_nothing_is_refused():
    for doc in (_with_nics(PER_NIC // LIST, LIST, nodes=LIST, probe=LIST), _with_counters(LIST)):
        results_limits.check(doc, "r.json")


def test_the_phases_counters_are_not_walked():
    """What no command reads and the schema leaves open is counted per
    phase (its nodes), never value by value (10,600 nodes of 8 ports in 11
    phases were 5.7 million values): counters of more values than all the
    rest may hold pass."""
    doc = fixture_doc("load_run.json")
    node = {f"port{i}": {"kind": "interface"} for i in range(3000)}  # one object, shared
    doc["phases"][0]["counters"] = {f"nid{n:06d}": node for n in range(1000)}
    assert 1000 * 3000 * 2 > results_limits.MAX_OTHER_VALUES
    results_limits.check(doc, "r.json")


def test_a_file_over_the_byte_bound_is_refused_before_a_byte_is_read(cli, tmp_path):
    """A sparse file of 768 MiB and one byte: refused from its size, in
    kilobytes of memory, by every command."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.write(b"{")
        f.truncate(reading.MAX_RESULTS_BYTES + 1)
    tracemalloc.start()
    try:
        for args in _commands(path, tmp_path):
            code, _, err = cli(*args)
            assert f"larger than {reading.MAX_RESULTS_BYTES // 2**20} MiB, so not a results JSON file" \
                in one_line_error(code, err), args
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak


# ------------------------------------------------------------ the full size

def _headroom(path: Path, doc: dict) -> None:
    """Every bound is at least twice what the largest machine's document holds."""
    h = results_limits.HEADROOM
    values, containers = reading.json_counts(path.read_text())
    assert h * path.stat().st_size <= reading.MAX_RESULTS_BYTES * 1.01  # 2 x 381 MB: 727 MiB
    assert h * values <= reading.MAX_JSON_VALUES and h * containers <= reading.MAX_JSON_CONTAINERS
    found = bulk_lists.find(doc)
    assert h * max(len(items) for _, _, items in found) <= results_limits.MAX_LIST_ITEMS
    for kind in results_limits.MAX_TOTAL:
        total = sum(len(items) for k, _, items in found if k == kind)
        assert h * total <= results_limits.MAX_TOTAL[kind], kind


def _run_measured(args: list) -> tuple:
    """(exit code, stderr, the child's peak resident memory in bytes)."""
    env = dict(os.environ, PYTHONPATH=str(Path(gpcnet.__file__).resolve().parents[1]))
    with subprocess.Popen([sys.executable, "-m", "gpcnet", *map(str, args)], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as child:
        err = child.stderr.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, err, usage.ru_maxrss * 1024


def test_the_largest_machines_document_is_read_by_every_command(tmp_path):
    path = _generate(tmp_path / "largest.json", *LARGEST, PROBE_ROUNDS)
    try:
        doc = load.load(path)
        assert len(doc["nics"]["canaries"]) == 6 and len(doc["nics"]["canaries"][0]["nics"]) == 84_800
        assert doc["environment"]["ranks"] == 133_800 and doc["environment"]["nodes"] == 10_600
        _headroom(path, doc)
        del doc
        size = path.stat().st_size
        every = os.environ.get("GPCNET_SCALE_ALL") == "1"
        for args in _commands(path, tmp_path):
            if not every and args[:2] not in (["table", path], ["nodes", "--json"]):
                continue
            code, err, rss = _run_measured(args)
            assert code == 0 and err == "", (args, err)
            documents = sum(a == path for a in args)
            # measured: 1.1-1.3 GB for one document of 381 MB, 1.85 GB for two
            assert rss < documents * 4 * size + 256 * 2**20, (args, rss)
    finally:
        for name in ("largest.json", "r.html", "t.md", "h.svg", "ci.svg"):
            (tmp_path / name).unlink(missing_ok=True)
