"""The layout of src/ as docs/design.md describes it: no include circle
between modules (a module is a .c file with its .h), no circle of calls
between source files, no file over ~400 lines, and what set-up fixes in
the run (run_t's env) written by set-up only. Reads the sources only;
needs no build."""
import re
from pathlib import Path

from graph_cycles import find_cycle

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


def test_find_cycle_sees_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_include_circle_in_src():
    cycle = find_cycle(module_graph())
    assert cycle is None, "include circle: " + " -> ".join(cycle)


# A function defined outside static, and the comments and strings that may
# name one without calling it.
DEFINITION = re.compile(r"^(?!static\b)(?:[A-Za-z_]\w*[ *]+)+(\w+)\([^;{]*?\)\s*\{", re.M | re.S)
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', re.S)


def call_graph(root=SRC):
    """{.c file: set of other .c files defining a function it names}. A
    header shared by several files hides a circle from the include graph
    (load_phase.h once declared a function defined in load_suite.c, which
    called burst_sweep.c, which called it back); the calls do not."""
    code = {f: NOT_CODE.sub(" ", f.read_text()) for f in sorted(root.rglob("*.c"))}
    owner = {name: f for f, text in code.items() for name in DEFINITION.findall(text)}
    return {str(f.relative_to(root)): {str(owner[w].relative_to(root))
                                       for w in set(re.findall(r"\b\w+\b", text))
                                       if w in owner and owner[w] != f}
            for f, text in code.items()}


def test_call_graph_sees_a_circle_through_a_shared_header(tmp_path):
    (tmp_path / "shared.h").write_text("void one(void);\nvoid two(void);\n")
    (tmp_path / "a.c").write_text('#include "shared.h"\n/* two() */\nvoid one(void) { }\n'
                                  "static void helper(void) { two(); }\n")
    (tmp_path / "b.c").write_text('#include "shared.h"\nvoid two(void) { one(); }\n')
    assert find_cycle(call_graph(tmp_path)) == ["a.c", "b.c", "a.c"]
    (tmp_path / "a.c").write_text('#include "shared.h"\n/* two() */\nvoid one(void) { }\n')
    assert find_cycle(call_graph(tmp_path)) is None


def test_no_call_circle_in_src():
    cycle = find_cycle(call_graph())
    assert cycle is None, "circle of calls: " + " -> ".join(cycle)


def test_no_source_file_over_400_lines():
    long = {str(f.relative_to(SRC)): n for f in SRC.rglob("*.[ch]")
            if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, long


# The folders of src/suite (docs/design.md#layout): the options and the
# record are below the programs' own suites, and no program's suite
# includes another's.
PROGRAM_SUITES = ("suite/network_test", "suite/load_test", "suite/network_congestor")


def layering_breaks(graph):
    """(module, include) pairs that point up or across the folders."""
    breaks = []
    for mod, deps in graph.items():
        for dep in deps:
            lower = mod.startswith(("suite/options/", "suite/record/", "infra/", "canary/",
                                    "congestor/"))
            if lower and dep.startswith(PROGRAM_SUITES):
                breaks.append((mod, dep))
            for own in PROGRAM_SUITES:
                if dep.startswith(own + "/") and mod.startswith("suite/") and \
                        mod.startswith(PROGRAM_SUITES) and not mod.startswith(own + "/"):
                    breaks.append((mod, dep))
    return sorted(breaks)


def test_layering_sees_a_break():
    graph = {"suite/options/option_table": {"suite/load_test/load_suite"},
             "suite/load_test/load_phase": {"suite/network_congestor/congestor_suite"},
             "suite/load_test/load_suite": {"suite/options/option_table", "suite/run_plan"}}
    assert layering_breaks(graph) == [
        ("suite/load_test/load_phase", "suite/network_congestor/congestor_suite"),
        ("suite/options/option_table", "suite/load_test/load_suite")]


def test_options_and_record_include_no_program_suite():
    assert layering_breaks(module_graph()) == []


# What set-up fixes (run_t's env, src/suite/run_context.h) is written by
# set-up only: run_init and the end of set-up (run_lifecycle.c), and the
# document members the suites add before their first phase
# (run_add_json_section, record/run_record.c). A phase that wrote it would
# change what the rest of the run takes as fixed.
ENV_WRITE = re.compile(r"\brun(?:->|\.)env\.\w[\w.]*(?:\[[^\]]*\])?\s*(?:[-+*/|&]?=(?!=)|\+\+|--)"
                       r"|(?:\+\+|--)\s*run(?:->|\.)env\.")
ENV_WRITERS = {"suite/run_lifecycle.c", "suite/record/run_record.c"}


def env_writers(root=SRC):
    return sorted(str(f.relative_to(root)) for f in root.rglob("*.c")
                  if ENV_WRITE.search(NOT_CODE.sub(" ", f.read_text())))


def test_env_writes_are_seen(tmp_path):
    (tmp_path / "reads.c").write_text("if (run->env.rank == 0 && run->env.plan->n_tests <= 2)\n"
                                      "    x = run->env.nodes.names[run->env.size - 1];\n"
                                      '/* run->env.rank = 1 */ s = "run.env.size = 2";\n')
    assert env_writers(tmp_path) == []
    for i, write in enumerate(["run->env.rank = 1;", "run.env.setup_s -= 1.0;",
                               "run->env.json_sections[run->env.n_json_sections++] = s;",
                               "--run->env.size;", "run.env.nodes.names[0] = 0;"]):
        (tmp_path / f"w{i}.c").write_text(write + "\n")
    assert env_writers(tmp_path) == [f"w{i}.c" for i in range(5)]


def test_only_set_up_writes_the_env():
    assert set(env_writers()) <= ENV_WRITERS, sorted(set(env_writers()) - ENV_WRITERS)
