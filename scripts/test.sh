#!/usr/bin/env bash
# The whole test suite: C unit tests (ctest), MPI integration tests on
# emulated nodes (Open MPI), the gpcnet Python tool's tests (with a real
# headless browser), the testbed, packaging, studies, every runnable example
# of README.md and docs/ as written (tests/docs), then
# scripts/test-reliability.sh: the integration tests and the fault catalogue
# under MPICH and on the ASan+UBSan Open MPI build, SimGrid, valgrind and a
# short fuzz run.
# Installs what is missing first (Debian packages through apt-get, with sudo
# when not root; Python packages with pip): a compiler, CMake, Open MPI, the
# gpcnet tool with pytest, pytest-timeout and ReFrame, headless Chromium,
# python3-venv (as root, tests/docs makes a venv of Debian's Python with the
# tool's dependencies for its unprivileged user, /var/cache/gpcnet-tests),
# iproute2, pyroute2, Slurm, munge and the testbed's MPICH (PyPI),
# LAMMPS and HPCC, Debian's MPICH, SimGrid, clang and valgrind.
# Time: about 40 minutes on a 2-core machine (CI on a fresh clone,
# 2026-11-26: 37 and 41 minutes).
# Ends with one line "N passed, M failed".
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/setup.sh --python || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
count() { # stage name, log file: add the pytest/ctest counts of a stage
    local p f
    p=$(grep -Eo '[0-9]+ passed' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    f=$(grep -Eo '[0-9]+ failed' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
}
stage_failed=0
run_stage() { # name, command...
    local name="$1"; shift
    local log; log="$(mktemp)"
    echo "=== $name"
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    count "$name" "$log"
    if [ "$rc" -ne 0 ]; then
        echo "=== $name: FAILED (exit $rc)"
        stage_failed=1
        # A stage that died before counting still counts as a failure.
        grep -Eq '[0-9]+ failed' "$log" || failed=$((failed + 1))
    fi
    rm -f "$log"
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
run_stage "C unit tests" build_and_unit
run_stage "MPI integration tests (Open MPI)" python3 -m pytest -q tests/integration
run_stage "gpcnet Python tool" python3 -m pytest -q tests/python
run_stage "testbed (emulated cluster, root)" python3 -m pytest -q tests/testbed
# Spack: $GPCNET_SPACK_ROOT, else a scratch copy of ../shared/tools/spack (never
# skipped where it exists; -rs prints any skip reason), else /opt/spack.
run_stage "packaging: Spack, Benchpark and ReFrame" python3 -m pytest -q -rs tests/packaging
run_stage "gpcnet study (co-run, bullies, counters)" sh -c 'bash scripts/setup-apps.sh && python3 -m pytest -q tests/studies'
run_stage "security: planted links, hostile input, signals, Hypothesis (docs/security.md)" python3 -m pytest -q tests/security
run_stage "docs: every runnable example as written" python3 -m pytest -q tests/docs
if [ -x scripts/test-reliability.sh ] || [ -f scripts/test-reliability.sh ]; then
    run_stage "reliability and portability" bash scripts/test-reliability.sh
fi

echo
echo "$passed passed, $failed failed"
[ "$stage_failed" -eq 0 ] && [ "$failed" -eq 0 ]
