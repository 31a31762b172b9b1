"""Bad input gets one plain line and exit 2, in bounded time and memory
(issue 31, rows 3, 6, 7, 8, 11): results JSON, study JSON, host lists,
topology.conf, hostfiles, testbed rates and the flows file of
network_congestor."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import FIXTURES, fixture_doc, mpi_harness, one_line_error

REAL = FIXTURES / "load_run.json"


def _report(cli, tmp_path, path):
    code, _, err = cli("report", path, "-o", tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
    return one_line_error(code, err)


@pytest.mark.parametrize("name, content, says", [
    ("latin1.json", b'{"schema": "gpcnet-results", "x": "\xe9"}', "not UTF-8 text (line 1)"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("overflow.json", REAL.read_bytes().replace(b'"samples":', b'"x": 1e400, "samples":', 1), "out of range"),
    ("nan.json", REAL.read_bytes().replace(b'"samples":', b'"x": NaN, "samples":', 1), "NaN"),
    ("nul.json", b'{"a": 1}\n\x00', "a NUL byte"),
    ("digits.json", b'{"a": ' + b"9" * 5000 + b"}", "malformed JSON"),
], ids=["non-utf8", "deep", "1e400", "nan", "nul", "huge-int"])
def test_results_json_bad_bytes(cli, tmp_path, name, content, says):
    p = tmp_path / name
    p.write_bytes(content)
    line = _report(cli, tmp_path, p)
    assert name in line and says in line


def test_dev_zero_is_refused_at_once(cli, tmp_path):
    # Only a regular file is read (issue 39): a device, before any byte.
    assert "/dev/zero: is a character device, not a regular file" in _report(cli, tmp_path, "/dev/zero")


def test_too_many_histogram_bins(cli, tmp_path):
    doc = fixture_doc("load_run.json")
    row = next(r for t in doc["tables"] for r in t["rows"] if r.get("histogram"))
    row["histogram"]["bins"] = [[i + 1.0, i + 2.0, 1] for i in range(100_001)]
    row["samples"] = 100_001
    p = tmp_path / "bins.json"
    p.write_text(json.dumps(doc))
    assert "100001 bins" in _report(cli, tmp_path, p)


@pytest.mark.parametrize("where, value", [
    (("tables", 0, "rows", 0, "avg"), -1.0),
    (("tables", 1, "rows", 0, "p99"), -0.001),
    (("impact", 0, "avg"), -2),
    (("tables", 0, "rows", 0, "wall_s"), -5),
])
def test_negative_times_and_ratios(cli, tmp_path, where, value):
    doc = fixture_doc("load_run.json")
    target = doc
    for k in where[:-1]:
        target = target[k]
    target[where[-1]] = value
    p = tmp_path / "neg.json"
    p.write_text(json.dumps(doc))
    assert "minimum" in _report(cli, tmp_path, p)


def _study(**config):
    doc = {"kind": "gpcnet_study", "schema_version": 1,
           "config": {"study": "corun", "app_command": ["app"], "n": 1, "ppn": 1, "rotations": 1,
                      "launcher": "local", "settings": ["I", "III"]},
           "nodes": ["n1", "n2", "n3"],
           "runs": [{"id": "I-r0", "setting": "I", "rotation": 0, "status": "ok", "wall_s": 1.0}]}
    doc["config"].update(config)
    return doc


@pytest.mark.parametrize("change, field", [
    (lambda d: d["config"].update(launcher="<script>alert(1)</script>"), "$.config.launcher"),
    (lambda d: d["config"].update(settings=["I", "<img src=x onerror=alert(1)>"]), "$.config.settings[1]"),
    (lambda d: d["runs"][0].update(setting="I<b>"), "$.runs[0].setting"),
    (lambda d: d["runs"][0].update(wall_s="<i>1</i>"), "$.runs[0].wall_s"),
    (lambda d: d["runs"][0].update(rotation="0</td>"), "$.runs[0].rotation"),
    (lambda d: d["runs"][0].update(id="x\"><svg onload=alert(1)>"), "$.runs[0].id"),
    (lambda d: d.update(nodes=["n1", "<b>n2</b>", "n3"]), "$.nodes[1]"),
    (lambda d: d["runs"][0].update(wall_s=-1), "$.runs[0].wall_s"),
    (lambda d: d["runs"][0].pop("wall_s"), "$.runs[0]"),
    (lambda d: d["config"].update(n=0), "$.config.n"),
    (lambda d: d.update(runs={"a": 1}), "$.runs"),
    (lambda d: d.update(config=[]), "$.config"),
], ids=["launcher", "setting-name", "run-setting", "wall-markup", "rotation-markup", "id",
        "node", "negative-wall", "no-wall", "n-zero", "runs-object", "config-list"])
def test_study_json_is_validated_before_use(cli, tmp_path, change, field):
    doc = _study()
    change(doc)
    p = tmp_path / "st.json"
    p.write_text(json.dumps(doc))
    line = _report(cli, tmp_path, p)
    assert "invalid study" in line and field in line


@pytest.mark.parametrize("text", ['"wall_s": NaN', '"wall_s": Infinity', '"wall_s": 1e999'])
def test_study_json_non_finite_numbers(cli, tmp_path, text):
    p = tmp_path / "st.json"
    p.write_text(json.dumps(_study()).replace('"wall_s": 1.0', text))
    assert "st.json" in _report(cli, tmp_path, p)


def test_study_resume_validates_the_old_json(cli, tmp_path, congestor_bin):
    p = tmp_path / "st.json"
    doc = _study()
    doc["runs"][0]["wall_s"] = "soon"
    p.write_text(json.dumps(doc))
    code, _, err = cli("study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1",
                       "--rotations", "1", "--congestor-bin", congestor_bin, "-o", p, "--resume", "--", "app")
    assert "$.runs[0].wall_s" in one_line_error(code, err)


def _study_error(cli, tmp_path, congestor_bin, kind, *args) -> str:
    """The one line `gpcnet study KIND ARGS -n 1 ... -- true` answers with."""
    code, _, err = cli("study", kind, "--launcher", "local", *args, "-n", "1",
                       "--congestor-bin", congestor_bin, "-o", tmp_path / "s.json", "--", "true")
    return one_line_error(code, err)


@pytest.mark.parametrize("nodes, says", [
    ("n[0-99999999]", "more than 100000 nodes"),
    ("n[0-199999],n0", "more than 100000 nodes"),
    ("n[0-60000],m[0-60000]", "more than 100000 nodes"),
    ("n[1-3]<script>", "node name"),
    ("n[1-" + "9" * 40 + "]", "bad range"),
    ("a" * 300, "node name"),
    ("n[[1-2]]", "nested"),
])
def test_host_lists(cli, tmp_path, congestor_bin, nodes, says):
    line = _study_error(cli, tmp_path, congestor_bin, "corun", "--nodes", nodes)
    assert says in line and len(line) < 300


def test_duplicate_nodes_found_in_linear_time(cli, tmp_path, congestor_bin):
    line = _study_error(cli, tmp_path, congestor_bin, "corun", "--nodes", "n[0-99998],n7")
    assert "names a node twice: n7" in line


@pytest.mark.parametrize("content, says", [
    (b"node1\nnode2\n\xff\xfe\n", "not UTF-8 text (line 3)"),
    (b"node1\x00\n", "a NUL byte"),
    (b"node1 slots=2\n<b>x</b>\n", "hosts:2: node name"),
])
def test_hostfiles(cli, tmp_path, congestor_bin, content, says):
    (tmp_path / "hosts").write_bytes(content)
    assert says in _study_error(cli, tmp_path, congestor_bin, "corun", "--hostfile", tmp_path / "hosts")


@pytest.mark.parametrize("content, says", [
    (b"SwitchName=s0 Nodes=n[1-4]\n\xff\n", "not UTF-8 text (line 2)"),
    (b"SwitchName=s0 Nodes=n[0-99999999]\n", "more than 100000 nodes"),
    (b"SwitchName=s0 Nodes=n[1-4] " + b" " * 200_000 + b"x\n", "expected KEY=VALUE, got 'x'"),
    (b"SwitchName=<s> Nodes=n1\n", "switch name"),
])
def test_topology_conf(cli, tmp_path, congestor_bin, content, says):
    (tmp_path / "topology.conf").write_bytes(content)
    assert says in _study_error(cli, tmp_path, congestor_bin, "bully", "--topology", tmp_path / "topology.conf")


def test_topology_conf_dev_zero(cli, tmp_path, congestor_bin):
    assert "is a character device" in _study_error(cli, tmp_path, congestor_bin, "bully", "--topology", "/dev/zero")


@pytest.mark.parametrize("args, says", [
    (["--host-rate", "99999999999999999999gbit"], "rate '9999"),
    (["--host-rate", "40gbit"], "above 32gbit"),
    (["--host-rate", "1" * 5000], "expected e.g. 100mbit"),
    (["--host-delay", "1e9s"], "expected e.g. 0, 50us"),
    (["--host-delay", "11s"], "above 10s"),
    (["--topology", "fat-tree", "--hosts-per-leaf", "5", "--taper", "inf"], "--taper inf"),
    (["--topology", "fat-tree", "--hosts-per-leaf", "5", "--taper", "nan"], "--taper nan"),
])
def test_testbed_numbers(cli, args, says):
    code, _, err = cli("testbed", "up", *args)
    line = one_line_error(code, err)
    assert says in line and len(line) < 300


FLOW_CASES = {
    "nul": (b"# flows\nn1\x00 n0\n", "line 2: a NUL byte"),
    "long-blank-line": (b" " * 2000 + b"\nx y\n", "line 2: unknown source node: x y"),
    "over-long-line": (b"n0 " + b"a" * 5000 + b"\n", "line 1: longer than 4096 bytes"),
    "binary": (b"\x01\x02\xfe\x1b[31m zz\n", "line 1: unknown source node: \\x01\\x02\\xfe\\x1b[31m zz"),
    "three-names": (b"a b c\n", "line 1: expected two node names"),
    "million-blank-lines": (b"\n" * 2_000_000, "no flow in it"),
}


@pytest.mark.parametrize("case", sorted(FLOW_CASES) + ["dev-zero"])
def test_flows_file(tmp_path, case):
    if case == "dev-zero":
        path, says = "/dev/zero", "--flows /dev/zero: is a character device, not a regular file"
    else:
        content, says = FLOW_CASES[case]
        path = tmp_path / "flows.txt"
        path.write_bytes(content)
    exe = mpi_harness.binary("network_congestor")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_mpi_yield_when_idle="1")
    p = subprocess.run(mpi_harness.launcher(2) + [str(exe), "--emulate-nodes", "1", "--flows", str(path),
                                                  "--duration", "0.3"],
                       env=env, capture_output=True, timeout=120)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.decode("ascii", "strict").splitlines() if ln.startswith("network_congestor:")]
    assert len(lines) == 1 and says in lines[0], p.stderr
