"""Small study documents of each kind (co-run, bully, scale) with every
field the report reads: times and figures of merit, counters sampled
during the run (series, metric), before/after stall ratios, the scale
sweep's load test, the bully congestor's slowest rank. The error-path
tests put hostile values into each of their fields."""

from __future__ import annotations


def _counters(ratio: float, k: int) -> dict:
    return {"source": "testbed-tc", "stall_counter": "overlimits", "flit_counter": "packets",
            "interval_s": 1.0, "stall_threshold": 1.0, "ports": {"spine0/s0l0": {"router": "leaf0"}},
            "series": [{"t": float(t), "dt": 1.0, "rates": {"spine0/s0l0": [10.0 * t, 100.0]},
                        "stall_per_s": 10.0 * (k + 1) * t, "flit_per_s": 100.0} for t in (1, 2, 3)],
            "metric": {"stall_ratio": ratio, "reason": None, "samples_kept": 3, "samples_dropped": 0,
                       "intervals": 3},
            "nodes": {"n1": {"stall_ratio": ratio}}, "switch_stall": {"leaf0": {"stall_ratio": ratio}}}


def _run(setting: str, k: int, wall_s: float, ratio: float) -> dict:
    return {"id": f"{setting}-r{k}", "setting": setting, "rotation": k, "offset": k, "status": "ok",
            "wall_s": wall_s, "fom": 100.0 / wall_s, "started": 1000.0 + 10 * k, "finished": 1000.0 + 10 * k + wall_s,
            "app_exit": 0, "congestor_exit": 0, "congestor_ready_s": 0.5, "nodes_used": 2,
            "app_nodes": ["n1", "n2"], "congestor_nodes": ["n3"], "counters": _counters(ratio, k),
            "congestor": {"kernels": [{"name": "a2a", "slowest_rank": {"rank": 1, "mib_s": 900.0 + k}}]}}


def _config(study: str, settings: list, **more) -> dict:
    return {"study": study, "app_command": ["app", "--size", "8"], "n": 2, "ppn": 1, "rotations": 3,
            "launcher": "local", "settings": settings, "congestor_args": ["--congestors", "a2a"],
            "congestor_warmup": 1.0, "timeout": 60.0, "counters": True, "stall_threshold": 1.0,
            "counter_interval": 1.0, "time_measure": "wall_s", **more}


def corun() -> dict:
    runs = [_run(s, k, t * (k + 1) / 2 + 1, r * (k + 1))
            for s, t, r in (("I", 2.0, 0.1), ("II", 3.0, 0.2), ("III", 4.0, 0.3), ("IV", 5.0, 0.4))
            for k in range(3)]
    runs.append({"id": "IV-r3", "setting": "IV", "rotation": 3, "status": "failed", "error": "exit 1"})
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["n1", "n2", "n3", "n4"], "runs": runs,
            "config": _config("corun", ["I", "II", "III", "IV"], baseline="I")}


def bully() -> dict:
    runs = [_run(s, k, t + 0.1 * k, r) for s, t, r in (("control", 2.0, 0.1), ("light", 2.5, 0.2), ("full", 3.5, 0.4))
            for k in range(3)]
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["n1", "n2", "n3", "n4"], "runs": runs,
            "config": _config("bully", ["control", "light", "full"], baseline="control",
                              patterns=["light", "full"], taper=2.0)}


def scale() -> dict:
    runs = []
    for nodes, ratios in ((2, [0.01, 0.02]), (4, [0.05, 0.07])):
        for k, m in enumerate(ratios):
            run = _run(str(nodes), k, 1.0 + k, m)
            run["app_nodes"] = [f"n{i}" for i in range(nodes)]
            run["load_test"] = {"bandwidth_test": "rr_two_sided_bw_sync", "bandwidth_ratio": 1.0 + 10 * m,
                                "bandwidth_ratio_is": "loaded / isolated"}
            runs.append(run)
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": [f"n{i}" for i in range(4)], "runs": runs,
            "config": _config("scale", ["2", "4"], app_command=["network_load_test"], node_counts=[2, 4])}


KINDS = {"corun": corun, "bully": bully, "scale": scale}


def leaves(doc, prefix=()):
    """(path, value) of every number and string, one list item of each list."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:1]):
            yield from leaves(v, prefix + (i,))
    else:
        yield prefix, doc


def numeric_fields(doc) -> list:
    return [p for p, v in leaves(doc) if isinstance(v, (int, float)) and not isinstance(v, bool)
            and p != ("schema_version",)]


def string_fields(doc) -> list:
    return [p for p, v in leaves(doc) if isinstance(v, str) and p[-1] != "kind"]


def put(doc, path, value, every_run: bool = True):
    """`value` at `path`; a path under runs[0] is set in every run, so the
    value reaches whichever run a summary picks."""
    targets = [doc]
    if every_run and path[:2] == ("runs", 0):
        targets, path = [r for r in doc["runs"] if r.get("status") == "ok"], path[2:]
    for target in targets:
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value
    return doc
