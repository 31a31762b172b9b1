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


def expand_hostlist(text: str) -> list:
    """Slurm host list: `n[01-03,7],gpu5` -> n01 n02 n03 n7 gpu5 (zero
    padding kept; several bracket groups multiply)."""
    out, depth, start = [], 0, 0
    parts = []
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in {text!r}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '[' in {text!r}")
    parts.append(text[start:])
    for part in parts:
        if not part:
            raise ValueError(f"empty name in {text!r}")
        pieces = re.split(r"(\[[^\]]*\])", part)
        choices = []
        for piece in pieces:
            if piece.startswith("["):
                choices.append(_range_choices(piece[1:-1], text))
            elif piece:
                choices.append([piece])
        out.extend("".join(c) for c in itertools.product(*choices))
    return out


def _range_choices(body: str, text: str) -> list:
    names = []
    for item in body.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item.strip())
        if not m:
            raise ValueError(f"bad range {item!r} in {text!r}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise ValueError(f"descending range {item!r} in {text!r}")
        width = len(lo) if lo.startswith("0") else 0
        names.extend(str(v).zfill(width) for v in range(int(lo), int(hi) + 1))
    return names


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
                raise GpcnetError(f"{where}:{no}: expected KEY=VALUE, got {tok!r}")
            key, value = tok.split("=", 1)
            if key.lower() not in KEYS:
                raise GpcnetError(f"{where}:{no}: unknown key {key!r} "
                                  "(known: SwitchName, Nodes, Switches, LinkSpeed)")
            if not value:
                raise GpcnetError(f"{where}:{no}: {key} has no value")
            fields[key.lower()] = value
        if "switchname" not in fields:
            raise GpcnetError(f"{where}:{no}: line has no SwitchName=")
        name = fields["switchname"]
        if name in switches:
            raise GpcnetError(f"{where}:{no}: switch {name!r} already defined on line "
                              f"{switches[name].line}")
        sw = Switch(name, no)
        try:
            sw.nodes = expand_hostlist(fields["nodes"]) if "nodes" in fields else []
            sw.children = expand_hostlist(fields["switches"]) if "switches" in fields else []
        except ValueError as e:
            raise GpcnetError(f"{where}:{no}: {e}") from None
        if "linkspeed" in fields and not fields["linkspeed"].isdigit():
            raise GpcnetError(f"{where}:{no}: LinkSpeed must be a number, got {fields['linkspeed']!r}")
        switches[name] = sw
    if not switches:
        raise GpcnetError(f"{where}: no switches (expected lines like 'SwitchName=s0 Nodes=n[1-4]')")
    owner: dict = {}
    for sw in switches.values():
        for child in sw.children:
            if child not in switches:
                raise GpcnetError(f"{where}:{sw.line}: switch {sw.name!r} lists unknown switch {child!r}")
            switches[child].parents.append(sw.name)
        for n in sw.nodes:
            if n in owner:
                raise GpcnetError(f"{where}:{sw.line}: node {n!r} is already under switch "
                                  f"{owner[n]!r} (line {switches[owner[n]].line})")
            owner[n] = sw.name
    if not owner:
        raise GpcnetError(f"{where}: no switch has Nodes=")
    return Tree(switches)


def read(path: str) -> Tree:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise GpcnetError(f"{path}: no such file") from None
    except OSError as e:
        raise GpcnetError(f"{path}: cannot read: {e.strerror}") from None
    return parse(text, path)


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
