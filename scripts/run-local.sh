#!/usr/bin/env bash
# Build GPCNeT and run network_load_test on this one machine, treating
# every rank as one emulated node (docs/method.md#emulated-nodes), so the
# tables print here.
#
#   bash scripts/run-local.sh                 # 10 nodes x 1 rank, 1 s per test
#   NODES=10 PPN=2 bash scripts/run-local.sh --verbose
#
# Extra arguments go to network_load_test (see --help). Results land in
# results/<date-time>/ (JSON, node lists). On a real cluster run the
# binaries under srun/mpirun instead: see docs/running.md.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
source scripts/env-check.sh
nodes="${NODES:-10}"
ppn="${PPN:-1}"
env_int NODES "$nodes" 1 100000   # checked before anything is installed or built
env_int PPN "$ppn" 1 1024
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

out="results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

launcher=(mpirun -np $((nodes * ppn)))
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    # More ranks than cores is what emulation means here.
    launcher=(mpirun --oversubscribe -np $((nodes * ppn)))
    export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}"
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
fi
echo "run-local: ${launcher[*]} build/network_load_test --emulate-nodes $ppn --time-limit 1 --output-dir $out $*" >&2
"${launcher[@]}" build/network_load_test --emulate-nodes "$ppn" --time-limit 1 \
    --output-dir "$out" "$@"
