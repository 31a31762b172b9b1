"""The poster's interleaved pattern: several instances of the application at
once, each on its own random nodes (gpcnet.study.bullies plans them). The
first instance is the one measured (the run's time and figure of merit);
every instance's time and exit are kept beside it. No congestor runs: the
other instances are the traffic."""

from __future__ import annotations

import re
import time
from pathlib import Path

from gpcnet.study import procs


def run_interleaved(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    cfg = study["config"]
    rid = spec["id"]
    rec = dict(spec, status="running", started=time.time())
    jobs = []
    try:
        t0 = time.monotonic()
        for i, nodes in enumerate(spec["instances"]):
            cmd = launcher.job(nodes, cfg["app_command"], f"app-{rid}-i{i}")
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
            time.sleep(0.05)
        rec["app_command"] = jobs[0]["command"]
        rec["instance_results"] = [{"wall_s": j["wall_s"], "exit": j["proc"].returncode} for j in jobs]
        rec["wall_s"], rec["app_exit"] = jobs[0]["wall_s"], jobs[0]["proc"].returncode
        bad = [(i, j) for i, j in enumerate(jobs) if j["proc"].returncode != 0]
        if bad:
            i, j = bad[0]
            raise procs.RunFailed(f"application instance {i} of {len(jobs)} exited with {j['proc'].returncode}: "
                                   + (procs.tail(j["err"]) or procs.tail(j["out"])))
        if cfg.get("fom_regex"):
            m = re.search(cfg["fom_regex"], jobs[0]["out"].read_text(errors="replace"), re.MULTILINE)
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
