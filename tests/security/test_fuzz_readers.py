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

from conftest import FIXTURES, fixture_doc  # noqa: E402
from gpcnet.infra.errors import GpcnetError  # noqa: E402
from gpcnet.results_json import load  # noqa: E402
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
    from gpcnet.analysis.compare import compare
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
    from gpcnet.study.summary import summarise
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


# -- issue 39: every command's file inputs, hostile values --------------------
# Values a file can hold but no measurement can, and strings no terminal or
# figure may see raw; a marker (Deep) is spliced into the JSON text as
# nesting 500 to 100,000 deep. Commands run in-process (cli fixture).

class Deep(int):
    """Nesting this deep, spliced into the JSON text in place of the value."""


huge_ints = st.integers(300, 4200).flatmap(lambda d: st.sampled_from([10**d, -(10**d), 10**d - 1]))
extreme_floats = st.sampled_from([1.7976931348623157e308, -1.7e308, 5e-324, -5e-324, 2.2250738585072014e-308,
                                  1e-100, 1e100, 0.0, -0.0, 2.0**64])
hostile_text = st.lists(st.sampled_from(["\ud800", "\udfff", "\x1b[2J", "\x9b", "\x7f", "\u202e", "\u2066",
                                         "$\\notacommand$", "\\", "<b>", "&amp;", "\x00", "\n", "é", "x" * 300]),
                        max_size=4).map("".join)
deep = st.integers(500, 100_000).map(Deep)
hostile_values = huge_ints | extreme_floats | hostile_text | deep | json_values

FUZZ_CLI = settings(FUZZ, max_examples=40)
FUZZ_DRAWN = settings(FUZZ, max_examples=8)  # each example draws figures: about a second


def _dumps(doc) -> str:
    """JSON text of doc with every Deep marker replaced by its nesting."""
    marks = {}

    def strip(x):
        if isinstance(x, Deep):
            marks[f"__deep_{len(marks)}__"] = int(x)
            return list(marks)[-1]
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items()}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    text = json.dumps(strip(doc))
    for mark, n in marks.items():
        text = text.replace(json.dumps(mark), "[" * n + "]" * n, 1)
    return text


_RAW = set("\x1b\x9b\x7f\u202e\u2066\ud800\udfff")


def answered_plainly(code: int, out: str, err: str) -> None:
    """Exit 0/1 (notes only on stderr) or 2 with one line; no internal
    error, traceback or warning; nothing raw for the terminal."""
    assert "internal error" not in err and "Traceback" not in err and "Warning" not in err, err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and len(err) < 2200, err
    else:
        assert code in (0, 1) and all(x.startswith("note:") for x in err.splitlines()), (code, err)
    assert not _RAW & set(out + err), (out + err)[:300]


@FUZZ_CLI
@given(i=st.integers(0, len(RESULT_PATHS) - 1), value=hostile_values,
       command=st.sampled_from([("compare", "BASE", "RUN", "--fail-if-worse", "5"), ("table", "RUN"),
                                ("table", "RUN", "--format", "latex"), ("compare", "RUN", "BASE")]))
def test_commands_on_a_hostile_results_document(cli, tmp_path, i, value, command):
    p = tmp_path / "run.json"
    p.write_text(_dumps(_mutated(RESULTS, RESULT_PATHS[i], value)))
    paths = {"RUN": p, "BASE": FIXTURES / "load_run.json"}
    answered_plainly(*cli(*[paths.get(a, a) for a in command]))


TIMELINE = json.loads((FIXTURES / "real" / "network_load_test_timeline.json").read_text())
TIMELINE_PATHS = [p for p in _paths(TIMELINE) if p[:1] in (("tables",), ("timeline",), ("impact",))]


@FUZZ_DRAWN
@given(i=st.integers(0, len(TIMELINE_PATHS) - 1), value=hostile_values,
       kind=st.sampled_from(["hist", "timeline", "recovery", "ci"]))
def test_plot_of_a_hostile_results_document(cli, tmp_path, i, value, kind):
    p = tmp_path / "run.json"
    p.write_text(_dumps(_mutated(TIMELINE, TIMELINE_PATHS[i], value)))
    answered_plainly(*cli("plot", p, "--kind", kind, "-o", tmp_path / "f.svg", "--force"))


import study_docs  # noqa: E402

STUDY_FIELDS = [(kind, path) for kind, make in sorted(study_docs.KINDS.items())
                for path in study_docs.numeric_fields(make()) + study_docs.string_fields(make())]


@FUZZ_DRAWN
@given(field=st.sampled_from(STUDY_FIELDS), value=hostile_values, every_run=st.booleans())
def test_report_of_a_hostile_study(cli, tmp_path, field, value, every_run):
    kind, path = field
    p = tmp_path / "study.json"
    p.write_text(_dumps(study_docs.put(study_docs.KINDS[kind](), path, value, every_run)))
    answered_plainly(*cli("report", p, "-o", tmp_path / "r.html", "--force"))


def _counters_doc():
    samples = [{"t": 0.1 * (k + 1), "dt": 0.1, "ports": {"leaf1/l1s0": {"bytes": 10**6, "packets": 7}}}
               for k in range(3)]
    return {"after": {"ports": {"leaf1/l1s0": {"tier": "uplink"}}},
            "series": {"interval_s": 0.1, "start_epoch_s": 1.8e9, "samples": samples}}


COUNTERS_PATHS = list(_paths(_counters_doc()))


@FUZZ
@given(i=st.integers(0, len(COUNTERS_PATHS) - 1), value=hostile_values)
def test_counters_reader_mutated_document(tmp_path, i, value):
    from gpcnet.report import counters_file, timeline
    p = tmp_path / "c.json"
    p.write_text(_dumps(_mutated(_counters_doc(), COUNTERS_PATHS[i], value)))
    try:
        doc = counters_file.read(p)
    except GpcnetError as e:
        plain_error(e)
        return
    try:  # what the reader accepts, the figure code can use
        timeline.check_ports(doc, [timeline.busiest_port(doc)], "c.json")
    except GpcnetError as e:
        plain_error(e)


@FUZZ_CLI
@given(raw=st.binary(max_size=300) | hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_parse_command_any_bytes(cli, tmp_path, raw):
    p = tmp_path / "out.txt"
    p.write_bytes(raw)
    code, out, err = cli("parse", p)
    answered_plainly(code, out, err)
