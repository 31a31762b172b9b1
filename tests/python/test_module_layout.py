"""The gpcnet package as docs/gpcnet-tool.md describes it: one module per
concern, and no circle of imports between modules (counting the imports
inside functions, which hide a circle from Python but not from a reader:
testbed/faults.py once took the testbed's lock from testbed/cli.py, which
imports faults.py). The same holds between the subpackages taken whole
(study/, testbed/, report/, ...): testbed/counters.py once borrowed the
study's sampler while study/launch.py started the testbed's launcher, a
circle of packages that no two modules closed. No file over ~400 lines
(as for src/, tests/integration/test_source_layout.py), and no import
inside a function unless a `# deferred: why` comment there says why (a
heavy optional dependency deferred so that `gpcnet --help` stays fast or
gpcnet imports without it, or a circle of imports at load time). Reads
the sources only."""
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
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    # `from ..x import y` in gpcnet/study/launch.py names gpcnet.x
                    here = mod.split(".") if f.name == "__init__.py" else mod.split(".")[:-1]
                    up = here[:len(here) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                # `from gpcnet.study import runner` imports the module runner
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in names
                           else base for a in node.names]
            else:
                continue
            deps.update(t for t in targets if t in names and t != mod
                        and not mod.startswith(t + "."))  # a package's __init__ is not a peer
    return graph


def package_graph(graph, package="gpcnet"):
    """The module graph with each subpackage taken as one node (a module
    at the top of the package stays a node of its own): {node: set of
    nodes it imports}, an import inside a subpackage left out."""
    def node(mod):
        parts = mod.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 or mod in subpackages else mod
    subpackages = {m.rsplit(".", 1)[0] for m in graph if m.count(".") >= 2}
    out = {}
    for mod, deps in graph.items():
        out.setdefault(node(mod), set()).update(node(d) for d in deps if node(d) != node(mod))
    return out


def test_graph_counts_imports_inside_functions(tmp_path):
    (tmp_path / "cli.py").write_text("from pkg import faults\n\ndef lock():\n    pass\n")
    (tmp_path / "faults.py").write_text("def f():\n    from pkg.cli import lock\n    return lock()\n")
    (tmp_path / "lone.py").write_text("import os\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) == ["pkg.cli", "pkg.faults", "pkg.cli"]
    (tmp_path / "faults.py").write_text("import os\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) is None
    # Relative imports count too, from a module and from a package's __init__.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("from .deep import x\n")
    (tmp_path / "sub" / "deep.py").write_text("def x():\n    from .. import cli\n")
    (tmp_path / "cli.py").write_text("def f():\n    from .sub import deep\n")
    assert import_graph(tmp_path, "pkg")["pkg.sub"] == {"pkg.sub.deep"}
    assert find_cycle(import_graph(tmp_path, "pkg")) == ["pkg.cli", "pkg.sub.deep", "pkg.cli"]


def test_no_import_circle_in_the_package():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_package_graph_sees_a_circle_no_two_modules_close(tmp_path):
    # study.launch -> testbed.launch and testbed.counters -> study.sampling:
    # no module circle, but the two packages need each other.
    for sub, files in {"study": {"launch": "def go():\n    from pkg.testbed import launch\n",
                                 "sampling": "import os\n"},
                       "testbed": {"launch": "import os\n",
                                   "counters": "def s():\n    from pkg.study import sampling\n"}}.items():
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "__init__.py").write_text("")
        for name, text in files.items():
            (tmp_path / sub / f"{name}.py").write_text(text)
    (tmp_path / "shared.py").write_text("import os\n")
    modules = import_graph(tmp_path, "pkg")
    assert find_cycle(modules) is None
    assert find_cycle(package_graph(modules)) == ["pkg.study", "pkg.testbed", "pkg.study"]
    # The shared piece moved to a module both import: no circle left.
    (tmp_path / "testbed" / "counters.py").write_text("def s():\n    from pkg import shared\n")
    assert find_cycle(package_graph(import_graph(tmp_path, "pkg"))) is None


def test_no_import_circle_between_subpackages():
    cycle = find_cycle(package_graph(import_graph()))
    assert cycle is None, "import circle between packages: " + " -> ".join(cycle)


MAX_LINES = 400


def long_files(root=PACKAGE):
    """{file: line count} of each Python file over MAX_LINES lines."""
    return {str(f.relative_to(root)): n for f in sorted(root.rglob("*.py"))
            if (n := len(f.read_text().splitlines())) > MAX_LINES}


def _comment_above(lines, at) -> str:
    """The comment lines right above line `at` (1-based), joined."""
    above = []
    while at >= 2 and lines[at - 2].strip().startswith("#"):
        above.insert(0, lines[at - 2].strip())
        at -= 1
    return " ".join(above)


def unexplained_local_imports(root=PACKAGE):
    """["file:line", ...] of each import inside a function whose line, or
    the comment right above it, does not say "deferred" (and why). A run of
    imports shares the comment above the first of them."""
    found = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root)
        text = f.read_text()
        lines = text.splitlines()
        functions = [n for n in ast.walk(ast.parse(text, str(f)))
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        imports = {n.lineno for fn in functions for n in ast.walk(fn)
                   if isinstance(n, (ast.Import, ast.ImportFrom))}
        for line in sorted(imports):
            at = line   # 1-based; walk up through the run of imports it opens
            while "# deferred" not in lines[at - 1] and at - 1 in imports:
                at -= 1
            if "# deferred" not in lines[at - 1] and "# deferred" not in _comment_above(lines, at):
                found.append(f"{rel}:{line}")
    return found


def test_line_limit_sees_a_long_file(tmp_path):
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    assert long_files(tmp_path) == {}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_files(tmp_path) == {"sub/long.py": MAX_LINES + 1}


def test_no_python_file_over_400_lines():
    long = long_files()
    assert not long, f"split these by concern (docs/gpcnet-tool.md, Code layout): {long}"


def test_local_import_check_needs_a_deferred_comment(tmp_path):
    (tmp_path / "top.py").write_text("import os\n\ndef f():\n    return os\n")
    (tmp_path / "bare.py").write_text("def f():\n    import json\n    return json\n")
    (tmp_path / "said.py").write_text(
        "def f():\n    # deferred: heavy\n    import json\n    import csv\n    return json, csv\n"
        "def g():\n    import io  # deferred: heavy\n    return io\n"
        "def h():\n    # deferred, as in f: a comment of two\n    # lines\n    import re\n")
    (tmp_path / "nested.py").write_text("class A:\n    def m(self):\n        x = 1\n        from os import path\n")
    # A comment that does not say why the import waits is not enough.
    (tmp_path / "other.py").write_text("def f():\n    # the parser\n    import argparse\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.py").write_text("def f():\n    import json\n")
    assert unexplained_local_imports(tmp_path) == ["bare.py:2", "nested.py:4", "other.py:3",
                                                   "sub/m.py:2"]


def test_every_import_inside_a_function_says_why():
    # The whole package, study/ and testbed/ included.
    bare = unexplained_local_imports()
    assert not bare, ("import at the top of the module, or say in a `# deferred: why` comment "
                      f"why it waits (a heavy optional dependency, a circle at load time): {bare}")
