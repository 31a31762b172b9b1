"""The long lists of a results document, checked quickly.

Nearly all of a large results document is a few kinds of list with one
plain item per sample, round or NIC: histogram bins, the rounds of the
node probe, the points of a timeline, the canaries' per-NIC results and
the NIC probe. jsonschema checks an item in about 20
microseconds, so a document of a million bins took 20 s to load, twice
that to compare. Here each item of those lists is checked by a predicate
in well under a microsecond, and jsonschema then sees the document with
those lists emptied. An item the predicate refuses is checked by
jsonschema against the item's own schema, so the message is the schema's
with the item's path. The predicates are stricter than the schema, never
looser (tests/security/test_total_bounds.py checks every accepted item
against the schema), so nothing the schema refuses gets through.
"""

from __future__ import annotations

from functools import lru_cache

from jsonschema import Draft202012Validator

from gpcnet.results_json.schema import schema
from gpcnet.text import text_safe

_NUMBER = (int, float)


def _bin(b) -> bool:
    """[lower, upper, count]: two numbers >= 0 and a count >= 1."""
    if type(b) is not list or len(b) != 3:
        return False
    lower, upper, count = b
    return (type(lower) in _NUMBER and lower >= 0 and type(upper) in _NUMBER and upper >= 0
            and type(count) is int and count >= 1)


def _partner(x) -> bool:
    return x is None or (type(x) is int and x >= 0)


def _value(x) -> bool:  # $defs/value: a number >= 0 or null
    return x is None or (type(x) in _NUMBER and x >= 0)


def _count(x) -> bool:  # $defs/count
    return type(x) is int and x >= 0


def _mean(x) -> bool:
    return x is None or type(x) in _NUMBER


def _share(x) -> bool:
    return type(x) in _NUMBER and 0 <= x <= 1


def _node_and_nic(x) -> bool:
    return (x["node"] is None or type(x["node"]) is str) and type(x["nic"]) is str and \
        type(x["rail"]) is int and x["rail"] >= 0


_NIC_RESULT_KEYS = frozenset(("node", "nic", "rail", "ranks", "avg", "p99", "samples"))
_NIC_PROBE_KEYS = frozenset(("node", "nic", "rail", "usec"))


def _nic_result(x) -> bool:
    """One NIC of one node in a canary's per-NIC results ($defs/nic_group
    with node, nic and rail), exactly the keys the programs write."""
    return (type(x) is dict and x.keys() == _NIC_RESULT_KEYS and _node_and_nic(x)
            and type(x["ranks"]) is int and x["ranks"] >= 0 and _value(x["avg"]) and _value(x["p99"])
            and type(x["samples"]) is int and x["samples"] >= 0)


def _nic_probe(x) -> bool:
    return type(x) is dict and x.keys() == _NIC_PROBE_KEYS and _node_and_nic(x) and _value(x["usec"])


def _nic_or_none(x) -> bool:
    return x is None or type(x) is str


def _rail_or_none(x) -> bool:
    return x is None or (type(x) is int and x >= 0)


_NIC_NODE_KEYS = frozenset(("node", "nics", "rails"))


def _nic_node(x) -> bool:
    """One node's NIC and rail per local rank (nics.nodes)."""
    return (type(x) is dict and x.keys() == _NIC_NODE_KEYS and _nic_or_none(x["node"])
            and type(x["nics"]) is list and all(map(_nic_or_none, x["nics"]))
            and type(x["rails"]) is list and all(map(_rail_or_none, x["rails"])))


# The all-pairs matrices, lists of rows (pair_row).
PAIR_MATRICES = ("bandwidth_mib_s", "latency_usec")

# kind -> (JSON pointer of the list's schema, predicate of an item)
KINDS = {
    "bins": ("/$defs/histogram/properties/bins", _bin),
    "partners": ("/properties/node_probe/properties/nodes/items/properties/partners", _partner),
    "round_usec": ("/properties/node_probe/properties/nodes/items/properties/round_usec", _value),
    "count": ("/$defs/timeline/properties/bins/properties/count", _count),
    "mean": ("/$defs/timeline/properties/bins/properties/mean", _mean),
    "on": ("/$defs/timeline/properties/bins/properties/on", _share),
    # Per NIC (84,800 on the largest machines, results_limits.py): an
    # object of 4 or 7 values each, which jsonschema would walk one by one.
    "nic_results": ("/properties/nics/properties/canaries/items/properties/nics", _nic_result),
    "nic_probe": ("/properties/nics/properties/probe/properties/nics", _nic_probe),
    "nic_nodes": ("/properties/nics/properties/nodes", _nic_node),
    # A sender's row of an all-pairs matrix (up to 1,024 of 1,024 cells).
    "pair_row": ("/$defs/pair_row", _value),
}


def _list_schema(kind: str) -> dict:
    node = schema()
    for part in KINDS[kind][0].strip("/").split("/"):
        node = node[part]
    return node


@lru_cache(maxsize=None)
def item_validator(kind: str) -> Draft202012Validator:
    """The schema of one item of a `kind` list, with the document's $defs
    so that its references resolve."""
    return Draft202012Validator({"$defs": schema()["$defs"], **_list_schema(kind)["items"]})


def _dict(x, key):
    value = x.get(key) if isinstance(x, dict) else None
    return value if isinstance(value, dict) else None


def _list(x, key):
    value = x.get(key) if isinstance(x, dict) else None
    return value if isinstance(value, list) else None


_PATHS = {"bins": "$.tables[{}].rows[{}].histogram.bins", "partners": "$.node_probe.nodes[{}].partners",
          "round_usec": "$.node_probe.nodes[{}].round_usec", "count": "$.timeline[{}].bins.count",
          "mean": "$.timeline[{}].bins.mean", "on": "$.timeline[{}].bins.on",
          "nic_results": "$.nics.canaries[{}].nics", "nic_probe": "$.nics.probe.nics",
          "nic_nodes": "$.nics.nodes", "pair_row": "$.all_pairs.{}[{}]"}


def path_of(kind: str, where: tuple) -> str:
    """The JSON path of the list find() gave as (kind, where, items)."""
    return _PATHS[kind].format(*where)


def containers(doc):
    """(path, list) of the lists find() walks to reach the long lists, the
    outer ones first: their lengths bound its work, so they are checked
    before it runs."""
    for path, items in (("$.tables", _list(doc, "tables")),
                        ("$.node_probe.nodes", _list(_dict(doc, "node_probe"), "nodes")),
                        ("$.timeline", _list(doc, "timeline")),
                        ("$.nics.canaries", _list(_dict(doc, "nics"), "canaries")),
                        *((f"$.all_pairs.{key}", _list(_dict(doc, "all_pairs"), key)) for key in PAIR_MATRICES)):
        if items is not None:
            yield path, items
    for t, table in enumerate(_list(doc, "tables") or []):
        rows = _list(table, "rows")
        if rows is not None:
            yield f"$.tables[{t}].rows", rows


def find(doc) -> list:
    """(kind, where, list) of every long list of the document, found where
    the schema puts them (path_of(kind, where) is its path); anything of
    another type is left to the schema."""
    found = []
    for t, table in enumerate(_list(doc, "tables") or []):
        for r, row in enumerate(_list(table, "rows") or []):
            bins = _list(_dict(row, "histogram"), "bins")
            if bins is not None:
                found.append(("bins", (t, r), bins))
    for n, node in enumerate(_list(_dict(doc, "node_probe"), "nodes") or []):
        if isinstance(node, dict):
            for kind in ("partners", "round_usec"):
                items = node.get(kind)
                if isinstance(items, list):
                    found.append((kind, (n,), items))
    for e, entry in enumerate(_list(doc, "timeline") or []):
        bins = _dict(entry, "bins")
        for kind in ("count", "mean", "on"):
            items = _list(bins, kind)
            if items is not None:
                found.append((kind, (e,), items))
    nics = _dict(doc, "nics")
    for c, entry in enumerate(_list(nics, "canaries") or []):
        items = _list(entry, "nics")
        if items is not None:
            found.append(("nic_results", (c,), items))
    items = _list(_dict(nics, "probe"), "nics")
    if items is not None:
        found.append(("nic_probe", (), items))
    items = _list(nics, "nodes")
    if items is not None:
        found.append(("nic_nodes", (), items))
    for key in PAIR_MATRICES:
        for i, row in enumerate(_list(_dict(doc, "all_pairs"), key) or []):
            if isinstance(row, list):
                found.append(("pair_row", (key, i), row))
    return found


def _json_path(parts) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


# Items the schema is asked about per list: enough for the message.
_EXPLAINED = 3


def problems(kind: str, where: tuple, items: list) -> list:
    """What the schema says of this list and its items (maxItems, minItems
    and the items), the items first sifted by the predicate."""
    spec = _list_schema(kind)
    path = path_of(kind, where)
    out = []
    if "maxItems" in spec and len(items) > spec["maxItems"]:
        out.append(f"{path}: is too long ({len(items)} items, at most {spec['maxItems']})")
    if "minItems" in spec and len(items) < spec["minItems"]:
        out.append(f"{path}: is too short ({len(items)} items, at least {spec['minItems']})")
    ok = KINDS[kind][1]
    if all(map(ok, items)):  # the common case, without a Python loop
        return out
    explained = 0
    for i, item in enumerate(items):
        if ok(item):
            continue
        for error in item_validator(kind).iter_errors(item):
            out.append(f"{path}[{i}]{_json_path(error.absolute_path)}: {text_safe.shorten(error.message)}")
            explained += 1
        if explained >= _EXPLAINED:
            break
    return out


def thinned(doc):
    """(a copy of doc with every long list emptied, the problems of those
    lists). Only the containers on the way to a long list are copied."""
    found = find(doc)
    if not found:
        return doc, []
    issues = []
    for kind, where, items in found:
        issues += problems(kind, where, items)
    empty = {id(items) for _, _, items in found}

    def emptied(container, key):
        value = container.get(key)
        return [] if isinstance(value, list) and id(value) in empty else value

    thin = dict(doc)
    if isinstance(doc.get("tables"), list):
        thin["tables"] = [_thin_table(t, emptied) for t in doc["tables"]]
    probe = _dict(doc, "node_probe")
    if probe is not None and isinstance(probe.get("nodes"), list):
        thin["node_probe"] = dict(probe, nodes=[_thin_keys(n, ("partners", "round_usec"), emptied)
                                                for n in probe["nodes"]])
    if isinstance(doc.get("timeline"), list):
        thin["timeline"] = [_thin_timeline(e, emptied) for e in doc["timeline"]]
    nics = _dict(doc, "nics")
    if nics is not None:
        thin["nics"] = _thin_nics(nics, emptied)
    pairs = _dict(doc, "all_pairs")
    if pairs is not None:
        thin["all_pairs"] = dict(pairs, **{key: [emptied({"row": row}, "row") for row in pairs[key]]
                                           for key in PAIR_MATRICES if isinstance(pairs.get(key), list)})
    return thin, issues


def _thin_nics(nics, emptied):
    thin = _thin_keys(nics, ("nodes",), emptied)
    if isinstance(nics.get("canaries"), list):
        thin["canaries"] = [_thin_keys(c, ("nics",), emptied) for c in nics["canaries"]]
    if isinstance(nics.get("probe"), dict):
        thin["probe"] = _thin_keys(nics["probe"], ("nics",), emptied)
    return thin


def _thin_table(table, emptied):
    if not isinstance(table, dict) or not isinstance(table.get("rows"), list):
        return table
    rows = []
    for row in table["rows"]:
        hist = _dict(row, "histogram")
        if hist is not None and "bins" in hist:
            row = dict(row, histogram=dict(hist, bins=emptied(hist, "bins")))
        rows.append(row)
    return dict(table, rows=rows)


def _thin_keys(container, keys, emptied):
    if not isinstance(container, dict):
        return container
    thin = dict(container)
    for key in keys:
        if key in container:
            thin[key] = emptied(container, key)
    return thin


def _thin_timeline(entry, emptied):
    bins = _dict(entry, "bins")
    return entry if bins is None else dict(entry, bins=_thin_keys(bins, ("count", "mean", "on"), emptied))
