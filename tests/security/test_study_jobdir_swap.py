"""The study's job directory swapped while the study runs (issue 55).

Another user who can write the study's directory renames FILE.d during a
run and puts a link (to a directory only root can write) or a directory of
their own at its name. The study holds FILE.d open from its start and
reaches every job file through that descriptor; it checks the name at every
step of a run. At every step of a co-run with the local launcher (the
congestor, the counter sampler, the application, the figure of merit), the
swap is made just before the check: the study stops with one line, exit 2,
the finished run kept, nothing written into or read from what was put at
the name. With the check blinded, the run goes on and still writes and
reads only the directory it opened: the jobs are given its descriptor's
path, never the name."""

from __future__ import annotations

import json
import os

import pytest

from conftest import one_line_error
from gpcnet.study import jobdir

STEPS = ["the run's start", "the congestor's start", "the congestor's wait", "the congestor ready",
         "the sampler's start", "the application's start", "the application's run",
         "the sampler's readings read", "the application's output read", "the congestor's stop",
         "the congestor's results read", "the run's end"]
SWAPPED_RUN = "III-r0"
PLANTED = {"congestor-III-r0.json": '{"congestor_run": {"kernels": [{"name": "planted"}]}}\n',
           "app-III-r0.out": "fom 999\n", "hosts-app-III-r0": "victim slots=1\n",
           "sampler-III-r0.jsonl": '{"reading": {"host": "planted"}}\n'}


def corun(cli, out, congestor_bin):
    # The application runs long enough to be looked at while it runs, then
    # prints its figure of merit.
    return cli("study", "corun", "--launcher", "local", "--nodes", "n[1-6]", "-n", "2", "--rotations", "1",
               "--settings", "I,III", "--congestor-warmup", "0.2", "--congestor-bin", congestor_bin,
               "--counter-interval", "0.1", "--fom-regex", r"fom (\S+)", "-o", out, "--",
               "sh", "-c", "sleep 0.5; echo fom 1.5")


def planted_place(tmp_path, kind):
    """What the other user puts at FILE.d's name: a link to a directory only
    root can write, or a directory of their own holding job files."""
    place = tmp_path / "theirs"
    place.mkdir(mode=0o700)
    if kind == "their-directory":
        for name, text in PLANTED.items():
            (place / name).write_text(text)
        if os.geteuid() == 0:
            os.chown(place, 4242, 4242)
    return place


def swapper(tmp_path, kind, step):
    jd_name, moved = tmp_path / "o" / "st.d", tmp_path / "o" / "st.d.moved"
    place = planted_place(tmp_path, kind)
    done = []

    def hook(at):
        if not done and at == f"{SWAPPED_RUN}: {step}":
            done.append(at)
            jd_name.rename(moved)
            if kind == "link":
                jd_name.symlink_to(place)
            else:
                place.rename(jd_name)
    return hook, done, (place if kind == "link" else jd_name), moved


def untouched(place, kind):
    names = sorted(p.name for p in place.iterdir())
    if kind == "link":
        return names == []
    return names == sorted(PLANTED) and all((place / n).read_text() == t for n, t in PLANTED.items())


@pytest.mark.parametrize("kind", ["link", "their-directory"])
@pytest.mark.parametrize("step", STEPS)
def test_a_swap_at_any_step_stops_the_study_and_nothing_goes_through_it(cli, tmp_path, congestor_bin,
                                                                     monkeypatch, kind, step):
    (tmp_path / "o").mkdir()
    hook, done, place, moved = swapper(tmp_path, kind, step)
    monkeypatch.setattr(jobdir, "HOOK", hook)
    code, out, err = corun(cli, tmp_path / "o" / "st.json", congestor_bin)
    assert done, f"the step {step!r} was never reached: {out} {err}"
    line = one_line_error(code, err)
    assert "st.d: the job directory was replaced while the study ran" in line, line
    assert f"found at {SWAPPED_RUN}: {step}" in line and "1 finished runs kept" in line, line
    assert "/proc/" not in line
    assert untouched(place, kind), sorted(p.name for p in place.iterdir())
    study = json.loads((tmp_path / "o" / "st.json").read_text())
    assert [(r["id"], r["status"]) for r in study["runs"]] == [("I-r0", "ok")]  # the swapped run is not kept


@pytest.mark.parametrize("kind", ["link", "their-directory"])
@pytest.mark.parametrize("step", ["the run's start", "the congestor's start", "the application's start",
                                  "the congestor's stop"])
def test_with_the_check_blinded_every_job_still_uses_the_directory_opened(cli, tmp_path, congestor_bin,
                                                                        monkeypatch, kind, step):
    """Between two checks a swap changes nothing for the local launcher:
    the jobs (mpirun's hostfile, the congestor's JSON and stop file, the
    application's output) are reached through the study's descriptor."""
    (tmp_path / "o").mkdir()
    hook, done, place, moved = swapper(tmp_path, kind, step)
    monkeypatch.setattr(jobdir, "HOOK", hook)
    ident = {}
    real_init = jobdir.JobDir.__init__

    def blind_init(self, named):
        real_init(self, named)
        ident["was"] = self.ident

    def blind_check(self, at):
        jobdir.HOOK(at)   # the swap happens, and is not looked for

    monkeypatch.setattr(jobdir.JobDir, "__init__", blind_init)
    monkeypatch.setattr(jobdir.JobDir, "check", blind_check)
    code, out, err = corun(cli, tmp_path / "o" / "st.json", congestor_bin)
    assert done and code == 0, out + err
    assert untouched(place, kind), sorted(p.name for p in place.iterdir())
    st = os.stat(moved)
    assert (st.st_dev, st.st_ino) == ident["was"]
    assert {"app-III-r0.out", "congestor-III-r0.json", "sampler-III-r0.jsonl"} <= {p.name for p in moved.iterdir()}
    rec = {r["id"]: r for r in json.loads((tmp_path / "o" / "st.json").read_text())["runs"]}["III-r0"]
    assert rec["status"] == "ok" and rec["fom"] == 1.5
    assert rec["congestor"]["kernels"] and rec["congestor"]["kernels"][0]["name"] != "planted"
    assert "/proc/" not in json.dumps(rec)   # the study JSON names FILE.d/, not the descriptor


def test_jobs_elsewhere_are_given_the_name_and_local_jobs_the_descriptor(tmp_path):
    from gpcnet.study import launch
    jd = jobdir.JobDir(tmp_path / "st.d")
    try:
        remote, local = launch.SrunLauncher(1, tmp_path), launch.LocalLauncher(1, tmp_path)
        for launcher in (remote, local):
            launcher.jobdir, launcher.workdir = jd, jd.path
        assert remote.child_path(jd.path / "stop-x") == str(tmp_path / "st.d" / "stop-x")
        assert local.child_path(jd.path / "stop-x") == f"/proc/{os.getpid()}/fd/{jd.fd}/stop-x"
        (jd.path / "probe").write_text("through the descriptor\n")
        assert (tmp_path / "st.d" / "probe").read_text() == "through the descriptor\n"
    finally:
        jd.close()
