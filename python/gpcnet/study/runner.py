"""Running a study: every run's application beside its congestor, one JSON
with every run, kept after each run so that a failed or interrupted study
keeps what it finished and resumes from it.

One run: sample counters; start the congestor (with --stop-file) and wait
until it is up; start the application and time it (wall clock, and the
figure of merit when a regex is given); create the stop file; wait for the
congestor to stop (SIGTERM, then SIGKILL, if it does not); sample counters.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from gpcnet import safe_write
from gpcnet.errors import GpcnetError
from gpcnet.signals import die_with_parent, exit_code, ignoring_termination
from gpcnet.study import counters as ctr

SCHEMA = 1
KIND = "gpcnet_study"


def find_congestor(path: str | None) -> str:
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise GpcnetError(f"--congestor-bin {path}: not an executable file")
        return os.path.abspath(path)
    found = shutil.which("network_congestor")
    repo_build = Path(__file__).resolve().parents[3] / "build" / "network_congestor"
    if found:
        return found
    if repo_build.is_file():
        return str(repo_build)
    raise GpcnetError("network_congestor not found: build it (scripts/build.sh) or give --congestor-bin")


def _tail(path: Path, n: int = 300) -> str:
    """What a job said: its first and last words (the program's own message
    usually comes first, mpirun's summary last) and where the rest is."""
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    if len(text) > 2 * n:
        text = text[:n] + " [...] " + text[-n:]
    return " ".join(text.split()) + f" (full output: {path.name})"


_LIVE: set = set()  # jobs started and not yet stopped: ended on an interrupt whatever it cut short


def _stop(proc: subprocess.Popen, grace: float) -> None:
    """End a job and everything it started (its own process group)."""
    _LIVE.discard(proc)
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _spawn(cmd: list, env: dict, out: Path, err: Path) -> subprocess.Popen:
    # The job files are the study's own (FILE.d/): replaced, never through a link.
    with safe_write.open_new(out, "wb", force=True) as o, safe_write.open_new(err, "wb", force=True) as e:
        proc = subprocess.Popen(cmd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=die_with_parent)
    _LIVE.add(proc)
    return proc


def _signal_stop(stop: Path) -> None:
    """Create the congestor's stop file; if that fails it is stopped by signal."""
    try:
        with safe_write.open_new(stop, force=True):
            pass
    except GpcnetError:
        pass


def congestor_bound(cfg: dict) -> list:
    """--duration for the congestor unless the user gave one: it stops by
    itself even if the study, the stop file and its parent are all gone."""
    if any(a == "--duration" or a.startswith("--duration=") for a in cfg["congestor_args"]):
        return []
    app = cfg["timeout"] or cfg.get("max_run_s", 86400.0)
    return ["--duration", f"{cfg.get('congestor_start_timeout', 120) + cfg['congestor_warmup'] + app + 60:g}"]


def _counters(launcher, nodes: list, enabled: bool) -> dict | None:
    if not enabled:
        return None
    return {"nodes": launcher.sample_counters(nodes), "switches": launcher.switch_counters()}


def _counter_deltas(before, after, threshold: float) -> dict | None:
    if not before or not after:
        return None
    out = {"stall_threshold": threshold, "nodes": {}, "switches": None, "switch_stall": None}
    for node, b in (before.get("nodes") or {}).items():
        a = (after.get("nodes") or {}).get(node)
        if not a or "error" in b or "error" in a:
            out["nodes"][node] = {"absent": (b.get("error") or (a or {}).get("error") or "no sample")}
            continue
        d = ctr.delta(b, a)
        d.update(ctr.node_stall(d, threshold))
        out["nodes"][node] = d
    if before.get("switches") and after.get("switches"):
        from gpcnet.testbed import counters as tbc
        sd = tbc.delta(before["switches"], after["switches"])
        out["switches"] = sd
        out["switch_stall"] = ctr.switch_stall(sd["ports"], threshold=100)
    return out


def run_one(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    cfg = study["config"]
    rid = spec["id"]
    rec = dict(spec, status="running", started=time.time())
    names = launcher.program_names(spec["congestor_nodes"])
    nodes = spec["app_nodes"] + spec["congestor_nodes"]
    before = _counters(launcher, nodes, cfg["counters"])
    cong = None
    stop = workdir / f"stop-{rid}"
    cjson = workdir / f"congestor-{rid}.json"
    for p in (stop, cjson):
        p.unlink(missing_ok=True)
    try:
        if spec["congestor_nodes"]:
            extra = []
            if spec.get("flows"):
                from gpcnet.study.bullies import flows_text
                fpath = workdir / f"flows-{rid}.txt"
                safe_write.write_text(fpath, flows_text(spec["flows"], names, f"{spec['pattern']} flows of run {rid}"),
                                      force=True)
                extra = ["--flows", str(fpath)]
            ccmd = launcher.job(spec["congestor_nodes"],
                                [cfg["congestor_bin"], *cfg["congestor_args"], *extra,
                                 *launcher.congestor_args(), *congestor_bound(cfg), "--stop-file", str(stop),
                                 "--json", str(cjson)], f"congestor-{rid}")
            rec["congestor_command"] = ccmd
            cong = _spawn(ccmd, launcher.env, workdir / f"congestor-{rid}.out", workdir / f"congestor-{rid}.err")
            # Ready when its JSON appears (written once its setup is done,
            # just before it congests); then the warm-up.
            t_start = time.monotonic()
            while not cjson.exists() and cong.poll() is None:
                if time.monotonic() - t_start > cfg.get("congestor_start_timeout", 120):
                    raise RunFailed(f"congestor not ready after {cfg.get('congestor_start_timeout', 120):g} s "
                                    "(no JSON from it): " + _tail(workdir / f"congestor-{rid}.err"))
                time.sleep(0.05)
            rec["congestor_ready_s"] = time.monotonic() - t_start
            t_end = time.monotonic() + cfg["congestor_warmup"]
            while time.monotonic() < t_end and cong.poll() is None:
                time.sleep(0.1)
            if cong.poll() is not None:
                raise RunFailed(f"congestor died before the application started (exit {cong.returncode}): "
                                + _tail(workdir / f"congestor-{rid}.err"))
        acmd = launcher.job(spec["app_nodes"], cfg["app_command"], f"app-{rid}")
        rec["app_command"] = acmd
        aout, aerr = workdir / f"app-{rid}.out", workdir / f"app-{rid}.err"
        t0 = time.monotonic()
        try:
            app = _spawn(acmd, launcher.env, aout, aerr)
        except OSError as e:
            raise RunFailed(f"application did not start: {e.strerror}: {acmd[0]}") from None
        congestor_died = None
        try:
            while True:
                try:
                    app.wait(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if cfg["timeout"] and time.monotonic() - t0 > cfg["timeout"]:
                    _stop(app, 5)
                    raise RunFailed(f"application still running after --timeout {cfg['timeout']:g} s; stopped")
                if cong is not None and congestor_died is None and cong.poll() is not None:
                    congestor_died = time.monotonic() - t0
        finally:
            _stop(app, 5)
        rec["wall_s"] = time.monotonic() - t0
        rec["app_exit"] = app.returncode
        if app.returncode != 0:
            what = "did not start" if app.returncode in (126, 127) else f"exited with {app.returncode}"
            raise RunFailed(f"application {what}: " + (_tail(aerr) or _tail(aout)))
        if congestor_died is not None:
            raise RunFailed(f"congestor died {congestor_died:.1f} s into the application "
                            f"(exit {cong.returncode}): " + _tail(workdir / f"congestor-{rid}.err"))
        if cfg.get("fom_regex"):
            m = re.search(cfg["fom_regex"], aout.read_text(errors="replace"), re.MULTILINE)
            rec["fom"] = _fom(m.group(1) if m.groups() else m.group(0)) if m else None
            if rec["fom"] is None:
                rec["fom_missing"] = (f"no match of {cfg['fom_regex']!r} in the application's output" if m is None
                                      else f"{cfg['fom_regex']!r} matched {str(m.group(0))[:40]!r}, not a finite number")
        rec["status"] = "ok"
    except RunFailed as e:
        rec["status"] = "failed"
        rec["error"] = str(e)
    finally:
        if cong is not None:
            _signal_stop(stop)
            try:
                cong.wait(timeout=cfg["congestor_stop_timeout"])
            except subprocess.TimeoutExpired:
                rec["congestor_forced_stop"] = True
            _stop(cong, 5)
            rec["congestor_exit"] = cong.returncode
            rec["congestor"] = _congestor_summary(cjson, names, spec["congestor_nodes"])
            if rec["status"] == "ok" and rec["congestor"].get("error"):
                rec["status"], rec["error"] = "failed", "congestor: " + rec["congestor"]["error"]
    after = _counters(launcher, nodes, cfg["counters"])
    rec["counters"] = _counter_deltas(before, after, cfg["stall_threshold"])
    rec["finished"] = time.time()
    return rec


class RunFailed(Exception):
    pass


def _fom(text) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _congestor_summary(path: Path, names: dict, planned: list) -> dict:
    from gpcnet.load import read_json
    try:
        doc = read_json(path, "congestor JSON")
    except GpcnetError as e:
        return {"error": f"no congestor JSON ({e})"}
    if not isinstance(doc, dict):
        return {"error": "no congestor JSON (not an object)"}
    run = doc.get("congestor_run") or {}
    ran_on = (doc.get("placement") or {}).get("congestor_nodes") or []
    back = {v: k for k, v in names.items()}
    ran_study = [back.get(n, n) for n in ran_on]
    return {"stop_reason": run.get("stop_reason"), "congested_s": run.get("congested_s"),
            "kernels": [{k: kern.get(k) for k in ("kernel", "name", "nodes", "ranks", "bytes", "mib_s_total",
                                                    "slowest_rank")}
                        for kern in run.get("kernels", [])],
            "ran_on": ran_study, "ran_only_where_planned": sorted(ran_study) == sorted(planned)}


def save(study: dict, path: Path) -> None:
    safe_write.write_text(path, json.dumps(study, indent=1, allow_nan=False) + "\n", force=True)


def open_study(path: Path, config: dict, nodes: list, resume: bool, force: bool) -> dict:
    if path.is_symlink():
        raise GpcnetError(f"{path}: is a symbolic link; refusing to write through it (remove it first)")
    if path.exists() and not force:
        if not resume:
            raise GpcnetError(f"{path} exists: --resume to continue that study, --force to start over")
        from gpcnet.study import document
        old = document.load(path)
        for key in ("study", "app_command", "n", "settings", "rotations", "ppn", "patterns", "launcher"):
            if old["config"].get(key) != config.get(key):
                raise GpcnetError(f"{path}: --resume with a different {key} "
                                  f"({old['config'].get(key)!r} there, {config.get(key)!r} now)")
        if document.baseline(old["config"]) != config.get("baseline"):
            raise GpcnetError(f"{path}: --resume with a different baseline "
                              f"({document.baseline(old['config'])!r} there, {config.get('baseline')!r} now)")
        if old.get("nodes") != nodes:
            raise GpcnetError(f"{path}: --resume with a different node list")
        return old
    return {"kind": KIND, "schema_version": SCHEMA, "config": config, "nodes": nodes, "runs": []}


def run_study(study: dict, specs: list, launcher, path: Path, log=print) -> int:
    workdir = path.with_name(path.stem + ".d")
    if workdir.is_symlink() or (workdir.exists() and not workdir.is_dir()):
        raise GpcnetError(f"{workdir}: not a directory of ours (a link or a file); remove it first")
    workdir.mkdir(exist_ok=True)
    if workdir.stat().st_uid != os.geteuid():  # its owner could swap the job files under us
        raise GpcnetError(f"{workdir}: belongs to another user; remove it or choose another --output")
    launcher.workdir = workdir
    done = {r["id"] for r in study["runs"] if r.get("status") == "ok"}
    todo = [s for s in specs if s["id"] not in done]
    if done:
        log(f"resuming: {len(done)} runs done, {len(todo)} to go")
    for i, spec in enumerate(todo, 1):
        log(f"[{i}/{len(todo)}] {spec['id']}: app on {len(spec['app_nodes'])} nodes, "
            f"congestor on {len(spec['congestor_nodes'])}")
        try:
            if spec.get("instances"):  # the interleaved bully: several applications at once
                from gpcnet.study.interleave import run_interleaved
                rec = run_interleaved(spec, study, launcher, workdir)
            else:
                rec = run_one(spec, study, launcher, workdir)
        except KeyboardInterrupt as e:
            with ignoring_termination():
                for proc in list(_LIVE):
                    _stop(proc, 5)
                ok = sum(r.get("status") == "ok" for r in study["runs"])
                log(f"interrupted during {spec['id']}: {ok} finished runs kept in {path}; "
                    "continue with the same command and --resume")
            return exit_code(e)
        study["runs"] = [r for r in study["runs"] if r["id"] != spec["id"]] + [rec]
        save(study, path)
        if rec["status"] == "ok":
            log(f"    {rec['wall_s']:.3f} s" + (f", figure of merit {rec['fom']}" if rec.get("fom") is not None else ""))
        else:
            log(f"    FAILED: {rec['error']}")
    failed = [r for r in study["runs"] if r.get("status") != "ok"]
    log(f"wrote {path}: {len(study['runs']) - len(failed)} runs ok, {len(failed)} failed")
    return 1 if failed else 0
