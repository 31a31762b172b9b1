"""One self-contained HTML report per run: summary, the tables as the text
output lays them out, and the paper's figures inlined as SVG.

No scripts and no external resources, so the file can be mailed, archived
with the run, or opened on a machine without network access. Every piece
of markup is built with the shared layer (gpcnet.report.html).
"""

from __future__ import annotations

from typing import Optional

from gpcnet import __version__
from gpcnet.analysis import all_pairs, nics, nodes
from gpcnet.metrics import catalog, reference
from gpcnet.plots import figures
from gpcnet.report import burst_sweep
from gpcnet.report import all_pairs_view, ebb_view, fidelity_view, nics_view, nodes_view, sweep, timeline
from gpcnet.report.html import Figures, Markup, fmt, join, page
from gpcnet.results_json import results
from gpcnet.text import number_text

DASH = "–"


def num_cell(value: Optional[float], spec: str = "{:.1f}") -> Markup:
    """A table cell as the text output prints it (%.1f), full value on hover."""
    if value is None:
        return fmt('<td class="num">{}</td>', DASH)
    return fmt('<td class="num" title="{!r}">{}</td>', value, number_text.formatted(value, spec))


def _or_unknown(value, unknown="not recorded") -> Markup:
    if value is None:
        return fmt('<span class="note">{}</span>', unknown)
    if isinstance(value, bool):
        return fmt("{}", "yes" if value else "no")
    if isinstance(value, list):
        return fmt("{}", ", ".join(map(str, value)) if value else "none")
    return fmt("{}", value)


def _kv_table(pairs: list) -> Markup:
    rows = join(fmt("<tr><th>{}</th><td>{}</td></tr>", k, v) for k, v in pairs)
    return fmt('<table class="summary">{}</table>', rows)


def _node_list(nodes: Optional[list]) -> Markup:
    if nodes is None:
        return _or_unknown(None)
    if len(nodes) <= 12:
        return fmt("{}: {}", len(nodes), ", ".join(nodes))
    # Thousands of nodes would swamp the page; keep them one click away.
    return fmt("<details><summary>{} nodes: {}, …</summary>{}</details>",
               len(nodes), ", ".join(nodes[:6]), ", ".join(nodes))


def _note(text: str) -> Markup:
    return fmt(' <span class="note">({})</span>', text) if text else Markup()


def _fault_probe(doc: dict) -> Markup:
    """What --fault-probe found before the run ended (docs/reliability.md#fault-probe)."""
    probe = doc.get("fault_probe")
    if not probe:
        return Markup()
    when = "before the deadline" if probe["after"] == "deadline" else "after the launcher's SIGTERM"
    heard = fmt("{} of {} ranks answered rank 0 (on {}) {}", probe["answered"], probe["ranks"], probe["from"],
                when)
    failed = doc.get("failed_hosts") or []
    if not failed:
        return fmt(" The fault probe named no host: {}.", heard)
    more = probe["failed_host_count"] - len(failed)
    names = ", ".join(failed) + (f" and {more} more" if more > 0 else "")
    # After a SIGTERM the launcher may have ended other hosts' ranks itself
    # (docs/reliability.md#fault-probe).
    caveat = " One of them is the lost host; the launcher may have ended the others itself." \
        if probe["after"] == "SIGTERM" and probe["failed_host_count"] > 1 else ""
    return fmt(" The fault probe named the failed host{}: <b>{}</b> ({}).{}",
               "s" if probe["failed_host_count"] > 1 else "", names, heard, caveat)


def summary(doc: dict) -> Markup:
    cfg, env = doc["config"], doc["environment"]
    parts = []
    if doc["status"] != "complete":
        reason = f": {doc['abort_reason']}" if doc.get("abort_reason") else ""
        step = fmt(", in {}", doc["aborted_in"]) if doc.get("aborted_in") else Markup()
        parts.append(fmt('<p class="warning">Run status is <b>{}</b>{}{}; only the phases that finished are '
                         "shown.{}</p>", doc["status"], reason, step, _fault_probe(doc)))
    parts.append(fidelity_view.banner(doc))
    if doc["source"] == "text":
        parts.append(Markup('<p class="note">This document was parsed from text output: values are rounded '
                            "to one decimal and anything the text does not carry is shown as not recorded.</p>"))
    official = cfg.get("official_default")
    official_text = _or_unknown(official)
    if official is False:
        official_text = fmt("no; settings that differ: {}", _or_unknown(cfg.get("non_default")))
    pport, pport_note = results.pport(doc)
    ppn = env.get("ppn_min") if env.get("ppn_min") == env.get("ppn_max") else \
        f"{env.get('ppn_min')}–{env.get('ppn_max')}"
    emulated = cfg.get("emulated_nodes")
    mix = cfg.get("congestors")
    # With --repeat each repetition has its own seed; list them all.
    rep_seeds = [r.get("seed") for r in doc.get("repetitions") or []]
    seed = ", ".join(map(str, rep_seeds)) if len(rep_seeds) > 1 else cfg.get("seed")
    seed_from = fmt(" (from {})", cfg["seed_source"]) if cfg.get("seed_source") else Markup()
    pairs = [
        ("Program", fmt("{} {}", doc["program"], doc["version"])),
        ("Source", "run" if doc["source"] == "run" else "parsed from text output"),
        ("Status", doc["status"]),
        ("Started / finished (UTC)", fmt("{} / {}", _or_unknown(doc.get("started_at")),
                                         _or_unknown(doc.get("finished_at")))),
        ("Official default configuration", official_text),
        ("Placement seed" + (" per repetition" if len(rep_seeds) > 1 else ""), _or_unknown(seed) + seed_from),
        ("Ring seed", _or_unknown(cfg.get("ring_seed"))),
        ("Nodes / ranks", fmt("{} / {}", env["nodes"], env["ranks"])),
        ("Hosts", _or_unknown(env.get("hosts"))),
        ("PPN", _or_unknown(ppn if env.get("ppn_min") is not None else None)),
        ("NICs per node", _or_unknown(cfg.get("nics_per_node"))),
        ("PPort", (fmt("{:g}", pport) if pport is not None else _or_unknown(None)) + _note(pport_note)),
        ("MPI library", _or_unknown(env.get("mpi_library")) +
         (fmt(" (MPI {})", env["mpi_standard"]) if env.get("mpi_standard") else Markup())),
        ("Emulated nodes", "no (real nodes)" if emulated is None and doc["source"] == "run" else
         _or_unknown(None if emulated is None else ", ".join(f"{k} = {v}" for k, v in emulated.items()))),
        ("Time limit per test", _or_unknown(None if cfg.get("time_limit_s") is None
                                            else f"{cfg['time_limit_s']:g} s")),
        ("Tests", _or_unknown(cfg.get("tests"))),
    ]
    if results.is_load_test(doc):
        pairs += [
            ("Canary fraction", _or_unknown(cfg.get("canary_fraction"))),
            ("Congestor mix", _or_unknown(None if mix is None else
                                          [f"{c['name']} ×{c['weight']}" for c in mix])),
        ]
        experiments = (["congestor sweep"] if cfg.get("congestor_sweep") else []) + \
                      (["repeat"] if (cfg.get("repeat") or 1) > 1 else [])
        if experiments:
            pairs.append(("Experiment", ", ".join(f"{n} ({cfg['repeat']} repetitions)" if n == "repeat" else n
                                                  for n in experiments)))
    parts.append(_kv_table(pairs))
    placement = doc.get("placement")
    if placement:
        parts.append(_placement(placement))
    parts.append(sweep.repetitions_summary(doc))
    return join(parts, "\n")


def _placement(p: dict) -> Markup:
    canaries = p.get("canary_nodes")
    congestors = p.get("congestor_nodes")
    pairs = [
        ("Canary nodes (network tests)", _node_list(canaries) if canaries is not None
         else _or_unknown(p.get("canary_node_count"), "names not recorded")),
        ("Congestor nodes", _node_list(congestors) if congestors is not None
         else _or_unknown(p.get("congestor_node_count"), "names not recorded")),
        ("Min nodes per congestor", _or_unknown(p.get("min_nodes_per_congestor"))),
    ]
    if p.get("node_list_files"):
        pairs.append(("Node list files", ", ".join(f"{k}: {v}" for k, v in p["node_list_files"].items())))
    out = Markup("<h3>Placement</h3>") + _kv_table(pairs)
    groups = p.get("congestor_groups")
    if groups:
        rows = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", g["slice"],
                        catalog.display_name(g["kernel"]), _node_list(g["nodes"])) for g in groups)
        out += fmt('<details><summary>{} congestor communicators</summary><table class="summary"><tr>'
                   "<th>Slice</th><th>Kernel</th><th>Nodes</th></tr>{}</table></details>", len(groups), rows)
    return out


_COLUMN_NAMES = {"min": "Min", "max": "Max", "avg": "Avg", "avg_worst": "Avg(Worst)", "p99": "99%",
                 "p999": "99.9%"}


def result_table(table: dict, verbose: bool, suffix: str = "") -> Markup:
    """A table with the columns of the text output (default or verbose)."""
    cols = ["min", "max", "avg", "avg_worst", "p99", "p999"] if verbose else ["avg", "p99"]
    head = fmt("<tr><th>Name</th>{}<th>Units</th></tr>",
               join(fmt("<th>{}</th>", _COLUMN_NAMES[c]) for c in cols))
    rows = join(fmt('<tr><td class="name">{}</td>{}<td class="unit">{}</td></tr>',
                    r["name"], join(num_cell(r[c]) for c in cols), r["unit"]) for r in table["rows"])
    return fmt('<table class="gpcnet" id="table-{}{}"><caption>{}</caption>{}{}</table>',
               table["id"], suffix, table["title"], head, rows)


def impact_table(doc: dict, repetition: int = results.FIRST, suffix: str = "") -> Markup:
    """Key Results: the printed CI (from the one-decimal values, as the
    reference computes it), with the unrounded ratio on hover."""
    rows = []
    for e in results.impacts(doc, repetition):
        cells = []
        for stat in ("avg", "p99"):
            shown = e.get(f"{stat}_printed")
            exact = e.get(stat)
            text = DASH if shown is None else number_text.formatted(shown, "{:.1f}") + "X"
            cells.append(fmt('<td class="num" title="unrounded {!r}">{}</td>', exact, text) if exact is not None
                         else fmt('<td class="num">{}</td>', text))
        rows.append(fmt('<tr><td class="name">{}</td>{}</tr>', e["name"], join(cells)))
    return fmt('<table class="gpcnet" id="table-impact{}"><caption>Network Tests running with Congestion Tests - '
               'Key Results</caption><tr><th rowspan="2">Name</th><th colspan="2">Congestion Impact Factor</th>'
               "</tr><tr><th>Avg</th><th>99%</th></tr>{}</table>", suffix, join(rows))


def _run_tables(doc: dict, verbose: bool, repetition: int, suffix: str) -> Markup:
    """One repetition's canary tables (isolated, each congestor alone, all
    together) and its Key Results, in the order the text output prints them."""
    main = [t for t in doc["tables"] if results.repetition_of(t) == repetition and
            (t["id"] in ("isolated", "loaded") or t["id"].startswith("loaded_by:"))]
    body = join(result_table(t, verbose, suffix) for t in main)
    if results.impacts(doc, repetition):
        body += impact_table(doc, repetition, suffix)
    return body


def _section(section_id: str, title: str, body) -> Markup:
    return fmt('<section id="{}"><h2>{}</h2>\n{}\n</section>', section_id, title, body)


def _results_section(doc: dict, verbose: bool, reps: list) -> Markup:
    body = _run_tables(doc, verbose, results.FIRST, "")
    if len(reps) > 1:
        seeds = {r["repetition"]: r.get("seed") for r in doc.get("repetitions") or []}
        body = fmt('<p class="note">Repetition {} of {}; the others follow, folded.</p>',
                   results.FIRST, len(reps)) + body
        for rep in reps[1:]:
            seed = f" (seed {seeds[rep]})" if seeds.get(rep) is not None else ""
            body += fmt('<details id="repetition-{}"><summary>Repetition {}{}</summary>{}</details>',
                        rep, rep, seed, _run_tables(doc, verbose, rep, f"-r{rep}"))
    return _section("results", "Results", body or Markup("<p>No table has finished yet.</p>"))


def _histograms_section(doc: dict, figs: Figures, which: str) -> Markup:
    tests = results.canary_tests(doc)
    if not tests:
        body = Markup("<p>No test has finished yet.</p>")
    elif not results.has_histograms(doc):
        why = ("it was parsed from text output, which carries only the table values"
               if doc["source"] == "text" else "no test recorded samples")
        body = fmt('<p class="note" id="no-histograms">No histograms: this document has none because {}.</p>', why)
    else:
        what = "isolated (top) and with congestors (bottom)" if results.is_load_test(doc) else "isolated"
        body = fmt('<div class="figrow">{}</div>', join(
            figs.embed(figures.histogram_figure(doc, [t]), f"hist-{t}",
                       f"{catalog.display_name(t)}: distribution of fine-grained samples, {what}, "
                       "with Avg (solid) and 99% (dashed) marked." + which) for t in tests))
    return _section("histograms", "Distributions", body)


def _impact_section(doc: dict, figs: Figures, which: str) -> Markup:
    pport, note = results.pport(doc)
    neighbours = reference.closest_per_system(pport) if pport is not None else []
    caption = ("Congestion Impact (Avg and 99%, log scale) of this run (hatched) beside the published "
               "systems at the PPort closest to this run's"
               + (f" ({note})" if note else "") + ": " + "; ".join(p.label for p in neighbours) + "." + which)
    body = figs.embed(figures.ci_figure(doc), "ci", caption)
    body += Markup('<p class="note">Published CI is computed from the SC\'19 paper Table 2 and the HPE white '
                   "paper: loaded / isolated for latency and Allreduce, isolated / loaded for bandwidth.</p>")
    return _section("impact", "Congestion Impact", body)


def _congestors_section(doc: dict, verbose: bool, reps: list) -> Optional[Markup]:
    congestor_tables = [t for t in doc["tables"] if results.repetition_of(t) == results.FIRST and (
        t["id"] == "isolated_congestors" or t["id"].startswith("congestors_during:"))]
    if not congestor_tables:
        return None
    # Sweep cells (congestors_during:<kernel>:<test>) are folded away under their kernel.
    together = [t for t in congestor_tables if t["id"].count(":") < 2]
    body = join(result_table(t, verbose) for t in together)
    for kernel in results.sweep_kernels(doc):
        alone = [t for t in congestor_tables if t["id"].startswith(f"congestors_during:{kernel}:")]
        if alone:
            body += fmt("<details><summary>{} alone (sweep)</summary>{}</details>",
                        catalog.display_name(kernel), join(result_table(t, verbose) for t in alone))
    if len(reps) > 1:
        body += fmt('<p class="note">Repetition {}; the JSON has every repetition\'s.</p>', results.FIRST)
    return _section("congestors", "Congestor performance", body)


def render(doc: dict, source_name: str, isolation_section: Optional[Markup] = None) -> str:
    """The page; `isolation_section`, when given, is the traffic classes'
    isolation figure against a one-class run (report/isolation_view.py)."""
    figs = Figures()
    verbose = bool(doc["config"].get("verbose"))
    reps = results.repetitions(doc)
    which = f" Repetition {results.FIRST} of {len(reps)}." if len(reps) > 1 else ""
    sections = [_section("summary", "Run summary", summary(doc)),
                *([_section("fidelity", "Emulation fidelity", fidelity_view.section_body(doc))]
                  if fidelity_view.has_fidelity(doc) else []),
                _results_section(doc, verbose, reps),
                _histograms_section(doc, figs, which)]
    if results.sweep_kernels(doc) and results.has_histograms(doc):
        sections.append(_section("sweep", "Congestor sweep", sweep.sweep_section(doc, figs)))
    if results.impacts(doc):
        sections.append(_impact_section(doc, figs, which))
    congestors = _congestors_section(doc, verbose, reps)
    if congestors is not None:
        sections.append(congestors)
    if doc.get("impact_matrix"):
        sections.append(_section("impact-matrix", "Impact matrix", sweep.matrix_section(doc, figs)))
    if burst_sweep.has_burst_sweep(doc):
        sections.append(_section("burst-sweep", "Burst sweep", burst_sweep.section(doc, figs)))
    if doc.get("repeats"):
        sections.append(_section("repeats", "Repeatability", sweep.repeats_section(doc, figs)))
    if isolation_section is not None:
        sections.append(_section("isolation", "Isolation by traffic class", isolation_section))
    if timeline.has_timeline(doc):
        sections.append(_section("timeline", "Bursts over time", timeline.section(doc, figs)))
    if ebb_view.has_ebb(doc):
        sections.append(_section("ebb", "Effective bisection bandwidth", ebb_view.section_body(doc, figs)))
    if nodes.has_probe(doc):
        sections.append(_section("nodes", "Per-node probe", nodes_view.section_body(doc)))
    if nics.has_nics(doc):
        sections.append(_section("nics", "Per-NIC canaries", nics_view.section_body(doc)))
    if all_pairs.has_all_pairs(doc):
        sections.append(_section("all-pairs", "All-pairs matrix", all_pairs_view.section_body(doc, figs)))

    title = f"GPCNeT {doc['program']} report"
    body = fmt("<h1>{}</h1>\n<p>{}</p>\n{}\n<footer>Generated by gpcnet {} from {} (results schema {} v{})."
               "</footer>", title, source_name, join(sections, "\n"), __version__, source_name,
               doc["schema"], doc["schema_version"])
    return page(f"{title}: {source_name}", body)
