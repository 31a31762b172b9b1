"""The congestor job of a run, of one of two kinds (--congestor-kind):

- congestor (default): network_congestor on the congestor nodes, started
  first, ready when its JSON appears, stopped by its stop file once the
  application has finished.
- load-test: the published network_load_test itself on the congestor
  nodes, as the co-run paper ran GPCNeT beside its applications (its
  canaries on 20% of its nodes, congestors on the rest). It runs its own
  schedule to the end; its Congestion Impact is recorded beside the
  application's slowdown.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from gpcnet.errors import GpcnetError

KINDS = {"congestor": "network_congestor", "load-test": "network_load_test"}


def find_program(path: str | None, kind: str = "congestor") -> str:
    name = KINDS[kind]
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise GpcnetError(f"--congestor-bin {path}: not an executable file")
        return os.path.abspath(path)
    found = shutil.which(name)
    repo_build = Path(__file__).resolve().parents[3] / "build" / name
    if found:
        return found
    if repo_build.is_file():
        return str(repo_build)
    raise GpcnetError(f"{name} not found: build it (scripts/build.sh) or give --congestor-bin")


def bound_s(cfg: dict) -> float:
    """How long the congestor job may live at most: it stops by itself even
    if the study, the stop file and its parent are all gone."""
    app = cfg["timeout"] or cfg.get("max_run_s", 86400.0)
    return cfg.get("congestor_start_timeout", 120) + cfg["congestor_warmup"] + app + 60


def congestor_bound(cfg: dict) -> list:
    """--duration for network_congestor unless the user gave one."""
    if any(a == "--duration" or a.startswith("--duration=") for a in cfg["congestor_args"]):
        return []
    return ["--duration", f"{bound_s(cfg):g}"]


def command(cfg: dict, launcher, rid: str, workdir: Path, stop: Path, cjson: Path, extra: list) -> list:
    if cfg.get("congestor_kind", "congestor") == "load-test":
        out = workdir / f"load-test-{rid}"
        out.mkdir(exist_ok=True)
        deadline = [] if any(a == "--deadline" or a.startswith("--deadline=") for a in cfg["congestor_args"]) \
            else ["--deadline", f"{bound_s(cfg):g}"]
        return [cfg["congestor_bin"], *cfg["congestor_args"], *launcher.congestor_args(), *deadline,
                "--quiet", "--force", "--output-dir", str(out), "--json", str(cjson)]
    return [cfg["congestor_bin"], *cfg["congestor_args"], *extra, *launcher.congestor_args(),
            *congestor_bound(cfg), "--stop-file", str(stop), "--json", str(cjson)]


def wait_ready(cfg: dict, proc, cjson: Path, failed) -> float:
    """Seconds until the job is ready: network_congestor writes its JSON once
    set up; network_load_test writes it only at its end, so it is ready as
    soon as started. Then the warm-up. `failed(message)` raises."""
    t_start = time.monotonic()
    if cfg.get("congestor_kind", "congestor") == "congestor":
        while not cjson.exists() and proc.poll() is None:
            if time.monotonic() - t_start > cfg.get("congestor_start_timeout", 120):
                failed(f"congestor not ready after {cfg.get('congestor_start_timeout', 120):g} s (no JSON from it)")
            time.sleep(0.05)
    ready = time.monotonic() - t_start
    t_end = time.monotonic() + cfg["congestor_warmup"]
    while time.monotonic() < t_end and proc.poll() is None:
        time.sleep(0.1)
    if proc.poll() is not None:
        failed(f"congestor died before the application started (exit {proc.returncode})")
    return ready


def finish_wait_s(cfg: dict) -> float:
    """How long to wait, once the application is done, for the job to end:
    network_congestor is told to stop; network_load_test runs to its end."""
    if cfg.get("congestor_kind", "congestor") == "load-test":
        return bound_s(cfg)
    return cfg["congestor_stop_timeout"]


def summary(cfg: dict, path: Path, names: dict, planned: list) -> dict:
    from gpcnet.load import read_json
    try:
        doc = read_json(path, "congestor JSON")
    except GpcnetError as e:
        return {"error": f"no congestor JSON ({e})"}
    if not isinstance(doc, dict):
        return {"error": "no congestor JSON (not an object)"}
    placement = doc.get("placement") or {}
    back = {v: k for k, v in names.items()}
    if cfg.get("congestor_kind", "congestor") == "load-test":
        ran_study = [back.get(n, n) for n in placement.get("all_nodes") or []]
        impact = [{k: i.get(k) for k in ("test", "name", "avg", "p99")}
                  for i in doc.get("impact") or [] if isinstance(i, dict)]
        out = {"kind": "load-test", "status": doc.get("status"), "ran_on": ran_study,
               "ran_only_where_planned": sorted(ran_study) == sorted(planned),
               "load_test": {"impact": impact,
                             "canary_nodes": [back.get(n, n) for n in placement.get("canary_nodes") or []]}}
        if not impact:
            out["error"] = f"network_load_test reported no Congestion Impact (status {doc.get('status')!r})"
        return out
    run = doc.get("congestor_run") or {}
    ran_study = [back.get(n, n) for n in placement.get("congestor_nodes") or []]
    return {"stop_reason": run.get("stop_reason"), "congested_s": run.get("congested_s"),
            "kernels": [{k: kern.get(k) for k in ("kernel", "name", "nodes", "ranks", "bytes", "mib_s_total",
                                                  "slowest_rank")}
                        for kern in run.get("kernels", [])],
            "ran_on": ran_study, "ran_only_where_planned": sorted(ran_study) == sorted(planned)}
