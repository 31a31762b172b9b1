"""The layout of src/ as docs/design.md describes it: no include circle
between modules (a module is a .c file with its .h), and no file over ~400
lines. Reads the sources only; needs no build."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAX_LINES = 400


def module_graph():
    """{module: set of modules it includes}, modules named dir/stem."""
    graph = {}
    for f in sorted(SRC.rglob("*.[ch]")):
        mod = str(f.relative_to(SRC).with_suffix(""))
        deps = graph.setdefault(mod, set())
        for inc in INCLUDE.findall(f.read_text()):
            dep = str(Path(inc).with_suffix(""))
            if dep != mod and (SRC / inc).exists():
                deps.add(dep)
    return graph


def find_cycle(graph):
    """One include circle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_find_cycle_sees_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_include_circle_in_src():
    cycle = find_cycle(module_graph())
    assert cycle is None, "include circle: " + " -> ".join(cycle)


def test_no_source_file_over_400_lines():
    long = {str(f.relative_to(SRC)): n for f in SRC.rglob("*.[ch]")
            if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, long
