"""How much one results document may hold, checked by counting list
lengths before any item is looked at: every later step (the schema, the
document's own rules, compare, report, nodes) then walks a bounded number
of items.

The limits are far above what the C programs write. A row's histogram has
at most 2,562 bins (64 per octave over 40 octaves, and the two open ends;
src/suite/record/results_json.c), a default load test about 3,600 in all, a
congestor sweep about 8,400 per repetition at full loops; --repeat allows
1,000 repetitions and --node-probe 1,000 rounds; a machine has fewer than
100,000 nodes. And a file of theirs is at most 256 MiB, which at about 110
bytes a bin (each number on its own indented line) is 2.4 million bins.
"""

from __future__ import annotations

from gpcnet import bulk_lists, text_safe
from gpcnet.errors import GpcnetError

# Any one list: tables, nodes, the bins of one row. The same as the most
# nodes a host list may name (study/topology.py).
MAX_LIST_ITEMS = 100_000
MAX_ROW_BINS = 100_000
# A table has a row per test or congestor: 22 kernels exist. A repetition
# has about 25 tables, and a burst sweep one per cell (at most 512): the
# figures draw a panel per row and per table, so these bound them too.
MAX_ROWS_PER_TABLE = 100
MAX_TABLES_PER_REPETITION = 1024
# All the lists of one kind together.
MAX_TOTAL = {
    "bins": 3_000_000,         # every row of every table and repetition
    "partners": 8_000_000,     # every node of the probe: nodes x rounds
    "round_usec": 8_000_000,
    "count": 8_000_000,        # every timeline point
    "mean": 8_000_000,
    "on": 8_000_000,
}
# Every other value (the keys of objects included): what jsonschema checks
# one by one, 10 to 40 microseconds each. 1,000 repetitions of a
# congestor sweep have about 1.6 million (at 1,600 a repetition).
MAX_OTHER_VALUES = 2_000_000

_NAMES = {"bins": "histogram bins", "partners": "node-probe partners", "round_usec": "node-probe rounds",
          "count": "timeline points", "mean": "timeline points", "on": "timeline points"}
_WHERE = {"bins": "$.tables[*].rows[*].histogram.bins", "partners": "$.node_probe.nodes[*].partners",
          "round_usec": "$.node_probe.nodes[*].round_usec", "count": "$.timeline[*].bins.count",
          "mean": "$.timeline[*].bins.mean", "on": "$.timeline[*].bins.on"}


def _refuse(where: str, path: str, what: str, limit: int) -> None:
    raise GpcnetError(f"{where}: {path}: {what}, more than any run writes (limit {limit})")


def check(doc: dict, where: str) -> None:
    """Refuse a document over any limit; the cost is one step per list or
    object outside the long lists, one per long list."""
    for path, items in bulk_lists.containers(doc):
        if len(items) > MAX_LIST_ITEMS:
            _refuse(where, path, f"{len(items)} items", MAX_LIST_ITEMS)
        if path.endswith(".rows") and len(items) > MAX_ROWS_PER_TABLE:
            _refuse(where, path, f"{len(items)} rows", MAX_ROWS_PER_TABLE)
    _check_tables_per_repetition(doc, where)
    found = bulk_lists.find(doc)
    totals = dict.fromkeys(MAX_TOTAL, 0)
    for kind, at, items in found:
        n = len(items)
        if kind == "bins" and n > MAX_ROW_BINS:
            _refuse(where, bulk_lists.path_of(kind, at), f"{n} bins", MAX_ROW_BINS)
        if n > MAX_LIST_ITEMS:
            _refuse(where, bulk_lists.path_of(kind, at), f"{n} items", MAX_LIST_ITEMS)
        totals[kind] += n
        if totals[kind] > MAX_TOTAL[kind]:
            _refuse(where, _WHERE[kind], f"more than {MAX_TOTAL[kind]} {_NAMES[kind]} in all", MAX_TOTAL[kind])
    _check_the_rest(doc, where, {id(items) for _, _, items in found})


def _check_tables_per_repetition(doc: dict, where: str) -> None:
    tables = doc.get("tables")
    per_repetition: dict = {}
    for table in tables if isinstance(tables, list) else []:
        repetition = table.get("repetition", 1) if isinstance(table, dict) else None
        if type(repetition) is int:  # anything else is the schema's to refuse
            per_repetition[repetition] = per_repetition.get(repetition, 0) + 1
            if per_repetition[repetition] > MAX_TABLES_PER_REPETITION:
                _refuse(where, "$.tables", f"more than {MAX_TABLES_PER_REPETITION} tables in repetition "
                                           f"{text_safe.quote(repetition)}", MAX_TABLES_PER_REPETITION)


def _step(parent: str, key) -> str:
    """The JSON path of `key` under `parent`; a key from the file is quoted short."""
    if key is None:
        return parent
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if len(key) <= 40 and key.isidentifier() else f"{parent}[{text_safe.quote(key, 40)}]"


def _check_the_rest(doc, where: str, long_lists: set) -> None:
    """Every list or object outside the long lists: each at most
    MAX_LIST_ITEMS, all of them together at most MAX_OTHER_VALUES."""
    total = 0
    stack = [(doc, "$", None)]
    while stack:
        value, parent, key = stack.pop()
        n = len(value)
        if isinstance(value, list) and n > MAX_LIST_ITEMS:
            _refuse(where, _step(parent, key), f"{n} items", MAX_LIST_ITEMS)
        total += n
        if total > MAX_OTHER_VALUES:
            _refuse(where, "$", f"more than {MAX_OTHER_VALUES} values outside the histograms, "
                                "the node probe and the timeline", MAX_OTHER_VALUES)
        if n:
            here = _step(parent, key)
            items = enumerate(value) if isinstance(value, list) else value.items()
            stack.extend((item, here, k) for k, item in items
                         if type(item) in (list, dict) and id(item) not in long_lists)
