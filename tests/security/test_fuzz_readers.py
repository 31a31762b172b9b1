"""Property-based fuzzing of the Python readers (Hypothesis, derandomized,
a fixed number of examples so the time is bounded): whatever the input,
a reader returns or raises GpcnetError with one line; never another
exception, never a traceback."""

from __future__ import annotations

import json

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import fixture_doc  # noqa: E402
from gpcnet import load  # noqa: E402
from gpcnet.errors import GpcnetError  # noqa: E402
from gpcnet.study import document, topology  # noqa: E402
from gpcnet.testbed import topology as tb_topology  # noqa: E402

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def plain_error(e: GpcnetError) -> None:
    text = str(e)
    assert "\n" not in text and len(text) < 2000, text


def read_bytes_with(reader, path, raw: bytes):
    """reader(path) on a file holding raw: its result, or None after a plain GpcnetError."""
    path.write_bytes(raw)
    try:
        return reader(path)
    except GpcnetError as e:
        plain_error(e)
        return None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:3]):
            yield from _paths(v, prefix + (i,))


def _mutated(doc, path, value):
    doc = json.loads(json.dumps(doc))
    if not path:
        return value
    target = doc
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    return doc


RESULTS = fixture_doc("load_run.json")
RESULT_PATHS = list(_paths(RESULTS))


@FUZZ
@given(raw=st.binary(max_size=400))
def test_results_reader_any_bytes(tmp_path, raw):
    read_bytes_with(load.load, tmp_path / "r.json", raw)


@FUZZ
@given(i=st.integers(0, len(RESULT_PATHS) - 1), value=json_values)
def test_results_reader_mutated_document(tmp_path, i, value):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_mutated(RESULTS, RESULT_PATHS[i], value)))
    try:
        doc = load.load(p)
    except GpcnetError as e:
        plain_error(e)
        return
    from gpcnet.compare import compare
    try:  # a document that loads can be compared against itself and the original
        compare([("a", doc), ("b", RESULTS)], 5.0)
    except GpcnetError as e:
        plain_error(e)


def _study():
    return {"kind": "gpcnet_study", "schema_version": 1,
            "config": {"study": "corun", "app_command": ["app"], "n": 1, "ppn": 1, "rotations": 1,
                       "launcher": "local", "settings": ["I", "III"], "timeout": 0},
            "nodes": ["n1", "n2", "n3"],
            "runs": [{"id": "I-r0", "setting": "I", "rotation": 0, "status": "ok", "wall_s": 1.5},
                     {"id": "III-r0", "setting": "III", "rotation": 0, "status": "ok", "wall_s": 2.0,
                      "counters": {"nodes": {"n1": {"stall_ratio": 0.5}}}}]}


STUDY_PATHS = list(_paths(_study()))


@FUZZ
@given(i=st.integers(0, len(STUDY_PATHS) - 1), value=json_values)
def test_study_reader_mutated_document(tmp_path, i, value):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(_mutated(_study(), STUDY_PATHS[i], value)))
    try:
        doc = document.load(p)
    except GpcnetError as e:
        plain_error(e)
        return
    from gpcnet.study.report import summarise
    summarise(doc)  # what passes the schema can be summarised


host_alphabet = st.sampled_from(list("n0123456789[],-ab.#< \t\n"))


@FUZZ
@given(text=st.text(alphabet=host_alphabet, max_size=60))
def test_hostlist_any_text(text):
    try:
        names = topology.expand_hostlist(text)
    except ValueError as e:
        assert "\n" not in str(e) and len(str(e)) < 300
        return
    assert 0 < len(names) <= topology.MAX_NODES
    assert all(topology.check_name(n) for n in names)


conf_alphabet = st.sampled_from(["SwitchName=", "Nodes=", "Switches=", "LinkSpeed=", "s0", "s1", "n[1-4]",
                                 "n5", "\\\n", "\n", " ", "#", "=", "x", "9", "<b>", "\0"])


@FUZZ
@given(parts=st.lists(conf_alphabet, max_size=30))
def test_topology_conf_any_text(tmp_path, parts):
    p = tmp_path / "topology.conf"
    p.write_text("".join(parts))
    try:
        tree = topology.read(str(p))
    except GpcnetError as e:
        plain_error(e)
        return
    assert tree.nodes and len(set(tree.nodes)) == len(tree.nodes)


@FUZZ
@given(text=st.text(max_size=30))
def test_testbed_rates_and_delays_any_text(text):
    for parse, top in ((tb_topology.parse_rate, tb_topology.MAX_RATE),
                       (tb_topology.parse_delay, tb_topology.MAX_DELAY_US)):
        try:
            value = parse(text)
        except GpcnetError as e:
            plain_error(e)
            continue
        assert 0 <= value <= top


@FUZZ
@given(raw=st.binary(max_size=300))
def test_hostfile_any_bytes(tmp_path, raw):
    from gpcnet.study.launch import read_nodes
    names = read_bytes_with(lambda p: read_nodes(str(p), None, False, False), tmp_path / "hosts", raw)
    assert all(topology.check_name(n) for n in names or [])


@FUZZ
@given(text=st.text(max_size=400))
def test_text_parser_any_text(text):
    from gpcnet.parse_text import parse_text
    try:
        parse_text(text, "out.txt")
    except GpcnetError as e:
        plain_error(e)
