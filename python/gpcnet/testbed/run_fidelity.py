"""Where a testbed run's fidelity record goes: measured around the job,
added to the results JSON the job wrote, printed after its tables.

The C programs' own output is left as it is: `gpcnet testbed run` knows
the testbed and the host, the programs do not. It finds the results JSON
from the job's command line (`--json FILE`, else `--output-dir DIR`
(default: the current directory) and the program's name), as the
programs name it, and adds a `fidelity` object to it when the job wrote
it during this run.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import MAX_RESULTS_BYTES, read_json
from gpcnet.testbed import counters, faults, fidelity
from gpcnet.text import text_safe

PROGRAMS = ("network_test", "network_load_test", "network_congestor")


@contextlib.contextmanager
def measured(topo, interval):
    """Measure the block: yields {"series": ...} (the switch ports' counter
    series, every `interval` seconds or fidelity.SAMPLE_INTERVAL_S), and
    {"fidelity": ...} once the block has ended, even when it failed."""
    rates = fidelity.rates_in_force(topo, faults.load())
    out: dict = {}
    cpu_before, start = fidelity.read_cpu(), time.monotonic()
    try:
        with counters.sampled(topo, interval or fidelity.SAMPLE_INTERVAL_S) as series:
            out["series"] = series
            yield out
    finally:
        out["fidelity"] = fidelity.record(cpu_before, fidelity.read_cpu(), time.monotonic() - start,
                                          out.get("series", {}), rates)


def results_paths(command: list) -> list:
    """The results JSON files the job's command names, as it names them
    (the job runs in gpcnet's current directory, so a relative one is
    found here too): per program of ours in it, its --json, else
    DIR/<program>.json of its --output-dir (default: the current
    directory)."""
    found = []
    for i, word in enumerate(command):
        name = os.path.basename(word)
        if name not in PROGRAMS:
            continue
        rest = _own_options(command[i + 1:])
        json_path = _option(rest, "--json")
        if json_path is None:
            json_path = os.path.join(_option(rest, "--output-dir") or ".", f"{name}.json")
        found.append(os.path.normpath(json_path))
    return found


def _own_options(words: list) -> list:
    """The program's arguments: up to the next program of ours (e.g. a
    second command in `sh -c`), or all."""
    for j, w in enumerate(words):
        if os.path.basename(w) in PROGRAMS:
            return words[:j]
    return words


def _option(words: list, name: str):
    value = None
    for j, w in enumerate(words):
        if w == name and j + 1 < len(words):
            value = words[j + 1]
        elif w.startswith(name + "="):
            value = w[len(name) + 1:]
    return value   # the last one given wins, as in the programs' parser


def attach(path: str, fid: dict, started: float) -> str:
    """Add `fid` to the results JSON at path when this run wrote it; one
    line saying what was done (for the footer)."""
    shown = text_safe.path(path)
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return f"{shown}: not written by this run, fidelity not recorded there"
    if st.st_mtime < started:
        return f"{shown}: older than this run, fidelity not recorded there"
    try:
        doc = read_json(path, "results JSON", MAX_RESULTS_BYTES)
        if not isinstance(doc, dict) or doc.get("schema") != "gpcnet-results":
            return f"{shown}: not a gpcnet results JSON, fidelity not recorded there"
        doc["fidelity"] = fid
        # force: the job's own file, replaced whole (never through a link:
        # safe_write refuses one).
        safe_write.write_text(Path(path), json.dumps(doc, indent=2, allow_nan=False) + "\n", force=True)
    except (GpcnetError, ValueError) as e:
        return f"fidelity not recorded: {text_safe.message(str(e))}"
    return f"fidelity recorded in {shown}"
