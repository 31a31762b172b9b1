"""Running a study: every run's application beside its congestor, one JSON
with every run, kept after each run so that a failed or interrupted study
keeps what it finished and resumes from it.

One run: start the congestor job (gpcnet.study.congestor_job) and wait
until it is up; start the counter sampler (every --counter-interval s,
gpcnet.study.sampling) and the application, and time it (wall clock, and
the figure of merit when a regex is given); stop the sampler; stop the
congestor (its stop file, then SIGTERM, SIGKILL), or for the load test wait
for its end.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import deferring_termination, exit_code, ignoring_termination
from gpcnet.study import congestor_job as cj
from gpcnet.study import emulation, jobdir, procs, sampling
from gpcnet.study import timing
from gpcnet.study.bullies import flows_text
from gpcnet.study.interleave import run_interleaved
from gpcnet.study.sampling import basic_note
from gpcnet.text.text_safe import message

SCHEMA = 1
KIND = "gpcnet_study"


def _failed(message: str, err: Path):
    said = procs.tail(err)  # read the job's error file once
    raise procs.RunFailed(f"{message}: {said}" if said else message)


def _start_congestor(spec: dict, cfg: dict, launcher, workdir: Path, rec: dict, names: dict):
    rid = spec["id"]
    stop, cjson = workdir / f"stop-{rid}", workdir / f"congestor-{rid}.json"
    extra = []
    if spec.get("flows"):
        fpath = workdir / f"flows-{rid}.txt"
        safe_write.write_text(fpath, flows_text(spec["flows"], names, f"{spec['pattern']} flows of run {rid}"),
                              force=True)
        extra = ["--flows", launcher.child_path(fpath)]
    ccmd = launcher.job(spec["congestor_nodes"],
                        cj.command(cfg, launcher, rid, workdir, stop, cjson, extra), f"congestor-{rid}")
    rec["congestor_command"] = ccmd
    launcher.check(f"{rid}: the congestor's start")
    cong = procs.spawn(ccmd, launcher.env, workdir / f"congestor-{rid}.out", workdir / f"congestor-{rid}.err")
    err = workdir / f"congestor-{rid}.err"
    rec["congestor_ready_s"] = cj.wait_ready(cfg, cong, cjson, lambda m: _failed(m, err),
                                             lambda: launcher.check(f"{rid}: the congestor's wait"))
    launcher.check(f"{rid}: the congestor ready")
    return cong


def run_app(spec: dict, cfg: dict, launcher, workdir: Path, rec: dict, cong) -> None:
    """Start the application (and the counter sampler just before it), wait
    for it, record its times and the counters; procs.RunFailed if it failed."""
    rid = spec["id"]
    acmd = launcher.job(spec["app_nodes"], cfg["app_command"], f"app-{rid}")
    rec["app_command"] = acmd
    aout, aerr = workdir / f"app-{rid}.out", workdir / f"app-{rid}.err"
    sampler = None
    if cfg["counters"]:
        sampler = launcher.counter_sampler(spec["app_nodes"], cfg["counter_interval"], f"sampler-{rid}",
                                           cj.bound_s(cfg))
        launcher.check(f"{rid}: the sampler's start")
        sampler.start()
    launcher.check(f"{rid}: the application's start")
    # On the testbed, whether the host's CPUs rather than the emulated
    # fabric set the run's time.
    emulated = emulation.watch(launcher)
    t_wall, t0 = time.time(), time.monotonic()
    congestor_died = None
    try:
        try:
            app = procs.spawn(acmd, launcher.env, aout, aerr)
        except OSError as e:
            raise procs.RunFailed(f"application did not start: {e.strerror}: {acmd[0]}") from None
        try:
            while True:
                try:
                    app.wait(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if cfg["timeout"] and time.monotonic() - t0 > cfg["timeout"]:
                    procs.stop(app, 5)
                    raise procs.RunFailed(f"application still running after --timeout {cfg['timeout']:g} s; stopped")
                if cong is not None and congestor_died is None and cong.poll() is not None:
                    congestor_died = time.monotonic() - t0
                launcher.check(f"{rid}: the application's run")
        finally:
            procs.stop(app, 5)
        rec["wall_s"] = time.monotonic() - t0
    finally:
        emulated(rec)
        if sampler is not None:   # stopped whatever happened; what it read is kept only if no swap came
            counters = sampling.record(sampler, t_wall, cfg["counter_interval"], cfg["stall_threshold"])
            launcher.check(f"{rid}: the sampler's readings read")
            rec["counters"] = counters
    rec["app_exit"] = app.returncode
    if app.returncode != 0:
        what = "did not start" if app.returncode in (126, 127) else f"exited with {app.returncode}"
        raise procs.RunFailed(f"application {what}: " + (procs.tail(aerr) or procs.tail(aout)))
    if congestor_died is not None:
        if cfg.get("congestor_kind", "congestor") == "load-test" and cong.returncode == 0:
            rec["load_test_ended_before_app"] = True   # it ran its schedule to the end: not a failure
        else:
            raise procs.RunFailed(f"congestor died {congestor_died:.1f} s into the application "
                            f"(exit {cong.returncode}): " + procs.tail(workdir / f"congestor-{rid}.err"))
    if cfg.get("fom_regex"):
        text = aout.read_text(errors="replace")
        launcher.check(f"{rid}: the application's output read")
        m = re.search(cfg["fom_regex"], text, re.MULTILINE)
        rec["fom"] = procs.fom(m.group(1) if m.groups() else m.group(0)) if m else None
        if rec["fom"] is None:
            rec["fom_missing"] = (f"no match of {cfg['fom_regex']!r} in the application's output" if m is None
                                  else f"{cfg['fom_regex']!r} matched {str(m.group(0))[:40]!r}, not a finite number")


def run_one(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    cfg = study["config"]
    rid = spec["id"]
    rec = dict(spec, status="running", started=time.time())
    names = launcher.program_names(spec["congestor_nodes"])
    cong = None
    stop, cjson = workdir / f"stop-{rid}", workdir / f"congestor-{rid}.json"
    launcher.check(f"{rid}: the run's start")
    for p in (stop, cjson):
        p.unlink(missing_ok=True)
    try:
        if spec["congestor_nodes"]:
            cong = _start_congestor(spec, cfg, launcher, workdir, rec, names)
        run_app(spec, cfg, launcher, workdir, rec, cong)
        rec["status"] = "ok"
    except procs.RunFailed as e:
        rec["status"] = "failed"
        rec["error"] = str(e)
    finally:
        if cong is not None and launcher.swapped():
            procs.stop(cong, 5)   # nothing more is read from where it ran
        elif cong is not None:
            launcher.check(f"{rid}: the congestor's stop")
            if cfg.get("congestor_kind", "congestor") == "congestor" or rec["status"] != "ok":
                procs.signal_stop(stop)
            try:
                cong.wait(timeout=cj.finish_wait_s(cfg) if rec["status"] == "ok" else cfg["congestor_stop_timeout"])
            except subprocess.TimeoutExpired:
                rec["congestor_forced_stop"] = True
            procs.stop(cong, 5)
            rec["congestor_exit"] = cong.returncode
            rec["congestor"] = cj.summary(cfg, cjson, names, spec["congestor_nodes"])
            if "load_test" in rec["congestor"]:
                rec["congestor"]["load_test"]["ended_before_app"] = rec.pop("load_test_ended_before_app", False)
                rec["congestor"]["load_test"]["overlap"] = cj.loaded_overlap(cfg, cjson, rec)
            launcher.check(f"{rid}: the congestor's results read")
            if rec["status"] == "ok" and rec["congestor"].get("error"):
                rec["status"], rec["error"] = "failed", "congestor: " + rec["congestor"]["error"]
    launcher.check(f"{rid}: the run's end")
    rec["finished"] = time.time()
    return rec


def save(study: dict, path: Path) -> None:
    study["config"]["time_measure"] = timing.measure(study)
    safe_write.write_text(path, json.dumps(study, indent=1, allow_nan=False) + "\n", force=True)


def _record(study: dict, rec: dict, path: Path) -> None:
    """The run's record in place of any earlier one of its id, and saved.
    When the study JSON cannot be written (a pipe or a directory put at its
    name meanwhile, a full disk), what is finished goes to a fresh file
    beside it and the study stops, saying where: a finished run is never
    lost."""
    study["runs"] = [r for r in study["runs"] if r["id"] != rec["id"]] + [rec]
    try:
        save(study, path)
    except GpcnetError as e:
        rescue = path.with_name(f"{path.stem}.unsaved-{os.getpid()}{path.suffix or '.json'}")
        try:
            save(study, rescue)
        except GpcnetError:
            raise e from None
        ok = sum(r.get("status") == "ok" for r in study["runs"])
        raise GpcnetError(f"{e}; the study stopped and its {ok} finished runs are in {rescue} "
                          f"(move it to {path.name} and continue with --resume)") from None


def open_study(path: Path, config: dict, nodes: list, resume: bool, force: bool) -> dict:
    # Before any run: a link, a named pipe, a device or a directory at the
    # name is refused now, not after the first run, which could not be saved.
    safe_write.prepare(path, force=True)
    if path.exists() and not force:
        if not resume:
            raise GpcnetError(f"{path} exists: --resume to continue that study, --force to start over")
        # deferred: jsonschema loads only when a study resumes, not for --help
        from gpcnet.study import resume as resume_check
        return resume_check.resumed(path, config, nodes)  # runs with `config`, never the file's
    return {"kind": KIND, "schema_version": SCHEMA, "config": config, "nodes": nodes, "runs": []}


def _run_spec(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    if spec.get("instances"):  # the interleaved bully: several applications at once
        return run_interleaved(spec, study, launcher, workdir)
    return run_one(spec, study, launcher, workdir)


def _started(spec: dict) -> str:
    return f"app on {len(spec['app_nodes'])} nodes, congestor on {len(spec['congestor_nodes'])}"


def _finished(rec: dict) -> str:
    note = basic_note((rec.get("counters") or {}).get("counter_set"))
    host_bound = (rec.get("fidelity") or {}).get("verdict") == "host-bound"
    return (f"{rec['wall_s']:.3f} s" + (f", figure of merit {rec['fom']}" if rec.get("fom") is not None else "")
            + (f"; {message(note)}" if note else "")
            + ("; emulation host-bound: " + "; ".join(rec["fidelity"]["reasons"]) if host_bound else ""))


def run_study(study: dict, specs: list, launcher, path: Path, log=print, run=_run_spec,
              started=_started, finished=_finished, resumable: bool = True) -> int:
    """Every spec not yet done, one after another, the study saved after
    each. `run(spec, study, launcher, workdir)` makes a run's record;
    `started(spec)` and `finished(rec)` are its progress lines (a study
    kind such as `gpcnet study scale` gives its own)."""
    jd = jobdir.JobDir(path.with_name(path.stem + ".d"))
    try:
        launcher.jobdir, launcher.workdir = jd, jd.path
        return _run_all(study, specs, launcher, path, log, run, started, finished, resumable)
    except GpcnetError as e:   # a swapped job directory, a link at a job file: the jobs end first
        with ignoring_termination():
            for proc in list(procs.LIVE):
                procs.stop(proc, 5)
        ok = sum(r.get("status") == "ok" for r in study["runs"])
        kept = f"; {ok} finished runs kept in {path}" if isinstance(e, jobdir.JobDirChanged) else ""
        raise GpcnetError(jd.shown(str(e)) + kept) from None
    finally:
        jd.close()


def _run_all(study, specs, launcher, path, log, run, started, finished, resumable) -> int:
    workdir = launcher.workdir
    done = {r["id"] for r in study["runs"] if r.get("status") == "ok"}
    todo = [s for s in specs if s["id"] not in done]
    if done:
        log(f"resuming: {len(done)} runs done, {len(todo)} to go")
    for i, spec in enumerate(todo, 1):
        rec, saved = None, False
        try:
            log(f"[{i}/{len(todo)}] {spec['id']}: {started(spec)}")
            rec = launcher.recorded(run(spec, study, launcher, workdir))
            # A signal during the save (its fsync can take seconds on NFS or
            # Lustre) waits until the run is on disk, then interrupts below.
            with deferring_termination():
                _record(study, rec, path)
                saved = True
            log(f"    {finished(rec)}" if rec["status"] == "ok" else f"    FAILED: {rec['error']}")
        except KeyboardInterrupt as e:
            with ignoring_termination():
                for proc in list(procs.LIVE):
                    procs.stop(proc, 5)
                if rec is not None and not saved:  # it finished just before the signal
                    _record(study, rec, path)
                ok = sum(r.get("status") == "ok" for r in study["runs"])
                log(f"interrupted {'after' if rec is not None else 'during'} {spec['id']}: "
                    f"{ok} finished runs kept in {path}"
                    + ("; continue with the same command and --resume" if resumable else ""))
            return exit_code(e)
    failed = [r for r in study["runs"] if r.get("status") != "ok"]
    log(f"wrote {path}: {len(study['runs']) - len(failed)} runs ok, {len(failed)} failed")
    return 1 if failed else 0
