#!/usr/bin/env bash
# The test suite, in two tiers (docs/reliability.md#test-tiers):
#
#   bash scripts/test.sh           the whole suite (what CI runs)
#   bash scripts/test.sh --quick   C unit tests, the gpcnet Python tool (no
#                                  browser), a representative Open MPI
#                                  integration subset, the security checks and
#                                  the docs checks that need no testbed
#
# Both install the gpcnet tool of this checkout into build-venv/, a venv of
# their own beside the build, never into your Python (scripts/venv-lib.sh).
#
# The whole suite: C unit tests (ctest), MPI integration tests on emulated
# nodes (Open MPI), the gpcnet Python tool's tests (with a real headless
# browser), the testbed, packaging, studies, every runnable example of
# README.md and docs/ as written (tests/docs), and beside them, from the
# start, scripts/test-reliability.sh: under MPICH and on the ASan+UBSan
# Open MPI build the tests of what differs between builds (start-up,
# one-sided windows, signals and faults, the catalogue), SimGrid, valgrind
# and a short fuzz run (in a cpu cgroup of its own where one can be made;
# its output printed at the end).
# Installs what is missing first (Debian packages through apt-get, with sudo
# when not root): a compiler, CMake, Open MPI; and in a virtual environment
# of its own, build-venv/ beside the build (scripts/venv-lib.sh: made from
# the first python3 on PATH, reused by later runs), the gpcnet tool of this
# checkout, editable, with pytest, pytest-timeout, pytest-xdist, Hypothesis
# and ReFrame (the Python tool's tests run on 2 workers). Every stage runs
# with that venv's bin first on PATH (python3, gpcnet, pytest); the user's
# own Python and its gpcnet are never installed into. For the whole suite
# also headless Chromium, python3-venv (as root, tests/docs makes a venv of
# Debian's Python with the tool's dependencies for its unprivileged user,
# /var/cache/gpcnet-tests), iproute2, Slurm, munge and the testbed's MPICH
# (PyPI, under /opt/gpcnet-mpich), LAMMPS, HPCC, GROMACS and hypre,
# Debian's MPICH, SimGrid, clang and valgrind. --quick installs only the
# first group.
# Each stage prints its time; the last line is "N passed, M failed".
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (--quick, or nothing for the whole suite)" >&2; exit 2 ;;
esac
t_suite=$SECONDS
setup_failed() { echo "setup failed: $1"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/setup.sh || setup_failed "scripts/setup.sh"
# The tests' own Python, never the user's (issue 55): see scripts/venv-lib.sh.
. scripts/venv-lib.sh
test_venv_ready "$repo" || setup_failed "the test venv $repo/build-venv"
test_venv_use "$repo"
# Chromium, Debian's venv module, the testbed (its Python package goes
# into the test venv, first on PATH now).
if [ "$quick" -eq 0 ]; then
    bash scripts/setup-python.sh --no-tool || setup_failed "scripts/setup-python.sh --no-tool"
fi

passed=0
failed=0
. scripts/stage-lib.sh
stage_failed=0
stage_result() { # name, log file, exit status, seconds: count and report a stage
    local p f
    read -r p f < <(stage_counts "$2")   # the stage's summary line
    passed=$((passed + p))
    failed=$((failed + f))
    echo "=== $1: $4 s"
    if [ "$3" -ne 0 ]; then
        echo "=== $1: FAILED (exit $3)"
        stage_failed=1
        # A stage that failed without a failed test counted (it died
        # before its summary, or only its exit said so) still counts.
        [ "$f" -gt 0 ] || failed=$((failed + 1))
    fi
}
run_stage() { # name, command...
    local name="$1"; shift
    local log t=$SECONDS; log="$(mktemp)"
    echo "=== $name"
    "$@" 2>&1 | tee "$log"
    stage_result "$name" "$log" "${PIPESTATUS[0]}" $((SECONDS - t))
    rm -f "$log"
}

# JUnit files of each pytest stage: the slowest cases are listed at the end.
logs="$repo/build-tests"
rm -rf "$logs"; mkdir -p "$logs"
pt() { # stage label, pytest arguments...
    local label="$1"; shift
    python3 -m pytest -q --junitxml="$logs/$label.xml" "$@"
}

export GPCNET_BUILD_DIR="$repo/build"
build_and_unit() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null || return 1
    cmake --build build -j"$(nproc)" >/dev/null || return 1
    local out rc total bad
    out="$(cd build && ctest --output-on-failure 2>&1)"; rc=$?
    echo "$out"
    # ctest says "N% tests passed, F tests failed out of T": restate it.
    total=$(echo "$out" | sed -nE 's/.*tests failed out of ([0-9]+).*/\1/p')
    bad=$(echo "$out" | sed -nE 's/.*, ([0-9]+) tests failed out of.*/\1/p')
    echo "ctest: $(( ${total:-0} - ${bad:-0} )) passed, ${bad:-1} failed"
    return $rc
}
studies() { bash scripts/setup-apps.sh && pt studies tests/studies; }
slowest() { # the 20 slowest cases of the stages that ran
    echo
    python3 tests/slowest.py --top 20 "$logs"/*.xml "$@" 2>/dev/null || true
}
run_stage "C unit tests" build_and_unit
if [ "$quick" -eq 1 ]; then
    run_stage "MPI integration tests (Open MPI), the quick subset" \
        pt integration-quick -m quick tests/integration
    run_stage "gpcnet Python tool (without the browser)" pt python-quick -n 2 -m "not full_only" tests/python
    run_stage "security: the checks that need no testbed or applications" \
        pt security-quick -n 2 -m "not full_only" tests/security
    run_stage "docs: every block marked, parsed, naming files that exist" \
        pt docs-quick -m "not full_only" -k "not runs_as" tests/docs
    slowest
    echo
    echo "quick tier: $((SECONDS - t_suite)) s"
    echo "$passed passed, $failed failed"
    [ "$stage_failed" -eq 0 ] && [ "$failed" -eq 0 ]
    exit
fi
# The reliability stage runs beside the others, from the start: its time
# is mostly set by the clock (a --deadline, a --time-limit, the fuzzer's
# seconds), so beside them it grows little. It runs in a cpu cgroup of
# its own where one can be made (scripts/lane-lib.sh): MPICH starts each
# rank in a session of its own, and the scheduler weighed each polling
# rank as much as the whole suite beside it (the Python tool's stage took
# 246 s beside MPICH's tests, 93 s with the cgroup, 50 s alone). Its tests
# use no testbed, throw-away user or shared directory of the other
# stages, and none of them depends on the host's speed
# (docs/reliability.md#tests-never-race-the-clock). Its output is kept in
# a file and printed when the other stages are done; the lane is stopped
# with the suite.
. scripts/lane-lib.sh
lane_traps
rel_log="$logs/reliability-stage.log"
# apt first, in the foreground: the studies stage installs too.
run_stage "reliability: installing what it needs" bash scripts/test-reliability.sh --install-only
rel_t=$SECONDS
lane_start "$rel_log" bash scripts/test-reliability.sh --no-install
echo "=== reliability and portability: started beside the next stages (its output at the end; $lane_cpu)"
# Two pytest workers where a test spends much of its time waiting (for a
# --deadline, a launcher, a compiler): one file per worker (module fixtures
# run once), the testbed's blocks all in one worker (one testbed per machine).
run_stage "MPI integration tests (Open MPI)" pt integration -n 2 --dist loadfile tests/integration
run_stage "gpcnet Python tool" pt python -n 2 tests/python
run_stage "testbed (emulated cluster, root)" pt testbed tests/testbed
# Spack: $GPCNET_SPACK_ROOT, else a scratch copy of ../shared/tools/spack (never
# skipped where it exists; -rs prints any skip reason), else /opt/spack.
run_stage "packaging: Spack, Benchpark and ReFrame" pt packaging -rs tests/packaging
run_stage "gpcnet study (co-run, bullies, counters)" studies
run_stage "security: planted links, hostile input, signals, Hypothesis (docs/security.md)" pt security -n 2 tests/security
run_stage "docs: every runnable example as written" pt docs -n 2 --dist loadgroup tests/docs
lane_wait
echo "=== reliability and portability (beside the stages above)"
cat "$rel_log"
# Its own time (it may have ended before the stages above).
rel_s=$(grep -Eo 'total time [0-9]+ s' "$rel_log" | grep -Eo '[0-9]+' | tail -1)
stage_result "reliability and portability" "$rel_log" "$lane_rc" "${rel_s:-$((SECONDS - rel_t))}"

slowest "$repo"/build-reliability/*.xml
echo
echo "whole suite: $((SECONDS - t_suite)) s"
echo "$passed passed, $failed failed"
[ "$stage_failed" -eq 0 ] && [ "$failed" -eq 0 ]
