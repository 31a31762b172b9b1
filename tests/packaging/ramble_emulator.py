"""Load a Ramble application file and analyze a program's output with it,
without Ramble: the directives are recorded by a stand-in `ramble.appkit`,
and `analyze` follows Ramble's analyze step (ramble/application.py,
_analyze_experiments; ramble/success_criteria.py):

- the log is read line by line (newline kept) and every regex is applied
  with re.match, i.e. anchored at the start of the line;
- on each line the figure-of-merit contexts are tried first; a match makes
  `output_format` (filled from the context's groups) the active context of
  that kind until the next match;
- then every figure of merit: on a match whose groups include `group_name`,
  the name template is filled from the match's groups and the value is
  stored under each active context it lists (or the null context), a later
  match replacing an earlier one of the same name and context;
- the experiment succeeds when at least one figure of merit was found and
  every success criterion passed ("string": some line matches `match`, or
  no line matches `anti_match`; "application_function": the application's
  evaluate_success() returns true).
"""
import contextlib
import enum
import importlib.util
import re
import string
import sys
import types
from dataclasses import dataclass, field

NULL_CONTEXT = "null"
_DIRECTIVES = (
    "executable", "workload", "workload_variable", "environment_variable",
    "figure_of_merit", "figure_of_merit_context", "success_criteria",
    "software_spec", "required_package", "input_file", "maintainers", "tags",
)


@dataclass
class Application:
    cls: type
    module: types.ModuleType
    calls: list = field(default_factory=list)

    def of(self, kind):
        return [(args, kwargs) for k, args, kwargs in self.calls if k == kind]

    def foms(self):
        out = {}
        for args, kw in self.of("figure_of_merit"):
            out[args[0]] = {"regex": re.compile(kw["fom_regex"]), "group": kw["group_name"],
                            "units": kw.get("units", ""), "contexts": kw.get("contexts", [])}
        return out

    def contexts(self):
        return {args[0]: (re.compile(kw["regex"]), kw["output_format"])
                for args, kw in self.of("figure_of_merit_context")}


def load_application(path):
    """Import a Ramble application.py with a recording `ramble.appkit`."""
    calls = []
    appkit = types.ModuleType("ramble.appkit")

    def directive(kind):
        def record(*args, **kwargs):
            calls.append((kind, args, kwargs))
        return record

    for kind in _DIRECTIVES:
        setattr(appkit, kind, directive(kind))

    class OUTPUT_CAPTURE(enum.Enum):  # noqa: N801 (Ramble's name)
        STDOUT = ">>"
        STDERR = "2>>"
        ALL = "all"
        DEFAULT = ">>"

    class ExecutableApplication:
        pass

    appkit.OUTPUT_CAPTURE = OUTPUT_CAPTURE
    appkit.ExecutableApplication = ExecutableApplication
    appkit.when = lambda condition: contextlib.nullcontext()
    appkit.__all__ = list(_DIRECTIVES) + ["OUTPUT_CAPTURE", "ExecutableApplication", "when"]
    ramble = types.ModuleType("ramble")
    ramble.appkit = appkit
    saved = {name: sys.modules.get(name) for name in ("ramble", "ramble.appkit")}
    sys.modules.update({"ramble": ramble, "ramble.appkit": appkit})
    try:
        spec = importlib.util.spec_from_file_location("gpcnet_ramble_application", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, ExecutableApplication)
               and v is not ExecutableApplication]
    assert len(classes) == 1, classes
    return Application(classes[0], module, calls)


class _Expander:
    def __init__(self, variables):
        self.variables = variables

    def expand_var(self, template, extra_vars=None):
        return template.format_map({**self.variables, **(extra_vars or {})})


def analyze(app, log_path):
    """(fom_values, success): fom_values[context][name] = (value, units)."""
    contexts, foms = app.contexts(), app.foms()
    fom_values, active = {}, {}
    with open(log_path) as f:
        lines = f.readlines()
    for line in lines:
        for kind, (regex, fmt) in contexts.items():
            m = regex.match(line)
            if m:
                groups = {g[1]: m.group(g[1]) for g in string.Formatter().parse(fmt) if g[1]}
                active[kind] = fmt.format(**groups)
                fom_values.setdefault(active[kind], {})
        for template, conf in foms.items():
            m = conf["regex"].match(line)
            if m and conf["group"] in conf["regex"].groupindex:
                name = template.format_map(m.groupdict())
                for ctx in [active.get(c, NULL_CONTEXT) for c in conf["contexts"]] or [NULL_CONTEXT]:
                    fom_values.setdefault(ctx, {})[name] = (m.group(conf["group"]), conf["units"])
    instance = app.cls.__new__(app.cls)
    instance.expander = _Expander({"log_file": str(log_path)})
    passed = []
    for args, kw in app.of("success_criteria"):
        mode = kw["mode"]
        if mode == "string" and kw.get("match") is not None:
            passed.append(any(re.match(kw["match"], line) for line in lines))
        elif mode == "string":
            passed.append(not any(re.match(kw["anti_match"], line) for line in lines))
        elif mode == "application_function":
            passed.append(bool(instance.evaluate_success()))
        else:
            raise AssertionError(f"criterion mode {mode} not emulated")
    found = any(values for values in fom_values.values())
    return fom_values, found and all(passed)
