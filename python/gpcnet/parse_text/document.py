"""Assembling the results document from what the scanner, the row readers
and the settings found."""

from __future__ import annotations

import re

from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics.impact import congestion_impact, lower_is_better
from gpcnet.parse_text import rows as row_reader
from gpcnet.parse_text.scan import Scanner
from gpcnet.parse_text.settings import Settings
from gpcnet.results_json import results_limits
from gpcnet.results_json.schema import SCHEMA_NAME, SCHEMA_VERSION

_TITLES = {
    "Isolated Network Tests": "isolated",
    "Isolated Congestion Tests": "isolated_congestors",
    "Network Tests running with Congestion Tests": "loaded",
}
_KEY_RESULTS = "Network Tests running with Congestion Tests - Key Results"
# \A: one start only (unanchored, a title of the prefix repeated would
# be rescanned from every repeat).
_VERBOSE_LOADED = re.compile(r"\ANetwork Tests running with Congestion Tests \( *([^ ].*) Network Test\)")
# Sweep and repeat runs print tables the one-run document cannot hold.
# ([ \t]* and not \s*: a run of blank lines must not be rescanned per line.)
_EXPERIMENT = re.compile(
    r"^[ \t]*(congestor sweep = yes|burst sweep = |repeat = [0-9]+ \(|Repetition 1 of [0-9]+)", re.M)
_TABLE_ORDER = ["isolated", "isolated_congestors", "loaded"]


def _tables(p: Scanner) -> tuple:
    """(tables by id, Key Results entries, verbose or None)."""
    tables: dict = {}
    impact: list = []
    verbose = None

    def add(table_id: str, title: str, rows: list):
        table = tables.setdefault(table_id, {"id": table_id, "title": title, "rows": []})
        table["rows"] += rows
        # A title printed again adds to its table: bounded here as well.
        if len(table["rows"]) > results_limits.MAX_ROWS_PER_TABLE:
            p.fail(block.first_line, f"table '{title[:60]}' has more than {results_limits.MAX_ROWS_PER_TABLE} "
                                     "rows in all, more than any run prints, so not GPCNeT text output")

    for block in p.blocks:
        if block.title == _KEY_RESULTS:
            impact = row_reader.impact_rows(p.fail, block)
            continue
        m = _VERBOSE_LOADED.fullmatch(block.title)
        if block.title in _TITLES:
            add(_TITLES[block.title], block.title, row_reader.result_rows(p.fail, block))
        elif m:
            # Verbose: one table per canary, the canary first and then the
            # congestors that ran beside it.
            rows = row_reader.result_rows(p.fail, block)
            if not rows:
                p.fail(block.first_line, f"table '{block.title}' has no rows")
            add("loaded", "Network Tests running with Congestion Tests", rows[:1])
            add(f"congestors_during:{rows[0]['test']}", block.title, rows[1:])
        else:
            continue  # a table this version does not know; leave it out
        verbose = any(r["min"] is not None for t in tables.values() for r in t["rows"])
    return tables, impact, verbose


def _recomputed_impact(tables: dict) -> list:
    """The printed CI from the printed values, when the Key Results table
    is missing (e.g. output cut short after the tables)."""
    impact = []
    for loaded in tables["loaded"]["rows"]:
        iso = next((r for r in tables["isolated"]["rows"] if r["test"] == loaded["test"]), None)
        if iso is None:
            continue
        printed = {}
        for stat in ("avg", "p99"):
            ci = congestion_impact(iso[stat], loaded[stat], lower_is_better(loaded["better"]))
            printed[stat] = None if ci is None else round(ci, 1)
        impact.append({"test": loaded["test"], "name": loaded["name"], "avg": None, "p99": None,
                       "avg_printed": printed["avg"], "p99_printed": printed["p99"]})
    return impact


def _status(program: str, p: Scanner, tables: dict, impact: list) -> tuple:
    if program == "network_load_test":
        last = "Key Results" if impact and "loaded" in tables else None
        if last and not p.truncated:
            return "complete", None
        return "aborted", "text output ends before the 'Network Tests running with Congestion Tests - Key Results' table"
    if p.truncated:
        return "aborted", "text output ends inside a table"
    return "complete", None


def _config_and_environment(p: Scanner, tables: dict, verbose) -> tuple:
    st = Settings(p.settings_heading, p.settings)
    official, non_default = st.official()
    seed, seed_source = st.seed()
    _, emulated = st.emulated()
    ppn_min, ppn_max = st.ppn()
    if ppn_max is None and p.ranks % p.nodes == 0:
        ppn_min = ppn_max = p.ranks // p.nodes  # reference text: even split is certain
    nics = st.get("nics_per_node", int)
    pport = st.get("pport", float)
    if pport is None and ppn_max is not None and nics:
        pport = ppn_max / nics
    loops = st.loops()
    config = {
        "official_default": official,
        "non_default": non_default,
        "seed": seed,
        "seed_source": seed_source,
        "ring_seed": st.get("ring_seed", int),
        # The settings list the tests in run order; the reference's
        # tables are the only record of what it ran.
        "tests": list(loops) if loops else [r["test"] for r in tables["isolated"]["rows"]],
        "time_limit_s": st.number("time_limit"),
        "loops": loops,
        "verbose": verbose if verbose is not None else st.flag("verbose"),
        "nics_per_node": nics,
        "emulated_nodes": emulated,
        "output_dir": None,
        "json": st.get("json", str.strip),
    }
    environment = {
        "mpi_library": st.get("mpi", str.strip),
        "mpi_standard": None,
        "ranks": p.ranks, "nodes": p.nodes, "hosts": None,
        "ppn_min": ppn_min, "ppn_max": ppn_max,
        "pport": pport,
        "hostname": None,
    }
    return config, environment, st


def parse_text(text: str, where: str) -> dict:
    """Parse GPCNeT text output into a results document (not yet validated)."""
    p = Scanner(text, where)  # refuses an over-long line first
    # The JSON of sweep and repeat runs has everything; send the user there.
    experiment = _EXPERIMENT.search(text)
    if experiment:
        raise GpcnetError(f"{where}: text output of --congestor-sweep / --burst-sweep / --repeat runs is not parsed "
                          "(found '" + experiment.group(1).strip(" (") + "'); use the JSON the run wrote")
    p.scan()
    kind, version = p.header
    program = "network_load_test" if kind == "NetworkLoad" else "network_test"
    if p.ranks is None:
        raise GpcnetError(f"{where}: no 'Test with N MPI ranks (M nodes)' line after the header")
    if p.nodes == 0 or p.ranks == 0:
        raise GpcnetError(f"{where}: 'Test with {p.ranks} MPI ranks ({p.nodes} nodes)' names no ranks or nodes")

    tables, impact, verbose = _tables(p)
    if "isolated" not in tables:
        raise GpcnetError(f"{where}: no 'Isolated Network Tests' table found")
    if program == "network_load_test" and not impact and "loaded" in tables:
        impact = _recomputed_impact(tables)
    status, reason = _status(program, p, tables, impact)
    config, environment, st = _config_and_environment(p, tables, verbose)
    doc = {
        "schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION,
        "program": program,
        # The version the text claims (1.3 for the reference), so that parsed
        # reference numbers stay distinguishable from ours.
        "version": version,
        "source": "text",
        "status": status, "abort_reason": reason,
        "started_at": None, "finished_at": None,
        "config": config,
        "environment": environment,
        "tables": [tables[k] for k in _TABLE_ORDER if k in tables] +
                  [t for k, t in tables.items() if k not in _TABLE_ORDER],
        "phases": None,
    }
    if program == "network_load_test":
        doc["config"]["canary_fraction"] = st.get("canary_fraction", float)
        doc["config"]["congestors"] = st.congestors()
        doc["placement"] = {
            "all_nodes": None, "congestor_nodes": None, "canary_nodes": None,
            "min_nodes_per_congestor": p.min_per_congestor,
            "congestor_groups": None, "node_list_files": None,
            # Not in schema v1 (which has the node names only); the text
            # carries the counts, so keep them. See docs/gpcnet-tool.md.
            "canary_node_count": p.canary_nodes,
            "congestor_node_count": p.congestor_nodes,
        }
        doc["impact"] = impact
    else:
        # As the binaries write them for network_test.
        doc["placement"] = None
        doc["impact"] = []
    return doc
