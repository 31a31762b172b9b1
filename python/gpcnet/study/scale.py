"""`gpcnet study scale`: GPCNeT alone on several node counts, the co-run
paper's Section IV-C ("We also conduct experiments that run GPCNeT on
either 16, 32, 64, 86, 106, or 128 nodes without our applications"; its
Fig. 7 plots each run's "impact factor (bandwidth ratio)" against the
stall/flit ratio).

Each run is network_load_test on the first K nodes of the list, with the
counters of the ports serving those nodes sampled during it as in the
co-run study (gpcnet.study.sampling); the run records the load test's
Congestion Impact rows and, as its bandwidth ratio, the Avg CI of its
bandwidth canary (isolated / loaded bandwidth). One study JSON
("study": "scale", one setting per node count) that `gpcnet report` draws.
"""

from __future__ import annotations

import math
import shlex
import statistics
import time
from pathlib import Path

from gpcnet.errors import GpcnetError
from gpcnet.signals import terminate_as_interrupt
from gpcnet.study import launch, options, procs, runner

PAPER_COUNTS = "16,32,64,86,106,128"


def parse_counts(text: str, available: int) -> list:
    """--node-counts: distinct whole numbers >= 1, none above the list's length."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise GpcnetError(f"--node-counts: {part[:20]!r} is not a node count (a whole number, 1 or more)")
        if int(part) in counts:
            raise GpcnetError(f"--node-counts: {part} is given twice")
        counts.append(int(part))
    if max(counts) > available:
        raise GpcnetError(f"--node-counts: {max(counts)} nodes asked for, the node list has {available}")
    return counts


def bandwidth_ratio(doc: dict) -> tuple:
    """(test id, mean over repetitions of its Avg Congestion Impact) of the
    load test's first bandwidth canary (its loaded row is better "higher"),
    or (None, None) when it ran none."""
    higher = [row.get("test") for t in doc.get("tables") or [] if isinstance(t, dict) and t.get("id") == "loaded"
              for row in t.get("rows") or [] if isinstance(row, dict) and row.get("better") == "higher"]
    for test in dict.fromkeys(higher):
        avgs = [i["avg"] for i in doc.get("impact") or []
                if isinstance(i, dict) and i.get("test") == test and isinstance(i.get("avg"), (int, float))]
        if avgs:
            return test, statistics.fmean(avgs)
    return None, None


def run_one(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    """The load test on the spec's nodes, its counters sampled during it."""
    from gpcnet.load import read_json
    from gpcnet.study import congestor_job
    cfg, rid = study["config"], spec["id"]
    rec = dict(spec, status="running", started=time.time())
    out_dir, ljson = workdir / f"load-test-{rid}", workdir / f"load-test-{rid}.json"
    out_dir.mkdir(exist_ok=True)
    ljson.unlink(missing_ok=True)
    bound = ["--deadline", f"{cfg['timeout'] + 30:g}"] if cfg["timeout"] else []
    run_cfg = dict(cfg, app_command=[*cfg["app_command"], *launcher.congestor_args(), *bound, "--quiet",
                                     "--force", "--output-dir", str(out_dir), "--json", str(ljson)])
    try:
        runner.run_app(spec, run_cfg, launcher, workdir, rec, None)
        names = launcher.program_names(spec["app_nodes"])
        got = congestor_job.summary(dict(cfg, congestor_kind="load-test"), ljson, names, spec["app_nodes"])
        if got.get("error"):
            raise procs.RunFailed(got["error"])
        test, ratio = bandwidth_ratio(read_json(ljson, "load test JSON"))
        rec["load_test"] = dict(got["load_test"], status=got["status"], ran_on=got["ran_on"],
                                bandwidth_test=test, bandwidth_ratio=ratio)
        if ratio is None:
            raise procs.RunFailed("the load test ran no bandwidth canary (--tests without one): no bandwidth ratio")
        rec["status"] = "ok"
    except (procs.RunFailed, GpcnetError) as e:
        rec["status"], rec["error"] = "failed", str(e)
    rec["finished"] = time.time()
    return rec


def _started(spec: dict) -> str:
    return f"network_load_test on {len(spec['app_nodes'])} nodes"


def _finished(rec: dict) -> str:
    ratio = (rec.get("counters") or {}).get("metric", {}).get("stall_ratio")
    return (f"bandwidth ratio {rec['load_test']['bandwidth_ratio']:.3f}, stall/flit ratio "
            + ("-" if ratio is None else f"{ratio:.4g}"))


def cmd_scale(args) -> int:
    from gpcnet.study import congestor_job
    nodes = launch.read_nodes(args.hostfile, args.nodes, args.slurm, args.testbed)
    counts = parse_counts(args.node_counts, len(nodes))
    if args.repetitions < 1:
        raise GpcnetError(f"--repetitions {args.repetitions}: expected 1 or more")
    options.check_sampling(args)
    if not (math.isfinite(args.timeout) and args.timeout >= 0):
        raise GpcnetError(f"--timeout {args.timeout:g}: expected seconds, 0 (none) or more")
    try:
        extra = shlex.split(args.load_test_args)
    except ValueError as e:
        raise GpcnetError(f"--load-test-args: {e}") from None
    cfg = {"study": "scale", "app_command": [congestor_job.find_program(args.load_test_bin, "load-test"), *extra],
           "n": max(counts), "node_counts": counts, "ppn": args.ppn, "rotations": args.repetitions,
           "launcher": args.launcher, "settings": [str(k) for k in counts], "timeout": args.timeout,
           "fom_regex": None, "counters": args.counters == "auto", "counter_interval": args.counter_interval,
           "stall_threshold": args.stall_threshold, "congestor_args": [], "congestor_warmup": 0,
           "congestor_start_timeout": 0}
    specs = [{"id": f"n{k}-r{r}", "setting": str(k), "rotation": r, "nodes_used": k, "app_nodes": nodes[:k],
              "congestor_nodes": []} for r in range(args.repetitions) for k in counts]
    out = Path(args.output)
    if not out.parent.is_dir():
        raise GpcnetError(f"{out}: directory {out.parent} does not exist")
    study = runner.open_study(out, cfg, nodes, False, args.force)
    launcher = launch.make(args.launcher, args.ppn, out.parent, args.launcher_args)
    with terminate_as_interrupt():  # SIGTERM/SIGHUP: stop as on Ctrl-C, keep the finished runs
        return runner.run_study(study, specs, launcher, out, log=options.say, run=run_one,
                                started=_started, finished=_finished, resumable=False)


def add_parser(ss) -> None:
    p = ss.add_parser("scale", help="GPCNeT alone on several node counts: bandwidth ratio vs stall ratio",
                      description="Run network_load_test alone on the first K nodes of the list for each K of "
                                  "--node-counts (the co-run paper's 16-128), --repetitions times, sampling "
                                  "the counters of the ports serving those nodes during each run; record "
                                  "its bandwidth canary's Congestion Impact (the bandwidth ratio) beside the "
                                  "stall/flit ratio. `gpcnet report` draws one against the other.")
    p.add_argument("--node-counts", required=True, metavar="LIST",
                   help=f"comma-separated node counts, each at most the list's length (the paper's: {PAPER_COUNTS})")
    p.add_argument("--repetitions", type=int, default=3, metavar="R", help="runs per node count (default 3)")
    p.add_argument("--ppn", type=int, default=1, help="ranks per node (default 1)")
    p.add_argument("--launcher", default="mpirun", choices=launch.LAUNCHERS,
                   help="mpirun, srun, testbed or local, as for corun (default mpirun)")
    p.add_argument("--launcher-args", default="", metavar="ARGS", help="extra arguments for every mpirun/srun")
    p.add_argument("--load-test-bin", metavar="PATH", help="network_load_test (default: PATH, then build/)")
    p.add_argument("--load-test-args", default="", metavar="ARGS",
                   help="network_load_test options (default none: the published run)")
    p.add_argument("--timeout", type=float, default=0, metavar="SEC",
                   help="stop a run after SEC seconds (recorded as failed; default none)")
    options.sampling_options(p, "the load test's")
    p.add_argument("-o", "--output", default="scale.json", metavar="FILE",
                   help="study JSON (default scale.json; job files in FILE's stem + .d/)")
    p.add_argument("--force", action="store_true", help="overwrite --output")
    options.node_list_options(p, "node[001-128]")
    p.set_defaults(func=cmd_scale)
