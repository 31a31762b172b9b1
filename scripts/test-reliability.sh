#!/usr/bin/env bash
# Reliability and portability checks of GPCNeT (docs/reliability.md,
# docs/portability.md), in one go, non-interactively:
#
#   1. installs what is missing (Debian 12, as root or with sudo):
#      compilers, Open MPI, MPICH, SimGrid, clang, valgrind; pytest and
#      the gpcnet tool of this checkout in the tests' own venv,
#      build-venv/ (scripts/venv-lib.sh), whose bin is first on PATH for
#      every step (the user's own Python is never installed into);
#   2. builds build-mpich, build-simgrid, build-openmpi,
#      build-openmpi-asan and build-fuzz (scripts/build.sh);
#   3. runs: the C unit tests and, of the integration + reliability
#      suites, the tests of what differs between builds (every_build in
#      tests/tiers.py: start-up and exit paths, one-sided windows, signals
#      and faults, the catalogue) under MPICH; network_test and
#      network_load_test under SimGrid on the platforms/ clusters; on the
#      ASan+UBSan build under Open MPI the every_build integration tests and
#      the whole reliability catalogue, and
#      LeakSanitizer on small jobs; valgrind memcheck on small jobs; a
#      short fuzzing run.
#
#   scripts/test-reliability.sh [--no-install | --install-only] [--fuzz-seconds N] [--only STEPS]
#
#   --no-install      do not install anything (fail if something is missing)
#   --install-only    install what is missing, then stop (scripts/test.sh
#                     does this first, then runs the rest beside its stages)
#   --fuzz-seconds N  fuzzing time per target (default 12; 4 targets, 2 at a time)
#   --only STEPS      comma-separated subset of: build,mpich,simgrid,asan,memory,fuzz
#
# Logs and JUnit files go to build-reliability/. The last line is exactly
# "N passed, M failed" (every pytest case, C unit test, fuzz target and
# build counts once); the exit status is non-zero if M > 0.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
install=1
install_only=0
install_failed=0
fuzz_seconds=12
only="build,mpich,simgrid,asan,memory,fuzz"
while [ $# -gt 0 ]; do
    case "$1" in
        --no-install) install=0; shift ;;
        --install-only) install_only=1; shift ;;
        --fuzz-seconds) fuzz_seconds="${2:?}"; shift 2 ;;
        --only) only="${2:?}"; shift 2 ;;
        -h|--help) sed -n '2,32p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "test-reliability.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
want() { [[ ",$only," == *",$1,"* ]]; }

logs="$repo/build-reliability"
mkdir -p "$logs"
passed=0
failed=0
t_start=$SECONDS
note() { printf '[%4ds] %s\n' $((SECONDS - t_start)) "$*"; }
count() { passed=$((passed + $1)); failed=$((failed + $2)); }

# ------------------------------------------------------------- 1. install
export DEBIAN_FRONTEND=noninteractive
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
# What each step needs, as "command:packages" (Debian 12 names; SimGrid's
# smpicc and smpirun come with libsimgrid-dev).
needs=("cc:build-essential" "cmake:cmake" "python3:python3"
       "mpicc.openmpi:openmpi-bin libopenmpi-dev" "mpicc.mpich:mpich libmpich-dev"
       "smpicc:libsimgrid-dev" "valgrind:valgrind" "unshare:util-linux")
missing=()
for n in "${needs[@]}"; do
    if ! command -v "${n%%:*}" >/dev/null 2>&1; then
        read -r -a more <<<"${n#*:}"
        missing+=("${more[@]}")
    fi
done
# Debian's clang does not bring its runtime libraries: the fuzz build links
# libFuzzer and the ASan/UBSan runtimes from libclang-rt-14-dev. Check for
# the files themselves (clang prints the bare name when it has no such file).
clang_rt_present() {
    command -v clang >/dev/null 2>&1 || return 1
    local lib path
    for lib in libclang_rt.fuzzer-x86_64.a libclang_rt.asan-x86_64.a libclang_rt.ubsan_standalone-x86_64.a; do
        path="$(clang -print-file-name="$lib" 2>/dev/null)"
        [ "${path#/}" != "$path" ] && [ -f "$path" ] || return 1
    done
}
clang_rt_present || missing+=(clang libclang-rt-14-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$install" -eq 1 ]; then
        note "installing: ${missing[*]}"
        { as_root apt-get update -q && as_root apt-get install -y -q --no-install-recommends \
              "${missing[@]}"; } </dev/null >"$logs/apt.log" 2>&1 || {
            tail -20 "$logs/apt.log"
            note "installation failed (log: $logs/apt.log)"
            install_failed=1
        }
    else
        note "missing (not installed: --no-install): ${missing[*]}"
    fi
fi
# pytest and the gpcnet tool of this checkout come from the tests' own
# venv, build-venv/ (scripts/venv-lib.sh), never from the user's Python:
# made or reused here; with --no-install only used where it is current.
. scripts/venv-lib.sh
if [ "$install" -eq 1 ] && ! test_venv_ready "$repo"; then
    note "the test venv $repo/build-venv could not be made"
    install_failed=1
fi
if test_venv_current "$repo"; then
    test_venv_use "$repo"
else
    note "missing (not made: --no-install): the test venv $repo/build-venv; pytest runs from the first python3 on PATH"
fi
if [ "$install_only" -eq 1 ]; then
    if [ "$install_failed" -eq 1 ]; then exit 1; fi
    note "what the steps need is installed; nothing run (--install-only)"
    exit 0
fi

# ------------------------------------------------------------- 2. builds
declare -A built=()
build() { # name, build.sh arguments...
    local name="$1"; shift
    local t=$SECONDS
    if bash scripts/build.sh "$@" >"$logs/build-$name.log" 2>&1; then
        built[$name]=1
        count 1 0
        note "build $name: ok ($((SECONDS - t)) s)"
    else
        count 0 1
        note "build $name: FAILED (log: $logs/build-$name.log)"
        tail -15 "$logs/build-$name.log"
    fi
}
if want build || want mpich; then build mpich --mpi mpich; fi
if want build || want simgrid; then build simgrid --mpi simgrid; fi
if want build || want memory; then build openmpi --mpi openmpi; fi
if want build || want asan || want memory; then build openmpi-asan --mpi openmpi --sanitize; fi
if want build || want fuzz; then build fuzz --fuzz; fi

# ------------------------------------------------------------- 3. runs
# pytest with a JUnit file; adds its cases to the totals.
run_pytest() { # label, env assignments..., --, pytest arguments...
    local label="$1"; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local xml="$logs/$label.xml" t=$SECONDS
    rm -f "$xml"
    env "${envs[@]}" python3 -m pytest -q -p no:cacheprovider --junitxml="$xml" "$@" \
        >"$logs/$label.log" 2>&1
    local rc=$?
    if [ ! -s "$xml" ]; then
        count 0 1
        note "$label: FAILED to run (exit $rc, log: $logs/$label.log)"
        tail -20 "$logs/$label.log"
        return
    fi
    local counts
    counts="$(python3 - "$xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
n = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
k = sum(int(s.get("skipped", 0)) for s in suites)
print(n - f - k, f, k)
EOF
)"
    read -r p f k <<<"$counts"
    count "$p" "$f"
    note "$label: $p passed, $f failed, $k skipped ($((SECONDS - t)) s)"
    if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
        grep -E "^(FAILED|ERROR)" "$logs/$label.log" | head -20
        [ "$f" -gt 0 ] || { count 0 1; note "$label: pytest exited $rc"; }
    fi
}

# Two pytest workers for the ASan build's runs, one test file each (module
# fixtures run once), where pytest-xdist is installed: many of these tests
# wait for a --deadline or a launcher, and the other worker's job uses the
# time.
two=()
python3 -c 'import xdist' 2>/dev/null && two=(-n 2 --dist loadfile)

if want mpich && [ -n "${built[mpich]:-}" ]; then
    t=$SECONDS
    if (cd build-mpich && ctest --output-on-failure) >"$logs/ctest-mpich.log" 2>&1; then ok=1; else ok=0; fi
    summary="$(grep -E "tests passed, [0-9]+ tests failed out of" "$logs/ctest-mpich.log" | tail -1)"
    total="$(sed -n 's/.*out of \([0-9]*\).*/\1/p' <<<"$summary")"
    bad="$(sed -n 's/.* \([0-9]*\) tests failed.*/\1/p' <<<"$summary")"
    if [ -n "$total" ]; then count $((total - bad)) "$bad"; else count 0 1; fi
    note "unit tests (ctest, MPICH build): ${summary:-did not run} ($((SECONDS - t)) s)"
    [ "$ok" -eq 1 ] || tail -20 "$logs/ctest-mpich.log"

    # MPICH busy-polls; on an oversubscribed host it should yield.
    mpich_env=(GPCNET_MPI=mpich "GPCNET_BUILD_DIR=$repo/build-mpich" MPIR_CVAR_POLLS_BEFORE_YIELD=1)
    # Under MPICH only what differs between MPI implementations (the
    # every_build list of tests/tiers.py: start-up and exit paths, one-sided
    # windows, signals and faults, the catalogue); the rest is the same code
    # whatever the MPI, and runs under Open MPI in scripts/test.sh.
    # One worker: MPICH's ranks poll, and two jobs of them at once left a
    # 10-rank job 6.5 s too little for its start-up (CI, 2026-11-28).
    run_pytest mpich-integration "${mpich_env[@]}" -- -m every_build tests/integration
    run_pytest mpich-reliability "${mpich_env[@]}" -- -m every_build tests/reliability
fi

if want simgrid && [ -n "${built[simgrid]:-}" ]; then
    run_pytest simgrid GPCNET_HEAVY=1 "GPCNET_SIMGRID_BUILD_DIR=$repo/build-simgrid" -- \
        tests/reliability/heavy/test_simgrid.py tests/reliability/heavy/test_simgrid_scale.py
fi

if want asan && [ -n "${built[openmpi-asan]:-}" ]; then
    # Leaks are checked in the memory step: Open MPI's own leaks need full
    # unwinding to be suppressed, which is too slow for whole suites.
    asan_env=(GPCNET_MPI=openmpi "GPCNET_BUILD_DIR=$repo/build-openmpi-asan"
              ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
    # The integration tests run whole under Open MPI in scripts/test.sh:
    # here those of what differs between builds. The reliability catalogue
    # runs whole here (it has no plain Open MPI run of its own).
    run_pytest asan-integration "${asan_env[@]}" -- "${two[@]}" -m every_build tests/integration
    run_pytest asan-reliability "${asan_env[@]}" -- "${two[@]}" tests/reliability
fi

if want memory; then
    run_pytest memory GPCNET_HEAVY=1 GPCNET_MPI=openmpi \
        "GPCNET_VALGRIND_BUILD_DIR=$repo/build-openmpi" \
        "GPCNET_ASAN_BUILD_DIR=$repo/build-openmpi-asan" -- \
        tests/reliability/heavy/test_memory.py
fi

if want fuzz && [ -n "${built[fuzz]:-}" ]; then
    t=$SECONDS
    bash tests/fuzz/run.sh --seconds "$fuzz_seconds" --build "$repo/build-fuzz" \
        >"$logs/fuzz.log" 2>&1
    fp="$(grep -c ": .* no crash" "$logs/fuzz.log")"
    ff="$(grep -c ": FAILED" "$logs/fuzz.log")"
    [ "$fp" -gt 0 ] || [ "$ff" -gt 0 ] || ff=1
    count "$fp" "$ff"
    note "fuzz ($fuzz_seconds s per target): $fp passed, $ff failed ($((SECONDS - t)) s)"
    sed 's/^/    /' "$logs/fuzz.log" | head -20
fi

note "total time $((SECONDS - t_start)) s; logs in $logs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
