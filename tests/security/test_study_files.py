"""gpcnet study writes nothing through a planted link and replaces nothing
without --force (issue 31, row 2). Studies run with --launcher local."""

from __future__ import annotations

import json

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
    from gpcnet.safe_write import write_text
    from gpcnet.errors import GpcnetError
    with pytest.raises(GpcnetError, match="already exists; use --force"):
        write_text(conf, "theirs\n")
    assert conf.read_text() == "mine\n"
