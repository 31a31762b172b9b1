"""`gpcnet study ... --resume` runs what the command line says, never what
the study JSON says (issue 39, finding 1; docs/security.md X16).

A real interrupted study (SIGTERM while its second run's application
waits on a file the test controls) is copied for each case, one field of
its stored config is edited, and the same command line resumes it: the
resume is refused naming `config.<field>`, and the planted program never
ran (it would create MARKER) nor was the planted file read. The stored
runs are records only: a planted record is replaced, not run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, one_line_error

TOPOLOGY = "SwitchName=l0 Nodes=a[1-8]\nSwitchName=l1 Nodes=b[1-8]\nSwitchName=top Switches=l[0-1]\n"
SECRET = "SECRET-LINE-0123456789"


def _gated_app(gate: Path) -> list:
    """Rank 0 counts the runs; the second one blocks until `release` exists."""
    return ["sh", "-c",
            f'[ "${{OMPI_COMM_WORLD_RANK:-0}}" = 0 ] || exit 0; c=$(cat {gate}/count 2>/dev/null || echo 0); '
            f'echo $((c + 1)) > {gate}/count; [ "$c" -eq 1 ] || exit 0; touch {gate}/blocked; '
            f'until [ -e {gate}/release ]; do sleep 0.05; done']


def _argv(kind: str, base: Path, out: Path, congestor_bin) -> list:
    """The study's command line (the same for the first run and the resume)."""
    if kind == "corun":
        head = ["corun", "--nodes", "n[1-6]", "-n", "2", "--settings", "I,III"]
    else:
        head = ["bully", "--topology", str(base / "topology.conf"), "--patterns", "pairs-light", "--taper", "8",
                "-n", "2"]
    return ["study", *head, "--rotations", "1", "--launcher", "local", "--congestor-warmup", "0.2",
            "--counters", "none", "--congestor-bin", str(congestor_bin), "-o", str(out),
            "--", *_gated_app(base)]


def _interrupted(base: Path, kind: str, congestor_bin) -> Path:
    """A study of `kind` interrupted by SIGTERM during its second run:
    its JSON holds the first run only."""
    base.mkdir()
    (base / "topology.conf").write_text(TOPOLOGY)
    out = base / "orig" / "st.json"
    out.parent.mkdir()
    p = subprocess.Popen([sys.executable, "-m", "gpcnet", *_argv(kind, base, out, congestor_bin)],
                         env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 300  # a hang guard only: the wait is for the file
        while not (base / "blocked").exists():
            assert p.poll() is None, p.communicate()[0]
            assert time.monotonic() < deadline, "the second run never started"
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        text, _ = p.communicate(timeout=120)
    finally:
        (base / "release").touch()
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 143, text
    assert len(json.loads(out.read_text())["runs"]) == 1, text
    return out


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory, congestor_bin):
    made = {}

    def get(kind):
        if kind not in made:
            made[kind] = _interrupted(tmp_path_factory.mktemp(kind) / "base", kind, congestor_bin)
        return made[kind]
    return get


@pytest.fixture
def case(tmp_path, interrupted, congestor_bin):
    """(the copied study JSON, the planted script, the secret file, the
    resume's argv) for a study kind."""
    plant = tmp_path / "plant.sh"
    plant.write_text(f"#!/bin/sh\ntouch {tmp_path}/MARKER\nexit 0\n")
    plant.chmod(0o755)
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    secret.chmod(0o600)

    def make(kind):
        orig = interrupted(kind)
        out = tmp_path / "o" / "st.json"
        shutil.copytree(orig.parent, out.parent)
        argv = _argv(kind, orig.parent.parent, out, congestor_bin)
        return out, plant, secret, argv[:2] + ["--resume"] + argv[2:]
    return make


def _nothing_planted_ran(tmp_path: Path, out: Path) -> None:
    assert not (tmp_path / "MARKER").exists(), "the planted program ran"
    for f in out.parent.rglob("*"):
        if f.is_file():
            assert SECRET not in f.read_text(errors="replace"), f"the planted file was read: {f.name}"


# field -> what is planted there (the script, the secret file, or a value)
CORUN_FIELDS = {
    "congestor_bin": lambda plant, secret: str(plant),
    "congestor_args": lambda plant, secret: ["--flows", str(secret)],
    "app_command": lambda plant, secret: [str(plant)],
    "launcher": lambda plant, secret: "mpirun",
    "congestor_kind": lambda plant, secret: "load-test",
    "env": lambda plant, secret: {"LD_PRELOAD": str(plant)},         # a field this gpcnet does not write
    "launcher_args": lambda plant, secret: ["--launch-agent", str(plant)],
    "flows": lambda plant, secret: str(secret),
    "timeout": lambda plant, secret: 1e6,                             # not executable: compared all the same
    "congestor_warmup": None,                                         # a field removed
}
BULLY_FIELDS = {
    "congestor_bin": lambda plant, secret: str(plant),
    "congestor_args": lambda plant, secret: ["--flows", str(secret)],
    "topology": lambda plant, secret: str(secret),
    "bully_plan": lambda plant, secret: {"pairs-light": {"flows": [["a1", "b1"]]}},
    "mix": lambda plant, secret: [[str(plant)]],                       # the interleaved pattern's other applications
}


@pytest.mark.parametrize("kind,field", [("corun", f) for f in CORUN_FIELDS] + [("bully", f) for f in BULLY_FIELDS])
def test_an_edited_config_field_is_refused_and_nothing_planted_runs(cli, tmp_path, case, kind, field):
    out, plant, secret, argv = case(kind)
    doc = json.loads(out.read_text())
    plants = CORUN_FIELDS if kind == "corun" else BULLY_FIELDS
    if plants[field] is None:
        del doc["config"][field]
    else:
        doc["config"][field] = plants[field](plant, secret)
    out.write_text(json.dumps(doc))
    before = out.read_text()
    code, _, err = cli(*argv)
    _nothing_planted_ran(tmp_path, out)
    line = one_line_error(code, err)
    assert f"config.{field}: --resume with a different {field}" in line, line
    assert SECRET not in line
    assert out.read_text() == before  # refused before anything ran or was written


def test_another_congestor_bin_on_the_command_line_is_refused(cli, tmp_path, case, congestor_bin):
    """The stored program is not run in place of the command line's, nor the
    other way round: the two must be the same program."""
    out, plant, _, argv = case("corun")
    i = argv.index("--congestor-bin")
    code, _, err = cli(*argv[:i + 1], plant, *argv[i + 2:])
    assert "config.congestor_bin" in one_line_error(code, err)
    _nothing_planted_ran(tmp_path, out)


def test_another_node_list_is_refused(cli, tmp_path, case):
    out, _, _, argv = case("corun")
    doc = json.loads(out.read_text())
    doc["nodes"] = ["n1", "n2", "n3", "n4", "n5", "n9"]
    out.write_text(json.dumps(doc))
    code, _, err = cli(*argv)
    assert "nodes: --resume with a different node list" in one_line_error(code, err)


@pytest.mark.parametrize("kind", ["corun", "bully"])
def test_unmodified_resume_completes_with_the_command_line_s_programs(cli, tmp_path, case, congestor_bin, kind):
    """The stored runs are records: a planted record of the run still to do
    (its commands, its flows) is replaced by the command line's run."""
    out, plant, secret, argv = case(kind)
    doc = json.loads(out.read_text())
    todo = "III-r0" if kind == "corun" else "pairs-light-r0"
    first = doc["runs"][0]
    doc["runs"].append(dict(first, id=todo, setting=todo.rsplit("-", 1)[0], status="failed", error="planted",
                            app_command=[str(plant)], congestor_command=[str(plant), "--flows", str(secret)],
                            flows=[["a1", "b1"]]))
    out.write_text(json.dumps(doc))
    code, stdout, err = cli(*argv)
    assert code == 0, stdout + err
    assert "resuming: 1 runs done, 1 to go" in stdout
    runs = {r["id"]: r for r in json.loads(out.read_text())["runs"]}
    assert runs[first["id"]]["started"] == first["started"]  # the finished run kept as it was
    rec = runs[todo]
    assert rec["status"] == "ok" and "error" not in rec
    app = argv[argv.index("--") + 1:]
    assert rec["app_command"][-len(app):] == app
    assert str(Path(congestor_bin).resolve()) in rec["congestor_command"]
    assert str(plant) not in json.dumps(rec)
    if kind == "bully":
        # the command line's plan: flows between the bully's own nodes, not the planted pair
        assert rec["flows"] and ["a1", "b1"] not in rec["flows"]
        assert {n for f in rec["flows"] for n in f} <= set(rec["congestor_nodes"])
    _nothing_planted_ran(tmp_path, out)
