"""The congestor job of a run, of one of two kinds (--congestor-kind):

- congestor (default): network_congestor on the congestor nodes, started
  first, ready when its JSON appears, stopped by its stop file once the
  application has finished.
- load-test: the published network_load_test itself on the congestor
  nodes, as the co-run paper ran GPCNeT beside its applications (its
  canaries on 20% of its nodes, congestors on the rest). It measures its
  canaries alone first, then under its congestors: the application starts
  once the first isolated phase is over (its JSON, rewritten after every
  phase, lists them all), so that it meets the loaded phase, and how much
  of the application's run overlapped the loaded phases is measured and
  recorded (loaded_overlap). It runs its own schedule to the end; its
  Congestion Impact is recorded beside the application's slowdown.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import MAX_RESULTS_BYTES, read_json

KINDS = {"congestor": "network_congestor", "load-test": "network_load_test"}


REPO_BUILD = Path(__file__).resolve().parents[3] / "build"   # a checkout's own build, after PATH


def find_program(path: str | None, kind: str = "congestor") -> str:
    name = KINDS[kind]
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise GpcnetError(f"--congestor-bin {path}: not an executable file")
        return os.path.abspath(path)
    found = shutil.which(name)
    if found:
        return found
    if (REPO_BUILD / name).is_file():
        return str(REPO_BUILD / name)
    raise GpcnetError(f"{name} not found: build it (scripts/build.sh) or give --congestor-bin")


def planned_program(path: str | None, kind: str = "congestor") -> str:
    """The program a --plan names: planning runs nothing, so it needs no
    build (a login node, a fresh checkout); the real study looks for it."""
    if path:
        return os.path.abspath(path)
    try:
        return find_program(None, kind)
    except GpcnetError:
        return KINDS[kind]


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
                "--quiet", "--force", "--output-dir", launcher.child_path(out), "--json", launcher.child_path(cjson)]
    return [cfg["congestor_bin"], *cfg["congestor_args"], *extra, *launcher.congestor_args(),
            *congestor_bound(cfg), "--stop-file", launcher.child_path(stop), "--json", launcher.child_path(cjson)]


def isolated_done(cjson: Path) -> bool:
    """Whether network_load_test's JSON lists every isolated phase of its
    first repetition (one per test of its config): its loaded phase is next."""
    try:
        doc = read_json(cjson, "load test JSON", MAX_RESULTS_BYTES)
        tests = doc["config"]["tests"]
        names = [p["name"] for p in doc.get("phases") or [] if p.get("repetition", 1) == 1]
    except (GpcnetError, KeyError, TypeError, AttributeError):
        return False      # not there yet, or caught mid-write: asked again
    return bool(tests) and sum(str(n).startswith("isolated:") for n in names) >= len(tests)


def wait_ready(cfg: dict, proc, cjson: Path, failed, tick=lambda: None) -> float:
    """Seconds until the job is ready: network_congestor writes its JSON once
    set up; network_load_test once its isolated phase is over (its loaded
    phase begins). Then the warm-up. `failed(message)` raises; `tick()` is
    called at every look (the job directory's check)."""
    t_start = time.monotonic()
    if cfg.get("congestor_kind", "congestor") == "congestor":
        while not cjson.exists() and proc.poll() is None:
            tick()
            if time.monotonic() - t_start > cfg.get("congestor_start_timeout", 120):
                failed(f"congestor not ready after {cfg.get('congestor_start_timeout', 120):g} s (no JSON from it)")
            time.sleep(0.05)
    else:   # bounded by the load test's own --deadline (bound_s): it ends, or says so
        while not isolated_done(cjson) and proc.poll() is None:
            tick()
            if time.monotonic() - t_start > bound_s(cfg):
                failed(f"network_load_test's isolated phase not over after {bound_s(cfg):g} s")
            time.sleep(0.05)
    ready = time.monotonic() - t_start
    t_end = time.monotonic() + cfg["congestor_warmup"]
    while time.monotonic() < t_end and proc.poll() is None:
        tick()
        time.sleep(0.1)
    if proc.poll() is not None:
        failed(f"congestor died before the application started (exit {proc.returncode})")
    return ready


def loaded_overlap(cfg: dict, cjson: Path, rec: dict) -> dict | None:
    """How much of the application's run met network_load_test's loaded
    phases. The clock starts when the isolated phases of the first
    repetition were over (the application started --congestor-warmup
    seconds later); each later phase of the load test's JSON follows the
    one before for its wall_s, loaded unless it is an isolated one (a later
    repetition's). None without the application's time or the JSON."""
    if not isinstance(rec.get("wall_s"), (int, float)) or rec["wall_s"] <= 0:
        return None
    try:
        phases = [p for p in read_json(cjson, "load test JSON", MAX_RESULTS_BYTES).get("phases") or []
                  if isinstance(p, dict)]
    except (GpcnetError, AttributeError):
        return None
    n_iso = 0
    while n_iso < len(phases) and str(phases[n_iso].get("name", "")).startswith("isolated:"):
        n_iso += 1
    start, end = float(cfg["congestor_warmup"]), float(cfg["congestor_warmup"]) + rec["wall_s"]
    t = overlap = loaded = 0.0
    for p in phases[n_iso:]:
        w = p.get("wall_s") if isinstance(p.get("wall_s"), (int, float)) and p["wall_s"] > 0 else 0.0
        if not str(p.get("name", "")).startswith("isolated:"):
            loaded += w
            overlap += max(0.0, min(end, t + w) - max(start, t))
        t += w
    return {"app_start_after_loaded_s": start, "loaded_s": round(loaded, 6), "overlap_s": round(overlap, 6),
            "fraction": round(overlap / rec["wall_s"], 6)}


def finish_wait_s(cfg: dict) -> float:
    """How long to wait, once the application is done, for the job to end:
    network_congestor is told to stop; network_load_test runs to its end."""
    if cfg.get("congestor_kind", "congestor") == "load-test":
        return bound_s(cfg)
    return cfg["congestor_stop_timeout"]


def summary(cfg: dict, path: Path, names: dict, planned: list) -> dict:
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
