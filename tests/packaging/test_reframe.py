"""The ReFrame checks (packaging/reframe) run by a real ReFrame with its
local scheduler on emulated nodes, the way docs/reframe.md tells a user to.

ReFrame comes from PyPI (`reframe-hpc`, in the gpcnet test extra that
scripts/setup-python.sh installs). The programs are those of
$GPCNET_BUILD_DIR (default build/), as for the integration tests.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import mpi_harness  # noqa: E402

CHECK = REPO / "packaging" / "reframe" / "gpcnet_check.py"
CONFIG = REPO / "packaging" / "reframe" / "config" / "local.py"
# pip puts the command beside this Python's other scripts, which need not
# be on PATH (e.g. a pyenv version before its shims are rehashed).
REFRAME = shutil.which("reframe") or shutil.which("reframe", path=sysconfig.get_path("scripts"))
if REFRAME is None:
    pytest.fail("reframe is not installed: run scripts/setup-python.sh "
                "(the gpcnet test extra installs reframe-hpc)", pytrace=False)


def reframe(workdir, *args, timeout=600):
    for name in ("network_test", "network_load_test"):
        if not mpi_harness.binary(name).exists():
            pytest.fail(f"{mpi_harness.binary(name)} is not built: run scripts/test.sh")
    env = mpi_harness.mpi_env({
        # Emulated nodes: more ranks than cores on this one host.
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        "RFM_REPORT_FILE": str(workdir / "report.json"),
    })
    cmd = [REFRAME, "-C", CONFIG, "--prefix", workdir,
           "-S", "emulate_nodes=true", "-S", "quick=true",
           "-S", f"bin_dir={mpi_harness.build_dir().resolve()}", *args, "-r"]
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=workdir, stdin=subprocess.DEVNULL)
    report = None
    if (workdir / "report.json").exists():
        report = json.loads((workdir / "report.json").read_text())
    return p, report


def cases_of(report):
    return [tc for run in report["runs"] for tc in run["testcases"]]


def perfvars(tc):
    """{FOM name: (value, unit)} of a test case in ReFrame's JSON report,
    whose keys are <system>:<partition>:<name>."""
    return {key.split(":")[-1]: (v[0], v[4]) for key, v in tc["perfvalues"].items()}


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory):
    """network_test at the three PPN levels (1, mid=2, all=4 cores) on 2
    emulated nodes and network_load_test at PPN 1 on 10."""
    work = tmp_path_factory.mktemp("reframe")
    p, report = reframe(work, "-c", CHECK, "-S", "cores_per_node=4", "-S", "mid_ppn=2",
                        "-S", "GpcnetNetworkTest.num_nodes=2",
                        "-S", "GpcnetNetworkLoadTest.num_nodes=10",
                        "-n", "GpcnetNetworkTest|GpcnetNetworkLoadTest%ppn_level=one")
    return work, p, report


def test_checks_pass_on_emulated_nodes(suite_run):
    work, p, report = suite_run
    assert p.returncode == 0, p.stdout[-5000:] + p.stderr[-3000:]
    assert "Ran 4/4 test case(s)" in p.stdout, p.stdout[-3000:]
    cases = {(tc["name"].split()[0], tc["ppn_level"]): tc
             for tc in cases_of(report)}
    assert set(cases) == {("GpcnetNetworkTest", "one"), ("GpcnetNetworkTest", "mid"),
                          ("GpcnetNetworkTest", "all"), ("GpcnetNetworkLoadTest", "one")}
    assert all(tc["result"] == "pass" for tc in cases.values())


def test_figures_of_merit_are_the_json_values(suite_run):
    """Every FOM equals the unrounded value at its JSON path, and each PPN
    level really ran at its PPN."""
    work, p, report = suite_run
    assert report is not None, p.stdout[-3000:]
    want_ppn = {"one": 1, "mid": 2, "all": 4}
    for tc in cases_of(report):
        program = "network_load_test" if "Load" in tc["name"] else "network_test"
        doc = json.loads((Path(tc["outputdir"]) / f"{program}.json").read_text())
        assert doc["environment"]["ppn_max"] == want_ppn[tc["ppn_level"]]
        expected = {}
        for table in doc["tables"]:
            if table["id"] in ("isolated", "loaded"):
                for row in table["rows"]:
                    for key in ("avg", "p99"):
                        expected[f"{table['id']}_{row['test']}_{key}"] = (row[key], row["unit"])
        for row in doc["impact"]:
            for key in ("avg", "p99"):
                expected[f"impact_{row['test']}_{key}"] = (row[key], "x")
        got = perfvars(tc)
        assert got.keys() == expected.keys()
        for name, (value, unit) in expected.items():
            assert got[name][1] == unit
            assert got[name][0] == pytest.approx(value, rel=1e-12), name
        if program == "network_load_test":
            assert len(doc["impact"]) == 3 and "impact_rr_two_sided_lat_p99" in got


def test_reference_names_are_real_figures_of_merit(suite_run):
    """The per-system references name FOMs the checks produce (a misspelt
    reference would silently judge nothing)."""
    work, p, report = suite_run
    sys.path.insert(0, str(CHECK.parent))
    try:
        import gpcnet_check
    finally:
        sys.path.remove(str(CHECK.parent))
    produced = {name for tc in cases_of(report) if "Load" in tc["name"]
                for name in perfvars(tc)}
    for level in ("one", "mid", "all"):
        for system, refs in gpcnet_check.REFERENCES["network_load_test"][level].items():
            assert ":" in system
            assert set(refs) <= produced, set(refs) - produced
            for value, low, high, unit in refs.values():
                assert value > 0 and unit in ("usec", "MiB/s/rank", "x")
                assert (low is None) != (high is None)


def test_reference_out_of_tolerance_fails(tmp_path):
    """A reference the run cannot meet makes ReFrame fail the check."""
    (tmp_path / "strict_check.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(CHECK.parent)!r})\n"
        "import reframe as rfm\n"
        "from reframe.core.builtins import run_before\n"
        "from gpcnet_check import GpcnetNetworkTest\n\n"
        "@rfm.simple_test\n"
        "class StrictGpcnet(GpcnetNetworkTest):\n"
        "    @run_before('performance')\n"
        "    def strict_reference(self):\n"
        "        self.reference = {'gpcnet_local:default': {\n"
        "            'isolated_rr_two_sided_lat_avg': (1e-6, None, 0.1, 'usec')}}\n")
    p, report = reframe(tmp_path, "-c", tmp_path / "strict_check.py",
                        "-S", "num_nodes=2", "-n", "StrictGpcnet%ppn_level=one")
    assert p.returncode != 0
    tc = cases_of(report)[0]
    assert tc["result"] == "fail" and tc["fail_phase"] == "performance", tc
    assert "isolated_rr_two_sided_lat_avg" in tc["fail_reason"]


def test_failed_run_fails_sanity(tmp_path):
    """Too few nodes: the program refuses, writes no JSON, the check fails."""
    p, report = reframe(tmp_path, "-c", CHECK, "-S", "num_nodes=3",
                        "-n", "GpcnetNetworkLoadTest%ppn_level=one")
    assert p.returncode != 0
    tc = cases_of(report)[0]
    assert tc["result"] == "fail" and tc["fail_phase"] == "sanity", tc
