"""`gpcnet study corun | bully`: argument parsing and the plan of runs."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import terminate_as_interrupt
from gpcnet.study import bullies, bully_capacity, congestor_job, interleave, launch, nodelists, runner
from gpcnet.study import plan, scale
from gpcnet.study.launch import running_testbed
from gpcnet.study.options import check_sampling, node_list_options, sampling_options, say
from gpcnet.study import topology as topo_mod

DEFAULT_CONGESTOR = "--congestors rma_bcast"
DEFAULT_BULLY_ARGS = "--congestor-bytes 65536"


def _common(p) -> None:
    p.add_argument("-n", "--nodes-per-app", type=int, required=True, metavar="N",
                   help="nodes of the application")
    p.add_argument("--ppn", type=int, default=1, help="ranks per node, application and congestor (default 1)")
    p.add_argument("--rotations", type=int, default=10, metavar="R",
                   help="repetitions; co-run: rotation r starts r x floor(M/R) nodes into the list of M, "
                        "so R <= M (default 10)")
    p.add_argument("--launcher", default="mpirun", choices=launch.LAUNCHERS,
                   help="mpirun (hostfiles), srun (--nodelist), testbed (gpcnet testbed), "
                        "local (everything on this host, for trying out; default mpirun)")
    p.add_argument("--launcher-args", default="", metavar="ARGS",
                   help="extra arguments for every mpirun/srun, e.g. \"--mca btl tcp,self\"")
    p.add_argument("--congestor-bin", metavar="PATH",
                   help="network_congestor (network_load_test with --congestor-kind load-test; "
                        "default: PATH, then build/)")
    p.add_argument("--congestor-warmup", type=float, default=2.0, metavar="SEC",
                   help="seconds the congestor runs, once ready (its JSON written), before the application "
                        "starts (default 2)")
    p.add_argument("--fom-regex", metavar="REGEX",
                   help="figure of merit: first group of this regex in the application's stdout")
    p.add_argument("--timeout", type=float, default=0, metavar="SEC",
                   help="stop an application run after SEC seconds (recorded as failed; default none)")
    sampling_options(p, "the application's")
    p.add_argument("-o", "--output", default="study.json", metavar="FILE",
                   help="study JSON (default study.json; job files in FILE's stem + .d/)")
    p.add_argument("--resume", action="store_true", help="continue the study in --output with the same command line: skip its finished runs "
                        "(any other config is refused, naming the field)")
    p.add_argument("--force", action="store_true", help="overwrite --output")
    p.add_argument("--plan", action="store_true",
                   help="print the runs the study would make (JSON on standard output) and run nothing; "
                        "needs no congestor program built or on PATH")
    node_list_options(p, "node[01-12]")
    p.add_argument("app", nargs="+", metavar="-- APP ARGS", help="the application command and its arguments")


def _config(args, study: str, **more) -> dict:
    cmd = args.app[1:] if args.app[:1] == ["--"] else args.app
    if not cmd:
        raise GpcnetError("no application command: give it after --")
    check_sampling(args)
    if args.fom_regex:
        try:
            re.compile(args.fom_regex)
        except re.error as e:
            raise GpcnetError(f"--fom-regex: {e}") from None
    return {"study": study, "app_command": cmd, "n": args.nodes_per_app, "ppn": args.ppn,
            "rotations": args.rotations, "launcher": args.launcher,
            "congestor_bin": (congestor_job.planned_program if args.plan else congestor_job.find_program)(
                args.congestor_bin, more.get("congestor_kind", "congestor")),
            "congestor_warmup": args.congestor_warmup, "congestor_stop_timeout": 30.0,
            "congestor_start_timeout": 120.0,
            "fom_regex": args.fom_regex, "timeout": args.timeout,
            "counters": args.counters == "auto", "counter_interval": args.counter_interval,
            "stall_threshold": args.stall_threshold, **more}


def cmd_corun(args) -> int:
    nodes = launch.read_nodes(args.hostfile, args.nodes, args.slurm, args.testbed)
    settings = nodelists.parse_settings(args.settings)
    baseline = nodelists.check_baseline(args.baseline, settings)
    nodelists.check_sizes(nodes, args.nodes_per_app, args.rotations)
    cfg = _config(args, "corun", settings=settings, baseline=baseline,
                  congestor_args=shlex.split(args.congestor_args), patterns=None,
                  congestor_kind=args.congestor_kind, higher_is_better=args.higher_is_better)
    specs = []
    for r in range(args.rotations):
        for s in settings:
            pl = nodelists.placement(nodes, args.nodes_per_app, s, r, args.rotations)
            specs.append({"id": f"{s}-r{r}", "setting": s, "rotation": r, "offset": pl["offset"],
                          "app_nodes": pl["app"], "congestor_nodes": pl["congestor"]})
    return _run(args, cfg, nodes, specs)


def cmd_bully(args) -> int:
    if args.hostfile or args.nodes or args.slurm or args.testbed:
        raise GpcnetError("bully: the nodes come from --topology; drop --nodes/--hostfile/--slurm/--testbed")
    patterns = bullies.check_patterns(args.patterns)
    if args.rotations < 1:
        raise GpcnetError(f"--rotations must be at least 1 (got {args.rotations})")
    bully_capacity.check_options(args.uplinks_per_leaf, args.taper)
    mix = _mix(args, patterns)
    uplinks = args.uplinks_per_leaf
    if args.topology == "testbed":
        testbed = running_testbed()
        text = topo_mod.testbed_text(testbed)
        path = Path(args.output).with_suffix(".topology.conf")
        if not args.plan:
            safe_write.write_text(path, text, force=args.force or args.resume)
        tree = topo_mod.parse(text, str(path))
        if uplinks is None and args.taper is None:   # the testbed knows its own link rates
            uplinks = bully_capacity.testbed_uplinks(testbed)
    else:
        tree = topo_mod.read(args.topology)
    # The options as given (not the testbed's own numbers) against the tree.
    warnings = bully_capacity.check_on_tree(tree, args.uplinks_per_leaf, args.taper)
    # Every pattern planned before anything runs: a leaf too small is one line, exit 2.
    plans = {p: bullies.plan(tree, p, args.nodes_per_app, 0, args.taper, uplinks)
             for p in [bullies.CONTROL] + patterns}
    said = [f"warning: {line}" for line in warnings]
    for p, pl in plans.items():
        if "uplink_capacity" in pl["about"]:   # the patterns sized by U: their plan carries the warnings
            if warnings:
                pl["about"]["warnings"] = warnings
            said += [f"{p}: {d['pairs']} pairs between {d['leaf_pair'][0]} and {d['leaf_pair'][1]}, not "
                     f"{pl['about']['pairs_per_leaf_pair']}: {d['why']}"
                     for d in pl["about"].get("differing_leaf_pairs", [])]
    for line in said:   # --plan: standard output is the JSON, which holds them too
        say(line, sys.stderr if args.plan else None)
    if ("interleaved" in patterns and plans["interleaved"]["about"]["instances"] < bullies.INTERLEAVED_INSTANCES
            and not args.plan):   # --plan: standard output is the JSON (which gives the count)
        say(f"interleaved: {plans['interleaved']['about']['instances']} instances of {args.nodes_per_app} nodes "
             f"fit in the topology's {len(tree.nodes)} nodes (the poster ran {bullies.INTERLEAVED_INSTANCES})")
    cfg = _config(args, "bully", settings=[bullies.CONTROL] + patterns, baseline=bullies.CONTROL,
                  patterns=patterns, congestor_args=shlex.split(args.congestor_args), topology=args.topology,
                  taper=args.taper, uplinks_per_leaf=uplinks, higher_is_better=args.higher_is_better,
                  bully_plan={p: pl["about"] for p, pl in plans.items()})
    cfg["mix"] = mix
    specs = []
    for r in range(args.rotations):
        for p in [bullies.CONTROL] + patterns:
            pl = plans[p] if p != "interleaved" else bullies.plan(tree, p, args.nodes_per_app, r, args.taper, uplinks)
            spec = {"id": f"{p}-r{r}", "setting": p, "pattern": None if p == bullies.CONTROL else p,
                    "rotation": r, "app_nodes": pl["app"], "congestor_nodes": pl["bully"],
                    "flows": [list(f) for f in pl["flows"]]}
            if "instances" in pl:
                spec["instances"] = pl["instances"]
                spec["instance_commands"] = interleave.instance_commands(cfg["app_command"], mix,
                                                                         len(pl["instances"]))
            specs.append(spec)
    return _run(args, cfg, tree.nodes, specs)


def _mix(args, patterns: list) -> list:
    """--mix FILE: the other applications of the interleaved pattern."""
    if not args.mix:
        return []
    if "interleaved" not in patterns:
        raise GpcnetError("--mix names the other applications of the interleaved pattern: add interleaved "
                          "to --patterns")
    return interleave.read_mix(args.mix)


def _run(args, cfg, nodes, specs) -> int:
    if args.plan:   # checked as for a real study; nothing runs, nothing is written
        return plan.emit(cfg, specs)
    out = Path(args.output)
    if not out.parent.is_dir():
        raise GpcnetError(f"{out}: directory {out.parent} does not exist")
    study = runner.open_study(out, cfg, nodes, args.resume, args.force)
    launcher = launch.make(args.launcher, args.ppn, out.parent, args.launcher_args)
    with terminate_as_interrupt():  # SIGTERM/SIGHUP: stop as on Ctrl-C, keep the finished runs
        return runner.run_study(study, specs, launcher, out, log=say)


def add_parser(sub) -> None:
    st = sub.add_parser("study", help="co-run an application with congestors (settings I-IV, bullies)",
                        description="Congestion studies with real applications (docs/studies.md).")
    ss = st.add_subparsers(dest="study_command", metavar="STUDY", required=True)
    p = ss.add_parser("corun", help="settings I-IV with rotations (Zhang et al.)",
                      description="Run the application on N nodes of a list of >= 3N in settings I "
                                  "(continuous), II (spaced), III (continuous + congestor on spaced nodes), "
                                  "IV (spaced + congestor interleaved), each --rotations times with the "
                                  "placement rotated by 1/R of the list; write one JSON with every run. "
                                  "Times are normalised to the median of --baseline (setting I).")
    p.add_argument("--settings", default="I,II,III,IV",
                   help="comma-separated subset; must contain the baseline (default I,II,III,IV)")
    p.add_argument("--baseline", default="I", metavar="SETTING",
                   help="the setting every time is normalised to (its median), one of --settings "
                        "(default I, the application alone on continuous nodes, as the paper)")
    p.add_argument("--congestor-args", default=DEFAULT_CONGESTOR, metavar="ARGS",
                   help=f"network_congestor options (default \"{DEFAULT_CONGESTOR}\": Get Bcast alone, "
                        "as the study; any kernel mix works)")
    p.add_argument("--congestor-kind", choices=sorted(congestor_job.KINDS), default="congestor",
                   help="congestor: network_congestor until the application ends (default); load-test: the "
                        "published network_load_test itself (canaries on 20%% of its nodes), as the paper "
                        "ran GPCNeT, its Congestion Impact recorded beside the application's slowdown")
    p.add_argument("--higher-is-better", action="store_true",
                   help="the figure of merit grows with performance (a rate); default: it is a time")
    _common(p)
    p.set_defaults(func=cmd_corun)
    p = ss.add_parser("bully", help="the fat-tree bullies of the LLNL Quartz poster (topology.conf)",
                      description="Per repetition: the control (the application alone, packed in one pod) "
                                  "and the application beside each bully (pairs-light, pairs-full, bisection, "
                                  "incast, interleaved) computed from a Slurm topology.conf; the report's "
                                  "Table I gives each pattern's mean performance difference from the "
                                  "control with Welch's t-test on the runs' performance (docs/studies.md).")
    p.add_argument("--topology", required=True, metavar="topology.conf", help="Slurm tree topology, or 'testbed' for the running gpcnet testbed's")
    p.add_argument("--patterns", default=",".join(bullies.PATTERNS),
                   help=f"comma-separated (default {','.join(bullies.PATTERNS)})")
    p.add_argument("--taper", type=float, metavar="T",
                   help="leaf uplinks U = hosts per leaf / T, rounded up, for each leaf (2 for a 2:1 taper; "
                        "1 or more; give this or --uplinks-per-leaf, not both)")
    p.add_argument("--uplinks-per-leaf", type=int, metavar="U",
                   help="links from each leaf up, in host links (16 on the poster's Quartz, not its 8 "
                        "parent switches); the pairs bullies need U or --taper (the testbed's are known)")
    p.add_argument("--higher-is-better", action="store_true",
                   help="the figure of merit grows with performance (a rate); default: it is a time")
    p.add_argument("--mix", metavar="FILE",
                   help="interleaved: the other instances run these applications in turn (one command per "
                        "line); the study's application is the first instance, the one measured")
    p.add_argument("--congestor-args", default=DEFAULT_BULLY_ARGS, metavar="ARGS",
                   help=f"network_congestor options besides --flows (default \"{DEFAULT_BULLY_ARGS}\")")
    _common(p)
    p.set_defaults(func=cmd_bully)
    scale.add_parser(ss)
