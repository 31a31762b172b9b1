"""gpcnet study writes nothing through a planted link and replaces nothing
without --force (issue 31, row 2). Studies run with --launcher local."""

from __future__ import annotations

import json
import os

import pytest

from conftest import one_line_error


@pytest.fixture
def victim(tmp_path):
    v = tmp_path / "VICTIM"
    v.write_text("precious\n")
    return v


def study(cli, tmp_path, congestor_bin, *more, out="o/st.json", settings="I"):
    return cli("study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1", "--rotations", "1",
               "--settings", settings, "--congestor-warmup", "0.2", "--congestor-bin", congestor_bin,
               "--counters", "none", "-o", tmp_path / out, *more, "--", "true")


@pytest.mark.parametrize("name", ["st.d/app-I-r0.out", "st.d/app-I-r0.err", "st.d/hosts-app-I-r0",
                                  "st.d/stop-III-r0", "st.d/congestor-III-r0.out"])
def test_link_in_the_job_directory_is_not_followed(cli, tmp_path, congestor_bin, victim, name):
    link = tmp_path / "o" / name
    link.parent.mkdir(parents=True)
    link.symlink_to(victim)
    code, out, err = study(cli, tmp_path, congestor_bin, settings="I,III")
    assert victim.read_text() == "precious\n"
    # A link where a job file goes is refused (the study stops, the link
    # stays) or, for the files removed before each run, removed itself.
    if code == 2:
        assert "symbolic link" in one_line_error(code, err)


@pytest.mark.parametrize("force", [[], ["--force"], ["--resume"]])
def test_link_at_the_study_json_is_refused(cli, tmp_path, congestor_bin, victim, force):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "st.json").symlink_to(victim)
    code, _, err = study(cli, tmp_path, congestor_bin, *force)
    assert "symbolic link" in one_line_error(code, err)
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "o" / "st.d").exists()  # refused before any job


def test_job_directory_that_is_a_link_is_refused(cli, tmp_path, congestor_bin):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "st.d").symlink_to(elsewhere)
    code, _, err = study(cli, tmp_path, congestor_bin)
    assert "st.d" in one_line_error(code, err)
    assert list(elsewhere.iterdir()) == []


def test_study_json_written_fresh_and_kept_without_force(cli, tmp_path, congestor_bin):
    (tmp_path / "o").mkdir()
    code, out, err = study(cli, tmp_path, congestor_bin)
    assert code == 0, out + err
    path = tmp_path / "o" / "st.json"
    first = path.read_text()
    assert json.loads(first)["runs"][0]["status"] == "ok"
    assert sorted(p.name for p in path.parent.iterdir()) == ["st.d", "st.json"]  # no temporary left
    code, _, err = study(cli, tmp_path, congestor_bin)
    assert "--force" in one_line_error(code, err)
    assert path.read_text() == first
    code, out, err = study(cli, tmp_path, congestor_bin, "--force")
    assert code == 0, out + err


def test_bully_topology_file_is_not_replaced_without_force(cli, tmp_path):
    (tmp_path / "o").mkdir()
    conf = tmp_path / "o" / "st.topology.conf"
    conf.write_text("mine\n")
    from gpcnet.infra.safe_write import write_text
    from gpcnet.infra.errors import GpcnetError
    with pytest.raises(GpcnetError, match="already exists; use --force"):
        write_text(conf, "theirs\n")
    assert conf.read_text() == "mine\n"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
@pytest.mark.parametrize("mode", [[], ["--force"], ["--resume"]])
def test_output_that_is_not_a_file_is_refused_before_any_run(cli, tmp_path, congestor_bin, kind, mode):
    """`-o FIFO --force` ran the first run, then could not save it (issue 55)."""
    (tmp_path / "o").mkdir()
    out = tmp_path / "o" / "st.json"
    os.mkfifo(out) if kind == "fifo" else out.mkdir()
    code, _, err = study(cli, tmp_path, congestor_bin, *mode)
    line = one_line_error(code, err)
    assert ("is a named pipe" if kind == "fifo" else "is a directory") in line
    assert not (tmp_path / "o" / "st.d").exists()  # nothing ran


def test_a_run_that_cannot_be_saved_is_kept_beside_it(cli, tmp_path, congestor_bin, monkeypatch):
    """A named pipe put at the study JSON's name during the first run: the
    finished run goes to a fresh file beside it, named in the one line."""
    from gpcnet.study import runner
    (tmp_path / "o").mkdir()
    out = tmp_path / "o" / "st.json"
    real_run = runner.run_one

    def run_then_plant(spec, *args):
        rec = real_run(spec, *args)
        os.mkfifo(out)
        return rec

    monkeypatch.setattr(runner, "run_one", run_then_plant)
    code, _, err = cli("study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1",
                       "--rotations", "1", "--settings", "I,II", "--congestor-bin", congestor_bin,
                       "--counters", "none", "-o", out, "--", "true")
    line = one_line_error(code, err)
    assert "is a named pipe" in line and "1 finished runs are in" in line, line
    kept = [p for p in out.parent.iterdir() if p.name.startswith("st.unsaved-")]
    assert len(kept) == 1 and kept[0].name in line
    runs = json.loads(kept[0].read_text())["runs"]
    assert [(r["id"], r["status"]) for r in runs] == [("I-r0", "ok")]
