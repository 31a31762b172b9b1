"""What importing gpcnet costs: the heavy optional dependencies load only
where they are used (docs/gpcnet-tool.md, Code layout). `gpcnet --help`
builds every command's parser, study's and testbed's included, and loads
none of them; the testbed's modules import without pyroute2, which only
building, reading or changing a testbed needs. An import moved to the
top of a module that pulls one in (study/runner.py's of study/resume.py
would bring jsonschema to every start) fails here. Each check runs in a
fresh interpreter, so what this session imported does not count."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
HEAVY = ("numpy", "scipy", "matplotlib", "jsonschema", "jinja2", "pyroute2")

LOADED = """
import json, sys
{body}
print(json.dumps(sorted(m for m in {heavy!r} if sys.modules.get(m) is not None)))
"""


def heavy_loaded(body: str, block=()) -> list:
    """The heavy modules loaded after `body` runs in a fresh interpreter
    whose path starts at this checkout's python/; the modules in `block`
    cannot be imported there (as on a host without them)."""
    blocker = "".join(f"sys.modules[{m!r}] = None\n" for m in block)
    code = LOADED.format(body=blocker + body, heavy=HEAVY)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={"PYTHONPATH": str(PYTHON_DIR), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.splitlines()[-1])


def test_the_check_sees_a_heavy_import():
    assert heavy_loaded("import jsonschema") == ["jsonschema"]
    assert heavy_loaded("from gpcnet.results_json import load") == ["jsonschema"]


def test_help_loads_no_heavy_dependency():
    body = ("import contextlib, io\nfrom gpcnet.cli import build_parser\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        build_parser().parse_args(['--help'])\n"
            "    except SystemExit:\n        pass\n")
    assert heavy_loaded(body) == []


@pytest.mark.parametrize("module", ["gpcnet.study.cli", "gpcnet.study.runner", "gpcnet.study.launch",
                                    "gpcnet.study.summary", "gpcnet.testbed.cli"])
def test_study_and_testbed_load_none(module):
    assert heavy_loaded(f"import {module}") == []


@pytest.mark.parametrize("module", ["gpcnet.testbed.cli", "gpcnet.testbed.netns", "gpcnet.testbed.counters",
                                    "gpcnet.testbed.faults", "gpcnet.testbed.teardown",
                                    "gpcnet.study.sources.testbed"])
def test_testbed_modules_import_without_pyroute2(module):
    assert heavy_loaded(f"import {module}", block=("pyroute2",)) == []
