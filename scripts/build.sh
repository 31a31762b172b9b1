#!/usr/bin/env bash
# Build one variant of GPCNeT (see docs/portability.md).
#
#   scripts/build.sh [--mpi openmpi|mpich|mpich-ofi|simgrid] [--sanitize] [--fuzz]
#                    [--type Release|Debug|RelWithDebInfo] [--dir DIR] [--clean]
#
#   --mpi openmpi   (default) Open MPI's mpicc.openmpi          -> build-openmpi/
#   --mpi mpich     MPICH's mpicc.mpich                         -> build-mpich/
#   --mpi mpich-ofi the testbed's MPICH (scripts/setup-testbed.sh, ch4:ofi;
#                   run: gpcnet testbed run --mpi mpich)          -> build-mpich-ofi/
#   --mpi simgrid   SimGrid SMPI's smpicc (run: scripts/smpirun.sh) -> build-simgrid/
#   --sanitize      AddressSanitizer + UndefinedBehaviorSanitizer -> build-<mpi>-asan/
#   --fuzz          clang + libFuzzer targets of tests/fuzz (no MPI run needed)
#                                                               -> build-fuzz/
#   --dir DIR       build directory instead of the default above
#   --clean         remove the build directory first
#
# Prints the build directory on the last line. Safe to run again (cmake
# reconfigures only what changed).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mpi=openmpi
sanitize=0
fuzz=0
type=""
dir=""
clean=0
jobs="$(nproc 2>/dev/null || echo 2)"

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --mpi) mpi="${2:?--mpi needs openmpi, mpich, mpich-ofi or simgrid}"; shift 2 ;;
        --mpi=*) mpi="${1#--mpi=}"; shift ;;
        --sanitize) sanitize=1; shift ;;
        --fuzz) fuzz=1; shift ;;
        --type) type="${2:?--type needs a CMake build type}"; shift 2 ;;
        --dir) dir="${2:?--dir needs a directory}"; shift 2 ;;
        --clean) clean=1; shift ;;
        -j) jobs="${2:?-j needs a number}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "build.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "build.sh: '$1' not found; $2" >&2
        exit 1
    }
}

args=()
env_cc=()
case "$mpi" in
    openmpi)
        wrapper="$(command -v mpicc.openmpi || true)"
        [ -n "$wrapper" ] || { need mpicc "install openmpi-bin libopenmpi-dev"; wrapper="$(command -v mpicc)"; }
        args+=("-DMPI_C_COMPILER=$wrapper")
        ;;
    mpich)
        need mpicc.mpich "install mpich libmpich-dev"
        args+=("-DMPI_C_COMPILER=$(command -v mpicc.mpich)")
        ;;
    mpich-ofi)
        wrapper="${GPCNET_MPICH_PREFIX:-/opt/gpcnet-mpich}/bin/mpicc"
        [ -x "$wrapper" ] || { echo "build.sh: '$wrapper' not found; run scripts/setup-testbed.sh" >&2; exit 1; }
        args+=("-DMPI_C_COMPILER=$wrapper")
        ;;
    simgrid)
        need smpicc "install simgrid libsimgrid-dev"
        # smpicc is the compiler itself; there is no CMake MPI package for it.
        env_cc=(env "CC=$(command -v smpicc)")
        args+=("-DCMAKE_C_COMPILER=$(command -v smpicc)" -DGPCNET_COMPILER_IS_MPI_WRAPPER=ON
               -DGPCNET_BUILD_TESTS=OFF)
        ;;
    *) echo "build.sh: --mpi must be openmpi, mpich, mpich-ofi or simgrid, not '$mpi'" >&2; exit 2 ;;
esac

name="build-$mpi"
if [ "$fuzz" -eq 1 ]; then
    need clang "install clang libclang-rt-14-dev"
    # Debian's clang comes without libFuzzer and the sanitizer runtimes.
    rt="$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)"
    [ -f "$rt" ] || { echo "build.sh: clang has no libFuzzer runtime ($rt not found); install libclang-rt-14-dev" >&2; exit 1; }
    [ "$mpi" != simgrid ] || { echo "build.sh: --fuzz needs a real MPI (openmpi or mpich) for the configure step" >&2; exit 2; }
    name="build-fuzz"
    env_cc=(env "CC=$(command -v clang)")
    args+=("-DCMAKE_C_COMPILER=$(command -v clang)" -DGPCNET_BUILD_FUZZERS=ON)
    type="${type:-RelWithDebInfo}"
fi
if [ "$sanitize" -eq 1 ]; then
    [ "$mpi" != simgrid ] || { echo "build.sh: --sanitize is for openmpi or mpich" >&2; exit 2; }
    args+=(-DGPCNET_SANITIZE=ON)
    [ "$fuzz" -eq 1 ] || name="$name-asan"
    type="${type:-RelWithDebInfo}"
fi
args+=("-DCMAKE_BUILD_TYPE=${type:-Release}")

[ -n "$dir" ] || dir="$repo/$name"
if [ "$clean" -eq 1 ]; then
    rm -rf "$dir"
fi
mkdir -p "$dir"
"${env_cc[@]}" cmake -S "$repo" -B "$dir" "${args[@]}" >"$dir/configure.log" 2>&1 || {
    cat "$dir/configure.log" >&2
    echo "build.sh: configure failed (log: $dir/configure.log)" >&2
    exit 1
}
cmake --build "$dir" -j "$jobs" >"$dir/build.log" 2>&1 || {
    tail -50 "$dir/build.log" >&2
    echo "build.sh: build failed (log: $dir/build.log)" >&2
    exit 1
}
echo "$dir"
