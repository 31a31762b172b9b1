"""The poster's interleaved pattern: several applications at once, each on
its own random nodes (gpcnet.study.bullies plans them). The first instance
is the study's application, the one measured (the run's time and figure of
merit); the others run the study's application again or, with --mix FILE,
the applications listed there in turn (the poster interleaved its
different applications). Every instance's command, time and exit are kept
beside it. No congestor runs: the other instances are the traffic."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_text
from gpcnet.study import emulation, procs

MAX_MIX_BYTES = 2**20
MAX_MIX_COMMANDS = 1000


def read_mix(path: str) -> list:
    """--mix FILE: one application command per line (shell words; blank
    lines and `#` comments skipped); each error names the file and line."""
    out = []
    for no, line in enumerate(read_text(path, "--mix", MAX_MIX_BYTES).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise GpcnetError(f"{path}:{no}: {e}") from None
        if not words:
            continue
        out.append(words)
        if len(out) > MAX_MIX_COMMANDS:
            raise GpcnetError(f"{path}:{no}: more than {MAX_MIX_COMMANDS} commands")
    if not out:
        raise GpcnetError(f"{path}: no command (one application command per line)")
    return out


def instance_commands(app: list, mix: list, instances: int) -> list:
    """The command of each instance: the study's application first (it is
    measured), then the mix's commands in turn, or the application again
    without a mix."""
    return [list(app)] + [list(mix[(i - 1) % len(mix)]) if mix else list(app) for i in range(1, instances)]


def run_interleaved(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    cfg = study["config"]
    rid = spec["id"]
    rec = dict(spec, status="running", started=time.time())
    jobs = []
    try:
        t0 = time.monotonic()
        emulated = emulation.watch(launcher)
        commands = spec.get("instance_commands") or instance_commands(cfg["app_command"], [],
                                                                      len(spec["instances"]))
        for i, nodes in enumerate(spec["instances"]):
            cmd = launcher.job(nodes, commands[i], f"app-{rid}-i{i}")
            launcher.check(f"{rid}: instance {i}'s start")
            out, err = workdir / f"app-{rid}-i{i}.out", workdir / f"app-{rid}-i{i}.err"
            try:
                proc = procs.spawn(cmd, launcher.env, out, err)
            except OSError as e:
                raise procs.RunFailed(f"application instance {i} did not start: {e.strerror}: {cmd[0]}") from None
            jobs.append({"command": cmd, "out": out, "err": err, "proc": proc, "wall_s": None})
        while any(j["wall_s"] is None for j in jobs):
            for j in jobs:
                if j["wall_s"] is None and j["proc"].poll() is not None:
                    j["wall_s"] = time.monotonic() - t0
            if cfg["timeout"] and time.monotonic() - t0 > cfg["timeout"]:
                raise procs.RunFailed(f"an application instance still running after --timeout "
                                       f"{cfg['timeout']:g} s; stopped")
            launcher.check(f"{rid}: the instances' run")
            time.sleep(0.05)
        rec["app_command"] = jobs[0]["command"]
        rec["instance_results"] = [{"command": commands[i], "wall_s": j["wall_s"], "exit": j["proc"].returncode}
                                   for i, j in enumerate(jobs)]
        rec["wall_s"], rec["app_exit"] = jobs[0]["wall_s"], jobs[0]["proc"].returncode
        emulated(rec)   # over every instance, as they ran together
        bad = [(i, j) for i, j in enumerate(jobs) if j["proc"].returncode != 0]
        if bad:
            i, j = bad[0]
            raise procs.RunFailed(f"application instance {i} of {len(jobs)} exited with {j['proc'].returncode}: "
                                   + (procs.tail(j["err"]) or procs.tail(j["out"])))
        if cfg.get("fom_regex"):
            text = jobs[0]["out"].read_text(errors="replace")
            launcher.check(f"{rid}: the application's output read")
            m = re.search(cfg["fom_regex"], text, re.MULTILINE)
            rec["fom"] = procs.fom(m.group(1) if m.groups() else m.group(0)) if m else None
            if rec["fom"] is None:
                rec["fom_missing"] = f"no number from {cfg['fom_regex']!r} in instance 0's output"
        rec["status"] = "ok"
    except procs.RunFailed as e:
        rec["status"], rec["error"] = "failed", str(e)
    finally:
        for j in jobs:
            procs.stop(j["proc"], 5)
    rec["counters"] = None  # not sampled: the instances' nodes are the whole tree's
    rec["finished"] = time.time()
    return rec
