"""Slurm topology.conf (tree plugin) reader: switches, their nodes and
children, the leaves each node hangs from and the pods above them.

Lines: `SwitchName=NAME [Nodes=HOSTLIST] [Switches=HOSTLIST] [LinkSpeed=N]`,
`#` comments, `\\` continuation. Every error names the file and line.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from gpcnet.errors import GpcnetError

KEYS = ("switchname", "nodes", "switches", "linkspeed")
# More than any machine has: a host list or topology naming more is a typo
# (n[0-99999999]) and is refused before anything is expanded.
MAX_NODES = 100_000
MAX_FILE_BYTES = 16 * 2**20
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+:-]{0,254}")


def shown(text: str, n: int = 40) -> str:
    """A piece of input quoted for a message: never more than n characters."""
    return repr(text if len(text) <= n else text[:n] + "...")


def check_name(name: str, what: str = "node") -> str:
    if not _NAME.fullmatch(name):
        raise ValueError(f"{what} name {shown(name)}: expected letters, digits and . _ + : - "
                         "(up to 255, starting with a letter or digit)")
    return name


def expand_hostlist(text: str) -> list:
    """Slurm host list: `n[01-03,7],gpu5` -> n01 n02 n03 n7 gpu5 (zero
    padding kept; several bracket groups multiply)."""
    out, depth, start = [], 0, 0
    parts = []
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError(f"nested '[' in {shown(text)}")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in {shown(text)}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '[' in {shown(text)}")
    parts.append(text[start:])
    planned, total = [], 0
    for part in parts:
        if not part:
            raise ValueError(f"empty name in {shown(text)}")
        choices = []
        for piece in re.split(r"(\[[^\]]*\])", part):
            if piece.startswith("["):
                choices.append(_ranges(piece[1:-1], text))
            elif piece:
                choices.append([(piece, piece, 0)])
        count = 1
        for c in choices:
            count *= sum(hi - lo + 1 if isinstance(lo, int) else 1 for lo, hi, _ in c)
        total += count
        if total > MAX_NODES:  # counted before anything is expanded
            raise ValueError(f"{shown(text)} names more than {MAX_NODES} nodes")
        planned.append(choices)
    for choices in planned:
        expanded = [[s for lo, hi, width in c for s in
                     ([lo] if isinstance(lo, str) else (str(v).zfill(width) for v in range(lo, hi + 1)))]
                    for c in choices]
        out.extend("".join(c) for c in itertools.product(*expanded))
    for name in out:
        check_name(name)
    return out


def _ranges(body: str, text: str) -> list:
    """(lo, hi, zero-padding width) for each item of a bracket."""
    items = []
    for item in body.split(","):
        m = re.fullmatch(r"(\d{1,18})(?:-(\d{1,18}))?", item.strip())
        if not m:
            raise ValueError(f"bad range {shown(item)} in {shown(text)}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise ValueError(f"descending range {shown(item)} in {shown(text)}")
        items.append((int(lo), int(hi), len(lo) if lo.startswith("0") else 0))
    return items


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


def parse(text: str, where: str = "topology.conf") -> Tree:
    switches: dict = {}
    logical = []
    pending, first = "", 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            first = no
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line:
            logical.append((first, line))
    if pending.strip():
        logical.append((first, pending.strip()))
    for no, line in logical:
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
        name = fields["switchname"]
        if name in switches:
            raise GpcnetError(f"{where}:{no}: switch {shown(name)} already defined on line "
                              f"{switches[name].line}")
        sw = Switch(name, no)
        try:
            check_name(name, "switch")
            sw.nodes = expand_hostlist(fields["nodes"]) if "nodes" in fields else []
            sw.children = expand_hostlist(fields["switches"]) if "switches" in fields else []
        except ValueError as e:
            raise GpcnetError(f"{where}:{no}: {e}") from None
        if "linkspeed" in fields and not fields["linkspeed"].isdigit():
            raise GpcnetError(f"{where}:{no}: LinkSpeed must be a number, got {shown(fields['linkspeed'])}")
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
                raise GpcnetError(f"{where}:{sw.line}: node {n!r} is already under switch "
                                  f"{owner[n]!r} (line {switches[owner[n]].line})")
            owner[n] = sw.name
            if len(owner) > MAX_NODES:
                raise GpcnetError(f"{where}:{sw.line}: more than {MAX_NODES} nodes")
    if not owner:
        raise GpcnetError(f"{where}: no switch has Nodes=")
    return Tree(switches)


def read(path: str) -> Tree:
    from gpcnet.load import read_text
    return parse(read_text(path, "topology.conf", MAX_FILE_BYTES), path)


def testbed_text(topo) -> str:
    """topology.conf of a `gpcnet testbed` fat-tree (its Topology object):
    leaves with their hosts, every spine above every leaf."""
    lines = ["# topology.conf of the gpcnet testbed (written by gpcnet study)"]
    leaves = [s for s in topo.switches if s not in topo.spines]
    for leaf in leaves:
        hosts = [h.name for h in topo.hosts if h.leaf == leaf]
        lines.append(f"SwitchName={leaf} Nodes={','.join(hosts)}")
    for spine in topo.spines:
        lines.append(f"SwitchName={spine} Switches={','.join(leaves)}")
    return "\n".join(lines) + "\n"
