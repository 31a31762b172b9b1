"""Counter sources behind one interface (gpcnet.study.sources): the
registry decides which source samples a launcher's runs, names every
source once (the study schema's enum is made from it), and a new source
is one module and one registry line."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.study import document, sources
from gpcnet.study.slingshot import FABRIC_ENV

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


class FakeLauncher:
    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("launcher,env,chosen", [
    ("testbed", {}, "testbed"),
    ("testbed", {FABRIC_ENV: "fabric.json"}, "testbed"),     # the testbed's own switches, whatever the env says
    ("local", {}, "local_host"),
    ("local", {FABRIC_ENV: "fabric.json"}, "local_host"),
    ("mpirun", {FABRIC_ENV: "fabric.json"}, "slingshot"),
    ("srun", {FABRIC_ENV: "fabric.json"}, "slingshot"),
    ("mpirun", {}, "infiniband"),
    ("srun", {FABRIC_ENV: ""}, "infiniband"),
])
def test_registry_chooses_the_source_of_a_launchers_runs(launcher, env, chosen):
    assert sources.choose(FakeLauncher(launcher), env).__name__ == f"gpcnet.study.sources.{chosen}"


def test_every_source_implements_the_interface():
    for mod in sources.modules():
        assert isinstance(mod.NAMES, dict), mod.__name__
        assert callable(mod.wanted) and callable(mod.sampler), mod.__name__
        for name, counters in mod.NAMES.items():
            assert isinstance(name, str) and len(counters) == 2, (mod.__name__, name)
    assert sources.modules()[-1].wanted(FakeLauncher("srun"), {}), "the last source wants every run"


def test_names_are_the_recorded_ones_and_the_schemas_enum():
    names = sources.names()
    assert set(names) == {"testbed-tc", "infiniband-fabric", "infiniband-switch", "infiniband-hca",
                          "slingshot", "none"}
    assert names["none"] == (None, None) and names["infiniband-fabric"] == ("PortXmitWait", "PortXmitData")
    source = document.schema()["$defs"]["run"]["properties"]["counters"]["properties"]["source"]
    assert source["enum"] == list(names)
    raw = json.loads((REPO / "python/gpcnet/data/study.schema.json").read_text())
    assert "enum" not in raw["$defs"]["run"]["properties"]["counters"]["properties"]["source"], \
        "the list is the registry's, never kept twice"


def test_a_source_named_nowhere_is_refused_in_one_line():
    sys.path.insert(0, str(REPO / "tests" / "security"))
    try:
        import study_docs
    finally:
        sys.path.pop(0)
    doc = study_docs.corun()
    document.validate(doc, "s.json")
    doc["runs"][0]["counters"]["source"] = "infiniband-magic"
    with pytest.raises(GpcnetError) as e:
        document.validate(doc, "s.json")
    assert str(e.value).startswith("s.json: invalid study: $.runs[0].counters.source: 'infiniband-magic'")
    assert "\n" not in str(e.value)


def test_two_sources_giving_one_name_two_meanings_are_refused(monkeypatch):
    from gpcnet.study.sources import testbed
    monkeypatch.setitem(testbed.NAMES, "infiniband-hca", ("overlimits", "packets"))
    with pytest.raises(ValueError, match="'infiniband-hca' named twice"):
        sources.names()


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}).stdout


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
def test_a_new_source_is_one_module_and_one_registry_line(tmp_path):
    tree = tmp_path / "python"
    shutil.copytree(REPO / "python", tree, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "before")
    pkg = tree / "gpcnet" / "study" / "sources"
    shutil.copy(HERE / "toy_source" / "toy.py", pkg / "toy.py")
    registry = (pkg / "__init__.py").read_text()
    assert registry.count('SOURCES = (\n') == 1
    (pkg / "__init__.py").write_text(registry.replace('SOURCES = (\n', 'SOURCES = (\n    "toy",\n', 1))
    _git(tmp_path, "add", "-A")
    changed = _git(tmp_path, "status", "--porcelain").splitlines()
    assert sorted(changed) == ["A  python/gpcnet/study/sources/toy.py",
                               "M  python/gpcnet/study/sources/__init__.py"]

    env = {**os.environ, "PYTHONPATH": str(tree), "GPCNET_TOY_READINGS": str(HERE / "toy_source" / "readings.jsonl")}
    p = subprocess.run([sys.executable, str(HERE / "toy_source" / "run_study_path.py"),
                        str(REPO / "tests" / "security")], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert (rec["source"], rec["stall_counter"], rec["flit_counter"]) == ("toy-fixture", "toy_stalls", "toy_flits")
    # toy/1 (the scope): 30/300 then 60/200 over one second each: 0.1 and 0.3, a mean of 0.2
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.2) and rec["errors"] == []
    assert [iv["t"] for iv in rec["series"]] == [1.0, 2.0]
    assert rec["tiles"]["ptile"]["stall_per_s"] == pytest.approx(2.5)   # toy/2: 5 then 0 stalls/s

