#!/usr/bin/env bash
# Real applications for `gpcnet study` (docs/studies.md, Applications), all
# from Debian 12, installed non-interactively and only when missing:
# - LAMMPS (an MPI-intensive molecular-dynamics code; input in apps/lammps);
# - HPCC (the HPC Challenge suite; its EP-STREAM/EP-DGEMM parts barely
#   communicate);
# - GROMACS (gmx_mpi: PME, a distributed 3-D FFT every step; apps/gromacs);
# - hypre (library only: Debian ships no AMG driver), for our own small AMG
#   driver apps/amg/amg27.c, compiled here into build-apps/amg27 (again
#   whenever the source is newer). The reference BLAS/LAPACK are named so
#   that apt does not pull OpenBLAS's development files (about 100 MB).
# Checks the files used.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
need=()
[ -x /usr/bin/lmp ] || need+=(lammps)
[ -x /usr/bin/hpcc ] || need+=(hpcc)
[ -x /usr/bin/gmx_mpi ] || need+=(gromacs)
[ -f /usr/include/hypre/HYPRE.h ] || need+=(libhypre-dev libblas-dev liblapack-dev)
command -v mpicc >/dev/null || need+=(libopenmpi-dev)
if [ "${#need[@]}" -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q </dev/null >/dev/null || { echo "setup-apps: apt-get update failed" >&2; exit 1; }
    apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null ||
        { echo "setup-apps: apt-get install ${need[*]} failed" >&2; exit 1; }
fi
for f in /usr/bin/lmp /usr/bin/hpcc /usr/bin/gmx /usr/bin/gmx_mpi; do
    [ -x "$f" ] || { echo "setup-apps: $f missing after install" >&2; exit 1; }
done
amg=$repo/build-apps/amg27
if [ ! -x "$amg" ] || [ "$repo/apps/amg/amg27.c" -nt "$amg" ]; then
    mkdir -p "$repo/build-apps"
    # Built beside, then moved: a failed build leaves no stale binary.
    mpicc -O2 -std=c11 -Wall -Wextra -I/usr/include/hypre -o "$amg.new" "$repo/apps/amg/amg27.c" -lHYPRE ||
        { echo "setup-apps: building $amg failed" >&2; rm -f "$amg.new"; exit 1; }
    mv -f "$amg.new" "$amg"
fi
v() { dpkg-query -W -f='${Version}' "$1"; }
echo "setup-apps: lammps $(v lammps), hpcc $(v hpcc), gromacs $(v gromacs), hypre $(v libhypre-dev) (build-apps/amg27)"
