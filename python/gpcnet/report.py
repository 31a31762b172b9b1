"""One self-contained HTML report per run: summary, the tables as the text
output lays them out, and the paper's figures inlined as SVG.

No scripts and no external resources, so the file can be mailed, archived
with the run, or opened on a machine without network access.
"""

from __future__ import annotations

import html
from typing import Optional

from gpcnet import __version__, catalog, figures, reference, report_study, results

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #999; padding: 0.2em 0.6em; }
table.gpcnet { font-family: ui-monospace, monospace; font-size: 0.9em; }
table.gpcnet caption { font-weight: bold; padding: 0.3em; }
table.gpcnet td.num { text-align: right; }
table.gpcnet td.name { text-align: right; white-space: nowrap; }
table.summary th { text-align: left; background: #f3f3f3; font-weight: normal; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em 1em; }
.note { color: #555; font-size: 0.9em; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; }
.figrow { display: flex; flex-wrap: wrap; gap: 0 1.5em; }
.figrow figure.plot { max-width: 30em; }
table.gpcnet td.unit { text-align: right; }
figcaption { font-size: 0.9em; color: #444; }
footer { margin-top: 3em; font-size: 0.8em; color: #777; }
"""


def _e(value) -> str:
    return html.escape(str(value))


def _num(value: Optional[float]) -> str:
    """A table cell as the text output prints it (%.1f), full value on hover."""
    if value is None:
        return '<td class="num">–</td>'
    return f'<td class="num" title="{value!r}">{value:.1f}</td>'


def _or_unknown(value, unknown="not recorded") -> str:
    if value is None:
        return f'<span class="note">{unknown}</span>'
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return _e(", ".join(map(str, value))) if value else "none"
    return _e(value)


def _kv_table(pairs: list) -> str:
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<table class="summary">{rows}</table>'


def _node_list(nodes: Optional[list]) -> str:
    if nodes is None:
        return _or_unknown(None)
    if len(nodes) <= 12:
        return f"{len(nodes)}: {_e(', '.join(nodes))}"
    # Thousands of nodes would swamp the page; keep them one click away.
    return (f"<details><summary>{len(nodes)} nodes: {_e(', '.join(nodes[:6]))}, …</summary>"
            f"{_e(', '.join(nodes))}</details>")


def summary(doc: dict) -> str:
    cfg, env = doc["config"], doc["environment"]
    parts = []
    if doc["status"] != "complete":
        reason = f": {doc['abort_reason']}" if doc.get("abort_reason") else ""
        parts.append(f'<p class="warning">Run status is <b>{_e(doc["status"])}</b>{_e(reason)}; '
                     "only the phases that finished are shown.</p>")
    if doc["source"] == "text":
        parts.append('<p class="note">This document was parsed from text output: values are rounded '
                     "to one decimal and anything the text does not carry is shown as not recorded.</p>")
    official = cfg.get("official_default")
    official_text = _or_unknown(official)
    if official is False:
        official_text = "no; settings that differ: " + _or_unknown(cfg.get("non_default"))
    pport, pport_note = results.pport(doc)
    ppn = env.get("ppn_min") if env.get("ppn_min") == env.get("ppn_max") else \
        f"{env.get('ppn_min')}–{env.get('ppn_max')}"
    emulated = cfg.get("emulated_nodes")
    mix = cfg.get("congestors")
    # With --repeat each repetition has its own seed; list them all.
    rep_seeds = [r.get("seed") for r in doc.get("repetitions") or []]
    seed = ", ".join(map(str, rep_seeds)) if len(rep_seeds) > 1 else cfg.get("seed")
    pairs = [
        ("Program", f"{_e(doc['program'])} {_e(doc['version'])}"),
        ("Source", "run" if doc["source"] == "run" else "parsed from text output"),
        ("Status", _e(doc["status"])),
        ("Started / finished (UTC)", f"{_or_unknown(doc.get('started_at'))} / {_or_unknown(doc.get('finished_at'))}"),
        ("Official default configuration", official_text),
        ("Placement seed" + (" per repetition" if len(rep_seeds) > 1 else ""), _or_unknown(seed) +
         (f" (from {_e(cfg['seed_source'])})" if cfg.get("seed_source") else "")),
        ("Ring seed", _or_unknown(cfg.get("ring_seed"))),
        ("Nodes / ranks", f"{env['nodes']} / {env['ranks']}"),
        ("Hosts", _or_unknown(env.get("hosts"))),
        ("PPN", _or_unknown(ppn if env.get("ppn_min") is not None else None)),
        ("NICs per node", _or_unknown(cfg.get("nics_per_node"))),
        ("PPort", (f"{pport:g}" if pport is not None else _or_unknown(None)) +
         (f' <span class="note">({_e(pport_note)})</span>' if pport_note else "")),
        ("MPI library", _or_unknown(env.get("mpi_library")) +
         (f" (MPI {_e(env['mpi_standard'])})" if env.get("mpi_standard") else "")),
        ("Emulated nodes", "no (real nodes)" if emulated is None and doc["source"] == "run" else
         _or_unknown(None if emulated is None else ", ".join(f"{k} = {v}" for k, v in emulated.items()))),
        ("Time limit per test", _or_unknown(None if cfg.get("time_limit_s") is None else f"{cfg['time_limit_s']:g} s")),
        ("Tests", _or_unknown(cfg.get("tests"))),
    ]
    if results.is_load_test(doc):
        pairs += [
            ("Canary fraction", _or_unknown(cfg.get("canary_fraction"))),
            ("Congestor mix", _or_unknown(None if mix is None else
                                          [f"{c['name']} ×{c['weight']}" for c in mix])),
        ]
        study = (["congestor sweep"] if cfg.get("congestor_sweep") else []) + \
                (["repeat"] if (cfg.get("repeat") or 1) > 1 else [])
        if study:
            pairs.append(("Study", _e(", ".join(f"{n} ({cfg['repeat']} repetitions)" if n == "repeat" else n
                                              for n in study))))
    parts.append(_kv_table(pairs))
    placement = doc.get("placement")
    if placement:
        parts.append(_placement(placement))
    parts.append(report_study.repetitions_summary(doc))
    return "\n".join(parts)


def _placement(p: dict) -> str:
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
        pairs.append(("Node list files", _e(", ".join(f"{k}: {v}" for k, v in p["node_list_files"].items()))))
    out = "<h3>Placement</h3>" + _kv_table(pairs)
    groups = p.get("congestor_groups")
    if groups:
        rows = "".join(f"<tr><td>{g['slice']}</td><td>{_e(catalog.display_name(g['kernel']))}</td>"
                       f"<td>{_node_list(g['nodes'])}</td></tr>" for g in groups)
        out += (f"<details><summary>{len(groups)} congestor communicators</summary>"
                f'<table class="summary"><tr><th>Slice</th><th>Kernel</th><th>Nodes</th></tr>{rows}</table></details>')
    return out


def result_table(table: dict, verbose: bool, suffix: str = "") -> str:
    """A table with the columns of the text output (default or verbose)."""
    cols = ["min", "max", "avg", "avg_worst", "p99", "p999"] if verbose else ["avg", "p99"]
    names = {"min": "Min", "max": "Max", "avg": "Avg", "avg_worst": "Avg(Worst)", "p99": "99%", "p999": "99.9%"}
    head = "<tr><th>Name</th>" + "".join(f"<th>{names[c]}</th>" for c in cols) + "<th>Units</th></tr>"
    rows = "".join(
        f'<tr><td class="name">{_e(r["name"])}</td>' + "".join(_num(r[c]) for c in cols) +
        f"<td class=\"unit\">{_e(r['unit'])}</td></tr>" for r in table["rows"])
    return f'<table class="gpcnet" id="table-{_e(table["id"])}{suffix}"><caption>{_e(table["title"])}</caption>{head}{rows}</table>'


def impact_table(doc: dict, repetition: int = results.FIRST, suffix: str = "") -> str:
    """Key Results: the printed CI (from the one-decimal values, as the
    reference computes it), with the unrounded ratio on hover."""
    rows = ""
    for e in results.impacts(doc, repetition):
        cells = ""
        for stat in ("avg", "p99"):
            shown = e.get(f"{stat}_printed")
            exact = e.get(stat)
            title = f' title="unrounded {exact!r}"' if exact is not None else ""
            cells += f'<td class="num"{title}>{"–" if shown is None else f"{shown:.1f}X"}</td>'
        rows += f'<tr><td class="name">{_e(e["name"])}</td>{cells}</tr>'
    return (f'<table class="gpcnet" id="table-impact{suffix}"><caption>Network Tests running with Congestion Tests - '
            'Key Results</caption><tr><th rowspan="2">Name</th><th colspan="2">Congestion Impact Factor</th></tr>'
            f"<tr><th>Avg</th><th>99%</th></tr>{rows}</table>")


class _Figures:
    """Numbers the inline figures so their SVG ids never collide."""

    def __init__(self):
        self.count = 0

    def embed(self, fig, fig_id: str, caption: str) -> str:
        self.count += 1
        svg = figures.to_svg(fig, salt=f"gpcnet-{self.count}-{fig_id}")
        return (f'<figure class="plot" id="fig-{_e(fig_id)}">{svg}'
                f"<figcaption>{_e(caption)}</figcaption></figure>")


def _run_tables(doc: dict, verbose: bool, repetition: int, suffix: str) -> str:
    """One repetition's canary tables (isolated, each congestor alone, all
    together) and its Key Results, in the order the text output prints them."""
    main = [t for t in doc["tables"] if results.repetition_of(t) == repetition and
            (t["id"] in ("isolated", "loaded") or t["id"].startswith("loaded_by:"))]
    body = "".join(result_table(t, verbose, suffix) for t in main)
    if results.impacts(doc, repetition):
        body += impact_table(doc, repetition, suffix)
    return body


def _section(section_id: str, title: str, body: str) -> str:
    return f'<section id="{section_id}"><h2>{_e(title)}</h2>\n{body}\n</section>'


def render(doc: dict, source_name: str) -> str:
    figs = _Figures()
    load_test = results.is_load_test(doc)
    verbose = bool(doc["config"].get("verbose"))
    sections = [_section("summary", "Run summary", summary(doc))]

    reps = results.repetitions(doc)
    which = f" Repetition {results.FIRST} of {len(reps)}." if len(reps) > 1 else ""
    body = _run_tables(doc, verbose, results.FIRST, "")
    if len(reps) > 1:
        seeds = {r["repetition"]: r.get("seed") for r in doc.get("repetitions") or []}
        body = (f'<p class="note">Repetition {results.FIRST} of {len(reps)}; the others follow, folded.</p>'
                + body)
        for rep in reps[1:]:
            seed = f" (seed {seeds[rep]})" if seeds.get(rep) is not None else ""
            body += (f'<details id="repetition-{rep}"><summary>Repetition {rep}{_e(seed)}</summary>'
                     f"{_run_tables(doc, verbose, rep, f'-r{rep}')}</details>")
    sections.append(_section("results", "Results", body or "<p>No table has finished yet.</p>"))

    tests = results.canary_tests(doc)
    if not tests:
        body = "<p>No test has finished yet.</p>"
    elif not results.has_histograms(doc):
        why = ("it was parsed from text output, which carries only the table values"
               if doc["source"] == "text" else "no test recorded samples")
        body = f'<p class="note" id="no-histograms">No histograms: this document has none because {why}.</p>'
    else:
        what = "isolated (top) and with congestors (bottom)" if load_test else "isolated"
        body = '<div class="figrow">' + "".join(
            figs.embed(figures.histogram_figure(doc, [t]), f"hist-{t}",
                       f"{catalog.display_name(t)}: distribution of fine-grained samples, {what}, "
                       "with Avg (solid) and 99% (dashed) marked." + which) for t in tests) + "</div>"
    sections.append(_section("histograms", "Distributions", body))

    if results.sweep_kernels(doc) and results.has_histograms(doc):
        sections.append(_section("sweep", "Congestor sweep", report_study.sweep_section(doc, figs)))

    if results.impacts(doc):
        pport, note = results.pport(doc)
        neighbours = reference.closest_per_system(pport) if pport is not None else []
        caption = ("Congestion Impact (Avg and 99%, log scale) of this run (hatched) beside the published "
                   "systems at the PPort closest to this run's"
                   + (f" ({note})" if note else "") + ": " + "; ".join(p.label for p in neighbours) + "." + which)
        body = figs.embed(figures.ci_figure(doc), "ci", caption)
        body += ('<p class="note">Published CI is computed from the SC\'19 paper Table 2 and the HPE white paper: '
                 "loaded / isolated for latency and Allreduce, isolated / loaded for bandwidth.</p>")
        sections.append(_section("impact", "Congestion Impact", body))

    congestor_tables = [t for t in doc["tables"] if results.repetition_of(t) == results.FIRST and (
        t["id"] == "isolated_congestors" or t["id"].startswith("congestors_during:"))]
    if congestor_tables:
        # Sweep cells (congestors_during:<kernel>:<test>) are folded away under their kernel.
        together = [t for t in congestor_tables if t["id"].count(":") < 2]
        body = "".join(result_table(t, verbose) for t in together)
        for kernel in results.sweep_kernels(doc):
            alone = [t for t in congestor_tables if t["id"].startswith(f"congestors_during:{kernel}:")]
            if alone:
                body += (f"<details><summary>{_e(catalog.display_name(kernel))} alone (sweep)</summary>"
                         + "".join(result_table(t, verbose) for t in alone) + "</details>")
        if len(reps) > 1:
            body += f'<p class="note">Repetition {results.FIRST}; the JSON has every repetition\'s.</p>'
        sections.append(_section("congestors", "Congestor performance", body))

    if doc.get("impact_matrix"):
        sections.append(_section("impact-matrix", "Impact matrix", report_study.matrix_section(doc, figs)))

    if doc.get("repeats"):
        sections.append(_section("repeats", "Repeatability", report_study.repeats_section(doc, figs)))

    title = f"GPCNeT {doc['program']} report"
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{_e(title)}: {_e(source_name)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<h1>{_e(title)}</h1>\n<p>{_e(source_name)}</p>\n" + "\n".join(sections) +
            f"\n<footer>Generated by gpcnet {_e(__version__)} from {_e(source_name)} "
            f"(results schema {_e(doc['schema'])} v{doc['schema_version']}).</footer>\n</body>\n</html>\n")

