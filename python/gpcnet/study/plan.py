"""`gpcnet study corun | bully --plan`: the runs a study would make, as
JSON on standard output, after the same checks as a real study; nothing
runs and nothing is written.

`{"runs": [{"name", "id", "rotation", "setting" | "pattern", "app",
"congestor", "flows", "about"}, ...]}` in the order the study would run
them. `name` is the setting (I-IV) or the bully pattern, `control` for the
control; `id` is the run's id in the study JSON (`control-r0`).
"""

from __future__ import annotations

import json
import sys

from gpcnet.study.nodelists import DESCRIPTION


def corun_about(cfg: dict, spec: dict) -> dict:
    about = {"description": DESCRIPTION[spec["setting"]], "offset": spec["offset"]}
    if spec["congestor_nodes"]:
        about["congestor_kind"] = cfg.get("congestor_kind", "congestor")
        about["congestor_args"] = cfg.get("congestor_args", [])
    return about


def entry(cfg: dict, spec: dict) -> dict:
    out = {"name": spec["setting"], "id": spec["id"], "rotation": spec["rotation"]}
    if cfg["study"] == "bully":
        out["pattern"] = spec["setting"]
        about = dict((cfg.get("bully_plan") or {}).get(spec["setting"]) or {})
        if spec.get("instances"):
            about["seed"] = f"interleaved-{spec['rotation']}"
    else:
        out["setting"] = spec["setting"]
        about = corun_about(cfg, spec)
    out.update(app=list(spec["app_nodes"]), congestor=list(spec["congestor_nodes"]),
               flows=[list(f) for f in spec.get("flows") or []], about=about)
    if spec.get("instances"):
        out["instances"] = [list(i) for i in spec["instances"]]
        if spec.get("instance_commands"):
            out["instance_commands"] = spec["instance_commands"]
    return out


def document(cfg: dict, specs: list) -> dict:
    return {"study": cfg["study"], "n": cfg["n"], "app_command": cfg["app_command"],
            "runs": [entry(cfg, s) for s in specs]}


def emit(cfg: dict, specs: list, stream=None) -> int:
    stream = stream or sys.stdout
    stream.write(json.dumps(document(cfg, specs), indent=1) + "\n")
    stream.flush()
    return 0
