"""Bounds on the total work of reading one results JSON (issue 39,
finding 3): the size of what json.loads builds is counted in the text
before it runs, every list of the document is counted before any item is
looked at, and jsonschema never walks the long lists (bins, probe rounds,
timeline points), which a quick check per item covers instead.

The checks are of work, not time: json.loads not called, jsonschema not
shown a bin, the peak of memory allocated, the number of lookups.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc

import pytest

from conftest import FIXTURES, fixture_doc, one_line_error
from gpcnet.infra import reading
from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import bulk_lists, load, results, results_limits

REAL = FIXTURES / "real"
HANG_GUARD_S = 120


def _no_schema(monkeypatch):
    """Make any jsonschema pass over a whole document fail the test."""
    def refuse(*_):
        raise AssertionError("the document reached jsonschema")
    monkeypatch.setattr(load, "validator", refuse)


def _refused(doc, monkeypatch) -> str:
    _no_schema(monkeypatch)
    with pytest.raises(GpcnetError) as e:
        load.check(doc, "r.json")
    text = str(e.value)
    assert "\n" not in text and len(text) < 400, text
    return text


# ------------------------------------------------------------ before parsing

def test_a_file_of_tiny_lists_is_refused_before_json_loads_runs(cli, tmp_path, monkeypatch):
    """The issue's 100 MB of `[[],[],...]` took 2.45 GB before it was
    refused; 4,000,001 of them (12 MB) are refused from the count, and the
    most memory allocated is the text itself, twice (bytes, then str)."""
    path = tmp_path / "tiny.json"
    path.write_text("[" + ",".join(["[]"] * (reading.MAX_JSON_CONTAINERS + 1)) + "]")

    def no_parse(*_, **__):
        raise AssertionError("json.loads ran")
    monkeypatch.setattr(reading.json, "loads", no_parse)
    code, _, err = cli("report", path, "-o", tmp_path / "r.html")
    assert "4000002 lists and objects, more than any results JSON file holds" in one_line_error(code, err)
    tracemalloc.start()
    try:
        with pytest.raises(GpcnetError, match="lists and objects"):
            reading.read_json(path, "results JSON")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * path.stat().st_size, peak


def test_values_are_counted_without_what_strings_hold(monkeypatch, tmp_path):
    monkeypatch.setattr(reading, "MAX_JSON_VALUES", 1000)
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"s": ",[{" * 5000, "t": 'a\\"' + ",," * 100}))
    assert reading.read_json(path, "test")["s"] == ",[{" * 5000
    path.write_text(json.dumps([0] * 1000))
    with pytest.raises(GpcnetError, match="about 1001 values, more than any test file holds"):
        reading.read_json(path, "test")


@pytest.mark.parametrize("name", sorted(p.name for p in REAL.glob("*.json")))
def test_the_limits_hold_a_256_mib_file_as_the_programs_write_it(name):
    """The programs write each value on its own indented line (indent 2):
    a file at the byte limit in their format fits the value limits."""
    text = json.dumps(json.loads((REAL / name).read_text()), indent=2)
    values, containers = reading.json_counts(text)
    scale = reading.MAX_JSON_BYTES / len(text)
    assert values * scale < reading.MAX_JSON_VALUES
    assert containers * scale < reading.MAX_JSON_CONTAINERS


# ------------------------------------------------------- counted after parsing

def _rows_with_bins(n_rows, bins_per_row):
    doc = fixture_doc("load_run.json")
    row = next(r for t in doc["tables"] for r in t["rows"] if r.get("histogram"))
    shared = [[1.0, 2.0, 1]] * bins_per_row  # one list object: no memory for millions
    table = {"id": "isolated", "title": "x", "rows": []}
    for i in range(n_rows):
        table["rows"].append(dict(row, test=f"t{i}", histogram=dict(row["histogram"], bins=shared)))
    doc["tables"] = [dict(table, repetition=r + 1, rows=table["rows"][r * 100:(r + 1) * 100])
                     for r in range((n_rows + 99) // 100)]
    return doc


def _probe(nodes, rounds):
    doc = fixture_doc("network_run.json")
    node = {"node": 0, "name": "n", "usec": 1.0, "partners": [1] * rounds, "round_usec": [1.0] * rounds}
    doc["node_probe"] = {"rounds": rounds, "exchanges": 1, "bytes": 8, "wall_s": 1.0, "nodes": [node] * nodes}
    return doc


def _timeline(entries):
    doc = fixture_doc("load_run.json")
    points = list(range(2048))
    doc["timeline"] = [{"bins": {"count": points, "mean": [], "on": []}}] * entries
    return doc


def _config_tests(n):
    doc = fixture_doc("load_run.json")
    doc["config"]["tests"] = ["rr_get_lat"] * n
    return doc


def _other_values():
    doc = fixture_doc("load_run.json")
    doc["config"]["non_default"] = [["x"] * results_limits.MAX_LIST_ITEMS] * 21
    return doc


def _rows_in_one_table(n):
    doc = fixture_doc("load_run.json")
    doc["tables"][0]["rows"] = [doc["tables"][0]["rows"][0]] * n
    return doc


def _tables_in_one_repetition(n):
    doc = fixture_doc("load_run.json")
    doc["tables"] = [doc["tables"][0]] * n
    return doc


LIST = results_limits.MAX_LIST_ITEMS
OVER = {  # a document just over one limit -> what the refusal says
    "all-bins": (lambda: _rows_with_bins(31, 100_000), "more than 3000000 histogram bins in all"),
    "probe-nodes": (lambda: _probe(LIST + 1, 1), f"$.node_probe.nodes: {LIST + 1} items"),
    "probe-rounds": (lambda: _probe(8_001, 1000), "more than 8000000 node-probe partners in all"),
    "timeline-points": (lambda: _timeline(3_907), "more than 8000000 timeline points in all"),
    "one-list": (lambda: _config_tests(LIST + 1), f"$.config.tests: {LIST + 1} items"),
    "other-values": (_other_values, "more than 2000000 values outside the histograms"),
    "rows-per-table": (lambda: _rows_in_one_table(101), "$.tables[0].rows: 101 rows"),
    "tables-per-repetition": (lambda: _tables_in_one_repetition(1025), "more than 1024 tables in repetition 1"),
}


@pytest.mark.parametrize("case", sorted(OVER))
def test_a_document_over_a_limit_is_refused_before_the_schema(case, monkeypatch):
    build, says = OVER[case]
    assert says in _refused(build(), monkeypatch)


def test_at_the_limits_nothing_is_refused(monkeypatch):
    """The same documents one step under each limit pass the counting."""
    for doc in (_rows_with_bins(30, 100_000), _probe(100_000, 80), _timeline(3_906), _config_tests(LIST),
                _rows_in_one_table(100), _tables_in_one_repetition(1024)):
        results_limits.check(doc, "r.json")


def _validator_seeing_no_bins(monkeypatch):
    seen = []
    real = load.validator()

    class Spy:
        def iter_errors(self, doc):
            seen.append(sum(len(r["histogram"]["bins"]) for t in doc["tables"] for r in t["rows"]
                            if r.get("histogram")))
            return real.iter_errors(doc)
    monkeypatch.setattr(load, "validator", Spy)
    return seen


def test_compare_of_a_million_bins_never_shows_jsonschema_a_bin(cli, tmp_path, monkeypatch):
    """The issue's 20 rows of 50,000 bins took 108 s in `gpcnet compare`:
    jsonschema checked every bin. Now it sees the document with the bins
    set aside, and a quick check per bin covers them."""
    doc = fixture_doc("load_run.json")
    for i, row in enumerate(r for t in doc["tables"] for r in t["rows"] if r.get("histogram")):
        if i < 20:
            row["histogram"]["bins"] = [[k + 1.0, k + 2.0, 1] for k in range(50_000)]
            row["samples"] = 50_000
    path = tmp_path / "bins.json"
    path.write_text(json.dumps(doc))
    seen = _validator_seeing_no_bins(monkeypatch)
    code, out, err = cli("compare", path, path)
    assert code == 0, err
    assert seen == [0, 0]


def test_a_bad_bin_deep_in_a_long_list_is_named_by_its_index(monkeypatch):
    doc = _rows_with_bins(1, 1)
    doc["tables"][0]["rows"][0]["histogram"]["bins"] = [[1.0, 2.0, 1]] * 49_999 + [[1.0, 2.0, "x"]]
    with pytest.raises(GpcnetError, match=r"\$\.tables\[0\]\.rows\[0\]\.histogram\.bins\[49999\]\[2\]: "
                                          r"'x' is not of type 'integer'"):
        load.validate(doc, "r.json")


def test_gpcnet_nodes_refuses_300000_probe_entries_at_the_count(cli, tmp_path, monkeypatch):
    """The issue's 300,000 node-probe entries took 101 s in `gpcnet nodes`."""
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(_probe(300_000, 0)))
    _no_schema(monkeypatch)
    code, _, err = cli("nodes", path)
    assert (f"$.node_probe.nodes: 300000 items, more than any run writes (limit {results_limits.MAX_LIST_ITEMS})"
            in one_line_error(code, err))


# ---------------------------------------------- the quick checks match the schema

@pytest.mark.parametrize("kind", sorted(bulk_lists.KINDS))
def test_the_schema_of_each_long_list_is_what_the_quick_check_knows(kind):
    assert set(bulk_lists._list_schema(kind)) <= {"type", "items", "maxItems", "minItems", "$comment"}


TRICKY = [None, True, False, 0, 1, -1, 0.0, -0.0, 0.5, 1.0, 1.5, 2**70, -2**70, 1e308, "1", "", [], {},
          [1, 2, 3], [1.0, 2.0, 1], [0, 0, 1], [1, 2, 0], [1, 2, 1.0], [1, 2, True], [-1, 2, 1], [1, 2, 3, 4],
          [1, 2], [None, 2, 1], ["1", 2, 1], [1, 2, 2**70]]


@pytest.mark.parametrize("kind", sorted(bulk_lists.KINDS))
def test_an_item_the_quick_check_accepts_the_schema_accepts(kind):
    """Never looser than the schema: nothing it refuses gets through."""
    ok = bulk_lists.KINDS[kind][1]
    validator = bulk_lists.item_validator(kind)
    for item in TRICKY:
        if ok(item):
            assert not list(validator.iter_errors(item)), (kind, item)


def test_every_item_the_programs_write_takes_the_quick_path():
    for path in sorted(REAL.glob("*.json")):
        doc = json.loads(path.read_text())
        for kind, where, items in bulk_lists.find(doc):
            assert all(map(bulk_lists.KINDS[kind][1], items)), (path.name, kind, where)


# ------------------------------------------------------------------ the rest

def test_a_huge_value_is_quoted_short(cli, tmp_path):
    """A 100 MB "schema" string was echoed whole in the error."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"schema": "x" * 1_000_000 + "\x1b[31m"}))
    line = one_line_error(*cli("report", path, "-o", tmp_path / "r.html")[::2])
    assert "schema is 'xxx" in line and len(line) < 400


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """Nothing writes to the pipe: reading it would wait for ever."""
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    p = subprocess.run([sys.executable, "-m", "gpcnet", "report", str(fifo), "-o", str(tmp_path / "r.html")],
                       capture_output=True, text=True, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "run.json: is a named pipe, not a regular file" in p.stderr, p.stderr


def test_a_link_the_user_names_is_followed(cli, tmp_path):
    link = tmp_path / "latest.json"
    link.symlink_to(FIXTURES / "load_run.json")
    code, out, err = cli("compare", link, FIXTURES / "load_run.json")
    assert code == 0, err


@pytest.mark.timeout(HANG_GUARD_S)
def test_a_repetition_number_from_the_file_is_not_a_range_to_build():
    doc = fixture_doc("load_run.json")
    for item in doc["tables"] + doc["impact"]:
        item["repetition"] = 10**15
    with pytest.raises(GpcnetError, match="no repetition 1; it has 1000000000000000$"):
        results.check_repetition(doc, 1, "r.json")


def test_a_table_is_found_through_an_index_not_a_scan(monkeypatch):
    doc = fixture_doc("load_run.json")
    doc["tables"] = [dict(doc["tables"][0], id=f"t{i}") for i in range(50_000)]
    calls = []
    real = results.repetition_of
    monkeypatch.setattr(results, "repetition_of", lambda item: calls.append(1) or real(item))
    for i in range(0, 50_000, 50):
        assert results.table(doc, f"t{i}")["id"] == f"t{i}"
    assert len(calls) == 50_000  # once per table, not once per table per lookup


# ------------------------------------------------- topology.conf (finding 2)

def _expansions(monkeypatch) -> list:
    """Names made by expanding host lists, as they are made."""
    from gpcnet.study import topology
    made = []
    real = topology.expand_planned

    def counting(plan):
        names = real(plan)
        made.append(len(names))
        return names
    monkeypatch.setattr(topology, "expand_planned", counting)
    return made


@pytest.mark.parametrize("lines, says", [
    # The files: 200 lines of 100,000 nodes took 42 s and 1.45 GB
    # to reach the duplicate; 50 lines of 100,000 switch names the same.
    ([f"SwitchName=s{k} Nodes=n[0-99999]" for k in range(200)], "2: the file names more than 100000 nodes"),
    (["SwitchName=leaf Nodes=n1"] + [f"SwitchName=t{k} Switches=x[0-99999]" for k in range(50)],
     "3: the file names more than 200000 switches and nodes in all"),
    ([f"SwitchName=s{k} Nodes=n{k}[1-25000]" for k in range(4)] + ["SwitchName=s9 Nodes=m1"],
     "5: the file names more than 100000 nodes"),
], ids=["200-lines-of-nodes", "50-lines-of-switches", "one-node-too-many"])
def test_topology_conf_is_counted_whole_before_anything_is_expanded(tmp_path, monkeypatch, lines, says):
    from gpcnet.study import topology
    path = tmp_path / "topology.conf"
    path.write_text("\n".join(lines) + "\n")
    made = _expansions(monkeypatch)
    with pytest.raises(GpcnetError) as e:
        topology.read(str(path))
    assert f"topology.conf:{says}" in str(e.value) and "\n" not in str(e.value)
    assert made == []


def test_topology_conf_of_100000_nodes_is_read(tmp_path, monkeypatch):
    from gpcnet.study import topology
    path = tmp_path / "topology.conf"
    path.write_text("".join(f"SwitchName=s{k} Nodes=n{k}-[1-25000]\n" for k in range(4))
                    + "SwitchName=top Switches=s[0-3]\n")
    made = _expansions(monkeypatch)
    tree = topology.read(str(path))
    assert len(tree.nodes) == 100_000 and tree.pod_of()["s0"] == "top"
    assert sum(made) == 100_004


def test_one_bracket_of_millions_is_counted_item_by_item(tmp_path, monkeypatch):
    """Issue 55: one line of topology.conf, `Nodes=n[1,1,...,1]` of 15.8 MB
    (7.9 million items), was split into its items whole before they were
    counted: 747 MB of memory. Now the items are counted as they are read,
    and the bracket is refused at item 100,001, before any name is made."""
    from gpcnet.study import topology
    items = 7_900_000
    value = "n[" + "1," * items + "1]"
    path = tmp_path / "topology.conf"
    path.write_text(f"SwitchName=s0 Nodes={value}\n")
    assert path.stat().st_size < topology.MAX_FILE_BYTES        # read whole: the file limit lets it in
    made = _expansions(monkeypatch)
    read_items = []

    class Counting:     # each bracket item is matched once, as it is read
        def fullmatch(self, text, real=topology._RANGE):
            read_items.append(1)
            return real.fullmatch(text)
    monkeypatch.setattr(topology, "_RANGE", Counting())
    tracemalloc.start()
    try:
        with pytest.raises(GpcnetError) as e:
            topology.read(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(e.value).startswith(f"{path}:1: 'n[1,1,1,") and "names more than 100000 nodes" in str(e.value)
    assert "\n" not in str(e.value) and made == []
    assert len(read_items) == topology.MAX_NODES + 1                 # of 7,900,001
    # The file's text and a few copies of the line, no more (split whole:
    # 89 MB for a line of 2 MB, 747 MB for this one).
    assert peak < 5 * len(value), (peak, len(value))


def test_gpcnet_nodes_cuts_a_long_node_name(cli, tmp_path):
    """The table pads every name to the longest: one name of 10,000
    characters made every line that long."""
    doc = _probe(4, 2)
    doc["node_probe"]["nodes"] = [dict(doc["node_probe"]["nodes"][0], node=i, name=f"n{i}") for i in range(4)]
    doc["node_probe"]["nodes"][1]["name"] = "x" * 10_000
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(doc))
    code, out, err = cli("nodes", path)
    assert code == 0, err
    assert max(map(len, out.splitlines())) < 400


def test_an_integer_longer_than_a_double_is_refused_when_read(tmp_path):
    """Integers of thousands of digits reached every reader (an internal
    error in several): refused where the file is parsed, like 1e400. The
    longest a double holds (308 digits) is still read."""
    from gpcnet.infra.reading import MAX_INT_DIGITS, read_json
    ok = tmp_path / "ok.json"
    ok.write_text('{"a": -' + "9" * MAX_INT_DIGITS + "}")
    assert read_json(ok, "test")["a"] == -int("9" * MAX_INT_DIGITS)
    for digits in (MAX_INT_DIGITS + 1, 4000, 5000):
        bad = tmp_path / f"bad{digits}.json"
        bad.write_text('{"schema": "gpcnet-results", "x": [1, ' + "7" * digits + "]}")
        with pytest.raises(GpcnetError, match=f"an integer of {digits} digits is out of range"):
            read_json(bad, "test")


def test_a_study_json_over_its_value_budget_is_refused_before_the_schema(tmp_path, monkeypatch):
    """The study schema costs about 10 us a value: the values are counted
    first, and the schema never sees a document over the budget."""
    import json

    from gpcnet.study import document
    monkeypatch.setattr(document, "MAX_STUDY_VALUES", 1000)
    seen = []
    monkeypatch.setattr(document, "validate", lambda doc, where: seen.append(where))
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"kind": "gpcnet_study", "runs": [{"t": [0.5] * 10}] * 100}))
    with pytest.raises(GpcnetError, match="more than 1000 values, more than any study holds"):
        document.load(big)
    assert seen == []
    small = tmp_path / "small.json"
    small.write_text(json.dumps({"kind": "gpcnet_study", "runs": [{"t": [0.5] * 10}] * 10}))
    document.load(small)
    assert seen == [str(small)]
