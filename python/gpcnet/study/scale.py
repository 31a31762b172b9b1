"""`gpcnet study scale`: GPCNeT alone on several node counts, the co-run
paper's Section IV-C ("We also conduct experiments that run GPCNeT on
either 16, 32, 64, 86, 106, or 128 nodes without our applications"; its
Fig. 7 plots each run's "impact factor (bandwidth ratio)" against the
stall/flit ratio).

Each run is network_load_test on the first K nodes of the list, with the
counters of the ports serving those nodes sampled during it as in the
co-run study (gpcnet.study.sampling); the run records the load test's
Congestion Impact rows and its bandwidth ratio as the paper defines it:
the bandwidth canary's effective bandwidth with the congestor divided by
its bandwidth in isolation (loaded / isolated: below 1 under congestion;
the inverse of the load test's Congestion Impact). The congestor is the
paper's RMA Broadcast by default (--congestors). One study JSON
("study": "scale", one setting per node count) that `gpcnet report` draws.
"""

from __future__ import annotations

import math
import shlex
import statistics
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import terminate_as_interrupt
from gpcnet.infra.reading import MAX_RESULTS_BYTES, read_json
from gpcnet.study import launch, options, procs, runner
from gpcnet.study import congestor_job
from gpcnet.study.jobdir import JobDirChanged

PAPER_COUNTS = "16,32,64,86,106,128"
PAPER_CONGESTOR = "rma_bcast"      # the paper ran "the RMA Broadcast congestor kernel"


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


def _rows(doc: dict, table: str, test: str) -> dict:
    """{repetition: the table's row of `test`} (a document without
    repetitions in its tables: all repetition 1)."""
    out = {}
    for t in doc.get("tables") or []:
        if isinstance(t, dict) and t.get("id") == table:
            for row in t.get("rows") or []:
                if isinstance(row, dict) and row.get("test") == test:
                    out[t.get("repetition", 1)] = row
    return out


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def bandwidth_ratio(doc: dict) -> tuple:
    """(test id, bandwidth ratio, Congestion Impact) of the load test's
    first bandwidth canary (its loaded row is better "higher"), or (None,
    None, None) when it ran none. The ratio is the paper's: the canary's
    average bandwidth with the congestors over its average in isolation,
    per repetition, then their mean (below 1: congested). The Congestion
    Impact is the load test's own Avg CI (isolated / loaded), kept beside."""
    higher = [row.get("test") for t in doc.get("tables") or [] if isinstance(t, dict) and t.get("id") == "loaded"
              for row in t.get("rows") or [] if isinstance(row, dict) and row.get("better") == "higher"]
    for test in dict.fromkeys(higher):
        iso, loaded = _rows(doc, "isolated", test), _rows(doc, "loaded", test)
        ratios = [loaded[k]["avg"] / iso[k]["avg"] for k in loaded
                  if k in iso and _number(loaded[k].get("avg")) and _number(iso[k].get("avg"))]
        cis = [i["avg"] for i in doc.get("impact") or []
               if isinstance(i, dict) and i.get("test") == test and _number(i.get("avg"))]
        if not ratios and cis:   # no tables (an abridged document): the inverse of each Avg CI
            ratios = [1.0 / c for c in cis]
        if ratios:
            return test, statistics.fmean(ratios), statistics.fmean(cis) if cis else None
    return None, None, None


def run_one(spec: dict, study: dict, launcher, workdir: Path) -> dict:
    """The load test on the spec's nodes, its counters sampled during it."""
    cfg, rid = study["config"], spec["id"]
    rec = dict(spec, status="running", started=time.time())
    out_dir, ljson = workdir / f"load-test-{rid}", workdir / f"load-test-{rid}.json"
    launcher.check(f"{rid}: the run's start")
    out_dir.mkdir(exist_ok=True)
    ljson.unlink(missing_ok=True)
    bound = ["--deadline", f"{cfg['timeout'] + 30:g}"] if cfg["timeout"] else []
    run_cfg = dict(cfg, app_command=[*cfg["app_command"], *launcher.congestor_args(), *bound, "--quiet",
                                     "--force", "--output-dir", launcher.child_path(out_dir),
                                     "--json", launcher.child_path(ljson)])
    try:
        runner.run_app(spec, run_cfg, launcher, workdir, rec, None)
        names = launcher.program_names(spec["app_nodes"])
        got = congestor_job.summary(dict(cfg, congestor_kind="load-test"), ljson, names, spec["app_nodes"])
        if got.get("error"):
            raise procs.RunFailed(got["error"])
        test, ratio, ci = bandwidth_ratio(read_json(ljson, "load test JSON", MAX_RESULTS_BYTES))
        launcher.check(f"{rid}: the load test's results read")
        rec["load_test"] = dict(got["load_test"], status=got["status"], ran_on=got["ran_on"],
                                bandwidth_test=test, bandwidth_ratio=ratio, congestion_impact=ci,
                                bandwidth_ratio_is="loaded / isolated")
        if ratio is None:
            raise procs.RunFailed("the load test ran no bandwidth canary (--tests without one): no bandwidth ratio")
        rec["status"] = "ok"
    except JobDirChanged:
        raise   # the study stops: nothing of this run is kept
    except (procs.RunFailed, GpcnetError) as e:
        rec["status"], rec["error"] = "failed", str(e)
    rec["finished"] = time.time()
    return rec


def _started(spec: dict) -> str:
    return f"network_load_test on {len(spec['app_nodes'])} nodes"


def _finished(rec: dict) -> str:
    ratio = (rec.get("counters") or {}).get("metric", {}).get("stall_ratio")
    return (f"bandwidth ratio (loaded / isolated) {rec['load_test']['bandwidth_ratio']:.3f}, stall/flit ratio "
            + ("-" if ratio is None else f"{ratio:.4g}"))


def cmd_scale(args) -> int:
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
    extra = congestor_args(args.congestors, extra)
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


def congestor_args(congestors: str | None, extra: list) -> list:
    """The load test's options with the congestor mix: --congestors LIST
    (default the paper's RMA Broadcast; `all`: the load test's own default
    mix), or the one in --load-test-args, never both."""
    given = any(a == "--congestors" or a.startswith("--congestors=") for a in extra)
    if given and congestors is not None:
        raise GpcnetError("--congestors is given twice (as an option and in --load-test-args): keep one")
    if given:
        return extra
    mix = congestors if congestors is not None else PAPER_CONGESTOR
    if not mix.strip():
        raise GpcnetError("--congestors: empty (give e.g. rma_bcast, a2a,rma_bcast:2, or all)")
    return extra if mix.strip() == "all" else ["--congestors", mix.strip(), *extra]


def add_parser(ss) -> None:
    p = ss.add_parser("scale", help="GPCNeT alone on several node counts: bandwidth ratio vs stall ratio",
                      description="Run network_load_test alone on the first K nodes of the list for each K of "
                                  "--node-counts (the co-run paper's 16-128), --repetitions times, sampling "
                                  "the counters of the ports serving those nodes during each run; record "
                                  "its bandwidth canary's bandwidth ratio (loaded / isolated) beside the "
                                  "stall/flit ratio. `gpcnet report` draws one against the other.")
    p.add_argument("--node-counts", required=True, metavar="LIST",
                   help=f"comma-separated node counts, each at most the list's length (the paper's: {PAPER_COUNTS})")
    p.add_argument("--repetitions", type=int, default=3, metavar="R", help="runs per node count (default 3)")
    p.add_argument("--ppn", type=int, default=1, help="ranks per node (default 1)")
    p.add_argument("--launcher", default="mpirun", choices=launch.LAUNCHERS,
                   help="mpirun, srun, testbed or local, as for corun (default mpirun)")
    p.add_argument("--launcher-args", default="", metavar="ARGS", help="extra arguments for every mpirun/srun")
    p.add_argument("--load-test-bin", metavar="PATH", help="network_load_test (default: PATH, then build/)")
    p.add_argument("--congestors", metavar="LIST",
                   help=f"the load test's congestor kernels (default {PAPER_CONGESTOR}, the paper's RMA "
                        "Broadcast; 'all': the load test's own mix of four)")
    p.add_argument("--load-test-args", default="", metavar="ARGS",
                   help="other network_load_test options (default none)")
    p.add_argument("--timeout", type=float, default=0, metavar="SEC",
                   help="stop a run after SEC seconds (recorded as failed; default none)")
    options.sampling_options(p, "the load test's")
    p.add_argument("-o", "--output", default="scale.json", metavar="FILE",
                   help="study JSON (default scale.json; job files in FILE's stem + .d/)")
    p.add_argument("--force", action="store_true", help="overwrite --output")
    options.node_list_options(p, "node[001-128]")
    p.set_defaults(func=cmd_scale)
