"""The gpcnet package as docs/gpcnet-tool.md describes it: one module per
concern, and no circle of imports between modules (counting the imports
inside functions, which hide a circle from Python but not from a reader:
testbed/faults.py once took the testbed's lock from testbed/cli.py, which
imports faults.py). Reads the sources only."""
import ast
from pathlib import Path

from graph_cycles import find_cycle

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "gpcnet"


def import_graph(root=PACKAGE, package="gpcnet"):
    """{module: set of modules of the package it imports}, as dotted names."""
    files = {f: ".".join((package,) + f.relative_to(root).with_suffix("").parts)
             for f in sorted(root.rglob("*.py"))}
    names = {m.removesuffix(".__init__") for m in files.values()}
    graph = {}
    for f, mod in files.items():
        mod = mod.removesuffix(".__init__")
        deps = graph.setdefault(mod, set())
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from gpcnet.study import runner` imports the module runner
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in names
                           else node.module for a in node.names]
            else:
                continue
            deps.update(t for t in targets if t in names and t != mod
                        and not mod.startswith(t + "."))  # a package's __init__ is not a peer
    return graph


def test_graph_counts_imports_inside_functions(tmp_path):
    (tmp_path / "cli.py").write_text("from pkg import faults\n\ndef lock():\n    pass\n")
    (tmp_path / "faults.py").write_text("def f():\n    from pkg.cli import lock\n    return lock()\n")
    (tmp_path / "lone.py").write_text("import os\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) == ["pkg.cli", "pkg.faults", "pkg.cli"]
    (tmp_path / "faults.py").write_text("import os\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) is None


def test_no_import_circle_in_the_package():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)
