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
        if line.strip() == "Settings":
            self._in_settings = True
            return
        if not line.strip() or line.strip() == "Legend":
            self._in_settings = False
            return
        m = _SETTING.match(line)
        if m and self._in_settings:
            # Ours prints its settings as indented `key = value`; keys we do
            # not know are kept out of the document rather than guessed at.
            # (The legend uses `=` too, hence the section tracking.)
            self.settings[m.group(1).strip()] = m.group(2)

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


def _setting(settings: dict, convert, *names):
    """Value of the first of `names` present in the settings block, converted; else None."""
    for name in names:
        for key, raw in settings.items():
            if key.lower().replace(" ", "_") == name:
                try:
                    return convert(raw)
                except ValueError:
                    return None
    return None


def _bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word in ("yes", "true", "on", "1"):
        return True
    if word in ("no", "false", "off", "0"):
        return False
    raise ValueError(raw)


def _int(raw: str) -> int:
    return int(raw.split()[0])


def _float(raw: str) -> float:
    return float(raw.split()[0].rstrip("s"))


def _list(raw: str) -> list:
    return [w for w in re.split(r"[,\s]+", raw.strip()) if w and w not in ("none", "-")]


def _congestors(raw: str) -> list:
    """`a2a:1, p2p_incast:2` (or bare ids, weight 1) -> config.congestors entries."""
    mix = []
    for item in _list(raw.replace(", ", ",")):
        m = re.fullmatch(r"([a-z0-9_]+)(?:[:*=x](\d+))?", item)
        if not m:
            raise ValueError(item)
        kernel = m.group(1)
        mix.append({"id": kernel, "name": catalog.display_name(kernel),
                    "weight": int(m.group(2)) if m.group(2) else 1})
    return mix


def parse_text(text: str, where: str) -> dict:
    """Parse GPCNeT text output into a results document (not yet validated)."""
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

    s = p.settings
    nics = _setting(s, _int, "nics_per_node", "nics")
    ppn = p.ranks // p.nodes if p.nodes and p.ranks % p.nodes == 0 else None
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
            "official_default": _setting(s, _bool, "official_default"),
            "non_default": _setting(s, _list, "non_default"),
            "seed": _setting(s, _int, "seed"),
            "seed_source": _setting(s, lambda v: {"time": "time", "option": "option"}[v.strip()], "seed_source"),
            "ring_seed": _setting(s, _int, "ring_seed"),
            "tests": _setting(s, _list, "tests") or [r["test"] for r in tables["isolated"]["rows"]],
            "time_limit_s": _setting(s, _float, "time_limit_s", "time_limit"),
            "loops": None,
            "verbose": verbose,
            "nics_per_node": nics,
            "emulated_nodes": None,
            "output_dir": _setting(s, str.strip, "output_dir"),
            "json": None,
        },
        "environment": {
            "mpi_library": _setting(s, str.strip, "mpi_library", "mpi"),
            "mpi_standard": _setting(s, str.strip, "mpi_standard"),
            "ranks": p.ranks, "nodes": p.nodes, "hosts": None,
            "ppn_min": ppn, "ppn_max": ppn,
            "pport": ppn / nics if ppn and nics else None,
            "hostname": None,
        },
        "tables": ordered,
        "phases": None,
    }
    if program == "network_load_test":
        doc["config"]["canary_fraction"] = _setting(s, _float, "canary_fraction")
        doc["config"]["congestors"] = _setting(s, _congestors, "congestors", "congestor_mix")
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
    return doc
