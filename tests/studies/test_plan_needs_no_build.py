"""`gpcnet study ... --plan` runs nothing, so it needs no program: the
docs' plan command works on a login node or a fresh checkout (no
network_congestor on PATH, no build), while a real study still refuses
clearly, before anything is written, when its program is missing."""
import json

import pytest

from gpcnet.cli import main
from gpcnet.study import congestor_job
from test_bully_capacity import poster_conf


@pytest.fixture
def no_programs(tmp_path, monkeypatch):
    """No program on PATH and an empty build directory."""
    empty_bin, empty_build = tmp_path / "bin", tmp_path / "build"
    empty_bin.mkdir()
    empty_build.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    monkeypatch.setenv("GPCNET_BUILD_DIR", str(empty_build))
    monkeypatch.setattr(congestor_job, "REPO_BUILD", empty_build)
    for kind in congestor_job.KINDS:
        with pytest.raises(Exception):
            congestor_job.find_program(None, kind)


def test_the_docs_plan_command_needs_no_build(tmp_path, capsys, no_programs):
    conf = poster_conf(tmp_path / "topology.conf", 31)
    # docs/studies.md: gpcnet study bully --topology ... --uplinks-per-leaf 16 -n 224 --rotations 1 --plan -- lmp ...
    code = main(["study", "bully", "--topology", conf, "--uplinks-per-leaf", "16", "-n", "224",
                 "--rotations", "1", "--plan", "--", "lmp", "-in", "apps/lammps/in.lj"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["app_command"] == ["lmp", "-in", "apps/lammps/in.lj"] and len(plan["runs"]) == 6


@pytest.mark.parametrize("kind", ["congestor", "load-test"])
def test_a_corun_plan_needs_no_build(capsys, no_programs, kind):
    code = main(["study", "corun", "--nodes", "n[01-12]", "-n", "4", "--rotations", "1", "--plan",
                 "--congestor-kind", kind, "--", "app"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [r["id"] for r in json.loads(out)["runs"]] == ["I-r0", "II-r0", "III-r0", "IV-r0"]


@pytest.mark.parametrize("kind", ["congestor", "load-test"])
def test_a_real_study_still_refuses_a_missing_program(tmp_path, capsys, no_programs, kind):
    out_json = tmp_path / "s.json"
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[01-12]", "-n", "4", "--rotations", "1",
                 "--congestor-kind", kind, "-o", str(out_json), "--", "app"])
    out, err = capsys.readouterr()
    program = congestor_job.KINDS[kind]
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [f"gpcnet study: {program} not found: build it (scripts/build.sh) "
                                        "or give --congestor-bin"]
    assert not out_json.exists() and not (tmp_path / "s.d").exists()
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[01-12]", "-n", "4", "--rotations", "1",
                 "--congestor-bin", str(tmp_path / "nothing"), "-o", str(out_json), "--", "app"])
    assert code == 2 and "--congestor-bin" in capsys.readouterr().err
