"""Slurm topology.conf (tree plugin) reader: switches, their nodes and
children, the leaves each node hangs from and the pods above them.

Lines: `SwitchName=NAME [Nodes=HOSTLIST] [Switches=HOSTLIST] [LinkSpeed=N]`,
`#` comments, `\\` continuation. Every error names the file and line.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_text

KEYS = ("switchname", "nodes", "switches", "linkspeed")
# More than any machine has: a host list or topology naming more is a typo
# (n[0-99999999]) and is refused before anything is expanded.
MAX_NODES = 100_000
# A topology.conf names its switches, their nodes and the switches each
# lists: a machine of MAX_NODES nodes has a few thousand switches.
MAX_NAMES = 2 * MAX_NODES
MAX_FILE_BYTES = 16 * 2**20
# Both anchored at the start (\A), so even a search tries one position.
_NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._+:-]{0,254}")
_RANGE = re.compile(r"\A(\d{1,18})(?:-(\d{1,18}))?")


def shown(text: str, n: int = 40) -> str:
    """A piece of input quoted for a message: never more than n characters."""
    return repr(text if len(text) <= n else text[:n] + "...")


def check_name(name: str, what: str = "node") -> str:
    if not _NAME.fullmatch(name):
        raise ValueError(f"{what} name {shown(name)}: expected letters, digits and . _ + : - "
                         "(up to 255, starting with a letter or digit)")
    return name


# What shapes a host list: a whole bracket (its body skipped by the regex
# engine, not item by item in Python), a stray bracket or a comma. One scan
# of the text, never a slice of it, so a 16 MB line costs no copy.
_SHAPE = re.compile(r"\[[^\[\]]*\]|[\[\],]")
# A name is at most 255 characters: a part whose literals and brackets (one
# digit each at least) add up to more, or a bracket item longer than two
# 18-digit numbers, cannot make a valid name and is refused before
# anything is kept.
MAX_NAME = 255
MAX_ITEM = 40   # "0123-0456": two numbers of up to 18 digits


def _part_spans(text: str):
    """(start, end) of each comma-separated name of a host list, as they
    are found (commas inside brackets belong to the bracket); brackets
    balanced and not nested."""
    start = 0
    for m in _SHAPE.finditer(text):
        i = m.start()
        ch = text[i] if m.end() == i + 1 else "[...]"   # a whole bracket is not copied
        if ch == "[":   # not closed before the next '[', or never
            what = "nested '['" if text.find("]", i) >= 0 else "unbalanced '['"
            raise ValueError(f"{what} in {shown(text)}")
        if ch == "]":
            raise ValueError(f"unbalanced ']' in {shown(text)}")
        if ch == ",":
            yield start, i
            start = i + 1
    yield start, len(text)


def _plan_part(text: str, start: int, end: int, room: int) -> tuple:
    """(names, choices) of the part text[start:end]: its literals and the
    ranges of its brackets, counted item by item; stops as soon as the
    count passes `room` (names, > room, and None) so that a bracket of
    millions of items is never held whole. Its names have at least its
    literals' characters and one per bracket: more than MAX_NAME is
    refused before anything is kept."""
    choices, count, i, least = [], 1, start, 0
    while i < end:
        j = text.find("[", i, end)
        stop = end if j < 0 else j
        least += stop - i if j != i else 1
        if least > MAX_NAME:
            raise ValueError(f"node name of more than {MAX_NAME} characters in {shown(text)}")
        if j != i:
            literal = text[i:stop]
            choices.append([(literal, literal, 0)])
            i = stop
            continue
        k = text.index("]", j, end)
        items, size = _ranges(text, j + 1, k, room // count)
        if items is None:
            return room + 1, None
        choices.append(items)
        count *= size
        i = k + 1
    return count, choices


def _ranges(text: str, start: int, end: int, room: int) -> tuple:
    """(items, names) of the bracket body text[start:end]: (lo, hi,
    zero-padding width) for each item, and how many names they make;
    (None, names) as soon as they make more than `room`."""
    items, size, i = [], 0, start
    while True:
        comma = text.find(",", i, end)
        stop = end if comma < 0 else comma
        m = _RANGE.fullmatch(text[i:stop].strip()) if stop - i <= MAX_ITEM else None
        if not m:
            raise ValueError(f"bad range {shown(text[i:min(stop, i + MAX_ITEM + 1)])} in {shown(text)}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise ValueError(f"descending range {shown(text[i:stop].strip())} in {shown(text)}")
        items.append((int(lo), int(hi), len(lo) if lo.startswith("0") else 0))
        size += int(hi) - int(lo) + 1
        if size > room:
            return None, size
        if comma < 0:
            return items, size
        i = comma + 1


def plan_hostlist(text: str) -> tuple:
    """(how many names, plan) of a host list, without making the names:
    counted part by part and bracket item by bracket item, so a list
    naming more than MAX_NODES is refused before it is held whole, and a
    file of many lists can add up the counts before any is expanded."""
    planned, total = [], 0
    for start, end in _part_spans(text):
        if start == end:
            raise ValueError(f"empty name in {shown(text)}")
        count, choices = _plan_part(text, start, end, MAX_NODES - total)
        total += count
        if total > MAX_NODES:
            raise ValueError(f"{shown(text)} names more than {MAX_NODES} nodes")
        planned.append(choices)
    return total, planned


def expand_planned(planned: list) -> list:
    """The names of a plan_hostlist() plan, each checked."""
    out = []
    for choices in planned:
        expanded = [[s for lo, hi, width in c for s in
                     ([lo] if isinstance(lo, str) else (str(v).zfill(width) for v in range(lo, hi + 1)))]
                    for c in choices]
        out.extend("".join(c) for c in itertools.product(*expanded))
    for name in out:
        check_name(name)
    return out


def expand_hostlist(text: str) -> list:
    """Slurm host list: `n[01-03,7],gpu5` -> n01 n02 n03 n7 gpu5 (zero
    padding kept; several bracket groups multiply). At most MAX_NODES
    names, counted before any is made."""
    return expand_planned(plan_hostlist(text)[1])


@dataclass
class Switch:
    name: str
    line: int
    nodes: list = field(default_factory=list)
    children: list = field(default_factory=list)
    parents: list = field(default_factory=list)


@dataclass
class Tree:
    switches: dict            # name -> Switch, in file order

    @property
    def leaves(self) -> list:
        """Switches with nodes, in file order."""
        return [s for s in self.switches.values() if s.nodes]

    @property
    def nodes(self) -> list:
        return [n for leaf in self.leaves for n in leaf.nodes]

    def leaf_of(self) -> dict:
        return {n: leaf.name for leaf in self.leaves for n in leaf.nodes}

    def pod_of(self) -> dict:
        """Leaf -> its first parent (the pod or aggregation switch); a leaf
        without parent is its own pod."""
        return {leaf.name: (leaf.parents[0] if leaf.parents else leaf.name) for leaf in self.leaves}

    def uplinks(self, leaf: str) -> int:
        """Links from a leaf to the level above, as topology.conf tells them:
        one per parent switch."""
        return len(self.switches[leaf].parents)


def _logical_lines(text: str) -> list:
    """(first line number, text) of every logical line: comments dropped,
    `\\` continuations joined (through a list, so linear in the text)."""
    logical, pending, first = [], [], 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            first = no
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        line = " ".join(pending + [line]).strip()
        pending = []
        if line:
            logical.append((first, line))
    if pending and " ".join(pending).strip():
        logical.append((first, " ".join(pending).strip()))
    return logical


def _fields(where: str, no: int, line: str) -> dict:
    fields = {}
    for tok in line.split():
        if "=" not in tok:
            raise GpcnetError(f"{where}:{no}: expected KEY=VALUE, got {shown(tok)}")
        key, value = tok.split("=", 1)
        if key.lower() not in KEYS:
            raise GpcnetError(f"{where}:{no}: unknown key {shown(key)} "
                              "(known: SwitchName, Nodes, Switches, LinkSpeed)")
        if not value:
            raise GpcnetError(f"{where}:{no}: {key} has no value")
        fields[key.lower()] = value
    if "switchname" not in fields:
        raise GpcnetError(f"{where}:{no}: line has no SwitchName=")
    if "linkspeed" in fields and not fields["linkspeed"].isdigit():
        raise GpcnetError(f"{where}:{no}: LinkSpeed must be a number, got {shown(fields['linkspeed'])}")
    return fields


def _planned_lines(where: str, text: str) -> list:
    """(line, switch name, nodes plan, switches plan) of every line, with
    the names the whole file would produce counted first: at most MAX_NODES
    nodes and MAX_NAMES names in all (switches, their nodes, the switches
    they list), so that nothing is expanded for a file that would make
    millions (200 lines of n[0-99999])."""
    planned, nodes, names = [], 0, 0
    for no, line in _logical_lines(text):
        fields = _fields(where, no, line)
        try:
            name = check_name(fields["switchname"], "switch")
            node_count, node_plan = plan_hostlist(fields["nodes"]) if "nodes" in fields else (0, [])
            child_count, child_plan = plan_hostlist(fields["switches"]) if "switches" in fields else (0, [])
        except ValueError as e:
            raise GpcnetError(f"{where}:{no}: {e}") from None
        nodes += node_count
        names += 1 + node_count + child_count
        if nodes > MAX_NODES:
            raise GpcnetError(f"{where}:{no}: the file names more than {MAX_NODES} nodes "
                              "(counted over all its lines before any is expanded)")
        if names > MAX_NAMES:
            raise GpcnetError(f"{where}:{no}: the file names more than {MAX_NAMES} switches and nodes in all "
                              "(counted over all its lines before any is expanded)")
        planned.append((no, name, node_plan, child_plan))
    return planned


def parse(text: str, where: str = "topology.conf") -> Tree:
    switches: dict = {}
    for no, name, node_plan, child_plan in _planned_lines(where, text):
        if name in switches:
            raise GpcnetError(f"{where}:{no}: switch {shown(name)} already defined on line "
                              f"{switches[name].line}")
        sw = Switch(name, no)
        try:
            sw.nodes = expand_planned(node_plan)
            sw.children = expand_planned(child_plan)
        except ValueError as e:
            raise GpcnetError(f"{where}:{no}: {e}") from None
        switches[name] = sw
    if not switches:
        raise GpcnetError(f"{where}: no switches (expected lines like 'SwitchName=s0 Nodes=n[1-4]')")
    owner: dict = {}
    for sw in switches.values():
        for child in sw.children:
            if child not in switches:
                raise GpcnetError(f"{where}:{sw.line}: switch {shown(sw.name)} lists unknown switch {shown(child)}")
            switches[child].parents.append(sw.name)
        for n in sw.nodes:
            if n in owner:
                raise GpcnetError(f"{where}:{sw.line}: node {shown(n)} is already under switch "
                                  f"{shown(owner[n])} (line {switches[owner[n]].line})")
            owner[n] = sw.name
    if not owner:
        raise GpcnetError(f"{where}: no switch has Nodes=")
    return Tree(switches)


def read(path: str) -> Tree:
    return parse(read_text(path, "topology.conf", MAX_FILE_BYTES), path)


def testbed_text(topo) -> str:
    """topology.conf of a `gpcnet testbed` fat-tree (its Topology object):
    leaves with their hosts, every spine above every leaf; in a tree of
    more levels (fat-tree3) each switch above the leaves over the switches
    it is cabled to below it."""
    lines = ["# topology.conf of the gpcnet testbed (written by gpcnet study)"]
    leaves = [s for s in topo.switches if s not in topo.spines]
    for leaf in leaves:
        hosts = [h.name for h in topo.hosts if h.leaf == leaf]
        lines.append(f"SwitchName={leaf} Nodes={','.join(hosts)}")
    levels = (getattr(topo, "params", None) or {}).get("levels")
    for spine in topo.spines:
        below = leaves if not levels else [link.a.switch for link in topo.links
                                           if link.a.tier == "uplink" and link.b.switch == spine]
        lines.append(f"SwitchName={spine} Switches={','.join(below)}")
    return "\n".join(lines) + "\n"
