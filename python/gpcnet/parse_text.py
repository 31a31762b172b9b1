"""Turn the text output of network_test / network_load_test into a results
document (`"source": "text"`).

Both the reference v1.3 output and ours are read, default and verbose. The
tables are recognised by their borders and titles, and their columns by the
header row, so a wider number (printf never truncates %12.1f) or an extra
column does not throw the parser off. Anything the text does not carry is
null, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from gpcnet import catalog
from gpcnet.errors import GpcnetError
from gpcnet.schema import SCHEMA_NAME, SCHEMA_VERSION

_HEADER = re.compile(r"^\s*(NetworkLoad|Network) Tests v(\S+)\s*$")
_RANKS = re.compile(r"^\s+Test with (\d+) MPI ranks \((\d+) nodes\)")
_CANARY_NODES = re.compile(r"^\s+(\d+) nodes running Network Tests")
_CONGESTOR_NODES = re.compile(
    r"^\s+(\d+) nodes running Congestion Tests(?: \(min (\d+) nodes per congestor\))?")
_SETTING = re.compile(r"^\s+([A-Za-z][\w .()/+-]*?)\s*=\s*(.*?)\s*$")
_OUTER_BAR = re.compile(r"^\+-{20,}\+$")
_VERBOSE_LOADED = re.compile(r"^Network Tests running with Congestion Tests \(\s*(.+?) Network Test\)$")

_TITLES = {
    "Isolated Network Tests": "isolated",
    "Isolated Congestion Tests": "isolated_congestors",
    "Network Tests running with Congestion Tests": "loaded",
}
_KEY_RESULTS = "Network Tests running with Congestion Tests - Key Results"

# Header cell -> result key.
_COLUMNS = {
    "Name": "name", "Min": "min", "Max": "max", "Avg": "avg", "Avg(Worst)": "avg_worst",
    "99%": "p99", "99.9%": "p999", "Units": "unit",
}


@dataclass
class _Block:
    """One bordered table: its title and the cell lists of its `|` lines."""
    title: str
    first_line: int  # 1-based, for messages
    lines: list = field(default_factory=list)  # (line number, [cells])


class _Parser:
    def __init__(self, text: str, where: str):
        self.where = where
        self.lines = text.splitlines()
        self.header: Optional[tuple[str, str]] = None
        self.ranks = self.nodes = self.canary_nodes = self.congestor_nodes = None
        self.min_per_congestor = None
        self.settings: dict[str, str] = {}
        self.blocks: list[_Block] = []
        self.truncated = False
        self._in_settings = False
        self.settings_heading: Optional[str] = None

    def fail(self, lineno: int, problem: str):
        raise GpcnetError(f"{self.where}:{lineno}: {problem}")

    # -- scanning -----------------------------------------------------------

    def scan(self):
        i = 0
        n = len(self.lines)
        while i < n:
            line = self.lines[i].rstrip()
            if self.header is None:
                m = _HEADER.match(line)
                if m:
                    self.header = (m.group(1), m.group(2))
            elif _OUTER_BAR.match(line) and i + 1 < n and self.lines[i + 1].rstrip().startswith("|"):
                i = self._read_block(i)
                continue
            elif not self.blocks:
                self._preamble_line(line)
            i += 1
        if self.header is None:
            raise GpcnetError(f"{self.where}: not GPCNeT text output (no 'Network Tests vX' or "
                              "'NetworkLoad Tests vX' line)")

    def _preamble_line(self, line: str):
        for pattern, handler in (
                (_RANKS, self._set_ranks), (_CANARY_NODES, self._set_canary_nodes),
                (_CONGESTOR_NODES, self._set_congestor_nodes)):
            m = pattern.match(line)
            if m:
                handler(m)
                return
        if re.match(r"^\s+Settings\b", line):
            # e.g. "  Settings (official default configuration: no; differs: seed)"
            self._in_settings = True
            self.settings_heading = line.strip()
            return
        if not line.strip() or line.strip() == "Legend":
            self._in_settings = False
            return
        m = _SETTING.match(line)
        if m and self._in_settings:
            # Ours prints its settings as indented `key = value`; keys we do
            # not know are kept out of the document rather than guessed at.
            # (The legend uses `=` too, hence the section tracking.)
            # "PPN = 1, NICs per node = 1, PPort = 1" holds three settings.
            parts = re.split(r",\s*(?=[A-Za-z][\w ]*? = )", f"{m.group(1)} = {m.group(2)}")
            for part in parts:
                key, _, value = part.partition(" = ")
                self.settings[key.strip().lower().replace(" ", "_")] = value.strip()

    def _set_ranks(self, m):
        self.ranks, self.nodes = int(m.group(1)), int(m.group(2))

    def _set_canary_nodes(self, m):
        self.canary_nodes = int(m.group(1))

    def _set_congestor_nodes(self, m):
        self.congestor_nodes = int(m.group(1))
        if m.group(2) is not None:
            self.min_per_congestor = int(m.group(2))

    def _read_block(self, start: int) -> int:
        """Collect a bordered table starting at its top bar; return the index after it."""
        title_line = self.lines[start + 1].rstrip()
        block = _Block(title_line.strip("|").strip(), start + 1)
        i = start + 2
        while i < len(self.lines):
            line = self.lines[i].rstrip()
            if line.startswith("+"):
                pass
            elif line.startswith("|"):
                if not line.endswith("|") or line.count("|") < 3:
                    self._malformed(i, line)
                    break
                block.lines.append((i + 1, [c.strip() for c in line.split("|")[1:-1]]))
            else:
                break
            i += 1
        self.blocks.append(block)
        return i

    def _malformed(self, index: int, line: str):
        # A run killed while printing leaves a partial last line; anything
        # else malformed inside a table is an error worth reporting.
        if all(not rest.strip() for rest in self.lines[index + 1:]):
            self.truncated = True
            return
        self.fail(index + 1, f"malformed table line: {line.strip()[:60]!r}")

    # -- tables -------------------------------------------------------------

    def _number(self, lineno: int, cell: str, what: str) -> Optional[float]:
        cell = cell.rstrip("X").strip()
        try:
            value = float(cell)
        except ValueError:
            self.fail(lineno, f"{what}: {cell!r} is not a number")
        # The C side prints nan/inf where a test had no samples.
        return None if value != value or value in (float("inf"), float("-inf")) else value

    def result_rows(self, block: _Block) -> list[dict]:
        header = None
        rows = []
        for lineno, cells in block.lines:
            if header is None:
                if cells and cells[0] == "Name":
                    header = cells
                    missing = {"Name", "Avg", "99%", "Units"} - set(cells)
                    if missing:
                        self.fail(lineno, f"table '{block.title}' lacks column(s) {', '.join(sorted(missing))}")
                continue
            if len(cells) != len(header):
                self.fail(lineno, f"expected {len(header)} columns as in the header, found {len(cells)}")
            rows.append(self._result(lineno, dict(zip(header, cells))))
        if header is None:
            self.fail(block.first_line, f"table '{block.title}' has no 'Name' header row")
        return rows

    def _result(self, lineno: int, cells: dict) -> dict:
        unit = cells["Units"]
        if unit not in (catalog.USEC, catalog.MIBS):
            self.fail(lineno, f"unknown unit {unit!r}")
        result = {"test": catalog.id_for_name(cells["Name"]), "name": cells["Name"], "unit": unit,
                  "better": catalog.better_for_unit(unit)}
        for column, key in _COLUMNS.items():
            if key in ("name", "unit"):
                continue
            result[key] = self._number(lineno, cells[column], column) if column in cells else None
        # Not in the text: sample counts, loop counts, timings, histograms.
        result.update(median=None, samples=None, ranks=None, measurements=None, rings=None,
                      iterations=None, wall_s=None, timed_out=None, histogram=None)
        return result

    def impact_rows(self, block: _Block) -> list[dict]:
        impact = []
        for lineno, cells in block.lines:
            if len(cells) != 3 or cells[0] in ("Name", "") or not cells[1].endswith("X"):
                continue  # the two header rows
            name = cells[0]
            impact.append({
                "test": catalog.id_for_name(name), "name": name,
                # Only the ratio of the printed values survives in the text.
                "avg": None, "p99": None,
                "avg_printed": self._number(lineno, cells[1], "Avg"),
                "p99_printed": self._number(lineno, cells[2], "99%"),
            })
        return impact


def _bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word in ("yes", "true", "on", "1"):
        return True
    if word in ("no", "false", "off", "0"):
        return False
    raise ValueError(raw)


def _list(raw: str) -> list:
    return [w for w in re.split(r"[,\s]+", raw.strip()) if w and w not in ("none", "-")]


def _congestors(raw: str) -> list:
    """`a2a:1, p2p_incast:2` (or bare ids, weight 1) -> config.congestors entries."""
    mix = []
    for item in _list(raw):
        m = re.fullmatch(r"([a-z0-9_]+)(?::(\d+))?", item)
        if not m:
            raise ValueError(item)
        kernel = m.group(1)
        mix.append({"id": kernel, "name": catalog.display_name(kernel),
                    "weight": int(m.group(2)) if m.group(2) else 1})
    return mix


_LOOPS = re.compile(r"(\d+) measurements x (\d+) rings x (\d+) iterations, (\d+) warm-up")
_SEED = re.compile(r"(\d+)(?:\s*\((.*)\))?")
_EMULATED = (
    (re.compile(r"emulated, (\d+) consecutive ranks per node"), "ranks_per_node"),
    (re.compile(r"emulated, (\d+) equal groups of ranks"), "nodes"),
)
_OFFICIAL = re.compile(r"official default configuration: (yes|no)(?:; differs: ([^)]*))?")


class _Settings:
    """Our preamble's `Settings` block, read into the document's fields.

    Each reader returns None when its line is absent or unreadable: a
    changed wording in the C program then costs a value, not the parse.
    """

    def __init__(self, heading: Optional[str], raw: dict):
        self.heading = heading or ""
        self.raw = raw

    def get(self, key: str, convert):
        if key not in self.raw:
            return None
        try:
            return convert(self.raw[key])
        except (ValueError, KeyError, AttributeError):
            return None

    def official(self) -> tuple:
        m = _OFFICIAL.search(self.heading)
        if not m:
            return None, None
        official = m.group(1) == "yes"
        return official, [] if official else _list(m.group(2) or "")

    def seed(self) -> tuple:
        m = self.get("seed", _SEED.fullmatch)
        if not m:
            return None, None
        how = (m.group(2) or "").lower()
        source = "time" if "time" in how else "option" if ("--seed" in how or "option" in how) else None
        return int(m.group(1)), source

    def loops(self) -> Optional[dict]:
        loops = {}
        for key, raw in self.raw.items():
            m = _LOOPS.fullmatch(raw.strip())
            if m and re.fullmatch(r"[a-z0-9_]+", key):
                loops[key] = dict(zip(("measurements", "rings", "iterations", "warmup"), map(int, m.groups())))
        return loops or None

    def emulated(self) -> tuple:
        """(known, value): real hosts are a known null, unlike a missing line."""
        raw = self.raw.get("nodes")
        if raw is None:
            return False, None
        for pattern, key in _EMULATED:
            m = pattern.fullmatch(raw.strip())
            if m:
                return True, {key: int(m.group(1))}
        return ("shared-memory" in raw), None

    def ppn(self) -> tuple:
        m = self.get("ppn", lambda v: re.match(r"(\d+)( \(uneven\))?", v))
        if not m:
            return None, None
        return (None if m.group(2) else int(m.group(1))), int(m.group(1))


def _first_number(raw: str) -> float:
    return float(raw.split()[0])


def parse_text(text: str, where: str) -> dict:
    """Parse GPCNeT text output into a results document (not yet validated)."""
    # Sweep and repeat runs print tables the one-run document cannot hold;
    # their JSON has everything, so send the user there.
    study = re.search(r"^\s*(congestor sweep = yes|repeat = [0-9]+ \(|Repetition 1 of [0-9]+)", text, re.M)
    if study:
        raise GpcnetError(f"{where}: text output of --congestor-sweep / --repeat runs is not parsed "
                          "(found '" + study.group(1).strip(" (") + "'); use the JSON the run wrote")
    p = _Parser(text, where)
    p.scan()
    kind, version = p.header
    program = "network_load_test" if kind == "NetworkLoad" else "network_test"
    if p.ranks is None:
        raise GpcnetError(f"{where}: no 'Test with N MPI ranks (M nodes)' line after the header")

    tables: dict[str, dict] = {}
    impact: list[dict] = []
    verbose = None

    def add(table_id: str, title: str, rows: list):
        tables.setdefault(table_id, {"id": table_id, "title": title, "rows": []})["rows"] += rows

    for block in p.blocks:
        if block.title == _KEY_RESULTS:
            impact = p.impact_rows(block)
            continue
        m = _VERBOSE_LOADED.match(block.title)
        if block.title in _TITLES:
            rows = p.result_rows(block)
            add(_TITLES[block.title], block.title, rows)
        elif m:
            # Verbose: one table per canary, the canary first and then the
            # congestors that ran beside it.
            rows = p.result_rows(block)
            if not rows:
                p.fail(block.first_line, f"table '{block.title}' has no rows")
            add("loaded", "Network Tests running with Congestion Tests", rows[:1])
            add(f"congestors_during:{rows[0]['test']}", block.title, rows[1:])
        else:
            continue  # a table this version does not know; leave it out
        verbose = any(r["min"] is not None for t in tables.values() for r in t["rows"])

    if "isolated" not in tables:
        raise GpcnetError(f"{where}: no 'Isolated Network Tests' table found")

    # The printed CI is recomputed from the printed values when the key
    # results table is missing (e.g. output cut short after the tables).
    if program == "network_load_test" and not impact and "loaded" in tables:
        for loaded in tables["loaded"]["rows"]:
            iso = next((r for r in tables["isolated"]["rows"] if r["test"] == loaded["test"]), None)
            if iso is None:
                continue
            ratio = {}
            for stat in ("avg", "p99"):
                a, b = iso[stat], loaded[stat]
                if a is None or b is None or min(a, b) <= 0:
                    ratio[stat] = None
                else:
                    ratio[stat] = round(b / a if loaded["better"] == "lower" else a / b, 1)
            impact.append({"test": loaded["test"], "name": loaded["name"], "avg": None, "p99": None,
                           "avg_printed": ratio["avg"], "p99_printed": ratio["p99"]})

    if program == "network_load_test":
        last = "Key Results" if impact and "loaded" in tables else None
        status = "complete" if last and not p.truncated else "aborted"
        reason = None if status == "complete" else \
            "text output ends before the 'Network Tests running with Congestion Tests - Key Results' table"
    else:
        status = "aborted" if p.truncated else "complete"
        reason = "text output ends inside a table" if p.truncated else None

    order = ["isolated", "isolated_congestors", "loaded"]
    ordered = [tables[k] for k in order if k in tables] + \
              [t for k, t in tables.items() if k not in order]

    st = _Settings(p.settings_heading, p.settings)
    official, non_default = st.official()
    seed, seed_source = st.seed()
    emulated_known, emulated = st.emulated()
    ppn_min, ppn_max = st.ppn()
    if ppn_max is None and p.ranks % p.nodes == 0:
        ppn_min = ppn_max = p.ranks // p.nodes  # reference text: even split is certain
    nics = st.get("nics_per_node", int)
    pport = st.get("pport", float)
    if pport is None and ppn_max is not None and nics:
        pport = ppn_max / nics
    loops = st.loops()
    doc = {
        "schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION,
        "program": program,
        # The version the text claims (1.3 for the reference), so that parsed
        # reference numbers stay distinguishable from ours.
        "version": version,
        "source": "text",
        "status": status, "abort_reason": reason,
        "started_at": None, "finished_at": None,
        "config": {
            "official_default": official,
            "non_default": non_default,
            "seed": seed,
            "seed_source": seed_source,
            "ring_seed": st.get("ring_seed", int),
            # The settings list the tests in run order; the reference's
            # tables are the only record of what it ran.
            "tests": list(loops) if loops else [r["test"] for r in tables["isolated"]["rows"]],
            "time_limit_s": st.get("time_limit", _first_number),
            "loops": loops,
            "verbose": verbose if verbose is not None else st.get("verbose", _bool),
            "nics_per_node": nics,
            "emulated_nodes": emulated,
            "output_dir": None,
            "json": st.get("json", str.strip),
        },
        "environment": {
            "mpi_library": st.get("mpi", str.strip),
            "mpi_standard": None,
            "ranks": p.ranks, "nodes": p.nodes, "hosts": None,
            "ppn_min": ppn_min, "ppn_max": ppn_max,
            "pport": pport,
            "hostname": None,
        },
        "tables": ordered,
        "phases": None,
    }
    if program == "network_load_test":
        doc["config"]["canary_fraction"] = st.get("canary_fraction", float)
        doc["config"]["congestors"] = st.get("congestors", _congestors)
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
