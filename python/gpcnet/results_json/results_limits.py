"""How much one results document may hold, checked by counting list
lengths before any item is looked at: every later step (the schema, the
document's own rules, compare, report, nodes) then walks a bounded number
of items.

The bounds are derived from the largest machines a run can be asked to
measure, with twice the headroom:

- ranks: the paper ran 5,575 nodes of 24 ranks, 133,800 ranks;
- nodes and NICs: today's largest systems have about 10,600 nodes of 8
  NICs, 84,800 NICs, and gpcnet-bind records the canaries per NIC of every
  node (docs/results-json.md#nics).

A default network_load_test on 10,600 nodes of 8 NICs with 133,800 ranks
(12 or 13 a node) and --node-probe 100, written by the programs' own
writer (tests/unit/results_doc_gen.c), is 381 MB of JSON: 12.9 million
values, 1.7 million lists and objects (reading.py), and of them

- per NIC: 6 canary entries (3 canaries, isolated and loaded) of 84,800
  NICs, 0.5 million objects of 7 values; the NIC probe, 84,800 objects;
  each node's NIC and rail per local rank (nics.nodes), 10,600 objects;
- per node: every phase's network counters (11 phases, 8 ports a node),
  5.7 million values; the node probe, 10,600 x 100 rounds x 2;
- per rank: the NICs and rails of nics.nodes, 267,600 values, and the
  congestor communicators' members (placement.congestor_groups), 107,300;
- not growing with the machine: 5,568 histogram bins (a row has at most
  2,562: 64 per octave over 40 octaves and the two open ends,
  src/suite/record/results_json.c), 22 rows and 10 tables.

--repeat N multiplies the tables, the phases, the per-NIC entries and
(with a placement per repetition) the per-rank lists by N, so at that size
only a few repetitions fit. At any size the 3 million bins hold several
hundred repetitions of a default load test (3,600 to 5,600 bins each) and
357 of a congestor sweep (8,400 bins, 1,600 other values each).

Reading the largest document accepted costs about three times its size in
memory (reading.py); the 381 MB one took 1.1 GB, and 17 to 43 s to parse
on the busy 2-core test machine (tests/security/test_machine_scale.py,
docs/scale.md).
"""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import bulk_lists
from gpcnet.text import text_safe

# The machine the bounds are sized to, and the headroom over it.
LARGEST_RANKS = 133_800
LARGEST_NODES = 10_600
LARGEST_NICS = LARGEST_NODES * 8  # 84,800
HEADROOM = 2

# Any one list: the per-NIC list of a canary entry or of the NIC probe is
# the longest a run writes (tables, nodes and host lists are shorter).
MAX_LIST_ITEMS = HEADROOM * LARGEST_NICS  # 169,600
# The bins of one row: a row has at most 2,562.
MAX_ROW_BINS = 100_000
# A table has a row per test or congestor: 22 kernels exist. A repetition
# has about 25 tables, and a burst sweep one per cell (at most 512): the
# figures draw a panel per row and per table, so these bound them too.
MAX_ROWS_PER_TABLE = 100
MAX_TABLES_PER_REPETITION = 1024
# All the long lists of one kind together (bulk_lists.py: each item is
# checked in about a microsecond, not by jsonschema).
MAX_TOTAL = {
    # every row of every table and repetition: a default load test has
    # 3,600 to 5,600 whatever the machine, a congestor sweep about 8,400 a
    # repetition at full loops
    "bins": 3_000_000,
    # the node probe: nodes x rounds, up to 377 rounds on 10,600 nodes
    # with the headroom (754 without)
    "partners": 8_000_000,
    "round_usec": 8_000_000,
    # every timeline point: at most 2,048 an entry, an entry per loaded test
    "count": 8_000_000,
    "mean": 8_000_000,
    "on": 8_000_000,
    # per NIC and canary entry: network_test's 8 canaries, or a load test
    # of 8 canaries isolated and loaded, on 84,800 NICs, twice
    "nic_results": HEADROOM * 8 * LARGEST_NICS,  # 1,356,800
    "nic_probe": MAX_LIST_ITEMS,
    # a node each: its local ranks' NICs and rails (133,800 ranks of 12 or
    # 13 a node), never more than one node list
    "nic_nodes": MAX_LIST_ITEMS,
    # network_test --all-pairs: two matrices of at most 1,024 x 1,024
    # cells (above 1,024 nodes only per-node means are written,
    # src/suite/network_test/all_pairs.h)
    "pair_row": 2 * 1024 * 1024,
}
# Every other value (the keys of objects included): what jsonschema checks
# one by one, 10 to 40 microseconds each. 1,000 repetitions of a
# congestor sweep have about 1.6 million (at 1,600 a repetition); the
# largest machine's document 0.16 million (placement.congestor_groups holds
# a name per congestor rank, 107,300).
MAX_OTHER_VALUES = 2_000_000
# The network counters of every phase (load test: per node, at most 8
# ports of 6 values; 11 phases on 10,600 nodes hold 5.7 million values):
# the schema leaves them open and no command reads them, so only the nodes
# of each phase are counted (MAX_LIST_ITEMS); the values they hold are
# bounded by reading.MAX_JSON_VALUES, never walked.

_NAMES = {"bins": "histogram bins", "partners": "node-probe partners", "round_usec": "node-probe rounds",
          "count": "timeline points", "mean": "timeline points", "on": "timeline points",
          "nic_results": "per-NIC canary results", "nic_probe": "NIC-probe entries",
          "nic_nodes": "per-node NIC lists", "pair_row": "all-pairs cells"}
_WHERE = {"bins": "$.tables[*].rows[*].histogram.bins", "partners": "$.node_probe.nodes[*].partners",
          "round_usec": "$.node_probe.nodes[*].round_usec", "count": "$.timeline[*].bins.count",
          "mean": "$.timeline[*].bins.mean", "on": "$.timeline[*].bins.on",
          "nic_results": "$.nics.canaries[*].nics", "nic_probe": "$.nics.probe.nics",
          "nic_nodes": "$.nics.nodes", "pair_row": "$.all_pairs.*[*]"}


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


def _is_counters(parent: str, key) -> bool:
    """Whether the value at (parent, key) is a phase's network counters."""
    return key == "counters" and parent.startswith("$.phases[")


def _check_the_rest(doc, where: str, long_lists: set) -> None:
    """Every list or object outside the long lists: each at most
    MAX_LIST_ITEMS, all of them together at most MAX_OTHER_VALUES. A
    phase's network counters are an object of at most MAX_LIST_ITEMS nodes,
    not walked."""
    total = 0
    stack = [(doc, "$", None)]
    while stack:
        value, parent, key = stack.pop()
        n = len(value)
        if n > MAX_LIST_ITEMS and (isinstance(value, list) or _is_counters(parent, key)):
            _refuse(where, _step(parent, key), f"{n} items", MAX_LIST_ITEMS)
        if _is_counters(parent, key):
            continue
        total += n
        if total > MAX_OTHER_VALUES:
            _refuse(where, "$", f"more than {MAX_OTHER_VALUES} values outside the histograms, "
                                "the node probe, the timeline, the per-NIC lists and the "
                                "network counters", MAX_OTHER_VALUES)
        if n:
            here = _step(parent, key)
            items = enumerate(value) if isinstance(value, list) else value.items()
            stack.extend((item, here, k) for k, item in items
                         if type(item) in (list, dict) and id(item) not in long_lists)
