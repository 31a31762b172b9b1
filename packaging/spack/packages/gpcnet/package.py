# GPCNeT's own Spack package (see docs/spack.md). It lives in the project's
# repository so that package and sources change together; Spack's builtin
# `gpcnet` package builds the reference's Makefile and has no variants.
import os
import subprocess

from spack.package import *

# packaging/spack/packages/gpcnet/package.py -> the clone this file is in.
_PROJECT_ROOT = os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
)


def _release_tags():
    """(tag, commit) of every release tag vX.Y[.Z] of the clone this package
    file lives in, so each release is a Spack version without editing this
    file. Empty when the file is not inside a git clone."""
    try:
        out = subprocess.run(
            [
                "git", "-C", _PROJECT_ROOT, "for-each-ref",
                "--format=%(refname:strip=2) %(objectname) %(*objectname)",
                "refs/tags/v[0-9]*",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    tags = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        # Annotated tags carry the commit in %(*objectname); light ones in %(objectname).
        tags.append((fields[0], fields[-1]))
    return tags


class Gpcnet(CMakePackage):
    """GPCNeT: Global Performance and Congestion Network Tests. Induces
    network congestion on an HPC system and measures its impact on latency-
    and bandwidth-sensitive traffic (network_test, network_load_test), with
    a complete JSON record of every run and an optional Python analysis tool
    (HTML report, figures, run comparison)."""

    # The clone that holds this file. Another clone or a mirror of it:
    # packages.yaml -> packages: gpcnet: package_attributes: git: <url>
    git = "file://" + _PROJECT_ROOT

    version("main", branch="main")
    for _tag, _commit in _release_tags():
        version(_tag[1:], tag=_tag, commit=_commit)

    variant(
        "python",
        default=False,
        description="Install the gpcnet Python analysis tool (HTML report, figures, compare)",
    )
    variant(
        "sanitize",
        default=False,
        description="Build with AddressSanitizer and UndefinedBehaviorSanitizer (GCC or Clang; "
        "for debugging, never for measurements)",
    )

    depends_on("c", type="build")
    depends_on("cmake@3.13:", type="build")
    depends_on("mpi@3:")

    with when("+python"):
        extends("python")
        depends_on("python@3.9:", type=("build", "run"))
        depends_on("py-pip", type="build")
        depends_on("py-setuptools@64:", type="build")
        depends_on("py-wheel", type="build")
        depends_on("py-numpy@1.20:", type="run")
        depends_on("py-matplotlib@3.5:", type="run")
        depends_on("py-jsonschema@4:", type="run")
        depends_on("py-jinja2@3:", type="run")
        depends_on("py-markupsafe@2:", type="run")

    def cmake_args(self):
        return [
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define_from_variant("GPCNET_SANITIZE", "sanitize"),
            # The C unit tests are built (and run by `make test`) only for
            # `spack install --test=root`.
            self.define("GPCNET_BUILD_TESTS", self.run_tests),
        ]

    @run_after("install")
    def install_python_tool(self):
        if not self.spec.satisfies("+python"):
            return
        python = self.spec["python"].command
        python(
            "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
            "--prefix=" + self.prefix,
            join_path(self.stage.source_path, "python"),
        )

    # `spack test run gpcnet`: small jobs on emulated nodes (every rank is a
    # node), so they run on a login node or a laptop as well as in a job.

    # The launcher of each MPI, most specific name first: where several MPIs
    # share a prefix (Debian's /usr), plain `mpirun` is whichever one the
    # system's alternatives chose, not necessarily the MPI of this build.
    _LAUNCHERS = {
        "openmpi": ("mpirun.openmpi", "mpiexec.openmpi", "mpirun", "mpiexec"),
        "mpich": ("mpiexec.mpich", "mpirun.mpich", "mpiexec.hydra", "mpiexec", "mpirun"),
    }

    def _mpirun(self):
        mpi = self.spec["mpi"]
        names = self._LAUNCHERS.get(mpi.name, ("mpirun", "mpiexec"))
        launcher = which(*[join_path(mpi.prefix.bin, n) for n in names])
        if launcher is None:
            raise SkipTest("no launcher (" + ", ".join(names) + ") in " + mpi.prefix.bin)
        args = []
        if mpi.name == "openmpi":
            # More ranks than cores; busy-polling ranks must yield.
            args = ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # Spack runs these tests in its own environment: as root, Open
            # MPI's launcher starts only when told that this is intended
            # (other MPIs ignore these variables).
            os.environ["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            os.environ["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        if self.spec.satisfies("+sanitize"):
            # Any undefined behaviour ends the run (and fails the test); leak
            # checks are off, as in the project's own sanitizer runs: the MPI
            # library never frees what MPI_Init allocates.
            os.environ["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
            os.environ["ASAN_OPTIONS"] = "detect_leaks=0"
        return launcher, args

    # Short loops as well as a short time limit: a measurement is never cut
    # by the time limit, and one of the default loops (30 rings of 200
    # iterations) on 10 oversubscribed ranks waits for the scheduler at
    # every hop. On a busy node (two CPU hogs beside the ranks on 2 cores)
    # `spack test run` of two builds took 408 s with them, 56 s with these.
    _SHORT = ("--time-limit", "2", "--measurements", "5",
              "--rings", "4", "--iterations", "20", "--warmup", "5")
    _SHORT_CONGESTORS = ("--congestor-measurements", "8", "--congestor-iterations", "8")

    def _run_emulated(self, program, ranks, out_dir, extra=()):
        launcher, args = self._mpirun()
        exe = join_path(self.prefix.bin, program)
        mkdirp(out_dir)
        output = launcher(
            *args, "-np", str(ranks), exe,
            "--emulate-nodes", "1", "--quiet", "--output-dir", out_dir,
            *self._SHORT, "--deadline", "300",
            *extra,
            output=str.split, error=str.split,
        )
        doc = join_path(out_dir, program + ".json")
        assert os.path.isfile(doc), program + " wrote no " + doc
        with open(doc) as f:
            import json

            record = json.load(f)
        assert record["status"] == "complete", "run status " + str(record["status"])
        assert record["environment"]["nodes"] == ranks
        return output, record

    def test_version(self):
        """network_test and network_load_test print their version"""
        for program in ("network_test", "network_load_test"):
            exe = which(join_path(self.prefix.bin, program))
            out = exe("--version", output=str.split, error=str.split)
            assert str(self.spec.version) in out or self.spec.satisfies("@main"), out

    def test_network_test_emulated(self):
        """network_test on 2 emulated nodes, short loops, complete JSON"""
        out, record = self._run_emulated("network_test", 2, "network_test_out")
        assert "Isolated Network Tests" in out
        rows = record["tables"][0]["rows"]
        assert len(rows) == 8 and all(r["avg"] is not None for r in rows)

    def test_network_load_test_emulated(self):
        """network_load_test on 10 emulated nodes, short loops, Congestion Impact in the JSON"""
        out, record = self._run_emulated(
            "network_load_test", 10, "network_load_test_out", self._SHORT_CONGESTORS
        )
        assert "Congestion Impact" in out
        assert [i["test"] for i in record["impact"]] == record["config"]["tests"]
        assert all(i["avg"] > 0 for i in record["impact"])

    def test_python_tool(self):
        """the gpcnet tool reads the load test's JSON (with +python)"""
        if not self.spec.satisfies("+python"):
            raise SkipTest("built without +python")
        _, record = self._run_emulated(
            "network_load_test", 10, "tool_input", self._SHORT_CONGESTORS
        )
        gpcnet = which(join_path(self.prefix.bin, "gpcnet"))
        doc = join_path("tool_input", "network_load_test.json")
        out = gpcnet("compare", doc, doc, output=str.split, error=str.split)
        # Every metric of a run compared with itself has the ratio 1.
        line = next(l for l in out.splitlines() if l.startswith("CI RR Two-sided Lat (8 B) Avg"))
        assert line.split()[-1] == "1.000", line
