"""Which time a study normalises: the application's own figure of merit
when --fom-regex found one in every finished run (what the co-run paper
normalises: the application's execution time, without the launcher's
start-up), else the launcher's wall time, never a mix of the two. The
runner writes the answer into the study's config as "time_measure" after
every run; the report normalises by it ("higher_is_better" turns a rate
around so that every normalised value reads as a time)."""

from __future__ import annotations


def measure(study: dict) -> str:
    cfg = study["config"]
    ok = [r for r in study["runs"] if r.get("status") == "ok"]
    if cfg.get("fom_regex") and ok and all(r.get("fom") is not None for r in ok):
        return "fom"
    return "wall_s"
